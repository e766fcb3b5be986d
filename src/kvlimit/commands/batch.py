"""`kvlimit generate --prompts FILE`: many prompts in one run, batched by length, resumable.

Contract:
- FILE holds one prompt per line (ids "1", "2", ... by line number; blank lines are skipped), or
  JSON Lines (its first non-blank line starts with "{") with an "id" and a "prompt" per line. A
  malformed line (bad JSON, no id or prompt, a duplicate id, an empty prompt) is an error naming the
  line, before any model loads.
- `--output FILE.jsonl` gets one record per prompt and returned sequence: `id`, `prompt`,
  `sequence` (0.. `--num-return-sequences` - 1), `text`, `new_tokens`, `stop_reason` ("eos" or
  "max_new_tokens"), `seconds` (the batch's). Records are appended batch by batch, flushed and
  synced to disk; running the same command again skips every id whose records are all there, so a
  killed run resumes where it stopped and redoes at most the batch in flight (a torn last line or a
  half-written id is dropped first). Without `--output` the records go to stdout.
- Prompts are sorted by token length and batched (`--batch-size N`, or `auto`: the largest batch
  the planner fits in `--memory`), so little is spent on padding; every batch is left-padded.
  A byte budget (`--cache-limit 64MiB`) is turned into tokens once, for the planned batch, so every
  prompt gets the same limit whatever its batch.
- On a terminal, a progress bar over prompts (tqdm): prompts done, tokens/s, cache fill, ETA. Ctrl-C
  stops after the records written so far (exit 130).
"""

from __future__ import annotations

import argparse
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
from tqdm import tqdm

from ..clitools import EXIT_INTERRUPTED, CLIError, cli_names, load_with_status, status
from ..config import LimitConfig
from ..generation import generate
from ..models import LoadedModel
from ..planner import plan
from ..sizing import token_limit


@dataclass(frozen=True)
class PromptItem:
    """One prompt of the input file and the line it came from (1-based)."""

    id: str
    prompt: str
    line: int


def read_prompts(path: str) -> list[PromptItem]:
    """The prompts of `path` (see the module docstring); `CLIError` naming the first bad line."""
    try:
        lines = pathlib.Path(path).expanduser().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read --prompts {path}: {exc}") from exc
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not numbered:
        raise CLIError(f"--prompts {path} holds no prompt")
    jsonl = numbered[0][1].lstrip().startswith("{")
    items = [_json_item(path, n, line) if jsonl else PromptItem(str(n), line, n) for n, line in numbered]
    seen: dict[str, int] = {}
    for item in items:
        if item.id in seen:
            raise CLIError(
                f"--prompts {path}, line {item.line}: id {item.id!r} is also on line {seen[item.id]}"
            )
        seen[item.id] = item.line
    return items


def _json_item(path: str, number: int, line: str) -> PromptItem:
    where = f"--prompts {path}, line {number}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise CLIError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(record, dict) or "id" not in record or "prompt" not in record:
        raise CLIError(f'{where}: a JSON Lines prompt needs "id" and "prompt"')
    if not isinstance(record["prompt"], str) or not record["prompt"].strip():
        raise CLIError(f"{where}: the prompt is empty or not a string")
    if not isinstance(record["id"], str | int) or isinstance(record["id"], bool):
        raise CLIError(f"{where}: the id must be a string or an integer")
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
        seed: seeds sampling once, before the first batch.
    """

    config: LimitConfig
    decoding: dict[str, Any]
    num_return_sequences: int = 1
    raw: bool = False
    batch_size: int | str = 8
    memory: str | None = None
    seed: int | None = None

    @property
    def rows_per_prompt(self) -> int:
        return max(int(self.decoding.get("num_beams", 1)), self.num_return_sequences)


class BatchRunner:
    """A loaded model running a `BatchJob`: plans the batch size and the limit once, then generates batches."""

    def __init__(self, loaded: LoadedModel, job: BatchJob):
        self.loaded = loaded
        self.job = job
        self.size: int | None = None
        self.limit: int | None = None
        if job.seed is not None:
            transformers.set_seed(job.seed)

    def prepare(self, longest_prompt: int) -> tuple[int, int]:
        """(batch size, cache limit in tokens), planned on the first call for prompts of `longest_prompt` tokens."""
        if self.size is None or self.limit is None:
            self.size = _batch_size(self.job, self.loaded, longest_prompt)
            self.limit = _token_limit(self.job.config, self.loaded, self.size * self.job.rows_per_prompt)
        return self.size, self.limit

    def encode(self, items: Iterable[PromptItem]) -> dict[str, list[int]]:
        return {item.id: _encode(self.loaded, item.prompt, raw=self.job.raw) for item in items}

    def run(self, items: list[PromptItem], sink: TextIO, on_batch: Any = None) -> int:
        """Generate `items` in batches sorted by length, appending each batch's records to `sink`; new tokens made."""
        encoded = self.encode(items)
        lengths = {key: len(ids) for key, ids in encoded.items()}
        size, limit = self.prepare(max(lengths.values()))
        tokens = 0
        for batch in batches(items, lengths, size):
            records = _generate_batch(self.loaded, batch, encoded, limit, self.job)
            _append(sink, records)
            tokens += sum(r["new_tokens"] for r in records)
            if on_batch is not None:
                on_batch(batch, records)
        return tokens


def job_from_args(args: argparse.Namespace, decoding: Any, config: LimitConfig) -> BatchJob:
    return BatchJob(config, dict(decoding.kwargs), args.num_return_sequences, args.raw, args.batch_size,
                    args.memory, args.seed)  # fmt: skip


