"""`kvlimit attention-recall`: the share of the full cache's attention a bounded cache still attends.

Contract: `register(subparsers)` adds the subcommand; `run(args) -> int` returns 0 when the
measurement finished. The text is TEXT_FILE or the Botchan corpus (`corpus`, the default), its first
`--tokens` tokens (from `--offset`); the measurement is `kvlimit.eval.attention_recall`. stdout: one
row per configuration (its share, the oracle's, the share of the oracle it reaches, sinks alone),
or with `--json` one JSON object; `--plot FILE.png` draws the share per layer and over the text.
stderr: the load message and progress unless `--quiet`. Option errors exit 2 before the model loads.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import torch

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
    recall_score_name,
    recall_values,
    status,
)
from ..config import RECALL_SCORES, LimitConfig, recall_slots
from ..policies import make_policy, policy_names, settings_for
from .attention_recall import ConfigRecall, attention_recall, plot, to_dict

__all__ = ["register", "run"]

_EPILOG = """\
examples:
  kvlimit attention-recall --cache-limit 256 --recall 0,64,128 --plot attention-recall.png
  kvlimit attention-recall book.txt --tokens 4096 --start 1024 --cache-limit 1024 --recall 0,0.25 --json
"""


def register(subparsers: Any) -> None:
    """Add the `attention-recall` subcommand to `subparsers`."""
    parser = subparsers.add_parser(
        "attention-recall",
        help="how much of the full cache's attention a bounded cache still attends, per layer",
        description="Feed a text through each bounded configuration (the first --start tokens as a prompt, "
        "then one token per decode step) and, every --every steps, measure per layer and KV head the share "
        "of the full cache's attention (the softmax of the same query over every past token) that falls on "
        "the tokens the step attended; beside it the best share of as many tokens (the oracle) and the "
        "share of sinks alone at the same limit. Prints a table, or one JSON object with --json.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("text", metavar="TEXT_FILE", nargs="?", default="corpus",
                        help="a UTF-8 text file, or 'corpus' (default) for the Botchan novel")  # fmt: skip
    runs = parser.add_argument_group("runs")
    runs.add_argument("--cache-limit", metavar="N[,N...]", default="256",
                      help="cache limits in tokens, comma-separated (default: 256)")  # fmt: skip
    runs.add_argument("--policy", metavar="P[,P...]", default="sinks",
                      help=f"policies, comma-separated, from {', '.join(policy_names())} (default: sinks)")  # fmt: skip
    add_policy_settings(runs)
    add_recall_list_argument(runs)
    runs.add_argument("--recall-score", metavar="S[,S...]", default="distance",
                      help=f"how recalled blocks are chosen, comma-separated, from {', '.join(RECALL_SCORES)} "
                      "(default: distance); each recall tier runs with each")  # fmt: skip
    runs.add_argument("--recall-block", metavar="N[,N...]", default=None,
                      help="tokens per recall block, comma-separated (default: kvlimit's, 4 where it divides "
                      "the recall tier); each recall tier runs with each")  # fmt: skip
    runs.add_argument(
        "--tokens", type=int, metavar="N", default=1024, help="tokens of the text (default: 1024)"
    )
    runs.add_argument("--start", type=int, metavar="N", default=None,
                      help="tokens fed as the prompt before the measured decode steps (default: a quarter)")  # fmt: skip
    runs.add_argument("--every", type=int, metavar="N", default=4,
                      help="measure every N-th decode step (default: 4)")  # fmt: skip
    runs.add_argument("--offset", type=int, metavar="N", default=0,
                      help="start the text at this token (default: 0)")  # fmt: skip
    add_model_arguments(parser)
    output = parser.add_argument_group("results")
    output.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    output.add_argument("--plot", metavar="FILE.png", default=None, help="write the figure to a PNG")
    add_common_arguments(parser)
    parser.set_defaults(handler=run)


def _configs(args: argparse.Namespace) -> dict[str, LimitConfig]:
    """Every (policy, limit, recall, recall score, recall block) of the arguments, named like `kvlimit ppl`'s
    runs."""
    limits = parse_list(args.cache_limit, _count("--cache-limit"), option="--cache-limit")
    names = parse_list(args.policy, policy_name, option="--policy")
    scores = parse_list(args.recall_score, recall_score_name, option="--recall-score")
    blocks: list[int | None] = (
        [None] if args.recall_block is None else parse_list(args.recall_block, _count("--recall-block", 1),
                                                            option="--recall-block")
    )  # fmt: skip
    settings = policy_settings_from_args(args, names)
    configs = {}
    for name in names:
        policy = make_policy(name, **settings_for(name, **settings))
        for limit in limits:
            for value in recall_values(args.recall) or [0] if not policy.per_layer else [0]:
                recall = recall_slots(value, limit)
                for score, block in [(s, b) for s in scores for b in blocks] if recall else [(None, None)]:
                    tier = ""  # without recall, no score or block
                    if recall:
                        tier = f"+recall{recall}" + (f"/{score}" if len(scores) > 1 else "")
                        tier += f"/b{block}" if block is not None else ""
                    try:
                        configs[f"{name}{tier}@{limit}"] = LimitConfig.create(
                            limit, policy, recall=recall or None, recall_score=score, recall_block=block
                        )
                    except ValueError as exc:
                        message = f"{exc} (--cache-limit {limit}, --recall {args.recall})"
                        raise CLIError(cli_names(message)) from exc
    return configs


def run(args: argparse.Namespace) -> int:
    """Run `kvlimit attention-recall` for parsed `args`; returns the exit status."""
    check_number(args.tokens, "--tokens", at_least=8)
    check_number(args.every, "--every", at_least=1)
    check_number(args.offset, "--offset", at_least=0)
    start = args.tokens // 4 if args.start is None else args.start
    if not 2 <= start < args.tokens:
        raise CLIError(f"--start must be at least 2 and below --tokens ({args.tokens}); got {start}")
    if args.plot and not str(args.plot).lower().endswith(".png"):
        raise CLIError(f"--plot writes a PNG; give a file name ending in .png, not {args.plot!r}")
    configs = _configs(args)
    from .command import read_text

    text = read_text(args.text)[1]
    loaded = load_with_status(args)
    ids = loaded.tokenizer(text, add_special_tokens=False)["input_ids"][
        args.offset : args.offset + args.tokens
    ]
    if len(ids) < args.tokens:
        raise CLIError(
            f"the text has {len(ids)} tokens from --offset {args.offset}; --tokens {args.tokens} needs more"
        )
    device = next(loaded.model.parameters()).device
    results = attention_recall(
        loaded.model, torch.tensor([ids], device=device), configs, start=start, every=args.every,
        progress=lambda name, done, total: status(args, f"attention recall: {name} {done}/{total}"),
    )  # fmt: skip
    if args.plot:
        plot(results, args.plot, title=f"attention recall: {loaded.source}, {args.tokens} tokens")
        status(args, f"plot written to {args.plot}")
    meta = {"model": loaded.source, "tokens": args.tokens, "start": start, "every": args.every}
    print(json.dumps({**meta, **to_dict(results)}, indent=1) if args.json else table(results))
    sys.stdout.flush()
    return 0


def table(results: list[ConfigRecall]) -> str:
    """One row per configuration."""
    header = ["config", "share", "oracle", "of oracle", "sinks alone", "tokens attended", "lowest layer"]
    rows = [header]
    for r in results:
        rows.append([r.name, f"{r.share:.3f}", f"{r.oracle:.3f}", f"{r.of_oracle:.3f}", f"{r.sinks:.3f}",
                     f"{r.attended:.0f}", f"{min(r.per_layer):.3f}"])  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows)


def _count(option: str, least: int = 2) -> Any:
    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < least:
            raise CLIError(f"{option} takes token counts of at least {least}; got {text!r}")
        return int(text)

    return parse
