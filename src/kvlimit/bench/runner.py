"""Decode-speed and memory benchmark: stock generate vs kvlimit vs sliding-window recomputation.

Contract
--------
`run_bench(model, settings)` measures, in one process and on the model's device:

1. **Generate runs** (transformers' own `generate`, greedy, exactly `settings.tokens` new tokens,
   end-of-sequence suppressed): kvlimit once per policy (`kvlimit.generate` with a `BoundedCache`
   of `cache_limit` tokens), then stock transformers with its unbounded `DynamicCache`. A
   `StoppingCriteria` hook, called once per decode step, records `time.perf_counter()` (after a
   `torch.cuda.synchronize()` on CUDA) and, every `sample_every` tokens, the cache's K/V bytes and
   stored tokens. Token `i`'s latency is the time between the hook calls of tokens `i - 1` and `i`
   (token 0 comes with the prefill and is reported as `prefill_s`).
2. **Interleaved block**: round-robin, the order rotating every round, one decode forward of each
   variant: stock at KV length L (a `DynamicCache` holding `L - 1` tokens, cropped back after each
   step, so every step attends to exactly `L` keys), kvlimit per policy (`kvlimit.forward_step` on
   a full cache that is evicting), and -- with `far_steps` -- the same two after prompt + T tokens
   (`kvlimit-<policy>@T`: a cache that has seen that many tokens; `stock@T`: KV length prompt + T);
   every few rounds one sliding-window recomputation step (a fresh forward over the last `L`
   tokens, no cache, `logits_to_keep=1`, argmax). Only the step itself is timed (cropping is
   not). The flatness, eviction-overhead and recomputation ratios use this block: every variant
   ran under the same machine load.
3. **Memory**: per phase, peak process RSS (a psutil sampler thread every `rss_interval_s`, and on
   Linux the kernel's exact high-water mark `VmHWM`, reset through `/proc/self/clear_refs`), and
   on CUDA `torch.cuda.max_memory_allocated` (peak statistics reset per phase).

The result is a JSON-ready dict (schema `kvlimit-bench/1`, see `BenchResult` keys below) whose
`ratios` are computed by `compute_ratios(result)` from the stored summary numbers only, and whose
`targets` compare them with the goals in `TARGETS`. Nothing here prints; progress goes to an
optional callback, and `report_lines(result)` renders the text report for the command to print.

Keys of the result: `schema`, `settings`, `model`, `machine`, `runs` (name -> run dict: `kind`,
`policy`, `buckets`, `windows`, `cache`, `memory`, ...), `interleaved` (variant -> latency summary,
per-round ratios), `ratios`, `targets`, `wall_s`. Run names: `kvlimit-<policy>`, `stock`,
`recompute`.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import logging
import math
import os
import platform
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import psutil
import torch
from transformers import DynamicCache, StoppingCriteria, StoppingCriteriaList

from .. import __version__
from ..cache import BoundedCache
from ..config import LimitConfig
from ..generation import build_cache, forward_step, generate, kv_bytes_per_token
from ..integrations.hf import attn_implementation, inspect_model, model_name, text_config

logger = logging.getLogger(__name__)

__all__ = [
    "SCHEMA",
    "TARGETS",
    "BenchSettings",
    "Progress",
    "compute_ratios",
    "evaluate_targets",
    "report_lines",
    "run_bench",
]

SCHEMA = "kvlimit-bench/1"

#: The goals the ratios are checked against (SmolLM2-135M, 2-core CPU, L = 1024, T >= 16,000).
TARGETS: dict[str, float] = {
    "eviction_overhead_max": 1.05,  # kvlimit step / stock step at the same KV length
    "flatness_max_deviation": 0.05,  # |latency at T / latency at L - 1|
    "cache_ratio_min": 15.0,  # stock cache bytes at T / kvlimit's
    "recompute_speedup_min": 20.0,  # recompute step / kvlimit step
}

#: progress(phase, done, total): called at most every few tokens, never required.
Progress = Callable[[str, int, int], None]


@dataclass
class BenchSettings:
    """What to measure.

    Attributes:
        cache_limit: kvlimit's limit L in tokens (also the recomputation window and the KV length of
            the interleaved block).
        tokens: new tokens T per generate run.
        policies: kvlimit policies, one generate run (and one interleaved variant) each.
        prompt_ids: the prompt's token ids (None: `prompt_length` fixed pseudo-random ids).
        prompt_length: length of the default prompt.
        buckets: latency is summarised in this many equal buckets of tokens.
        interleaved_rounds: rounds of the interleaved block (0 skips it, and the recomputation).
        recompute_steps: recomputation steps, spread evenly over the interleaved rounds.
        warmup_rounds: untimed rounds before the interleaved block.
        far_steps: also interleave kvlimit and stock caches that have seen prompt + T tokens (the
            state at the end of the generate runs), for flatness and stock's slow-down measured
            under the same load as the steps at L.
        run_stock: run stock generate (its cache grows with T; skip for huge T).
        cache_samples: about this many cache-size samples per generate run.
        rss_interval_s: RSS sampling period.
        keep_raw: also return every token's latency (`runs[name]["latency_ms"]`).
        seed: seeds the default prompt and the interleaved block's token ids.
    """

    cache_limit: int
    tokens: int
    policies: tuple[str, ...] = ("sinks",)
    prompt_ids: list[int] | None = None
    prompt_length: int = 16
    buckets: int = 20
    interleaved_rounds: int = 200
    recompute_steps: int = 24
    warmup_rounds: int = 3
    far_steps: bool = True
    run_stock: bool = True
    cache_samples: int = 200
    rss_interval_s: float = 0.01
    keep_raw: bool = False
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        """Raise ValueError naming the first bad setting."""
        if self.cache_limit < 2:
            raise ValueError(f"cache_limit must be >= 2; got {self.cache_limit}")
        if self.tokens < 2:
            raise ValueError(f"tokens must be >= 2; got {self.tokens}")
        if not self.policies:
            raise ValueError("policies needs at least one policy")
        if self.buckets < 1:
            raise ValueError(f"buckets must be >= 1; got {self.buckets}")
        if self.interleaved_rounds < 0 or self.recompute_steps < 0 or self.warmup_rounds < 0:
            raise ValueError("interleaved_rounds, recompute_steps and warmup_rounds must be >= 0")
        if self.recompute_steps > self.interleaved_rounds:
            raise ValueError(
                f"recompute_steps ({self.recompute_steps}) cannot exceed interleaved_rounds "
                f"({self.interleaved_rounds}): recomputation is timed inside the interleaved block"
            )
        if self.prompt_ids is not None and not self.prompt_ids:
            raise ValueError("prompt_ids is empty")
        if self.prompt_ids is None and self.prompt_length < 1:
            raise ValueError(f"prompt_length must be >= 1; got {self.prompt_length}")


# --- measuring helpers ---------------------------------------------------------------------------


class MemoryWatch:
    """Peak RSS (sampled, and the kernel's high-water mark on Linux) and CUDA peak, per phase."""

    def __init__(self, device: torch.device, interval_s: float):
        self.device = device
        self.interval_s = interval_s
        self.process = psutil.Process()
        self._peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._hwm_ok = _reset_hwm()

    def __enter__(self) -> MemoryWatch:
        self._thread = threading.Thread(target=self._sample, name="kvlimit-rss", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _rss(self) -> int:
        return int(self.process.memory_info().rss)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval_s):
            rss = self._rss()
            if rss > self._peak:
                self._peak = rss

    @contextlib.contextmanager
    def phase(self, into: dict[str, Any]) -> Iterator[None]:
        """Measure the block's memory into `into` (keys `rss_start`, `rss_peak`, `rss_hwm`, `rss_end`, ...)."""
        start = self._rss()
        self._peak = start
        self._hwm_ok = self._hwm_ok and _reset_hwm()
        cuda = self.device.type == "cuda"
        if cuda:
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            cuda_start = torch.cuda.memory_allocated(self.device)
        try:
            yield
        finally:
            end = self._rss()
            into["rss_start"] = start
            into["rss_peak"] = max(self._peak, end)
            into["rss_hwm"] = _read_hwm() if self._hwm_ok else None
            into["rss_end"] = end
            into["rss_peak_growth"] = into["rss_peak"] - start
            if cuda:
                torch.cuda.synchronize(self.device)
                into["cuda_start_allocated"] = cuda_start
                into["cuda_peak_allocated"] = torch.cuda.max_memory_allocated(self.device)
                into["cuda_peak_growth"] = into["cuda_peak_allocated"] - cuda_start
            else:
                into["cuda_start_allocated"] = into["cuda_peak_allocated"] = into["cuda_peak_growth"] = None


def _reset_hwm() -> bool:
    """Reset the kernel's peak-RSS counter of this process (Linux >= 4.0); False where impossible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        return _read_hwm() is not None
    except OSError:
        return False


def _read_hwm() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


class _StepClock(StoppingCriteria):
    """Called by generate once per new token: records the time and, now and then, the cache's size."""

    def __init__(
        self,
        total: int,
        sample_every: int,
        cache_bytes: Callable[[], int],
        stored_tokens: Callable[[], int],
        device: torch.device,
        progress: Progress | None,
        phase: str,
    ):
        self.total = total
        self.sample_every = max(1, sample_every)
        self.cache_bytes = cache_bytes
        self.stored_tokens = stored_tokens
        self.sync = device.type == "cuda"
        self.device = device
        self.progress = progress
        self.phase = phase
        self.times: list[float] = []
        self.samples: list[tuple[int, int, int]] = []  # (token index, cache bytes, stored tokens)
        self._no = torch.zeros(1, dtype=torch.bool, device=device)

    def __call__(
        self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs: Any
    ) -> torch.BoolTensor:
        if self.sync:
            torch.cuda.synchronize(self.device)
        self.times.append(time.perf_counter())
        index = len(self.times) - 1
        if index % self.sample_every == 0 or index == self.total - 1:
            self.samples.append((index, self.cache_bytes(), self.stored_tokens()))
            if self.progress is not None:
                self.progress(self.phase, index + 1, self.total)
        if self._no.shape[0] != input_ids.shape[0]:
            self._no = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        return self._no  # type: ignore[return-value]


def dynamic_cache_bytes(cache: Any) -> int:
    """K/V bytes held by a transformers cache (all layers, all rows)."""
    total = 0
    for layer in getattr(cache, "layers", []):
        for tensor in (getattr(layer, "keys", None), getattr(layer, "values", None)):
            if isinstance(tensor, torch.Tensor):
                total += tensor.numel() * tensor.element_size()
    return total


def _dynamic_cache_tokens(cache: Any) -> int:
    for layer in getattr(cache, "layers", []):
        keys = getattr(layer, "keys", None)
        if isinstance(keys, torch.Tensor) and keys.ndim == 4:
            return int(keys.shape[-2])
    return 0


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# --- statistics ----------------------------------------------------------------------------------


def summarize(values: Sequence[float]) -> dict[str, float | int | None]:
    """Median, 10th/90th percentile, mean and count of `values` (milliseconds)."""
    if not values:
        return {"n": 0, "median_ms": None, "p10_ms": None, "p90_ms": None, "mean_ms": None}
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "median_ms": statistics.median(ordered),
        "p10_ms": _quantile(ordered, 0.1),
        "p90_ms": _quantile(ordered, 0.9),
        "mean_ms": statistics.fmean(ordered),
    }


