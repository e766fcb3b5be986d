"""Moving a bounded cache's rows: beam reorders, batch changes, and a row loaded from another cache.

Contract: every per-row state moves together, each by its owner (kept sets, row counters, the
store's keys and values, the recall store's block tables, the position keeper's, transformers' own
sliding layers), so that no state can fall out of step with another. A move that keeps the batch
size keeps every tensor's address (a captured decode step reads them in place); one that changes it
reallocates, and the cache's static decode step is rebuilt for the new rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from .bounded import BoundedCache


def select_rows(cache: BoundedCache, index: torch.Tensor, host_index: Sequence[int] | None) -> None:
    """Keep rows `index` of every per-row state of `cache`; `host_index` None: a permutation among
    equal rows (the host counters stay)."""
    same_size = index.numel() == cache.rows.batch
    for kept in cache.kept_sets:
        kept.select_(index)
    cache.rows.select(index, host_index)
    cache.store.select_rows(index, in_place=same_size)
    if cache.static_recall is not None:
        assert host_index is not None
        cache.static_recall.select_rows(index, host_index)
    elif cache.recall is not None:
        assert host_index is not None
        cache.recall.select_rows(host_index)
    if host_index is not None:
        cache.recalled = [cache.recalled[i] for i in host_index]
    cache.keeper.rows_selected(cache, index, host_index)
    cache.sliding.select(index)
    if not same_size:
        cache.static_decode = None


def load_row(cache: BoundedCache, row: int, source: BoundedCache, source_row: int) -> None:
    """Row `row` of `cache` becomes a copy of row `source_row` of `source` (see `BoundedCache.load_row`)."""
    if not cache.started or not source.started:
        raise RuntimeError("load_row needs rows in both caches (open_rows, or a step planned)")
    if cache.step_open or source.step_open:
        raise RuntimeError("load_row between steps only: advance the open step first")
    if (source.slots, source.policy, source.kv_dtype, source.layout.kinds) != (
        cache.slots,
        cache.policy,
        cache.kv_dtype,
        cache.layout.kinds,
    ):
        raise ValueError("load_row needs a source cache built from the same config for the same model")
    if source.static_recall is not None:
        raise ValueError("load_row takes rows from a cache whose recall tier is not static (a prefill cache)")
    if cache.sliding:
        raise ValueError(
            "load_row cannot move a row of transformers' own sliding-window layers (they keep every "
            "column of the batch); use a cache_limit no larger than the model's sliding window"
        )
    for kept, copied in zip(cache.kept_sets, source.kept_sets, strict=True):
        kept.load_row_(row, copied, source_row)
    cache.rows.load_row(row, source.rows, source_row)
    cache.store.load_row(row, source.store, source_row, cache.rows.batch)
    if cache.static_recall is not None and source.recall is not None:
        cache.static_recall.load_row(row, source.recall, source_row)
    elif cache.recall is not None and source.recall is not None:
        cache.recall.load_row(row, source.recall, source_row)
    cache.recalled[row] = source.recalled[source_row]
    cache.keeper.row_loaded(row, source.keeper, source_row)
    # rows fill slots in order only while no row has evicted (see `plan_decode`)
    cache.compact = cache.compact and source.compact
    if cache.columns_seen == 0:  # a step after this one decodes (see `BoundedCache.prepare_step`)
        cache.columns_seen = source.columns_seen
        for layer in cache.bounded_layers():
            layer.columns = source.columns_seen
