"""`kvlimit bench`: decode speed and memory of stock generate, kvlimit and recomputation, side by side.

Contract
--------
- `register(subparsers)` adds the `bench` subcommand and `set_defaults(handler=run)`; `run(args) -> int`
  returns 0 when the benchmark finished, whether or not the targets were met (the report says which).
  User errors raise `CLIError` (one line, exit 2), before the model loads when the arguments alone
  show them.
- Everything is measured in one process (`kvlimit.bench.runner.run_bench`): kvlimit per `--policy`,
  stock generate (unless `--no-stock`), and an interleaved block of decode steps at KV length
  `--cache-limit` with sliding-window recomputation sampled inside it.
- stdout: the text report (bucketed latency table, memory, the ratios against the targets), or with
  `--json` (no FILE) exactly one JSON object and nothing else; the report then goes to stderr.
  `--json FILE` writes the JSON to FILE and keeps the report on stdout. `--plot FILE.png` writes the
  figure. stderr: the load message and a progress line on a terminal; `--quiet` silences them.
- `--threads N` sets torch's intra-op threads before anything runs (on a shared, loaded machine one
  thread is far steadier than oversubscribed OpenMP threads).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any, TextIO

import torch

from ..cache.quant import DEFAULT_KV_GROUP, KV_DTYPES
from ..clitools import (
    CLIError,
    Progress,
    add_common_arguments,
    add_model_arguments,
    add_policy_settings,
    add_recall_list_argument,
    kv_dtype_name,
    kv_group_from_args,
    load_from_args,
    parse_list,
    policy_settings_from_args,
    recall_values,
)
from ..config import recall_slots
from ..policies import POLICIES
from .report import report_lines
from .runner import BenchSettings, run_bench

__all__ = ["register", "run"]

DEFAULT_CACHE_LIMIT = 1024
DEFAULT_TOKENS = 4096
DEFAULT_PROMPT = "Once upon a time, in a small town by the sea, there lived an old lighthouse keeper who"

_EPILOG = """\
what is measured (one process, same model, greedy decoding, end-of-sequence suppressed):
  kvlimit-<policy>  kvlimit.generate with cache_limit=L, T new tokens
  stock             transformers' generate with its unbounded DynamicCache, T new tokens
  interleaved       one decode step of each variant in turn at KV length L (stock's cache is
                    cropped back after each step), the order rotating every round
  recompute         sliding window with re-computation: a fresh forward over the last L tokens
                    for every new token, timed on --recompute-steps steps inside the interleaved block

ratios printed (targets for SmolLM2-135M on a 2-core CPU, L = 1024, T >= 16000):
  (a) flatness: kvlimit latency at token T / at token L           (within 5% of 1)
  (b) eviction overhead: kvlimit step / stock step, same KV length (<= 1.05)
  (c) speed-up over recomputation per token                       (>= 20x)
  (d) stock cache bytes / kvlimit's at T                          (>= 15x; kvlimit's == L x bytes/token)

examples:
  kvlimit bench --cache-limit 1024 --max-new-tokens 16000 --policy sinks --json bench.json --plot bench.png
  kvlimit bench --model ./my-model --cache-limit 256 --max-new-tokens 2000 --policy sinks,window --threads 1
