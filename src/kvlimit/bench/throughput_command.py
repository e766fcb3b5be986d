"""`kvlimit throughput`: tokens/s at a fixed memory budget, stock generate against kvlimit, side by side.

Contract: `register(subparsers)` adds the subcommand; `run(args) -> int` returns 0 when the runs
finished. The measurement is `kvlimit.bench.throughput.run_throughput` (see its docstring); stdout:
the text report (or with `--json` and no FILE, one JSON object), `--json FILE` writes the JSON,
`--plot FILE.png` the figure. Option errors exit 2 before the model loads.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

import torch

from ..cache.quant import KV_DTYPES
from ..clitools import (
    CLIError,
    add_common_arguments,
    add_model_arguments,
    check_number,
    kv_dtype_name,
    load_with_status,
    parse_list,
    policy_name,
    status,
)
from ..config import parse_bytes
from ..policies import policy_names
from ..sizing import kv_bytes_per_token
from .throughput import (
    ThroughputSettings,
    default_sweep,
    largest_batch,
    plot_throughput,
    report_lines,
    run_throughput,
)
from .workloads import (
    PREFILL_ROWS_GIVEN,
    SYSTEMS,
    WORKLOADS,
    WorkloadSettings,
    plot_workloads,
    run_workloads,
    workload_lines,
)


def register(subparsers: Any) -> None:
    """Add the `throughput` subcommand to `subparsers`."""
    parser = subparsers.add_parser(
        "throughput",
        help="tokens/s at a fixed memory budget: stock generate's largest batch against kvlimit's",
        description="For a budget of KV-cache memory and --max-new-tokens new tokens per sequence, run stock generate "
        "at the largest batch whose unbounded cache fits, and kvlimit at the largest batch that fits at each "
        "--cache-limit and --policy, side by side; report aggregate tokens/s, seconds per sequence, cache "
        "bytes and peak memory, and with --sweep the steady decode rate by batch size.",
    )
    parser.add_argument("--memory", metavar="SIZE", default="256MiB",
                        help="the KV-cache budget, such as 512MiB (default: 256MiB)")  # fmt: skip
    parser.add_argument("--max-new-tokens", "--tokens", dest="tokens", type=int, metavar="T", default=None,
                        help="new tokens per sequence (default: 2048; with --workloads, each workload's own; "
                        "--tokens is its old name)")  # fmt: skip
    parser.add_argument("--cache-limit", metavar="N[,N...]", default=None,
                        help="kvlimit's cache limits, comma-separated (default: 256,1024; with --workloads one "
                        "limit, default 128)")  # fmt: skip
    workloads = parser.add_argument_group("workloads (kvlimit.bench.workloads)")
    workloads.add_argument("--workloads", metavar="W[,W...]", default=None,
                           help="instead of one fixed prompt, run workloads of chat prompts on the embedded or "
                           "--model's tokenizer, side by side: kvlimit continuous, kvlimit static batches, stock "
                           "generate and transformers' generate_batch, each given --memory of KV cache. "
                           + "; ".join(f"{w.name}: {w.description}" for w in WORKLOADS.values()))  # fmt: skip
    workloads.add_argument("--num-prompts", type=int, metavar="N", default=None,
                           help="with --workloads: prompts per workload (default: each workload's own, 32)")  # fmt: skip
    workloads.add_argument("--systems", metavar="S[,S...]", default=None,
                           help=f"with --workloads: the systems to run (default: all: {', '.join(SYSTEMS)})")  # fmt: skip
    workloads.add_argument("--prefill-rows", type=int, metavar="N", default=None,
                           help="with --workloads: kvlimit continuous's prefill rows, held in the budget beside its "
                           f"rows; 0: prompts prefilled in its free rows (default: {PREFILL_ROWS_GIVEN})")  # fmt: skip
    parser.add_argument("--policy", metavar="P[,P...]", default="sinks",
                        help=f"kvlimit policies, comma-separated, from {', '.join(policy_names())} (default: sinks)")  # fmt: skip
    parser.add_argument(
        "--max-batch", type=int, metavar="N", default=256, help="cap on any batch (default: 256)"
    )
    parser.add_argument("--kv-dtype", metavar="|".join(("none", *KV_DTYPES)), default="none",
                        help="how kvlimit stores keys and values (quantized: more rows in the budget; "
                        "default: none, the model's dtype)")  # fmt: skip
    parser.add_argument("--sweep", metavar="auto|N[,N...]", default=None,
                        help="also time steady decode steps at these batch sizes (auto: 1, 2, 4, ... up to the "
                        "first limit's batch)")  # fmt: skip
    parser.add_argument("--threads", type=int, metavar="N", default=None, help="torch intra-op threads")
    parser.add_argument("--compile", action="store_true",
                        help="compile kvlimit's decode step (torch.compile, one graph per batch size, compiled in "
                        "an untimed warm-up); not with --workloads, whose continuous engine decodes eagerly")  # fmt: skip
    add_model_arguments(parser)
    output = parser.add_argument_group("results")
    output.add_argument("--json", metavar="FILE", nargs="?", const="-", default=None,
                        help="write the results as JSON to FILE; without FILE print only the JSON")  # fmt: skip
    output.add_argument("--plot", metavar="FILE.png", default=None, help="write the figure to a PNG")
    add_common_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        memory = parse_bytes(args.memory, parameter="--memory")
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    check_number(args.tokens, "--max-new-tokens", at_least=2)
    check_number(args.max_batch, "--max-batch", at_least=1)
    check_number(args.threads, "--threads", at_least=1)
    check_number(args.num_prompts, "--num-prompts", at_least=1)
    check_number(args.prefill_rows, "--prefill-rows", at_least=0)
    args.kv_dtype = kv_dtype_name(args.kv_dtype)  # checked before the model loads
    if args.workloads is not None:
        return _run_workloads(args, memory)
    if args.num_prompts is not None or args.systems is not None or args.prefill_rows is not None:
        raise CLIError("--num-prompts, --systems and --prefill-rows go with --workloads")
    args.tokens = 2048 if args.tokens is None else args.tokens
    limits = parse_list(args.cache_limit or "256,1024", _count("--cache-limit", 2), option="--cache-limit")
    policies = parse_list(args.policy, policy_name, option="--policy")
    explicit = (
        () if args.sweep in (None, "auto") else parse_list(args.sweep, _count("--sweep", 1), option="--sweep")
    )
    if args.plot and not str(args.plot).lower().endswith(".png"):
        raise CLIError(f"--plot writes a PNG; give a file name ending in .png, not {args.plot!r}")
    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = load_with_status(args)
    sweep = tuple(explicit)
    if args.sweep == "auto":
        first, _ = largest_batch(memory, limits[0] * kv_bytes_per_token(loaded.model), args.max_batch)
        sweep = tuple(default_sweep(first))
    settings = ThroughputSettings(memory=memory, tokens=args.tokens, limits=tuple(limits), policies=tuple(policies),
                                  sweep=sweep, max_batch=args.max_batch, kv_dtype=args.kv_dtype,
                                  compile=args.compile)  # fmt: skip
    result = run_throughput(loaded.model, settings, progress=lambda text: status(args, text))
    result["model"] = loaded.source
    _emit(args, result, report_lines(result), plot_throughput)
    return 0


def _run_workloads(args: argparse.Namespace, memory: int) -> int:
    """`kvlimit throughput --workloads W[,W...]`: `kvlimit.bench.workloads`, reported like the rest."""
    if args.compile:
        raise CLIError(
            "--compile does not apply to --workloads: the continuous engine decodes eagerly; compare compiled "
            "steps with the stock-vs-kvlimit runs (without --workloads) or `kvlimit bench --compile`"
        )
    names = parse_list(args.workloads, _workload_name, option="--workloads")
    systems = tuple(parse_list(args.systems, _system_name, option="--systems")) if args.systems else SYSTEMS
    limit = 128 if args.cache_limit is None else _count("--cache-limit", 2)(args.cache_limit)
    if args.plot and not str(args.plot).lower().endswith(".png"):
        raise CLIError(f"--plot writes a PNG; give a file name ending in .png, not {args.plot!r}")
    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = load_with_status(args)
    settings = WorkloadSettings(memory=memory, workloads=tuple(names), cache_limit=limit, prompts=args.num_prompts,
                                new_tokens=args.tokens, systems=systems, kv_dtype=args.kv_dtype,
                                prefill_rows=PREFILL_ROWS_GIVEN if args.prefill_rows is None else args.prefill_rows)  # fmt: skip
    result = run_workloads(loaded.model, loaded.tokenizer, settings, progress=lambda text: status(args, text))
    result["model"] = loaded.source
    _emit(args, result, workload_lines(result), plot_workloads)
    return 0


def _emit(args: argparse.Namespace, result: dict[str, Any], lines: list[str], plot: Any) -> None:
    if args.plot:
        plot(result, args.plot)
        status(args, f"plot written to {args.plot}")
    if args.json == "-":
        print(json.dumps(result, indent=1))
        print("\n".join(lines), file=sys.stderr)
    else:
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print("\n".join(lines))


def _workload_name(text: str) -> str:
    if text.strip() not in WORKLOADS:
        raise CLIError(f"--workloads takes names from {', '.join(WORKLOADS)}; got {text!r}")
    return text.strip()


def _system_name(text: str) -> str:
    if text.strip() not in SYSTEMS:
        raise CLIError(f"--systems takes names from {', '.join(SYSTEMS)}; got {text!r}")
    return text.strip()


def _count(option: str, least: int) -> Any:
    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < least:
            raise CLIError(f"{option} takes ints >= {least}; got {text!r}")
        return int(text)

    return parse
