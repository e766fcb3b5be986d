"""Throughput at a fixed memory budget: the memory a bounded cache saves, spent on more sequences.

Contract: `run_throughput(model, settings)` measures, in one process and side by side, for a budget
of cache memory (`settings.memory` bytes of keys and values) and `settings.tokens` new tokens per
sequence (greedy, end-of-sequence suppressed, a fixed prompt):

- stock `generate` at the largest batch whose unbounded cache, prompt + T tokens per row at the
  end, fits the budget (1 at least, and flagged when even one does not fit);
- kvlimit at the largest batch whose bounded cache (`limit` tokens per row) fits, for every limit
  and policy;
- with `sweep`, kvlimit's steady decode rate at several batch sizes (a cache already full, a few
  timed steps each): where the curve flattens, adding rows stops buying tokens/s (the matrix
  products of a step grow with the batch once the machine's cores are busy).

Per run: batch, aggregate tokens/s (all rows' new tokens over the wall time), seconds per sequence,
the cache's bytes at the end, peak process memory (RSS and, on CUDA, the allocator's peak), and the
ratio of its tokens/s to stock's. `report_lines` renders the text, `plot_throughput` the figure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from transformers import DynamicCache

from ..build import build_cache
from ..config import LimitConfig
from ..generation import generate
from ..integrations import hf
from ..policies import make_policy
from ..sizing import kv_bytes_per_token, row_cost
from .clock import StepClock, sync
from .memory import MemoryWatch
from .runner import machine_facts

logger = logging.getLogger(__name__)


@dataclass
class ThroughputSettings:
    """What to measure: `memory` bytes of cache, `tokens` new tokens per sequence, the limits and policies."""

    memory: int
    tokens: int
    limits: tuple[int, ...] = (256, 1024)
    policies: tuple[str, ...] = ("sinks",)
    prompt_length: int = 16
    sweep: tuple[int, ...] = ()
    sweep_steps: int = 8
    max_batch: int = 256
    seed: int = 0
    kv_dtype: str | None = None
    #: compile kvlimit's decode steps (an untimed warm-up of the same shapes compiles first)
    compile: bool = False

    def compiling(self, device: torch.device) -> dict[str, Any]:
        """`kvlimit.generate`'s compile arguments for kvlimit's runs on `device`."""
        if not self.compile:
            return {}
        return {"compile": True, "compile_config": hf.compile_config_for(None, device)}

    def check(self) -> None:
        if self.memory <= 0 or self.tokens < 2:
            raise ValueError(f"memory must be > 0 bytes and tokens >= 2; got {self.memory}, {self.tokens}")
        if not self.limits or any(limit < 2 for limit in self.limits):
            raise ValueError(f"limits must be cache limits >= 2; got {list(self.limits)}")
        if self.max_batch < 1 or any(b < 1 for b in self.sweep):
            raise ValueError("max_batch and the sweep's batch sizes must be >= 1")


@dataclass
class ThroughputRun:
    """One generate call at a fixed batch."""

    name: str
    batch: int
    fits: bool
    tokens_per_s: float
    seconds: float
    seconds_per_sequence: float
    cache_bytes: int
    cache_bytes_per_sequence: int
    memory: dict[str, Any] = field(default_factory=dict)


def largest_batch(budget: int, per_sequence: int, cap: int) -> tuple[int, bool]:
    """The most sequences of `per_sequence` cache bytes in `budget` (at most `cap`); (1, False) if none fit."""
    fits = budget // per_sequence if per_sequence > 0 else cap
    return (min(int(fits), cap), True) if fits >= 1 else (1, False)


def run_throughput(
    model: Any, settings: ThroughputSettings, *, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Every run of the module docstring; a JSON-ready dict with `runs`, `sweep` and `ratios`."""
    settings.check()
    started = time.perf_counter()
    device = next(model.parameters()).device
    per_token = kv_bytes_per_token(model)
    vocab = int(hf.text_config(model).vocab_size)
    generator = torch.Generator().manual_seed(settings.seed)
    prompt = torch.randint(3, vocab, (1, settings.prompt_length), generator=generator).to(device)
    runs: list[ThroughputRun] = []
    with MemoryWatch(device, 0.01) as memory:
        stock_batch, stock_fits = largest_batch(
            settings.memory, (settings.prompt_length + settings.tokens) * per_token, settings.max_batch
        )
        for limit in settings.limits:
            cost = row_cost(model, LimitConfig.create(limit, kv_dtype=settings.kv_dtype))
            batch, fits = largest_batch(settings.memory, cost.bytes_for(limit), settings.max_batch)
            for policy in settings.policies:
                name = f"kvlimit-{policy}@{limit}"
                if progress is not None:
                    progress(f"{name}: {batch} sequences x {settings.tokens} tokens")
                runs.append(_run(model, prompt, settings, memory, name, batch, fits, limit, policy))
        if progress is not None:
            progress(f"stock: {stock_batch} sequences x {settings.tokens} tokens")
        runs.append(_run(model, prompt, settings, memory, "stock", stock_batch, stock_fits, None, None))
        sweep = _sweep(model, prompt, settings, progress)
    stock = runs[-1]
    return {
        "schema": "kvlimit-throughput/1",
        "settings": asdict(settings),
        "kv_bytes_per_token": per_token,
        "machine": machine_facts(device),
        "runs": [asdict(r) for r in runs],
        "ratios": {r.name: r.tokens_per_s / stock.tokens_per_s for r in runs if stock.tokens_per_s > 0},
        "sweep": sweep,
        "wall_s": time.perf_counter() - started,
    }