"""


def register(subparsers: Any) -> None:
    """Add the `bench` subcommand to `subparsers` (an argparse subparsers action)."""
    parser = subparsers.add_parser(
        "bench",
        help="decode speed and memory: stock generate vs kvlimit vs sliding-window recomputation",
        description="Measure, side by side in one process, per-token decode latency along a long "
        "generation, the KV cache's exact size and peak process memory for stock transformers "
        "generate (unbounded cache), kvlimit (per --policy) and the sliding window with "
        "re-computation, and print the ratios that matter: flatness, eviction overhead, speed-up "
        "over recomputation, cache bytes saved.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    runs = parser.add_argument_group("runs")
    _add_workload_arguments(runs)
    _add_measurement_arguments(runs)
    add_model_arguments(parser)
    _add_result_arguments(parser)
    add_common_arguments(parser)
    parser.set_defaults(handler=run)


def _add_workload_arguments(runs: argparse._ArgumentGroup) -> None:
    """What the generate runs do: the limit, the tokens, the policies, the stock run and the prompt."""
    runs.add_argument(
        "--cache-limit",
        type=int,
        metavar="L",
        default=DEFAULT_CACHE_LIMIT,
        help=f"kvlimit's cache limit in tokens; also the recomputation window and the KV length of the "
        f"interleaved steps (default: {DEFAULT_CACHE_LIMIT})",
    )
    runs.add_argument(
        "--max-new-tokens",
        "--tokens",
        dest="tokens",
        type=int,
        metavar="T",
        default=DEFAULT_TOKENS,
        help=f"new tokens per generate run (default: {DEFAULT_TOKENS}; --tokens is its old name); stock "
        "generate slows down as its cache grows, so 16000 tokens take a while on a CPU",
    )
    runs.add_argument(
        "--policy",
        metavar="P[,P...]",
        default="sinks",
        help=f"kvlimit policies, comma-separated, from {', '.join(POLICIES)} (default: sinks); each takes "
        "the settings below that apply to it",
    )
    add_policy_settings(runs)
    runs.add_argument(
        "--kv-dtype",
        metavar="D[,D...]",
        default="none",
        help=f"cache storage, comma-separated: none (the model's dtype), {', '.join(KV_DTYPES)}; each policy "
        "runs in each, and a quantized run is compared with the same policy in float (default: none)",
    )
    add_recall_list_argument(runs)
    runs.add_argument(
        "--kv-group",
        metavar="N",
        type=int,
        default=DEFAULT_KV_GROUP,
        help=f"with --kv-dtype: dims per quantization block, one scale each (default: {DEFAULT_KV_GROUP})",
    )
    runs.add_argument("--no-stock", action="store_true", help="skip the stock generate run")
    runs.add_argument(
        "--prompt",
        metavar="TEXT",
        default=DEFAULT_PROMPT,
        help="prompt text, tokenized as is (no chat template); a model without a tokenizer gets "
        "16 fixed pseudo-random token ids",
    )


def _add_measurement_arguments(runs: argparse._ArgumentGroup) -> None:
    """How the runs are measured: the interleaved block, the recomputation, the buckets, the threads."""
    runs.add_argument(
        "--interleaved-rounds",
        type=int,
        metavar="N",
        default=200,
        help="rounds of interleaved decode steps at KV length L (default: 200; 0 skips the block "
        "and the recomputation)",
    )
    runs.add_argument(
        "--recompute-steps",
        type=int,
        metavar="N",
        default=24,
        help="recomputation steps timed inside the interleaved block (default: 24; each is a forward "
        "over L tokens)",
    )
    runs.add_argument(
        "--buckets",
        type=int,
        metavar="N",
        default=20,
        help="the latency along a run is summarised in N buckets of T/N tokens (default: 20)",
    )
    runs.add_argument(
        "--threads", type=int, metavar="N", default=None, help="torch intra-op threads (default: torch's own)"
    )
    runs.add_argument(
        "--compile",
        action="store_true",
        help="compile kvlimit's decode step (torch.compile, one graph; the warm-up waits for the compile, no "
        "timed run does); the interleaved block then times the compiled step",
    )


def _add_result_arguments(parser: argparse.ArgumentParser) -> None:
    """The `results` group: where the results go (JSON, the plot) and whether every token's latency does."""
    output = parser.add_argument_group("results")
    output.add_argument(
        "--json",
        metavar="FILE",
        nargs="?",
        const="-",
        default=None,
        help="write the results as JSON to FILE; without FILE print exactly one JSON object on stdout "
        "(the text report then goes to stderr)",
    )
    output.add_argument("--plot", metavar="FILE.png", default=None, help="draw latency and memory to a PNG")
    output.add_argument(
        "--raw", action="store_true", help="include every token's latency in the JSON (large for long runs)"
    )


