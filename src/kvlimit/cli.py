"""The `kvlimit` command line: `generate` and `info` here, `ppl` and `bench` from their own modules.

Contract
--------
- `main(argv=None) -> int` parses `argv` (default `sys.argv[1:]`), runs the subcommand's handler and
  returns the exit status: 0 on success; 2 for anything the user can fix, printed as the one line
  `kvlimit: error: ...` on stderr without a traceback (`--debug` shows it); argparse's own usage
  errors also exit 2; 130 after Ctrl-C (`generate` first prints the summary of what it generated);
  141 when stdout is closed early (e.g. piped into `head`).
- Subcommands: every module in `_SUBCOMMAND_MODULES` exposes `register(subparsers) -> None`, which adds
  its parser and `set_defaults(handler=fn)` with `fn(args) -> int`. A module that does not exist
  (yet) is skipped. Handlers raise `CLIError`, `ModelLoadError`, `UnsupportedModelError` or
  `ValueError` for user errors; `main` turns those into the one line and exit status 2.
- `generate`: stdout carries only the generated text, streamed as it is decoded (with `--json`:
  nothing but one JSON object at the end). Everything else -- the load message, the progress line,
  the summary -- goes to stderr, and `--quiet` silences it. The progress line is drawn only when
  stderr is a terminal and the text is not streaming into a terminal (there it would overwrite
  the text; the text itself then shows the progress).
- `info`: what the bounded cache sees in a model, and how many tokens fit in a memory budget.

The library logs and never prints; this module is where printing happens.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

import torch
import transformers
from transformers import StoppingCriteria, StoppingCriteriaList
from transformers.generation.streamers import BaseStreamer

from . import __version__
from .cache import BoundedCache
from .clitools import (
    CLIError,
    Progress,
    add_common_arguments,
    add_model_arguments,
    check_number,
    format_bytes,
    load_from_args,
    loading_message,
    parse_limit,
)
from .config import LimitConfig, parse_bytes
from .generation import build_cache, kv_bytes_per_token
from .generation import generate as bounded_generate
from .integrations.hf import ModelSpec, UnsupportedModelError, inspect_model, text_config
from .models import LoadedModel, ModelLoadError
from .policies import POLICIES

PROG = "kvlimit"
#: Modules of other subcommands, each with `register(subparsers)`.
_SUBCOMMAND_MODULES = ("kvlimit.eval.command", "kvlimit.bench.command")

DEFAULT_CACHE_LIMIT = "1024"
DEFAULT_N_SINK = 4
DEFAULT_MAX_NEW_TOKENS = 1000
# Sampling defaults: greedy decoding of small models falls into loops within a few hundred tokens,
# which defeats the point of generating long text; these are the usual chat-model settings.
DEFAULT_TEMPERATURE = 0.7
DEFAULT_TOP_P = 0.9
DEFAULT_MEMORY = "1GiB"

#: Tokens the streamer waits for an incomplete UTF-8 character before writing it as U+FFFD.
_MAX_HELD_BACK = 8

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


# --- parser ------------------------------------------------------------------------------------------


class _ParagraphFormatter(argparse.HelpFormatter):
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


def build_parser() -> tuple[argparse.ArgumentParser, list[str]]:
    """The top-level parser, and the names of the subcommand modules that were found."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Generate text with a bounded KV cache: the cache never holds more than --cache-limit "
        "tokens per sequence, so generation runs in bounded memory however long it goes.",
        epilog="examples:\n"
        '  kvlimit generate "Write a long story about a lighthouse keeper." --cache-limit 256 '
        "--max-new-tokens 2000\n"
        '  kvlimit generate "Once upon a time" --model ./my-model --raw --cache-limit 64MiB --greedy\n'
        "  kvlimit info --model ./model.gguf --memory 2GiB\n\n"
        "Run `kvlimit COMMAND --help` for a command's options. Without --model the embedded "
        "SmolLM2-135M-Instruct is used; only local files are read.",
        formatter_class=_ParagraphFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    # Also accepted before the command, so it works for every subcommand whatever options it defines.
    parser.add_argument(
        "--debug", dest="debug_global", action="store_true", help="show full tracebacks (any command)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _register_generate(subparsers)
    _register_info(subparsers)
    found = []
    for name in _SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            # Only the module itself being absent is expected (its subcommand is not written yet);
            # a missing import *inside* it is a bug and must show.
            if exc.name is not None and name.startswith(exc.name):
                continue
            raise
        module.register(subparsers)
        found.append(name)
    return parser, found


def _register_generate(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "generate",
        help="generate text with a bounded KV cache, streaming it to stdout",
        description="Generate text from PROMPT with a KV cache bounded to --cache-limit tokens per sequence. "
        "The text streams to stdout as it is generated; the load message, a progress line (on a terminal) "
        "and a final summary -- tokens, tokens/s, the cache's size and what an unbounded cache would "
        "have needed -- go to stderr. Ctrl-C stops generation, prints the summary and exits with 130.",
        epilog="decoding: by default tokens are sampled with temperature 0.7 and top-p 0.9 (no top-k, no "
        "repetition penalty); --temperature/--top-p/--top-k/--repetition-penalty change one setting "
        "and keep the other defaults. --greedy always takes the most likely token. --num-beams N "
        "runs beam search, deterministic unless --temperature, --top-p or --top-k is given (then beam "
        "sampling); transformers cannot stream beam search, so its text is printed when it ends (and "
        "Ctrl-C leaves none).\n\n"
        "prompt: a model whose tokenizer has a chat template (an instruct model, such as the embedded "
        "SmolLM2-135M-Instruct) gets PROMPT as a user message with the assistant turn opened; --raw "
        "feeds PROMPT as plain text.\n\n"
        "exit status: 0 done, 2 usage or model error, 130 interrupted (Ctrl-C).",
        formatter_class=_ParagraphFormatter,
    )
    parser.add_argument("prompt", metavar="PROMPT", help="the prompt text; - reads it from stdin")
    parser.add_argument(
        "--raw",
        action="store_true",
        help="send PROMPT as is, without the model's chat template (models without one always get it as is)",
    )

    cache = parser.add_argument_group("cache")
    cache.add_argument(
        "--cache-limit",
        metavar="N|SIZE",
        default=DEFAULT_CACHE_LIMIT,
        help="most tokens the KV cache holds per sequence, or a memory budget for the whole cache "
        f"such as 64MiB or 1.5GB, covering all layers and beams (default: {DEFAULT_CACHE_LIMIT} tokens)",
    )
    cache.add_argument(
        "--policy",
        default="sinks",
        metavar="|".join(POLICIES),
        help="what to evict once the cache is full: sinks = keep the first --n-sink tokens and the most "
        "recent ones (StreamingLLM); window = keep the most recent ones; knorm = per layer, keep the "
        "first --n-sink tokens, the --n-recent newest and otherwise the keys of smallest L2 norm "
        "(default: sinks)",
    )
    cache.add_argument(
        "--n-sink",
        type=int,
        metavar="N",
        default=None,
        help=f"tokens at the start that --policy sinks and knorm never evict (default: {DEFAULT_N_SINK})",
    )
    cache.add_argument(
        "--n-recent",
        type=int,
        metavar="N",
        default=None,
        help="newest tokens --policy knorm keeps by recency (default: a quarter of the cache)",
    )

    decoding = parser.add_argument_group("decoding")
    decoding.add_argument(
        "--max-new-tokens",
        type=int,
        metavar="N",
        default=DEFAULT_MAX_NEW_TOKENS,
        help=f"the most new tokens to generate; generation also stops at the end-of-sequence token "
        f"unless --ignore-eos (default: {DEFAULT_MAX_NEW_TOKENS})",
    )
    decoding.add_argument(
        "--ignore-eos",
        action="store_true",
        help="never stop at the end-of-sequence token: generate exactly --max-new-tokens tokens",
    )
    decoding.add_argument(
        "--greedy", action="store_true", help="always take the most likely token (no sampling)"
    )
    decoding.add_argument(
        "--temperature",
        type=float,
        metavar="T",
        default=None,
        help=f"sampling temperature, > 0 (default: {DEFAULT_TEMPERATURE})",
    )
    decoding.add_argument(
        "--top-p",
        type=float,
        metavar="P",
        default=None,
        help=f"nucleus sampling: sample from the most likely tokens whose probabilities add up to P, "
        f"0 < P <= 1 (default: {DEFAULT_TOP_P})",
    )
    decoding.add_argument(
        "--top-k",
        type=int,
        metavar="K",
        default=None,
        help="sample from the K most likely tokens only, K >= 1 (default: no top-k)",
    )
    decoding.add_argument(
        "--repetition-penalty",
        type=float,
        metavar="R",
        default=None,
        help="penalise tokens already in the prompt or the text by the factor R > 0; above 1 discourages "
        "repeats (default: 1, off)",
    )
    decoding.add_argument(
        "--num-beams",
        type=int,
        metavar="N",
        default=1,
        help="beam search with N beams (default: 1, no beams)",
    )
    decoding.add_argument(
        "--seed", type=int, metavar="N", default=None, help="random seed, for repeatable sampling"
    )

    add_model_arguments(parser)

    output = parser.add_argument_group("output")
    output.add_argument(
        "--output", metavar="FILE", default=None, help="also write the generated text to FILE"
    )
    output.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (the text and the summary's numbers) on stdout at the end "
        "instead of streaming the text",
    )
    output.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing on stderr but errors (no progress, no summary)",
    )
    output.add_argument(
        "--debug", action="store_true", help="show full tracebacks and kvlimit's log messages on stderr"
    )
    parser.set_defaults(handler=run_generate)


