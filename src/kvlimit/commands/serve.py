"""`kvlimit serve`: an OpenAI-compatible HTTP server on the continuous engine (`kvlimit.serve`).

Contract: options are checked before the model loads (a bad one is one line and exit 2), with the
cache options of `kvlimit generate` (the same declarations: `add_cache_arguments`,
`limit_config_from_args`). The rows are `--batch-size R`, or with `--memory SIZE` the most sequences
`kvlimit plan` fits at this limit, less the engine's prefill rows (`--prefill-rows`, default 1; 0:
prompts prefilled in free rows, whole). The model loads, the address
and the plan go to stderr, and the server runs until SIGTERM or Ctrl-C, then drains (`--drain-seconds`)
and exits 0. Binds 127.0.0.1 unless `--host` says otherwise; `--api-key` (or $KVLIMIT_API_KEY) guards
every route but /health. Needs the serve extra (`pip install 'kvlimit[serve]'`).
"""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any

from ..clitools import (
    CLIError,
    ParagraphFormatter,
    add_model_arguments,
    check_number,
    cli_names,
    format_bytes,
    load_with_status,
    status,
)
from ..config import LimitConfig, parse_bytes
from ..models import DEFAULT_MODEL_NAME, LoadedModel
from ..planner import plan
from ..sizing import row_cost, token_limit
from .generate import add_cache_arguments, limit_config_from_args

DEFAULT_PORT = 8000
DEFAULT_BATCH_SIZE = 8
API_KEY_VARIABLE = "KVLIMIT_API_KEY"


def register(subparsers: Any) -> None:
    """Add the `serve` subcommand to `subparsers`."""
    parser = subparsers.add_parser(
        "serve",
        help="serve the model over an OpenAI-compatible HTTP API, its memory fixed",
        description="Serve the model over OpenAI's HTTP API (POST /v1/completions and /v1/chat/completions, "
        "streamed or not; GET /v1/models, /health, /metrics) on kvlimit's continuous engine: --batch-size "
        "rows of --cache-limit tokens each, allocated once, so the memory is fixed before the first request "
        "and no answer has a length limit (max_tokens null runs to the end of sequence). A prompt is "
        "prefilled in chunks between decode steps; a client that disconnects frees its row at once.",
        epilog="shutdown: SIGTERM or Ctrl-C stops admitting requests, lets those in flight run for "
        "--drain-seconds, ends the rest with a final event saying why, and exits 0.\n\n"
        "security: binds 127.0.0.1 unless --host says otherwise; with --api-key (or $KVLIMIT_API_KEY) every "
        "route but /health needs the header Authorization: Bearer KEY. No request can name a file, a model "
        "or code to load. CORS is off unless --cors-origin is given.\n\n"
        "needs: pip install 'kvlimit[serve]' (FastAPI, uvicorn, prometheus_client).",
        formatter_class=ParagraphFormatter,
    )
    add_cache_arguments(parser)
    _add_server_arguments(parser)
    add_model_arguments(parser)
    output = parser.add_argument_group("output")
    output.add_argument("-q", "--quiet", action="store_true", help="print nothing on stderr but errors")
    output.add_argument("--debug", action="store_true", help="show tracebacks and kvlimit's log messages")
    parser.set_defaults(handler=run_serve)


def _add_server_arguments(parser: argparse.ArgumentParser) -> None:
    rows = parser.add_argument_group("rows and admission")
    rows.add_argument("--batch-size", type=int, metavar="R", default=None,
                      help=f"sequences decoded at once, each in a row of --cache-limit tokens (default: {DEFAULT_BATCH_SIZE})")  # fmt: skip
    rows.add_argument("--memory", metavar="SIZE", default=None,
                      help="instead of --batch-size: the most rows `kvlimit plan` fits in SIZE (such as 2GiB), less the --prefill-rows")  # fmt: skip
    rows.add_argument("--prefill-rows", type=int, metavar="N", default=1,
                      help="prompts prefilled together beside the rows, each held in --memory (default: 1); 0: in the "
                      "batch's free rows, whole: no bytes beside the rows, but a long prompt holds the decoding rows "
                      "for its whole prefill rather than a chunk a step")  # fmt: skip
    rows.add_argument("--prefill-chunk", type=int, metavar="N", default=None,
                      help="prompt tokens prefilled per decode step (default: a quarter of the limit, the policy's chunk)")  # fmt: skip
    rows.add_argument("--max-queue", type=int, metavar="N", default=64,
                      help="requests that may wait for a row; beyond them 429 with Retry-After (default: 64)")  # fmt: skip
    rows.add_argument("--max-prompt-tokens", type=int, metavar="N", default=32768,
                      help="the longest prompt taken; longer is a 400 (default: 32768)")  # fmt: skip
    rows.add_argument("--max-body-bytes", type=int, metavar="N", default=4 * 2**20,
                      help="the largest request body; larger is a 413 (default: 4 MiB)")  # fmt: skip
    rows.add_argument("--seed", type=int, metavar="N", default=None,
                      help="seeds the requests that bring no seed of their own (default: random)")  # fmt: skip
    rows.add_argument("--compile", action="store_true",
                      help="compile the decode step (torch.compile); every policy, --kv-dtype and --recall (not with "
                      "--recall-score bounds)")  # fmt: skip
    rows.add_argument("--threads", type=int, metavar="N", default=None, help="torch intra-op threads")
    http = parser.add_argument_group("HTTP")
    http.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)"
    )
    http.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})")
    http.add_argument("--api-key", metavar="KEY", default=None,
                      help=f"require Authorization: Bearer KEY on every route but /health (default: ${API_KEY_VARIABLE}, else none)")  # fmt: skip
    http.add_argument("--served-model-name", metavar="NAME", default=None,
                      help="the model's name in /v1/models and requests (default: the model's folder or file name)")  # fmt: skip
    http.add_argument("--drain-seconds", type=float, metavar="S", default=30.0,
                      help="on SIGTERM, how long requests in flight may run on (default: 30)")  # fmt: skip
    http.add_argument("--cors-origin", action="append", metavar="ORIGIN", default=None,
                      help="allow browser requests from ORIGIN (may be given several times; default: CORS off)")  # fmt: skip
    http.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"),
                      help="uvicorn's log level (default: info)")  # fmt: skip


