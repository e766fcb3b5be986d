"""`h2o`: per layer, keep the newest tokens and the heavy hitters, the tokens attended to most.

Zhang et al., 2023, "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models" (arXiv:2306.14048): accumulate the attention every query gives each key; keep a recent
window and, in the rest of the budget, the keys with the largest accumulated attention.

A per-layer policy on the attention the cache records (`attention = MEAN`). Deviations:
- accumulated sums favour old tokens (they were seen by more queries), so the score is the sum
  divided by the number of queries that could see the key, as kvpress's observed-attention press
  does; a new token starts from its own query's attention.
- one kept set per layer for all its KV heads (the paper's real-drop code keeps one per head but
  assumes batch size 1 and breaks grouped-query models); kvlimit keeps `(batch, kv_heads, slots,
  head_dim)` storage and works batched, padded and with beams.
- the first `n_sink` tokens are never evicted (StreamingLLM's sinks, 0 for the paper's rule), and a
  step evicts before it attends (no query sees more keys than the limit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .base import MEAN, AttentionMode, SinksAndRecent, SlotView


@dataclass(frozen=True)
class HeavyHitters(SinksAndRecent):
    """Per layer: never evict the first `n_sink` tokens, keep the `n_recent` newest, and otherwise
    evict the token whose mean received attention is smallest.

    `n_recent=None` keeps half the cache as the recent window (H2O's even split).
    """

    name: ClassVar[str] = "h2o"
    summary: ClassVar[str] = (
        "per layer, keep the first n_sink tokens, the n_recent newest and the most attended (H2O, mean attention)"
    )
    per_layer: ClassVar[bool] = True
    attention: ClassVar[AttentionMode | None] = MEAN
    criterion: ClassVar[str] = "heavy hitters"
    recent_share: ClassVar[int] = 2
    recent_default: ClassVar[str] = "half the cache"

    def score(self, slots: SlotView) -> torch.Tensor:
        if slots.attention is None:
            raise ValueError("h2o needs SlotView.attention (the attention scores), which the cache records")
        return self.guarded(slots, slots.attention)
