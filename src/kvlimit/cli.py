"""The `kvlimit` command line: `main` and the subcommands it registers.

Contract
--------
- `main(argv=None) -> int` parses `argv` (default `sys.argv[1:]`), runs the subcommand's handler and
  returns the exit status: 0 on success; 2 for anything the user can fix, printed as the one line
  `kvlimit: error: ...` on stderr without a traceback (`--debug` shows it); argparse's own usage
  errors also exit 2; 130 after Ctrl-C (`generate` first prints the summary of what it generated);
  141 when stdout is closed early (e.g. piped into `head`).
- Subcommands: every module in `SUBCOMMANDS` exposes `register(subparsers) -> None`, which adds its
  parser and `set_defaults(handler=fn)` with `fn(args) -> int`: `generate`, `info` and `plan`
  (`kvlimit.commands`), `ppl` (`kvlimit.eval.command`), `needle` (`kvlimit.eval.needle_command`)
  `bench` (`kvlimit.bench.command`), `throughput` (`kvlimit.bench.throughput_command`) and `serve`
  (`kvlimit.commands.serve`, the OpenAI-compatible server; its dependencies load only when it runs).
  Handlers raise `CLIError`, `ModelLoadError`, `UnsupportedModelError` or `ValueError` for user
  errors; `main` turns those into the one line and exit status 2.

The library logs and never prints; the command modules are where printing happens.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from types import ModuleType

import transformers

from . import __version__
from .bench import command as bench_command
from .bench import throughput_command
from .clitools import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USAGE, PROG, CLIError, ParagraphFormatter
from .commands import generate as generate_command
from .commands import info as info_command
from .commands import plan as plan_command
from .commands import serve as serve_command
from .eval import attention_recall_command, needle_command
from .eval import command as ppl_command
from .integrations.hf import UnsupportedModelError
from .models import ModelLoadError

#: The subcommand modules, in the order `kvlimit --help` lists them.
SUBCOMMANDS: tuple[ModuleType, ...] = (
    generate_command,
    info_command,
    plan_command,
    ppl_command,
    needle_command,
    attention_recall_command,
    bench_command,
    throughput_command,
    serve_command,
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand of `SUBCOMMANDS`."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Generate text with a bounded KV cache: the cache never holds more than --cache-limit "
        "tokens per sequence, so generation runs in bounded memory however long it goes.",
        epilog="examples:\n"
        '  kvlimit generate "Write a long story about a lighthouse keeper." --cache-limit 256 '
        "--max-new-tokens 2000\n"
        '  kvlimit generate "Once upon a time" --model ./my-model --raw --cache-limit 64MiB --greedy\n'
        "  kvlimit info --model ./model.gguf --memory 2GiB\n"
        "  kvlimit serve --cache-limit 256 --batch-size 8 --port 8000\n\n"
        "Run `kvlimit COMMAND --help` for a command's options. Without --model the embedded "
        "SmolLM2-135M-Instruct is used; only local files are read.",
        formatter_class=ParagraphFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    # Also accepted before the command, so it works for every subcommand whatever options it defines.
    parser.add_argument(
        "--debug", dest="debug_global", action="store_true", help="show full tracebacks (any command)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in SUBCOMMANDS:
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    args = build_parser().parse_args(argv)  # usage errors: argparse prints them and exits 2
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


if __name__ == "__main__":  # pragma: no cover -- `python -m kvlimit` goes through __main__.py
    sys.exit(main())
