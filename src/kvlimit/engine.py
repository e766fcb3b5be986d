"""Continuous batching on a bounded cache: a finished row takes the next prompt at once.

Contract
--------
`ContinuousEngine(model, config, rows=R, decoding=...)` runs requests (`Request`: an id and the
prompt's token ids; optionally decoding settings, a seed, a number of sequences and log-probabilities
of its own) through one `BoundedCache` of R rows. Two ways to drive it, from one thread:

- `run(requests)` yields a `Finished` for each (request, sequence) as soon as it ends, in the order
  they end: the requests are taken as rows free up, and when none is left finished rows leave the batch.
- live (a server's loop): `submit(request)` queues a request (its decoding rules are prepared at once,
  so a bad one is a `ValueError` here), `cancel(id)` ends one wherever it is (queued, prefilling or
  decoding: its rows are free for the next step), and each `step()` does one piece of work and returns
  what it made, in order: a `Token` for every new token of every sequence, a `Finished` for every
  sequence that ended. The rows stay in the batch (a free row decodes too; its token is never read).

A step feeds prompt pieces through the prefill (the queue's head first, once the rows have room for its
sequences): one piece, and more while they add up to at most the config's `prefill_chunk` tokens (without
one, the chunk the prompt is fed in: so the one-token pieces of a recalling prompt's tail, `prompt_tail`,
share a step), then decodes every active row in one forward. Prompts are prefilled in a cache of their own built from the
same config, in the chunks `kvlimit.generate` feeds them in (the config's `prefill_chunk`; else, when
longer than the limit, the policy's; else whole), so a long prompt costs the decoding rows one chunk's
forward per step rather than its whole prefill. Several prompts are prefilled together: the queue's
head and those after it, up to `prefill_rows` (default 4), while their sequences fit the free rows,
each is fed in as many pieces as the group (none waits for another's chunks), and a piece of the group
(rows x columns, `prefill_chunk` counting columns as in `kvlimit.generate`) holds at most
`max(limit, prefill_chunk, ADMITTED_TOKENS)` tokens.
They are left-padded to one width, which keeps each row as it is alone (kvlimit plans a padded row as
the prompt by itself; chunks are counted back from the last column). A prompt's last column's logits
give each sequence's first token, and its row state is loaded into a free row
(`BoundedCache.load_row`: counters, kept slots, keys and values, positions, the recall store's
blocks). The batch's cache is allocated once; a byte budget holds the batch's rows and the
`prefill_rows` rows prompts are prefilled in. The first group (before the batch has decoded anything:
`run` then takes up to R requests) is prefilled in the batch's own rows instead, each sequence in a
row of its own, when its sequences fill more than half of them: one forward and nothing to load, as a
static batch starts (rows no sequence takes are fed a copy of a prompt; their tokens are never read).

`prefill_rows=0`: no prefill cache. A free row's bytes are idle while the next prompt is prefilled, so
the prompts are prefilled in the batch's own free rows: the prefill cache's storage is then a run of
consecutive free rows of the batch's (`KVStore.borrow_rows`: views; its other state, small, stays its
own), one prompt a row (the queue's head and those after it, as above, while the run has rows), and
`load_row` copies each row's state but not its storage, which is already there (a prompt's other
sequences are copied into free rows outside the run). A group is fed whole in the step that starts it,
before the decode forward: that forward writes every row, free ones included, so a prompt's storage
must be whole and its row decoding by then; and groups are started while prompts wait and rows are
free (a free row's share of the forward is wasted). A byte budget then holds the batch's rows alone, and a long
prompt holds the decoding rows for its whole prefill (chunk after chunk in one step) where a prefill
cache costs them one chunk a step. The first group is always prefilled in the batch's own rows.

Each sequence is its own. Its decoding rules (logits processors, stopping criteria) are those
transformers' generate prepares for its prompt alone (`integrations.hf.prepared_rules`) with the
engine's decoding arguments updated by the request's, and sampling draws from a generator of its own,
seeded with `sequence_seed(seed, id, sequence)` (the engine's seed), or `sequence_seed(request.seed,
"", sequence)` for a request that carries its own seed (a function of that seed alone, whatever its
id). So a sequence's tokens are those of::

    transformers.set_seed(kvlimit.sequence_seed(seed, id, k))
    kvlimit.generate(model, input_ids=prompt, cache_limit=..., **decoding)   # the prompt alone

(up to the float noise of a batched forward, as for any batch), whatever its batch mates, the order
of the requests, R, the steps at which it was submitted, or a resume. Why sequences end: the one rule
of `kvlimit.frontend.stop_reason` ("eos", "stop_string", "max_new_tokens"), or "cancelled".
Log-probabilities (`Request.logprobs`) are the model's own (its logits' log-softmax, before
temperature and the other processors) of the chosen token and of the most likely ones.

Why prefill apart rather than beside the others' decoding in one forward: a joint forward pads every
row to the prompt's width, R x prompt tokens of work for one prompt's worth. Why several prompts in one
forward rather than one a step: a forward of a few short prompts costs about what one costs where the
forward is bound by its fixed work (a GPU, a small model), and every row admitted a step later decodes
a step longer (`benchmarks/engine_host.py`: 16 rows admitted one a step ran at 0.77x a static batch).

Not here: beam search (it stays on static batches, `kvlimit.jobs`), and models that keep
transformers' own sliding-window layers (window smaller than the limit: those layers hold every
column of the batch, so a row cannot be replaced); both are refused with an error that says so.
"""

