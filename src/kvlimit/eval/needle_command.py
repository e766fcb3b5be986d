"""`kvlimit needle`: retrieval through a bounded cache, a fact planted in a long text and asked for at the end.

Contract: `register(subparsers)` adds the `needle` subcommand; `run(args) -> int` returns 0 when the
evaluation finished. The filler is TEXT_FILE, or the Botchan corpus (`corpus`, the default); the
evaluation is `kvlimit.eval.needle.needle_in_haystack`. stdout: a table (one row per run: accuracy
per context and overall), or with `--json` one JSON object; `--plot FILE.png` writes the heat map.
stderr: the load message and one line per finished run unless `--quiet`. Option errors exit 2
before the model loads.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..clitools import (
    CLIError,
    add_common_arguments,
    add_model_arguments,
    add_policy_settings,
    add_recall_list_argument,
    check_number,
    cli_names,
    load_with_status,
    parse_list,
    policy_name,
    policy_settings_from_args,
    recall_values,
    status,
)
from ..config import LimitConfig, recall_slots
from ..policies import make_policy, policy_names, settings_for
from .needle import DEPTHS, NeedleResult, needle_in_haystack, plot_needle

__all__ = ["register", "run"]

_EPILOG = """\
examples:
  kvlimit needle --context 1024,2048 --cache-limit 128,256,512 --policy sinks,tova,h2o,snapkv --plot needle.png
  kvlimit needle --context 1024,2048 --cache-limit 128,256 --policy sinks,tova --recall 0,0.25,0.5 --plot needle.png
  kvlimit needle book.txt --model ./my-model --context 4096 --cache-limit 1024 --policy tova --json
"""


def register(subparsers: Any) -> None:
    """Add the `needle` subcommand to `subparsers`."""
    parser = subparsers.add_parser(
        "needle",
        help="retrieval: a fact planted in a long text, asked for at the end, through bounded caches",
        description="Plant a short fact (a secret number) at several depths of a long text, ask for it at "
        "the end, and score exact match for the stock unbounded cache and every --policy at every "
        "--cache-limit. Prints a table, or one JSON object with --json.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("text", metavar="TEXT_FILE", nargs="?", default="corpus",
                        help="the filler text: a UTF-8 file, or 'corpus' (default) for the Botchan novel")  # fmt: skip
    runs = parser.add_argument_group("runs")
    runs.add_argument("--context", metavar="N[,N...]", default="1024,2048",
                      help="prompt lengths in tokens, comma-separated (default: 1024,2048)")  # fmt: skip
    runs.add_argument("--cache-limit", metavar="N[,N...]", default="128,256,512",
                      help="cache limits in tokens, comma-separated (default: 128,256,512)")  # fmt: skip
    runs.add_argument("--policy", metavar="P[,P...]", default="sinks,tova,h2o,snapkv",
                      help=f"policies, comma-separated, from {', '.join(policy_names())} (default: sinks,tova,h2o,snapkv)")  # fmt: skip
    add_policy_settings(runs)
    add_recall_list_argument(runs)
    runs.add_argument("--depths", metavar="F[,F...]", default=",".join(map(str, DEPTHS)),
                      help="needle depths as fractions of the context (default: 0.1,0.3,0.5,0.7,0.9)")  # fmt: skip
    runs.add_argument("--numbers", type=int, metavar="N", default=3,
                      help="needles (secret numbers) per context and depth (default: 3)")  # fmt: skip
    runs.add_argument("--no-full", action="store_true", help="skip the stock unbounded cache")
    runs.add_argument(
        "--seed", type=int, metavar="N", default=0, help="seeds the secret numbers (default: 0)"
    )
    add_model_arguments(parser)
    output = parser.add_argument_group("results")
    output.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    output.add_argument("--plot", metavar="FILE.png", default=None, help="write the heat map to a PNG")
    add_common_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run `kvlimit needle` for parsed `args`; returns the exit status."""
    contexts = parse_list(args.context, _count("--context"), option="--context")
    limits = parse_list(args.cache_limit, _count("--cache-limit"), option="--cache-limit")
    names = parse_list(args.policy, policy_name, option="--policy")
    depths = parse_list(args.depths, _fraction, option="--depths")
    check_number(args.numbers, "--numbers", at_least=1)
    check_number(args.seed, "--seed", at_least=0)
    if args.plot and not str(args.plot).lower().endswith(".png"):
        raise CLIError(f"--plot writes a PNG; give a file name ending in .png, not {args.plot!r}")
    settings = policy_settings_from_args(args, names)
    policies = [make_policy(name, **settings_for(name, **settings)) for name in names]
    recalls = recall_values(args.recall)
    for policy in policies:
        for limit in limits:
            try:
                policy.check_limit(limit)
                for value in recalls if not policy.per_layer else []:
                    LimitConfig.create(limit, policy, recall=recall_slots(value, limit) or None)
            except ValueError as exc:
                raise CLIError(cli_names(f"{exc} (--cache-limit {limit}, --recall {args.recall})")) from exc
    filler_text = _filler(args.text)
    loaded = load_with_status(args)
    filler = loaded.tokenizer(filler_text, add_special_tokens=False)["input_ids"]
    if len(filler) < max(contexts):
        raise CLIError(f"the filler has {len(filler)} tokens; --context {max(contexts)} needs more")
    result = needle_in_haystack(
        loaded.model, loaded.tokenizer, filler, contexts=contexts, limits=limits, policies=policies,
        depths=depths, numbers=args.numbers, seed=args.seed, full=not args.no_full, recalls=recalls or [0],
        progress=lambda text: status(args, f"needle: {text}"),
    )  # fmt: skip
    if args.plot:
        plot_needle(result, args.plot, title=f"needle in a haystack: {loaded.source}")
        status(args, f"plot written to {args.plot}")
    print(json.dumps({"model": loaded.source, **result.to_dict()}, indent=1) if args.json else table(result))
    sys.stdout.flush()
    return 0


def table(result: NeedleResult) -> str:
    """One row per run: accuracy at each context length and overall."""
    header = ["run", *(f"{c} tokens" for c in result.contexts), "all"]
    rows = [header]
    for run_name in result.runs:
        per_context = []
        for context in result.contexts:
            cells = [c for c in result.cells if c.run == run_name and c.context_tokens == context]
            per_context.append(f"{sum(c.correct for c in cells) / sum(c.total for c in cells):.2f}")
        rows.append([run_name, *per_context, f"{result.accuracy(run_name):.2f}"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows)


def _filler(name: str) -> str:
    from .command import read_text

    return read_text(name)[1]


def _count(option: str) -> Any:
    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < 1:
            raise CLIError(f"{option} takes positive token counts; got {text!r}")
        return int(text)

    return parse


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CLIError(f"--depths takes fractions between 0 and 1; got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise CLIError(f"--depths takes fractions between 0 and 1; got {text!r}")
    return value
