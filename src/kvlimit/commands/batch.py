"""`kvlimit generate --prompts FILE`: the batch job (`kvlimit.jobs`) on the command line.

Contract: FILE is read before any model loads (a malformed line is an error naming it);
`--output FILE.jsonl` gets the job's records, appended as they are made and synced; running the same
command again skips every id already complete there. Without `--output` the records go to stdout.
`--batch-size N` or `auto` (the planner, within `--memory`); `--batching` continuous, static or auto
(`kvlimit.jobs`), and the status line says which runs and, for auto, why static. On a terminal, a
progress bar over prompts (tqdm): prompts done, rows active, tokens/s, ETA. Ctrl-C stops after the
records written so far (exit 130). `--ray [ADDRESS]` runs the same job on Ray workers
(`kvlimit.distributed`), one shard each, into the folder `--output`.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from typing import Any

from tqdm import tqdm

from ..clitools import EXIT_INTERRUPTED, CLIError, cli_names, load_with_status, status
from ..config import LimitConfig
from ..jobs import BatchJob, BatchRunner, PromptItem, PromptsError, finished_ids
from ..jobs import read_prompts as _read_prompts


def read_prompts(path: str) -> list[PromptItem]:
    """`kvlimit.jobs.read_prompts`, its errors as `CLIError`s."""
    try:
        return _read_prompts(path)
    except PromptsError as exc:
        raise CLIError(str(exc)) from exc


def job_from_args(args: argparse.Namespace, decoding: Any, config: LimitConfig) -> BatchJob:
    return BatchJob(config, dict(decoding.kwargs), args.num_return_sequences, args.raw, args.batch_size,
                    args.memory, args.seed, args.batching, args.prefill_rows)  # fmt: skip


def run_batch(args: argparse.Namespace, decoding: Any, config: LimitConfig) -> int:
    """`kvlimit generate --prompts FILE`: see the module docstring."""
    job = job_from_args(args, decoding, config)
    if getattr(args, "ray", None) is not None:
        return run_corpus_command(args, job)
    items = read_prompts(args.prompts)
    output_path = pathlib.Path(args.output).expanduser() if args.output else None
    done = finished_ids(output_path, job.num_return_sequences) if output_path else set()
    pending = [item for item in items if item.id not in done]
    status(args, f"{len(items)} prompts, {len(done)} already in the output, {len(pending)} to generate")
    if not pending:
        return 0
    runner = BatchRunner(load_with_status(args), job)
    try:
        size, limit = runner.prepare(max(len(ids) for ids in runner.encode(pending).values()))
    except ValueError as exc:
        raise CLIError(cli_names(str(exc))) from exc
    size = min(size, len(pending))  # a run holds no more prompts at once than it has
    rows = size * job.num_return_sequences
    if runner.batching == "continuous":
        how = f"continuous batching, {rows} rows"
    else:
        how = f"static batches of {size} prompts" + (
            f" ({runner.static_because})" if runner.static_because else ""
        )
    status(args, f"{how}, cache_limit {limit} tokens, policy {config.policy.describe()}")
    sink = output_path.open("a", encoding="utf-8") if output_path else sys.stdout
    bar = tqdm(
        total=len(pending), unit="prompt", file=sys.stderr, disable=args.quiet or not sys.stderr.isatty()
    )
    started = time.perf_counter()
    made = [0]
    sequences: dict[str, int] = {}
    written = [0]  # prompts complete, counted here: a disabled bar (not a terminal) counts nothing

    def on_records(records: list[dict[str, Any]], active: int) -> None:
        made[0] += sum(r["new_tokens"] for r in records)
        for record in records:
            sequences[record["id"]] = sequences.get(record["id"], 0) + 1
            if sequences[record["id"]] == job.num_return_sequences:
                written[0] += 1
                bar.update(1)
        bar.set_postfix(rows=active, tokens_per_s=f"{made[0] / (time.perf_counter() - started):.1f}")

    try:
        runner.run(pending, sink, on_records)
    except KeyboardInterrupt:
        status(args, f"interrupted: {written[0]} of {len(pending)} prompts written")
        return EXIT_INTERRUPTED
    finally:
        bar.close()
        if sink is not sys.stdout:
            sink.close()
    status(args, f"{len(pending)} prompts, {made[0]} new tokens in {time.perf_counter() - started:.1f} s")
    return 0


def run_corpus_command(args: argparse.Namespace, job: BatchJob) -> int:
    """`kvlimit generate --prompts FILE --output DIR --ray [ADDRESS]`."""
    from ..distributed import generate_corpus, import_ray

    try:
        import_ray()
    except ImportError as exc:
        raise CLIError(str(exc)) from exc
    if not args.output:
        raise CLIError("--ray writes shards: give --output DIR")
    load = {"dtype": args.dtype, "device": args.device, "attn_implementation": args.attn}
    address = None if args.ray in ("", "local") else args.ray
    status(args, f"Ray: {args.workers} workers of {args.worker_cpus} CPU(s) and {args.worker_gpus} GPU(s)"
                 + (f" at {address}" if address else " on a local cluster"))  # fmt: skip
    try:
        manifest = generate_corpus(args.prompts, args.output, job, model=args.model, load=load, address=address,
                                   workers=args.workers, worker_cpus=args.worker_cpus,
                                   worker_gpus=args.worker_gpus, progress=not args.quiet)  # fmt: skip
    except PromptsError as exc:
        raise CLIError(str(exc)) from exc
    status(args, f"{manifest['complete']} of {manifest['prompts']} prompts complete in {len(manifest['shards'])} "
                 f"shards under {args.output} ({manifest['seconds']} s)")  # fmt: skip
    return 0 if manifest["complete"] == manifest["prompts"] else 1