from __future__ import annotations

import hashlib
import logging
import random
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from transformers import StopStringCriteria

from .build import build_cache
from .cache import BoundedCache
from .cache.compiled import compile_blocker
from .checks import check_int
from .choice import RowChoice
from .config import LimitConfig
from .forward import forward_step, prefill_chunk, prefill_spans, prompt_tail
from .frontend import left_padded, stop_reason
from .integrations import hf
from .sizing import token_limit

logger = logging.getLogger(__name__)

#: generate's arguments the engine takes from `decoding` (the rest are refused by name).
DECODING_ARGUMENTS = frozenset({
    "max_new_tokens", "min_new_tokens", "do_sample", "temperature", "top_k", "top_p", "min_p",
    "typical_p", "repetition_penalty", "no_repeat_ngram_size", "bad_words_ids", "stop_strings",
    "eos_token_id", "pad_token_id", "num_beams", "suppress_tokens", "begin_suppress_tokens",
})  # fmt: skip


#: Prompts prefilled together in one forward at most, by default (`ContinuousEngine(prefill_rows=)`).
PREFILL_ROWS = 4
#: Padded prompt tokens one forward prefills together at most (or the limit, when larger): what a
#: group of prompts admitted at once costs the decoding rows in one step.
ADMITTED_TOKENS = 256

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


def check_decoding(decoding: Mapping[str, Any], sequences: int, rows: int, *, name: str) -> None:
    """Refuse, naming it, what the engine cannot run: arguments it does not take, beam search, several
    greedy sequences, more sequences (`name`) than rows."""
    unknown = sorted(set(decoding) - DECODING_ARGUMENTS)
    if unknown:
        raise ValueError(
            f"decoding arguments {unknown} are not taken by the continuous engine; it takes "
            f"{sorted(DECODING_ARGUMENTS)}"
        )
    if int(decoding.get("num_beams", 1)) != 1:
        raise ValueError(BEAMS_REFUSED)
    check_int(name, sequences, at_least=1)
    if sequences > 1 and not decoding.get("do_sample", False):
        raise ValueError(f"{name} > 1 needs do_sample=True (greedy search gives one sequence)")
    if sequences > rows:
        raise ValueError(f"{name}={sequences} exceeds rows={rows}")


@dataclass(frozen=True)
class Request:
    """One prompt: its id (unique among the requests in flight, and within a run) and its token ids.

    Optional, for this request alone (None: the engine's):
        decoding: generate's decoding arguments, over the engine's (`DECODING_ARGUMENTS`).
        seed: sequence k samples from `sequence_seed(seed, "", k)`: the same text for the same seed,
            whatever the request's id.
        sequences: sequences of this prompt (sampling), each in a row of its own.
        logprobs: give each new token's log-probability and those of the `logprobs` most likely tokens.
    """

    id: str
    input_ids: list[int]
    decoding: Mapping[str, Any] | None = None
    seed: int | None = None
    sequences: int | None = None
    logprobs: int | None = None


@dataclass
class Token:
    """One new token of one sequence, as it is made. `logprob` and `top_logprobs` ((token, log-probability),
    most likely first) where the request asked for them."""

    id: str
    sequence: int
    token: int
    logprob: float | None = None
    top_logprobs: list[tuple[int, float]] | None = None


