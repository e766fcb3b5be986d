"""Many prompts in one run, batched by length, resumable: the batch job as a library.

Contract:
- `read_prompts(path)`: one prompt per line (ids "1", "2", ... by line number; blank lines are
  skipped), or JSON Lines (the first non-blank line starts with "{") with an "id" and a "prompt" per
  line. A malformed line (bad JSON, no id or prompt, a duplicate id, an empty prompt) is a
  `PromptsError` (a `ValueError`) naming the file and line.
- A `BatchJob` is what every batch of a run shares (the `LimitConfig`, decoding, returns, batch
  size, batching); it pickles, so Ray workers (`kvlimit.distributed`) get it. `BatchRunner(loaded,
  job)` plans the batch size and the token limit once, then generates and appends one record per
  prompt and returned sequence to a sink: `id`, `prompt`, `sequence` (0.. `num_return_sequences` -
  1), `text`, `new_tokens`, `stop_reason` ("eos", "max_new_tokens" or "stop_string"), `seconds`.
- Batching: "continuous" (`kvlimit.engine`: batch size x sequences per prompt rows, a finished row
  takes the next prompt at once, prompts in file order; each record is written as it finishes and
  `seconds` is its own; a sequence's text is a function of the seed, its id and its number alone),
  or "static" (prompts sorted by token length in left-padded batches, one write per batch, `seconds`
  the batch's; sampling seeded once, so a text depends on its batch). "auto" (the default):
  continuous, but static for beam search and for a model that keeps transformers' own
  sliding-window layers at this limit, which the continuous engine cannot run.
- `finished_ids(path, per_id)`: the ids whose records are all in an output file, after dropping a
  torn last line or a half-written id: a rerun skips them, so a killed run resumes where it stopped
  and redoes at most the rows (continuous) or the batch (static) in flight.
- A byte budget (`cache_limit="64MiB"`) is turned into tokens once, for the planned batch, so every
  prompt gets the same limit whatever its batch.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

import torch
import transformers

from .checks import check_int
from .config import LimitConfig
from .engine import ContinuousEngine, Request, continuous_refusal
from .frontend import encode_prompt, left_padded, stop_reason
from .generation import generate
from .integrations import hf
from .models import LoadedModel
from .planner import plan
from .sizing import token_limit

#: A batch job's prefill rows: none, prompts are prefilled in the batch's free rows (a job is after
#: throughput: every byte of a budget is a row's, and no decoding row waits on a reader)
JOB_PREFILL_ROWS = 0


class PromptsError(ValueError):
    """A prompts file that cannot be read, or a malformed line of it (the message names it)."""


@dataclass(frozen=True)
class PromptItem:
    """One prompt of the input file and the line it came from (1-based)."""

    id: str
    prompt: str
    line: int


def read_prompts(path: str) -> list[PromptItem]:
    """The prompts of `path` (see the module docstring); `PromptsError` naming the first bad line."""
    try:
        lines = pathlib.Path(path).expanduser().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptsError(f"cannot read --prompts {path}: {exc}") from exc
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not numbered:
        raise PromptsError(f"--prompts {path} holds no prompt")
    jsonl = numbered[0][1].lstrip().startswith("{")
    items = [_json_item(path, n, line) if jsonl else PromptItem(str(n), line, n) for n, line in numbered]
    seen: dict[str, int] = {}
    for item in items:
        if item.id in seen:
            raise PromptsError(
                f"--prompts {path}, line {item.line}: id {item.id!r} is also on line {seen[item.id]}"
            )
        seen[item.id] = item.line
    return items


def _json_item(path: str, number: int, line: str) -> PromptItem:
    where = f"--prompts {path}, line {number}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise PromptsError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(record, dict) or "id" not in record or "prompt" not in record:
        raise PromptsError(f'{where}: a JSON Lines prompt needs "id" and "prompt"')
    if not isinstance(record["prompt"], str) or not record["prompt"].strip():
        raise PromptsError(f"{where}: the prompt is empty or not a string")
    if not isinstance(record["id"], str | int) or isinstance(record["id"], bool):
        raise PromptsError(f"{where}: the id must be a string or an integer")
    return PromptItem(str(record["id"]), record["prompt"], number)


def finished_ids(path: pathlib.Path, per_id: int) -> set[str]:
    """Ids whose `per_id` records are all in the output file; rewrites it without a torn tail or half ids."""
    if not path.exists():
        return set()
    records: list[dict[str, Any]] = []
    torn = False
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            torn = True  # a write cut short by a kill: only the last line can be
    counts: dict[str, int] = {}
    for record in records:
        counts[str(record.get("id"))] = counts.get(str(record.get("id")), 0) + 1
    done = {i for i, n in counts.items() if n >= per_id}
    if torn or len(done) != len(counts):
        kept = [r for r in records if str(r.get("id")) in done]
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8"
        )
        os.replace(temporary, path)
    return done


def batches(items: list[PromptItem], lengths: dict[str, int], size: int) -> Iterator[list[PromptItem]]:
    """`items` sorted by token length, in batches of `size`."""
    ordered = sorted(items, key=lambda item: (lengths[item.id], item.line))
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]


@dataclass(frozen=True)
class BatchJob:
    """What every batch of a run shares; picklable, so that Ray workers (`kvlimit.distributed`) get it.

    Attributes:
        config: the cache limit (tokens, or bytes resolved once per run), policy and its settings.
        decoding: generate's decoding arguments (`max_new_tokens`, `do_sample`, `num_beams`, ...).
        num_return_sequences: sequences (records) per prompt.
        raw: feed prompts as text, without the model's chat template.
        batch_size: prompts per batch, or "auto" (the planner, with `memory`).
        memory: "auto" or a size, for `batch_size="auto"`.
        seed: continuous: every sequence's generator (`kvlimit.engine.sequence_seed`); static: seeds
            sampling once, before the first batch.
        batching: "auto", "continuous" or "static" (see the module docstring).
        prefill_rows: continuous: prompts the engine prefills together at most
            (`kvlimit.ContinuousEngine(prefill_rows=)`; a byte budget holds them beside the rows); 0
            (default, `JOB_PREFILL_ROWS`): none, prompts are prefilled in the batch's free rows.
    """

    config: LimitConfig
    decoding: dict[str, Any]
    num_return_sequences: int = 1
    raw: bool = False
    batch_size: int | str = 8
    memory: str | None = None
    seed: int | None = None
    batching: str = "auto"
    prefill_rows: int = JOB_PREFILL_ROWS

    def __post_init__(self) -> None:
        if self.batching not in BATCHING:
            raise ValueError(f"batching={self.batching!r} is not one of {', '.join(BATCHING)}")
        check_int("prefill_rows", self.prefill_rows, at_least=0)

    @property
    def rows_per_prompt(self) -> int:
        return max(int(self.decoding.get("num_beams", 1)), self.num_return_sequences)


#: How a job batches its prompts (see the module docstring).
BATCHING = ("auto", "continuous", "static")


class BatchRunner:
    """A loaded model running a `BatchJob`: plans the batch size and the limit once, then generates.

    `on_records(records, active)`, if given to `run`, is called after every write with the records
    written and the rows decoding (continuous) or the batch's prompts (static).
    """

    def __init__(self, loaded: LoadedModel, job: BatchJob):
        self.loaded = loaded
        self.job = job
        self.size: int | None = None
        self.limit: int | None = None
        self.batching: str | None = None  # "continuous" or "static", decided by `prepare`
        #: why an "auto" job runs on static batches (None: it runs continuously, or was told static)
        self.static_because: str | None = None

    def prepare(self, longest_prompt: int) -> tuple[int, int]:
        """(batch size, cache limit in tokens), planned on the first call for prompts of `longest_prompt`
        tokens, the same for every later call (Ray workers call once per shard: every prompt gets the
        same limit); decides the batching (`batching`, and `static_because` for an "auto" job)."""
        if self.size is None or self.limit is None:
            self.size = _batch_size(self.job, self.loaded, longest_prompt)
            self.limit = _token_limit(self.job.config, self.loaded, self.size * self.job.rows_per_prompt)
            self.batching = self._batching(self.limit)
            if self.batching == "continuous":  # a byte budget also holds the engine's prefill rows
                rows = self.size * self.job.rows_per_prompt
                self.limit = _token_limit(
                    self.job.config, self.loaded, rows + min(self.job.prefill_rows, rows)
                )
            if self.batching == "static" and self.job.decoding.get("stop_strings"):
                raise ValueError(
                    "stop strings (--stop) run on continuous batching, not on static batches "
                    f"({self.static_because or 'batching static'})"
                )
        return self.size, self.limit

    def _batching(self, limit: int) -> str:
        """ "continuous" or "static" for this job; static batches seed sampling once, here (the
        continuous engine seeds each sequence itself)."""
        if self.job.batching != "static":
            config = self.job.config.with_tokens(limit)
            refusal = continuous_refusal(self.loaded.model, config, self.job.decoding)
            if refusal is None:
                return "continuous"
            if self.job.batching == "continuous":
                raise ValueError(refusal)
            self.static_because = refusal
        if self.job.seed is not None:
            transformers.set_seed(self.job.seed)
        return "static"

    def encode(self, items: Iterable[PromptItem]) -> dict[str, list[int]]:
        return {item.id: _encode(self.loaded, item.prompt, raw=self.job.raw) for item in items}

    def run(self, items: list[PromptItem], sink: TextIO, on_records: Any = None) -> int:
        """Generate `items`, appending their records to `sink` as they are made; new tokens made."""
        encoded = self.encode(items)
        lengths = {key: len(ids) for key, ids in encoded.items()}
        size, limit = self.prepare(max(lengths.values()))
        if self.batching == "continuous":
            return self._run_continuous(items, encoded, limit, sink, on_records)
        tokens = 0
        for batch in batches(items, lengths, size):
            records = _generate_batch(self.loaded, batch, encoded, limit, self.job)
            append_records(sink, records)
            tokens += sum(r["new_tokens"] for r in records)
            if on_records is not None:
                on_records(records, len(batch))
        return tokens

    def _run_continuous(
        self,
        items: list[PromptItem],
        encoded: dict[str, list[int]],
        limit: int,
        sink: TextIO,
        on_records: Any,
    ) -> int:
        """The continuous engine over `items` in file order, each record appended as it finishes."""
        assert self.size is not None
        job, tokenizer = self.job, self.loaded.tokenizer
        decoding = {**job.decoding, "pad_token_id": tokenizer.pad_token_id}
        rows = min(self.size, len(items)) * job.num_return_sequences  # no more rows than sequences to run
        engine = ContinuousEngine(self.loaded.model, job.config.with_tokens(limit), decoding=decoding, rows=rows,
                                  seed=job.seed, tokenizer=tokenizer, num_return_sequences=job.num_return_sequences,
                                  prefill_rows=job.prefill_rows)  # fmt: skip
        prompts = {item.id: item.prompt for item in items}
        tokens = 0
        for finished in engine.run(Request(item.id, encoded[item.id]) for item in items):
            record: dict[str, Any] = {
                "id": finished.id,
                "prompt": prompts[finished.id],
                "sequence": finished.sequence,
                "text": tokenizer.decode(finished.tokens, skip_special_tokens=True, clean_up_tokenization_spaces=False),
                "new_tokens": len(finished.tokens),
                "stop_reason": finished.stop_reason,
                "seconds": finished.seconds,
            }  # fmt: skip
            append_records(sink, [record])
            tokens += record["new_tokens"]
            if on_records is not None:
                on_records([record], engine.active)
        return tokens


def _encode(loaded: LoadedModel, prompt: str, *, raw: bool) -> list[int]:
    return encode_prompt(loaded.tokenizer, prompt, chat=not raw)


def _batch_size(job: BatchJob, loaded: LoadedModel, prompt: int) -> int:
    if job.batch_size != "auto":
        return int(job.batch_size)
    limit = job.config.cache_limit_tokens or 1024
    memory = job.memory or "auto"
    result = plan(loaded.model, memory=memory, new_tokens=int(job.decoding["max_new_tokens"]),
                  num_beams=job.rows_per_prompt, prompt_tokens=prompt, limits=[max(2, limit)],
                  config=job.config)  # fmt: skip
    fits = result.rows[0].sequences
    if fits < 1:
        raise ValueError(
            f"--memory {memory} does not fit one sequence at cache_limit {limit}; see kvlimit plan"
        )
    return int(fits)


def _token_limit(config: LimitConfig, loaded: LoadedModel, rows: int) -> int:
    return token_limit(loaded.model, config, rows)


def _generate_batch(
    loaded: LoadedModel, batch: list[PromptItem], encoded: dict[str, list[int]], limit: int, job: BatchJob
) -> list[dict[str, Any]]:
    """Generate one batch (left-padded) and return its records."""
    tokenizer, model = loaded.tokenizer, loaded.model
    pad = tokenizer.pad_token_id
    ids, mask = left_padded([encoded[item.id] for item in batch], pad, next(model.parameters()).device)
    width = ids.shape[1]
    start = time.perf_counter()
    returns = job.num_return_sequences
    with torch.no_grad():  # no stop strings here: `prepare` keeps them to continuous batching
        out = generate(model, input_ids=ids, attention_mask=mask, cache_limit=job.config.with_tokens(limit),
                       num_return_sequences=returns, pad_token_id=pad, **job.decoding)  # fmt: skip
    seconds = round(time.perf_counter() - start, 3)
    eos = _eos_ids(model, tokenizer)
    max_new = int(job.decoding["max_new_tokens"])
    records = []
    for row in range(out.shape[0]):
        item = batch[row // returns]
        new = out[row, width:].tolist()
        end = through_eos(new, eos)
        records.append({
            "id": item.id,
            "prompt": item.prompt,
            "sequence": row % returns,
            "text": tokenizer.decode(new[:end], skip_special_tokens=True, clean_up_tokenization_spaces=False),
            "new_tokens": end,
            "stop_reason": stop_reason(new[:end], eos=eos, max_new_tokens=max_new, stop_string=False),
            "seconds": seconds,
        })  # fmt: skip
    return records


def through_eos(tokens: list[int], eos: set[int]) -> int:
    """How many of a row's new `tokens` it generated: up to its first end-of-sequence token, included
    (what follows is padding); all of them when there is none."""
    return next((k + 1 for k, t in enumerate(tokens) if t in eos), len(tokens))


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    """The model's end-of-sequence ids, else the tokenizer's."""
    eos = model.generation_config.eos_token_id
    return hf.eos_token_ids(tokenizer.eos_token_id if eos is None else eos)


def append_records(sink: TextIO, records: list[dict[str, Any]]) -> None:
    """One write per batch, flushed and synced: a kill leaves at most a torn last line."""
    sink.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    sink.flush()
    if sink is not sys.stdout:
        os.fsync(sink.fileno())
