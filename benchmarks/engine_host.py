"""The continuous engine's host work per step: continuous against one static batch, where the forward is cheap.

On a GPU a forward of 16 rows of a small model costs about what one row's does, so whatever the engine
does per row outside the forward (processors, choosing tokens, stopping checks, admitting prompts)
decides its rate. A 4-layer random Llama on the CPU puts the forward in the same proportion. This
script runs the same 16 prompts through `kvlimit.ContinuousEngine` (16 rows) and through one static
`kvlimit.generate` batch, greedy and sampling, best of `--repeats` interleaved runs, and prints the
tokens/s of each and their ratio, for each `--prefill-rows` (prompts the engine prefills together).

    python benchmarks/engine_host.py
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import torch

import kvlimit

# the repository, for the tests' model builder
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from tests.helpers import make_model

DECODINGS = {
    "greedy": {"do_sample": False},
    "sampling": {"do_sample": True, "top_p": 0.9, "temperature": 0.8},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--prefill-rows", default="1,4,16",
                        help="the engine's prefill_rows, each run beside the same static batch")  # fmt: skip
    args = parser.parse_args()
    model = make_model("llama", num_layers=4, num_attention_heads=4, num_key_value_heads=2,
                       max_position_embeddings=1024)  # fmt: skip
    generator = torch.Generator().manual_seed(0)
    prompts = torch.randint(3, model.config.vocab_size, (args.prompts, 12), generator=generator)
    requests = [kvlimit.Request(f"p{i}", ids.tolist()) for i, ids in enumerate(prompts)]
    config = kvlimit.LimitConfig.create(32)
    tokens = args.prompts * args.new_tokens
    variants = [int(p) for p in args.prefill_rows.split(",")]
    for name, decoding in DECODINGS.items():
        decoding = {"max_new_tokens": args.new_tokens, "min_new_tokens": args.new_tokens, **decoding}
        best = {**{f"continuous, prefill_rows={p}": float("inf") for p in variants}, "static": float("inf")}
        for _ in range(args.repeats):
            for p in variants:
                start = time.perf_counter()
                engine = kvlimit.ContinuousEngine(model, config, rows=args.prompts, decoding=decoding, seed=1,
                                                  prefill_rows=p)  # fmt: skip
                for _ in engine.run(requests):
                    pass
                key = f"continuous, prefill_rows={p}"
                best[key] = min(best[key], time.perf_counter() - start)
            start = time.perf_counter()
            kvlimit.generate(model, input_ids=prompts, attention_mask=torch.ones_like(prompts), cache_limit=config,
                             pad_token_id=0, **decoding)  # fmt: skip
            best["static"] = min(best["static"], time.perf_counter() - start)
        static = tokens / best["static"]
        print(f"{name}: static {static:7.0f} tokens/s")
        for key, seconds in best.items():
            if key != "static":
                print(
                    f"  {key:<26} {tokens / seconds:7.0f} tokens/s, / static {tokens / seconds / static:.2f}"
                )


if __name__ == "__main__":
    main()