def _run(
    model: Any,
    prompt: torch.Tensor,
    settings: ThroughputSettings,
    memory: MemoryWatch,
    name: str,
    batch: int,
    fits: bool,
    limit: int | None,
    policy: str | None,
) -> ThroughputRun:
    ids = prompt.expand(batch, -1).contiguous()
    total = settings.prompt_length + settings.tokens
    kwargs: dict[str, Any] = {"max_new_tokens": settings.tokens, "min_new_tokens": settings.tokens,
                              "do_sample": False, "attention_mask": torch.ones_like(ids),
                              "pad_token_id": _pad(model)}  # fmt: skip
    measured: dict[str, Any] = {}
    with memory.phase(measured), torch.no_grad():
        if limit is None:
            cache: Any = DynamicCache(config=hf.text_config(model))
        else:
            config = LimitConfig.create(limit, make_policy(policy), kv_dtype=settings.kv_dtype)
            cache = build_cache(model, config, rows=batch, max_length=total)
        if limit is not None and settings.compile:  # compile the shapes of the timed run, untimed
            warm = build_cache(model, config, rows=batch, max_length=total)
            generate(model, input_ids=ids, **hf.cache_argument(warm), **dict(kwargs, max_new_tokens=3,
                     min_new_tokens=3), **settings.compiling(ids.device))  # fmt: skip
        sync(ids.device)
        start = time.perf_counter()
        if limit is None:
            model.generate(input_ids=ids, **hf.cache_argument(cache), **kwargs)
        else:
            generate(
                model, input_ids=ids, **hf.cache_argument(cache), **kwargs, **settings.compiling(ids.device)
            )
        sync(ids.device)
        seconds = time.perf_counter() - start
    cache_bytes = hf.kv_bytes(cache)
    logger.info("throughput %s: batch %d, %.1f s", name, batch, seconds)
    return ThroughputRun(
        name=name,
        batch=batch,
        fits=fits,
        tokens_per_s=batch * settings.tokens / seconds,
        seconds=seconds,
        seconds_per_sequence=seconds,
        cache_bytes=cache_bytes,
        cache_bytes_per_sequence=cache_bytes // batch,
        memory=measured,
    )


def _sweep(
    model: Any, prompt: torch.Tensor, settings: ThroughputSettings, progress: Callable[[str], None] | None
) -> list[dict[str, Any]]:
    """kvlimit's steady decode rate (first limit and policy) at each batch size of `settings.sweep`."""
    out = []
    limit, policy = settings.limits[0], settings.policies[0]
    for batch in settings.sweep:
        if progress is not None:
            progress(f"sweep: batch {batch}")
        ids = prompt.expand(batch, -1).contiguous()
        steps = settings.sweep_steps
        fill = limit + 4  # steps until the cache is full and evicting
        clock = StepClock(fill + steps, fill + steps, lambda: 0, lambda: 0, ids.device, None, "sweep")
        with torch.no_grad():
            generate(model, input_ids=ids, attention_mask=torch.ones_like(ids), cache_limit=limit,
                     policy=make_policy(policy), max_new_tokens=fill + steps, min_new_tokens=fill + steps,
                     do_sample=False, pad_token_id=_pad(model), stopping_criteria=[clock],
                     **settings.compiling(ids.device))  # fmt: skip
        times = clock.times
        step_s = (times[-1] - times[-1 - steps]) / steps
        out.append({"batch": batch, "step_ms": step_s * 1000, "tokens_per_s": batch / step_s})
    return out