def _register_info(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "info",
        help="what the bounded cache sees in a model, and how many cache tokens fit in memory",
        description="Load a model and print its family, positional scheme, layers (and sliding-window "
        "layers), the KV bytes one token takes, and how many tokens of cache fit in --memory for one "
        "sequence. Exits with 2 when kvlimit does not support the model.",
    )
    parser.add_argument(
        "--memory",
        metavar="SIZE",
        default=DEFAULT_MEMORY,
        help=f"memory budget for the KV cache, such as 512MiB or 2GB (default: {DEFAULT_MEMORY})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    add_model_arguments(parser)
    add_common_arguments(parser)
    parser.set_defaults(handler=run_info)


# --- main --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    parser, _ = build_parser()
    args = parser.parse_args(argv)  # usage errors: argparse prints them and exits 2
    debug = bool(getattr(args, "debug", False) or args.debug_global)
    if debug:
        logging.basicConfig(level=logging.WARNING, format="%(name)s: %(levelname)s: %(message)s")
        logging.getLogger("kvlimit").setLevel(logging.INFO)
    try:
        with _transformers_output(verbose=debug):
            return int(args.handler(args))
    except (CLIError, ModelLoadError, UnsupportedModelError, ValueError) as exc:
        if debug:
            raise
        _error(exc)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if debug:
            raise
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`kvlimit generate ... | head`): stop quietly. Point stdout at
        # /dev/null so that the interpreter's final flush does not raise again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return EXIT_BROKEN_PIPE


