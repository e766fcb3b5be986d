"""`snapkv`: for prompts longer than the limit, keep what the end of each prompt chunk attends to.

Li et al., 2024, "SnapKV: LLM Knows What You are Looking for Before Generation" (arXiv:2404.14469):
the last queries of a prompt (an observation window) show which earlier keys matter; their
attention, summed and pooled over neighbouring positions, picks the keys to keep, per layer.

A per-layer policy on the attention the cache records (`attention_mode("chunk")` is a WINDOW mode
carrying `observation_window` and `pool`). A prompt longer than the limit is prefilled in chunks;
before each chunk the cache evicts, by the pooled attention of the previous chunk's last
`observation_window` real queries, keeping the first `n_sink` tokens and the `observation_window`
newest (the observation window itself, as the paper does). Generation then goes on with the
`decode_policy`: "sinks" (evict the oldest, the default) or "tova" (the token the newest query
attends to least).

The setting was called `window` until kvlimit 0.1 (a name it shared with the `window` policy);
`window=` is still accepted for it (`kvlimit.config.RENAMED`).

Deviations: the paper compresses a whole prompt once before generation; kvlimit streams it, so each
chunk is compressed against the chunk before it, and the window is counted in real tokens per row
(left padding is never a query). One kept set per layer for all its KV heads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .base import (
    RECENT,
    RECENT_BONUS,
    AttentionKind,
    AttentionMode,
    SlotView,
    WithSinks,
    check_count,
    setting,
)

#: Policies generation may go on with after a SnapKV prefill.
DECODE_POLICIES = ("sinks", "tova")


@dataclass(frozen=True)
class SnapKV(WithSinks):
    """Per layer, in prompt chunks: keep the first `n_sink` tokens, the `observation_window` newest, and
    the keys the last `observation_window` queries attend to most (pooled over `pool` neighbours); then
    decode with `decode_policy`."""

    name: ClassVar[str] = "snapkv"
    summary: ClassVar[str] = (
        "per layer, for long prompts: keep what each chunk's last observation_window queries attend to "
        "(SnapKV), then go on with decode_policy=sinks or tova"
    )
    per_layer: ClassVar[bool] = True
    observation_window: int = setting(32, "how many of a prompt chunk's last queries observe what to keep")
    pool: int = setting(5, "observed scores are averaged over this many neighbouring keys (odd)")
    decode_policy: str = setting(
        "sinks", "how generation goes on after the prompt: sinks or tova", metavar="P", default_text="sinks"
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        check_count("observation_window", self.observation_window)
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

    def attention_mode(self, phase: str) -> AttentionMode | None:
        if phase == "chunk":
            return AttentionMode(AttentionKind.WINDOW, queries=self.observation_window, pool=self.pool)
        return RECENT if self.decode_policy == "tova" else None

    def score(self, slots: SlotView) -> torch.Tensor:
        index = slots.token_index
        if slots.phase == "decode" and self.decode_policy == "sinks":
            return self.protect_sinks(slots, index.float())
        if slots.attention is None:
            raise ValueError(
                "snapkv needs SlotView.attention (the attention scores), which the cache records"
            )
        scores = slots.attention
        if slots.phase == "chunk":  # the observation window itself is kept, as in the paper
            newest = index.max(dim=1, keepdim=True).values
            recent = index > newest - self.observation_window
            scores = torch.where(recent, RECENT_BONUS + index.float(), scores)
        return self.protect_sinks(slots, scores)
