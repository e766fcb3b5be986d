"""The attention each stored key receives, for the policies that choose by attention (TOVA, H2O, SnapKV).

Contract: during a forward through a cache whose policy reads attention, every bounded layer's
attention call reports to `AttentionRecorder.record` (through `kvlimit.integrations.hf.attention_tap`)
the queries `(batch, heads, q, head_dim)`, the keys the layer returned `(batch, kv_heads, kv_length,
head_dim)`, the mask the attention got and its scaling, and the attention weights where the
implementation returns them (eager). The recorder takes the attention of the queries it needs,
averaged over query heads (the model's own weights when given; else `softmax(q k^T * scaling +
mask)` of those queries, in float32), and folds it into the layer's slot group at the slots the
step's plan put each key column (decode: column j is slot j; a chunk: the stored slots it was shown,
then its new tokens' slots). How, by the policy's `attention_mode(phase)`:

- "last": the attention of each row's last real query replaces every score;
- "recent": the attention of the step's real queries, each key's averaged over the queries that
  could see it, replaces every score (TOVA: in a decode step, the newest query's; in a prompt chunk,
  the mean over the chunk's queries, so that a chunk's evictions do not hang on one query);
- "mean": every real query's attention is added to the key's sum and the queries that could see it
  counted; a new token's sum and count start from its own (H2O, normalised as kvpress does);
- "window": in a prompt chunk, the summed attention of the chunk's last `window` real queries,
  averaged over `pool` neighbouring keys in time, replaces every score (SnapKV).

Where the decode mode is "recent" or "last", every forward also records the attention of each row's
newest query apart (`SlotState.newest`), and decode steps evict by that: after a prompt chunk the
scores above depend on how the prompt was cut into chunks (a row alone and in a padded batch is cut
differently), the newest query's attention does not.

Scores are recorded in the forward of a step and used when the next step evicts: a step never
attends to more keys than the limit. Nothing is read on the host; the cost is one query-key product
of the queries needed, per bounded layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from .plan import StepPlan
from .slots import SlotState

if TYPE_CHECKING:
    from .bounded import BoundedCache


def head_mean_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    mask: torch.Tensor | None,
    scaling: float,
    weights: torch.Tensor | None,
    queries: slice,
) -> torch.Tensor:
    """(batch, n, kv_length) float32: the attention of `query[:, :, queries]` over the keys, mean over heads.

    `weights` (batch, heads, q, kv_length): the model's own (eager); else computed from query and key
    (grouped-query keys repeated per head group), with `mask` boolean (True = attend) or additive, or
    None (no masking beyond causality inside a chunk).
    """
    if weights is not None:
        return weights[:, :, queries].float().mean(dim=1)
    q = query[:, :, queries].float()
    batch, heads, n, dim = q.shape
    kv_heads = key.shape[1]
    # Grouped-query attention without repeating the keys: head h reads kv head h // groups, so the
    # queries of one kv head's group are stacked against its keys once.
    grouped = q.reshape(batch, kv_heads, heads // kv_heads * n, dim)
    logits = (grouped @ key.float().transpose(-1, -2)).view(batch, heads, n, key.shape[2]) * scaling
    if mask is not None:
        rows = mask[:, :, queries] if mask.shape[2] > 1 else mask
        logits = (
            logits.masked_fill(~rows, float("-inf")) if rows.dtype == torch.bool else logits + rows.float()
        )
    elif query.shape[2] > 1:  # no mask given inside a chunk: causality alone
        total, width = query.shape[2], key.shape[2]
        positions = torch.arange(total, device=query.device)[queries]
        seen = torch.arange(width, device=query.device)[None, :] <= (width - total + positions)[:, None]
        logits = logits.masked_fill(~seen, float("-inf"))
    return torch.nan_to_num(logits.softmax(dim=-1), nan=0.0).mean(dim=1)


class AttentionRecorder:
    """Folds each layer's attention into its slot group (see the module docstring).

    Args:
        cache: the cache whose plan and slot groups it reads.
        window: "window" mode: how many of a chunk's last queries observe.
        pool: "window" mode: the keys' scores are averaged over this many neighbours (odd).
    """

    def __init__(self, cache: BoundedCache, window: int = 32, pool: int = 5):
        self.cache = cache
        self.window = window
        self.pool = pool
        self.real: torch.Tensor | None = None  # (batch, q) bool, the step's real new tokens (chunks)

    def record(
        self,
        layer_idx: int,
        query: torch.Tensor,
        key: torch.Tensor,
        mask: torch.Tensor | None,
        scaling: float,
        weights: torch.Tensor | None = None,
    ) -> None:
        plan = self.cache.current_plan
        layer = self.cache.bounded_layer(layer_idx)
        if plan is None or layer is None:
            return
        group = self.cache.slot_groups[layer.group]
        mode = self.cache.policy.attention_mode(plan.kind)
        if mode is None or group.attention is None:
            return
        if plan.kind == "decode":
            self._decode(plan, group, layer.group, mode, query, key, mask, scaling, weights)
        else:
            self._chunk(plan, group, layer.group, mode, query, key, mask, scaling, weights)

    def _decode(
        self,
        plan: StepPlan,
        group: SlotState,
        g: int,
        mode: str,
        query: torch.Tensor,
        key: torch.Tensor,
        mask: torch.Tensor | None,
        scaling: float,
        weights: torch.Tensor | None,
    ) -> None:
        assert group.attention is not None
        width = plan.kv_length
        scores = head_mean_attention(query, key, mask, scaling, weights, slice(-1, None))[:, 0]
        if mode != "mean":  # "last", "recent" (and "window", which only chunks use): the newest query's
            group.attention[:, :width] = scores
            if group.newest is not None:
                group.newest[:, :width] = scores
            return
        assert group.attention_count is not None
        slot = plan.groups[g].slot
        assert slot is not None
        for state in (group.attention, group.attention_count):
            state.scatter_(1, slot[:, None], 0.0)  # the new token's slot held an evicted token
        group.attention[:, :width] += scores
        group.attention_count[:, :width] += group.valid[:, :width].float()

    def _chunk(
        self,
        plan: StepPlan,
        group: SlotState,
        g: int,
        mode: str,
        query: torch.Tensor,
        key: torch.Tensor,
        mask: torch.Tensor | None,
        scaling: float,
        weights: torch.Tensor | None,
    ) -> None:
        assert group.attention is not None and self.real is not None
        writes = plan.groups[g]
        real = self.real
        q = real.shape[1]
        shown = key.shape[2] - q  # key columns [0, shown) are stored slots, then the new tokens
        has_new = real.any(dim=1)
        newest: torch.Tensor | None  # the newest query's attention, where these scores already hold it
        if mode == "mean":
            probs = head_mean_attention(query, key, mask, scaling, weights, slice(None))
            scores = (probs * real[:, :, None]).sum(dim=1)
            seen_by = real.sum(dim=1, keepdim=True).float().expand(-1, shown)
            new_seen = (q - torch.arange(q, device=real.device)).float()[None, :].expand(real.shape[0], -1)
            self._fold(
                group.attention,
                group.attention_count,
                writes.shown,
                writes.write_slots,
                plan,
                scores,
                seen_by,
                new_seen,
                add=True,
            )
            return
        if mode == "recent":
            probs = head_mean_attention(query, key, mask, scaling, weights, slice(None))
            total = (probs * real[:, :, None]).sum(dim=1)
            seen_by = real.sum(dim=1, keepdim=True).float().clamp(min=1.0)
            new_seen = (q - torch.arange(q, device=real.device)).float()[None, :]
            scores = torch.cat((total[:, :shown] / seen_by, total[:, shown:] / new_seen), dim=1)
            newest = probs[:, -1]
        elif mode == "window":
            first = max(0, q - self.window)
            probs = head_mean_attention(query, key, mask, scaling, weights, slice(first, None))
            scores = (probs * real[:, first:, None]).sum(dim=1)
            scores = F.avg_pool1d(
                scores[:, None], self.pool, stride=1, padding=self.pool // 2, count_include_pad=False
            )[:, 0]
            newest = probs[:, -1] if probs.shape[1] else None  # window 0 observes no query
        else:  # "last"
            scores = newest = head_mean_attention(query, key, mask, scaling, weights, slice(-1, None))[:, 0]
        self._replace(group.attention, writes.shown, writes.write_slots, plan, scores, has_new)
        if group.newest is not None:  # a chunk's last column is each row's newest query (padding leads)
            if newest is None:
                newest = head_mean_attention(query, key, mask, scaling, weights, slice(-1, None))[:, 0]
            self._replace(group.newest, writes.shown, writes.write_slots, plan, newest, has_new)

    @classmethod
    def _replace(
        cls,
        target: torch.Tensor,
        shown: torch.Tensor | None,
        write_slots: torch.Tensor | None,
        plan: StepPlan,
        scores: torch.Tensor,
        has_new: torch.Tensor,
    ) -> None:
        """Per-column `scores` replace `target` at their slots, except in rows without new tokens."""
        if shown is not None:
            width = shown.shape[1]
            kept = torch.where(has_new[:, None], scores[:, :width], target.gather(1, shown))
            scores = torch.cat((kept, scores[:, width:]), dim=1)
        cls._fold(target, None, shown, write_slots, plan, scores, None, None, add=False)

    @staticmethod
    def _fold(
        target: torch.Tensor,
        count: torch.Tensor | None,
        shown: torch.Tensor | None,
        write_slots: torch.Tensor | None,
        plan: StepPlan,
        scores: torch.Tensor,
        seen_by: torch.Tensor | None,
        new_seen: torch.Tensor | None,
        *,
        add: bool,
    ) -> None:
        """Put per-column `scores` (batch, kv_length) into `target` at their slots: stored columns, then
        the new tokens'; with `count` ("mean" attention) the queries that saw each key likewise."""
        width = 0 if shown is None else shown.shape[1]
        if shown is not None:
            if add:
                target.scatter_add_(1, shown, scores[:, :width])
            else:
                target.scatter_(1, shown, scores[:, :width])
            if seen_by is not None and count is not None:
                count.scatter_add_(1, shown, seen_by)
        rows, cols = plan.write_rows, plan.write_cols
        if rows is None or cols is None or write_slots is None or rows.numel() == 0:
            return
        target[rows, write_slots] = scores[rows, width + cols]  # a new token's first score
        if new_seen is not None and count is not None:
            count[rows, write_slots] = new_seen[rows, cols]