@contextlib.contextmanager
def _transformers_output(*, verbose: bool) -> Iterator[None]:
    """Silence transformers' warnings and progress bars (unless --debug) for the command's duration.

    transformers warns about generation settings it finds odd (e.g. a model whose generation config
    samples, run with --greedy) and draws a bar while loading weights; on a command line whose
    options are checked here, that is noise between the text and the summary. Restored afterwards,
    because `main` also runs inside other programs (and the tests).
    """
    if verbose:
        yield
        return
    verbosity = transformers.logging.get_verbosity()
    bars = transformers.logging.is_progress_bar_enabled()
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    try:
        yield
    finally:
        transformers.logging.set_verbosity(verbosity)
        if bars:
            transformers.logging.enable_progress_bar()


def _error(exc: BaseException) -> None:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    message = lines[0] if lines else type(exc).__name__
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _status(args: argparse.Namespace, text: str) -> None:
    if not getattr(args, "quiet", False):
        print(f"{PROG}: {text}", file=sys.stderr, flush=True)


def _load(args: argparse.Namespace) -> LoadedModel:
    _status(args, loading_message(args.model))
    loaded = load_from_args(args)
    _status(args, f"loaded {loaded.source} in {loaded.load_seconds:.1f} s")
    return loaded


# --- generate ----------------------------------------------------------------------------------------


