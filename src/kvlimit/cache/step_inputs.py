"""What a planned step hands the model forward, and how a model's layers are cached.

Contract: `StepInputs` is what `BoundedCache.prepare_step` returns (positions and the 2D mask the
forward must use instead of generate's own, which no longer line up once the cache evicts);
`LayerLayout` says per model layer whether it is bounded or one of transformers' own sliding layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import torch


@dataclass
class StepInputs:
    """What the model forward of one step must be given.

    Attributes:
        position_ids: (batch, q) long, the positions of the new tokens.
        attention_mask: (batch, kv_length) long 2D mask over the keys the bounded layers return
            (stored slots, then the new tokens).
        kind: "decode" (one token per row, written in place) or "chunk".
        mask_all_kept: every column of `attention_mask` is a kept token in every row (known on the
            host, without reading the mask): a model that builds its causal mask from the cache's
            sizes may then be given no 2D mask at all, which spares transformers' mask code a
            host-device synchronisation (its all-ones check) in every decode step.
    """

    position_ids: torch.Tensor
    attention_mask: torch.Tensor
    kind: Literal["decode", "chunk"]
    mask_all_kept: bool = False


@dataclass
class LayerLayout:
    """How each model layer is cached. Built by `kvlimit.build_cache` from the model.

    Attributes:
        kinds: per layer, "bounded" or "sliding" (transformers' own sliding layer, kept where the
            model's window is smaller than the limit).
        sliding_windows: per layer, the model's sliding window or None.
        rope: per layer, the `RopeSpec` of its keys, or None.
    """

    kinds: list[str]
    sliding_windows: list[int | None]
    rope: list[Any]

    @property
    def bounded(self) -> list[int]:
        return [i for i, kind in enumerate(self.kinds) if kind == "bounded"]

    @property
    def sliding(self) -> dict[int, int]:
        """The sliding layers' windows, by model layer index."""
        return {i: w for i, (k, w) in enumerate(zip(self.kinds, self.sliding_windows, strict=True))
                if k == "sliding" and w is not None}  # fmt: skip
