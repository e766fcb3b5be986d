"""Streaming perplexity: what a KV-cache limit costs in quality on a long text.

Contract
--------
Every evaluator feeds one token sequence (batch 1) through a model in chunks of at most `chunk`
tokens and records, for every token i >= 1, its negative log-likelihood (natural log) under the
logits of token i-1; token 0 has no prediction. The result is a `PerplexityResult` whose `nll` has one
entry per evaluated token (`nll[0]` is NaN) and whose `ppl` is exp(mean NLL) over tokens 1..tokens-1.
`segments` repeats that per block of `segment` token indices. Nothing is kept between calls; the model
is only run under `torch.no_grad()`.

- `streaming_perplexity(model, ids, cache_limit=L, policy="sinks"|"window"|"knorm", chunk=q)`: the text goes
  through a `kvlimit.BoundedCache` with `kvlimit.forward_step`, as in bounded generation. Before each
  chunk of q tokens the cache evicts down to L - q, so the j-th query of a chunk (j = 0..q-1) attends to
  L - q + 1 + j keys once the cache is full: every prediction sees at most L tokens, between
  L - q + 1 and L. Positions are in-cache (StreamingLLM). Memory: the L-slot cache plus one chunk.
  `chunk=1` is exact token-by-token streaming; q <= L - n_sink.
- `recompute_perplexity(model, ids, cache_limit=L, chunk=q)`: the gold standard for a window of L
  tokens, sliding window with re-computation. Each chunk [s, s+q) is scored by a fresh forward (no
  cache carried over, positions 0..) over tokens [max(0, s+q-L), s+q): the preceding L - q tokens and the
  chunk. Query j of the chunk therefore sees exactly as many tokens as in `streaming_perplexity` at the
  same L and q (apples to apples); what differs is only which tokens they are (no sinks: the L - q
  most recent ones) and that every key is recomputed for the window, with the window's first token at
  position 0. Costs about L / q times a streaming run.
- `full_perplexity(model, ids, chunk=q)`: the stock unbounded cache (transformers `DynamicCache`), every
  token sees everything before it. Token i is predicted from i tokens; once i exceeds the model's
  trained context (`max_position_embeddings`) the model runs at positions it never saw in training, so
  `beyond_context_from` marks the first such token and `ppl_within_context` / `ppl_beyond_context` split
  the score there. The cache grows by `kvlimit.kv_bytes_per_token(model)` per token: the run stops
  cleanly (result truncated, `note` saying why) before a chunk whose estimated memory would exceed
  `memory_budget` (default: half the RAM available when the run starts, from psutil), or when the
  allocator runs out of memory.

Progress: `progress(event)` is called after every chunk with a `PerplexityProgress` (tokens done and
total, elapsed seconds, running perplexity, tokens the cache or window holds). Invalid arguments raise
`ValueError` naming the parameter. The module logs through ``kvlimit.eval.perplexity`` and never prints.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import psutil
import torch
import torch.nn.functional as F
from transformers import DynamicCache

from ..build import build_cache, trained_context
from ..checks import check_int
from ..config import LimitConfig
from ..forward import forward_step
from ..integrations import hf
from ..policies import EvictionPolicy, default_chunk, policy_names, settings_for
from ..sizing import kv_bytes_per_token

logger = logging.getLogger(__name__)

__all__ = [
    "BASELINES",
    "PerplexityProgress",
    "PerplexityResult",
    "default_chunk",
    "default_memory_budget",
    "full_perplexity",
    "recompute_perplexity",
    "segment_perplexities",
    "streaming_perplexity",
    "trained_context",
]

#: Reference runs: sliding window with re-computation, and the stock unbounded cache.
BASELINES = ("recompute", "full")
#: Default chunk of `full_perplexity`.
FULL_CHUNK = 512
#: Share of the available RAM that `full_perplexity` may use by default.
MEMORY_SHARE = 0.5


@dataclass(frozen=True)
class PerplexityProgress:
    """What `progress` callbacks receive after every chunk.

    Attributes:
        label: the run, e.g. "sinks@256", "recompute@1024", "full".
        done: tokens fed through the model so far.
        total: tokens the run will feed (the input length).
        seconds: time since the run started.
        ppl: perplexity over the tokens scored so far (NaN before the first score).
        cache_tokens: tokens held by the cache after this chunk (recompute: tokens of the last window).
        cache_bytes: bytes of keys and values held (recompute: those of the last window's forward).
    """

    label: str
    done: int
    total: int
    seconds: float
    ppl: float
    cache_tokens: int
    cache_bytes: int

    @property
    def tokens_per_s(self) -> float:
        return self.done / self.seconds if self.seconds > 0 else 0.0


ProgressFn = Callable[[PerplexityProgress], None]


@dataclass
class PerplexityResult:
    """One evaluation run.

    Attributes:
        policy: "sinks", "window" (bounded cache), "recompute" or "full" (baselines); a custom
            `EvictionPolicy` gives its `name`; with a recall tier "sinks+recall64" (its store's bytes
            at the end in `extra["recall_bytes"]`).
        cache_limit: the most tokens any prediction sees (None for "full").
        tokens: tokens evaluated (fed through the model); fewer than requested when "full" stopped.
        ppl: exp(mean NLL) over tokens 1..tokens-1 (NaN when fewer than 2 tokens were evaluated).
        nll: (tokens,) float32 on the CPU: token i's NLL given what its prediction saw; nll[0] is NaN.
        segments: (start, end, ppl) for token indices [start, end), one per `segment` tokens.
        seconds: wall time of the run.
        peak_cache_bytes: the most key/value bytes held at once (bounded: the cache's allocated
            storage; recompute: the K/V its widest forward computes; full: the DynamicCache at the end).
        chunk: tokens per forward.
        n_sink: sink tokens of the "sinks" policy (None otherwise).
        requested_tokens: the input length.
        context_length: the model's trained context (`max_position_embeddings`), None if it has none.
        beyond_context_from: "full" only: the first token index whose prediction saw more than
            `context_length` tokens (= context_length + 1), None when the run did not get there.
        note: why a run stopped early, or None.
    """

    policy: str
    cache_limit: int | None
    tokens: int
    ppl: float
    nll: torch.Tensor
    segments: list[tuple[int, int, float]]
    seconds: float
    peak_cache_bytes: int
    chunk: int
    n_sink: int | None = None
    requested_tokens: int = 0
    context_length: int | None = None
    beyond_context_from: int | None = None
    note: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    kv_dtype: str | None = None

    @property
    def label(self) -> str:
        """The run's name: "sinks@256", "sinks@256:int8" (quantized), "recompute@1024", "full"."""
        name = self.policy if self.cache_limit is None else f"{self.policy}@{self.cache_limit}"
        return name if self.kv_dtype is None else f"{name}:{self.kv_dtype}"

    @property
    def ppl_within_context(self) -> float | None:
        """Perplexity of the tokens before `beyond_context_from` (None when nothing is beyond)."""
        if self.beyond_context_from is None:
            return None
        return _ppl(self.nll[1 : self.beyond_context_from])

    @property
    def ppl_beyond_context(self) -> float | None:
        """Perplexity of the tokens from `beyond_context_from` on (None when nothing is beyond)."""
        if self.beyond_context_from is None:
            return None
        return _ppl(self.nll[self.beyond_context_from :])

    def to_dict(self, *, include_nll: bool = False) -> dict[str, Any]:
        """A JSON-ready summary (NaN becomes None; per-token NLL only with `include_nll`)."""
        data: dict[str, Any] = {
            "label": self.label,
            "policy": self.policy,
            "cache_limit": self.cache_limit,
            "kv_dtype": self.kv_dtype,
            "n_sink": self.n_sink,
            "chunk": self.chunk,
            "tokens": self.tokens,
            "requested_tokens": self.requested_tokens,
            "ppl": _finite(self.ppl),
            "seconds": round(self.seconds, 3),
            "tokens_per_s": round(self.tokens / self.seconds, 2) if self.seconds > 0 else None,
            "peak_cache_bytes": self.peak_cache_bytes,
            "context_length": self.context_length,
            "beyond_context_from": self.beyond_context_from,
            "ppl_within_context": _finite(self.ppl_within_context),
            "ppl_beyond_context": _finite(self.ppl_beyond_context),
            "note": self.note,
            "segments": [
                {"start": start, "end": end, "ppl": _finite(ppl)} for start, end, ppl in self.segments
            ],
        }
        if include_nll:
            data["nll"] = [_finite(v) for v in self.nll.tolist()]
        return data


# --- public evaluators ---------------------------------------------------------------------------


def streaming_perplexity(
    model: Any,
    input_ids: torch.Tensor | Sequence[int],
    *,
    cache_limit: int | LimitConfig,
    policy: str | EvictionPolicy = "sinks",
    n_sink: int = 4,
    n_recent: int | None = None,
    chunk: int | None = None,
    segment: int = 1000,
    progress: ProgressFn | None = None,
    kv_dtype: str | None = None,
    kv_group: int | None = None,
) -> PerplexityResult:
    """Perplexity of `input_ids` streamed through a bounded cache of `cache_limit` tokens.

    Args:
        model: a causal LM of a family kvlimit supports.
        input_ids: the token ids of one text, (n,) or (1, n), n >= 2.
        cache_limit: tokens the cache holds; every prediction sees at most this many. Or a
            `LimitConfig` (a limit in tokens) that carries the policy and the storage: then `policy`,
            `n_sink`, `n_recent`, `kv_dtype` and `kv_group` are not used.
        policy: "sinks" (first `n_sink` tokens + the most recent), "window", "knorm" (per layer: sinks,
            recent tokens, then the keys of smallest norm), or an `EvictionPolicy`.
        n_sink: sink tokens of the "sinks" and "knorm" policies (ignored by "window").
        n_recent: newest tokens "knorm" keeps by recency (default: a quarter of the limit).
        chunk: tokens per forward, at most `cache_limit` minus the protected tokens
            (default `default_chunk(cache_limit)`: a quarter of the limit).
        segment: tokens per entry of `segments`.
        progress: called after every chunk with a `PerplexityProgress`.
        kv_dtype, kv_group: quantized storage, as for `kvlimit.generate` (None: the model's dtype).
    """
    ids = _as_ids(input_ids, model)
    _check_positive(segment, "segment")
    if isinstance(cache_limit, LimitConfig):
        config = cache_limit
        if config.cache_limit_tokens is None:
            raise ValueError("cache_limit: a LimitConfig for streaming_perplexity needs its limit in tokens")
        cache_limit, kv_dtype = config.cache_limit_tokens, config.kv_dtype
    else:
        _check_positive(cache_limit, "cache_limit")
        config = _config(cache_limit, policy, n_sink, n_recent, kv_dtype, kv_group)
    pol = config.policy
    protected = pol.protected_tokens
    kept = cache_limit - config.recall  # the recall tier's slots hold recalled tokens, not kept ones
    room = pol.max_chunk(kept)
    chunk = pol.default_chunk(kept) if chunk is None else chunk
    _check_positive(chunk, "chunk")
    if chunk > room:
        raise ValueError(
            f"chunk={chunk} does not fit cache_limit={cache_limit} with {protected} protected tokens; "
            f"use chunk <= {room}"
        )
    cache = build_cache(model, config)
    name = f"{pol.name}+recall{config.recall}" if config.recall else pol.name
    if config.recall and config.recall_positions != "distance":  # the default placement is unnamed
        name += f"/{config.recall_positions}"
    label = f"{name}@{cache_limit}" + (f":{kv_dtype}" if kv_dtype else "")
    n = ids.numel()
    run = _Run(label, n, progress)
    logger.info("%s: %d tokens, chunk %d, %s", label, n, chunk, pol.describe())
    peak = 0
    for start in range(0, n, chunk):
        piece = ids[start : start + chunk]
        out = forward_step(model, cache, piece[None])
        run.score(out.logits[0], ids, start)
        del out
        peak = max(peak, cache.nbytes())
        held = cache.stored_tokens()[0]
        run.report(start + piece.numel(), held, cache.nbytes())
    result = run.result(
        policy=name,
        cache_limit=cache_limit,
        chunk=chunk,
        peak_cache_bytes=peak,
        n_sink=protected if "n_sink" in pol.settings() else None,
        context_length=trained_context(model),
        segment=segment,
        kv_dtype=kv_dtype,
    )
    if config.recall:  # the store apart from the attended cache
        result.extra.update(recall=config.recall, recall_bytes=cache.recall_nbytes())
    return result


def _config(
    cache_limit: int,
    policy: str | EvictionPolicy,
    n_sink: int,
    n_recent: int | None,
    kv_dtype: str | None,
    kv_group: int | None,
) -> LimitConfig:
    if isinstance(policy, str) and policy.strip().lower() in BASELINES:
        raise ValueError(
            f"policy={policy!r} is a baseline: call recompute_perplexity or full_perplexity "
            f"(streaming_perplexity takes {', '.join(policy_names())} or an EvictionPolicy)"
        )
    if isinstance(policy, EvictionPolicy):
        return LimitConfig.create(cache_limit, policy, kv_dtype=kv_dtype, kv_group=kv_group)
    # n_sink has a default, so it goes only to policies that take it; an explicit n_recent must fit
    settings = settings_for(policy, n_sink=n_sink) if isinstance(policy, str) else {}
    return LimitConfig.create(
        cache_limit, policy, n_recent=n_recent, kv_dtype=kv_dtype, kv_group=kv_group, **settings
    )


def recompute_perplexity(
    model: Any,
    input_ids: torch.Tensor | Sequence[int],
    *,
    cache_limit: int,
    chunk: int | None = None,
    segment: int = 1000,
    progress: ProgressFn | None = None,
) -> PerplexityResult:
    """Sliding window with re-computation over `cache_limit` tokens: the gold standard for that window.

    Each chunk [s, s+q) is scored after a fresh forward over tokens [max(0, s+q-cache_limit), s+q), so
    every prediction sees the same number of tokens as `streaming_perplexity` with the same
    `cache_limit` and `chunk` (default `default_chunk(cache_limit, 4)`, the sinks default); the model
    runs at positions 0..cache_limit-1. Works for any causal LM (no kvlimit support needed).
    """
    ids = _as_ids(input_ids, model)
    _check_positive(cache_limit, "cache_limit")
    _check_positive(segment, "segment")
    chunk = default_chunk(cache_limit, 4) if chunk is None else chunk
    _check_positive(chunk, "chunk")
    if chunk > cache_limit:
        raise ValueError(f"chunk={chunk} is larger than the window cache_limit={cache_limit}")
    n = ids.numel()
    label = f"recompute@{cache_limit}"
    run = _Run(label, n, progress)
    keep_logits = hf.takes_logits_to_keep(model)
    per_token = kv_bytes_per_token(model)
    logger.info("%s: %d tokens, chunk %d", label, n, chunk)
    widest = 0
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        first = max(0, stop - cache_limit)
        window = ids[first:stop][None]
        kwargs: dict[str, Any] = {"logits_to_keep": stop - start} if keep_logits else {}
        with torch.no_grad():
            out = model(input_ids=window, use_cache=False, **kwargs)
        logits = out.logits[0, -(stop - start) :]
        run.score(logits, ids, start)
        del out, logits
        widest = max(widest, stop - first)
        run.report(stop, stop - first, (stop - first) * per_token)
    return run.result(
        policy="recompute",
        cache_limit=cache_limit,
        chunk=chunk,
        peak_cache_bytes=widest * per_token,
        context_length=trained_context(model),
        segment=segment,
    )


def full_perplexity(
    model: Any,
    input_ids: torch.Tensor | Sequence[int],
    *,
    chunk: int = FULL_CHUNK,
    segment: int = 1000,
    memory_budget: int | None = None,
    progress: ProgressFn | None = None,
) -> PerplexityResult:
    """Perplexity with the stock unbounded `DynamicCache`, as far as memory allows.

    Marks the tokens predicted past the model's trained context (`beyond_context_from`). Stops early,
    with a `note` and a truncated result, before a chunk whose estimated memory (cache, attention
    scores, logits) would exceed `memory_budget` bytes (default `default_memory_budget()`), or on an
    out-of-memory error.
    """
    ids = _as_ids(input_ids, model)
    _check_positive(chunk, "chunk")
    _check_positive(segment, "segment")
    budget = default_memory_budget() if memory_budget is None else memory_budget
    _check_positive(budget, "memory_budget")
    n = ids.numel()
    run = _Run("full", n, progress)
    config = hf.text_config(model)
    per_token = kv_bytes_per_token(model)
    heads = int(getattr(config, "num_attention_heads", 1) or 1)
    vocab = int(getattr(config, "vocab_size", 1) or 1)
    cache = DynamicCache(config=config)
    logger.info("full: %d tokens, chunk %d, memory budget %d bytes", n, chunk, budget)
    done = 0
    note = None
    peak = 0
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        q = stop - start
        # the cache after this chunk, plus float32 attention scores/probabilities and logits
        need = stop * per_token + 2 * heads * q * stop * 4 + 2 * q * vocab * 4
        if need > budget:
            note = (
                f"stopped after {start} tokens: the next chunk needs about {need / 2**20:.0f} MiB "
                f"(unbounded cache {stop * per_token / 2**20:.0f} MiB), over the memory budget of "
                f"{budget / 2**20:.0f} MiB"
            )
            break
        try:
            with torch.no_grad():
                out = model(input_ids=ids[start:stop][None], **hf.cache_argument(cache), use_cache=True)
        except (MemoryError, RuntimeError) as exc:
            if not _is_oom(exc):
                raise
            note = f"stopped after {start} tokens: out of memory ({str(exc).splitlines()[0][:120]})"
            break
        run.score(out.logits[0], ids, start)
        del out
        done = stop
        peak = max(peak, hf.kv_bytes(cache))
        run.report(stop, cache.get_seq_length(), hf.kv_bytes(cache))
    if note is not None:
        logger.warning("full: %s", note)
    del cache
    context = trained_context(model)
    result = run.result(
        policy="full",
        cache_limit=None,
        chunk=chunk,
        peak_cache_bytes=peak,
        context_length=context,
        segment=segment,
        tokens=done,
        note=note,
    )
    if context is not None and result.tokens > context + 1:
        result.beyond_context_from = context + 1
    return result


# --- helpers --------------------------------------------------------------------------------------


def default_memory_budget() -> int:
    """Half the RAM available now (psutil): what `full_perplexity` may use by default."""
    return int(psutil.virtual_memory().available * MEMORY_SHARE)


def segment_perplexities(nll: torch.Tensor, segment: int) -> list[tuple[int, int, float]]:
    """(start, end, ppl) per block of `segment` token indices; NaN entries (token 0) are skipped."""
    _check_positive(segment, "segment")
    out = []
    for start in range(0, nll.numel(), segment):
        end = min(start + segment, nll.numel())
        values = nll[start:end]
        values = values[~values.isnan()]
        if values.numel():
            out.append((start, end, _ppl(values)))
    return out


class _Run:
    """Per-token NLL bookkeeping, running perplexity and progress reports for one run."""

    def __init__(self, label: str, total: int, progress: ProgressFn | None):
        self.label = label
        self.total = total
        self.progress = progress
        self.nll = torch.full((total,), float("nan"), dtype=torch.float32)
        self.sum = 0.0
        self.count = 0
        self.started = time.perf_counter()

    def score(self, logits: torch.Tensor, ids: torch.Tensor, start: int) -> None:
        """`logits` (q, vocab) of tokens start..start+q-1 predict tokens start+1..start+q."""
        targets = ids[start + 1 : start + 1 + logits.shape[0]]
        if targets.numel() == 0:
            return
        values = F.cross_entropy(logits[: targets.numel()].float(), targets, reduction="none").cpu()
        self.nll[start + 1 : start + 1 + targets.numel()] = values
        self.sum += float(values.double().sum())
        self.count += targets.numel()

    def report(self, done: int, cache_tokens: int, cache_bytes: int) -> None:
        if self.progress is None:
            return
        ppl = math.exp(self.sum / self.count) if self.count else float("nan")
        seconds = time.perf_counter() - self.started
        self.progress(
            PerplexityProgress(self.label, done, self.total, seconds, ppl, cache_tokens, cache_bytes)
        )

    def result(
        self,
        *,
        policy: str,
        cache_limit: int | None,
        chunk: int,
        peak_cache_bytes: int,
        segment: int,
        context_length: int | None,
        n_sink: int | None = None,
        tokens: int | None = None,
        note: str | None = None,
        kv_dtype: str | None = None,
    ) -> PerplexityResult:
        seconds = time.perf_counter() - self.started
        evaluated = self.total if tokens is None else tokens
        nll = self.nll[:evaluated].clone()
        result = PerplexityResult(
            policy=policy,
            cache_limit=cache_limit,
            tokens=evaluated,
            ppl=_ppl(nll[1:]),
            nll=nll,
            segments=segment_perplexities(nll, segment),
            seconds=seconds,
            peak_cache_bytes=peak_cache_bytes,
            chunk=chunk,
            n_sink=n_sink,
            requested_tokens=self.total,
            context_length=context_length,
            note=note,
            kv_dtype=kv_dtype,
        )
        logger.info(
            "%s: ppl %.4f over %d tokens in %.1f s", self.label, result.ppl, result.tokens, result.seconds
        )
        return result


def _as_ids(input_ids: torch.Tensor | Sequence[int], model: Any) -> torch.Tensor:
    """The ids as a 1-D long tensor on the model's device."""
    ids = input_ids if isinstance(input_ids, torch.Tensor) else torch.tensor(list(input_ids))
    if ids.ndim == 2 and ids.shape[0] == 1:
        ids = ids[0]
    if ids.ndim != 1:
        raise ValueError(f"input_ids must be one sequence, shape (n,) or (1, n); got {tuple(ids.shape)}")
    if ids.dtype not in (torch.long, torch.int32, torch.int64):
        raise ValueError(f"input_ids must be integer token ids; got dtype {ids.dtype}")
    if ids.numel() < 2:
        raise ValueError(f"input_ids needs at least 2 tokens to score one; got {ids.numel()}")
    device = next(iter(model.parameters())).device
    return ids.long().to(device)


def _check_positive(value: Any, name: str) -> None:
    check_int(name, value, at_least=1, allowed="a positive int")


def _ppl(values: torch.Tensor) -> float:
    values = values[~values.isnan()]
    if values.numel() == 0:
        return float("nan")
    return math.exp(float(values.double().mean()))


def _finite(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), 6)


def _is_oom(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError | torch.OutOfMemoryError):
        return True
    text = str(exc).lower()
    return "out of memory" in text or "can't allocate memory" in text or "cannot allocate memory" in text