@dataclass
class Decoding:
    """The generate keyword arguments the decoding options turn into, and how to describe them."""

    kwargs: dict[str, Any]
    description: str


def decoding_from_args(args: argparse.Namespace) -> Decoding:
    """Validate the decoding options (`CLIError` naming the option) and build generate's arguments."""
    check_number(args.max_new_tokens, "--max-new-tokens", at_least=1)
    check_number(args.num_beams, "--num-beams", at_least=1)
    check_number(args.temperature, "--temperature", above=0)
    check_number(args.top_p, "--top-p", above=0, at_most=1)
    check_number(args.top_k, "--top-k", at_least=1)
    check_number(args.repetition_penalty, "--repetition-penalty", above=0)
    check_number(args.seed, "--seed", at_least=0)
    sampling_given = [
        name
        for name, value in (
            ("--temperature", args.temperature),
            ("--top-p", args.top_p),
            ("--top-k", args.top_k),
        )
        if value is not None
    ]
    if args.greedy and sampling_given:
        raise CLIError(f"--greedy takes no sampling options; drop {', '.join(sampling_given)} or --greedy")
    do_sample = not args.greedy and (args.num_beams == 1 or bool(sampling_given))
    kwargs: dict[str, Any] = {
        "max_new_tokens": args.max_new_tokens,
        "num_beams": args.num_beams,
        "do_sample": do_sample,
        "repetition_penalty": 1.0 if args.repetition_penalty is None else args.repetition_penalty,
    }
    if args.ignore_eos:
        # Suppresses every end-of-sequence id of the generation config until max_new_tokens.
        kwargs["min_new_tokens"] = args.max_new_tokens
    if do_sample:
        # Explicit values, so a model's own generation config cannot silently change what --help says.
        kwargs["temperature"] = DEFAULT_TEMPERATURE if args.temperature is None else args.temperature
        kwargs["top_p"] = DEFAULT_TOP_P if args.top_p is None else args.top_p
        kwargs["top_k"] = 0 if args.top_k is None else args.top_k  # 0: no top-k filter
        parts = [f"temperature {kwargs['temperature']:g}", f"top-p {kwargs['top_p']:g}"]
        if kwargs["top_k"]:
            parts.append(f"top-k {kwargs['top_k']}")
        what = "beam sampling" if args.num_beams > 1 else "sampling"
        description = f"{what} ({', '.join(parts)})"
    else:
        description = "beam search" if args.num_beams > 1 else "greedy"
    if args.num_beams > 1:
        description += f", {args.num_beams} beams"
    if kwargs["repetition_penalty"] != 1.0:
        description += f", repetition penalty {kwargs['repetition_penalty']:g}"
    if args.seed is not None:
        description += f", seed {args.seed}"
    return Decoding(kwargs, description)


def limit_config_from_args(args: argparse.Namespace) -> LimitConfig:
    """The validated `--cache-limit`/`--policy`/`--n-sink`/`--n-recent` (errors name what is allowed)."""
    limit = parse_limit(args.cache_limit)
    policy = args.policy.strip().lower()
    settings = POLICIES[policy].settings() if policy in POLICIES else ()
    n_sink, n_recent = args.n_sink, getattr(args, "n_recent", None)
    for value, option, setting in ((n_sink, "--n-sink", "n_sink"), (n_recent, "--n-recent", "n_recent")):
        if value is None:
            continue
        check_number(value, option, at_least=0)
        if policy in POLICIES and setting not in settings:
            takers = [name for name, cls in POLICIES.items() if setting in cls.settings()]
            raise CLIError(f"{option} applies to --policy {' and '.join(takers)} only, not --policy {policy}")
    if "n_sink" in settings and n_sink is None:
        n_sink = DEFAULT_N_SINK
    try:
        return LimitConfig.create(limit, policy, n_sink=n_sink, n_recent=n_recent)
    except ValueError as exc:
        raise CLIError(_cli_names(str(exc))) from exc


