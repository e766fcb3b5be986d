"""The position keeper interface: how the kept tokens of a bounded cache get their positions.

Contract: a cache has one keeper, chosen once when it is built (`kvlimit.positions.make_keeper`). The
cache calls it at fixed points of every step, and the keeper moves positions by rotating, rewriting
or clamping what the cache stores; the cache never branches on the positional scheme itself:

1. `begin_step(cache, incoming)`: before anything is evicted for a step that brings `incoming[b]`
   real tokens to row b (learned absolute positions re-encode here, evicting first what the step
   needs).
2. `place(cache, incoming)`: after the step's evictions, before the new tokens' positions are
   computed; `cache.rows.kept[b]` is what row b keeps in front of its `incoming[b]` new tokens
   (RoPE rebases, re-ranks and rotates its sinks here).
3. `new_positions(positions)`: the positions the new tokens get, from `seen - shift + rank`.
4. `end_step(cache)`: after the forward, when the cache advances.
5. `start(cache)` when rows are created, `rows_selected(cache, index, host_index)` when they are
   reordered or replaced, `reset()` when the cache is emptied.

`ordered` says whether slots must stay in temporal order (ALiBi reads distances from the column
order); otherwise slots are a ring and positions live inside the keys. Every decision a keeper
makes is per row, from that row's own counts (a row is rebased or re-encoded when its own next
position needs it), so a row's results never depend on the rest of its batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import torch

if TYPE_CHECKING:
    from ..cache import BoundedCache


class PositionKeeper:
    """Base class: every hook does nothing; a scheme overrides the hooks it needs."""

    name: ClassVar[str] = "base"
    #: slots must stay in temporal order (the model reads distances from the mask's column order)
    ordered: ClassVar[bool] = False

    def start(self, cache: BoundedCache) -> None:
        """Rows were just created (the first step of a cache)."""

    def begin_step(self, cache: BoundedCache, incoming: Sequence[int]) -> None:
        """A step bringing `incoming[b]` real tokens to row b is about to be planned."""

    def place(self, cache: BoundedCache, incoming: Sequence[int]) -> None:
        """The step has evicted; row b keeps `cache.rows.kept[b]` tokens in front of `incoming[b]` new ones."""

    def new_positions(self, positions: torch.Tensor) -> torch.Tensor:
        """The positions the new tokens are given (any shape, long)."""
        return positions

    def end_step(self, cache: BoundedCache) -> None:
        """The step's forward has run (every bounded layer has stored its new keys)."""

    def rows_selected(
        self, cache: BoundedCache, index: torch.Tensor, host_index: Sequence[int] | None
    ) -> None:
        """The cache kept rows `index`; `host_index` None: a permutation among equal rows (beam reorder)."""

    def reset(self) -> None:
        """The cache was emptied."""
