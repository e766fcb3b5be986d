"""`h2o`: per layer, keep the newest tokens and the heavy hitters, the tokens attended to most.

Zhang et al., 2023, "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models" (arXiv:2306.14048): accumulate the attention every query gives each key; keep a recent
window and, in the rest of the budget, the keys with the largest accumulated attention.

A per-layer policy on the attention the cache records (`attention = "mean"`). Deviations:
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

from .base import EvictionPolicy, SlotView, check_count

#: Scores of the recent window sit above every attention score (those are at most 1).
_RECENT_BONUS = 1.0e6


@dataclass(frozen=True)
class HeavyHitters(EvictionPolicy):
    """Per layer: never evict the first `n_sink` tokens, keep the `n_recent` newest, and otherwise
    evict the token whose mean received attention is smallest.

    `n_recent=None` keeps half the cache as the recent window (H2O's even split).
    """

    name: ClassVar[str] = "h2o"
    summary: ClassVar[str] = (
        "per layer, keep the first n_sink tokens, the n_recent newest and the most attended (H2O, mean attention)"
    )
    per_layer: ClassVar[bool] = True
    attention: ClassVar[str | None] = "mean"
    n_sink: int = 4
    n_recent: int | None = None

    def __post_init__(self) -> None:
        check_count("n_sink", self.n_sink)
        check_count("n_recent", self.n_recent, none_means="half the cache")

    @property
    def protected_tokens(self) -> int:
        return self.n_sink

    def check_limit(self, cache_limit: int) -> None:
        super().check_limit(cache_limit)
        if self.n_recent is not None and self.n_sink + self.n_recent >= cache_limit:
            raise ValueError(
                f"{self.describe()} keeps n_sink + n_recent = {self.n_sink + self.n_recent} tokens by rule: "
                f"n_sink={self.n_sink} + n_recent={self.n_recent} leaves no room for heavy hitters in "
                f"cache_limit={cache_limit}; n_sink + n_recent must be smaller than cache_limit"
            )

    def recent_window(self, slots: int) -> int:
        """How many of the newest tokens are kept by recency in a cache of `slots` slots."""
        return slots // 2 if self.n_recent is None else self.n_recent

    def score(self, slots: SlotView) -> torch.Tensor:
        if slots.attention is None:
            raise ValueError("h2o needs SlotView.attention (the attention scores), which the cache records")
        index = slots.token_index
        newest = index.max(dim=1, keepdim=True).values
        recent = index > newest - self.recent_window(slots.slots)
        scores = torch.where(recent, _RECENT_BONUS + index.float(), slots.attention)
        is_sink = (index >= 0) & (index < self.n_sink)
        return scores.masked_fill(is_sink, float("inf"))
