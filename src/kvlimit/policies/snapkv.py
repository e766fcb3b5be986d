"""`snapkv`: for prompts longer than the limit, keep what the end of each prompt chunk attends to.

Li et al., 2024, "SnapKV: LLM Knows What You are Looking for Before Generation" (arXiv:2404.14469):
the last `window` queries of a prompt (an observation window) show which earlier keys matter;
their attention, summed and pooled over neighbouring positions, picks the keys to keep, per layer.

A per-layer policy on the attention the cache records (`attention_mode("chunk") = "window"`). A
prompt longer than the limit is prefilled in chunks; before each chunk the cache evicts, by the
pooled attention of the previous chunk's last `window` real queries, keeping the first `n_sink`
tokens and the `window` newest (the observation window itself, as the paper does). Generation then
goes on with the `decode_policy`: "sinks" (evict the oldest, the default) or "tova" (the token the
newest query attends to least).

Deviations: the paper compresses a whole prompt once before generation; kvlimit streams it, so each
chunk is compressed against the chunk before it, and the window is counted in real tokens per row
(left padding is never a query). One kept set per layer for all its KV heads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .base import RECENT_BONUS, EvictionPolicy, SlotView, check_count

#: Policies generation may go on with after a SnapKV prefill.
DECODE_POLICIES = ("sinks", "tova")


@dataclass(frozen=True)
class SnapKV(EvictionPolicy):
    """Per layer, in prompt chunks: keep the first `n_sink` tokens, the `window` newest, and the keys the
    last `window` queries attend to most (pooled over `pool` neighbours); then decode with `decode_policy`."""

    name: ClassVar[str] = "snapkv"
    summary: ClassVar[str] = (
        "per layer, for long prompts: keep what each chunk's last window queries attend to (SnapKV), "
        "then go on with decode_policy=sinks or tova"
    )
    per_layer: ClassVar[bool] = True
    n_sink: int = 4
    window: int = 32
    pool: int = 5
    decode_policy: str = "sinks"

    def __post_init__(self) -> None:
        check_count("n_sink", self.n_sink)
        check_count("window", self.window)
        if (
            isinstance(self.pool, bool)
            or not isinstance(self.pool, int)
            or self.pool < 1
            or self.pool % 2 == 0
        ):
            raise ValueError(
                f"pool must be an odd int >= 1 (keys averaged over pool neighbours); got {self.pool!r}"
            )
        if self.decode_policy not in DECODE_POLICIES:
            raise ValueError(
                f"decode_policy={self.decode_policy!r} is not one of {', '.join(map(repr, DECODE_POLICIES))}"
            )

    @property
    def protected_tokens(self) -> int:
        return self.n_sink

    def attention_mode(self, phase: str) -> str | None:
        if phase == "chunk":
            return "window"
        return "recent" if self.decode_policy == "tova" else None

    def score(self, slots: SlotView) -> torch.Tensor:
        index = slots.token_index
        is_sink = (index >= 0) & (index < self.n_sink)
        if slots.phase == "decode" and self.decode_policy == "sinks":
            return index.float().masked_fill(is_sink, float("inf"))
        if slots.attention is None:
            raise ValueError(
                "snapkv needs SlotView.attention (the attention scores), which the cache records"
            )
        scores = slots.attention
        if slots.phase == "chunk":  # the observation window itself is kept, as in the paper
            newest = index.max(dim=1, keepdim=True).values
            scores = torch.where(index > newest - self.window, RECENT_BONUS + index.float(), scores)
        return scores.masked_fill(is_sink, float("inf"))
