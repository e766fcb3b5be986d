"""Learned absolute positions (GPT-2, OPT, GPT-BigCode): positions must stay inside the model's table.

A key carries its position inside (the position embedding is added to the token's input), so a
stored key cannot be moved. Two keepers, a user's choice (`positions=`):

- `AbsoluteReencode` (default): when the next position would leave the table, the kept tokens are
  re-encoded at positions 0..n-1 by one fresh forward over them (exact sliding-window semantics at
  each re-encode; a forward over `cache_limit` tokens every `table - cache_limit` steps). It evicts
  first what the coming step needs, so the re-encoded window is what that step keeps.
- `AbsoluteClamp`: positions stop at the table's last row (free, approximate: every new token past
  the table shares one position).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import torch

from .base import CacheView, PositionKeeper

#: Runs a fresh forward over (ids, mask, positions), each (batch, n), and returns every layer's (keys, values).
ReencodeFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], list[tuple[torch.Tensor, torch.Tensor]]]


class AbsoluteClamp(PositionKeeper):
    """Positions past the table take its last row."""

    name: ClassVar[str] = "clamp"

    def __init__(self, bound: int):
        super().__init__()
        self.bound = bound

    def new_positions(self, positions: torch.Tensor) -> torch.Tensor:
        return positions.clamp(max=self.bound - 1)


class AbsoluteReencode(PositionKeeper):
    """Re-encode the kept window at positions 0..n-1 whenever the next position would leave the table.

    Args:
        bound: the table size; positions stay below it.
        reencode: the fresh forward (`kvlimit.integrations.hf.make_reencode_fn`).
    """

    name: ClassVar[str] = "reencode"

    def __init__(self, bound: int, reencode: ReencodeFn):
        super().__init__()
        self.bound = bound
        self.reencode_fn = reencode

    def begin_step(self, cache: CacheView, incoming: Sequence[int]) -> None:
        if cache.columns_seen == 0:
            return
        due = cache.rows.reaching(incoming, self.bound)
        if any(due):
            self.reencode(cache, incoming, [b for b, d in enumerate(due) if d])

    def reencode(self, cache: CacheView, incoming: Sequence[int], rows_due: Sequence[int]) -> None:
        """Re-encode the rows `rows_due` at positions 0..n-1, after evicting what their `incoming` tokens need.

        Only those rows are touched (the others are re-encoded when their own positions need it), so
        a row is re-encoded at the same steps alone as in any batch.
        """
        rows = cache.rows
        need = [0] * rows.batch
        for b in rows_due:
            need[b] = max(0, rows.kept[b] + incoming[b] - cache.slots)
        if any(need):
            cache.evict(need)
        (kept,) = cache.kept_sets  # one kept set: positional policies only (see make_keeper)
        device = kept.valid.device
        due = torch.tensor(list(rows_due), device=device)
        width = max(rows.kept[b] for b in rows_due)
        index = kept.time_order(empty_first=True).index_select(0, due)[:, cache.slots - width :]
        ids = kept.token_ids.index_select(0, due).gather(1, index).clamp(min=0)
        mask = kept.valid.index_select(0, due).gather(1, index).long()
        positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
        per_layer = self.reencode_fn(ids, mask, positions)
        local, cols = mask.bool().nonzero(as_tuple=True)
        real_rows, slots = due[local], index[local, cols]
        kept.set_positions(real_rows, slots, positions[local, cols])
        for layer in cache.bounded_indices:
            keys, values = per_layer[layer]
            cache.store.write(layer, real_rows, slots, keys[local, :, cols], values[local, :, cols])
        shift = list(rows.shift)
        for b in rows_due:
            shift[b] = rows.seen[b] - rows.kept[b]
        rows.set(shift=shift)
        self.reencodes += 1
