"""The recall tier's hook into a bounded cache's steps: what the planner and the attention ask of it.

Contract: a cache with `recall=R` keeps `cache_limit - R` slots of tokens and R columns that hold
recalled tokens. `RecallHook` is the narrow interface between the step planner and the
`RecallStore`: the planner hands it each evicted token (`capture`, before its slot is reused),
asks after its evictions how many tokens each row recalls this step (`recallable`) and for the mask
of those columns (`column_mask`), and opens the step's recall (`open`: where the columns are, the
positions they take); the attention then calls `fill` for every served layer, which chooses blocks
by the layer's queries, rotates their keys to the recall positions and writes keys and values into
the step's recall columns. Nothing else in the cache knows how recall chooses or stores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .plan import Evicted
from .recall import RecallStore
from .store import KVStore


@dataclass
class RecallStep:
    """What the attention needs to fill the recall columns of the open step.

    start / columns: where the recall columns are among a layer's keys; base: (batch,) the position
    of each row's first recalled slot; query_positions: (batch, q) the new tokens' positions; real:
    a chunk's (batch, q) real tokens (None in a decode step); recalled: per row, its recalled tokens;
    shift: (batch,) token index minus position of each row (a position keeper's shift).
    Rotations are made once per step and rotation (`rotate`), not per layer.
    """

    start: int
    columns: int
    base: torch.Tensor
    query_positions: torch.Tensor
    recalled: list[int]
    shift: torch.Tensor
    real: torch.Tensor | None = None
    _cos_sin: dict[tuple[int, str], tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    _query_index: torch.Tensor | None = None

    def query_index(self) -> torch.Tensor:
        """(batch,) the token index each row's recall query stands at: a decode step's token, or the mean
        index of a chunk's real tokens. One tensor for every layer of the step."""
        if self._query_index is None:
            index = self.query_positions + self.shift[:, None]  # the queries' token indices
            if self.real is None:
                self._query_index = index[:, 0]
            else:
                counted = self.real.sum(dim=1).clamp(min=1)
                self._query_index = (index * self.real).sum(dim=1) // counted
        return self._query_index

    def rotate(self, rope: Any, what: str, x: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
        """`x` (batch, heads, n, dim) rotated by `delta` (batch, 1, n), with cos/sin made once per step
        (a layer without RoPE: `x` as it is)."""
        if rope is None:
            return x
        key = (id(rope), what)
        if key not in self._cos_sin or self._cos_sin[key][0].shape[-2] != x.shape[-2]:
            self._cos_sin[key] = rope.cos_sin(delta, x.device)
        cos, sin = self._cos_sin[key]
        return rope.apply(x, cos, sin)


class RecallHook:
    """The recall tier of one cache (see the module docstring).

    Args:
        store: the recall store.
        rope: per model layer, the `RopeSpec` of its keys or None.
    """

    def __init__(self, store: RecallStore, rope: list[Any]):
        self.store = store
        self.rope = rope
        self.step: RecallStep | None = None
        #: keep, per served layer, the token index and position of each recalled column of the last
        #: step that recalled (inspection, tests): (batch, kv_heads, n) each, index -1 for an empty column
        self.record_recalled = False
        self.last_recalled: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    @property
    def slots(self) -> int:
        return self.store.slots

    def capture(self, kv: KVStore, evicted: Evicted, counts: Sequence[int]) -> None:
        """Hand the `evicted` tokens, `counts[b]` of row b, to the store (before their slots are reused),
        each row's in time order; their keys and values are taken from `kv`."""
        order = (evicted.rows * (1 << 40) + evicted.token_index).argsort()
        rows, slots = evicted.rows[order], evicted.slots[order]
        taken = kv.take(rows, slots)
        self.store.capture(counts, evicted.token_index[order], evicted.positions[order], taken)

    def recallable(self) -> tuple[list[int], int]:
        """After the step's evictions: each row's recalled tokens this step, and the recall columns the
        step's keys get (all R of them once any row recalls, else none). Closes the previous step's recall."""
        self.step = None
        self.last_recalled.clear()
        recalled = self.store.recallable()
        return recalled, (self.store.slots if any(recalled) else 0)

    @staticmethod
    def column_mask(recalled: Sequence[int], columns: int, device: torch.device) -> torch.Tensor:
        """(batch, columns) long, 1 where a row's recall column holds a token this step."""
        counts = torch.tensor(list(recalled) if columns else [0] * len(recalled), device=device)
        return (torch.arange(columns, device=device)[None, :] < counts[:, None]).long()

    def open(self, step: RecallStep) -> None:
        """The step's recall columns are where `step` says; `fill` writes them. A decode step asks the
        store's schedule which rows choose their blocks afresh (`recall_every`); a chunk chooses for all."""
        self.step = step
        self.store.begin_step(step.real is None, step.base.device)

    def fill(self, layer_idx: int, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> None:
        """Write the step's recalled keys and values of layer `layer_idx` into the recall columns of `key`
        and `value` (batch, kv_heads, kv_length, head_dim), chosen by `query` (batch, heads, q, head_dim)."""
        step = self.step
        if step is None or not self.store.serves(layer_idx):
            return
        rope = self.rope[layer_idx]
        unrotated = step.rotate(rope, "query", query, -step.query_positions[:, None, :])
        if step.real is None:
            query_vector = unrotated[:, :, 0]
        else:  # a chunk: the mean of its real queries (InfLLM sums the chunk's scores)
            real = step.real[:, None, :, None].to(unrotated.dtype)
            query_vector = (unrotated * real).sum(dim=2) / real.sum(dim=2).clamp(min=1)
        query_index = step.query_index()
        # keys kept at their token indices, or placed at their own distances, are turned to their
        # positions by the store, one rotation a block; keys kept unrotated and packed take the step's
        # rotation, made once for every layer
        packed = self.store.place == "packed" and not self.store.keeps_index(layer_idx)
        newest = step.query_positions[:, -1]
        keys, values, chosen = self.store.recall(
            layer_idx, query_vector, query_index, base=None if packed else step.base, shift=step.shift,
            newest=newest,
        )  # fmt: skip
        n = keys.shape[2]
        positions = step.base[:, None] + torch.arange(n, device=step.base.device)[None, :]
        if packed:
            keys = step.rotate(rope, "keys", keys, positions[:, None, :])
        start, stop = step.start, step.start + step.columns
        key[:, :, start : start + n] = keys
        value[:, :, start : start + n] = values
        if n < step.columns:
            key[:, :, start + n : stop] = 0
            value[:, :, start + n : stop] = 0
        if self.record_recalled:
            index = self.store.token_indices(chosen)
            counts = torch.tensor(step.recalled, device=index.device)
            index = torch.where(torch.arange(n, device=index.device) < counts[:, None, None], index, -1)
            at = chosen.transpose(1, 2).clamp(min=0)  # (batch, kv_heads, picks)
            first = self.store.positions(self.store.first_indices(at), step.base, step.shift, newest)
            placed = (first[..., None] + torch.arange(self.store.block, device=first.device)).flatten(2)
            self.last_recalled[layer_idx] = (index, placed.expand_as(index))

    def close(self) -> None:
        """The step's forward is done: `fill` does nothing until the next step opens."""
        self.step = None
