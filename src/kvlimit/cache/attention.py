"""The attention each stored key receives, for the policies that choose by attention (TOVA, H2O, SnapKV).

Contract: during a forward through a cache whose policy reads attention, every bounded layer's
attention call reports (through `kvlimit.integrations.hf.attention_tap`, to the cache, which looks
up the layer's plan, kept set and mode) the queries `(batch, heads, q, head_dim)`, the keys the
layer returned `(batch, kv_heads, kv_length, head_dim)`, the mask the attention got and its
scaling, and the attention weights where the implementation returns them (eager). `fold_attention`
takes the attention of the queries it needs, averaged over query heads (the model's own weights
when given; else `softmax(q k^T * scaling + mask)` of those queries, in float32), and folds it into
the kept set at the slots the step's plan put each key column (decode: column j is slot j; a chunk:
the stored slots it was shown, then its new tokens' slots). How, by the policy's `AttentionMode`:

- LAST: the attention of each row's last real query replaces every score;
- RECENT: the attention of the step's real queries, each key's averaged over the queries that
  could see it, replaces every score (TOVA: in a decode step, the newest query's; in a prompt chunk,
  the mean over the chunk's queries, so that a chunk's evictions do not hang on one query);
- MEAN: every real query's attention is added to the key's sum and the queries that could see it
  counted; a new token's sum and count start from its own (H2O, normalised as kvpress does);
- WINDOW: in a prompt chunk, the summed attention of the chunk's last `mode.queries` real queries,
  averaged over `mode.pool` neighbouring keys in time, replaces every score (SnapKV).

Where the decode mode is RECENT or LAST, every forward also records the attention of each row's
newest query apart (`KeptSet.newest`), and decode steps evict by that: after a prompt chunk the
scores above depend on how the prompt was cut into chunks (a row alone and in a padded batch is cut
differently), the newest query's attention does not.

Scores are recorded in the forward of a step and used when the next step evicts: a step never
attends to more keys than the limit. Nothing is read on the host; the cost is one query-key product
of the queries needed, per bounded layer. This module knows nothing of the cache: it is given the
plan, the kept set and the mode.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
import torch.nn.functional as F

from ..policies import AttentionKind, AttentionMode
from .kept import KeptSet
from .plan import SetWrites, StepPlan


def head_mean_attention(
    query: torch.Tensor | None,
    key: torch.Tensor | None,
    mask: torch.Tensor | None,
    scaling: float,
    weights: torch.Tensor | None,
    queries: slice,
) -> torch.Tensor:
    """(batch, n, kv_length) float32: the attention of `query[:, :, queries]` over the keys, mean over heads.

    `weights` (batch, heads, q, kv_length): the model's own (eager, or a family's own attention code);
    else computed from query and key (grouped-query keys repeated per head group), with `mask` boolean
    (True = attend) or additive, or None (no masking beyond causality inside a chunk).
    """
    if weights is not None:
        return weights[:, :, queries].float().mean(dim=1)
    if query is None or key is None:
        raise ValueError("attention needs the model's weights or its queries and keys")
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


def fold_attention(
    plan: StepPlan,
    kept: KeptSet,
    writes: SetWrites,
    mode: AttentionMode,
    query: torch.Tensor | None,
    key: torch.Tensor | None,
    mask: torch.Tensor | None,
    scaling: float,
    weights: torch.Tensor | None = None,
) -> None:
    """Fold one layer's attention in this step into `kept` (see the module docstring)."""
    if kept.attention is None:
        return
    attend = functools.partial(head_mean_attention, query, key, mask, scaling, weights)
    if plan.kind == "decode":
        _decode(plan, kept, writes, mode, attend)
    else:
        _chunk(plan, kept, writes, mode, attend)


#: The attention of some queries (a slice of the step's), mean over heads: (batch, n, kv_length).
Attend = Callable[[slice], torch.Tensor]


def _decode(plan: StepPlan, kept: KeptSet, writes: SetWrites, mode: AttentionMode, attend: Attend) -> None:
    assert kept.attention is not None
    width = plan.kv_length
    scores = attend(slice(-1, None))[:, 0]
    if (
        mode.kind is not AttentionKind.MEAN
    ):  # LAST, RECENT (and WINDOW, which only chunks use): the newest query's
        kept.attention[:, :width] = scores
        if kept.newest is not None:
            kept.newest[:, :width] = scores
        return
    assert kept.attention_count is not None and writes.slot is not None
    for state in (kept.attention, kept.attention_count):
        state.scatter_(1, writes.slot[:, None], 0.0)  # the new token's slot held an evicted token
    kept.attention[:, :width] += scores
    kept.attention_count[:, :width] += kept.valid[:, :width].float()