def _quantile(ordered: Sequence[float], q: float) -> float:
    if len(ordered) == 1:
        return float(ordered[0])
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


def bucket_size(tokens: int, buckets: int) -> int:
    return max(1, math.ceil(tokens / buckets))


def _window(latency_ms: Sequence[float], start: int, end: int, *, first: int = 1) -> dict[str, Any] | None:
    """Summary of tokens [start, end) of a run whose `latency_ms[j]` is token `first + j`."""
    start, end = max(start, first), min(end, first + len(latency_ms))
    if end <= start:
        return None
    return {"start": start, "end": end, **summarize(latency_ms[start - first : end - first])}


def _buckets(latency_ms: Sequence[float], tokens: int, size: int) -> list[dict[str, Any]]:
    out = []
    for start in range(0, tokens, size):
        window = _window(latency_ms, start, start + size)
        if window is not None:
            out.append(window)
    return out


def _ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den == 0:
        return None
    return float(num) / float(den)


# --- the benchmark -------------------------------------------------------------------------------


def run_bench(model: Any, settings: BenchSettings, *, progress: Progress | None = None) -> dict[str, Any]:
    """Run every phase (see the module docstring) and return the result dict."""
    settings.check()
    started = time.perf_counter()
    device = next(model.parameters()).device
    spec = inspect_model(model)
    per_token = kv_bytes_per_token(model)
    vocab = int(text_config(model).vocab_size)
    prompt = _prompt(settings, vocab, device)
    load_start = _loadavg()
    result: dict[str, Any] = {
        "schema": SCHEMA,
        "settings": _settings_dict(settings, prompt.shape[1]),
        "model": _model_facts(model, spec.model_type, per_token),
        "machine": machine_facts(device),
        "runs": {},
        "interleaved": None,
    }
    # kvlimit first, stock last: the stock cache's large allocations must not inflate the others' RSS
    with MemoryWatch(device, settings.rss_interval_s) as memory:
        _warm_up(model, prompt, settings)
        for policy in settings.policies:
            name = f"kvlimit-{policy}"
            result["runs"][name] = _generate_run(
                model,
                prompt,
                settings,
                memory,
                name=name,
                policy=policy,
                per_token=per_token,
                progress=progress,
            )
        if settings.run_stock:
            result["runs"]["stock"] = _generate_run(
                model,
                prompt,
                settings,
                memory,
                name="stock",
                policy=None,
                per_token=per_token,
                progress=progress,
            )
        if settings.interleaved_rounds > 0:
            far = int(prompt.shape[1]) + settings.tokens
            block = _interleaved(model, settings, memory, vocab, device, progress, far)
            result["interleaved"] = block
            if settings.recompute_steps > 0:
                result["runs"]["recompute"] = block.pop("_recompute_run")
            else:
                block.pop("_recompute_run", None)
    result["machine"]["load_average_start"] = load_start
    result["machine"]["load_average_end"] = _loadavg()
    result["ratios"] = compute_ratios(result)
    result["targets"] = evaluate_targets(result)
    result["wall_s"] = time.perf_counter() - started
    return result


