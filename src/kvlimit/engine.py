"""Continuous batching on a bounded cache: a finished row takes the next prompt at once.

Contract
--------
`ContinuousEngine(model, config, rows=R, decoding=...)` runs requests (`Request`: an id and the
prompt's token ids) through one `BoundedCache` of R rows; `run(requests)` yields a `Finished` for
each (request, sequence) as soon as it ends, in the order they end. Every step decodes every active
row in one forward. A row that ends (end of sequence, `max_new_tokens`, a stop string) takes the
next prompt at once: the prompt is prefilled alone, in a one-row cache built from the same config
(in bounded chunks when it is longer than the limit, exactly as `kvlimit.generate` plans it), and
its row state is loaded into the finished row's place (`BoundedCache.load_row`: counters, kept
slots, keys and values, positions, the recall store's blocks). The batch's cache is allocated once;
when no prompt is left, finished rows leave the batch.

Each sequence is its own. Its decoding rules (logits processors, stopping criteria) are those
transformers' generate prepares for its prompt alone (`integrations.hf.prepared_rules`), and sampling
draws from a generator of its own, seeded with `sequence_seed(seed, id, sequence)`. So a sequence's
tokens are those of::

    transformers.set_seed(kvlimit.sequence_seed(seed, id, k))
    kvlimit.generate(model, input_ids=prompt, cache_limit=..., **decoding)   # the prompt alone

(up to the float noise of a batched forward, as for any batch), whatever its batch mates, the order
of the requests, R, or a resume.

Why prefill alone rather than beside the others' decoding in one forward: a joint forward pads every
row to the prompt's width, R x prompt tokens of work for one prompt's worth, and a prompt alone is
planned exactly as `kvlimit.generate` plans it.

Not here: beam search (it stays on static batches, `kvlimit.jobs`), and models that keep
transformers' own sliding-window layers (window smaller than the limit: those layers hold every
column of the batch, so a row cannot be replaced); both are refused with an error that says so.
"""

from __future__ import annotations

import hashlib
import logging
import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from .build import build_cache
from .cache import BoundedCache
from .checks import check_int
from .config import LimitConfig
from .forward import forward_step, prefill, prefill_chunk
from .integrations import hf
from .sizing import token_limit

logger = logging.getLogger(__name__)

#: generate's arguments the engine takes from `decoding` (the rest are refused by name).
DECODING_ARGUMENTS = frozenset({
    "max_new_tokens", "min_new_tokens", "do_sample", "temperature", "top_k", "top_p", "min_p",
    "typical_p", "repetition_penalty", "no_repeat_ngram_size", "bad_words_ids", "stop_strings",
    "eos_token_id", "pad_token_id", "num_beams", "suppress_tokens", "begin_suppress_tokens",
})  # fmt: skip


BEAMS_REFUSED = (
    "num_beams > 1: beam search runs on static batches (kvlimit.jobs, or --batching static), "
    "not on the continuous engine"
)


def sliding_refusal(cache: BoundedCache) -> str | None:
    """Why a cache built like `cache` cannot run continuously (transformers' own sliding-window layers
    hold every column of the batch, so a row cannot be replaced), or None."""
    if not cache.sliding_indices:
        return None
    window = min(cache.layout.sliding_windows[i] or 0 for i in cache.sliding_indices)
    return (
        f"continuous batching needs every layer bounded, but at cache_limit {cache.cache_limit} this model "
        f"keeps transformers' own sliding-window layers (window {window}); use cache_limit <= {window}, "
        "or static batches"
    )


def continuous_refusal(model: Any, config: LimitConfig, decoding: dict[str, Any]) -> str | None:
    """Why `ContinuousEngine` cannot run `model` with this config and decoding, or None."""
    if int(decoding.get("num_beams", 1)) != 1:
        return BEAMS_REFUSED
    return sliding_refusal(build_cache(model, config, rows=1))


