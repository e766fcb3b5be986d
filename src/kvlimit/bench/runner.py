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

This module holds the settings, the phases and the machine/model facts; the parts live next to it:
`memory` (the per-phase memory watch), `clock` (the per-token clock and cache sizes), `steppers`
(one timed decode step per variant), `stats` (summaries of latencies) and `report` (ratios,
targets and the text report; `TARGETS`, `compute_ratios`, `evaluate_targets` and `report_lines`
are importable from here as well).

Keys of the result: `schema`, `settings`, `model`, `machine`, `runs` (name -> run dict: `kind`,
`policy`, `buckets`, `windows`, `cache`, `memory`, ...), `interleaved` (variant -> latency summary,
per-round ratios), `ratios`, `targets`, `wall_s`. Run names: `kvlimit-<policy>`, `stock`,
`recompute`.
"""

from __future__ import annotations

import itertools
import logging
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import psutil
import torch
from transformers import DynamicCache, StoppingCriteriaList

from .. import __version__
from ..build import build_cache
from ..cache.quant import DEFAULT_KV_GROUP
from ..config import LimitConfig
from ..generation import generate
from ..integrations.hf import (
    attn_implementation,
    cache_argument,
    compile_config_for,
    inspect_model,
    last_logits_only,
    model_name,
    text_config,
)
from ..policies import EvictionPolicy, make_policy, settings_for
from ..sizing import kv_bytes_per_token, row_cost
from .clock import Progress, StepClock, dynamic_cache_bytes, dynamic_cache_tokens, sync
from .memory import MemoryWatch
from .report import TARGETS, compute_ratios, evaluate_targets, report_lines
from .stats import bucket_size, summarize, token_buckets, token_window
from .steppers import (
    KvlimitStepper,
    RecomputeStepper,
    Stepper,
    StockStepper,
    timed,
)

logger = logging.getLogger(__name__)

# the benchmark API in one place: TARGETS, report_lines (.report) and Progress (.clock) included
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


@dataclass
class BenchSettings:
    """What to measure.

    Attributes:
        cache_limit: kvlimit's limit L in tokens (also the recomputation window and the KV length of
            the interleaved block).
        tokens: new tokens T per generate run.
        policies: kvlimit variants, one generate run (and one interleaved variant) each: a policy
            name, or "policy:kv_dtype" for a quantized cache ("sinks:int8").
        kv_group: dims per quantization block of the quantized variants.
        policy_settings: settings (`n_sink`, ...) given to each policy that takes them.
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
        compile: kvlimit's decode steps compiled (`kvlimit.generate(compile=True)`, inductor, one graph);
            the warm-up compiles, so no timed run waits for it.
        extra: more entries for the result's `settings` (the command adds the model's source).
    """

    cache_limit: int
    tokens: int
    policies: tuple[str, ...] = ("sinks",)
    policy_settings: dict[str, Any] = field(default_factory=dict)
    kv_group: int = DEFAULT_KV_GROUP
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
    compile: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def compiling(self, device: torch.device) -> dict[str, Any]:
        """`kvlimit.generate`'s compile arguments for kvlimit's runs on `device`."""
        if not self.compile:
            return {"compile": False}
        return {"compile": True, "compile_config": compile_config_for(None, device)}

    def policy(self, name: str) -> EvictionPolicy:
        """The policy of variant `name` ("sinks", "sinks:int8", "sinks+recall64") with the
        `policy_settings` it takes."""
        policy = name.partition(":")[0].partition("+recall")[0]
        return make_policy(policy, **settings_for(policy, **self.policy_settings))

    @staticmethod
    def kv_dtype(name: str) -> str | None:
        """The cache storage of variant `name`: "sinks:int8" stores int8 codes, "sinks" the model's dtype."""
        return name.partition(":")[2] or None

    @staticmethod
    def recall(name: str) -> int:
        """The recalled slots of variant `name`: "sinks+recall64" recalls 64 of the limit, "sinks" none."""
        tier = name.partition(":")[0].partition("+recall")[2]
        return int(tier) if tier else 0

    def config(self, name: str) -> LimitConfig:
        """The cache configuration of variant `name` at the limit."""
        return LimitConfig.create(self.cache_limit, self.policy(name), kv_dtype=self.kv_dtype(name),
                                  kv_group=self.kv_group, recall=self.recall(name) or None)  # fmt: skip

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
        result["runs"] = _generate_runs(model, prompt, settings, memory, per_token, progress)
        if settings.interleaved_rounds > 0:
            far = int(prompt.shape[1]) + settings.tokens
            block, recompute_run = _interleaved(model, settings, memory, vocab, device, progress, far)
            result["interleaved"] = block
            if settings.recompute_steps > 0:
                result["runs"]["recompute"] = recompute_run
    result["machine"]["load_average_start"] = load_start
    result["machine"]["load_average_end"] = _loadavg()
    result["ratios"] = compute_ratios(result)
    result["targets"] = evaluate_targets(result)
    result["wall_s"] = time.perf_counter() - started
    return result


