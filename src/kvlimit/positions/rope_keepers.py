"""RoPE positions in a bounded cache: kept tokens at in-cache positions, keys moved by pure rotations.

Contract: after every step, a kept key's rotation is its in-cache distance to the next query, as in
StreamingLLM (the kept tokens behave as if at positions 0..n-1 and the new token at n), for every
rope type and layout `RopeSpec` handles. Two keepers, by the kind of policy:

- `RopeSinks` (positional policies: the kept tokens are the sinks plus one contiguous recent run).
  The recent window keeps the rotation of its absolute positions and the query uses its absolute
  position (`seen - shift`), which already gives in-cache distances; only the sink keys must move,
  each step, to sit just before the window: the store places them from their pristine copy (the
  key as first written), O(n_sink) per step, one operation per stack of layers. With recalled
  tokens and the sinks at their own distance (`recall_positions="full"`) the sinks sit at theirs (token
  index less the row's shift, at most the trained context away), so they move only at a rebase. When a row's next
  position would reach `rebase_after`, that row's keys are rebased to in-cache positions (one
  O(limit) rotation), so positions stay small and below the range where dynamic / longrope
  frequencies change or GPT-J's table ends.
- `RopeRanks` (per-layer policies: each layer keeps tokens scattered through the past). Keys stay
  where they were written; once a row's next position would reach `rank_after`, that row's keys are
  re-rotated, in every layer, to in-cache positions 0..n-1 by their order in time (each row on its
  own, so a row's results never depend on its batch), so no kept key is further than `rank_after`
  from the query. The ranking is done before the step's eviction (the evicted token's rank is
  left empty), so it never waits for a choice a captured step makes on the device.

Both also move the keys of transformers' own sliding layers when they move a row's positions. They
act through the cache's operations only (`positions.base.CacheView`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import torch

from .base import CacheView, PositionKeeper


class RopeSinks(PositionKeeper):
    """RoPE under a positional policy: sinks placed each step, rebases now and then (module docstring).

    Args:
        n_sink: the policy's protected tokens (the sinks), 0 for none; the store keeps them pristine.
        rebase_after: positions are rebased before one would reach this; None never.
        reserve: positions kept free between the sinks and the recent window, where the recall
            tier puts the tokens it brings back (0 without recall).
        sinks_at_index: the sinks sit at their own distance from the query (token index less the
            row's shift, as recall_positions 'distance' and 'full' place recalled tokens; 'full' sets
            this) instead of just before the recalled tokens, no farther than `max_distance` from the
            step's newest query.
    """

    name: ClassVar[str] = "rope"

    def __init__(
        self,
        n_sink: int,
        rebase_after: int | None,
        reserve: int = 0,
        *,
        sinks_at_index: bool = False,
        max_distance: int | None = None,
    ):
        super().__init__()
        self.n_sink = n_sink
        self.rebase_after = rebase_after
        self.reserve = reserve
        self.sinks_at_index, self.max_distance = sinks_at_index, max_distance
        self.sink_delta: list[int] = []  # the rotation the stored sink keys carry now, per row

    def reset(self) -> None:
        self.sink_delta = []

    def start(self, cache: CacheView) -> None:
        self.sink_delta = [0] * cache.rows.batch

    def place(self, cache: CacheView, incoming: Sequence[int]) -> None:
        self._maybe_rebase(cache, incoming)
        self._place_sinks(cache, self._sink_deltas(cache, incoming))

    def place_static(self, cache: CacheView, incoming: Sequence[int]) -> None:
        self._maybe_rebase(cache, incoming)
        # the device places the sinks every step (`place_on_device`); the host keeps count of where
        self.sink_delta = self._sink_deltas(cache, incoming)

    def _sink_deltas(self, cache: CacheView, incoming: Sequence[int]) -> list[int]:
        """Per row, how far its sinks sit from where they were written (positions 0..n_sink-1)."""
        rows = cache.rows
        if self.sinks_at_index:  # each at its token index less the row's shift, the newest query's
            # distance bounded: a step's tokens take positions seen - shift .. seen - shift + incoming - 1
            return [
                -sh if self.max_distance is None else max(-sh, s - sh + n - 1 - self.max_distance)
                for s, sh, n in zip(rows.seen, rows.shift, incoming, strict=True)
            ]
        # the sinks sit just before the row's recalled tokens, which sit just before its recent window
        return [first - self.n_sink for first in self._first_recalled(cache)]

    def place_on_device(self, cache: CacheView) -> None:
        """Put each row's sinks where `place` would, from the device counters (after the step's
        eviction): `seen - shift - kept - recalled` positions after where they were written, just
        before the recent window and the recalled tokens, or `-shift` (at most `max_distance` from the
        step's one query, `seen - shift`) with `sinks_at_index`."""
        n = cache.store.pristine_slots
        if not n or not cache.rope_layers():
            return
        rows = cache.rows
        if self.sinks_at_index:
            delta = -rows.shift_t
            if self.max_distance is not None:
                delta = torch.maximum(delta, rows.seen_t - rows.shift_t - self.max_distance)
        else:
            delta = rows.seen_t - rows.shift_t - rows.kept_t
            if cache.recalled_t is not None:  # the sinks sit just before the recalled tokens
                delta = delta - cache.recalled_t
        sink_positions = torch.arange(n, device=delta.device)[None, :] + delta[:, None]
        for kept in cache.kept_sets:
            kept.place_first(sink_positions)
        cache.store.rotate_sinks(delta)

    def recall_base(self, cache: CacheView) -> torch.Tensor:
        """(batch,) the position of each row's first recalled token: right after its sinks, its
        `recalled[b]` tokens right before its recent window (call after `place`)."""
        return torch.tensor(self._first_recalled(cache), device=cache.rows.shift_t.device)

    def recall_base_on_device(self, cache: CacheView) -> torch.Tensor:
        """`recall_base` from the device counters, in a static step after its eviction (`recalled_t`)."""
        rows, recalled = cache.rows, cache.recalled_t
        assert recalled is not None
        return rows.seen_t - rows.shift_t - (rows.kept_t - self.n_sink) - recalled

    def _first_recalled(self, cache: CacheView) -> list[int]:
        """Per row: the position of its recent window's first token (the window keeps its absolute
        positions, `seen - shift - (kept - n_sink)`), less the tokens it recalls."""
        rows = cache.rows
        return [
            s - sh - (k - self.n_sink) - r
            for s, sh, k, r in zip(rows.seen, rows.shift, rows.kept, cache.recalled, strict=True)
        ]

    def rows_selected(self, cache: CacheView, index: torch.Tensor, host_index: Sequence[int] | None) -> None:
        if host_index is not None:
            self.sink_delta = [self.sink_delta[i] for i in host_index]

    def row_loaded(self, row: int, source: PositionKeeper, source_row: int) -> None:
        assert isinstance(source, RopeSinks)
        self.sink_delta[row] = source.sink_delta[source_row]

    def _place_sinks(self, cache: CacheView, delta: list[int]) -> None:
        """Put each row's sinks `delta[b]` positions after where they were written (from the pristine copy)."""
        n = cache.store.pristine_slots
        if not n or delta == self.sink_delta or not cache.rope_layers():
            return
        self.sink_delta = list(delta)
        delta_t = torch.tensor(delta, device=cache.rows.shift_t.device)
        sink_positions = torch.arange(n, device=delta_t.device)[None, :] + delta_t[:, None]
        for kept in cache.kept_sets:
            kept.place_first(sink_positions)
        cache.store.rotate_sinks(delta_t)

    def _maybe_rebase(self, cache: CacheView, incoming: Sequence[int]) -> None:
        """Move a row's keys to in-cache positions when its step would reach `rebase_after`."""
        rows = cache.rows
        renumbered = rows.renumbering(incoming, self.rebase_after, self.reserve)
        if renumbered is None:
            return
        new_shift, delta = renumbered
        delta_t = torch.tensor(delta, device=rows.shift_t.device)
        start = self.n_sink  # sinks are placed from their pristine copy, not rebased
        for layer, rope in cache.rope_layers():
            cache.store.rotate_keys(layer, rope, delta_t, start)
        for kept in cache.kept_sets:
            kept.shift_positions(delta_t, start)
        cache.rotate_sliding_layers(delta_t)
        rows.set(shift=new_shift)
        self.rebases += 1


class RopeRanks(PositionKeeper):
    """RoPE under a per-layer policy: a row's keys are re-ranked to 0..n-1 when due (module docstring).

    Args:
        rank_after: a row is re-ranked before its next position would reach this; None never.
    """

    name: ClassVar[str] = "rope-ranks"

    def __init__(self, rank_after: int | None):
        super().__init__()
        self.rank_after = rank_after

    def begin_step(self, cache: CacheView, incoming: Sequence[int]) -> None:
        # Before the step evicts, so that the ranks never depend on which token the step's eviction
        # chooses (a captured step chooses it on the device, after this): the rows that reached the
        # bound are ranked to 0..n-1, n being what they hold now, and the step's new tokens come after.
        rows = cache.rows
        renumbered = rows.renumbering(incoming, self.rank_after)
        if renumbered is None:
            return
        new_shift, delta = renumbered
        self._rank(cache, delta)
        rows.set(shift=new_shift)
        self.rebases += 1

    def _rank(self, cache: CacheView, row_delta: list[int]) -> None:
        """Move every layer's keys of the rows with a nonzero `row_delta` to positions 0..n-1 (their rank in time).

        One rotation per key by its own distance to its new position; transformers' own sliding layers
        (contiguous recent tokens) move by the row's shift change instead.
        """
        device = cache.rows.shift_t.device
        due = torch.tensor([d != 0 for d in row_delta], device=device)[:, None]
        slot_deltas = {}  # per kept set, (batch, slots), 0 for empty slots and rows not due
        for kept in cache.kept_sets:
            rank = kept.time_order(empty_first=False).argsort(dim=1)
            slot_deltas[id(kept)] = kept.replace_positions(
                torch.where(kept.valid & due, rank, kept.positions)
            )
        for layer, rope in cache.rope_layers():
            cache.store.rotate_keys(layer, rope, slot_deltas[id(cache.kept_set_of(layer))])
        cache.rotate_sliding_layers(torch.tensor(row_delta, device=device))
