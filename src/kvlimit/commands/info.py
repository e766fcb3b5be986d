"""`kvlimit info`: what the bounded cache sees in a model, and how many cache tokens fit in memory."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..build import recall_families
from ..cache.compiled import COMPILING_POLICIES, family_blocker
from ..cache.quant import DEFAULT_KV_GROUP, KV_DTYPES
from ..cache.recall import BLOCK, block_for
from ..clitools import CLIError, add_common_arguments, add_model_arguments, format_bytes, load_with_status
from ..config import RECALL_DTYPES, parse_bytes
from ..integrations.hf import ModelSpec, can_prepare, inspect_model, text_config
from ..sizing import kv_bytes_per_token, recall_block_bytes

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
    parser.add_argument(
        "--recall",
        metavar="R",
        type=int,
        default=BLOCK,
        help="recalled slots: the recall store's bytes per evicted token are given for its blocks "
        f"(blocks of {BLOCK}, 2 or 1 tokens, the largest dividing R; default: {BLOCK})",
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
    if args.recall < 1:
        raise CLIError(
            f"--recall must be >= 1 (recalled slots; their blocks are sized from it); got {args.recall}"
        )
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
            name: kv_bytes_per_token(model, name, DEFAULT_KV_GROUP) for name in KV_DTYPES
        },
        "memory_bytes": memory,
        "tokens_in_memory": memory // bytes_per_token,
        "context_length": context if isinstance(context, int) else None,
        "chat_template": loaded.is_instruct,
        "recall": _recall_facts(model, spec, args.recall),
        "compile": _compile_facts(spec, sliding),
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
    recall = facts["recall"]
    if recall["supported"]:
        per_token = ", ".join(f"{name} {n:.1f}" for name, n in recall["store_bytes_per_token"].items())
        rows.append(("recall store", f"bytes per evicted token and row: {per_token} (--recall-dtype; blocks of "
                     f"{recall['block']} with their key bounds; apart from the KV cache)"))  # fmt: skip
    else:
        rows.append(
            ("recall", f"not for {spec.model_type} here; --recall works with {', '.join(recall_families())}")
        )
    compiles = facts["compile"]
    if compiles["supported"]:
        window = (
            f"; a cache_limit above {compiles['limit_at_most']} does not" if compiles["limit_at_most"] else ""
        )
        rows.append(("compile", f"yes: --compile / compile=True with every policy ({', '.join(compiles['policies'])}), "
                     f"any kv_dtype, recall scored by distance or keys{window}"))  # fmt: skip
    else:
        rows.append(("compile", f"no: {compiles['why']}"))
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


def _compile_facts(spec: ModelSpec, sliding: list[int | None]) -> dict[str, Any]:
    """Whether this model's bounded decode step compiles (`kvlimit.cache.compiled`), and with what."""
    why = family_blocker(spec.model_type)
    windows = [w for w in sliding if w is not None]
    return {
        "supported": why is None,
        "why": why,
        "policies": list(COMPILING_POLICIES),
        "limit_at_most": min(windows) if windows else None,
    }


def _recall_facts(model: Any, spec: ModelSpec, recall: int) -> dict[str, Any]:
    """Whether `--recall` works for this model, and its store's bytes per evicted token and row."""
    supported = spec.positions == "rope" and can_prepare(spec)
    if not supported:
        return {"supported": False}
    block = block_for(recall)
    layers = list(range(spec.num_layers))
    return {
        "supported": True,
        "block": block,
        "store_bytes_per_token": {
            name or "model dtype": recall_block_bytes(model, layers, name, block) / block
            for name in (None, *RECALL_DTYPES)
        },
    }
