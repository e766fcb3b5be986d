"""Where the time goes in kvlimit's decode step at steady state (cache full), next to stock's.

Runs transformers' own generate loop (greedy) twice per repeat: kvlimit (`kvlimit.generate`,
cache_limit L, `--policy` (default sinks), a prompt of L + 64 tokens so the cache is full and evicting from the
first decode step) and stock (a prompt of L - 1 tokens, so its steps attend to L .. L + steps keys).
Four measurements, each over `--steps` decode steps after `--warmup` steps:

1. wall time per component (perf_counter wrappers installed on the classes for this script only:
   kvlimit's `prepare_step`, `_plan_decode`, the position keeper's `place` (sink rotation, rebases,
   re-ranking), `keep_scores`, `BoundedLayer.update`, the attention scores policies record,
   transformers' `create_causal_mask`, decoder layers, attention, SDPA, MLP, lm_head, logits
   processors, stopping criteria, input preparation), as ms per step and % of the step;
2. aten ops per step by component (a TorchDispatchMode over one step), kvlimit vs stock;
3. torch.profiler's top ops by self CPU time;
4. with `--py-spy`: py-spy samples of an uninstrumented run, grouped by component.

Also times plain steps with no instrumentation, so the wrappers' own overhead shows. Prints
everything; `--json FILE` also writes the numbers. Library code is not modified.

    python benchmarks/profile_decode.py --cache-limit 1024 --steps 60 --threads 1 --py-spy
"""

from __future__ import annotations

import argparse
import collections
import functools
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from transformers import DynamicCache, StoppingCriteria, StoppingCriteriaList
from transformers.cache_utils import DynamicLayer
from transformers.generation.logits_process import LogitsProcessorList
from transformers.generation.stopping_criteria import StoppingCriteriaList as _SCList
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

import kvlimit
from kvlimit.cache import BoundedCache, BoundedLayer
from kvlimit.models import load_model
from kvlimit.policies.base import EvictionPolicy
from kvlimit.positions import RopeRanks, RopeSinks

# component label -> parent label (for the printed tree); the order is the print order
TREE: dict[str, str | None] = {
    "step": None,
    "prepare_inputs": "step",
    "kvlimit.prepare_step": "prepare_inputs",
    "kvlimit._plan_decode": "kvlimit.prepare_step",
    "kvlimit.keep_scores": "kvlimit._plan_decode",
    "kvlimit.positions": "kvlimit._plan_decode",
    "model.forward": "step",
    "create_causal_mask": "model.forward",
    "decoder_layer": "model.forward",
    "attention": "decoder_layer",
    "cache.update (layer)": "attention",
    "kvlimit.record_attention": "attention",
    "sdpa": "attention",
    "mlp": "decoder_layer",
    "lm_head": "model.forward",
    "logits_processors": "step",
    "stopping_criteria": "step",
}


class Timers:
    """Inclusive wall time and call counts per label, while `on`; a label stack for op attribution."""

    def __init__(self) -> None:
        self.on = False
        self.total: dict[str, float] = collections.defaultdict(float)
        self.calls: dict[str, int] = collections.defaultdict(int)
        self.stack: list[str] = []
        self._restore: list[tuple[Any, str, Any, bool]] = []

    def wrap(self, owner: Any, attr: str, label: str) -> None:
        is_dict = isinstance(owner, dict)
        original = owner[attr] if is_dict else getattr(owner, attr)

        @functools.wraps(original)  # keeps the signature: generate inspects forward's parameters
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not self.on:
                return original(*args, **kwargs)
            self.stack.append(label)
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.total[label] += time.perf_counter() - start
                self.calls[label] += 1
                self.stack.pop()

        if is_dict:
            owner[attr] = wrapper
        else:
            setattr(owner, attr, wrapper)
        self._restore.append((owner, attr, original, is_dict))

    def unwrap_all(self) -> None:
        for owner, attr, original, is_dict in reversed(self._restore):
            if is_dict:
                owner[attr] = original
            else:
                setattr(owner, attr, original)
        self._restore.clear()

    def reset(self) -> None:
        self.total.clear()
        self.calls.clear()


