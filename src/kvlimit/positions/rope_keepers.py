"""RoPE positions in a bounded cache: kept tokens at in-cache positions, keys moved by pure rotations.

Contract: after every step, a kept key's rotation is its in-cache distance to the next query, as in
StreamingLLM (the kept tokens behave as if at positions 0..n-1 and the new token at n), for every
rope type and layout `RopeSpec` handles. Two keepers, by the kind of policy:

- `RopeSinks` (positional policies: the kept tokens are the sinks plus one contiguous recent run).
  The recent window keeps the rotation of its absolute positions and the query uses its absolute
  position (`seen - shift`), which already gives in-cache distances; only the sink keys must move,
  each step, to sit just before the window: they are rotated from a pristine copy (the key as first
  written), O(n_sink) per step, for all layers of one shape in one operation (their keys are
  stacked). When a row's next position would reach `rebase_after`, that row's keys are rebased to
  in-cache positions (one O(limit) rotation), so positions stay small and below the range where
  dynamic / longrope frequencies change or GPT-J's table ends.
- `RopeRanks` (per-layer policies: each layer keeps tokens scattered through the past). Keys stay
  where they were written; once a row's next position would reach `rank_after`, that row's keys are
  re-rotated, in every layer, to in-cache positions 0..n-1 by their order in time (each row on its
  own, so a row's results never depend on its batch), so no kept key is further than `rank_after`
  from the query.

Both also move the keys of transformers' own sliding layers when they move a row's positions.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import torch

from .base import PositionKeeper
from .rope import RopeSpec


def _rotate(rope: RopeSpec, cos: torch.Tensor, sin: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """`keys` rotated by `rope` at precomputed angles (a `transform_keys` function)."""
    return rope.apply(keys, cos, sin)


if TYPE_CHECKING:
    from ..cache import BoundedCache


@dataclass
class _KeyStack:
    """The keys of several layers of one shape in one tensor, so one rotation moves all their sinks.

    keys: (layers, batch, kv_heads, slots, head_dim); each member layer's `keys` is a view of it.
    pristine: (layers, batch, kv_heads, n_sink, head_dim), the sink keys as first written.
    """

    keys: torch.Tensor
    pristine: torch.Tensor
    rope: RopeSpec
    layer_indices: list[int]


def rotate_sliding_layers(cache: BoundedCache, delta: torch.Tensor) -> None:
    """Rotate the keys of row b of transformers' own sliding layers by `delta[b]` positions."""
    for idx, sliding in cache.sliding_layers.items():
        rope = cache.layout.rope[idx]
        if rope is None or sliding.keys is None or sliding.keys.numel() == 0:
            continue
        cos, sin = rope.cos_sin(delta, delta.device)
        sliding.keys = rope.apply(sliding.keys, cos[:, None, None, :], sin[:, None, None, :])