def _cli_names(message: str) -> str:
    """The library names parameters as in Python; say them as the options the user typed."""
    for python, option in (
        ("cache_limit=", "--cache-limit "),
        ("n_sink=", "--n-sink "),
        ("n_recent=", "--n-recent "),
        ("policy=", "--policy "),
    ):
        message = message.replace(python, option)
    return message


class TextSink(BaseStreamer):
    """A transformers streamer that decodes tokens incrementally and writes the text as it comes.

    Decoding every token alone breaks multi-byte characters and (for SentencePiece vocabularies)
    the spaces that belong to a token, while re-decoding everything since the start each step is
    quadratic. So, as text-generation-inference does, each step decodes a short window twice --
    from `prefix` to `read` and from `prefix` to the end -- and writes what the second adds,
    unless it ends in an incomplete character (U+FFFD), which later tokens complete.
    """

    def __init__(self, tokenizer: Any, writers: list[TextIO], *, keep_text: bool):
        self.tokenizer = tokenizer
        self.writers = writers
        self.keep_text = keep_text
        self.parts: list[str] = []
        self.ids: list[int] = []
        self.prefix = 0
        self.read = 0
        self.prompt_skipped = False
        self.wrote_any = False
        self.last_char = ""

    def put(self, value: torch.Tensor) -> None:
        if not self.prompt_skipped:  # generate's first call carries the prompt
            self.prompt_skipped = True
            return
        self.ids.extend(int(t) for t in value.reshape(-1).tolist())
        self._emit(final=False)

    def end(self) -> None:
        self._emit(final=True)

    def _decode(self, ids: list[int]) -> str:
        return str(self.tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False))

    def _emit(self, *, final: bool) -> None:
        if self.read >= len(self.ids):
            return
        before = self._decode(self.ids[self.prefix : self.read])
        after = self._decode(self.ids[self.prefix :])
        held_back = len(self.ids) - self.read
        # A character split over tokens decodes to U+FFFD until its last byte arrives; wait for it,
        # but not forever (a model can emit invalid byte sequences, and the window must stay short).
        if len(after) <= len(before) or (
            after.endswith("\ufffd") and not final and held_back < _MAX_HELD_BACK
        ):
            return
        self.write(after[len(before) :])
        # Keep only the window still needed, so a run of any length holds a few ids.
        del self.ids[: self.read]
        self.prefix, self.read = 0, len(self.ids)

    def write(self, text: str) -> None:
        if not text:
            return
        for stream in self.writers:
            stream.write(text)
            stream.flush()
        if self.keep_text:
            self.parts.append(text)
        self.wrote_any = True
        self.last_char = text[-1]

    def finish_line(self) -> None:
        """End the output with a newline (the shell prompt must not follow the text on its line)."""
        if self.wrote_any and self.last_char != "\n":
            for stream in self.writers:
                stream.write("\n")
                stream.flush()

    @property
    def text(self) -> str:
        return "".join(self.parts)


class StepWatch(StoppingCriteria):
    """Called by generate after every step (beam search too): counts tokens, times them, draws progress.

    It never stops generation.
    """

    def __init__(self, prompt_length: int, cache: BoundedCache, progress: Progress):
        self.prompt_length = prompt_length
        self.cache = cache
        self.progress = progress
        self.generated = 0
        self.start = time.perf_counter()
        self.first_token_at: float | None = None

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        self.generated = int(input_ids.shape[-1]) - self.prompt_length
        now = time.perf_counter()
        if self.first_token_at is None and self.generated > 0:
            self.first_token_at = now
        elapsed = now - self.start
        rate = self.generated / elapsed if elapsed > 0 else 0.0
        self.progress.update(
            f"{self.generated} tokens, {rate:.1f} tokens/s, cache {held_tokens(self.cache)}/{self.cache.cache_limit}"
        )
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)