def settings_from_args(args: argparse.Namespace) -> BenchSettings:
    """Validate the arguments into `BenchSettings` (prompt ids are filled in after the model loads)."""
    policies = parse_list(args.policy, lambda p: p.strip().lower(), option="--policy")
    for policy in policies:
        if policy not in POLICIES:
            raise CLIError(
                f"--policy {policy!r} is not a known policy; known policies: {', '.join(POLICIES)}"
            )
    if len(set(policies)) != len(policies):
        raise CLIError(f"--policy names a policy twice: {args.policy}")
    for option, value, least in (
        ("--cache-limit", args.cache_limit, 2),
        ("--max-new-tokens", args.tokens, 2),
        ("--buckets", args.buckets, 1),
        ("--interleaved-rounds", args.interleaved_rounds, 0),
        ("--recompute-steps", args.recompute_steps, 0),
        ("--threads", args.threads, 1),
    ):
        if value is not None and value < least:
            raise CLIError(f"{option} must be >= {least}; got {value}")
    if args.recompute_steps > args.interleaved_rounds:
        raise CLIError(
            f"--recompute-steps ({args.recompute_steps}) cannot exceed --interleaved-rounds "
            f"({args.interleaved_rounds}): recomputation is timed inside the interleaved block"
        )
    dtypes = parse_list(args.kv_dtype, kv_dtype_name, option="--kv-dtype")
    if len(set(dtypes)) != len(dtypes):
        raise CLIError(f"--kv-dtype names a storage twice: {args.kv_dtype}")
    recalls = sorted({recall_slots(v, args.cache_limit) for v in recall_values(args.recall)} or {0})
    variants = [
        f"{policy}{f'+recall{recall}' if recall else ''}{f':{dtype}' if dtype else ''}"
        for policy in policies
        for recall in (recalls if not POLICIES[policy].per_layer else [0])
        for dtype in dtypes
    ]
    settings = BenchSettings(
        cache_limit=args.cache_limit,
        tokens=args.tokens,
        policies=tuple(variants),
        kv_group=kv_group_from_args(args),
        policy_settings=policy_settings_from_args(args, policies),
        buckets=args.buckets,
        interleaved_rounds=args.interleaved_rounds,
        recompute_steps=args.recompute_steps,
        run_stock=not args.no_stock,
        keep_raw=args.raw,
        compile=args.compile,
    )
    try:
        settings.check()
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    return settings


def _check_output(path: str | None, option: str, *, suffix: str | None = None) -> None:
    if path is None or path == "-":
        return
    target = pathlib.Path(path)
    if suffix is not None and target.suffix.lower() != suffix:
        raise CLIError(f"{option} must name a {suffix} file; got {path!r}")
    if not target.parent.exists() or not target.parent.is_dir():
        raise CLIError(f"{option}: folder {str(target.parent)!r} does not exist")


def run(args: argparse.Namespace) -> int:
    """`kvlimit bench`: see the parser's help and the module docstring."""
    settings = settings_from_args(args)
    _check_output(args.json, "--json")
    _check_output(args.plot, "--plot", suffix=".png")
    json_to_stdout = args.json == "-"
    report: TextIO = sys.stderr if json_to_stdout else sys.stdout
    quiet = bool(getattr(args, "quiet", False))
    if args.threads is not None:
        torch.set_num_threads(args.threads)

    def status(text: str) -> None:
        if not quiet:
            print(f"kvlimit: {text}", file=sys.stderr, flush=True)

    loaded = load_from_args(args, status=status)
    tokenizer = loaded.tokenizer
    if tokenizer is not None and args.prompt:
        ids = tokenizer(args.prompt, add_special_tokens=False)["input_ids"]
        if ids:
            settings.prompt_ids = [int(i) for i in ids]
    settings.extra = {"model_source": loaded.source}
    status(
        f"benchmarking: L={settings.cache_limit}, T={settings.tokens}, policies {','.join(settings.policies)}"
        + ("" if settings.run_stock else ", no stock run")
    )
    progress = Progress(sys.stderr, enabled=None if not quiet else False)

    def on_progress(phase: str, done: int, total: int) -> None:
        progress.update(f"{phase}: {done}/{total}")

    try:
        result = run_bench(loaded.model, settings, progress=on_progress)
    finally:
        progress.clear()
    result["model"]["name"] = loaded.source
    _emit(result, args, report, quiet=quiet)
    return 0


def _emit(result: dict[str, Any], args: argparse.Namespace, report: TextIO, *, quiet: bool) -> None:
    """Write --json FILE and --plot, print the text report to `report`, then the JSON for `--json` alone."""
    json_to_stdout = args.json == "-"
    text = json.dumps(result, indent=1)
    if args.json is not None and not json_to_stdout:
        pathlib.Path(args.json).write_text(text + "\n", encoding="utf-8")
    if args.plot is not None:
        from .plot import plot_bench

        plot_bench(result, args.plot)
    if not (json_to_stdout and quiet):
        for line in report_lines(result):
            print(line, file=report)
        if args.json is not None and not json_to_stdout:
            print(f"JSON written to {args.json}", file=report)
        if args.plot is not None:
            print(f"plot written to {args.plot}", file=report)
        report.flush()
    if json_to_stdout:
        print(text)
        sys.stdout.flush()