def _chunk(plan: StepPlan, kept: KeptSet, writes: SetWrites, mode: AttentionMode, attend: Attend) -> None:
    assert kept.attention is not None and plan.real is not None
    real = plan.real
    q = real.shape[1]
    shown = plan.kv_length - q  # key columns [0, shown) are stored slots, then the new tokens
    has_new = real.any(dim=1)
    newest: torch.Tensor | None  # the newest query's attention, where these scores already hold it
    if mode.kind is AttentionKind.MEAN:
        probs = attend(slice(None))
        scores = (probs * real[:, :, None]).sum(dim=1)
        seen_by = real.sum(dim=1, keepdim=True).float().expand(-1, shown)
        new_seen = (q - torch.arange(q, device=real.device)).float()[None, :].expand(real.shape[0], -1)
        _fold(kept.attention, kept.attention_count, writes, plan, scores, seen_by, new_seen, add=True)
        return
    if mode.kind is AttentionKind.RECENT:
        probs = attend(slice(None))
        total = (probs * real[:, :, None]).sum(dim=1)
        seen_by = real.sum(dim=1, keepdim=True).float().clamp(min=1.0)
        new_seen = (q - torch.arange(q, device=real.device)).float()[None, :]
        scores = torch.cat((total[:, :shown] / seen_by, total[:, shown:] / new_seen), dim=1)
        newest = probs[:, -1]
    elif mode.kind is AttentionKind.WINDOW:
        first = max(0, q - mode.queries)
        probs = attend(slice(first, None))
        scores = (probs * real[:, first:, None]).sum(dim=1)
        held = (
            real.new_zeros((real.shape[0], 0)) if writes.shown is None else kept.valid.gather(1, writes.shown)
        )
        scores = _pool_in_time(scores, torch.cat((held, real), dim=1), mode.pool)
        newest = probs[:, -1] if probs.shape[1] else None  # a window of 0 observes no query
    else:  # LAST
        scores = newest = attend(slice(-1, None))[:, 0]
    _replace(kept.attention, writes, plan, scores, has_new)
    if kept.newest is not None:  # a chunk's last column is each row's newest query (padding leads)
        if newest is None:
            newest = attend(slice(-1, None))[:, 0]
        _replace(kept.newest, writes, plan, newest, has_new)


def _pool_in_time(scores: torch.Tensor, valid: torch.Tensor, pool: int) -> torch.Tensor:
    """Each key's score averaged with its `pool` neighbours in time (batch, kv_length).

    Only the row's tokens count: its key columns are in time order but interleaved with columns that
    hold nothing (empty slots, left padding), whose number depends on the batch. They are moved aside
    (a stable sort keeps the tokens' order), the scores averaged over the tokens within `pool // 2` on
    either side (fewer at the ends), and put back; an empty column scores 0.
    """
    order = valid.to(torch.int8).argsort(dim=1, stable=True)  # empty columns first, then tokens in time
    weight = valid.gather(1, order).float()
    values = scores.gather(1, order) * weight
    average = functools.partial(
        F.avg_pool1d, kernel_size=pool, stride=1, padding=pool // 2, count_include_pad=False
    )
    total, count = average(values[:, None])[:, 0], average(weight[:, None])[:, 0]
    pooled = torch.where(count > 0, total / count.clamp(min=1e-12), torch.zeros_like(total)) * weight
    return torch.zeros_like(scores).scatter(1, order, pooled)


def _replace(
    target: torch.Tensor, writes: SetWrites, plan: StepPlan, scores: torch.Tensor, has_new: torch.Tensor
) -> None:
    """Per-column `scores` replace `target` at their slots, except in rows without new tokens."""
    if writes.shown is not None:
        width = writes.shown.shape[1]
        kept = torch.where(has_new[:, None], scores[:, :width], target.gather(1, writes.shown))
        scores = torch.cat((kept, scores[:, width:]), dim=1)
    _fold(target, None, writes, plan, scores, None, None, add=False)


def _fold(
    target: torch.Tensor,
    count: torch.Tensor | None,
    writes: SetWrites,
    plan: StepPlan,
    scores: torch.Tensor,
    seen_by: torch.Tensor | None,
    new_seen: torch.Tensor | None,
    *,
    add: bool,
) -> None:
    """Put per-column `scores` (batch, kv_length) into `target` at their slots: stored columns, then
    the new tokens'; with `count` (MEAN attention) the queries that saw each key likewise."""
    shown, write_slots = writes.shown, writes.write_slots
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
