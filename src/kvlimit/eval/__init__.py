"""Evaluation helpers: the long-text corpus and streaming perplexity on it."""
