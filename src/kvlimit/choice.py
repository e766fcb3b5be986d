"""Choosing every row's next token at once, each as transformers' `_sample` chooses it for the row alone.

Contract: `RowChoice` keeps, for the R rows of a continuous batch, what each row's decoding rules
(transformers' processors and stopping criteria, prepared for its prompt alone) need per step, as
tensors: its tokens so far in a buffer allocated once (the prompt and every new token: the ids a rule
reads are a view of it; nothing is concatenated), the tokens it has seen (for a repetition penalty),
its repetition penalty, minimum new tokens, temperature, top-k, top-p and min-p, its end-of-sequence
ids and length limit, and its generator when it samples. `choose(logits, rows)` processes the given
rows' logits in one pass per kind of processor, draws every sampling row's token at once, appends the
tokens and says which rows are done, with one host read for all of them.

Exactness: each batched processor does, row by row, the arithmetic transformers' does, in the order
transformers' generate builds them (the same operations on the same float32 values, so a row's scores
are those of its batch of one; a row without a processor is left as it is). `torch.multinomial` draws
one sample as `argmax(probs / q)`, `q` exponential noise from the generator: each sampling row's noise
is drawn from its own generator into one (R, vocab) buffer and the argmax is taken for all rows at
once, which gives the same token and leaves the generator in the same state. A row whose rules hold
anything else (another processor or setting, a custom stopping criterion) is processed by its own
rules, on its own, in the same pass; stop strings are checked on the row's own ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from transformers.generation.logits_process import (
    MinLengthLogitsProcessor,
    MinNewTokensLengthLogitsProcessor,
    MinPLogitsWarper,
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)
from transformers.generation.stopping_criteria import EosTokenCriteria, MaxLengthCriteria, StopStringCriteria

from .integrations import hf

#: The processors `RowChoice` batches, in the order transformers' generate builds them.
BATCHED = (
    RepetitionPenaltyLogitsProcessor,
    MinLengthLogitsProcessor,
    MinNewTokensLengthLogitsProcessor,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
    MinPLogitsWarper,
)


def batchable(rules: hf.DecodingRules) -> bool:
    """Whether `RowChoice` batches these rules: known processors in transformers' order with the settings
    it batches, and stopping by length, end of sequence and stop strings only."""
    kinds = [type(p) for p in rules.processors]
    if any(k not in BATCHED for k in kinds) or len(set(kinds)) < len(kinds):
        return False
    if kinds != sorted(kinds, key=BATCHED.index):
        return False
    for p in rules.processors:
        ignore = getattr(p, "prompt_ignore_length", None)
        if (
            isinstance(p, RepetitionPenaltyLogitsProcessor)
            and ignore is not None
            and int(torch.as_tensor(ignore).max())
        ):
            return False
        if getattr(p, "filter_value", -float("inf")) != -float("inf"):
            return False
        if isinstance(p, (TopPLogitsWarper, MinPLogitsWarper)) and p.min_tokens_to_keep != 1:
            return False
    return all(
        isinstance(c, (MaxLengthCriteria, EosTokenCriteria, StopStringCriteria)) for c in rules.stopping
    )


@dataclass
class _Settings:
    """One row's batched settings (host copies decide which passes a step needs)."""

    penalty: float = 1.0
    min_length: int = 0
    min_new: int = 0
    temperature: float = 1.0
    top_k: int = 0  # 0: none
    top_p: float = 1.0
    min_p: float = 0.0
    own: hf.DecodingRules | None = None  # processed by its own rules
    stop_strings: list[Any] = field(default_factory=list)

    @classmethod
    def of(cls, rules: hf.DecodingRules) -> _Settings:
        stops = [c for c in rules.stopping if isinstance(c, StopStringCriteria)]
        if not batchable(rules):
            return cls(own=rules, stop_strings=stops)
        out = cls(stop_strings=stops)
        for p in rules.processors:
            if isinstance(p, RepetitionPenaltyLogitsProcessor):
                out.penalty = float(p.penalty)
            elif isinstance(p, MinLengthLogitsProcessor):
                out.min_length = int(p.min_length)
            elif isinstance(p, MinNewTokensLengthLogitsProcessor):
                out.min_new = int(p.min_new_tokens)
            elif isinstance(p, TemperatureLogitsWarper):
                out.temperature = float(p.temperature)
            elif isinstance(p, TopKLogitsWarper):
                out.top_k = int(p.top_k)
            elif isinstance(p, TopPLogitsWarper):
                out.top_p = float(p.top_p)
            elif isinstance(p, MinPLogitsWarper):
                out.min_p = float(p.min_p)
        return out


@dataclass
class _Part:
    """Some of a step's rows, by their positions in it: `at` as a tensor, None when they are all of
    them in order (a processor every row has then runs on the whole batch)."""

    positions: list[int]
    at: torch.Tensor | None

    @classmethod
    def of(cls, positions: list[int], rows: int, device: torch.device) -> _Part:
        every = len(positions) == rows  # positions are increasing, so these are 0..rows-1
        return cls(positions, None if every else torch.tensor(positions, dtype=torch.long, device=device))

    def take(self, values: torch.Tensor) -> torch.Tensor:
        """These rows of `values` (rows, ...)."""
        return values if self.at is None else values.index_select(0, self.at)

    def put(self, scores: torch.Tensor, part: torch.Tensor) -> torch.Tensor:
        """`scores` with these rows replaced by `part` (in place where they are some of them)."""
        if self.at is None:
            return part
        return scores.index_copy_(0, self.at, part)


