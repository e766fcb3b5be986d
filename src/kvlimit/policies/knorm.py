"""`knorm`: per layer, evict the key with the largest L2 norm (keys with small norms draw attention).

Devoto et al., 2024, "A Simple and Effective L2 Norm-Based Strategy for KV Cache Compression"
(arXiv:2406.11430): in trained decoders the keys with the smallest L2 norm receive the most
attention, so keeping the low-norm keys approximates keeping the most attended ones without ever
computing attention weights (it works with sdpa and flash kernels).

A per-layer policy: every attention layer keeps its own tokens. The statistic is the key's norm
averaged over the layer's kv heads, computed once when the key is stored (RoPE rotations do not
change it, so later re-rotations by the cache leave it valid) and rounded to float16, so that equal
norms tie exactly and ties go the same way in every batch shape.

Deviations from the paper (and from kvpress's `KnormPress`, which scores each head separately and
compresses the prompt once): one token set per layer for all its heads, so the cache stays a
plain `(batch, kv_heads, slots, head_dim)` tensor; compression runs continuously while streaming;
and two guards that streaming needs: the first `n_sink` tokens are never evicted (StreamingLLM's
sinks, which the norm criterion would otherwise remove as soon as they are outliers) and the
`n_recent` newest tokens are evicted only when nothing else can be (a new token is needed as local
context whatever its norm).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .base import SinksAndRecent, SlotView


@dataclass(frozen=True)
class KeyNorm(SinksAndRecent):
    """Per layer: never evict the first `n_sink` tokens, keep the `n_recent` newest, and otherwise
    evict the token whose key has the largest L2 norm (mean over kv heads).

    `n_recent=None` keeps a quarter of the cache as the recent window.
    """

    name: ClassVar[str] = "knorm"
    summary: ClassVar[str] = (
        "per layer, keep the first n_sink tokens, the n_recent newest and otherwise the keys of smallest L2 norm"
    )
    per_layer: ClassVar[bool] = True
    criterion: ClassVar[str] = "the norm criterion"
    recent_share: ClassVar[int] = 4
    recent_default: ClassVar[str] = "a quarter of the cache"

    def token_statistic(self, keys: torch.Tensor) -> torch.Tensor:
        norms = torch.linalg.vector_norm(keys.float(), dim=-1).mean(dim=1)
        # Rounded to float16 (3 significant digits): keys of equal norm (in the first layer, every
        # repeat of a token id) then tie exactly and the tie goes to the same slot whatever the batch
        # shape, instead of to float noise that differs between a batch and a single row.
        return norms.half().float()

    def score(self, slots: SlotView) -> torch.Tensor:
        if slots.statistic is None:
            raise ValueError("knorm needs SlotView.statistic (the key norms), which per-layer caches provide")
        return self.guarded(slots, -slots.statistic)
