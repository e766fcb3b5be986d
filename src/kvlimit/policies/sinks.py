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

from .base import SlotView, WithSinks


@dataclass(frozen=True)
class Sinks(WithSinks):
    """Never evict the first `n_sink` tokens of a row; otherwise evict the oldest."""

    name: ClassVar[str] = "sinks"
    summary: ClassVar[str] = "keep the first n_sink tokens and the most recent ones (StreamingLLM)"

    def score(self, slots: SlotView) -> torch.Tensor:
        return self.protect_sinks(slots, slots.token_index.float())