class RowChoice:
    """The rows' decoding state and their batched choice (see the module docstring).

    Args:
        rows: R.
        vocab: the logits' width.
        length: the most tokens a row holds (prompt and new ones).
        device: where the tensors live.
    """

    def __init__(self, rows: int, vocab: int, length: int, device: torch.device):
        self.vocab = vocab
        self.device = device
        self.ids = torch.zeros((rows, length), dtype=torch.long, device=device)
        self.lengths = [0] * rows
        self.prompt_lengths = [0] * rows
        self.max_lengths = [0] * rows
        self.settings = [_Settings() for _ in range(rows)]
        self.generators: list[torch.Generator | None] = [None] * rows
        self.seen = torch.zeros((rows, vocab), dtype=torch.bool, device=device)
        self.eos = torch.zeros((rows, vocab), dtype=torch.bool, device=device)
        self.noise = torch.empty((rows, vocab), dtype=torch.float32, device=device)
        self._eos_ids: list[set[int]] = [set() for _ in range(rows)]

    def start(
        self, row: int, prompt: torch.Tensor, rules: hf.DecodingRules, generator: torch.Generator | None
    ) -> None:
        """Row `row` begins a sequence: its prompt (1, n), its rules and its generator (None: greedy)."""
        n = prompt.shape[1]
        self._room(n + 1)
        self.ids[row, :n] = prompt[0]
        self.lengths[row] = self.prompt_lengths[row] = n
        self.max_lengths[row] = int(rules.config.max_length)
        self.generators[row] = generator
        self.settings[row] = _Settings.of(rules)
        self.seen[row] = False
        self.seen[row, prompt[0]] = True
        self._eos_ids[row] = hf.eos_token_ids(rules.config.eos_token_id)
        self.eos[row] = False
        if self._eos_ids[row]:
            self.eos[row, sorted(self._eos_ids[row])] = True

    def _room(self, width: int) -> None:
        """The buffer holds `width` tokens per row (it doubles when a sequence outgrows it)."""
        if width > self.ids.shape[1]:
            grown = self.ids.new_zeros((self.ids.shape[0], max(width, 2 * self.ids.shape[1])))
            grown[:, : self.ids.shape[1]] = self.ids
            self.ids = grown

    def select(self, keep: list[int]) -> None:
        """Keep rows `keep` (in this order): the batch shrank."""
        at = torch.tensor(keep, dtype=torch.long, device=self.device)
        for name in ("ids", "seen", "eos", "noise"):
            setattr(self, name, getattr(self, name).index_select(0, at))
        for name in ("lengths", "prompt_lengths", "max_lengths", "settings", "generators", "_eos_ids"):
            values = getattr(self, name)
            setattr(self, name, [values[b] for b in keep])

    def row_ids(self, row: int) -> torch.Tensor:
        """The row's tokens so far, (1, n): a view of the buffer."""
        return self.ids[row : row + 1, : self.lengths[row]]

    def new_tokens(self, row: int) -> list[int]:
        return [int(t) for t in self.ids[row, self.prompt_lengths[row] : self.lengths[row]].tolist()]

    # --- a step -------------------------------------------------------------------------------
    def choose(self, logits: torch.Tensor, rows: list[int]) -> tuple[torch.Tensor, list[int], list[bool]]:
        """Rows `rows`' next tokens from their logits (len(rows), vocab), appended to their ids; the same on
        the host, and which rows are done (each row's stopping criteria): one host read in all."""
        index = torch.tensor(rows, dtype=torch.long, device=self.device)
        scores = self.scores(logits.to(dtype=torch.float32), rows, index)
        sampling = [i for i, b in enumerate(rows) if self.generators[b] is not None]
        if sampling:
            for i in sampling:  # each row's own noise from its own generator: torch.multinomial's draw
                self.noise[i].exponential_(1, generator=self.generators[rows[i]])
            part = _Part.of(sampling, len(rows), self.device)
            drawn = (torch.softmax(part.take(scores), dim=-1) / part.take(self.noise[: len(rows)])).argmax(
                dim=-1
            )
            tokens = drawn if part.at is None else scores.argmax(dim=-1).index_copy(0, part.at, drawn)
        else:
            tokens = scores.argmax(dim=-1)
        self._room(1 + max(self.lengths[b] for b in rows))
        self.ids[index, torch.tensor([self.lengths[b] for b in rows], device=self.device)] = tokens
        self.seen[index, tokens] = True
        for b in rows:
            self.lengths[b] += 1
        done = self._done(tokens, scores, rows, index)
        host = torch.cat((tokens, done.to(tokens.dtype))).tolist()
        return tokens, host[: len(rows)], [bool(d) for d in host[len(rows) :]]

    def scores(self, logits: torch.Tensor, rows: list[int], index: torch.Tensor) -> torch.Tensor:
        """The rows' processed scores (len(rows), vocab): each kind of processor on the rows that have it,
        in transformers' order, and the rows with their own rules by their own processors. A processor
        that every row has runs on the whole batch, without picking rows out and putting them back."""
        settings = [self.settings[b] for b in rows]
        scores = logits.clone()
        every = rows == list(range(self.ids.shape[0]))

        def of_rows(state: torch.Tensor) -> torch.Tensor:  # a per-row state (R, vocab), for `rows`
            return state if every else state.index_select(0, index)

        def passes(wanted: Any) -> _Part | None:
            at = [i for i, s in enumerate(settings) if s.own is None and wanted(s)]
            return _Part.of(at, len(rows), self.device) if at else None

        def column(part: _Part, name: str) -> torch.Tensor:
            return torch.tensor([getattr(settings[i], name) for i in part.positions], dtype=torch.float32,
                                device=self.device)[:, None]  # fmt: skip

        if (part := passes(lambda s: s.penalty != 1.0)) is not None:
            piece, penalty = part.take(scores), column(part, "penalty")
            penalized = torch.where(piece < 0, piece * penalty, piece / penalty)
            scores = part.put(scores, torch.where(part.take(of_rows(self.seen)), penalized, piece))
        for too_short in (
            lambda b, s: self.lengths[b] < s.min_length,  # MinLengthLogitsProcessor
            lambda b, s: (
                self.lengths[b] - self.prompt_lengths[b] < s.min_new
            ),  # MinNewTokensLengthLogitsProcessor
        ):
            short = [
                i
                for i, (b, s) in enumerate(zip(rows, settings, strict=True))
                if s.own is None and too_short(b, s)
            ]
            if short:
                part = _Part.of(short, len(rows), self.device)
                eos = part.take(of_rows(self.eos))
                scores = part.put(scores, torch.where(eos, -torch.inf, part.take(scores)))
        if (part := passes(lambda s: s.temperature != 1.0)) is not None:
            scores = part.put(scores, part.take(scores) / column(part, "temperature"))
        if (part := passes(lambda s: s.top_k > 0)) is not None:
            scores = part.put(scores, _top_k(part.take(scores), [settings[i].top_k for i in part.positions]))
        if (part := passes(lambda s: s.top_p < 1.0)) is not None:
            cut = torch.tensor(
                [1 - settings[i].top_p for i in part.positions], dtype=torch.float32, device=self.device
            )
            scores = part.put(scores, _top_p(part.take(scores), cut[:, None]))
        if (part := passes(lambda s: s.min_p > 0.0)) is not None:
            scores = part.put(scores, _min_p(part.take(scores), column(part, "min_p")))
        for i, (b, s) in enumerate(zip(rows, settings, strict=True)):
            if s.own is not None:
                scores[i] = hf.apply_processors(s.own.processors, self.row_ids(b), logits[i : i + 1].clone())[
                    0
                ]
        return scores

    def _done(
        self, tokens: torch.Tensor, scores: torch.Tensor, rows: list[int], index: torch.Tensor
    ) -> torch.Tensor:
        """(len(rows),) bool: each row's stopping criteria after its new token."""
        done = self.eos.index_select(0, index).gather(1, tokens[:, None])[:, 0]
        for i, b in enumerate(rows):
            own = self.settings[b].own
            if own is not None:
                done[i] = own.stopping(self.row_ids(b), scores[i : i + 1])[0]
                continue
            if self.lengths[b] >= self.max_lengths[b]:
                done[i] = True
            for criterion in self.settings[b].stop_strings:
                done[i] |= criterion(self.row_ids(b), scores[i : i + 1])[0]
        return done


