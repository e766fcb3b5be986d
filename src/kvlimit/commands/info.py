"""`kvlimit info`: what the bounded cache sees in a model, and how many cache tokens fit in memory."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..cache.quant import BITS, DEFAULT_KV_GROUP
from ..clitools import CLIError, add_common_arguments, add_model_arguments, format_bytes, load_with_status
from ..config import parse_bytes
from ..integrations.hf import ModelSpec, inspect_model, text_config
from ..sizing import kv_bytes_per_token

DEFAULT_MEMORY = "1GiB"


def register(subparsers: Any) -> None:
    """Add the `info` subcommand to `subparsers`."""
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
    loaded = load_with_status(args)
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
        "kv_bytes_per_token_quantized": {
            name: kv_bytes_per_token(model, name, DEFAULT_KV_GROUP) for name in BITS
        },
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
            "quantized",
            ", ".join(
                f"{name} {n} bytes ({bytes_per_token / n:.1f}x less)"
                for name, n in facts["kv_bytes_per_token_quantized"].items()
            )
            + f" (--kv-dtype, blocks of {DEFAULT_KV_GROUP}; the sinks stay in {dtype})",
        ),
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
