"""Planning a decode step (one new real token per row), in the cache's two forms.

Contract: both forms evict at most one token per row, give each row's new token a slot, a position
and its bookkeeping, and return the mask and positions of the forward; a forward then writes the new
keys and values where the plan says, and `BoundedCache.advance()` closes the step.

- `plan_decode` (dynamic, eager by default): decisions are made from the host counters, so a filling
  cache attends only to its filled columns and a step where every column is a kept token may go
  without a mask.
- `StaticDecode` (static shapes, for a compiled or captured step): split in two. `open` is the host
  part, run before the step: re-encodes and rebases that are due (known from the host counters),
  and the host counters advanced by arithmetic. `run` is the device part, traced into the graph: it
  chooses the slots on the device (the policy's scores; a filling row's lowest score is its first
  empty slot, so filling needs no branch), evicts, places a RoPE policy's sinks, writes the new
  token's bookkeeping and fills fixed buffers for the positions, the mask and the slots the layers
  write to; with recall, the evicted token goes to its row's ring and the step's recall columns are
  masked by the rows' counts (`recall_static.StaticRecall`, whose `fill` the attention calls). Every
  tensor it touches keeps its shape and address from step to step, the forward
  attends to every slot (empty ones masked) and nothing is read on the host: one graph serves every
  step of a run, and a later run of the same shapes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .plan import Evicted, SetWrites, StepPlan, decode_slots
from .recall_hook import RecallStep
from .recall_static import StaticRecall
from .step_inputs import StepInputs

if TYPE_CHECKING:
    from .bounded import BoundedCache


def plan_decode(cache: BoundedCache, input_ids: torch.Tensor) -> tuple[StepPlan, StepInputs]:
    """The dynamic form (see the module docstring): input_ids (batch, 1)."""
    rows = cache.rows
    full = [n >= cache.slots for n in rows.kept]
    full_t = rows.kept_t >= cache.slots  # the same on the device, without a copy from the host
    slots, permutes = decode_slots(cache.kept_sets, cache.policy, full_t, rows.kept_t,
                                   compact=cache.compact and not any(full), ordered=cache.keeper.ordered)  # fmt: skip
    if any(full):  # a full row's evicted token is gone now, as in a chunk
        if cache.recall_hook is not None:
            evicting = torch.tensor([b for b, f in enumerate(full) if f], device=input_ids.device)
            at = slots[0][evicting]
            kept = cache.kept_sets[0]  # a vacated slot keeps its entries until the new token's
            evicted = Evicted(evicting, at, kept.token_index[evicting, at], kept.positions[evicting, at])
            cache.recall_hook.capture(cache.store, evicted, [int(f) for f in full])
        rows.evict_one(full, full_t)
        cache.evicted += sum(full)
        cache.compact = cache.compact and cache.keeper.ordered
    recall_columns = cache.open_recall()
    cache.keeper.place(cache, [1] * rows.batch)
    positions = cache.keeper.new_positions(rows.seen_t - rows.shift_t)
    batch_rows = torch.arange(rows.batch, device=input_ids.device)
    for kept, slot in zip(cache.kept_sets, slots, strict=True):
        kept.store(batch_rows, slot, rows.seen_t, input_ids[:, 0])
        kept.set_positions(batch_rows, slot, positions)
    first_index = min(rows.seen)
    rows.add_decode_token(cache.slots)
    # compact rows fill slots 0..n-1; after a ring eviction a row may hold a token in any slot
    width = max(rows.kept) if cache.compact else cache.slots
    writes = [
        SetWrites(slot=slot, permute=None if permutes is None else permutes[k], statistic=kept.statistic)
        for k, (kept, slot) in enumerate(zip(cache.kept_sets, slots, strict=True))
    ]
    mask = cache.kept_sets[0].valid[:, :width].long()
    # kept counts each row's valid slots, so a row holding `width` of them fills the mask's columns
    all_kept = min(rows.kept) >= width and min(cache.recalled, default=0) >= recall_columns
    if recall_columns:  # the store's scratch slots, right after the kept ones (no row is compact)
        assert width == cache.slots and cache.recall_hook is not None
        mask = torch.cat(
            (mask, cache.recall_hook.column_mask(cache.recalled, recall_columns, mask.device)), 1
        )
        base = cache.keeper.recall_base(cache)
        cache.recall_hook.open(
            RecallStep(
                width, recall_columns, base, positions[:, None], list(cache.recalled), rows.shift_t.clone()
            )
        )
    step = StepInputs(positions[:, None], mask, "decode", mask_all_kept=all_kept)
    plan = StepPlan("decode", 1, width + recall_columns, writes, first_index=first_index,
                    recall_columns=recall_columns)  # fmt: skip
    return plan, step


class StaticDecode:
    """The static form of a decode step for one cache's rows (see the module docstring).

    Its buffers (per kept set the slot each row writes, and for ordered storage the slot permutation;
    the positions (batch, 1); the mask (batch, slots)) are allocated once and refilled in place, and
    `plan` is the one `StepPlan` every static step hands the layers.
    """

    def __init__(self, cache: BoundedCache):
        rows, device = cache.rows, cache.rows.kept_t.device
        self.cache = cache
        if cache.recall is not None and cache.static_recall is None:  # the tier moves to the device
            cache.static_recall = StaticRecall(cache)
        self.recall = cache.static_recall
        recall_columns = 0 if self.recall is None else self.recall.slots
        cache.sliding.to_rings(cache.columns_seen)  # transformers' own sliding layers, in static form
        cache.sync_sliding_layers()
        self.batch_rows = torch.arange(rows.batch, device=device)
        self.slots = [torch.zeros(rows.batch, dtype=torch.long, device=device) for _ in cache.kept_sets]
        ordered = cache.keeper.ordered
        self.permutes = [
            torch.zeros((rows.batch, cache.slots), dtype=torch.long, device=device) for _ in cache.kept_sets
        ] if ordered else None  # fmt: skip
        #: columns seen, counting the open step's (the host's `columns_seen` runs one behind until it
        #: advances): what the cache reports as its length inside a captured step
        self.columns = torch.tensor(cache.columns_seen, dtype=torch.long, device=device)
        self.positions = torch.zeros((rows.batch, 1), dtype=torch.long, device=device)
        self.mask = torch.zeros((rows.batch, cache.slots + recall_columns), dtype=torch.long, device=device)
        permutes: list[torch.Tensor | None] = [*self.permutes] if self.permutes else [None] * len(self.slots)
        writes = [
            SetWrites(slot=slot, permute=permute, statistic=kept.statistic)
            for kept, slot, permute in zip(cache.kept_sets, self.slots, permutes, strict=True)
        ]
        self.plan = StepPlan("decode", 1, cache.slots + recall_columns, writes, recall_columns=recall_columns)
        #: what the forward is given: the positions and the mask, these buffers
        self.step_inputs = StepInputs(self.positions, self.mask, "decode")

    def tensors(self) -> list[torch.Tensor]:
        """The buffers, whose addresses a captured step reads."""
        recall = [] if self.recall is None else self.recall.tensors()
        return [
            self.batch_rows,
            *self.slots,
            *(self.permutes or []),
            self.columns,
            self.positions,
            self.mask,
            *recall,
        ]

    def open(self) -> None:
        """The host part: due re-encodes and rebases, and the host counters advanced by arithmetic."""
        cache = self.cache
        rows = cache.rows
        incoming = [1] * rows.batch
        cache.keeper.begin_step(cache, incoming)
        full = [n >= cache.slots for n in rows.kept]
        cache.evicted += sum(full)
        rows.kept = [k - f for k, f in zip(rows.kept, full, strict=True)]  # the device follows in `run`
        if self.recall is not None:  # the keeper places the sinks before the recalled tokens
            cache.recalled = self.recall.open(full)
        cache.keeper.place_static(cache, incoming)
        rows.kept = [min(k + 1, cache.slots) for k in rows.kept]
        rows.seen = [s + 1 for s in rows.seen]

    def run(self, input_ids: torch.Tensor) -> None:
        """The device part, for input_ids (batch, 1): everything in place, nothing read on the host."""
        cache = self.cache
        rows = cache.rows
        self.columns.add_(1)
        cache.sliding.ring_step(self.columns)
        full = rows.kept_t >= cache.slots
        slots, permutes = decode_slots(cache.kept_sets, cache.policy, full, rows.kept_t, compact=False,
                                       ordered=cache.keeper.ordered)  # fmt: skip
        recall = self.recall
        if recall is not None:  # the evicted token goes to its ring before its slot is reused
            recall.capture(cache, full, slots[0])
        rows.kept_t.sub_(full.long())
        if recall is not None:
            recall.count()
        cache.keeper.place_on_device(cache)
        positions = cache.keeper.new_positions(rows.seen_t - rows.shift_t)
        if recall is not None:
            recall.open_step(cache.keeper.recall_base_on_device(cache), positions, rows.shift_t)
        for k, (kept, slot) in enumerate(zip(cache.kept_sets, slots, strict=True)):
            kept.store(self.batch_rows, slot, rows.seen_t, input_ids[:, 0])
            kept.set_positions(self.batch_rows, slot, positions)
            self.slots[k].copy_(slot)
            if permutes is not None and self.permutes is not None:
                self.permutes[k].copy_(permutes[k])
        rows.kept_t.add_(1).clamp_(max=cache.slots)
        rows.seen_t.add_(1)
        self.positions.copy_(positions[:, None])
        if recall is None:
            self.mask.copy_(cache.kept_sets[0].valid)
        else:
            self.mask.copy_(torch.cat((cache.kept_sets[0].valid.long(), recall.column_mask()), dim=1))