def _prompt(settings: BenchSettings, vocab: int, device: torch.device) -> torch.Tensor:
    if settings.prompt_ids is not None:
        ids = torch.tensor([settings.prompt_ids], dtype=torch.long)
    else:
        gen = torch.Generator().manual_seed(settings.seed)
        ids = torch.randint(min(3, vocab - 1), vocab, (1, settings.prompt_length), generator=gen)
    return ids.to(device)


def _settings_dict(settings: BenchSettings, prompt_length: int) -> dict[str, Any]:
    out = asdict(settings)
    out["policies"] = list(settings.policies)
    out["prompt_length"] = prompt_length
    out["bucket_size"] = bucket_size(settings.tokens, settings.buckets)
    out.pop("extra")
    out.update(settings.extra)
    return out


def _model_facts(model: Any, model_type: str, per_token: int) -> dict[str, Any]:
    config = text_config(model)
    first = next(model.parameters())
    return {
        "model_type": model_type,
        "name": model_name(model) or model_type,
        "parameters": sum(p.numel() for p in model.parameters()),
        "layers": int(getattr(config, "num_hidden_layers", 0) or 0),
        "kv_bytes_per_token": per_token,
        "dtype": str(first.dtype).removeprefix("torch."),
        "device": str(first.device),
        "attn_implementation": attn_implementation(model),
    }