# --- prompt, settings, model and machine facts ---------------------------------------------------


def _prompt(settings: BenchSettings, vocab: int, device: torch.device) -> torch.Tensor:
    """The prompt as a (1, length) tensor: `settings.prompt_ids`, or seeded pseudo-random ids."""
    if settings.prompt_ids is not None:
        ids = torch.tensor([settings.prompt_ids], dtype=torch.long)
    else:
        gen = torch.Generator().manual_seed(settings.seed)
        ids = torch.randint(min(3, vocab - 1), vocab, (1, settings.prompt_length), generator=gen)
    return ids.to(device)


def _settings_dict(settings: BenchSettings, prompt_length: int) -> dict[str, Any]:
    """The result's `settings`: every field, the prompt's actual length, the bucket size and `extra`."""
    out = asdict(settings)
    out["policies"] = list(settings.policies)
    out["prompt_length"] = prompt_length
    out["bucket_size"] = bucket_size(settings.tokens, settings.buckets)
    out.pop("extra")
    out.update(settings.extra)
    return out


def _model_facts(model: Any, model_type: str, per_token: int) -> dict[str, Any]:
    """The result's `model`: type, name, size, dtype, device, attention and KV bytes per token."""
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
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _loadavg() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, None where the platform has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


# --- generate runs -------------------------------------------------------------------------------


def _generate_kwargs(model: Any, tokens: int) -> dict[str, Any]:
    """Greedy generate arguments for exactly `tokens` new tokens (end-of-sequence cannot stop it early)."""
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
            policy=settings.policy(settings.policies[0]),
            **_generate_kwargs(model, tokens),
            **settings.compiling(prompt.device),
        )
        if settings.run_stock:
            model.generate(input_ids=prompt, attention_mask=mask, **_generate_kwargs(model, tokens))