def _pad(model: Any) -> int | None:
    pad = model.generation_config.pad_token_id
    if pad is None:
        eos = model.generation_config.eos_token_id
        pad = eos[0] if isinstance(eos, list) else eos
    return pad


def report_lines(result: dict[str, Any]) -> list[str]:
    """The text report: one row per run, then the sweep."""
    s = result["settings"]
    lines = [
        f"budget {s['memory'] / 2**20:.0f} MiB of KV cache, {s['tokens']} new tokens per sequence after a "
        f"{s['prompt_length']}-token prompt; {result['kv_bytes_per_token']} KV bytes per token",
        f"{'run':<22}{'batch':>6}{'tokens/s':>11}{'vs stock':>10}{'s/sequence':>12}{'cache MiB':>11}{'peak RSS MiB':>14}",
    ]
    for run in result["runs"]:
        mem = run["memory"]
        peak = mem.get("cuda_peak_allocated") or mem.get("rss_peak") or 0
        fits = "" if run["fits"] else "  (one sequence does not fit the budget)"
        lines.append(
            f"{run['name']:<22}{run['batch']:>6}{run['tokens_per_s']:>11.1f}{result['ratios'].get(run['name'], 0):>9.2f}x"
            f"{run['seconds_per_sequence']:>12.1f}{run['cache_bytes'] / 2**20:>11.1f}{peak / 2**20:>14.0f}{fits}"
        )
    if result["sweep"]:
        lines.append("steady decode rate by batch (cache full):")
        for point in result["sweep"]:
            lines.append(
                f"  batch {point['batch']:>4}: {point['step_ms']:8.1f} ms per step, {point['tokens_per_s']:8.1f} tokens/s"
            )
    lines.append(f"wall time: {result['wall_s']:.0f} s")
    return lines


def plot_throughput(result: dict[str, Any], path: str) -> None:
    """Aggregate tokens/s and peak memory per run, and the sweep's tokens/s by batch."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 3.8), dpi=110)
    FigureCanvasAgg(figure)
    rate, memory, sweep = figure.subplots(1, 3)
    names = [r["name"] for r in result["runs"]]
    colors = ["#555555" if n == "stock" else "#1f77b4" for n in names]
    rate.barh(names, [r["tokens_per_s"] for r in result["runs"]], color=colors)
    rate.set_xlabel("aggregate tokens/s")
    for i, run in enumerate(result["runs"]):
        rate.annotate(f" batch {run['batch']}", (run["tokens_per_s"], i), va="center", fontsize=8)
    peaks = [
        (r["memory"].get("cuda_peak_allocated") or r["memory"].get("rss_peak") or 0) / 2**20
        for r in result["runs"]
    ]
    memory.barh(names, peaks, color=colors)
    memory.set_xlabel("peak memory (MiB)")
    memory.set_yticks([])
    if result["sweep"]:
        sweep.plot([p["batch"] for p in result["sweep"]], [p["tokens_per_s"] for p in result["sweep"]], "o-")
        sweep.set_xlabel("batch (sequences)")
        sweep.set_ylabel("steady tokens/s")
        sweep.set_xscale("log", base=2)
    s = result["settings"]
    figure.suptitle(
        f"throughput in {s['memory'] / 2**20:.0f} MiB of KV cache, {s['tokens']} tokens per sequence"
    )
    figure.tight_layout()
    figure.savefig(path, format="png")


def default_sweep(largest: int) -> Sequence[int]:
    """1, 2, 4, ... up to `largest` (included)."""
    sizes = [1]
    while sizes[-1] * 2 < largest:
        sizes.append(sizes[-1] * 2)
    return sorted({*sizes, largest})
