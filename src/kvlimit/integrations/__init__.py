"""Integrations with other libraries. `hf` (a package: release, models, steps, attention, decoding,
probe) is the only place that touches transformers internals."""
