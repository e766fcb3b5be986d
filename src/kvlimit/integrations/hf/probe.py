"""Bytes of keys and values: of a cache held now, and of one token, measured by a probe forward.

Contract: `probe_kv_shapes(model)` runs a one-token forward through a stock cache and returns, per
layer, the heads and dims one token takes; a forward that wrote nothing into the cache it was given
is an error (the cache argument went unnoticed), never a zero.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import torch
import transformers
from transformers import PreTrainedModel
from transformers.cache_utils import (
    DynamicCache,
)

from .models import text_config
from .release import CACHE_ARG, cache_argument

logger = logging.getLogger(__name__)


def kv_bytes(cache: Any) -> int:
    """Bytes of keys and values a transformers cache holds now (every layer, every row), allocated storage included.

    A cache with its own count (`nbytes()`: a `BoundedCache`, quantized layers included) gives it.
    """
    if callable(getattr(cache, "nbytes", None)):
        return int(cache.nbytes())
    return sum(kv_bytes_of_layer(layer) for layer in getattr(cache, "layers", []))


def kv_bytes_of_layer(layer: Any) -> int:
    """Bytes of one transformers cache layer's `keys` and `values` tensors."""
    total = 0
    for tensor in (getattr(layer, "keys", None), getattr(layer, "values", None)):
        if isinstance(tensor, torch.Tensor):
            total += tensor.numel() * tensor.element_size()
    return total


@dataclass(frozen=True)
class KVShape:
    """One layer's cache of one token of one row: key and value heads and dims, bytes per element,
    and the device the layer's keys are on."""

    key_heads: int
    key_dim: int
    value_heads: int
    value_dim: int
    element_size: int
    device: str = "cpu"

    @property
    def nbytes(self) -> int:
        return (self.key_heads * self.key_dim + self.value_heads * self.value_dim) * self.element_size


def probe_kv_shapes(model: PreTrainedModel) -> list[KVShape]:
    """Per layer, the shape one token takes in one sequence's cache.

    Measured with a one-token forward through a `DynamicCache`, so it is right for every family
    (grouped-query, multi-query, per-layer head sizes) without reading family-specific config fields.
    """
    probe = DynamicCache(config=text_config(model))
    device = next(model.parameters()).device
    ids = torch.zeros((1, 1), dtype=torch.long, device=device)
    with torch.no_grad():
        model(input_ids=ids, **cache_argument(probe), use_cache=True)
    shapes = []
    for layer in probe.layers:
        keys, values = getattr(layer, "keys", None), getattr(layer, "values", None)
        if isinstance(keys, torch.Tensor) and isinstance(values, torch.Tensor) and keys.numel():
            shapes.append(
                KVShape(keys.shape[1], keys.shape[-1], values.shape[1], values.shape[-1], keys.element_size(),
                        str(keys.device))
            )  # fmt: skip
    if len(shapes) != len(probe.layers) or not shapes:
        raise RuntimeError(
            f"{type(model).__name__} wrote no keys into the cache passed as {CACHE_ARG}= (transformers "
            f"{transformers.__version__}): it would run on a cache of its own, unbounded; kvlimit cannot bound it"
        )
    return shapes


def probe_kv_bytes_per_token(model: PreTrainedModel) -> int:
    """Bytes of keys and values one token takes in one sequence's cache, summed over layers."""
    return sum(shape.nbytes for shape in probe_kv_shapes(model))