def _top_k(scores: torch.Tensor, ks: list[int]) -> torch.Tensor:
    """transformers' top-k per row: below each row's k-th largest score, -inf."""
    ks = [min(k, scores.shape[-1]) for k in ks]
    largest = scores.topk(max(ks)).values
    kth = largest.gather(1, torch.tensor(ks, device=scores.device)[:, None] - 1)
    return scores.masked_fill(scores < kth, -torch.inf)


def _top_p(scores: torch.Tensor, cut: torch.Tensor) -> torch.Tensor:
    """transformers' top-p per row (`cut` = 1 - top_p): the tokens outside the top-p mass, -inf."""
    sorted_scores, order = torch.sort(scores, descending=False)
    cumulative = sorted_scores.softmax(dim=-1).cumsum(dim=-1)
    remove = cumulative <= cut
    remove[..., -1:] = False
    return scores.masked_fill(remove.scatter(1, order, remove), -torch.inf)


def _min_p(scores: torch.Tensor, min_p: torch.Tensor) -> torch.Tensor:
    """transformers' min-p per row: tokens below min_p x the top token's probability, -inf."""
    probs = torch.softmax(scores, dim=-1)
    remove = probs < min_p * probs.amax(dim=-1, keepdim=True)
    remove.scatter_(-1, torch.topk(probs, 1, dim=-1).indices, False)
    return scores.masked_fill(remove, -torch.inf)
