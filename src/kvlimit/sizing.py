"""Memory sizing: what a token, a row and a forward's read cost, for every storage scheme.

Contract: the one place that turns a model and a `LimitConfig` into bytes and tokens; generate, the
batch job, the planner and the benchmarks all ask here.

- `kv_shapes(model)`: per layer, the heads and dims one token of one row takes in the cache,
  measured once per model, dtype and device with a one-token forward (exact for every family:
  grouped-query, multi-query, per-layer head sizes) and remembered beside the model (a weak map:
  nothing is written on the model).
- `kv_bytes_per_token(model, kv_dtype, kv_group)`: one token of one row, all layers; quantized
  schemes count their codes and scales (`kvlimit.cache.quant`), the layers of a model's own
  sliding window stay in its dtype and are counted so.
- `row_cost(model, config)`: a row of `n` tokens takes `n x per_token + per_row` (a quantized cache
  also keeps its policy's sinks in the model's dtype: `per_row`).
- `token_limit(model, config, rows)`: the limit in tokens per row, the given one or the largest that
  fits a byte budget for `rows` rows.
- `largest_layer_bytes_per_token(model)`: one token of the largest layer in the model's dtype, what a
  quantized cache dequantizes at a time (the transient the planner counts).
- `recall_block_bytes(model, layers, recall_dtype, block, score)`: one block of the recall store (one
  row, the given layers): its keys and values as stored, and with `score="bounds"` its key bounds (two
  float32 vectors per KV head); `recall_capacity` turns a `recall_store=` bound into tokens per row.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .cache import quant
from .config import LimitConfig
from .integrations import hf

_SHAPES: weakref.WeakKeyDictionary[Any, tuple[tuple[str, str], list[hf.KVShape]]] = (
    weakref.WeakKeyDictionary()
)


def kv_shapes(model: Any) -> list[hf.KVShape]:
    """Per layer, the `KVShape` of one token of one row (see the module docstring)."""
    key = (str(model.dtype), str(model.device))
    known = _SHAPES.get(model)
    if known is None or known[0] != key:
        known = (key, hf.probe_kv_shapes(model))
        _SHAPES[model] = known
    return known[1]


def kv_bytes_per_token(
    model: Any, kv_dtype: str | None = None, kv_group: int = quant.DEFAULT_KV_GROUP
) -> int:
    """Bytes of keys and values one token takes in the cache of one sequence (all layers)."""
    shapes = kv_shapes(model)
    if kv_dtype is None:
        return sum(shape.nbytes for shape in shapes)
    schemes = quant.kv_schemes(kv_dtype)
    spec = hf.inspect_model(model)
    sliding = {i for i, kind in enumerate(spec.layer_types) if kind == "sliding_attention"}
    total = 0
    for idx, shape in enumerate(shapes):
        if idx in sliding:
            total += shape.nbytes
            continue
        for stored, heads, dim in (
            (schemes[0], shape.key_heads, shape.key_dim),
            (schemes[1], shape.value_heads, shape.value_dim),
        ):
            total += heads * stored.bytes_per_vector(dim, quant.block_size(dim, kv_group))
    return total


def recall_block_bytes(
    model: Any, layers: list[int], recall_dtype: str | None, block: int, score: str = "keys"
) -> int:
    """Bytes of one recall block of one row over `layers` (see the module docstring); scoring by
    "bounds" adds each block's float32 key bounds."""
    from .cache.recall import RECALL_GROUP
    from .cache.recall_storage import recall_float_dtype

    shapes = kv_shapes(model)
    floats = recall_float_dtype(recall_dtype)
    stored = None if recall_dtype is None or floats is not None else quant.scheme(recall_dtype)
    total = 0
    for idx in layers:
        shape = shapes[idx]
        for heads, dim in ((shape.key_heads, shape.key_dim), (shape.value_heads, shape.value_dim)):
            if stored is not None:
                vector = stored.bytes_per_vector(dim, quant.block_size(dim, RECALL_GROUP))
            else:
                vector = dim * (shape.element_size if floats is None else floats.itemsize)
            total += heads * block * vector
        if score == "bounds":
            total += 2 * shape.key_heads * shape.key_dim * 4  # the block's key bounds, float32
    return total


def recall_capacity(model: Any, config: LimitConfig, layers: list[int], rows: int, block: int) -> int | None:
    """Tokens each row's recall store may keep: `recall_store` in tokens, or its bytes over `rows`
    rows in whole blocks (None: no bound)."""
    if config.recall_store_tokens is not None:
        return config.recall_store_tokens
    if config.recall_store_bytes is None:
        return None
    per_block = recall_block_bytes(model, layers, config.recall_dtype, block, config.recall_score)
    return config.recall_store_bytes // (rows * per_block) * block


def largest_layer_bytes_per_token(model: Any) -> int:
    """One token's keys and values in the model's dtype in its largest layer (see the module docstring)."""
    return max(shape.nbytes for shape in kv_shapes(model))


@dataclass(frozen=True)
class RowCost:
    """A row of `n` tokens takes `n x per_token + per_row` bytes of cache."""

    per_token: int
    per_row: int = 0

    def __iter__(self) -> Iterator[int]:
        """`per_token, per_row = row_cost(model, config)`."""
        return iter((self.per_token, self.per_row))

    def bytes_for(self, tokens: int, rows: int = 1) -> int:
        return rows * (tokens * self.per_token + self.per_row)


def row_cost(model: Any, config: LimitConfig) -> RowCost:
    """The `RowCost` of `config`'s cache for `model` (see the module docstring)."""
    per_token = kv_bytes_per_token(model, config.kv_dtype, config.kv_group)
    if config.kv_dtype is None:
        return RowCost(per_token)
    return RowCost(per_token, config.policy.protected_tokens * kv_bytes_per_token(model))


def token_limit(model: Any, config: LimitConfig, rows: int) -> int:
    """Tokens per row: `config`'s limit, or the largest that fits its byte budget for `rows` rows."""
    if config.cache_limit_tokens is not None:
        return config.cache_limit_tokens
    cost = row_cost(model, config)
    return config.tokens_for(cost.per_token, rows, cost.per_row)