def _generate_runs(
    model: Any,
    prompt: torch.Tensor,
    settings: BenchSettings,
    memory: MemoryWatch,
    per_token: int,
    progress: Progress | None,
) -> dict[str, Any]:
    """kvlimit's generate run per policy, then stock's (unless skipped): run name -> run dict."""
    runs: dict[str, Any] = {}
    for policy in settings.policies:
        name = f"kvlimit-{policy}"
        runs[name] = _generate_run(
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
        runs["stock"] = _generate_run(
            model,
            prompt,
            settings,
            memory,
            name="stock",
            policy=None,
            per_token=per_token,
            progress=progress,
        )
    return runs


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
    """One timed generate call of `settings.tokens` new tokens: kvlimit with `policy`, stock for None."""
    tokens = settings.tokens
    device = prompt.device
    prompt_length = int(prompt.shape[1])
    sample_every = max(1, tokens // max(1, settings.cache_samples))
    cache, cache_bytes, stored_tokens = _run_cache(model, settings, policy, prompt_length + tokens)
    clock = StepClock(tokens, sample_every, cache_bytes, stored_tokens, device, progress, name)
    kwargs = _generate_kwargs(model, tokens)
    mem: dict[str, Any] = {}
    logger.info("bench: %s, %d tokens", name, tokens)
    with memory.phase(mem), torch.no_grad():
        sync(device)
        start = time.perf_counter()
        out = _call_generate(model, prompt, settings, policy, cache, clock, kwargs)
        sync(device)
        end = time.perf_counter()
    times = clock.times
    latency_ms = [(b - a) * 1000.0 for a, b in itertools.pairwise(times)]
    size = bucket_size(tokens, settings.buckets)
    run: dict[str, Any] = {
        "kind": "stock" if policy is None else "kvlimit",
        "policy": policy,
        "tokens": int(out.shape[1]) - prompt_length,
        "prompt_length": prompt_length,
        "prefill_s": (times[0] - start) if times else None,
        "decode_s": (times[-1] - times[0]) if len(times) > 1 else None,
        "wall_s": end - start,
        "buckets": token_buckets(latency_ms, tokens, size),
        "windows": _run_windows(latency_ms, settings.cache_limit, tokens, size, prompt_length),
        "cache": _cache_record(clock.samples, settings.cache_limit, per_token, bounded=policy is not None),
        "memory": mem,
    }
    if policy is not None:
        run["cache"]["stats"] = dict(cache.stats)
        run["kv_dtype"] = settings.kv_dtype(policy)
        run["cache_bytes_expected"] = _expected_bytes(model, settings, policy)
    if settings.keep_raw:
        run["latency_ms"] = latency_ms
    return run


def _expected_bytes(model: Any, settings: BenchSettings, variant: str) -> int:
    """What a full cache of variant `variant` holds: L x stored bytes per token (+ float sinks)."""
    return row_cost(model, settings.config(variant)).bytes_for(settings.cache_limit)


def _run_cache(
    model: Any, settings: BenchSettings, policy: str | None, max_length: int
) -> tuple[Any, Callable[[], int], Callable[[], int]]:
    """A generate run's cache (stock's `DynamicCache` for policy None) and readers of its bytes and tokens."""
    if policy is None:
        stock = DynamicCache(config=text_config(model))
        return stock, lambda: dynamic_cache_bytes(stock), lambda: dynamic_cache_tokens(stock)
    bounded = build_cache(model, settings.config(policy), max_length=max_length)
    return bounded, bounded.nbytes, lambda: max(bounded.stored_tokens(), default=0)


def _call_generate(
    model: Any,
    prompt: torch.Tensor,
    settings: BenchSettings,
    policy: str | None,
    cache: Any,
    clock: StepClock,
    kwargs: dict[str, Any],
) -> torch.Tensor:
    """transformers' generate (policy None) or `kvlimit.generate` on `cache`, timed by `clock`."""
    if policy is None:
        return model.generate(
            input_ids=prompt,
            attention_mask=torch.ones_like(prompt),
            **cache_argument(cache),
            stopping_criteria=StoppingCriteriaList([clock]),
            **kwargs,
        )
    return generate(
        model,
        input_ids=prompt,
        attention_mask=torch.ones_like(prompt),
        **cache_argument(cache),  # the cache carries its LimitConfig
        stopping_criteria=StoppingCriteriaList([clock]),
        **kwargs,
        **settings.compiling(prompt.device),
    )


def _run_windows(
    latency_ms: list[float], limit: int, tokens: int, size: int, prompt_length: int
) -> dict[str, Any]:
    """The latency windows the ratios compare (`size`: tokens per bucket)."""
    return {
        # kvlimit: the first bucket with a full cache, the last bucket, and everything full
        "at_limit": token_window(latency_ms, limit, limit + size),
        "at_end": token_window(latency_ms, tokens - size, tokens),
        "steady": token_window(latency_ms, limit, tokens),
        # stock: tokens whose step attends to about `limit` keys (prompt included)
        "around_limit": token_window(
            latency_ms, limit - prompt_length - size // 2, limit - prompt_length + size - size // 2
        ),
    }


def _cache_record(
    samples: list[tuple[int, int, int]], limit: int, per_token: int, *, bounded: bool
) -> dict[str, Any]:
    """The cache-size samples of a run (token index, bytes, stored tokens) and its final size."""
    final_index, final_bytes, final_stored = samples[-1] if samples else (0, 0, 0)
    return {
        "token": [s[0] for s in samples],
        "bytes": [s[1] for s in samples],
        "stored_tokens": [s[2] for s in samples],
        "final_token": final_index,
        "final_bytes": final_bytes,
        "final_stored_tokens": final_stored,
        "kv_bytes_per_token": per_token,
        "expected_bounded_bytes": limit * per_token if bounded else None,
    }


# --- the interleaved block -----------------------------------------------------------------------


def _interleaved(
    model: Any,
    settings: BenchSettings,
    memory: MemoryWatch,
    vocab: int,
    device: torch.device,
    progress: Progress | None,
    far: int,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Round-robin decode steps of every variant (see the module docstring): the block and the recompute run.

    Variants: `kvlimit-<policy>` (a full cache that has seen L + 8 tokens), `kvlimit-<policy>@T`
    (one that has seen `far` tokens), `stock` (KV length L), `stock@T` (KV length `far`), and every
    few rounds one recomputation step over L tokens.
    """
    limit = settings.cache_limit
    fill, step_ids = _interleaved_ids(settings, vocab, device, far)
    extra = last_logits_only(model)
    with torch.no_grad():
        steppers = _steppers(model, settings, fill, step_ids, extra, far)
        recompute = RecomputeStepper(model, fill[:, :limit], extra)
        rounds = settings.interleaved_rounds
        every = max(1, rounds // settings.recompute_steps) if settings.recompute_steps else 0
        for _ in range(settings.warmup_rounds):
            _untimed_round(steppers, recompute if every else None)
        times, recompute_ms, recompute_mem = _timed_rounds(
            steppers, recompute, every, settings, memory, device, progress
        )
    block: dict[str, Any] = {
        "kv_length": limit,
        "far_length": far if any(n.endswith("@T") for n in steppers) else None,
        "rounds": rounds,
        "variants": {name: summarize(values) for name, values in times.items()},
        "per_round_ratio": _per_round_ratios(times, settings.policies),
    }
    if settings.keep_raw:
        block["latency_ms"] = times
    return block, _recompute_run(limit, recompute_ms, recompute_mem)


def _interleaved_ids(
    settings: BenchSettings, vocab: int, device: torch.device, far: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Seeded pseudo-random token ids: the caches' fill (enough for `far` tokens) and the step's token."""
    gen = torch.Generator().manual_seed(settings.seed + 1)
    low = min(3, vocab - 1)
    fill = torch.randint(low, vocab, (1, max(settings.cache_limit + 8, far)), generator=gen).to(device)
    step_ids = torch.randint(low, vocab, (1, 1), generator=gen).to(device)
    return fill, step_ids


def _steppers(
    model: Any,
    settings: BenchSettings,
    fill: torch.Tensor,
    step_ids: torch.Tensor,
    extra: dict[str, Any],
    far: int,
) -> dict[str, Stepper]:
    """The interleaved variants with their caches filled, in the order the first round runs them."""
    limit = settings.cache_limit
    far_steps = settings.far_steps and far > limit + 8
    steppers: dict[str, Stepper] = {}
    for policy in settings.policies:
        config = settings.config(policy)
        compiled = settings.compiling(fill.device).get("compile_config")
        steppers[f"kvlimit-{policy}"] = KvlimitStepper(
            model, config, fill[:, : limit + 8], step_ids, compiled
        )
        if far_steps:
            steppers[f"kvlimit-{policy}@T"] = KvlimitStepper(model, config, fill[:, :far], step_ids, compiled)
    steppers["stock"] = StockStepper(model, fill[:, : limit - 1], step_ids, extra)
    if far_steps and settings.run_stock:
        steppers["stock@T"] = StockStepper(model, fill[:, : far - 1], step_ids, extra)
    return steppers


def _untimed_round(steppers: dict[str, Stepper], recompute: Stepper | None) -> None:
    """One warm-up round: each variant's step in order, then one recomputation step (when given)."""
    for stepper in steppers.values():
        stepper.prepare()
        stepper.step()
    if recompute is not None:
        recompute.step()


def _timed_rounds(
    steppers: dict[str, Stepper],
    recompute: Stepper,
    every: int,
    settings: BenchSettings,
    memory: MemoryWatch,
    device: torch.device,
    progress: Progress | None,
) -> tuple[dict[str, list[float]], list[float], dict[str, Any]]:
    """The timed rounds: per variant its step times, the recomputation times and the first one's memory.

    The order rotates by one variant every round; a recomputation step follows every `every`-th
    round (0: never) until `settings.recompute_steps` were timed.
    """
    names = list(steppers)
    rounds = settings.interleaved_rounds
    times: dict[str, list[float]] = {name: [] for name in names}
    recompute_ms: list[float] = []
    recompute_mem: dict[str, Any] = {}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            times[name].append(timed(steppers[name], device))
        if every and r % every == 0 and len(recompute_ms) < settings.recompute_steps:
            if not recompute_mem:
                with memory.phase(recompute_mem):  # the first step's memory: its activations
                    recompute_ms.append(timed(recompute, device))
            else:
                recompute_ms.append(timed(recompute, device))
        if progress is not None:
            progress("interleaved", r + 1, rounds)
    return times, recompute_ms, recompute_mem


def _per_round_ratios(times: dict[str, list[float]], policies: tuple[str, ...]) -> dict[str, Any]:
    """Summaries of the per-round ratios of paired variants ("num/den"), where both ran."""
    pairs = []
    for policy in policies:
        kv = f"kvlimit-{policy}"
        pairs += [(kv, "stock"), (f"{kv}@T", kv), ("stock@T", f"{kv}@T")]
        if ":" in policy:  # a quantized variant against the same policy in float, where it ran
            pairs.append((kv, f"kvlimit-{policy.partition(':')[0]}"))
    pairs.append(("stock@T", "stock"))
    per_round: dict[str, Any] = {}
    for num, den in pairs:
        if num in times and den in times:
            ratios = [a / b for a, b in zip(times[num], times[den], strict=True) if b > 0]
            per_round[f"{num}/{den}"] = summarize(ratios)  # the "_ms" keys hold plain ratios here
    return per_round


def _recompute_run(limit: int, recompute_ms: list[float], memory: dict[str, Any]) -> dict[str, Any]:
    """The `recompute` run dict: the recomputation steps timed inside the interleaved block."""
    return {
        "kind": "recompute",
        "policy": None,
        "window": limit,
        "steps": len(recompute_ms),
        "summary": summarize(recompute_ms),
        "cache": {"final_bytes": 0, "final_stored_tokens": 0},
        "memory": memory,
        "latency_ms": recompute_ms,
    }
