"""`sinks`: StreamingLLM, the first `n_sink` tokens of each row plus the most recent ones.

Xiao et al., 2023, "Efficient Streaming Language Models with Attention Sinks" (arXiv:2309.17453).
Models put large attention on the first tokens whatever they say ("attention sinks"); keeping a
few of them beside a recent window keeps perplexity flat far past the trained context.

Deviations from the paper's code: sinks are counted per row from the row's first real token, so
left padding is never a sink; and positions are handled by the cache for every positional family
(the paper re-rotates RoPE keys of Llama-style models only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .base import EvictionPolicy, SlotView, check_count


@dataclass(frozen=True)
class Sinks(EvictionPolicy):
    """Never evict the first `n_sink` tokens of a row; otherwise evict the oldest."""

    name: ClassVar[str] = "sinks"
    summary: ClassVar[str] = "keep the first n_sink tokens and the most recent ones (StreamingLLM)"
    n_sink: int = 4

    def __post_init__(self) -> None:
        check_count("n_sink", self.n_sink)

    @property
    def protected_tokens(self) -> int:
        return self.n_sink

    def score(self, slots: SlotView) -> torch.Tensor:
        recency = slots.token_index.float()
        is_sink = (slots.token_index >= 0) & (slots.token_index < self.n_sink)
        return recency.masked_fill(is_sink, float("inf"))
