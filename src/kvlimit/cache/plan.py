"""Planning a step: who is evicted, which slot each new token takes, what each query may see.

Contract: the functions here read and update the slot bookkeeping (`KeptSet`) of a cache's kept
sets and return what the layers must do with their keys and values in the coming forward, as a
`StepPlan`. They touch no model, no layer and no positions (`kvlimit.positions` does those). They
never read a device tensor on the host in a decode step: what they decide per row comes from the
host counters their callers pass.

Eviction has one rule everywhere: a policy's `keep_scores` ranks the slots of a row (higher is
kept longer; empty slots score -inf and are reused first) and `lowest_slots` takes the lowest,
equal scores going to the oldest token (an empty slot: the first), so that a row's choice depends
on that row alone and never on floating-point noise or the rest of its batch. A decode step takes
one slot per row, a chunk of the prompt evicts as many tokens per row as it needs, and ordered
storage (ALiBi) closes the gap an eviction leaves by shifting later slots left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import torch

from ..policies import EvictionPolicy
from .kept import KeptSet


@dataclass
class SetWrites:
    """What the layers of one kept set do with their keys and values in this step.

    Attributes:
        slot: decode: (batch,) long, the slot each row's new token is written to.
        permute: ordered storage: (batch, slots) long gather applied to the stored keys/values
            before the write (slot j takes what slot `permute[b, j]` held).
        shown: chunk: (batch, width) long, the stored slots the chunk attends to, in temporal order,
            right-aligned (empty slots on the left); None when nothing is stored yet.
        write_slots: chunk: the slot of each real new token (rows and columns are on the plan).
        statistic: per-layer policies: the kept set's `KeptSet.statistic`, where the layer writes
            `token_statistic` of each new key.
    """

    slot: torch.Tensor | None = None
    permute: torch.Tensor | None = None
    shown: torch.Tensor | None = None
    write_slots: torch.Tensor | None = None
    statistic: torch.Tensor | None = None


@dataclass
class StepPlan:
    """One forward, as every bounded layer executes it.

    Attributes:
        kind: "decode" (one new token per row, written in place) or "chunk".
        q: new tokens (columns) per row in this forward.
        kv_length: keys each bounded layer returns (and the width of the 2D attention mask).
        writes: per kept set, its `SetWrites`.
        write_rows, write_cols: chunk: the row and column of every real new token.
        real: chunk: (batch, q) bool, True for real new tokens (False: left padding).
        first_index: decode: the smallest token index (a row's count of real tokens before it) among
            the rows' new tokens, known on the host; a layer that keeps its first tokens apart (the
            quantized layer's float sinks) skips that work once every row is past them.
        recall_columns: columns of recalled tokens among the keys (0: none this step): in a decode
            step the store's scratch slots after the kept ones, in a chunk between the stored keys
            shown and the new ones; the recall tier fills them in the attention (`BoundedCache.fill_recall`).
    """

    kind: Literal["decode", "chunk"]
    q: int
    kv_length: int
    writes: list[SetWrites] = field(default_factory=list)
    write_rows: torch.Tensor | None = None
    write_cols: torch.Tensor | None = None
    real: torch.Tensor | None = None
    first_index: int = 0
    recall_columns: int = 0


def lowest_slots(scores: torch.Tensor, order: torch.Tensor, k: int) -> torch.Tensor:
    """(batch, k) long: the `k` lowest-scoring slots of each row of `scores` (batch, slots), lowest first.

    Equal scores are taken in `order` (batch, slots) (lower first; equal orders: the lower slot), so the
    choice is a function of the row alone. One decode slot is found in O(slots) without sorting.
    """
    if k == 1:
        low = scores.min(dim=1, keepdim=True).values
        tied = torch.where(scores == low, order, torch.full_like(order, torch.iinfo(order.dtype).max))
        return tied.argmin(dim=1, keepdim=True)  # argmin returns the first of equal values
    by_order = order.argsort(dim=1, stable=True)
    ranked = scores.gather(1, by_order).argsort(dim=1, stable=True)[:, :k]
    return by_order.gather(1, ranked)


def decode_slots(
    sets: Sequence[KeptSet],
    policy: EvictionPolicy,
    full: torch.Tensor,
    count: torch.Tensor,
    *,
    compact: bool,
    ordered: bool,
) -> tuple[list[torch.Tensor], list[torch.Tensor] | None]:
    """The slot each row's new token takes, per kept set, and (ordered storage) each kept set's permutation.

    full: (batch,) bool and count: (batch,) long, on the device: which rows hold a full cache, and how
    many tokens each holds. `compact`: no row has evicted yet, so a row's next slot is its count.
    Otherwise choose by score: a full row's lowest-scoring token is evicted and its slot marked
    empty (the new token is written there), any other row takes an empty slot; ordered storage
    first shifts a full row's later slots over the evicted one. Nothing is read on the host.
    """
    if compact:
        return [count.clone() for _ in sets], None
    if not ordered:
        slots = []
        for kept in sets:
            slot = lowest_slots(policy.keep_scores(kept.view()), kept.token_index, 1)[:, 0]
            kept.vacate(slot, full)
            slots.append(slot)
        return slots, None
    pairs = [_ordered_evict(kept, policy, full, count) for kept in sets]
    return [slot for slot, _ in pairs], [permute for _, permute in pairs]


def _ordered_evict(
    kept: KeptSet, policy: EvictionPolicy, full: torch.Tensor, count: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Remove each full row's lowest-scoring slot by shifting the later slots left; the new token goes last."""
    device = kept.valid.device
    slots = kept.slots
    evict = lowest_slots(policy.keep_scores(kept.view()), kept.token_index, 1)[:, 0]
    evict = torch.where(full, evict, torch.full_like(evict, slots))
    j = torch.arange(slots, device=device)[None, :]
    permute = torch.where(j >= evict[:, None], j + 1, j).clamp_(max=slots - 1)
    kept.gather_(permute)
    # the last slot of a full row is now a duplicate: empty it for the new token
    last = torch.full_like(evict, slots - 1)
    kept.vacate(last, full)
    return torch.where(full, last, count), permute


@dataclass
class Evicted:
    """The tokens a chunk evicted from the first kept set: row, slot, token index and position of each
    (n,), rows in order, read before the slots were emptied."""

    rows: torch.Tensor
    slots: torch.Tensor
    token_index: torch.Tensor
    positions: torch.Tensor


def evict(
    sets: Sequence[KeptSet], policy: EvictionPolicy, need: Sequence[int], *, ordered: bool
) -> tuple[list[torch.Tensor] | None, Evicted]:
    """Evict the `need[b]` lowest-scoring tokens of each row, in every kept set.

    Ordered storage is compacted afterwards (kept slots first, in temporal order): returns each
    kept set's permutation then (to apply to the stored keys/values), else None; and what the first
    kept set evicted (`Evicted`).
    """
    device = sets[0].valid.device
    most = max(need)
    take = torch.arange(most, device=device)[None, :] < torch.tensor(list(need), device=device)[:, None]
    rows, ranks = take.nonzero(as_tuple=True)
    permutes = []
    evicted: Evicted | None = None
    for kept in sets:
        # empty slots are not evicted: they are the room already there
        scores = policy.keep_scores(kept.view("chunk")).masked_fill(~kept.valid, float("inf"))
        slots = lowest_slots(scores, kept.token_index, most)[rows, ranks]
        if evicted is None:
            evicted = Evicted(rows, slots, kept.token_index[rows, slots], kept.positions[rows, slots])
        if not torch.isfinite(scores[rows, slots]).all():
            raise RuntimeError(
                "eviction reached a protected or empty slot; the chunk is too large for the cache"
            )
        kept.clear(rows, slots)
        if ordered:
            permute = kept.time_order(empty_first=False)
            kept.gather_(permute)
            permutes.append(permute)
    assert evicted is not None
    return (permutes if ordered else None), evicted


def shown_to_chunk(sets: Sequence[KeptSet], width: int) -> list[torch.Tensor] | None:
    """Per kept set, the `width` newest stored slots of each row in temporal order (empty slots on the left)."""
    if width == 0:
        return None
    slots = sets[0].slots
    return [kept.time_order(empty_first=True)[:, slots - width :] for kept in sets]


def place_chunk(
    sets: Sequence[KeptSet], real: torch.Tensor, input_ids: torch.Tensor, seen: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, list[torch.Tensor]]:
    """Give every real token of a chunk a free slot (each row's free slots in slot order), in every kept set.

    real: (batch, q) bool; seen: (batch,) long, each row's real tokens before the chunk.
    Returns (rows, cols, rank, slots per kept set) of the real tokens; rank is a token's index
    among its row's real tokens of the chunk.
    """
    rank = real.long().cumsum(dim=1) - 1
    rows, cols = real.nonzero(as_tuple=True)
    write_rank = rank[rows, cols]
    write_slots = []
    for kept in sets:
        free_order = kept.valid.to(torch.int8).argsort(dim=1, stable=True)
        slots = free_order[rows, write_rank]
        kept.store(rows, slots, seen[rows] + write_rank, input_ids[rows, cols])
        write_slots.append(slots)
    return rows, cols, rank, write_slots