def _tokens(count: int) -> str:
    return f"{count} token" if count == 1 else f"{count} tokens"


def held_tokens(cache: BoundedCache) -> int:
    """The most tokens any row of the cache holds now."""
    return max(cache.stored_tokens(), default=0)


@dataclass
class RunReport:
    """What one `generate` run did: the summary on stderr and the fields of the --json object."""

    model: str
    model_type: str
    prompt_tokens: int
    generated_tokens: int
    stop_reason: str  # "max_new_tokens", "eos" or "interrupted"
    seconds: float
    first_token_seconds: float | None
    load_seconds: float
    rows: int
    cache_limit: int
    policy: str
    decoding: str
    cache_bytes: int
    cache_tokens_held: int
    kv_bytes_per_token: int
    cache_stats: dict[str, int] = field(default_factory=dict)
    text: str | None = None

    @property
    def tokens_per_second(self) -> float:
        return self.generated_tokens / self.seconds if self.seconds > 0 else 0.0

    @property
    def unbounded_cache_bytes(self) -> int:
        """What a cache keeping every token would hold at this length."""
        return self.kv_bytes_per_token * (self.prompt_tokens + self.generated_tokens) * self.rows

    def summary_lines(self) -> list[str]:
        stop = {
            "max_new_tokens": "stopped at --max-new-tokens",
            "eos": "stopped at the end-of-sequence token",
            "interrupted": "interrupted",
        }[self.stop_reason]
        first = (
            f", first token after {self.first_token_seconds:.2f} s"
            if self.first_token_seconds is not None
            else ""
        )
        total = self.prompt_tokens + self.generated_tokens
        ratio = self.unbounded_cache_bytes / self.cache_bytes if self.cache_bytes else 0.0
        rows = f" x {self.rows} beams" if self.rows > 1 else ""
        return [
            f"generated  {_tokens(self.generated_tokens)} in {self.seconds:.1f} s "
            f"({self.tokens_per_second:.1f} tokens/s{first}); prompt {_tokens(self.prompt_tokens)}; {stop}",
            f"decoding   {self.decoding}; policy {self.policy}",
            f"KV cache   {format_bytes(self.cache_bytes)} ({self.cache_bytes} bytes): limit {self.cache_limit} "
            f"tokens{rows}, {self.cache_tokens_held} held, {self.kv_bytes_per_token} bytes per token",
            f"unbounded  {format_bytes(self.unbounded_cache_bytes)} ({self.unbounded_cache_bytes} bytes) "
            f"for {total} tokens{rows}: {ratio:.1f}x the bounded cache",
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "model": self.model,
            "model_type": self.model_type,
            "prompt_tokens": self.prompt_tokens,
            "generated_tokens": self.generated_tokens,
            "stop_reason": self.stop_reason,
            "seconds": round(self.seconds, 4),
            "tokens_per_second": round(self.tokens_per_second, 3),
            "first_token_seconds": None
            if self.first_token_seconds is None
            else round(self.first_token_seconds, 4),
            "load_seconds": round(self.load_seconds, 4),
            "decoding": self.decoding,
            "policy": self.policy,
            "rows": self.rows,
            "cache_limit": self.cache_limit,
            "cache_bytes": self.cache_bytes,
            "cache_tokens_held": self.cache_tokens_held,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "unbounded_cache_bytes": self.unbounded_cache_bytes,
            "cache_stats": dict(self.cache_stats),
        }


def read_prompt(args: argparse.Namespace) -> str:
    prompt: str = sys.stdin.read() if args.prompt == "-" else args.prompt
    if not prompt.strip() and args.raw:
        raise CLIError("the prompt is empty; with --raw there is nothing to continue")
    return prompt


