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

from ..clitools import (
    CLIError,
    add_common_arguments,
    add_model_arguments,
    check_number,
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
    parser.add_argument("--max-new-tokens", "--tokens", dest="tokens", type=int, metavar="T", default=2048,
                        help="new tokens per sequence (default: 2048; --tokens is its old name)")  # fmt: skip
    parser.add_argument("--cache-limit", metavar="N[,N...]", default="256,1024",
                        help="kvlimit's cache limits, comma-separated (default: 256,1024)")  # fmt: skip
    parser.add_argument("--policy", metavar="P[,P...]", default="sinks",
                        help=f"kvlimit policies, comma-separated, from {', '.join(policy_names())} (default: sinks)")  # fmt: skip
    parser.add_argument(
        "--max-batch", type=int, metavar="N", default=256, help="cap on any batch (default: 256)"
    )
    parser.add_argument("--sweep", metavar="auto|N[,N...]", default=None,
                        help="also time steady decode steps at these batch sizes (auto: 1, 2, 4, ... up to the "
                        "first limit's batch)")  # fmt: skip
    parser.add_argument("--threads", type=int, metavar="N", default=None, help="torch intra-op threads")
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
    limits = parse_list(args.cache_limit, _count("--cache-limit", 2), option="--cache-limit")
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
    settings = ThroughputSettings(memory=memory, tokens=args.tokens, limits=tuple(limits),
                                  policies=tuple(policies), sweep=sweep, max_batch=args.max_batch)  # fmt: skip
    result = run_throughput(loaded.model, settings, progress=lambda text: status(args, text))
    result["model"] = loaded.source
    lines = report_lines(result)
    if args.plot:
        plot_throughput(result, args.plot)
        status(args, f"plot written to {args.plot}")
    if args.json == "-":
        print(json.dumps(result, indent=1))
        print("\n".join(lines), file=sys.stderr)
    else:
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print("\n".join(lines))
    return 0


def _count(option: str, least: int) -> Any:
    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < least:
            raise CLIError(f"{option} takes ints >= {least}; got {text!r}")
        return int(text)

    return parse
