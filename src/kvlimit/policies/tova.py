"""`tova`: per layer, evict the token that the newest query attends to least.

Oren et al., 2024, "Transformers are Multi-State RNNs" (arXiv:2401.06104), Token Omission Via
Attention: when the cache is over budget, drop the token with the lowest attention from the current
query, attention averaged over all heads, one decision per layer for all its KV heads.

A per-layer policy on the attention the cache records (`attention = RECENT`: each step the newest
query's weights over every kept key, from the model's own forward; see `kvlimit.cache.attention`).

Deviations from the paper (and from its code: Llama/Mistral, transformers 4.36, eager attention):
- kvlimit never lets a query see more keys than the limit, so a step evicts before it attends, by
  the scores of the previous query; the paper attends with limit + 1 keys and evicts after.
- the first `n_sink` tokens are never evicted (StreamingLLM's sinks; `n_sink=0` is the paper's rule).
  TOVA keeps them on its own most of the time, since they draw much attention.
- any family whose attention goes through transformers' attention registry, sdpa or eager, batched
  and left-padded, with beams; each row decides alone (equal scores: the oldest token goes).
- a prompt longer than the limit is prefilled in chunks (and `kvlimit ppl` streams its text in
  chunks): a chunk's eviction uses the attention of the previous chunk's queries, each key's
  averaged over the queries that could see it (one decode step: the newest query's, as in the paper).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .base import RECENT, AttentionMode, SlotView, WithSinks


@dataclass(frozen=True)
class Tova(WithSinks):
    """Per layer: never evict the first `n_sink` tokens; otherwise the one the newest query attends to least."""

    name: ClassVar[str] = "tova"
    summary: ClassVar[str] = (
        "per layer, keep the first n_sink tokens and evict the one the newest query attends to least (TOVA)"
    )
    per_layer: ClassVar[bool] = True
    attention: ClassVar[AttentionMode | None] = RECENT

    def score(self, slots: SlotView) -> torch.Tensor:
        if slots.attention is None:
            raise ValueError("tova needs SlotView.attention (the attention scores), which the cache records")
        return self.protect_sinks(slots, slots.attention)
