"""Planning a chunk step: a prompt chunk (or a whole prompt) of q columns, padding allowed.

Contract: `plan_chunk(cache, input_ids, attention_mask)` first evicts down to `slots - r` per row (r:
the row's real new tokens), so that every query of the chunk sees at most the limit; then shows the
chunk each row's stored tokens in time order (right-aligned, empty slots masked), the recall
columns (when the tier recalls) and the chunk's own columns; gives each real new token a free slot
and a position. Rows are independent: a row's plan depends on its own counts and tokens alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .plan import SetWrites, StepPlan, place_chunk, shown_to_chunk
from .recall_hook import RecallHook, RecallStep
from .step_inputs import StepInputs

if TYPE_CHECKING:
    from .bounded import BoundedCache


def plan_chunk(
    cache: BoundedCache, input_ids: torch.Tensor, attention_mask: torch.Tensor | None
) -> tuple[StepPlan, StepInputs]:
    """Plan a chunk of `input_ids` (batch, q) with mask columns `attention_mask` (batch, q) or None."""
    batch, q = input_ids.shape
    real = (
        torch.ones((batch, q), dtype=torch.bool, device=input_ids.device)
        if attention_mask is None
        else attention_mask.to(device=input_ids.device).bool()
    )
    counts = real.sum(dim=1).tolist()
    cache.keeper.begin_step(cache, counts)
    rows = cache.rows
    need = [max(0, kept + r - cache.slots) for kept, r in zip(rows.kept, counts, strict=True)]
    room = cache.policy.max_chunk(cache.slots)
    if any(r > room for r, n in zip(counts, need, strict=True) if n > 0):
        raise ValueError(
            f"a chunk of {max(counts)} new tokens does not fit a cache of {cache.slots} slots with "
            f"{cache.policy.protected_tokens} protected; feed at most {room} tokens per forward (prefill_chunk)"
        )
    permutes = cache.evict(need) if any(need) else None
    recall_columns = cache.open_recall()
    cache.keeper.place(cache, counts)
    # stored keys shown to the chunk: every kept set holds kept[b] tokens, so one mask serves them all
    width = max(rows.kept)
    shown = shown_to_chunk(cache.kept_sets, width)
    stored_valid = (
        real.new_zeros((batch, 0)) if shown is None else cache.kept_sets[0].valid.gather(1, shown[0])
    )
    write_rows, write_cols, rank, write_slots = place_chunk(cache.kept_sets, real, input_ids, rows.seen_t)
    positions = cache.keeper.new_positions(
        torch.where(real, rows.seen_t[:, None] - rows.shift_t[:, None] + rank, torch.zeros_like(rank))
    )
    for kept, slots in zip(cache.kept_sets, write_slots, strict=True):
        kept.set_positions(write_rows, slots, positions[write_rows, write_cols])
    rows.set(
        kept=[k + r for k, r in zip(rows.kept, counts, strict=True)],
        seen=[s + r for s, r in zip(rows.seen, counts, strict=True)],
    )
    writes = [
        SetWrites(
            permute=None if permutes is None else permutes[k],
            shown=None if shown is None else shown[k],
            write_slots=write_slots[k],
            statistic=kept.statistic,
        )
        for k, kept in enumerate(cache.kept_sets)
    ]
    plan = StepPlan("chunk", q, width + recall_columns + q, writes, write_rows, write_cols, real=real,
                    recall_columns=recall_columns)  # fmt: skip
    recalled_mask = RecallHook.column_mask(cache.recalled, recall_columns, real.device)
    mask = torch.cat((stored_valid, recalled_mask, real), dim=1).long()
    if recall_columns:
        assert cache.recall_hook is not None
        base = cache.keeper.recall_base(cache)
        cache.recall_hook.open(
            RecallStep(
                width, recall_columns, base, positions, list(cache.recalled), rows.shift_t.clone(), real
            )
        )
    return plan, StepInputs(positions, mask, "chunk")