class OpCounter(TorchDispatchMode):
    """Counts aten ops, attributed to the innermost active timer label."""

    def __init__(self, timers: Timers):
        super().__init__()
        self.timers = timers
        self.by_label: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        label = self.timers.stack[-1] if self.timers.stack else "loop (other)"
        self.by_label[label][str(func.overloadpacket.__name__)] += 1
        return func(*args, **(kwargs or {}))


def install(timers: Timers, model: Any) -> None:
    model_module = sys.modules[type(model.model).__module__]
    layer_cls = type(model.model.layers[0])
    attn_cls = type(model.model.layers[0].self_attn)
    mlp_cls = type(model.model.layers[0].mlp)
    timers.wrap(type(model), "prepare_inputs_for_generation", "prepare_inputs")
    timers.wrap(BoundedCache, "prepare_step", "kvlimit.prepare_step")
    timers.wrap(BoundedCache, "_plan_decode", "kvlimit._plan_decode")
    timers.wrap(RopeSinks, "place", "kvlimit.positions")
    timers.wrap(RopeRanks, "place", "kvlimit.positions")
    timers.wrap(BoundedCache, "record_attention", "kvlimit.record_attention")
    timers.wrap(BoundedCache, "fill_recall", "kvlimit.recall")
    timers.wrap(EvictionPolicy, "keep_scores", "kvlimit.keep_scores")
    timers.wrap(BoundedLayer, "update", "cache.update (layer)")
    timers.wrap(DynamicLayer, "update", "cache.update (layer)")
    timers.wrap(type(model), "forward", "model.forward")
    timers.wrap(model_module, "create_causal_mask", "create_causal_mask")
    timers.wrap(layer_cls, "forward", "decoder_layer")
    timers.wrap(attn_cls, "forward", "attention")
    timers.wrap(mlp_cls, "forward", "mlp")
    timers.wrap(ALL_ATTENTION_FUNCTIONS._global_mapping, model.config._attn_implementation, "sdpa")
    timers.wrap(model.lm_head, "forward", "lm_head")
    timers.wrap(LogitsProcessorList, "__call__", "logits_processors")
    timers.wrap(_SCList, "__call__", "stopping_criteria")


class StepHook(StoppingCriteria):
    """Per decode step: times the step; switches timers/counters/profiler on for the measured steps."""

    def __init__(self, warmup: int, steps: int, on_start: Callable[[], None], on_stop: Callable[[], None]):
        self.warmup = warmup
        self.steps = steps
        self.on_start = on_start
        self.on_stop = on_stop
        self.times: list[float] = []

    def __call__(
        self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs: Any
    ) -> torch.BoolTensor:
        self.times.append(time.perf_counter())
        n = len(self.times)
        if n == self.warmup:
            self.on_start()
        elif n == self.warmup + self.steps:
            self.on_stop()
        return torch.zeros(input_ids.shape[0], dtype=torch.bool)  # type: ignore[return-value]

    def step_ms(self) -> list[float]:
        t = self.times[self.warmup - 1 : self.warmup + self.steps]
        return [(b - a) * 1000 for a, b in itertools.pairwise(t)]


def run_generate(
    model: Any, kind: str, limit: int, hook: StepHook, vocab: int, policy: str = "sinks"
) -> None:
    gen = torch.Generator().manual_seed(0)
    total = hook.warmup + hook.steps + 1
    common = {
        "max_new_tokens": total,
        "min_new_tokens": total,
        "do_sample": False,
        "pad_token_id": model.generation_config.pad_token_id,
        "stopping_criteria": StoppingCriteriaList([hook]),
    }
    with torch.no_grad():
        if kind == "kvlimit":
            prompt = torch.randint(3, vocab, (1, limit + 64), generator=gen)
            kvlimit.generate(model, input_ids=prompt, cache_limit=limit, policy=policy, **common)
        else:
            prompt = torch.randint(3, vocab, (1, limit - 1), generator=gen)
            model.generate(input_ids=prompt, cache=DynamicCache(config=model.config), **common)


