"""Planning a step: who is evicted, which slot each new token takes, what each query may see.

Contract: the functions here read and update the slot bookkeeping (`SlotState`) of a cache's slot
groups and return what the layers must do with their keys and values in the coming forward, as a
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
from .slots import SlotState


@dataclass
class GroupWrites:
    """What the layers of one slot group do with their keys and values in this step.

    Attributes:
        slot: decode: (batch,) long, the slot each row's new token is written to.
        permute: ordered storage: (batch, slots) long gather applied to the stored keys/values
            before the write (slot j takes what slot `permute[b, j]` held).
        shown: chunk: (batch, width) long, the stored slots the chunk attends to, in temporal order,
            right-aligned (empty slots on the left); None when nothing is stored yet.
        write_slots: chunk: the slot of each real new token (rows and columns are on the plan).
        statistic: per-layer policies: the group's `SlotState.statistic`, where the layer writes
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
        groups: per slot group, its `GroupWrites`.
        write_rows, write_cols: chunk: the row and column of every real new token.
        first_index: decode: the smallest token index (a row's count of real tokens before it) among
            the rows' new tokens, known on the host; a layer that keeps its first tokens apart (the
            quantized layer's float sinks) skips that work once every row is past them.
    """

    kind: Literal["decode", "chunk"]
    q: int
    kv_length: int
    groups: list[GroupWrites] = field(default_factory=list)
    write_rows: torch.Tensor | None = None
    write_cols: torch.Tensor | None = None
    first_index: int = 0


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
    groups: Sequence[SlotState],
    policy: EvictionPolicy,
    full: torch.Tensor,
    count: torch.Tensor,
    *,
    compact: bool,
    ordered: bool,
) -> tuple[list[torch.Tensor], list[torch.Tensor] | None]:
    """The slot each row's new token takes, per group, and (ordered storage) each group's permutation.

    full: (batch,) bool and count: (batch,) long, on the device: which rows hold a full cache, and how
    many tokens each holds. `compact`: no row has evicted yet, so a row's next slot is its count.
    Otherwise choose by score: a full row's lowest-scoring token is evicted and its slot marked
    empty (the new token is written there), any other row takes an empty slot; ordered storage
    first shifts a full row's later slots over the evicted one. Nothing is read on the host.
    """
    if compact:
        return [count.clone() for _ in groups], None
    if not ordered:
        slots = []
        for group in groups:
            slot = lowest_slots(policy.keep_scores(group.view()), group.token_index, 1)[:, 0]
            group.vacate(slot, full)
            slots.append(slot)
        return slots, None
    pairs = [_ordered_evict(group, policy, full, count) for group in groups]
    return [slot for slot, _ in pairs], [permute for _, permute in pairs]


def _ordered_evict(
    group: SlotState, policy: EvictionPolicy, full: torch.Tensor, count: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Remove each full row's lowest-scoring slot by shifting the later slots left; the new token goes last."""
    device = group.valid.device
    slots = group.slots
    evict = lowest_slots(policy.keep_scores(group.view()), group.token_index, 1)[:, 0]
    evict = torch.where(full, evict, torch.full_like(evict, slots))
    j = torch.arange(slots, device=device)[None, :]
    permute = torch.where(j >= evict[:, None], j + 1, j).clamp_(max=slots - 1)
    group.gather_(permute)
    # the last slot of a full row is now a duplicate: empty it for the new token
    last = torch.full_like(evict, slots - 1)
    group.vacate(last, full)
    return torch.where(full, last, count), permute


def evict(
    groups: Sequence[SlotState], policy: EvictionPolicy, need: Sequence[int], *, ordered: bool
) -> list[torch.Tensor] | None:
    """Evict the `need[b]` lowest-scoring tokens of each row, in every group.

    Ordered storage is compacted afterwards (kept slots first, in temporal order): returns each
    group's permutation then (to apply to the stored keys/values), else None.
    """
    device = groups[0].valid.device
    most = max(need)
    take = torch.arange(most, device=device)[None, :] < torch.tensor(list(need), device=device)[:, None]
    rows, ranks = take.nonzero(as_tuple=True)
    permutes = []
    for group in groups:
        # empty slots are not evicted: they are the room already there
        scores = policy.keep_scores(group.view("chunk")).masked_fill(~group.valid, float("inf"))
        slots = lowest_slots(scores, group.token_index, most)[rows, ranks]
        if not torch.isfinite(scores[rows, slots]).all():
            raise RuntimeError(
                "eviction reached a protected or empty slot; the chunk is too large for the cache"
            )
        group.clear(rows, slots)
        if ordered:
            permute = group.time_order(empty_first=False)
            group.gather_(permute)
            permutes.append(permute)
    return permutes if ordered else None


def shown_to_chunk(groups: Sequence[SlotState], width: int) -> list[torch.Tensor] | None:
    """Per group, the `width` newest stored slots of each row in temporal order (empty slots on the left)."""
    if width == 0:
        return None
    slots = groups[0].slots
    return [group.time_order(empty_first=True)[:, slots - width :] for group in groups]


def place_chunk(
    groups: Sequence[SlotState], real: torch.Tensor, input_ids: torch.Tensor, seen: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, list[torch.Tensor]]:
    """Give every real token of a chunk a free slot (each row's free slots in slot order), in every group.

    real: (batch, q) bool; seen: (batch,) long, each row's real tokens before the chunk.
    Returns (rows, cols, rank, slots per group) of the real tokens; rank is a token's index
    among its row's real tokens of the chunk.
    """
    rank = real.long().cumsum(dim=1) - 1
    rows, cols = real.nonzero(as_tuple=True)
    write_rank = rank[rows, cols]
    write_slots = []
    for group in groups:
        free_order = group.valid.to(torch.int8).argsort(dim=1, stable=True)
        slots = free_order[rows, write_rank]
        group.store(rows, slots, seen[rows] + write_rank, input_ids[rows, cols])
        write_slots.append(slots)
    return rows, cols, rank, write_slots
