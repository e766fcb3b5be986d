"""Draw a `kvlimit.bench` result as one PNG.

Contract: `plot_bench(result, path)` writes a 2 x 2 figure to `path` (PNG) from the dict that
`kvlimit.bench.run_bench` returns, and nothing else: (1) per-token latency against tokens generated
(bucket medians with the 10-90 % band, log scale; recomputation as its sampled median at the full
window), (2) the cache's K/V bytes against tokens generated, (3) one decode step of each variant at
the same KV length (the interleaved block), (4) peak memory per run. Uses matplotlib's Agg canvas
directly, so the global backend is untouched; writes to a temporary file and renames it into place.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["plot_bench"]

_COLORS = {"stock": "tab:red", "recompute": "tab:gray"}
_KV_COLORS = ["tab:blue", "tab:green", "tab:purple", "tab:orange"]


def _color(name: str, kv_names: list[str]) -> str:
    name = name.split("@", 1)[0]  # "kvlimit-sinks@T" is drawn like "kvlimit-sinks"
    if name in _COLORS:
        return _COLORS[name]
    return _KV_COLORS[kv_names.index(name) % len(_KV_COLORS)] if name in kv_names else "black"


def plot_bench(result: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write the figure for `result` to `path` (PNG)."""
    runs: dict[str, Any] = result["runs"]
    settings = result["settings"]
    limit = int(settings["cache_limit"])
    tokens = int(settings["tokens"])
    prompt = int(settings["prompt_length"])
    kv_names = [n for n, r in runs.items() if r["kind"] == "kvlimit"]
    gen_names = [n for n, r in runs.items() if r["kind"] in ("kvlimit", "stock")]

    fig = Figure(figsize=(13, 9), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, 2)
    ax_lat, ax_mem, ax_step, ax_rss = axes[0, 0], axes[0, 1], axes[1, 0], axes[1, 1]
    full_at = max(0, limit - prompt)

    # (1) latency along the run
    for name in gen_names:
        buckets = runs[name]["buckets"]
        xs = [(b["start"] + b["end"] - 1) / 2 for b in buckets if b["median_ms"] is not None]
        med = [b["median_ms"] for b in buckets if b["median_ms"] is not None]
        lo = [b["p10_ms"] for b in buckets if b["median_ms"] is not None]
        hi = [b["p90_ms"] for b in buckets if b["median_ms"] is not None]
        color = _color(name, kv_names)
        ax_lat.plot(xs, med, marker="o", markersize=3, color=color, label=name)
        ax_lat.fill_between(xs, lo, hi, color=color, alpha=0.15, linewidth=0)
    rec = runs.get("recompute")
    if rec and rec["summary"]["median_ms"] is not None:
        ax_lat.hlines(
            rec["summary"]["median_ms"],
            full_at,
            tokens,
            colors=_COLORS["recompute"],
            linestyles="--",
            label=f"recompute (median of {rec['steps']} steps at a full {rec['window']}-token window)",
        )
    ax_lat.axvline(
        full_at, color="black", linestyle=":", linewidth=1, label="kvlimit's cache full (KV length L)"
    )
    ax_lat.set_yscale("log")
    ax_lat.set_xlabel("tokens generated")
    ax_lat.set_ylabel("latency per token (ms, bucket median, 10-90 % band)")
    ax_lat.set_title("Decode latency along the run")
    ax_lat.legend(fontsize=8, loc="best")
    ax_lat.grid(True, which="both", alpha=0.3)

    # (2) cache bytes along the run
    for name in gen_names:
        cache = runs[name]["cache"]
        mib = [b / 2**20 for b in cache["bytes"]]
        ax_mem.plot(cache["token"], mib, color=_color(name, kv_names), label=name)
    if rec:
        ax_mem.plot(
            [0, tokens], [0, 0], color=_COLORS["recompute"], linestyle="--", label="recompute (no cache)"
        )
    per_token = result["model"]["kv_bytes_per_token"]
    ax_mem.axhline(
        limit * per_token / 2**20,
        color="black",
        linestyle=":",
        linewidth=1,
        label=f"kvlimit bound: L x {per_token} B/token",
    )
    ax_mem.set_xlabel("tokens generated")
    ax_mem.set_ylabel("K/V cache (MiB)")
    ax_mem.set_title("Cache size along the run")
    ax_mem.legend(fontsize=8)
    ax_mem.grid(True, alpha=0.3)

    # (3) one decode step at the same KV length
    block = result.get("interleaved")
    if block:
        names = list(block["variants"])
        values = [block["variants"][n]["median_ms"] or 0.0 for n in names]
        colors = [_color(n, kv_names) for n in names]
        if rec and rec["summary"]["median_ms"] is not None:
            names.append("recompute")
            values.append(rec["summary"]["median_ms"])
            colors.append(_COLORS["recompute"])
        bars = ax_step.bar(names, values, color=colors)
        for bar, name in zip(bars, names, strict=True):
            if name.endswith("@T"):
                bar.set_hatch("//")
        ax_step.bar_label(bars, labels=[f"{v:.1f} ms" for v in values], fontsize=8)
        ax_step.set_yscale("log")
        positive = [v for v in values if v > 0]
        if positive:
            ax_step.set_ylim(min(positive) / 2, max(positive) * 2)
        far = block.get("far_length")
        ax_step.set_title(
            f"One decode step, interleaved (median): at L = {block['kv_length']}"
            + (f"; @T = after {far} tokens" if far else ""),
            fontsize=10,
        )
        ax_step.tick_params(axis="x", labelsize=8)
        ax_step.set_ylabel("ms")
    else:
        ax_step.text(
            0.5, 0.5, "interleaved block not run", ha="center", va="center", transform=ax_step.transAxes
        )
        ax_step.set_axis_off()

    # (4) peak memory per run
    mem_names = [n for n in runs if runs[n].get("memory")]
    cuda = any(runs[n]["memory"].get("cuda_peak_allocated") is not None for n in mem_names)
    key, growth_key = ("cuda_peak_allocated", "cuda_peak_growth") if cuda else ("rss_peak", "rss_peak_growth")
    peaks = [(runs[n]["memory"].get(key) or 0) / 2**20 for n in mem_names]
    growth = [(runs[n]["memory"].get(growth_key) or 0) / 2**20 for n in mem_names]
    bars = ax_rss.bar(mem_names, peaks, color=[_color(n, kv_names) for n in mem_names])
    ax_rss.bar_label(
        bars, labels=[f"{p:.0f} MiB\n(+{g:.0f})" for p, g in zip(peaks, growth, strict=True)], fontsize=8
    )
    ax_rss.set_ylim(0, max(peaks, default=1.0) * 1.2 or 1.0)
    ax_rss.set_ylabel("MiB")
    ax_rss.set_title(
        ("CUDA peak allocated" if cuda else "Peak process RSS (sampled)") + " per run, (+ growth during it)"
    )

    model = result["model"]
    fig.suptitle(
        f"{model['name']} ({model['dtype']}, {model['device']}): L = {limit}, T = {tokens}, "
        f"prompt {prompt} tokens -- {result['machine']['cpu']}, {result['machine']['torch_threads']} threads",
        fontsize=10,
    )
    fig.tight_layout()
    target = pathlib.Path(path)
    tmp = target.with_name(target.name + ".tmp")
    fig.savefig(tmp, format="png")
    os.replace(tmp, target)
