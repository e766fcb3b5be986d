"""The recall tier's decode step compiled, against the sinks step compiled, side by side in one run.

For a cache limit L (default 1,024) and recalled slots R in `--recall` (default L/4 and L/2), each
variant (`sinks`, and `sinks+recall R` with the defaults: scored by distance in blocks of 4; with
`--recall-dtype int8` also the store kept as int8 codes) is fed the
same corpus tokens until its recall store holds `--store` evicted tokens (the sinks cache gets as
many), then timed two ways in interleaved rounds, so machine noise hits every variant alike (with
`--recall-every 1,4`, also recall choosing every 4 steps: each round then times as many consecutive steps
as the largest interval, for every variant, and reports the mean step of the round, a whole cycle of
scoring and reusing steps):

- compiled: `BoundedCache.make_static(max_length)` (the run's length, as `kvlimit.generate` gives it: the
  recall rings hold the run's evictions, about `--store` tokens) and kvlimit's compiled step (`CompiledDecodeStep`: the
  cache's static step, the recall tier's device part (`StaticRecall`) and the forward, one graph,
  torch.compile with inductor, fullgraph, static shapes, the options `kvlimit.generate` gives it:
  `hf.compile_config_for`, on the CPU the C++ wrapper), compiled in an untimed warm-up;
- eager: `kvlimit.forward_step` on a copy of the same fill (the eager tier, its block table on the host).

Prints the median step per variant and its ratio to `sinks` in the same form, and, as a check that the
compiled recall step computes what the eager one does, the largest logit difference of their first
step (the same cache contents, the same token).

    python benchmarks/recall_compiled.py --limit 1024 --store 4096 --rounds 20 \
        --json results/recall/compiled-step.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import torch
from recall_speed import corpus_ids, filled_cache
from transformers.generation.configuration_utils import CompileConfig

import kvlimit
from kvlimit.integrations import hf
from kvlimit.models import load_model


def timed(call: Any, token: torch.Tensor) -> float:
    sync = torch.cuda.synchronize if token.device.type == "cuda" else (lambda: None)
    sync()
    start = time.perf_counter()
    call(token)
    sync()
    return (time.perf_counter() - start) * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=None, help="a model path (default: the embedded SmolLM2-135M)")
    parser.add_argument("--limit", type=int, default=1024)
    parser.add_argument("--recall", default=None, help="recalled slots, comma separated (default: L/4,L/2)")
    parser.add_argument("--store", type=int, default=4096, help="evicted tokens the recall store holds")
    parser.add_argument("--recall-dtype", default="none",
                        help="the recall store's dtypes, comma separated: none (the model's), int8, int4 (default: none)")  # fmt: skip
    parser.add_argument("--recall-every", default="1",
                        help="decode steps between block choices, comma separated (default: 1)")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--mode", default=None, help="inductor mode (default: reduce-overhead on CUDA)")
    parser.add_argument("--forms", default="compiled,eager", help="which forms to time (default: both)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    device = torch.device(args.device)
    loaded = load_model(args.model, device=args.device)
    model, tokenizer = loaded.model, loaded.tokenizer
    spec = hf.inspect_model(model)
    limit = args.limit
    forms = [f for f in ("compiled", "eager") if f in args.forms.split(",")]
    recalls = [int(r) for r in args.recall.split(",")] if args.recall else [limit // 4, limit // 2]
    dtypes = [None if d == "none" else d for d in args.recall_dtype.split(",")]
    everies = [int(e) for e in args.recall_every.split(",")]
    span = max(everies)  # steps a round times, per variant
    variants: dict[str, tuple[int, str | None, int]] = {"sinks": (0, None, 1)}
    for r in recalls:
        for d in dtypes:
            for e in everies:
                every = f" every {e}" if e != 1 else ""
                variants[f"sinks+recall{r}" + (f" {d}" if d else "") + every] = (r, d, e)
    mode = args.mode or ("reduce-overhead" if device.type == "cuda" else "default")
    config = hf.compile_config_for(
        CompileConfig(fullgraph=True, dynamic=False, mode=mode), device
    )  # as generate
    ids = corpus_ids(tokenizer, limit + args.store + 1, device)
    token = ids[:, -1:]
    steps: dict[str, Any] = {}
    caches: dict[str, kvlimit.BoundedCache] = {}
    compile_s: dict[str, float] = {}
    first_diff: dict[str, float] = {}
    with torch.no_grad():
        for name, (recall, dtype, every) in variants.items():
            fill = ids[:, : limit - recall + args.store]  # the kept slots, and `store` tokens evicted
            eager_cache = filled_cache(model, limit, recall, fill, dtype=dtype, every=every)
            static_cache = filled_cache(model, limit, recall, fill, dtype=dtype, every=every)
            static_cache.make_static(
                fill.shape[1] + span * (args.rounds + 8)
            )  # as generate: the run's length
            compiled = hf.CompiledDecodeStep(model, static_cache, spec, config)
            start = time.perf_counter()
            got = compiled(token)  # the compile
            compile_s[name] = round(time.perf_counter() - start, 1)
            want = kvlimit.forward_step(model, eager_cache, token).logits[:, -1].float()
            first_diff[name] = float((got - want).abs().max())
            for _ in range(max(2, span)):  # warm (every graph of the cycle)
                compiled(token)
                kvlimit.forward_step(model, eager_cache, token)
            if "compiled" in forms:
                steps[f"{name} compiled"] = compiled
            if "eager" in forms:
                steps[f"{name} eager"] = lambda t, c=eager_cache: kvlimit.forward_step(model, c, t)
            caches[name] = static_cache
            print(f"{name}: compiled in {compile_s[name]} s, first-step logits differ by {first_diff[name]:.2e}",
                  flush=True)  # fmt: skip
        times: dict[str, list[float]] = {name: [] for name in steps}
        for _ in range(args.rounds):
            for name, call in steps.items():
                times[name].append(timed(lambda t, c=call: [c(t) for _ in range(span)], token) / span)
    rows = []
    for form in forms:
        base = statistics.median(times[f"sinks {form}"])
        for name in variants:
            median = statistics.median(times[f"{name} {form}"])
            cache = caches[name]
            stored = 0 if cache.static_recall is None else max(cache.static_recall.stored)
            rows.append({"limit": limit, "variant": name, "form": form, "step_ms": round(median, 2),
                         "vs_sinks": round(median / base, 3), "store_tokens": stored})  # fmt: skip
    threads = torch.get_num_threads()
    print(f"\ndecode step, limit {limit}, store {args.store} tokens, median of {args.rounds} interleaved rounds "
          f"({device.type}, {threads} threads, inductor mode {mode}):")  # fmt: skip
    print(f"{'variant':>20} {'form':>9} {'step ms':>9} {'vs sinks':>9} {'store tokens':>13}")
    for r in rows:
        print(
            f"{r['variant']:>20} {r['form']:>9} {r['step_ms']:>9.2f} {r['vs_sinks']:>9.3f} {r['store_tokens']:>13}"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"rows": rows, "compile_s": compile_s, "first_step_logit_diff": first_diff,
                       "threads": threads, "device": str(device), "mode": mode}, f, indent=1)  # fmt: skip


if __name__ == "__main__":
    main()