def _check(args: argparse.Namespace) -> None:
    """The server's options, before any load (`CLIError` naming the option)."""
    if args.batch_size is not None and args.memory is not None:
        raise CLIError("give --batch-size or --memory, not both")
    check_number(args.batch_size, "--batch-size", at_least=1)
    check_number(args.prefill_chunk, "--prefill-chunk", at_least=1)
    check_number(args.prefill_rows, "--prefill-rows", at_least=0)
    check_number(args.max_queue, "--max-queue", at_least=0)
    check_number(args.max_prompt_tokens, "--max-prompt-tokens", at_least=1)
    check_number(args.max_body_bytes, "--max-body-bytes", at_least=1024)
    check_number(args.seed, "--seed", at_least=0)
    check_number(args.threads, "--threads", at_least=1)
    check_number(args.port, "--port", at_least=0, at_most=65535)
    check_number(args.drain_seconds, "--drain-seconds", at_least=0)
    if args.memory is not None:
        try:
            parse_bytes(args.memory, parameter="--memory")
        except ValueError as exc:
            raise CLIError(str(exc)) from exc


def run_serve(args: argparse.Namespace) -> int:
    """`kvlimit serve`: see the parser's help and the module docstring."""
    _check(args)
    config = limit_config_from_args(args)
    try:
        from ..serve import ServeSettings, create_app, serve
    except ImportError as exc:
        raise CLIError(f"kvlimit serve needs its extra: pip install 'kvlimit[serve]' ({exc})") from exc
    if args.threads is not None:
        import torch

        torch.set_num_threads(args.threads)
    if args.debug:
        logging.getLogger("kvlimit").setLevel(logging.INFO)
    loaded = load_with_status(args)
    rows = _rows(args, loaded, config)
    settings = ServeSettings(
        model_name=args.served_model_name or _model_name(args, loaded),
        max_queue=args.max_queue, max_prompt_tokens=args.max_prompt_tokens, max_body_bytes=args.max_body_bytes,
        drain_seconds=args.drain_seconds, api_key=args.api_key or os.environ.get(API_KEY_VARIABLE) or None,
        cors_origins=tuple(args.cors_origin or ()),
    )  # fmt: skip
    try:
        app = create_app(loaded.model, loaded.tokenizer, config, rows=rows, settings=settings, seed=args.seed,
                         prefill_chunk=args.prefill_chunk, compile=args.compile, prefill_rows=args.prefill_rows)  # fmt: skip
    except ValueError as exc:
        raise CLIError(cli_names(str(exc))) from exc
    used = app.state.service.worker.engine.config
    limit = int(used.cache_limit_tokens)
    prefill = args.prefill_rows
    cache = row_cost(loaded.model, used).bytes_for(limit) * (rows + prefill)
    beside = f"{prefill} prefill row{'s' if prefill > 1 else ''}" if prefill else "no prefill row"
    admission = (f"prompts prefilled {used.prefill_chunk} tokens per decode step" if prefill else
                 "prompts prefilled in free rows, whole")  # fmt: skip
    status(args, f"{rows} rows of cache_limit {limit} tokens (policy {used.policy.describe()}) and {beside}: "
                 f"KV cache {format_bytes(cache)}, allocated once; {admission}")  # fmt: skip
    auth = "with an API key" if settings.api_key else "without an API key"
    status(args, f"serving {settings.model_name!r} on http://{args.host}:{args.port}/v1 ({auth}); SIGTERM or Ctrl-C drains and stops")  # fmt: skip
    serve(app, args.host, args.port, log_level=args.log_level)
    return 0


def _model_name(args: argparse.Namespace, loaded: LoadedModel) -> str:
    if args.model is None:
        return DEFAULT_MODEL_NAME
    return os.path.basename(os.path.normpath(str(args.model))) or str(args.model)


def _rows(args: argparse.Namespace, loaded: LoadedModel, config: LimitConfig) -> int:
    """The rows: `--batch-size`, or the sequences `--memory` fits at this limit less the prefill rows."""
    if args.memory is None:
        return int(args.batch_size or DEFAULT_BATCH_SIZE)
    model = loaded.model
    limit = config.cache_limit_tokens or token_limit(model, config, 1)
    result = plan(model, memory=args.memory, new_tokens=limit, limits=[limit], config=config)
    fits = result.rows[0].sequences
    prefill = args.prefill_rows
    if fits < prefill + 1:
        raise CLIError(f"--memory {args.memory} fits {fits} rows at cache_limit {limit} (the server needs "
                       f"{prefill + 1}: one decoding, --prefill-rows {prefill} to prefill); see kvlimit plan")  # fmt: skip
    peak = result.rows[0].predicted_peak_bytes or 0
    status(args, f"--memory {args.memory}: {fits} rows fit at cache_limit {limit} (predicted peak "
                 f"{peak / 2**20:.0f} MiB); {fits - prefill} decode, {prefill} to prefill")  # fmt: skip
    return fits - prefill