@contextmanager
def py_spy(path: str, rate: int) -> Iterator[subprocess.Popen[bytes] | None]:
    cmd = ["py-spy", "record", "--pid", str(os.getpid()), "--rate", str(rate), "--format", "raw"]
    cmd += ["--nonblocking", "-o", path]
    try:
        proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
    except FileNotFoundError:
        proc = None
    time.sleep(1.0)  # let it attach
    try:
        yield proc
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)


# frames that define a component (innermost match wins), for py-spy samples
SPY_RULES = [
    ("kvlimit.positions", ("RopeSinks.place", "RopeRanks.place", "_rotate_sinks", "_rank")),
    ("kvlimit.record_attention", ("BoundedCache.record_attention", "head_mean_attention", "fold_attention")),
    ("kvlimit.keep_scores", ("keep_scores", ".score")),
    ("kvlimit._plan_decode (rest)", ("_plan_decode",)),
    ("kvlimit.prepare_step (rest)", ("prepare_step",)),
    ("cache.update (layer)", ("BoundedLayer.update", "DynamicLayer.update", "Cache.update")),
    ("create_causal_mask", ("create_causal_mask",)),
    ("sdpa", ("sdpa_attention_forward",)),
    ("lm_head / linear", ("Linear.forward",)),
    ("rms_norm", ("RMSNorm.forward",)),
    ("rotary", ("apply_rotary_pos_emb", "RotaryEmbedding.forward", "rotate_half")),
    ("mlp (activation etc.)", ("MLP.forward",)),
    ("attention (rest)", ("Attention.forward",)),
    ("decoder layer (rest)", ("DecoderLayer.forward",)),
    ("model.forward (rest)", ("Model.forward", "ForCausalLM.forward")),
    ("prepare_inputs (rest)", ("prepare_inputs_for_generation", "prepare")),
    ("logits_processors", ("LogitsProcessorList.__call__",)),
    ("stopping_criteria", ("StoppingCriteriaList.__call__",)),
    ("generate loop (rest)", ("_sample",)),
]


