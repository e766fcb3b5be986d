"""The decode step compiled against eager against stock, side by side in one run (ratios, not a test).

For each batch size: kvlimit compiled (`compile=True`, inductor, fullgraph, static shapes), kvlimit
eager (`compile=False`) and stock generate (its dynamic cache), greedy, transformers' own loop, on
the embedded SmolLM2-135M (or `--model`), a prompt of `--cache-limit` tokens so that the bounded
cache is full and evicting from the first decode step. Each system is timed over `--tokens` new
tokens after one warm-up call (the compile happens there; its time is printed apart), the three
interleaved for `--rounds` rounds; the median ms per step is reported with ratios to kvlimit eager.
With `--kv-dtype` the quantized step is measured beside the float one, both compiled and eager.

    python benchmarks/compile_step.py --cache-limit 128 --tokens 48 --batch 1,8 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch

import kvlimit
from kvlimit.models import load_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", default=None, help="model folder or .gguf (default: embedded SmolLM2-135M)"
    )
    parser.add_argument("--cache-limit", type=int, default=128)
    parser.add_argument("--tokens", type=int, default=48, help="new tokens per timed call")
    parser.add_argument("--batch", default="1,8", help="batch sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--kv-dtype", default=None, help="also measure this quantized storage (int8, int4, fp8)"
    )
    parser.add_argument("--json", default=None, help="also write the numbers here")
    args = parser.parse_args()

    loaded = load_model(args.model)
    model = loaded.model
    vocab = model.config.vocab_size
    systems: dict[str, dict] = {
        "kvlimit compiled": dict(cache_limit=args.cache_limit, compile=True),
        "kvlimit eager": dict(cache_limit=args.cache_limit, compile=False),
        "stock": {},
    }
    if args.kv_dtype:
        systems[f"{args.kv_dtype} compiled"] = dict(
            cache_limit=args.cache_limit, compile=True, kv_dtype=args.kv_dtype
        )
        systems[f"{args.kv_dtype} eager"] = dict(
            cache_limit=args.cache_limit, compile=False, kv_dtype=args.kv_dtype
        )
    results = []
    for batch in (int(b) for b in args.batch.split(",")):
        generator = torch.Generator().manual_seed(0)
        ids = torch.randint(3, vocab, (batch, args.cache_limit), generator=generator)
        common = dict(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False, pad_token_id=0,
                      min_new_tokens=args.tokens, max_new_tokens=args.tokens)  # fmt: skip
        warm: dict[str, float] = {}
        steps: dict[str, list[float]] = {name: [] for name in systems}
        for name, options in systems.items():
            started = time.perf_counter()
            kvlimit.generate(model, **common, **options)
            warm[name] = time.perf_counter() - started
        for _ in range(args.rounds):
            for name, options in systems.items():
                started = time.perf_counter()
                kvlimit.generate(model, **common, **options)
                steps[name].append((time.perf_counter() - started) / args.tokens * 1e3)
        base = statistics.median(steps["kvlimit eager"])
        print(f"batch {batch}, limit {args.cache_limit}, {args.tokens} tokens, {args.rounds} rounds "
              f"(ms per step, prefill included; ratio to kvlimit eager)")  # fmt: skip
        for name in systems:
            ms = statistics.median(steps[name])
            print(f"  {name:<18} {ms:8.2f} ms  {base / ms:5.2f}x   first call {warm[name]:6.1f} s")
            results.append(dict(batch=batch, system=name, ms_per_step=ms, speedup_vs_eager=base / ms,
                                first_call_s=warm[name]))  # fmt: skip
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(args=vars(args), results=results), f, indent=2)


if __name__ == "__main__":
    main()