def run_batch(args: argparse.Namespace, decoding: Any, config: LimitConfig) -> int:
    """`kvlimit generate --prompts FILE`: see the module docstring."""
    job = job_from_args(args, decoding, config)
    if getattr(args, "ray", None) is not None:
        from ..distributed import run_corpus_command

        return run_corpus_command(args, job)
    items = read_prompts(args.prompts)
    output_path = pathlib.Path(args.output).expanduser() if args.output else None
    done = finished_ids(output_path, job.num_return_sequences) if output_path else set()
    pending = [item for item in items if item.id not in done]
    status(args, f"{len(items)} prompts, {len(done)} already in the output, {len(pending)} to generate")
    if not pending:
        return 0
    runner = BatchRunner(load_with_status(args), job)
    size, limit = runner.prepare(max(len(ids) for ids in runner.encode(pending).values()))
    status(args, f"batches of {size} prompts, cache_limit {limit} tokens, policy {config.policy.describe()}")
    sink = output_path.open("a", encoding="utf-8") if output_path else sys.stdout
    bar = tqdm(
        total=len(pending), unit="prompt", file=sys.stderr, disable=args.quiet or not sys.stderr.isatty()
    )
    started = time.perf_counter()
    made = [0]
    written = [0]  # counted here: a disabled bar (not a terminal) counts nothing

    def on_batch(batch: list[PromptItem], records: list[dict[str, Any]]) -> None:
        made[0] += sum(r["new_tokens"] for r in records)
        written[0] += len(batch)
        bar.update(len(batch))
        bar.set_postfix(tokens_per_s=f"{made[0] / (time.perf_counter() - started):.1f}", cache=f"{limit}")

    try:
        runner.run(pending, sink, on_batch)
    except KeyboardInterrupt:
        status(args, f"interrupted: {written[0]} of {len(pending)} prompts written")
        return EXIT_INTERRUPTED
    finally:
        bar.close()
        if sink is not sys.stdout:
            sink.close()
    status(args, f"{len(pending)} prompts, {made[0]} new tokens in {time.perf_counter() - started:.1f} s")
    return 0


def _encode(loaded: LoadedModel, prompt: str, *, raw: bool) -> list[int]:
    tokenizer = loaded.tokenizer
    encoded: Any  # a BatchEncoding either way; the tokenizer stubs say less
    if loaded.is_instruct and not raw:
        messages = [{"role": "user", "content": prompt}]
        encoded = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_dict=True)
    else:
        encoded = tokenizer(prompt)
    return [int(i) for i in encoded["input_ids"]]


def _batch_size(job: BatchJob, loaded: LoadedModel, prompt: int) -> int:
    if job.batch_size != "auto":
        return int(job.batch_size)
    limit = job.config.cache_limit_tokens or 1024
    memory = job.memory or "auto"
    result = plan(loaded.model, memory=memory, new_tokens=int(job.decoding["max_new_tokens"]),
                  num_beams=job.rows_per_prompt, prompt_tokens=prompt, limits=[max(2, limit)],
                  policy=job.config.policy)  # fmt: skip
    fits = result.rows[0].sequences
    if fits < 1:
        raise CLIError(
            f"--memory {memory} does not fit one sequence at cache_limit {limit}; see kvlimit plan"
        )
    return int(fits)


def _token_limit(config: LimitConfig, loaded: LoadedModel, rows: int) -> int:
    try:
        return token_limit(loaded.model, config, rows)
    except ValueError as exc:
        raise CLIError(cli_names(str(exc))) from exc


def _generate_batch(
    loaded: LoadedModel, batch: list[PromptItem], encoded: dict[str, list[int]], limit: int, job: BatchJob
) -> list[dict[str, Any]]:
    """Generate one batch (left-padded) and return its records."""
    tokenizer, model = loaded.tokenizer, loaded.model
    width = max(len(encoded[item.id]) for item in batch)
    pad = tokenizer.pad_token_id
    device = next(model.parameters()).device
    ids = torch.tensor([[pad] * (width - len(encoded[i.id])) + encoded[i.id] for i in batch], device=device)
    mask = torch.tensor(
        [[0] * (width - len(encoded[i.id])) + [1] * len(encoded[i.id]) for i in batch], device=device
    )
    start = time.perf_counter()
    returns = job.num_return_sequences
    with torch.no_grad():
        out = generate(model, input_ids=ids, attention_mask=mask, cache_limit=job.config.with_tokens(limit),
                       num_return_sequences=returns, pad_token_id=pad, **job.decoding)  # fmt: skip
    seconds = round(time.perf_counter() - start, 3)
    eos = set(_eos_ids(model, tokenizer))
    records = []
    for row in range(out.shape[0]):
        item = batch[row // returns]
        new = out[row, width:].tolist()
        end = next((k + 1 for k, t in enumerate(new) if t in eos), len(new))
        records.append({
            "id": item.id,
            "prompt": item.prompt,
            "sequence": row % returns,
            "text": tokenizer.decode(new[:end], skip_special_tokens=True, clean_up_tokenization_spaces=False),
            "new_tokens": end,
            "stop_reason": "eos" if end < len(new) or (new and new[-1] in eos) else "max_new_tokens",
            "seconds": seconds,
        })  # fmt: skip
    return records


def _eos_ids(model: Any, tokenizer: Any) -> Iterable[int]:
    eos = model.generation_config.eos_token_id
    if eos is None:
        eos = tokenizer.eos_token_id
    return [eos] if isinstance(eos, int) else list(eos or [])


def _append(sink: TextIO, records: list[dict[str, Any]]) -> None:
    """One write per batch, flushed and synced: a kill leaves at most a torn last line."""
    sink.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    sink.flush()
    if sink is not sys.stdout:
        os.fsync(sink.fileno())