def classify_spy(path: str) -> dict[str, float]:
    counts: collections.Counter[str] = collections.Counter()
    total = 0
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not n.isdigit():
                continue
            frames = stack.split(";")
            if not any("_sample" in f for f in frames):
                continue  # outside the decode loop (prefill setup, py-spy attach, ...)
            if any("_prefill" in f for f in frames):
                continue
            total += int(n)
            label = "other"
            for frame in reversed(frames):
                name = frame.split(" (", 1)[0]
                hit = next((lab for lab, keys in SPY_RULES if any(k in name for k in keys)), None)
                if hit is not None:
                    label = hit
                    break
            counts[label] += int(n)
    return {k: 100.0 * v / total for k, v in counts.most_common()} if total else {}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", default=None, help="model folder or .gguf (default: embedded SmolLM2-135M)"
    )
    parser.add_argument("--cache-limit", type=int, default=1024)
    parser.add_argument("--policy", default="sinks", help="kvlimit's policy (default: sinks)")
    parser.add_argument("--steps", type=int, default=60, help="measured decode steps per run")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument(
        "--repeats", type=int, default=2, help="kvlimit/stock alternations for the wall timings"
    )
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--py-spy", action="store_true", help="also sample an uninstrumented run with py-spy")
    parser.add_argument("--py-spy-rate", type=int, default=250)
    parser.add_argument("--json", metavar="FILE", default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    model = load_model(args.model).model
    vocab = int(model.config.vocab_size)
    limit = args.cache_limit
    out: dict[str, Any] = {"cache_limit": limit, "steps": args.steps, "threads": torch.get_num_threads()}
    print(f"model {type(model).__name__}, L={limit}, {args.steps} steps, {torch.get_num_threads()} threads")
    print(f"load average at start: {os.getloadavg()}")

    # 1. plain step time, no instrumentation (kvlimit / stock alternating)
    plain: dict[str, list[float]] = {"kvlimit": [], "stock": []}
    for _ in range(args.repeats):
        for kind in ("kvlimit", "stock"):
            hook = StepHook(args.warmup, args.steps, lambda: None, lambda: None)
            run_generate(model, kind, limit, hook, vocab, args.policy)
            plain[kind] += hook.step_ms()
    out["plain_step_ms"] = {k: statistics.median(v) for k, v in plain.items()}
    print("\n== plain generate step (median ms, no instrumentation) ==")
    for k, v in plain.items():
        print(f"  {k:8} {statistics.median(v):8.2f} ms  (n={len(v)})")
    print(f"  kvlimit / stock: {statistics.median(plain['kvlimit']) / statistics.median(plain['stock']):.3f}")

    # 2. component wall times
    timers = Timers()
    install(timers, model)
    comp: dict[str, dict[str, float]] = {}
    step_totals: dict[str, list[float]] = {"kvlimit": [], "stock": []}
    sums: dict[str, dict[str, float]] = {
        "kvlimit": collections.defaultdict(float),
        "stock": collections.defaultdict(float),
    }
    calls: dict[str, dict[str, int]] = {"kvlimit": {}, "stock": {}}
    for _ in range(args.repeats):
        for kind in ("kvlimit", "stock"):
            timers.reset()

            def start() -> None:
                timers.reset()
                timers.on = True

            def stop() -> None:
                timers.on = False

            hook = StepHook(args.warmup, args.steps, start, stop)
            run_generate(model, kind, limit, hook, vocab, args.policy)
            step_totals[kind] += hook.step_ms()
            for label, seconds in timers.total.items():
                sums[kind][label] += seconds
                calls[kind][label] = timers.calls[label]
    print("\n== wall time per component (ms per step, inclusive; % of the instrumented step) ==")
    print(f"  {'component':<34}{'kvlimit ms':>11}{'%':>7}{'stock ms':>11}{'%':>7}{'calls/step':>12}")
    for kind in ("kvlimit", "stock"):
        n = args.steps * args.repeats
        step = statistics.median(step_totals[kind])
        comp[kind] = {"step": step}
        for label in TREE:
            if label != "step":
                comp[kind][label] = sums[kind].get(label, 0.0) * 1000 / n
    for label in TREE:
        depth = 0
        parent = TREE[label]
        while parent is not None:
            depth += 1
            parent = TREE[parent]
        kv_ms, st_ms = comp["kvlimit"][label], comp["stock"][label]
        kv_calls = calls["kvlimit"].get(label, 0) / max(1, args.steps)
        print(
            f"  {'  ' * depth + label:<34}{kv_ms:>11.3f}{100 * kv_ms / comp['kvlimit']['step']:>6.1f}%"
            f"{st_ms:>11.3f}{100 * st_ms / comp['stock']['step']:>6.1f}%{kv_calls:>12.1f}"
        )
    kv_own = comp["kvlimit"]["kvlimit.prepare_step"] + comp["kvlimit"]["cache.update (layer)"]
    st_own = comp["stock"]["cache.update (layer)"]
    print(
        f"  kvlimit's own work (prepare_step + layer updates): {kv_own:.3f} ms = "
        f"{100 * kv_own / comp['kvlimit']['step']:.1f}% of its step; stock's layer updates: {st_own:.3f} ms"
    )
    out["components_ms"] = comp

    # 3. aten ops per step by component
    ops: dict[str, dict[str, dict[str, int]]] = {}
    for kind in ("kvlimit", "stock"):
        counter = OpCounter(timers)
        state: dict[str, Any] = {}

        def start_count(counter: OpCounter = counter, state: dict[str, Any] = state) -> None:
            timers.on = True
            counter.__enter__()
            state["on"] = True

        def stop_count(counter: OpCounter = counter) -> None:
            counter.__exit__(None, None, None)
            timers.on = False

        hook = StepHook(args.warmup, 1, start_count, stop_count)
        run_generate(model, kind, limit, hook, vocab, args.policy)
        ops[kind] = {label: dict(c) for label, c in counter.by_label.items()}
    timers.unwrap_all()
    print("\n== aten ops in one decode step, by innermost component ==")
    labels = sorted(
        set(ops["kvlimit"]) | set(ops["stock"]), key=lambda lab: list(TREE).index(lab) if lab in TREE else 99
    )
    print(f"  {'component':<28}{'kvlimit':>9}{'stock':>9}")
    for label in labels:
        kv_n = sum(ops["kvlimit"].get(label, {}).values())
        st_n = sum(ops["stock"].get(label, {}).values())
        print(f"  {label:<28}{kv_n:>9}{st_n:>9}")
    total_k = sum(sum(c.values()) for c in ops["kvlimit"].values())
    total_s = sum(sum(c.values()) for c in ops["stock"].values())
    print(f"  {'total':<28}{total_k:>9}{total_s:>9}   (kvlimit adds {total_k - total_s} ops per step)")
    for label in (
        "kvlimit.prepare_step",
        "kvlimit._plan_decode",
        "kvlimit.keep_scores",
        "kvlimit.positions",
        "kvlimit.record_attention",
        "cache.update (layer)",
        "create_causal_mask",
    ):
        for kind in ("kvlimit", "stock"):
            c = ops[kind].get(label)
            if c:
                top = ", ".join(f"{name} x{n}" for name, n in sorted(c.items(), key=lambda x: -x[1]))
                print(f"    {kind} {label}: {top}")
    out["ops_per_step"] = ops

    # 4. torch.profiler, top ops by self CPU time
    for kind in ("kvlimit", "stock"):
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
        hook = StepHook(args.warmup, min(args.steps, 20), prof.start, prof.stop)
        run_generate(model, kind, limit, hook, vocab, args.policy)
        print(f"\n== torch.profiler, {kind}: top ops by self CPU time over {min(args.steps, 20)} steps ==")
        print(
            prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=14, max_name_column_width=40)
        )

    # 5. py-spy on an uninstrumented run
    if args.py_spy:
        spy: dict[str, dict[str, float]] = {}
        for kind in ("kvlimit", "stock"):
            path = os.path.join(tempfile.mkdtemp(prefix="kvlimit-spy-"), f"{kind}.txt")
            box: dict[str, Any] = {}

            def spy_start(box: dict[str, Any] = box, path: str = path) -> None:
                box["cm"] = py_spy(path, args.py_spy_rate)
                box["proc"] = box["cm"].__enter__()

            def spy_stop(box: dict[str, Any] = box) -> None:
                box["cm"].__exit__(None, None, None)

            hook = StepHook(args.warmup, args.steps, spy_start, spy_stop)
            run_generate(model, kind, limit, hook, vocab, args.policy)
            if box.get("proc") is None or not os.path.exists(path):
                print(f"py-spy unavailable ({kind})")
                continue
            spy[kind] = classify_spy(path)
        if spy:
            print("\n== py-spy samples inside the decode loop, % by component (innermost match) ==")
            labels2 = list(dict.fromkeys([*spy.get("kvlimit", {}), *spy.get("stock", {})]))
            print(f"  {'component':<30}{'kvlimit %':>10}{'stock %':>10}")
            for label in labels2:
                print(
                    f"  {label:<30}{spy.get('kvlimit', {}).get(label, 0.0):>10.1f}{spy.get('stock', {}).get(label, 0.0):>10.1f}"
                )
            out["py_spy_percent"] = spy
    print(f"\nload average at end: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