def encode_prompt(loaded: LoadedModel, prompt: str, *, raw: bool) -> dict[str, torch.Tensor]:
    """Token ids and attention mask (batch of 1) on the model's device."""
    tokenizer = loaded.tokenizer
    encoded: Any  # a BatchEncoding either way; the tokenizer stubs say less
    if loaded.is_instruct and not raw:
        messages = [{"role": "user", "content": prompt}]
        encoded = tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_dict=True, return_tensors="pt"
        )
    else:
        encoded = tokenizer(prompt, return_tensors="pt")
    input_ids = encoded["input_ids"]
    if input_ids.shape[-1] == 0:
        raise CLIError("the prompt encodes to no tokens; give some text")
    device = next(loaded.model.parameters()).device
    return {
        "input_ids": input_ids.to(device),
        "attention_mask": encoded.get("attention_mask", torch.ones_like(input_ids)).to(device),
    }


def _open_output(path: str | None) -> TextIO | None:
    # Opened before the model loads: a typo in the path should not cost a model load.
    if path is None:
        return None
    try:
        return open(path, "w", encoding="utf-8")  # closed by run_generate
    except OSError as exc:
        raise CLIError(f"cannot write --output {path}: {exc.strerror or exc}") from exc


def run_generate(args: argparse.Namespace) -> int:
    """`kvlimit generate`: see the parser's help and the module docstring."""
    decoding = decoding_from_args(args)
    config = limit_config_from_args(args)
    prompt = read_prompt(args)
    output = _open_output(args.output)
    try:
        return _generate(args, decoding, config, prompt, output)
    finally:
        if output is not None:
            output.close()


def _generate(
    args: argparse.Namespace, decoding: Decoding, config: LimitConfig, prompt: str, output: TextIO | None
) -> int:
    loaded = _load(args)
    model, tokenizer = loaded.model, loaded.tokenizer
    spec = inspect_model(model)
    inputs = encode_prompt(loaded, prompt, raw=args.raw)
    prompt_length = int(inputs["input_ids"].shape[-1])
    rows = args.num_beams
    bytes_per_token = kv_bytes_per_token(model)
    try:
        limit = config.tokens_for(bytes_per_token, rows)
    except ValueError as exc:
        raise CLIError(_cli_names(str(exc))) from exc
    # Built here rather than inside kvlimit.generate so that the summary can read it after Ctrl-C.
    cache = build_cache(model, spec, config, limit, prompt_length + args.max_new_tokens)

    streaming = args.num_beams == 1  # transformers refuses a streamer with beam search
    writers: list[TextIO] = []
    if streaming and not args.json:
        writers.append(sys.stdout)
    if output is not None:
        writers.append(output)
    sink = TextSink(tokenizer, writers, keep_text=args.json)
    text_on_terminal = bool(streaming and not args.json and sys.stdout.isatty())
    progress = Progress(sys.stderr, enabled=not args.quiet and sys.stderr.isatty() and not text_on_terminal)
    watch = StepWatch(prompt_length, cache, progress)
    if args.seed is not None:
        transformers.set_seed(args.seed)

    interrupted = False
    watch.start = time.perf_counter()
    try:
        out = bounded_generate(
            model,
            input_ids=inputs["input_ids"],
            attention_mask=inputs["attention_mask"],
            cache_limit=limit,
            policy=config.policy,
            cache=cache,
            streamer=sink if streaming else None,
            stopping_criteria=StoppingCriteriaList([watch]),
            pad_token_id=tokenizer.pad_token_id,
            **decoding.kwargs,
        )
    except KeyboardInterrupt:
        interrupted = True
        out = None
    seconds = time.perf_counter() - watch.start
    progress.clear()

    if out is not None:
        generated = int(out.shape[-1]) - prompt_length
        if not streaming:
            text = tokenizer.decode(
                out[0, prompt_length:], skip_special_tokens=True, clean_up_tokenization_spaces=False
            )
            if not args.json:
                sink.writers = [sys.stdout, *sink.writers]
            sink.write(str(text))
    else:
        generated = watch.generated
        sink.end()  # whatever the streamer still held back
    sink.finish_line()

    if interrupted:
        stop_reason = "interrupted"
    elif generated >= args.max_new_tokens:
        stop_reason = "max_new_tokens"
    else:
        stop_reason = "eos"
    report = RunReport(
        model=loaded.source,
        model_type=spec.model_type,
        prompt_tokens=prompt_length,
        generated_tokens=generated,
        stop_reason=stop_reason,
        seconds=seconds,
        first_token_seconds=None if watch.first_token_at is None else watch.first_token_at - watch.start,
        load_seconds=loaded.load_seconds,
        rows=rows,
        cache_limit=cache.cache_limit,
        policy=config.policy.describe(),
        decoding=decoding.description,
        cache_bytes=cache.nbytes(),
        cache_tokens_held=held_tokens(cache),
        kv_bytes_per_token=bytes_per_token,
        cache_stats=dict(cache.stats),
        text=sink.text if args.json else None,
    )
    if not args.quiet:
        for line in report.summary_lines():
            print(f"{PROG}: {line}", file=sys.stderr)
        sys.stderr.flush()
    if args.json:
        print(json.dumps(report.as_json(), ensure_ascii=False))
        sys.stdout.flush()
    return EXIT_INTERRUPTED if interrupted else 0