class RopeSinks(PositionKeeper):
    """RoPE under a positional policy: sink rotation each step, rebases now and then (module docstring).

    Args:
        n_sink: the policy's protected tokens (the sinks), 0 for none.
        rebase_after: positions are rebased before one would reach this; None never.
    """

    name: ClassVar[str] = "rope"

    def __init__(self, n_sink: int, rebase_after: int | None):
        self.n_sink = n_sink
        self.rebase_after = rebase_after
        self.reset()

    def reset(self) -> None:
        self.stacks: list[_KeyStack] | None = None
        self.sink_delta: list[int] = []  # the rotation the stored sink keys carry now, per row
        self.filling: list[int] = []  # rows whose sinks are still being written in the open step

    def start(self, cache: BoundedCache) -> None:
        self.sink_delta = [0] * cache.rows.batch

    def place(self, cache: BoundedCache, incoming: Sequence[int]) -> None:
        self._maybe_rebase(cache, incoming)
        rows = cache.rows
        self._rotate_sinks(
            cache, [s - sh - k for s, sh, k in zip(rows.seen, rows.shift, rows.kept, strict=True)]
        )
        self.filling = [b for b, k in enumerate(rows.kept) if k < self.n_sink]

    def end_step(self, cache: BoundedCache) -> None:
        if self.stacks is None:
            self.stacks = self._stack_keys(cache)
        if self.filling and self.stacks:
            # rows still writing their sinks hold them unrotated: take them as the pristine copy
            rows = torch.tensor(self.filling, device=self.stacks[0].keys.device)
            for st in self.stacks:
                st.pristine[:, rows] = st.keys[:, rows, :, : st.pristine.shape[3]]
        self.filling = []

    def rows_selected(
        self, cache: BoundedCache, index: torch.Tensor, host_index: Sequence[int] | None
    ) -> None:
        if host_index is not None:
            self.sink_delta = [self.sink_delta[i] for i in host_index]
        if not self.stacks:
            return
        if host_index is None:  # the layers permuted their keys in place: the stacks' views still hold
            for st in self.stacks:
                st.pristine.copy_(st.pristine.index_select(1, index))
            return
        # the layers replaced their keys: stack them again, and select the pristine sinks
        old = self.stacks
        self.stacks = self._stack_keys(cache)
        for new, st in zip(self.stacks, old, strict=True):
            new.pristine.copy_(st.pristine.index_select(1, index))

    def _stack_keys(self, cache: BoundedCache) -> list[_KeyStack]:
        """Stack the keys of the RoPE layers by shape (once every layer has stored its first keys)."""
        stacks: list[_KeyStack] = []
        n = min(self.n_sink, cache.slots)
        if n == 0:
            return stacks
        by_shape: dict[tuple[Any, ...], list[tuple[Any, RopeSpec]]] = {}
        for layer, rope in cache.rope_layers():
            assert layer.keys is not None
            key = (tuple(layer.keys.shape), layer.keys.dtype, layer.keys.device, id(rope))
            by_shape.setdefault(key, []).append((layer, rope))
        for members in by_shape.values():
            keys = torch.stack([layer.keys for layer, _ in members])
            for i, (layer, _) in enumerate(members):
                layer.keys = keys[i]
            pristine = keys.new_zeros((*keys.shape[:3], n, keys.shape[-1]))
            stacks.append(_KeyStack(keys, pristine, members[0][1], [m.layer_idx for m, _ in members]))
        return stacks

    def _rotate_sinks(self, cache: BoundedCache, delta: list[int]) -> None:
        """Rotate each row's sink keys from their pristine copy by `delta[b]` positions."""
        if not self.n_sink or delta == self.sink_delta or not self.stacks:
            return
        self.sink_delta = list(delta)
        device = self.stacks[0].keys.device
        delta_t = torch.tensor(delta, device=device)
        n = self.stacks[0].pristine.shape[3]
        sink_positions = torch.arange(n, device=device)[None, :] + delta_t[:, None]
        for group in cache.slot_groups:
            group.positions[:, :n] = sink_positions
        for st in self.stacks:
            cos, sin = st.rope.cos_sin(delta_t, device)
            st.keys[:, :, :, :n] = st.rope.apply(
                st.pristine, cos[None, :, None, None, :], sin[None, :, None, None, :]
            )

    def _maybe_rebase(self, cache: BoundedCache, incoming: Sequence[int]) -> None:
        """Move a row's keys to in-cache positions when its step would reach `rebase_after`."""
        rows = cache.rows
        renumbered = rows.renumbering(incoming, self.rebase_after)
        if renumbered is None:
            return
        new_shift, delta = renumbered
        device = rows.shift_t.device
        delta_t = torch.tensor(delta, device=device)
        start = self.n_sink  # sinks are rotated from their pristine copy, not rebased
        for layer, rope in cache.rope_layers():
            cos, sin = rope.cos_sin(delta_t, device)
            layer.transform_keys(
                functools.partial(_rotate, rope, cos[:, None, None, :], sin[:, None, None, :]), start
            )
        for group in cache.slot_groups:
            group.positions[:, start:] += delta_t[:, None]
        rotate_sliding_layers(cache, delta_t)
        rows.set(shift=new_shift)
        cache.stats["rebases"] += 1


class RopeRanks(PositionKeeper):
    """RoPE under a per-layer policy: a row's keys are re-ranked to 0..n-1 when due (module docstring).

    Args:
        rank_after: a row is re-ranked before its next position would reach this; None never.
    """

    name: ClassVar[str] = "rope-ranks"

    def __init__(self, rank_after: int | None):
        self.rank_after = rank_after

    def place(self, cache: BoundedCache, incoming: Sequence[int]) -> None:
        rows = cache.rows
        # Only the rows that reached the bound are ranked, to 0..n-1, and the new token gets n.
        renumbered = rows.renumbering(incoming, self.rank_after)
        if renumbered is None:
            return
        new_shift, delta = renumbered
        self._rank(cache, delta)
        rows.set(shift=new_shift)
        cache.stats["rebases"] += 1

    def _rank(self, cache: BoundedCache, row_delta: list[int]) -> None:
        """Move every layer's keys of the rows with a nonzero `row_delta` to positions 0..n-1 (their rank in time).

        One rotation per key by its own distance to its new position; transformers' own sliding layers
        (contiguous recent tokens) move by the row's shift change instead.
        """
        device = cache.rows.shift_t.device
        due = torch.tensor([d != 0 for d in row_delta], device=device)[:, None]
        slot_deltas = []  # per group, (batch, slots), 0 for empty slots and rows not due
        for group in cache.slot_groups:
            rank = group.time_order(empty_first=False).argsort(dim=1)
            target = torch.where(group.valid & due, rank, group.positions)
            slot_deltas.append(target - group.positions)
            group.positions = target
        for layer, rope in cache.rope_layers():
            cos, sin = rope.cos_sin(slot_deltas[layer.group], device)
            layer.transform_keys(functools.partial(_rotate, rope, cos[:, None], sin[:, None]))
        rotate_sliding_layers(cache, torch.tensor(row_delta, device=device))
