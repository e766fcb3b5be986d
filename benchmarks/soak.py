"""Soak: one `generate` call of 100,000 new tokens through a small bounded cache, watched all along.

What it checks, in one run: the cache's bytes never change once it is allocated; the process's
resident memory (RSS) stays flat after a warm-up (growth in MiB from the warm-up's end to the end of
the run); and late decode steps are as fast as early ones (median step latency of the last window of
tokens over the first window after warm-up). The model is a tiny random Llama built from a config
(nothing is downloaded), so the run measures kvlimit and transformers' loop, not matrix products.

Each step is split into the model's forward (kvlimit's layer writes included) and the rest of the
step (transformers' loop: sampling, stopping checks and the `input_ids` and attention mask it grows
by one column a step, plus kvlimit's planning). The growing tensors are transformers' own: at the
end of the run they hold `2 x 8 x tokens` bytes per row, part of the RSS growth.

    python benchmarks/soak.py                      # 100,000 tokens, limit 64, about 5 minutes on 2 cores
    python benchmarks/soak.py --tokens 20000 --json soak.json --plot soak.png
    python benchmarks/soak.py --compile            # the compiled decode step in kvlimit's own loop

With `--compile` the decode step is compiled (inductor, fullgraph) and runs in kvlimit's own loop,
whose token buffer is allocated once: nothing grows with the text. The model forward is inside the
compiled step there, so it is not timed apart.

The tests run `soak(...)` on fewer tokens (`tests/test_soak.py`, marked slow).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import psutil
import torch
from transformers import LlamaConfig, LlamaForCausalLM, StoppingCriteria, StoppingCriteriaList
from transformers.generation.configuration_utils import CompileConfig

import kvlimit

MIB = 2**20


@dataclass
class SoakResult:
    """What one soak measured (JSON-ready with `asdict`)."""

    tokens: int
    cache_limit: int
    warmup_tokens: int
    window: int
    seconds: float
    cache_bytes_min: int
    cache_bytes_max: int
    rss_after_warmup_mib: float
    rss_end_mib: float
    rss_growth_mib: float
    early_median_ms: float
    late_median_ms: float
    late_over_early: float
    forward_early_ms: float
    forward_late_ms: float
    forward_late_over_early: float
    loop_bytes_end: int
    compiled: bool = False
    recompiles: int = 0
    rss_samples: list[tuple[int, float]] = field(default_factory=list)
    latency_buckets: list[tuple[int, float]] = field(default_factory=list)


class _Watch(StoppingCriteria):
    """Called once per step: the step's time into a preallocated array; cache bytes and RSS now and then."""

    def __init__(self, tokens: int, cache: kvlimit.BoundedCache, every: int):
        self.times = np.zeros(tokens + 1)  # allocated before the run, so recording adds no memory
        self.count = 0
        self.cache = cache
        self.every = every
        self.process = psutil.Process()
        self.bytes: list[int] = []
        self.rss: list[tuple[int, float]] = []

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        self.times[self.count] = time.perf_counter()
        self.count += 1
        if self.count % self.every == 0:
            self.bytes.append(self.cache.nbytes())
            self.rss.append((self.count, self.process.memory_info().rss / MIB))
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)


def tiny_llama(seed: int = 0) -> LlamaForCausalLM:
    config = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                         pad_token_id=0, bos_token_id=1, eos_token_id=2)  # fmt: skip
    torch.manual_seed(seed)
    return LlamaForCausalLM(config).eval()