@dataclass
class Finished:
    """One finished sequence.

    Attributes:
        id / sequence: the request's id and the sequence's number (0 .. sequences - 1).
        tokens: the new tokens, the one that stopped it included (an end-of-sequence token).
        stop_reason: "eos", "max_new_tokens", "stop_string" (`kvlimit.frontend.stop_reason`) or "cancelled".
        seconds: from the start of the prompt's prefill to the sequence's last token.
    """

    id: str
    sequence: int
    tokens: list[int]
    stop_reason: str
    seconds: float


@dataclass
class _Queued:
    """A submitted request, its rules prepared: the prompt (1, n), its sequences and its seed's parts."""

    request: Request
    ids: torch.Tensor
    rules: hf.DecodingRules
    sequences: int
    seed: tuple[int, str]


@dataclass
class _Prefill:
    """Prompts being prefilled together, each member from row k of the cache it is prefilled in (those
    still wanted: a cancelled one leaves), left-padded to one width: `ids` and `mask` (rows, width), and
    the column spans still to feed (the last gives the logits). `in_place`: the cache is the batch's own
    (a member's sequences in rows k, k + 1, ...: nothing to load), else the prefill cache (one row a
    member, loaded into free rows). `borrowed`: the prefill cache's storage is the batch's free rows
    `borrowed`, `borrowed + 1`, ... (`prefill_rows=0`): member k's first sequence stays in its row."""

    members: list[tuple[int, _Queued]]
    ids: torch.Tensor
    mask: torch.Tensor | None
    pieces: list[tuple[int, int]]
    started: float
    chunk: int = 0  # the chunk the prompts are fed in (0: whole)
    in_place: bool = False
    borrowed: int | None = None


@dataclass
class _Row:
    """A sequence in flight: its request, its rules and where its state lives in the batch's `RowChoice`
    (its row's tokens, its generator)."""

    request: Request
    sequence: int
    rules: hf.DecodingRules
    choice: RowChoice
    slot: int
    started: float

    @property
    def new_tokens(self) -> list[int]:
        return self.choice.new_tokens(self.slot)

    def finished(self, reason: str | None = None) -> Finished:
        """This sequence as it ends: `reason`, else why it stopped (`kvlimit.frontend.stop_reason`)."""
        tokens = self.new_tokens
        if reason is None:
            config = self.rules.config
            ids = self.choice.row_ids(self.slot)
            stop_string = any(
                bool(c(ids, torch.empty(0))[0]) for c in self.rules.stopping if isinstance(c, StopStringCriteria)
            )  # fmt: skip
            max_new = int(config.max_length) - len(self.request.input_ids)
            eos = hf.eos_token_ids(config.eos_token_id)
            reason = stop_reason(tokens, eos=eos, max_new_tokens=max_new, stop_string=stop_string)
        seconds = round(time.perf_counter() - self.started, 3)
        return Finished(self.request.id, self.sequence, tokens, reason, seconds)

    def token(self, token: int, logits: torch.Tensor) -> Token:
        """The event of this row's new `token`, with log-probabilities from its raw `logits` (vocab,) if asked."""
        k = self.request.logprobs
        if k is None:
            return Token(self.request.id, self.sequence, token)
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        top: list[tuple[int, float]] = []
        if k:
            values, indices = logprobs.topk(k)
            top = list(zip(indices.tolist(), values.tolist(), strict=True))
        return Token(self.request.id, self.sequence, token, float(logprobs[token]), top)


