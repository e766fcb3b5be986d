"""The benchmark's headline ratios, their goals, and the text report, from a result dict alone.

Contract: `compute_ratios(result)` derives, per kvlimit run, the ratios (flatness, eviction overhead,
speed-up over recomputation, cache bytes saved, ...) from the summary numbers stored in a
`kvlimit.bench.run_bench` result, so a saved JSON result gives the same ratios; a ratio whose
inputs were not measured is None. `evaluate_targets(result, targets)` checks `result["ratios"]`
against the goals in `TARGETS` (or `targets`). `report_lines(result)` renders the human-readable
report that `kvlimit bench` prints. Nothing here measures or prints.
"""

from __future__ import annotations

from typing import Any

from .stats import ratio

__all__ = ["TARGETS", "compute_ratios", "evaluate_targets", "report_lines"]

#: The goals the ratios are checked against (SmolLM2-135M, 2-core CPU, L = 1024, T >= 16,000).
TARGETS: dict[str, float] = {
    "eviction_overhead_max": 1.05,  # kvlimit step / stock step at the same KV length
    "flatness_max_deviation": 0.05,  # |latency at T / latency at L - 1|
    "cache_ratio_min": 15.0,  # stock cache bytes at T / kvlimit's
    "recompute_speedup_min": 20.0,  # recompute step / kvlimit step
}


# --- ratios and targets --------------------------------------------------------------------------


