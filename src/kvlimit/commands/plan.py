"""`kvlimit plan`: how many sequences fit a memory budget, at each cache limit and with the stock cache.

Contract: loads the model, runs `kvlimit.plan` (which measures the model's cache bytes per token and,
by running generation briefly at each limit, what generation adds to the process) and prints a
table, or one JSON object with `--json`. Option errors exit 2 before the model loads.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..clitools import (
    CLIError,
    add_common_arguments,
    add_kv_storage_arguments,
    add_model_arguments,
    add_recall_arguments,
    check_number,
    cli_names,
    format_bytes,
    kv_storage_from_args,
    load_with_status,
    parse_list,
    recall_from_args,
)
from ..config import LimitConfig, parse_bytes
from ..planner import DEFAULT_LIMITS, MemoryPlan, plan

DEFAULT_NEW_TOKENS = 8192


def register(subparsers: Any) -> None:
    """Add the `plan` subcommand to `subparsers`."""
    parser = subparsers.add_parser(
        "plan",
        help="how many sequences fit a memory budget, bounded and unbounded",
        description="Measure the model's cache bytes per token and, by running generation briefly at each "
        "--cache-limit (1 and 2 sequences, then the batch that fits and its half, up to 16), what generation adds "
        "to the process, then say how many sequences (each of --num-beams rows) fit --memory when generating --max-new-tokens tokens: "
        "at each --cache-limit, and with the stock unbounded cache.",
    )
    parser.add_argument("--memory", metavar="SIZE|auto", default="auto",
                        help="memory generation may use on top of what the process holds, such as 8GiB, or "
                        "auto: what the device has free (default: auto)")  # fmt: skip
    parser.add_argument("--max-new-tokens", "--new-tokens", dest="new_tokens", type=int, metavar="N",
                        default=DEFAULT_NEW_TOKENS,
                        help=f"tokens each sequence generates, as generate's --max-new-tokens (default: "
                        f"{DEFAULT_NEW_TOKENS}; --new-tokens is its old name)")  # fmt: skip
    parser.add_argument("--prompt-tokens", type=int, metavar="N", default=64,
                        help="tokens of each prompt (default: 64)")  # fmt: skip
    parser.add_argument(
        "--num-beams", type=int, metavar="N", default=1, help="beams per sequence (default: 1)"
    )
    parser.add_argument("--cache-limit", metavar="N[,N...]", default=",".join(map(str, DEFAULT_LIMITS)),
                        help="cache limits to plan, comma-separated (default: 256,1024,4096)")  # fmt: skip
    add_kv_storage_arguments(parser)
    add_recall_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    add_model_arguments(parser)
    add_common_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    check_number(args.new_tokens, "--max-new-tokens", at_least=1)
    check_number(args.prompt_tokens, "--prompt-tokens", at_least=1)
    check_number(args.num_beams, "--num-beams", at_least=1)
    limits = parse_list(args.cache_limit, _limit, option="--cache-limit")
    storage = kv_storage_from_args(args)
    memory: int | str = args.memory
    if args.memory != "auto":
        try:
            memory = parse_bytes(args.memory, parameter="--memory")
        except ValueError as exc:
            raise CLIError(str(exc)) from exc
    try:
        config = LimitConfig.create(min(limits), "sinks", **storage, **recall_from_args(args))
    except ValueError as exc:
        raise CLIError(cli_names(str(exc))) from exc
    loaded = load_with_status(args)
    result = plan(loaded.model, memory=memory, new_tokens=args.new_tokens, num_beams=args.num_beams,
                  prompt_tokens=args.prompt_tokens, limits=limits, config=config)  # fmt: skip
    print(
        json.dumps({"model": loaded.source, **result.to_dict()}, indent=1)
        if args.json
        else table(result, loaded.source)
    )
    return 0


def table(result: MemoryPlan, source: str) -> str:
    """The plan as text: what was measured, then one row per cache limit and one for the stock cache."""
    lines = [
        f"model {source}: {format_bytes(result.model_bytes)} of weights on {result.device}; the process holds "
        f"{format_bytes(result.process_bytes)} now",
        f"measured: {result.kv_bytes_per_token} cache bytes per token and row; each limit's growth by running "
        f"generation at it (the stock cache's: its cache plus a forward's transient, "
        f"{format_bytes(result.transient_fixed_bytes)} + {format_bytes(result.transient_per_row_bytes)} per row)",
        f"budget {format_bytes(result.memory)} for {result.new_tokens} new tokens after a {result.prompt_tokens}-token "
        f"prompt, {result.num_beams} beam(s) per sequence:",
    ]
    if result.kv_dtype is not None:
        lines.insert(
            2,
            f"bounded rows store {result.kv_dtype}: {result.stored_bytes_per_token} bytes per token and row, "
            f"{result.sink_bytes_per_row} bytes of float sinks per row, and a forward dequantizes one layer "
            f"({result.dequantized_bytes_per_token} bytes per token and row, held in the probes)",
        )
    if result.recall:
        bound = (
            ""
            if result.recall_store_tokens is None
            else f", at most {result.recall_store_tokens} tokens per row"
        )
        bound += (
            ""
            if result.recall_store_total_bytes is None
            else f", at most {format_bytes(result.recall_store_total_bytes)}"
        )
        lines.insert(
            -1,
            f"recall: {result.recall} slots of each limit recalled; the store keeps every evicted token{bound} in "
            f"blocks of {result.recall_block_tokens} ({result.recall_block_bytes} bytes per row)"
            + ("" if result.device.startswith("cpu") else ", in host memory (not in the budget)"),
        )  # fmt: skip
    header = ["cache limit", "cache per sequence", "growth: fixed + per row", "sequences", "predicted peak"]
    if result.recall:
        header.insert(2, "recall store per sequence")
    rows = [header]
    for row in [*result.rows, *([result.stock] if result.stock else [])]:
        fixed, per_row = result.growth_model(row.cache_limit)
        cells = [
            "stock (unbounded)" if row.cache_limit is None else str(row.cache_limit),
            format_bytes(row.cache_bytes_per_sequence),
            f"{format_bytes(fixed)} + {format_bytes(per_row)}",
            str(row.sequences),
            "-" if row.predicted_peak_bytes is None else format_bytes(row.predicted_peak_bytes),
        ]
        if result.recall:
            cells.insert(2, "-" if row.cache_limit is None else format_bytes(row.recall_bytes_per_sequence))
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)


def _limit(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 2:
        raise CLIError(f"--cache-limit takes token counts >= 2; got {text!r}")
    return int(text)