def sequence_seed(seed: int, prompt_id: str, sequence: int = 0) -> int:
    """The seed of sequence `sequence` of prompt `prompt_id` in a run seeded with `seed`: a function
    of these three alone (not of the batch, the order or the run), below 2**32 (what
    `transformers.set_seed` takes)."""
    digest = hashlib.sha256(f"{seed}\x00{prompt_id}\x00{sequence}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


@dataclass(frozen=True)
class Request:
    """One prompt: its id (unique within a run) and its token ids."""

    id: str
    input_ids: list[int]


@dataclass
class Finished:
    """One finished sequence.

    Attributes:
        id / sequence: the request's id and the sequence's number (0 .. num_return_sequences - 1).
        tokens: the new tokens, the one that stopped it included (an end-of-sequence token).
        stop_reason: "eos", "max_new_tokens" or "stop_string".
        seconds: from the start of the prompt's prefill to the sequence's last token.
    """

    id: str
    sequence: int
    tokens: list[int]
    stop_reason: str
    seconds: float


@dataclass
class _Row:
    """A sequence in flight: its rules, its generator and its tokens so far (1, prompt + new)."""

    request: Request
    sequence: int
    rules: hf.DecodingRules
    generator: torch.Generator | None
    ids: torch.Tensor
    started: float
    own: Any = field(init=False)  # a LogitsProcessorList
    warpers: Any = field(init=False)
    warpers_key: tuple[Any, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.own, self.warpers, self.warpers_key = self.rules.own, self.rules.warpers, self.rules.warpers_key

    @property
    def new_tokens(self) -> list[int]:
        return [int(t) for t in self.ids[0, len(self.request.input_ids) :].tolist()]


class ContinuousEngine:
    """Continuous batching of many prompts on one bounded cache (see the module docstring).

    Args:
        model: a transformers causal LM of a supported family.
        config: the cache's `LimitConfig` (a byte budget is resolved once, for `rows` rows and the
            one-row prefill cache).
        rows: sequences decoded at once.
        decoding: generate's decoding arguments (`max_new_tokens`, `do_sample`, `temperature`,
            `top_k`, `top_p`, `repetition_penalty`, `min_new_tokens`, `stop_strings`, ...).
        num_return_sequences: sequences per prompt (sampling), each in a row of its own.
        seed: the run's seed (None: a random one, logged).
        tokenizer: needed for `stop_strings`.
    """

    def __init__(
        self,
        model: Any,
        config: LimitConfig,
        *,
        rows: int,
        decoding: dict[str, Any] | None = None,
        num_return_sequences: int = 1,
        seed: int | None = None,
        tokenizer: Any = None,
    ):
        if not isinstance(config, LimitConfig):
            raise ValueError(f"config must be a kvlimit.LimitConfig; got {type(config).__name__}")
        check_int("rows", rows, at_least=1)
        check_int("num_return_sequences", num_return_sequences, at_least=1)
        decoding = dict(decoding or {})
        unknown = sorted(set(decoding) - DECODING_ARGUMENTS)
        if unknown:
            raise ValueError(
                f"decoding arguments {unknown} are not taken by the continuous engine; it takes "
                f"{sorted(DECODING_ARGUMENTS)}"
            )
        if int(decoding.get("num_beams", 1)) != 1:
            raise ValueError(BEAMS_REFUSED)
        if num_return_sequences > 1 and not decoding.get("do_sample", False):
            raise ValueError(
                "num_return_sequences > 1 needs do_sample=True (greedy search gives one sequence)"
            )
        if num_return_sequences > rows:
            raise ValueError(f"num_return_sequences={num_return_sequences} exceeds rows={rows}")
        self.model = model
        # a byte budget holds the batch's rows and the one-row cache prompts are prefilled in
        self.config = config.with_tokens(token_limit(model, config, rows + 1))
        self.rows = rows
        self.decoding = decoding
        self.num_return_sequences = num_return_sequences
        self.seed = random.SystemRandom().randrange(1 << 63) if seed is None else seed
        if seed is None:
            logger.info("kvlimit: continuous engine seeded with %d", self.seed)
        self.tokenizer = tokenizer
        self.device = next(model.parameters()).device
        self._forward_extra = hf.last_logits_only(model)
        self._scratch = self._new_cache(1)
        refusal = sliding_refusal(self._scratch)
        if refusal is not None:
            raise ValueError(refusal)
        #: rows decoding in the current step, for a progress display
        self.active = 0
        #: the most bytes of keys and values the run's caches held (the batch's and the prefill's)
        self.kv_bytes = 0
        self.cache: BoundedCache | None = None

    def _new_cache(self, rows: int) -> BoundedCache:
        return build_cache(self.model, self.config, rows=rows)

    # --- the loop -----------------------------------------------------------------------------
    def run(self, requests: Iterable[Request]) -> Iterator[Finished]:
        """Generate every request; yield each sequence as it finishes (see the module docstring)."""
        pending = iter(requests)
        cache = self.cache = self._new_cache(self.rows)
        cache.open_rows(self.rows, self.device)
        rows: list[_Row | None] = [None] * self.rows
        next_tokens = torch.zeros((self.rows, 1), dtype=torch.long, device=self.device)
        exhausted = False
        while True:
            while not exhausted and sum(r is None for r in rows) >= self.num_return_sequences:
                request = next(pending, None)
                if request is None:
                    exhausted = True
                    break
                yield from self._admit(request, rows, next_tokens)
            if exhausted and any(r is None for r in rows):  # nothing left to admit: shrink the batch
                keep = [b for b, row in enumerate(rows) if row is not None]
                if not keep:
                    return
                cache.batch_select_indices(torch.tensor(keep, device=self.device))
                rows = [rows[b] for b in keep]
                next_tokens = next_tokens[keep]
            self.active = sum(r is not None for r in rows)
            self.kv_bytes = max(self.kv_bytes, cache.nbytes() + self._scratch.nbytes())
            yield from self._step(cache, rows, next_tokens)

    def _step(
        self, cache: BoundedCache, rows: list[_Row | None], next_tokens: torch.Tensor
    ) -> Iterator[Finished]:
        """One decode forward of every row; rows that end are emptied and their sequences yielded.
        A free row (waiting for a prompt) decodes too; its token is never read."""
        out = forward_step(self.model, cache, next_tokens, **self._forward_extra)
        live = [b for b, row in enumerate(rows) if row is not None]
        active = [row for row in rows if row is not None]
        tokens, done = self._choose(active, self._scores(active, out.logits[live, -1, :]))
        next_tokens[live, 0] = tokens
        for b, row, ended in zip(live, active, done, strict=True):
            if ended:
                rows[b] = None
                yield self._finished(row)

    @staticmethod
    def _scores(rows: list[_Row], logits: torch.Tensor) -> torch.Tensor:
        """The rows' processed scores (n, vocab) from their logits (n, vocab), as transformers' `_sample`
        makes them for each row alone: the processors that read a row's tokens row by row, then the
        score-only warpers (temperature, top-k, top-p) on every row at once where they agree (they act
        on each row apart, so a row's scores are those of its own batch of one)."""
        logits = logits.to(copy=True, dtype=torch.float32)
        own = logits
        if any(row.own for row in rows):
            own = torch.cat(
                [hf.apply_processors(row.own, row.ids, logits[i : i + 1]) for i, row in enumerate(rows)]
            )
        if len({row.warpers_key for row in rows}) == 1:
            return hf.apply_processors(rows[0].warpers, rows[0].ids, own)
        return torch.cat(
            [hf.apply_processors(row.warpers, row.ids, own[i : i + 1]) for i, row in enumerate(rows)]
        )

    def _admit(
        self, request: Request, rows: list[_Row | None], next_tokens: torch.Tensor
    ) -> Iterator[Finished]:
        """Prefill `request` alone, choose each sequence's first token, and load every sequence that
        goes on into a free row."""
        if not request.input_ids:
            raise ValueError(f"request {request.id!r} has no prompt tokens")
        started = time.perf_counter()
        ids = torch.tensor([request.input_ids], dtype=torch.long, device=self.device)
        logits = self._prefill(ids)
        rules = hf.prepared_rules(self.model, ids, tokenizer=self.tokenizer, **self.decoding)
        assert self.cache is not None
        for sequence in range(self.num_return_sequences):
            generator = None
            if rules.config.do_sample:
                generator = torch.Generator(device=self.device)
                generator.manual_seed(sequence_seed(self.seed, request.id, sequence))
            row = _Row(request, sequence, rules, generator, ids, started)
            tokens, done = self._choose([row], self._scores([row], logits))
            if done[0]:
                yield self._finished(row)
                continue
            b = rows.index(None)
            self.cache.load_row(b, self._scratch, 0)
            rows[b] = row
            next_tokens[b, 0] = tokens[0]

    def _prefill(self, ids: torch.Tensor) -> torch.Tensor:
        """The prompt `ids` (1, n) through the one-row cache as `kvlimit.generate` feeds it; the last
        position's logits (1, vocab)."""
        scratch = self._scratch
        scratch.reset()
        chunk = prefill_chunk(scratch, ids.shape[1], self.config.prefill_chunk)
        if chunk is not None:  # all but the last column in chunks, the last as a decode step
            prefill(self.model, scratch, ids, torch.ones_like(ids), chunk)
            ids = ids[:, -1:]
        out = forward_step(self.model, scratch, ids, **self._forward_extra)
        logits: torch.Tensor = out.logits[:, -1, :]
        return logits

    @staticmethod
    def _choose(rows: list[_Row], scores: torch.Tensor) -> tuple[torch.Tensor, list[bool]]:
        """The rows' next tokens (n,) from their processed scores (n, vocab), each as transformers'
        `_sample` chooses for a batch of one (a sampling row draws from its own generator), and which
        rows are done: every row's stopping criteria, read with one host synchronisation."""
        tokens = torch.argmax(scores, dim=-1)
        stops = []
        for i, row in enumerate(rows):
            if row.generator is not None:
                probs = torch.nn.functional.softmax(scores[i : i + 1], dim=-1)
                tokens[i] = torch.multinomial(probs, num_samples=1, generator=row.generator)[0, 0]
            row.ids = torch.cat((row.ids, tokens[i : i + 1, None]), dim=1)
            stops.append(row.rules.stopping(row.ids, scores[i : i + 1]))
        return tokens, torch.cat(stops).tolist()

    def _finished(self, row: _Row) -> Finished:
        tokens = row.new_tokens
        if tokens and tokens[-1] in hf.eos_token_ids(row.rules.config.eos_token_id):
            reason = "eos"
        elif row.ids.shape[1] >= int(row.rules.config.max_length):
            reason = "max_new_tokens"
        else:
            reason = "stop_string"
        return Finished(
            row.request.id, row.sequence, tokens, reason, round(time.perf_counter() - row.started, 3)
        )