# --- info --------------------------------------------------------------------------------------------


def describe_layers(spec: ModelSpec) -> str:
    sliding = [
        w for t, w in zip(spec.layer_types, spec.sliding_windows, strict=True) if t == "sliding_attention"
    ]
    if not sliding:
        return f"{spec.num_layers}, all full attention"
    windows = ", ".join(str(w) for w in sorted({w for w in sliding if w is not None}))
    return (
        f"{spec.num_layers}: {spec.num_layers - len(sliding)} full attention, "
        f"{len(sliding)} sliding window ({windows} tokens)"
    )


def run_info(args: argparse.Namespace) -> int:
    """`kvlimit info`: see the parser's help."""
    try:
        memory = parse_bytes(args.memory, parameter="--memory")
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    loaded = _load(args)
    model = loaded.model
    spec = inspect_model(model)
    bytes_per_token = kv_bytes_per_token(model)
    dtype = str(next(model.parameters()).dtype).removeprefix("torch.")
    context = getattr(text_config(model), "max_position_embeddings", None)
    sliding = [
        w for t, w in zip(spec.layer_types, spec.sliding_windows, strict=True) if t == "sliding_attention"
    ]
    facts: dict[str, Any] = {
        "model": loaded.source,
        "model_type": spec.model_type,
        "positions": spec.positions,
        "scheme": spec.scheme,
        "layers": spec.num_layers,
        "sliding_layers": len(sliding),
        "sliding_windows": sorted({w for w in sliding if w is not None}),
        "position_bound": spec.position_bound,
        "dtype": dtype,
        "kv_bytes_per_token": bytes_per_token,
        "memory_bytes": memory,
        "tokens_in_memory": memory // bytes_per_token,
        "context_length": context if isinstance(context, int) else None,
        "chat_template": loaded.is_instruct,
    }
    if args.json:
        print(json.dumps(facts))
        return 0
    rows = [
        ("model", loaded.source),
        ("family", spec.model_type),
        ("positions", spec.scheme),
        ("layers", describe_layers(spec)),
        ("KV per token", f"{format_bytes(bytes_per_token)} ({bytes_per_token} bytes, {dtype}, all layers)"),
        (
            f"in {format_bytes(memory)}",
            f"{facts['tokens_in_memory']} tokens of cache for one sequence (--cache-limit {args.memory})",
        ),
    ]
    if facts["context_length"] is not None:
        full = facts["context_length"] * bytes_per_token
        rows.append(
            (
                "context",
                f"{facts['context_length']} tokens trained; an unbounded cache there: {format_bytes(full)}",
            )
        )
    if spec.position_bound is not None:
        rows.append(("positions <", f"{spec.position_bound} (the cache keeps positions below this)"))
    rows.append(("chat template", "yes (generate applies it unless --raw)" if loaded.is_instruct else "no"))
    width = max(len(name) for name, _ in rows) + 2
    for name, value in rows:
        print(f"{name:<{width}}{value}")
    return 0


if __name__ == "__main__":  # pragma: no cover -- `python -m kvlimit` goes through __main__.py
    sys.exit(main())
