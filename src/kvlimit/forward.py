"""Forwards through a bounded cache outside transformers' generate loop, and the prompt's prefill.

Contract: `forward_step(model, cache, input_ids, attention_mask)` is one complete step: plan it on
the cache, run the model forward with the cache's positions and mask, advance the cache. Custom
loops, streaming perplexity and the benchmarks use it; `prefill` feeds a long prompt through it in
chunks (`prefill_spans`; with recall, its last tokens one by one), leaving the prompt's last column to
generate.
"""

from __future__ import annotations

from typing import Any

import torch

from .cache import BoundedCache
from .integrations import hf


def forward_step(
    model: Any,
    cache: BoundedCache,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    **forward_kwargs: Any,
) -> Any:
    """One model forward through a bounded cache outside `generate` (custom loops, evaluation).

    input_ids: (batch, q) new tokens; attention_mask: (batch, q) for just these tokens (1 = real,
    0 = left padding), None when all are real. A forward may bring at most the policy's
    `max_chunk(cache.kept_limit)` tokens (the limit minus its protected tokens and recall slots). Plans the step, runs the
    forward and advances the cache. Returns the model output (logits for every new token unless
    `logits_to_keep` is passed).
    """
    spec = cache.model_spec or hf.inspect_model(model)
    columns = None if attention_mask is None else attention_mask.to(input_ids.device)
    inputs = hf.step_model_inputs(model, cache, spec, input_ids, columns)
    with torch.no_grad(), hf.attention_tap(model, spec, cache.attention_record, cache.attention_prepare):
        out = model(
            input_ids=input_ids, **hf.cache_argument(cache), use_cache=True, **inputs, **forward_kwargs
        )
    cache.advance()
    return out


def prefill_spans(columns: int, chunk: int, tail: int = 0) -> list[tuple[int, int]]:
    """The column spans `[start, end)` that feed all but the last of `columns` prompt columns in chunks.

    Chunks of at most `chunk` columns are counted back from the last column, so that every row's
    chunks end at the same distances from its last token, whatever its left padding: a row's chunks,
    and so what it evicts before each of them, are the same alone as in any batch. The last `tail`
    columns before the last (at most all of them) come one per span: with recall, each of those
    tokens chooses its recalled blocks by its own query (`prompt_tail`), as a decode step does.
    """
    tail = min(tail, columns - 1)
    head = columns - 1 - tail
    ends = range(head, 0, -chunk)
    return [(max(0, end - chunk), end) for end in reversed(ends)] + [
        (c, c + 1) for c in range(head, columns - 1)
    ]


def prompt_tail(cache: BoundedCache) -> int:
    """The prompt's last columns that `prefill` feeds one per forward: the config's `recall_queries` when
    the cache recalls (a chunk chooses one set of blocks for all its queries, by their mean; a question at
    the prompt's end then chooses by its own), else none."""
    return cache.config.recall_queries if cache.recall_hook is not None else 0


def prefill(
    model: Any, cache: BoundedCache, input_ids: torch.Tensor, attention_mask: torch.Tensor, chunk: int
) -> None:
    """Feed a prompt but its last column through `cache` in the chunks of `prefill_spans` (its last
    `prompt_tail(cache)` columns one by one).

    generate then runs the last column itself (its logits give the first new token), as a decode
    step (one real token per row): transformers slices the prompt by the columns the cache has seen.
    """
    extra = hf.last_logits_only(model)
    for start, end in prefill_spans(input_ids.shape[1], chunk, prompt_tail(cache)):
        # with their mask columns, chunks are planned as prompt chunks (the phase SnapKV reads)
        forward_step(model, cache, input_ids[:, start:end], attention_mask[:, start:end], **extra)


def prefill_chunk(cache: BoundedCache, prompt_length: int, chosen: int | None = None) -> int | None:
    """Tokens per prefill forward for a prompt of `prompt_length` columns: `chosen` (the config's
    `prefill_chunk`), else the policy's default when the prompt is longer than the limit, else None
    (one forward: it fits)."""
    kept = cache.kept_limit
    room = cache.policy.max_chunk(kept)
    if chosen is not None:
        if chosen > room:
            raise ValueError(f"prefill_chunk={chosen} exceeds the {room} unprotected tokens of the cache")
        return int(chosen)
    if prompt_length <= kept:
        return None
    return cache.policy.default_chunk(kept)
