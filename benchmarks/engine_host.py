"""The continuous engine's host work per step: continuous against one static batch, where the forward is cheap.

On a GPU a forward of 16 rows of a small model costs about what one row's does, so whatever the engine
does per row outside the forward (processors, choosing tokens, stopping checks, admitting prompts)
decides its rate. A 4-layer random Llama on the CPU puts the forward in the same proportion. This
script runs the same prompts (as many as rows, or `--waves` times as many; every row running to the
end) through `kvlimit.ContinuousEngine` (R rows) and through static `kvlimit.generate` batches of R
(one per wave), greedy and sampling, best of `--repeats` interleaved runs, and prints the tokens/s of
each and their ratio, for each `--prefill-rows` (prompts the engine prefills together) and each
`--rows`. The engine prefills its first wave in the batch's own rows; with `--waves 2` the second comes
through its prefill cache, `prefill_rows` at a time, as rows free up.

    python benchmarks/engine_host.py
    python benchmarks/engine_host.py --model /tmp/smollm2-random --device cuda --dtype bfloat16 \
        --rows 16,64 --compile     # on a GPU: both sides compiled (the engine's captured step)
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from typing import Any

import torch

import kvlimit
from kvlimit.bench.clock import sync

# the repository, for the tests' model builder
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from tests.helpers import make_model

DECODINGS = {
    "greedy": {"do_sample": False},
    "sampling": {"do_sample": True, "top_p": 0.9, "temperature": 0.8},
}


def build(args: argparse.Namespace) -> Any:
    """The model: a folder's (`--model`, in `--dtype` on `--device`), or the 4-layer random Llama."""
    if args.model is None:
        return make_model("llama", num_layers=4, num_attention_heads=4, num_key_value_heads=2,
                          max_position_embeddings=1024).to(args.device)  # fmt: skip
    from kvlimit.models import load_model

    return load_model(args.model, dtype=args.dtype, device=args.device).model


def measure(model: Any, args: argparse.Namespace, rows: int, variants: list[int]) -> None:
    """Print one table per decoding for `rows` rows and `waves` x `rows` prompts (static: `waves` batches)."""
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(0)
    shape = (args.waves * rows, 12)
    prompts = torch.randint(3, model.config.vocab_size, shape, generator=generator).to(device)
    requests = [kvlimit.Request(f"p{i}", ids.tolist()) for i, ids in enumerate(prompts)]
    config = kvlimit.LimitConfig.create(args.cache_limit)
    tokens = args.waves * rows * args.new_tokens
    for name, decoding in DECODINGS.items():
        decoding = {"max_new_tokens": args.new_tokens, "min_new_tokens": args.new_tokens, **decoding}
        best = {**{f"continuous, prefill_rows={p}": float("inf") for p in variants}, "static": float("inf")}
        for _ in range(args.repeats):
            for p in variants:
                sync(device)
                start = time.perf_counter()
                engine = kvlimit.ContinuousEngine(model, config, rows=rows, decoding=decoding, seed=1,
                                                  prefill_rows=p, compile=args.compile)  # fmt: skip
                for _ in engine.run(requests):
                    pass
                sync(device)
                key = f"continuous, prefill_rows={p}"
                best[key] = min(best[key], time.perf_counter() - start)
            sync(device)
            start = time.perf_counter()
            for batch in prompts.split(rows):
                kvlimit.generate(model, input_ids=batch, attention_mask=torch.ones_like(batch), cache_limit=config,
                                 pad_token_id=0, compile=args.compile, **decoding)  # fmt: skip
            sync(device)
            best["static"] = min(best["static"], time.perf_counter() - start)
        static = tokens / best["static"]
        print(f"{name}, {rows} rows, {len(requests)} prompts: static {static:7.0f} tokens/s")
        for key, seconds in best.items():
            if key != "static":
                print(
                    f"  {key:<26} {tokens / seconds:7.0f} tokens/s, / static {tokens / seconds / static:.2f}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="16", help="rows (and prompts), comma-separated (default: 16)")
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--waves", type=int, default=1,
                        help="prompts per row: rows x waves prompts, in that many static batches (default: 1)")  # fmt: skip
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cache-limit", type=int, default=32)
    parser.add_argument("--prefill-rows", default="1,4,16",
                        help="the engine's prefill_rows, each run beside the same static batch")  # fmt: skip
    parser.add_argument("--model", default=None, help="a model folder (default: a 4-layer random Llama)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--dtype", default="auto", help="with --model: auto, float32, float16 or bfloat16")
    parser.add_argument("--compile", action="store_true",
                        help="compile both sides' decode steps (kvlimit's static step; CUDA graphs on a GPU)")  # fmt: skip
    args = parser.parse_args()
    model = build(args)
    variants = [int(p) for p in args.prefill_rows.split(",")]
    print(f"{args.model or '4-layer random Llama'} on {args.device}, limit {args.cache_limit}, "
          f"{args.new_tokens} new tokens a row, prompts of 12 tokens, best of {args.repeats}"
          f"{', compiled' if args.compile else ''}")  # fmt: skip
    for rows in (int(r) for r in args.rows.split(",")):
        measure(model, args, rows, variants)


if __name__ == "__main__":
    main()