def machine_facts(device: torch.device | None = None) -> dict[str, Any]:
    """CPU model, cores, RAM, library versions and (on CUDA) the GPU."""
    import transformers

    facts: dict[str, Any] = {
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "physical_cores": psutil.cpu_count(logical=False),
        "ram_bytes": int(psutil.virtual_memory().total),
        "torch_threads": torch.get_num_threads(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "kvlimit": __version__,
        "gpu": None,
    }
    if device is not None and device.type == "cuda":
        facts["gpu"] = torch.cuda.get_device_name(device)
    return facts


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _generate_kwargs(model: Any, tokens: int) -> dict[str, Any]:
    pad = getattr(model.generation_config, "pad_token_id", None)
    if pad is None:
        pad = getattr(model.generation_config, "eos_token_id", None)
        if isinstance(pad, list):
            pad = pad[0] if pad else None
    kwargs: dict[str, Any] = {
        "max_new_tokens": tokens,
        "min_new_tokens": tokens,
        "do_sample": False,
        "num_beams": 1,
    }
    if pad is not None:
        kwargs["pad_token_id"] = int(pad)
    return kwargs


def _warm_up(model: Any, prompt: torch.Tensor, settings: BenchSettings) -> None:
    """A few tokens through each path, so one-time setup is not charged to the first measured run."""
    tokens = min(4, settings.tokens)
    mask = torch.ones_like(prompt)
    with torch.no_grad():
        generate(
            model,
            input_ids=prompt,
            attention_mask=mask,
            cache_limit=settings.cache_limit,
            policy=settings.policies[0],
            **_generate_kwargs(model, tokens),
        )
        if settings.run_stock:
            model.generate(input_ids=prompt, attention_mask=mask, **_generate_kwargs(model, tokens))


def _new_bounded_cache(
    model: Any, settings: BenchSettings, policy: str, max_length: int | None
) -> BoundedCache:
    config = LimitConfig.create(settings.cache_limit, policy)
    return build_cache(model, inspect_model(model), config, settings.cache_limit, max_length)


def _generate_run(
    model: Any,
    prompt: torch.Tensor,
    settings: BenchSettings,
    memory: MemoryWatch,
    *,
    name: str,
    policy: str | None,
    per_token: int,
    progress: Progress | None,
) -> dict[str, Any]:
    tokens = settings.tokens
    device = prompt.device
    prompt_length = int(prompt.shape[1])
    sample_every = max(1, tokens // max(1, settings.cache_samples))
    cache: Any
    if policy is None:
        cache = DynamicCache(config=text_config(model))
        clock = _StepClock(
            tokens,
            sample_every,
            lambda: dynamic_cache_bytes(cache),
            lambda: _dynamic_cache_tokens(cache),
            device,
            progress,
            name,
        )
    else:
        cache = _new_bounded_cache(model, settings, policy, prompt_length + tokens)
        clock = _StepClock(
            tokens,
            sample_every,
            cache.nbytes,
            lambda: max(cache.stored_tokens(), default=0),
            device,
            progress,
            name,
        )
    kwargs = _generate_kwargs(model, tokens)
    mem: dict[str, Any] = {}
    logger.info("bench: %s, %d tokens", name, tokens)
    with memory.phase(mem), torch.no_grad():
        _sync(device)
        start = time.perf_counter()
        if policy is None:
            out = model.generate(
                input_ids=prompt,
                attention_mask=torch.ones_like(prompt),
                cache=cache,
                stopping_criteria=StoppingCriteriaList([clock]),
                **kwargs,
            )
        else:
            out = generate(
                model,
                input_ids=prompt,
                attention_mask=torch.ones_like(prompt),
                cache_limit=settings.cache_limit,
                policy=policy,
                cache=cache,
                stopping_criteria=StoppingCriteriaList([clock]),
                **kwargs,
            )
        _sync(device)
        end = time.perf_counter()
    generated = int(out.shape[1]) - prompt_length
    times = clock.times
    latency_ms = [(b - a) * 1000.0 for a, b in itertools.pairwise(times)]
    size = bucket_size(tokens, settings.buckets)
    limit = settings.cache_limit
    final_index, final_bytes, final_stored = clock.samples[-1] if clock.samples else (0, 0, 0)
    run: dict[str, Any] = {
        "kind": "stock" if policy is None else "kvlimit",
        "policy": policy,
        "tokens": generated,
        "prompt_length": prompt_length,
        "prefill_s": (times[0] - start) if times else None,
        "decode_s": (times[-1] - times[0]) if len(times) > 1 else None,
        "wall_s": end - start,
        "buckets": _buckets(latency_ms, tokens, size),
        "windows": {
            # kvlimit: the first bucket with a full cache, the last bucket, and everything full
            "at_limit": _window(latency_ms, limit, limit + size),
            "at_end": _window(latency_ms, tokens - size, tokens),
            "steady": _window(latency_ms, limit, tokens),
            # stock: tokens whose step attends to about `limit` keys (prompt included)
            "around_limit": _window(
                latency_ms, limit - prompt_length - size // 2, limit - prompt_length + size - size // 2
            ),
        },
        "cache": {
            "token": [s[0] for s in clock.samples],
            "bytes": [s[1] for s in clock.samples],
            "stored_tokens": [s[2] for s in clock.samples],
            "final_token": final_index,
            "final_bytes": final_bytes,
            "final_stored_tokens": final_stored,
            "kv_bytes_per_token": per_token,
            "expected_bounded_bytes": limit * per_token if policy is not None else None,
        },
        "memory": mem,
    }
    if policy is not None:
        run["cache"]["stats"] = dict(cache.stats)
    if settings.keep_raw:
        run["latency_ms"] = latency_ms
    return run


def _interleaved(
    model: Any,
    settings: BenchSettings,
    memory: MemoryWatch,
    vocab: int,
    device: torch.device,
    progress: Progress | None,
    far: int,
) -> dict[str, Any]:
    """Round-robin decode steps of every variant (see the module docstring).

    Variants: `kvlimit-<policy>` (a full cache that has seen L + 8 tokens), `kvlimit-<policy>@T`
    (one that has seen `far` tokens), `stock` (KV length L), `stock@T` (KV length `far`), and every
    few rounds one recomputation step over L tokens.
    """
    limit = settings.cache_limit
    gen = torch.Generator().manual_seed(settings.seed + 1)
    low = min(3, vocab - 1)
    fill = torch.randint(low, vocab, (1, max(limit + 8, far)), generator=gen).to(device)
    step_ids = torch.randint(low, vocab, (1, 1), generator=gen).to(device)
    extra = _logits_to_keep(model)
    steppers: dict[str, _Stepper] = {}
    with torch.no_grad():
        for policy in settings.policies:
            steppers[f"kvlimit-{policy}"] = _KvlimitStepper(
                model, settings, policy, fill[:, : limit + 8], step_ids
            )
            if settings.far_steps and far > limit + 8:
                steppers[f"kvlimit-{policy}@T"] = _KvlimitStepper(
                    model, settings, policy, fill[:, :far], step_ids
                )
        steppers["stock"] = _StockStepper(model, fill[:, : limit - 1], step_ids, extra)
        if settings.far_steps and settings.run_stock and far > limit + 8:
            steppers["stock@T"] = _StockStepper(model, fill[:, : far - 1], step_ids, extra)
        recompute = _RecomputeStepper(model, fill[:, :limit], extra)
        names = list(steppers)
        rounds = settings.interleaved_rounds
        every = max(1, rounds // settings.recompute_steps) if settings.recompute_steps else 0
        for _ in range(settings.warmup_rounds):
            for name in names:
                steppers[name].prepare()
                steppers[name].step()
            if every:
                recompute.step()
        times: dict[str, list[float]] = {name: [] for name in names}
        recompute_ms: list[float] = []
        recompute_mem: dict[str, Any] = {}
        for r in range(rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                times[name].append(_timed(steppers[name], device))
            if every and r % every == 0 and len(recompute_ms) < settings.recompute_steps:
                if not recompute_mem:
                    with memory.phase(recompute_mem):  # the first step's memory: its activations
                        recompute_ms.append(_timed(recompute, device))
                else:
                    recompute_ms.append(_timed(recompute, device))
            if progress is not None:
                progress("interleaved", r + 1, rounds)
    variants: dict[str, Any] = {name: summarize(values) for name, values in times.items()}
    pairs = []
    for policy in settings.policies:
        kv = f"kvlimit-{policy}"
        pairs += [(kv, "stock"), (f"{kv}@T", kv), ("stock@T", f"{kv}@T")]
    pairs.append(("stock@T", "stock"))
    per_round: dict[str, Any] = {}
    for num, den in pairs:
        if num in times and den in times:
            ratios = [a / b for a, b in zip(times[num], times[den], strict=True) if b > 0]
            per_round[f"{num}/{den}"] = summarize(ratios)  # the "_ms" keys hold plain ratios here
    block: dict[str, Any] = {
        "kv_length": limit,
        "far_length": far if any(n.endswith("@T") for n in names) else None,
        "rounds": rounds,
        "variants": variants,
        "per_round_ratio": per_round,
        "_recompute_run": {
            "kind": "recompute",
            "policy": None,
            "window": limit,
            "steps": len(recompute_ms),
            "summary": summarize(recompute_ms),
            "cache": {"final_bytes": 0, "final_stored_tokens": 0},
            "memory": recompute_mem,
            "latency_ms": recompute_ms,
        },
    }
    if settings.keep_raw:
        block["latency_ms"] = times
    return block


class _Stepper:
    """One decode step of one variant; `prepare` runs untimed before each timed `step`."""

    def prepare(self) -> None:
        return None

    def step(self) -> None:
        raise NotImplementedError


def _timed(stepper: _Stepper, device: torch.device) -> float:
    stepper.prepare()
    _sync(device)
    start = time.perf_counter()
    stepper.step()
    _sync(device)
    return (time.perf_counter() - start) * 1000.0


class _KvlimitStepper(_Stepper):
    """A kvlimit cache fed `fill` (in chunks); a step is `kvlimit.forward_step` of one token, planning included."""

    def __init__(
        self, model: Any, settings: BenchSettings, policy: str, fill: torch.Tensor, step_ids: torch.Tensor
    ):
        self.model = model
        self.cache = _new_bounded_cache(model, settings, policy, None)
        self.step_ids = step_ids
        room = max(1, min(1024, self.cache.policy.max_chunk(settings.cache_limit)))
        extra = _logits_to_keep(model)
        for start in range(0, fill.shape[1], room):
            forward_step(model, self.cache, fill[:, start : start + room], **extra)
        self.seen = int(fill.shape[1])

    def step(self) -> None:
        forward_step(self.model, self.cache, self.step_ids)


class _StockStepper(_Stepper):
    """A `DynamicCache` holding `fill`; a step attends to `len(fill) + 1` keys, then `prepare` crops it back."""

    def __init__(self, model: Any, fill: torch.Tensor, step_ids: torch.Tensor, extra: dict[str, Any]):
        self.model = model
        self.cache = DynamicCache(config=text_config(model))
        device = fill.device
        for start in range(0, fill.shape[1], 1024):
            model(input_ids=fill[:, start : start + 1024], cache=self.cache, use_cache=True, **extra)
        self.length = int(fill.shape[1])
        self.mask = torch.ones((1, self.length + 1), dtype=torch.long, device=device)
        self.position = torch.tensor([[self.length]], device=device)
        self.step_ids = step_ids

    def prepare(self) -> None:
        grown = self.cache.get_seq_length() - self.length
        if grown > 0:
            self.cache.crop(-grown)

    def step(self) -> None:
        self.model(
            input_ids=self.step_ids,
            attention_mask=self.mask,
            position_ids=self.position,
            cache=self.cache,
            use_cache=True,
        )


def _logits_to_keep(model: Any) -> dict[str, Any]:
    """`{"logits_to_keep": 1}` where the model takes it: a fill or recompute forward needs the last logits only."""
    return {"logits_to_keep": 1} if "logits_to_keep" in inspect.signature(model.forward).parameters else {}


class _RecomputeStepper(_Stepper):
    """Sliding-window recomputation: a fresh forward over the last `limit` tokens, no cache."""

    def __init__(self, model: Any, window: torch.Tensor, extra: dict[str, Any]):
        self.model = model
        self.window = window.clone()
        self.extra = extra

    def step(self) -> None:
        logits = self.model(input_ids=self.window, use_cache=False, **self.extra).logits
        nxt = logits[:, -1].argmax(dim=-1, keepdim=True)
        self.window = torch.cat((self.window[:, 1:], nxt), dim=1)


# --- ratios and targets --------------------------------------------------------------------------


def compute_ratios(result: dict[str, Any]) -> dict[str, Any]:
    """The headline ratios, from the summaries stored in `result` (see the module docstring).

    Per kvlimit policy (medians throughout; "interleaved" = the interleaved block):
      flatness: interleaved kvlimit step after prompt + T tokens / after L + 8 tokens;
          `flatness_runs` is the generate run's last bucket (tokens T - W .. T) / its first full
          bucket (tokens L .. L + W), measured minutes apart, so machine load shows in it.
      eviction_overhead: interleaved kvlimit step / stock step at KV length L;
          `eviction_overhead_paired` is the median of the per-round ratios;
          `eviction_overhead_runs` compares the generate runs instead (kvlimit's first full bucket /
          stock's bucket around KV length L).
      recompute_speedup: interleaved recomputation step / kvlimit step;
          `recompute_speedup_runs` uses kvlimit's steady-state generate median instead.
      speedup_at_T: interleaved stock step at KV length prompt + T / kvlimit's step at T.
      cache_ratio: stock cache bytes at the last token / kvlimit's.
      cache_bytes_exact: kvlimit's cache bytes at the last token == L * KV bytes per token.
    Plus `stock_slowdown`: interleaved stock step at KV length prompt + T / at L.
    The target checks use `flatness` and `eviction_overhead` (the `_runs` values when the block did
    not run).
    """
    runs = result.get("runs", {})
    block = result.get("interleaved") or {}
    variants = block.get("variants", {})
    paired = block.get("per_round_ratio", {})
    stock = runs.get("stock")
    recompute = runs.get("recompute")
    per_token = result.get("model", {}).get("kv_bytes_per_token")
    limit = result.get("settings", {}).get("cache_limit")

    def step(name: str) -> float | None:
        return (variants.get(name) or {}).get("median_ms")

    def window(run: dict[str, Any] | None, key: str) -> float | None:
        return (((run or {}).get("windows") or {}).get(key) or {}).get("median_ms")

    recompute_ms = recompute["summary"]["median_ms"] if recompute else None
    out: dict[str, Any] = {}
    for name, run in runs.items():
        if run.get("kind") != "kvlimit":
            continue
        final_bytes = run["cache"]["final_bytes"]
        flat_runs = _ratio(window(run, "at_end"), window(run, "at_limit"))
        overhead_runs = _ratio(window(run, "at_limit"), window(stock, "around_limit"))
        flat = _ratio(step(f"{name}@T"), step(name))
        overhead = _ratio(step(name), step("stock"))
        out[name] = {
            "flatness": flat if flat is not None else flat_runs,
            "flatness_paired": (paired.get(f"{name}@T/{name}") or {}).get("median_ms"),
            "flatness_runs": flat_runs,
            "eviction_overhead": overhead if overhead is not None else overhead_runs,
            "eviction_overhead_paired": (paired.get(f"{name}/stock") or {}).get("median_ms"),
            "eviction_overhead_runs": overhead_runs,
            "recompute_speedup": _ratio(recompute_ms, step(name)),
            "recompute_speedup_runs": _ratio(recompute_ms, window(run, "steady")),
            "speedup_at_T": _ratio(step("stock@T"), step(f"{name}@T")),
            "cache_ratio": _ratio(stock["cache"]["final_bytes"], final_bytes) if stock else None,
            "cache_bytes": final_bytes,
            "cache_bytes_expected": None if limit is None or per_token is None else limit * per_token,
            "cache_bytes_exact": (
                None if limit is None or per_token is None else final_bytes == limit * per_token
            ),
            "stock_cache_bytes": stock["cache"]["final_bytes"] if stock else None,
            "stock_slowdown": _ratio(step("stock@T"), step("stock")),
        }
    return out


def evaluate_targets(result: dict[str, Any], targets: dict[str, float] | None = None) -> dict[str, Any]:
    """Per kvlimit run, each ratio against its goal: {"value", "goal", "met"} (met None = not measured)."""
    goals = TARGETS if targets is None else targets
    out: dict[str, Any] = {}
    for name, ratios in result.get("ratios", {}).items():
        flat = ratios["flatness"]
        overhead = ratios["eviction_overhead"]
        cache_ratio = ratios["cache_ratio"]
        speedup = ratios["recompute_speedup"]
        out[name] = {
            "eviction_overhead": {
                "value": overhead,
                "goal": f"<= {goals['eviction_overhead_max']:g}",
                "met": None if overhead is None else overhead <= goals["eviction_overhead_max"],
            },
            "flatness": {
                "value": flat,
                "goal": f"within {goals['flatness_max_deviation']:.0%} of 1",
                "met": None if flat is None else abs(flat - 1.0) <= goals["flatness_max_deviation"],
            },
            "cache_bytes_exact": {
                "value": ratios["cache_bytes"],
                "goal": f"== {ratios['cache_bytes_expected']}",
                "met": ratios["cache_bytes_exact"],
            },
            "cache_ratio": {
                "value": cache_ratio,
                "goal": f">= {goals['cache_ratio_min']:g}",
                "met": None if cache_ratio is None else cache_ratio >= goals["cache_ratio_min"],
            },
            "recompute_speedup": {
                "value": speedup,
                "goal": f">= {goals['recompute_speedup_min']:g}",
                "met": None if speedup is None else speedup >= goals["recompute_speedup_min"],
            },
        }
    return out


# --- text report ---------------------------------------------------------------------------------


def _fmt(value: float | None, spec: str = ".3f", suffix: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{suffix}"


def _mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:.1f} MiB"


def report_lines(result: dict[str, Any]) -> list[str]:
    """The human-readable report of a result (what `kvlimit bench` prints)."""
    s = result["settings"]
    m = result["model"]
    mach = result["machine"]
    lines = [
        f"model: {m['name']} ({m['model_type']}, {m['parameters'] / 1e6:.1f}M parameters, {m['layers']} layers, "
        f"{m['dtype']} on {m['device']}, {m['kv_bytes_per_token']} KV bytes/token)",
        f"machine: {mach['cpu']}, {mach['logical_cores']} logical cores, {mach['torch_threads']} torch threads, "
        f"{_mib(mach['ram_bytes'])} RAM, torch {mach['torch']}, transformers {mach['transformers']}"
        + (f", GPU {mach['gpu']}" if mach.get("gpu") else ""),
        f"load average: start {mach.get('load_average_start')}, end {mach.get('load_average_end')}",
        f"settings: cache_limit L={s['cache_limit']}, tokens T={s['tokens']}, prompt {s['prompt_length']} tokens, "
        f"policies {','.join(s['policies'])}, buckets of {s['bucket_size']} tokens",
        "",
        "generate runs (latency per token, ms: median of the bucket):",
    ]
    runs = result["runs"]
    gen_runs = {k: v for k, v in runs.items() if v["kind"] in ("kvlimit", "stock")}
    if gen_runs:
        names = list(gen_runs)
        lines.append("  tokens        " + "".join(f"{n:>16}" for n in names))
        first = gen_runs[names[0]]["buckets"]
        for i, bucket in enumerate(first):
            cells = []
            for n in names:
                b = gen_runs[n]["buckets"]
                cells.append(f"{_fmt(b[i]['median_ms'] if i < len(b) else None, '.2f'):>16}")
            lines.append(f"  {bucket['start']:>5}-{bucket['end'] - 1:<7}" + "".join(cells))
        lines.append("")
        for n, run in gen_runs.items():
            mem = run["memory"]
            lines.append(
                f"  {n}: {run['tokens']} tokens in {run['wall_s']:.1f} s (prefill {_fmt(run['prefill_s'], '.2f')} s), "
                f"cache at the end {run['cache']['final_bytes']} bytes ({run['cache']['final_stored_tokens']} tokens), "
                f"peak RSS {_mib(mem.get('rss_peak'))} (+{_mib(mem.get('rss_peak_growth'))} over the run's start"
                + (f", kernel high-water mark {_mib(mem['rss_hwm'])}" if mem.get("rss_hwm") else "")
                + ")"
                + (
                    f", CUDA peak allocated {_mib(mem['cuda_peak_allocated'])}"
                    if mem.get("cuda_peak_allocated") is not None
                    else ""
                )
            )
    block = result.get("interleaved")
    if block:
        lines.append("")
        far = block.get("far_length")
        lines.append(
            f"interleaved decode steps ({block['rounds']} rounds, order rotating): plain names at KV length "
            f"{block['kv_length']}"
            + (f", @T after {far} tokens (stock@T: KV length {far})" if far else "")
            + ":"
        )
        for n, v in block["variants"].items():
            lines.append(
                f"  {n:<16} median {_fmt(v['median_ms'], '.2f')} ms  p10 {_fmt(v['p10_ms'], '.2f')}  "
                f"p90 {_fmt(v['p90_ms'], '.2f')}  (n={v['n']})"
            )
        rec = runs.get("recompute")
        if rec:
            sm = rec["summary"]
            lines.append(
                f"  {'recompute':<16} median {_fmt(sm['median_ms'], '.1f')} ms  p10 {_fmt(sm['p10_ms'], '.1f')}  "
                f"p90 {_fmt(sm['p90_ms'], '.1f')}  (n={sm['n']}, fresh forward over {rec['window']} tokens)"
                + f", peak RSS growth {_mib(rec['memory'].get('rss_peak_growth'))}"
            )
    lines.append("")
    lines.append("ratios (same process; the speed ratios from the interleaved block):")
    for n, r in result.get("ratios", {}).items():
        goals = result.get("targets", {}).get(n, {})

        def mark(key: str, goals: dict[str, Any] = goals) -> str:
            g = goals.get(key)
            if not g or g["met"] is None:
                return ""
            return f"  [target {g['goal']}: {'met' if g['met'] else 'NOT met'}]"

        lines += [
            f"  {n}:",
            f"    (a) flatness, kvlimit step at T / at L:        {_fmt(r['flatness'])}"
            f" (paired per round {_fmt(r['flatness_paired'])}; from the generate run's buckets "
            f"{_fmt(r['flatness_runs'])}){mark('flatness')}",
            f"    (b) eviction overhead, kvlimit / stock at L:   {_fmt(r['eviction_overhead'])}"
            f" (paired per round {_fmt(r['eviction_overhead_paired'])}; from the generate runs "
            f"{_fmt(r['eviction_overhead_runs'])}){mark('eviction_overhead')}",
            f"    (c) speed-up over recomputation, per token:    {_fmt(r['recompute_speedup'], '.1f', 'x')}"
            f" (vs the generate run's steady state {_fmt(r['recompute_speedup_runs'], '.1f', 'x')})"
            f"{mark('recompute_speedup')}",
            f"    (d) stock cache bytes / kvlimit's at T:        {_fmt(r['cache_ratio'], '.2f', 'x')}"
            f" ({r['stock_cache_bytes']} vs {r['cache_bytes']} bytes){mark('cache_ratio')}",
            f"        kvlimit cache bytes == L x bytes/token:    {r['cache_bytes_exact']}"
            f" ({r['cache_bytes']} vs {r['cache_bytes_expected']}){mark('cache_bytes_exact')}",
            f"        stock step at T / kvlimit step at T:       {_fmt(r['speedup_at_T'], '.2f', 'x')}"
            f" (stock at T / stock at L: {_fmt(r['stock_slowdown'], '.2f', 'x')})",
        ]
    lines.append(f"wall time: {result['wall_s']:.1f} s")
    return lines