def compute_ratios(result: dict[str, Any]) -> dict[str, Any]:
    """The headline ratios, from the summaries stored in `result` (see `kvlimit.bench.runner`).

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
        flat_runs = ratio(window(run, "at_end"), window(run, "at_limit"))
        overhead_runs = ratio(window(run, "at_limit"), window(stock, "around_limit"))
        flat = ratio(step(f"{name}@T"), step(name))
        overhead = ratio(step(name), step("stock"))
        expected = run.get("cache_bytes_expected")
        if expected is None and limit is not None and per_token is not None:
            expected = limit * per_token
        floating = name.partition(":")[0]  # a quantized variant's float twin ("kvlimit-sinks")
        float_run = runs.get(floating) if floating != name else None
        out[name] = {
            "flatness": flat if flat is not None else flat_runs,
            "flatness_paired": (paired.get(f"{name}@T/{name}") or {}).get("median_ms"),
            "flatness_runs": flat_runs,
            "eviction_overhead": overhead if overhead is not None else overhead_runs,
            "eviction_overhead_paired": (paired.get(f"{name}/stock") or {}).get("median_ms"),
            "eviction_overhead_runs": overhead_runs,
            "recompute_speedup": ratio(recompute_ms, step(name)),
            "recompute_speedup_runs": ratio(recompute_ms, window(run, "steady")),
            "speedup_at_T": ratio(step("stock@T"), step(f"{name}@T")),
            "cache_ratio": ratio(stock["cache"]["final_bytes"], final_bytes) if stock else None,
            "cache_bytes": final_bytes,
            "cache_bytes_expected": expected,
            "cache_bytes_exact": None if expected is None else final_bytes == expected,
            "vs_float_step": ratio(step(name), step(floating)) if float_run else None,
            "vs_float_paired": (paired.get(f"{name}/{floating}") or {}).get("median_ms"),
            "vs_float_bytes": ratio(final_bytes, float_run["cache"]["final_bytes"]) if float_run else None,
            "stock_cache_bytes": stock["cache"]["final_bytes"] if stock else None,
            "stock_slowdown": ratio(step("stock@T"), step("stock")),
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


def report_lines(result: dict[str, Any]) -> list[str]:
    """The human-readable report of a result (what `kvlimit bench` prints)."""
    lines = _header_lines(result)
    lines += ["", "generate runs (latency per token, ms: median of the bucket):"]
    runs = result["runs"]
    gen_runs = {k: v for k, v in runs.items() if v["kind"] in ("kvlimit", "stock")}
    if gen_runs:
        lines += _bucket_table(gen_runs)
        lines.append("")
        lines += [_run_line(name, run) for name, run in gen_runs.items()]
    block = result.get("interleaved")
    if block:
        lines.append("")
        lines += _interleaved_lines(block, runs.get("recompute"))
    lines.append("")
    lines.append("ratios (same process; the speed ratios from the interleaved block):")
    for name, ratios in result.get("ratios", {}).items():
        lines += _ratio_lines(name, ratios, result.get("targets", {}).get(name, {}))
    lines.append(f"wall time: {result['wall_s']:.1f} s")
    return lines


def _fmt(value: float | None, spec: str = ".3f", suffix: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{suffix}"


def _mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:.1f} MiB"


def _header_lines(result: dict[str, Any]) -> list[str]:
    """The model, the machine, the load average and the settings, one line each."""
    s = result["settings"]
    m = result["model"]
    mach = result["machine"]
    return [
        f"model: {m['name']} ({m['model_type']}, {m['parameters'] / 1e6:.1f}M parameters, {m['layers']} layers, "
        f"{m['dtype']} on {m['device']}, {m['kv_bytes_per_token']} KV bytes/token)",
        f"machine: {mach['cpu']}, {mach['logical_cores']} logical cores, {mach['torch_threads']} torch threads, "
        f"{_mib(mach['ram_bytes'])} RAM, torch {mach['torch']}, transformers {mach['transformers']}"
        + (f", GPU {mach['gpu']}" if mach.get("gpu") else ""),
        f"load average: start {mach.get('load_average_start')}, end {mach.get('load_average_end')}",
        f"settings: cache_limit L={s['cache_limit']}, tokens T={s['tokens']}, prompt {s['prompt_length']} tokens, "
        f"policies {','.join(s['policies'])}, buckets of {s['bucket_size']} tokens",
    ]


def _bucket_table(gen_runs: dict[str, Any]) -> list[str]:
    """Bucket medians, one row per bucket of the first run, one column per generate run."""
    names = list(gen_runs)
    lines = ["  tokens        " + "".join(f"{n:>16}" for n in names)]
    first = gen_runs[names[0]]["buckets"]
    for i, bucket in enumerate(first):
        cells = []
        for n in names:
            b = gen_runs[n]["buckets"]
            cells.append(f"{_fmt(b[i]['median_ms'] if i < len(b) else None, '.2f'):>16}")
        lines.append(f"  {bucket['start']:>5}-{bucket['end'] - 1:<7}" + "".join(cells))
    return lines


def _run_line(name: str, run: dict[str, Any]) -> str:
    """One generate run's tokens, times, final cache and peak memory."""
    mem = run["memory"]
    return (
        f"  {name}: {run['tokens']} tokens in {run['wall_s']:.1f} s (prefill {_fmt(run['prefill_s'], '.2f')} s), "
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


def _interleaved_lines(block: dict[str, Any], rec: dict[str, Any] | None) -> list[str]:
    """The interleaved block's step latency per variant, then the recomputation's (when it ran)."""
    far = block.get("far_length")
    lines = [
        f"interleaved decode steps ({block['rounds']} rounds, order rotating): plain names at KV length "
        f"{block['kv_length']}" + (f", @T after {far} tokens (stock@T: KV length {far})" if far else "") + ":"
    ]
    for n, v in block["variants"].items():
        lines.append(
            f"  {n:<16} median {_fmt(v['median_ms'], '.2f')} ms  p10 {_fmt(v['p10_ms'], '.2f')}  "
            f"p90 {_fmt(v['p90_ms'], '.2f')}  (n={v['n']})"
        )
    if rec:
        sm = rec["summary"]
        lines.append(
            f"  {'recompute':<16} median {_fmt(sm['median_ms'], '.1f')} ms  p10 {_fmt(sm['p10_ms'], '.1f')}  "
            f"p90 {_fmt(sm['p90_ms'], '.1f')}  (n={sm['n']}, fresh forward over {rec['window']} tokens)"
            + f", peak RSS growth {_mib(rec['memory'].get('rss_peak_growth'))}"
        )
    return lines


def _target_mark(goals: dict[str, Any], key: str) -> str:
    """`  [target ...: met]` / `NOT met` for a checked ratio; empty where it was not measured."""
    g = goals.get(key)
    if not g or g["met"] is None:
        return ""
    return f"  [target {g['goal']}: {'met' if g['met'] else 'NOT met'}]"


def _ratio_lines(name: str, r: dict[str, Any], goals: dict[str, Any]) -> list[str]:
    """One kvlimit run's ratios (a)-(d), each with its target verdict."""
    return [
        f"  {name}:",
        f"    (a) flatness, kvlimit step at T / at L:        {_fmt(r['flatness'])}"
        f" (paired per round {_fmt(r['flatness_paired'])}; from the generate run's buckets "
        f"{_fmt(r['flatness_runs'])}){_target_mark(goals, 'flatness')}",
        f"    (b) eviction overhead, kvlimit / stock at L:   {_fmt(r['eviction_overhead'])}"
        f" (paired per round {_fmt(r['eviction_overhead_paired'])}; from the generate runs "
        f"{_fmt(r['eviction_overhead_runs'])}){_target_mark(goals, 'eviction_overhead')}",
        f"    (c) speed-up over recomputation, per token:    {_fmt(r['recompute_speedup'], '.1f', 'x')}"
        f" (vs the generate run's steady state {_fmt(r['recompute_speedup_runs'], '.1f', 'x')})"
        f"{_target_mark(goals, 'recompute_speedup')}",
        f"    (d) stock cache bytes / kvlimit's at T:        {_fmt(r['cache_ratio'], '.2f', 'x')}"
        f" ({r['stock_cache_bytes']} vs {r['cache_bytes']} bytes){_target_mark(goals, 'cache_ratio')}",
        f"        kvlimit cache bytes == L x bytes/token:    {r['cache_bytes_exact']}"
        f" ({r['cache_bytes']} vs {r['cache_bytes_expected']}){_target_mark(goals, 'cache_bytes_exact')}",
        f"        stock step at T / kvlimit step at T:       {_fmt(r['speedup_at_T'], '.2f', 'x')}"
        f" (stock at T / stock at L: {_fmt(r['stock_slowdown'], '.2f', 'x')})",
    ] + (
        [
            f"        quantized / float step at L, same policy:  {_fmt(r['vs_float_step'])}"
            f" (paired per round {_fmt(r['vs_float_paired'])}); cache bytes {_fmt(r['vs_float_bytes'])}"
            f" of float's"
        ]
        if r.get("vs_float_bytes") is not None
        else []
    )
