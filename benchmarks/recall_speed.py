"""What the recall tier costs a decode step, and how its store grows, side by side in one run.

Part 1 (step time): for each cache limit L, variants `sinks`, `sinks+recall(L/4)` and
`sinks+recall(L/2)` (each with the defaults, scored by distance in blocks of 4; and, as before that
default, by keys and by bounds in blocks of 16) are built on the embedded model and fed the same `--fill` tokens of the corpus
(so the recall store holds `fill - kept` evicted tokens), then their decode steps
(`kvlimit.forward_step` of one token, planning, eviction, capture and recall included) are timed in
interleaved rounds, so machine noise hits every variant alike. Prints the median step and its ratio
to `sinks` at the same limit, then torch.profiler's top ops of the largest recall variant.

Part 2 (growth): one `sinks+recall` cache streams `--growth` tokens of the corpus in chunks; every
`--every` tokens it records the store's tokens and bytes, the process RSS and the median of 8 decode
steps. Prints a table and writes a PNG (`--plot`).

    python benchmarks/recall_speed.py --limits 256,1024 --fill 4096 --rounds 60 --growth 20000 \
        --plot results/recall/growth.png --json results/recall/speed.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import psutil
import torch

import kvlimit
from kvlimit.eval.corpus import ensure_corpus
from kvlimit.models import load_model


def corpus_ids(tokenizer: Any, count: int, device: torch.device) -> torch.Tensor:
    text = ensure_corpus().read_text(encoding="utf-8")
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    while len(ids) < count:
        ids = ids + ids
    return torch.tensor([ids[:count]], device=device)


def filled_cache(
    model: Any,
    limit: int,
    recall: int,
    ids: torch.Tensor,
    score: str | None = None,
    block: int | None = None,
    dtype: str | None = None,
    every: int | None = None,
    positions: str | None = None,
) -> kvlimit.BoundedCache:
    config = kvlimit.LimitConfig.create(
        limit, "sinks", recall=recall or None, recall_score=score, recall_block=block,
        recall_dtype=dtype if recall else None, recall_every=every if recall else None,
        recall_positions=positions if recall else None,
    )  # fmt: skip
    cache = kvlimit.build_cache(model, config)
    chunk = cache.policy.default_chunk(cache.kept_limit)
    for start in range(0, ids.shape[1], chunk):
        kvlimit.forward_step(model, cache, ids[:, start : start + chunk])
    return cache


def step_ms(model: Any, cache: kvlimit.BoundedCache, token: torch.Tensor) -> float:
    sync = torch.cuda.synchronize if token.device.type == "cuda" else (lambda: None)
    sync()
    start = time.perf_counter()
    kvlimit.forward_step(model, cache, token)
    sync()  # a GPU step ends when its kernels have run
    return (time.perf_counter() - start) * 1000.0


def step_times(model: Any, limits: list[int], ids: torch.Tensor, rounds: int) -> list[dict[str, Any]]:
    rows = []
    token = ids[:, -1:]
    for limit in limits:
        # name -> (recall, score, block, positions); None: the default
        variants: dict[str, tuple[int, str | None, int | None, str | None]] = {"sinks": (0, None, None, None)}
        for r in (limit // 4, limit // 2):
            variants[f"sinks+recall{r}"] = (r, None, None, None)  # the defaults
            variants[f"sinks+recall{r} distance b16"] = (r, "distance", 16, None)
            variants[f"sinks+recall{r} keys b16"] = (r, "keys", 16, "packed")  # the first defaults
            variants[f"sinks+recall{r} bounds b16"] = (r, "bounds", 16, None)
        # the placement before 58098c0: recalled tokens side by side after the sinks
        variants[f"sinks+recall{limit // 4} packed"] = (limit // 4, None, None, "packed")
        caches = {name: filled_cache(model, limit, r, ids, score, block, positions=positions)
                  for name, (r, score, block, positions) in variants.items()}  # fmt: skip
        times: dict[str, list[float]] = {name: [] for name in caches}
        with torch.no_grad():
            for cache in caches.values():  # warm-up
                for _ in range(3):
                    step_ms(model, cache, token)
            for _ in range(rounds):
                for name, cache in caches.items():
                    times[name].append(step_ms(model, cache, token))
        base = statistics.median(times["sinks"])
        for name, cache in caches.items():
            median = statistics.median(times[name])
            rows.append({"limit": limit, "variant": name, "recall": variants[name][0], "step_ms": round(median, 3),
                         "vs_sinks": round(median / base, 3), "store_tokens": cache.recall.tokens() if cache.recall else 0,
                         "store_bytes": cache.recall_nbytes(), "attended_bytes": cache.nbytes()})  # fmt: skip
    return rows


def profile(model: Any, limit: int, recall: int, ids: torch.Tensor, steps: int = 20) -> str:
    cache = filled_cache(model, limit, recall, ids)
    token = ids[:, -1:]
    with torch.no_grad():
        for _ in range(3):
            step_ms(model, cache, token)
        with torch.profiler.profile(
            activities=[
                torch.profiler.ProfilerActivity.CPU,
                *([torch.profiler.ProfilerActivity.CUDA] if token.is_cuda else []),
            ]
        ) as prof:
            for _ in range(steps):
                kvlimit.forward_step(model, cache, token)
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=18)


def growth(model: Any, limit: int, recall: int, ids: torch.Tensor, every: int) -> list[dict[str, Any]]:
    cache = kvlimit.build_cache(model, kvlimit.LimitConfig.create(limit, "sinks", recall=recall))
    chunk = cache.policy.default_chunk(cache.kept_limit)
    token = ids[:, -1:]
    process = psutil.Process()
    rows = []
    with torch.no_grad():
        for start in range(0, ids.shape[1], chunk):
            kvlimit.forward_step(model, cache, ids[:, start : start + chunk])
            fed = start + chunk
            if fed % every < chunk:
                steps = [step_ms(model, cache, token) for _ in range(8)]
                rows.append({"tokens": cache.rows.seen[0], "store_tokens": cache.recall.tokens(),
                             "store_bytes": cache.recall_nbytes(), "attended_bytes": cache.nbytes(),
                             "rss_mib": round(process.memory_info().rss / 2**20, 1),
                             "step_ms": round(statistics.median(steps), 3)})  # fmt: skip
    return rows


def plot_growth(rows: list[dict[str, Any]], path: str, title: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    figure = Figure(figsize=(9, 3.6), dpi=110)
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    tokens = [r["tokens"] for r in rows]
    left.plot(tokens, [r["store_bytes"] / 2**20 for r in rows], label="recall store")
    left.plot(tokens, [r["attended_bytes"] / 2**20 for r in rows], label="attended cache")
    left.set_xlabel("tokens seen")
    left.set_ylabel("MiB")
    left.set_title("bytes", fontsize=10)
    left.legend(fontsize=8)
    right.plot(tokens, [r["step_ms"] for r in rows], marker="o")
    right.set_xlabel("tokens seen")
    right.set_ylabel("decode step, ms (median of 8)")
    right.set_ylim(bottom=0)
    right.set_title("decode step", fontsize=10)
    for ax in (left, right):  # thousands of tokens, so that the tick labels do not run together
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1000:g}k"))
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, format="png")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limits", default="256,1024")
    parser.add_argument("--fill", type=int, default=4096, help="tokens fed before the timed steps")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--growth", type=int, default=20000, help="tokens streamed in part 2 (0: skip)")
    parser.add_argument("--growth-limit", type=int, default=256)
    parser.add_argument("--every", type=int, default=2000)
    parser.add_argument("--plot", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--model", default=None, help="a local model folder (default: the embedded SmolLM2)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args()
    loaded = load_model(args.model, device=args.device)
    model = loaded.model
    limits = [int(x) for x in args.limits.split(",")]
    ids = corpus_ids(loaded.tokenizer, max(args.fill, args.growth), next(model.parameters()).device)
    result: dict[str, Any] = {"threads": torch.get_num_threads(), "fill": args.fill, "rounds": args.rounds}
    result["steps"] = step_times(model, limits, ids[:, : args.fill], args.rounds)
    print(f"decode step after {args.fill} tokens, median of {args.rounds} interleaved rounds "
          f"({torch.get_num_threads()} threads):")  # fmt: skip
    print(
        f"  {'limit':>5}  {'variant':<25} {'step ms':>8} {'vs sinks':>8} {'store tokens':>12} {'store MiB':>9}"
    )
    for r in result["steps"]:
        print(f"  {r['limit']:>5}  {r['variant']:<25} {r['step_ms']:>8.2f} {r['vs_sinks']:>8.3f} "
              f"{r['store_tokens']:>12} {r['store_bytes'] / 2**20:>9.2f}")  # fmt: skip
    biggest = max(limits)
    print(f"\ntorch.profiler, 20 decode steps of sinks+recall{biggest // 2} at {biggest}:")
    table = profile(model, biggest, biggest // 2, ids[:, : args.fill])
    print(table)
    result["profile"] = table
    if args.growth:
        recall = args.growth_limit // 4
        result["growth"] = growth(model, args.growth_limit, recall, ids[:, : args.growth], args.every)
        print(f"\nstore growth, sinks+recall{recall} at {args.growth_limit}, {args.growth} tokens:")
        print(f"  {'tokens':>7} {'store tokens':>12} {'store MiB':>9} {'RSS MiB':>8} {'step ms':>8}")
        for r in result["growth"]:
            print(f"  {r['tokens']:>7} {r['store_tokens']:>12} {r['store_bytes'] / 2**20:>9.2f} "
                  f"{r['rss_mib']:>8.1f} {r['step_ms']:>8.2f}")  # fmt: skip
        if args.plot:
            plot_growth(result["growth"], args.plot,
                        f"recall store over {args.growth} tokens: SmolLM2-135M, sinks+recall{recall} at {args.growth_limit}")  # fmt: skip
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)


if __name__ == "__main__":
    main()