def soak(
    tokens: int = 100_000,
    cache_limit: int = 64,
    *,
    warmup: int = 5_000,
    window: int = 5_000,
    compile: bool = False,
) -> SoakResult:
    """Generate `tokens` new tokens in one call and measure (see the module docstring)."""
    if not 0 < warmup < tokens or not 0 < window <= tokens - warmup:
        raise ValueError(
            f"need 0 < warmup < tokens and 0 < window <= tokens - warmup; got {warmup}, {window}, {tokens}"
        )
    model = tiny_llama()
    forwards = np.zeros(tokens + 1)  # the model forward of each step, timed by hooks
    started: list[float] = [0.0]
    done = [0]

    def before(module: Any, args: Any) -> None:
        started[0] = time.perf_counter()

    def after(module: Any, args: Any, output: Any) -> None:
        forwards[done[0]] = time.perf_counter() - started[0]
        done[0] += 1

    if not compile:  # a compiled step holds the forward: it cannot be timed apart
        model.register_forward_pre_hook(before)
        model.register_forward_hook(after)
    compiling: dict[str, Any] = {"compile": False}
    if compile:
        compiling = dict(
            compile=True, compile_config=CompileConfig(fullgraph=True, dynamic=False, mode="default")
        )
        torch._dynamo.utils.counters.clear()
    prompt = torch.tensor([[5, 6, 7, 8]])
    config = kvlimit.LimitConfig.create(cache_limit)
    cache = kvlimit.build_cache(model, config, max_length=prompt.shape[1] + tokens)
    watch = _Watch(tokens, cache, every=max(1, tokens // 200))
    start = time.perf_counter()
    with torch.no_grad():
        kvlimit.generate(model, input_ids=prompt, attention_mask=torch.ones_like(prompt), cache_limit=cache_limit,
                         cache=cache, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=True, top_k=50,
                         stopping_criteria=StoppingCriteriaList([watch]), **compiling)  # fmt: skip
    seconds = time.perf_counter() - start
    latency = np.diff(watch.times[: watch.count]) * 1000.0  # latency[i]: the step that made token i + 1
    early = latency[warmup : warmup + window]
    late = latency[-window:]
    forward_ms = forwards[1 : watch.count] * 1000.0  # forward i + 1 made token i + 1 (0: the prompt)
    forward_early, forward_late = forward_ms[warmup : warmup + window], forward_ms[-window:]
    if compile:
        forward_early = forward_late = np.full(1, np.nan)
    after_warmup = next(rss for count, rss in watch.rss if count >= warmup)
    size = max(1, len(latency) // 50)
    buckets = [(i + size // 2, float(np.median(latency[i : i + size]))) for i in range(0, len(latency), size)]
    return SoakResult(
        tokens=watch.count,
        cache_limit=cache_limit,
        warmup_tokens=warmup,
        window=window,
        seconds=seconds,
        cache_bytes_min=min(watch.bytes),
        cache_bytes_max=max(watch.bytes),
        rss_after_warmup_mib=after_warmup,
        rss_end_mib=watch.rss[-1][1],
        rss_growth_mib=watch.rss[-1][1] - after_warmup,
        early_median_ms=float(statistics.median(early)),
        late_median_ms=float(statistics.median(late)),
        late_over_early=float(statistics.median(late) / statistics.median(early)),
        forward_early_ms=float(statistics.median(forward_early)),
        forward_late_ms=float(statistics.median(forward_late)),
        forward_late_over_early=float(statistics.median(forward_late) / statistics.median(forward_early)),
        loop_bytes_end=0 if compile else 2 * 8 * (prompt.shape[1] + watch.count),
        compiled=compile,
        recompiles=kvlimit.integrations.hf.compile_counters()["recompiles"] if compile else 0,
        rss_samples=watch.rss,
        latency_buckets=buckets,
    )


def report(result: SoakResult) -> list[str]:
    how = "compiled decode step, kvlimit's loop" if result.compiled else "eager, transformers' loop"
    lines = [
        f"soak: {result.tokens} new tokens in one generate call, cache_limit {result.cache_limit}, {how}, "
        f"{result.seconds:.0f} s ({result.tokens / result.seconds:.0f} tokens/s)",
        f"cache bytes: {result.cache_bytes_min} .. {result.cache_bytes_max} "
        f"({'constant' if result.cache_bytes_min == result.cache_bytes_max else 'CHANGED'})",
        f"RSS: {result.rss_after_warmup_mib:.1f} MiB after {result.warmup_tokens} tokens, "
        f"{result.rss_end_mib:.1f} MiB at the end: growth {result.rss_growth_mib:+.2f} MiB",
        f"step latency, median: {result.early_median_ms:.3f} ms (tokens {result.warmup_tokens}.."
        f"{result.warmup_tokens + result.window}) vs {result.late_median_ms:.3f} ms (last {result.window}): "
        f"late / early {result.late_over_early:.3f}",
    ]
    if result.compiled:
        return [*lines, f"  recompiles during the run: {result.recompiles}"]
    return [
        *lines,
        f"  of which the model forward: {result.forward_early_ms:.3f} ms vs {result.forward_late_ms:.3f} ms "
        f"({result.forward_late_over_early:.3f}); the rest of the step (transformers' loop, kvlimit's planning): "
        f"{result.early_median_ms - result.forward_early_ms:.3f} ms vs {result.late_median_ms - result.forward_late_ms:.3f} ms",
        f"  transformers' growing input_ids and attention mask hold {result.loop_bytes_end / 2**20:.2f} MiB at the end",
    ]


def plot(result: SoakResult, path: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9, 5), dpi=110)
    FigureCanvasAgg(figure)
    top, bottom = figure.subplots(2, 1, sharex=True)
    top.plot(*zip(*result.latency_buckets, strict=True), color="#1f77b4")
    top.set_ylabel("ms per token (median)")
    top.set_ylim(bottom=0)
    bottom.plot(*zip(*result.rss_samples, strict=True), color="#d62728")
    bottom.axvline(result.warmup_tokens, color="black", linewidth=0.8, alpha=0.6)
    bottom.set_ylabel("RSS (MiB)")
    bottom.set_xlabel("new tokens")
    figure.suptitle(f"soak: {result.tokens} tokens, cache_limit {result.cache_limit}, "
                    f"cache {result.cache_bytes_max} bytes throughout")  # fmt: skip
    figure.tight_layout()
    figure.savefig(path, format="png")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=100_000)
    parser.add_argument("--cache-limit", type=int, default=64)
    parser.add_argument("--warmup", type=int, default=5_000)
    parser.add_argument("--window", type=int, default=5_000)
    parser.add_argument("--json", metavar="FILE", default=None)
    parser.add_argument("--plot", metavar="FILE.png", default=None)
    parser.add_argument("--compile", action="store_true", help="compile the decode step (kvlimit's own loop)")
    args = parser.parse_args(argv)
    result = soak(args.tokens, args.cache_limit, warmup=args.warmup, window=args.window, compile=args.compile)
    print("\n".join(report(result)))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(asdict(result), indent=1) + "\n", encoding="utf-8")
    if args.plot:
        plot(result, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