class ContinuousEngine:
    """Continuous batching of many prompts on one bounded cache (see the module docstring). Not
    thread-safe: one thread drives it (`run`, or `submit` / `cancel` / `step`).

    Args:
        model: a transformers causal LM of a supported family.
        config: the cache's `LimitConfig` (a byte budget is resolved once, for `rows` rows and the
            `prefill_rows` rows of the prefill cache).
        rows: sequences decoded at once.
        decoding: generate's decoding arguments (`max_new_tokens`, `do_sample`, `temperature`,
            `top_k`, `top_p`, `repetition_penalty`, `min_new_tokens`, `stop_strings`, ...).
        num_return_sequences: sequences per prompt (sampling), each in a row of its own.
        seed: the run's seed (None: a random one, logged).
        tokenizer: needed for `stop_strings`.
        compile: compile the batch's decode forward (torch.compile, static shapes: `BoundedCache.make_static`):
            True, or a transformers `CompileConfig` to compile with; prompts are prefilled eagerly.
            A configuration that cannot compile is a `ValueError` saying why.
        prefill_rows: prompts prefilled together in one forward at most (see the module docstring;
            at most `rows`): more admits a burst of prompts in fewer steps, and holds more bytes. 0: no
            prefill cache; prompts are prefilled in the batch's own free rows, each group whole before
            the next decode forward (no bytes beside the rows; a long prompt holds the decoding rows
            for its whole prefill rather than a chunk a step).
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
        compile: Any = False,
        prefill_rows: int = PREFILL_ROWS,
    ):
        if not isinstance(config, LimitConfig):
            raise ValueError(f"config must be a kvlimit.LimitConfig; got {type(config).__name__}")
        check_int("rows", rows, at_least=1)
        check_int("num_return_sequences", num_return_sequences, at_least=1)
        check_int("prefill_rows", prefill_rows, at_least=0)
        decoding = dict(decoding or {})
        check_decoding(decoding, num_return_sequences, rows, name="num_return_sequences")
        self.model = model
        self.prefill_rows = min(prefill_rows, rows)
        # a byte budget holds the batch's rows and the rows of the cache prompts are prefilled in
        self.config = config.with_tokens(token_limit(model, config, rows + self.prefill_rows))
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
        self.compile_config = None
        if compile:
            blocker = compile_blocker(self._scratch)
            if blocker is not None:
                raise ValueError(f"compile: {blocker}")
            self.compile_config = hf.compile_config_for(None if compile is True else compile, self.device)
        #: rows decoding after the last step
        self.active = 0
        #: the most bytes of keys and values the run's caches held (the batch's and the prefill's)
        self.kv_bytes = 0
        self.cache: BoundedCache | None = None
        self._compiled: Any = None  # the batch's compiled decode step (`open`)
        self._rows: list[_Row | None] = []
        self._next = torch.zeros((0, 1), dtype=torch.long, device=self.device)
        self._queue: deque[_Queued] = deque()
        self._prefill: _Prefill | None = None
        self._live: dict[str, int] = {}  # request id -> its sequences not ended yet

    def _new_cache(self, rows: int) -> BoundedCache:
        return build_cache(self.model, self.config, rows=rows)

    # --- live ---------------------------------------------------------------------------------
    def open(self) -> None:
        """Allocate the batch's cache, its rows empty, and forget every request (`run` opens its own)."""
        cache = self.cache = self._new_cache(self.rows)
        if self.compile_config is not None:
            cache.make_static()
        cache.open_rows(self.rows, self.device)
        self._rows = [None] * self.rows
        self._next = torch.zeros((self.rows, 1), dtype=torch.long, device=self.device)
        vocab = self.model.get_output_embeddings().weight.shape[0]
        self.choice = RowChoice(self.rows, vocab, 256, self.device)
        self._compiled = (
            None
            if self.compile_config is None
            else hf.CompiledDecodeStep(self.model, cache, hf.inspect_model(self.model), self.compile_config)
        )
        self._queue.clear()
        self._prefill = None
        self._live.clear()
        self.active = 0

    def submit(self, request: Request) -> None:
        """Queue `request`; its rules are prepared now (`ValueError` naming what the engine cannot run)."""
        if self.cache is None:
            self.open()
        if request.id in self._live:
            raise ValueError(f"request id {request.id!r} is in flight already")
        self._queue.append(self._prepare(request))
        self._live[request.id] = self._queue[-1].sequences

    def cancel(self, request_id: str) -> list[Finished]:
        """End request `request_id` now, queued, prefilling or decoding: its rows are free for the next
        step. Returns its sequences that were decoding, with their tokens so far, stop_reason "cancelled"."""
        self._queue = deque(q for q in self._queue if q.request.id != request_id)
        if self._prefill is not None:
            members = [(k, q) for k, q in self._prefill.members if q.request.id != request_id]
            self._prefill.members = members
            if not members:
                self._prefill = None
        ended = []
        for b, row in enumerate(self._rows):
            if row is not None and row.request.id == request_id:
                self._rows[b] = None
                ended.append(row.finished("cancelled"))
        self._live.pop(request_id, None)
        self.active = sum(row is not None for row in self._rows)
        return ended

    @property
    def queued(self) -> int:
        """Requests submitted whose prefill has not started."""
        return len(self._queue)

    @property
    def prefilling(self) -> str | None:
        """The id of the request being prefilled (the first of those prefilled together), or None."""
        return None if self._prefill is None else self._prefill.members[0][1].request.id

    @property
    def busy(self) -> bool:
        """Whether a step has work: a request queued or prefilling, or a row decoding."""
        return bool(self._queue) or self._prefill is not None or any(r is not None for r in self._rows)

    def step(self) -> list[Token | Finished]:
        """One piece of work (see the module docstring): prompt pieces of at most `prefill_chunk` tokens in
        all (at least one piece), then one decode forward of the active rows. Returns the tokens made and the
        sequences ended, in order."""
        if self.cache is None:
            self.open()
        events: list[Token | Finished] = []
        self._prefill_pieces(events)
        if any(row is not None for row in self._rows):
            self._decode(events)
        self.active = sum(row is not None for row in self._rows)
        assert self.cache is not None
        self.kv_bytes = max(self.kv_bytes, self.cache.nbytes() + self._scratch.nbytes())
        for event in events:
            if isinstance(event, Finished):
                left = self._live.get(event.id, 1) - 1
                if left > 0:
                    self._live[event.id] = left
                else:
                    self._live.pop(event.id, None)
        return events

    # --- a run --------------------------------------------------------------------------------
    def run(self, requests: Iterable[Request]) -> Iterator[Finished]:
        """Generate every request; yield each sequence as it finishes (see the module docstring)."""
        pending = iter(requests)
        self.open()
        exhausted = False
        while True:
            # enough to prefill together: the first group fills the batch's rows, later ones the prefill cache's
            assert self.cache is not None
            wanted = self.rows if self.cache.columns_seen == 0 else self.prefill_rows or self.rows
            while not exhausted and len(self._queue) < wanted:
                request = next(pending, None)
                if request is None:
                    exhausted = True
                else:
                    self.submit(request)
            if exhausted and not self._queue and self._prefill is None and not self._shrink():
                return
            yield from (event for event in self.step() if isinstance(event, Finished))

    def _shrink(self) -> bool:
        """Nothing left to admit: finished rows leave the batch (a compiled step keeps its R rows: another
        batch size would be another graph). False when no row is left."""
        keep = [b for b, row in enumerate(self._rows) if row is not None]
        if not keep:
            return False
        if len(keep) < len(self._rows) and self._compiled is None:
            assert self.cache is not None
            self.cache.batch_select_indices(torch.tensor(keep, device=self.device))
            self.choice.select(keep)
            self._rows = [self._rows[b] for b in keep]
            for slot, row in enumerate(self._rows):
                assert row is not None
                row.slot = slot
            self._next = self._next[keep]
        return True

    # --- the steps ----------------------------------------------------------------------------
    def _prepare(self, request: Request) -> _Queued:
        if not request.input_ids:
            raise ValueError(f"request {request.id!r} has no prompt tokens")
        decoding = {**self.decoding, **(request.decoding or {})}
        sequences = self.num_return_sequences if request.sequences is None else request.sequences
        check_decoding(decoding, sequences, self.rows, name="sequences")
        if request.logprobs is not None:
            check_int("logprobs", request.logprobs, at_least=0)
        ids = torch.tensor([request.input_ids], dtype=torch.long, device=self.device)
        rules = hf.prepared_rules(self.model, ids, tokenizer=self.tokenizer, **decoding)
        seed = (self.seed, request.id) if request.seed is None else (request.seed, "")
        return _Queued(request, ids, rules, sequences, seed)

    def _prefill_pieces(self, events: list[Token | Finished]) -> None:
        """Feed prompt pieces (starting the queue's head, with the prompts that join it, when the rows
        have room for their sequences): at least one, and more while their tokens stay within the
        config's `prefill_chunk` (else the prompts' own chunk); after the prompts' last column, start
        their sequences. Without a prefill cache: every group the free rows take, each whole."""
        fed = 0
        while self._prefill is not None or self._start_prefill():
            assert self._prefill is not None
            if self._prefill.borrowed is not None:  # its rows decode in this step's forward: feed it whole
                while self._prefill is not None:
                    self._feed(events)
                continue  # and the next group, while free rows are left: a free row's forward is wasted
            start, end = self._prefill.pieces[0]
            if fed and fed + end - start > (self.config.prefill_chunk or self._prefill.chunk):
                return
            fed += end - start
            self._feed(events)

    def _start_prefill(self) -> bool:
        free = sum(row is None for row in self._rows)
        if not self._queue or free < self._queue[0].sequences:
            return False
        assert self.cache is not None
        if self.cache.columns_seen == 0 and free == len(self._rows):  # nothing decoded yet
            group = self._group(free, in_place=True)
            # without a prefill cache, the batch's rows are where prompts are prefilled, from the first
            if 2 * sum(q.sequences for q in group) > free or self.prefill_rows == 0:
                self._start_in_place(group)
                return True
            self._queue.extendleft(reversed(group))  # too few to fill the batch: the prefill cache's way
        self._scratch.reset()
        borrowed = None
        if self.prefill_rows == 0:  # the prefill cache's storage is a run of the batch's free rows
            borrowed, length = self._free_run()
            group = self._group(free, places=length)
            self._scratch.store.borrow_rows(self.cache.store, borrowed, len(group))
        else:
            group = self._group(free)
        if len(group) == 1:
            ids, mask = group[0].ids, None
        else:  # left-padded to one width: each row is planned as it is alone
            ids, mask = left_padded([q.ids[0].tolist() for q in group], 0, self.device)
        pieces, chunk = self._pieces(ids.shape[1]), self._chunk(ids.shape[1])
        members = list(enumerate(group))
        self._prefill = _Prefill(members, ids, mask, pieces, time.perf_counter(), chunk, borrowed=borrowed)
        return True

    def _free_run(self) -> tuple[int, int]:
        """The first longest run of consecutive free rows: (its first row, its length)."""
        best, start = (0, 0), None
        for b, row in enumerate([*self._rows, True]):
            if row is None and start is None:
                start = b
            elif row is not None and start is not None:
                best, start = max(best, (b - start, -start)), None
        return -best[1], best[0]

    def _start_in_place(self, group: list[_Queued]) -> None:
        """Prefill `group` in the batch's own rows, each sequence in a row of its own, left-padded to one
        width (each row as it is alone); rows no sequence takes are fed a copy of the first prompt (their
        tokens are never read, and the next prompt loaded there replaces them)."""
        assert self.cache is not None
        members: list[tuple[int, _Queued]] = []
        prompts: list[list[int]] = []
        for queued in group:
            members.append((len(prompts), queued))
            prompts += [queued.ids[0].tolist()] * queued.sequences
        prompts += [prompts[0]] * (len(self._rows) - len(prompts))
        ids, mask = left_padded(prompts, 0, self.device)
        self.cache.reset()  # `open` gave it empty rows for load_row; the prompts' forward makes them
        pieces, chunk = self._pieces(ids.shape[1]), self._chunk(ids.shape[1])
        mask_or_none = None if len(prompts) == 1 else mask
        self._prefill = _Prefill(
            members, ids, mask_or_none, pieces, time.perf_counter(), chunk, in_place=True
        )

    def _chunk(self, width: int) -> int:
        """The chunk a prompt of `width` columns is fed in, as `kvlimit.generate` feeds it (0: whole)."""
        return prefill_chunk(self._scratch, width, self.config.prefill_chunk) or 0

    def _pieces(self, width: int) -> list[tuple[int, int]]:
        """The column spans a prompt of `width` columns is fed in (the last gives the logits)."""
        chunk = self._chunk(width)
        if not chunk:
            return [(0, width)]
        return [*prefill_spans(width, chunk, prompt_tail(self._scratch)), (width - 1, width)]

    def _group(self, free: int, *, in_place: bool = False, places: int | None = None) -> list[_Queued]:
        """The queue's head and the prompts after it that are prefilled with it (taken from the queue),
        while: their sequences fit the `free` rows; each is fed in as many pieces alone as at the group's
        width (so that none waits for another's chunks: left padding then keeps a row's pieces its own,
        `prefill_spans`); and, in the prefill cache (not `in_place`), they are at most `prefill_rows` and a
        piece of the group, rows x columns, holds at most `max(limit, prefill_chunk, ADMITTED_TOKENS)`
        tokens (what admitting them costs the decoding rows; in place, no row is decoding). `places`: the
        most prompts (the free rows they are prefilled in, without a prefill cache) instead of `prefill_rows`."""
        group = [self._queue.popleft()]
        width, sequences = group[0].ids.shape[1], group[0].sequences
        count = len(self._pieces(width))  # the pieces of every member alone, and of the group
        budget = max(self._scratch.kept_limit, self.config.prefill_chunk or 0, ADMITTED_TOKENS)
        most = self.prefill_rows if places is None else places
        while self._queue and (in_place or len(group) < most):
            joining = self._queue[0]
            wider = max(width, joining.ids.shape[1])
            pieces = self._pieces(wider)
            if (
                sequences + joining.sequences > free
                or (not in_place and (len(group) + 1) * max(end - start for start, end in pieces) > budget)
                or len(pieces) != count
                or len(self._pieces(joining.ids.shape[1])) != count
            ):
                break
            group.append(self._queue.popleft())
            width, sequences = wider, sequences + joining.sequences
        return group

    def _feed(self, events: list[Token | Finished]) -> None:
        """The next piece of the prompts being prefilled, through the prefill cache or in place."""
        fill = self._prefill
        assert fill is not None and self.cache is not None
        cache = self.cache if fill.in_place else self._scratch
        start, end = fill.pieces.pop(0)
        ids = fill.ids[:, start:end]
        mask = None if fill.mask is None else fill.mask[:, start:end]
        if fill.pieces:  # a chunk before the last column: planned as a prompt chunk, with its mask
            chunk_mask = torch.ones_like(ids) if mask is None else mask
            forward_step(self.model, cache, ids, chunk_mask, **self._forward_extra)
            return
        # the last column after chunks is a decode step, one real token a row, as generate runs it (planned
        # as a prompt chunk, with its mask column, TOVA and SnapKV would score and evict otherwise)
        out = forward_step(self.model, cache, ids, None if start > 0 else mask, **self._forward_extra)
        self._prefill = None
        self._start_rows(fill, out.logits[:, -1, :], events)

    def _start_rows(self, fill: _Prefill, logits: torch.Tensor, events: list[Token | Finished]) -> None:
        """Choose the first token of every sequence of the prompts prefilled together, for all of them at
        once, from the prompts' last `logits` (rows of the prefill, vocab), and load each sequence that goes
        on into a free row from its prompt's row of the prefill cache (prefilled in place: it is there)."""
        assert self.cache is not None
        # borrowed: member k's first sequence stays in its row, where it was prefilled; the others go to
        # free rows no member was prefilled in (loading one there would overwrite that member)
        own = set() if fill.borrowed is None else set(range(fill.borrowed, fill.borrowed + len(fill.ids)))
        free = iter([b for b, row in enumerate(self._rows) if row is None and b not in own])
        starting: list[tuple[int, int, _Row]] = []  # (batch row, prefill row, the sequence)
        for k, queued in fill.members:
            for sequence in range(queued.sequences):
                generator = None
                if queued.rules.config.do_sample:
                    generator = torch.Generator(device=self.device)
                    generator.manual_seed(sequence_seed(*queued.seed, sequence))
                if fill.in_place:
                    b = k + sequence
                elif fill.borrowed is not None and sequence == 0:
                    b = fill.borrowed + k
                else:
                    b = next(free)
                source = b if fill.in_place else k
                self.choice.start(b, queued.ids, queued.rules, generator)
                row = _Row(queued.request, sequence, queued.rules, self.choice, b, fill.started)
                starting.append((b, source, row))
        rows = [b for b, _, _ in starting]
        firsts = logits[[k for _, k, _ in starting]]
        tokens, host, done = self.choice.choose(firsts, rows)
        for i, (b, k, row) in enumerate(starting):
            events.append(row.token(host[i], firsts[i]))
            if done[i]:
                events.append(row.finished())
                continue
            if not fill.in_place:
                self.cache.load_row(b, self._scratch, k)
            self._rows[b] = row
            self._next[b, 0] = tokens[i]

    def _decode(self, events: list[Token | Finished]) -> None:
        """One decode forward of every row; rows that end are emptied. A free row (waiting for a
        prompt) decodes too; its token is never read."""
        assert self.cache is not None
        if self._compiled is None:
            every = forward_step(self.model, self.cache, self._next, **self._forward_extra).logits[:, -1, :]
        else:  # the cache's static step and the forward, one graph (kvlimit.integrations.hf.CompiledDecodeStep)
            every = self._compiled(self._next)
        live = [b for b, row in enumerate(self._rows) if row is not None]
        active = [row for row in self._rows if row is not None]
        logits = every[live]
        tokens, host, done = self.choice.choose(logits, live)
        self._next[live, 0] = tokens
        for i, (b, row) in enumerate(zip(live, active, strict=True)):
            events.append(row.token(host[i], logits[i]))
            if done[i]:
                self._rows[b] = None
                events.append(row.finished())
