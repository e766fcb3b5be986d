"""Integrations with other libraries. `hf` is the only module that touches transformers internals."""
