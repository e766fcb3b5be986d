"""`window`: keep the most recent tokens (a sliding window).

The simplest bounded cache. Known to fail on long generation with most models: once the first
tokens leave the window, attention loses its "sink" and quality collapses (Xiao et al., 2023,
"Efficient Streaming Language Models with Attention Sinks", arXiv:2309.17453, Fig. 1b). It is here
as the baseline the other policies are measured against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .base import EvictionPolicy, SlotView


@dataclass(frozen=True)
class Window(EvictionPolicy):
    """Evict the oldest token."""

    name: ClassVar[str] = "window"
    summary: ClassVar[str] = "keep the most recent tokens"

    def score(self, slots: SlotView) -> torch.Tensor:
        return slots.token_index.float()
