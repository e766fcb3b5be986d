"""The position keeper interface: how the kept tokens of a bounded cache get their positions.

Contract: a cache has one keeper, chosen once when it is built (`kvlimit.positions.make_keeper`). The
cache calls it at fixed points of every step, and the keeper moves positions through the cache's
named operations only (`CacheView`: the store rotates keys, the kept sets record positions, the row
counters record shifts); it never holds keys or writes the cache's state itself. The cache never
branches on the positional scheme:

1. `begin_step(cache, incoming)`: before anything is evicted for a step that brings `incoming[b]`
   real tokens to row b (learned absolute positions re-encode here, evicting first what the step
   needs).
2. `place(cache, incoming)`: after the step's evictions, before the new tokens' positions are
   computed; `cache.rows.kept[b]` is what row b keeps in front of its `incoming[b]` new tokens
   (RoPE rebases, re-ranks and places its sinks here). A static decode step splits it in two:
   `place_static` on the host before the step, `place_on_device` inside the captured step.
3. `new_positions(positions)`: the positions the new tokens get, from `seen - shift + rank`.
4. `end_step(cache)`: after the forward, when the cache advances.
5. `recall_base(cache)`: with a recall tier, where the step's recalled tokens go (after `place`).
6. `start(cache)` when rows are created, `rows_selected(cache, index, host_index)` when they are
   reordered or replaced, `row_loaded(row, source, source_row)` when one row takes another cache's
   (continuous batching), `reset()` when the cache is emptied.

`ordered` says whether slots must stay in temporal order (ALiBi reads distances from the column
order); otherwise slots are a ring and positions live inside the keys. Every decision a keeper
makes is per row, from that row's own counts (a row is rebased or re-encoded when its own next
position needs it), so a row's results never depend on the rest of its batch. A keeper counts what
it did (`rebases`, `reencodes`), which the cache reports in `stats`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

import torch

from .rope import RopeSpec


class Rows(Protocol):
    """Per-row counters (`kvlimit.cache.RowCounters`): host lists and device tensors in step."""

    kept: list[int]
    seen: list[int]
    shift: list[int]
    seen_t: torch.Tensor
    shift_t: torch.Tensor
    kept_t: torch.Tensor

    @property
    def batch(self) -> int: ...

    def set(
        self,
        *,
        kept: Sequence[int] | None = ...,
        seen: Sequence[int] | None = ...,
        shift: Sequence[int] | None = ...,
    ) -> None: ...

    def renumbering(
        self, incoming: Sequence[int], bound: int | None, reserve: int = 0
    ) -> tuple[list[int], list[int]] | None: ...

    def reaching(self, incoming: Sequence[int], bound: int) -> list[bool]: ...


class KeptPositions(Protocol):
    """What a keeper reads and moves of one kept set (`kvlimit.cache.KeptSet`)."""

    valid: torch.Tensor
    token_index: torch.Tensor
    token_ids: torch.Tensor
    positions: torch.Tensor

    def time_order(self, *, empty_first: bool) -> torch.Tensor: ...

    def set_positions(self, rows: torch.Tensor, slots: torch.Tensor, positions: torch.Tensor) -> None: ...

    def shift_positions(self, delta: torch.Tensor, start: int = 0) -> None: ...

    def place_first(self, positions: torch.Tensor) -> None: ...

    def replace_positions(self, positions: torch.Tensor) -> torch.Tensor: ...


class KeyStore(Protocol):
    """The store's operations a keeper uses (`kvlimit.cache.KVStore`)."""

    pristine_slots: int

    def rotate_keys(self, layer: int, rope: RopeSpec, delta: torch.Tensor, start: int = 0) -> None: ...

    def rotate_sinks(self, delta: torch.Tensor) -> None: ...

    def write(
        self, layer: int, rows: torch.Tensor, slots: torch.Tensor, keys: torch.Tensor, values: torch.Tensor
    ) -> None: ...


class CacheView(Protocol):
    """What a keeper may use of the cache (`kvlimit.BoundedCache`)."""

    slots: int
    columns_seen: int
    bounded_indices: list[int]
    #: per row, the recalled tokens its queries see in the coming step (0 without recall)
    recalled: list[int]

    @property
    def recalled_t(self) -> torch.Tensor | None:
        """`recalled` on the device, in a static step with recall (else None)."""
        ...

    @property
    def rows(self) -> Rows: ...

    @property
    def kept_sets(self) -> Sequence[KeptPositions]: ...

    @property
    def store(self) -> KeyStore: ...

    def evict(self, need: Sequence[int]) -> Any: ...

    def rope_layers(self) -> list[tuple[int, Any]]: ...

    def kept_set_of(self, layer_idx: int | None) -> KeptPositions: ...

    def rotate_sliding_layers(self, delta: torch.Tensor) -> None: ...


class PositionKeeper:
    """Base class: every hook does nothing; a scheme overrides the hooks it needs."""

    name: ClassVar[str] = "base"
    #: slots must stay in temporal order (the model reads distances from the mask's column order)
    ordered: ClassVar[bool] = False

    def __init__(self) -> None:
        self.rebases = 0
        self.reencodes = 0

    def start(self, cache: CacheView) -> None:
        """Rows were just created (the first step of a cache)."""

    def begin_step(self, cache: CacheView, incoming: Sequence[int]) -> None:
        """A step bringing `incoming[b]` real tokens to row b is about to be planned."""

    def place(self, cache: CacheView, incoming: Sequence[int]) -> None:
        """The step has evicted; row b keeps `cache.rows.kept[b]` tokens in front of `incoming[b]` new ones."""

    def place_static(self, cache: CacheView, incoming: Sequence[int]) -> None:
        """`place`'s host part in a static decode step (`kvlimit.cache.decode.StaticDecode.open`), before
        the step's device part: `cache.rows`' host counts are already those after its eviction. The
        default is `place` itself: a keeper whose placement moves keys only when the host says so."""
        self.place(cache, incoming)

    def place_on_device(self, cache: CacheView) -> None:
        """`place`'s device part in a static decode step, traced into the captured step after its
        eviction: nothing may be read on the host, and every tensor changes in place."""

    def new_positions(self, positions: torch.Tensor) -> torch.Tensor:
        """The positions the new tokens are given (any shape, long)."""
        return positions

    def end_step(self, cache: CacheView) -> None:
        """The step's forward has run (every bounded layer has stored its new keys)."""

    def rows_selected(self, cache: CacheView, index: torch.Tensor, host_index: Sequence[int] | None) -> None:
        """The cache kept rows `index`; `host_index` None: a permutation among equal rows (beam reorder)."""

    def row_loaded(self, row: int, source: PositionKeeper, source_row: int) -> None:
        """Row `row` became a copy of row `source_row` of the cache `source` keeps positions for."""

    def recall_base(self, cache: CacheView) -> torch.Tensor:
        """(batch,) the position of each row's first recalled token in the coming step (after `place`)."""
        raise NotImplementedError(f"{self.name} positions give recalled tokens no place; recall needs RoPE")

    def recall_base_on_device(self, cache: CacheView) -> torch.Tensor:
        """`recall_base` in a static decode step, from the device counters (`cache.recalled_t`)."""
        raise NotImplementedError(f"{self.name} positions give recalled tokens no place; recall needs RoPE")

    def reset(self) -> None:
        """The cache was emptied (what was done, `rebases` and `reencodes`, stays counted)."""
