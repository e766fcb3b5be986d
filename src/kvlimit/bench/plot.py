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

from matplotlib.axes import Axes
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
    rec = runs.get("recompute")

    fig = Figure(figsize=(13, 9), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, 2)
    full_at = max(0, limit - prompt)
    _plot_latency(axes[0, 0], runs, gen_names, kv_names, rec, full_at, tokens)
    per_token = result["model"]["kv_bytes_per_token"]
    _plot_cache(axes[0, 1], runs, gen_names, kv_names, rec, tokens, limit, per_token)
    _plot_steps(axes[1, 0], result.get("interleaved"), rec, kv_names)
    _plot_memory(axes[1, 1], runs, kv_names)

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


def _plot_latency(
    ax: Axes,
    runs: dict[str, Any],
    gen_names: list[str],
    kv_names: list[str],
    rec: dict[str, Any] | None,
    full_at: int,
    tokens: int,
) -> None:
    """(1) Bucket medians with 10-90 % bands per generate run; recomputation's median once L is reached."""
    for name in gen_names:
        buckets = runs[name]["buckets"]
        xs = [(b["start"] + b["end"] - 1) / 2 for b in buckets if b["median_ms"] is not None]
        med = [b["median_ms"] for b in buckets if b["median_ms"] is not None]
        lo = [b["p10_ms"] for b in buckets if b["median_ms"] is not None]
        hi = [b["p90_ms"] for b in buckets if b["median_ms"] is not None]
        color = _color(name, kv_names)
        ax.plot(xs, med, marker="o", markersize=3, color=color, label=name)
        ax.fill_between(xs, lo, hi, color=color, alpha=0.15, linewidth=0)
    if rec and rec["summary"]["median_ms"] is not None:
        ax.hlines(
            rec["summary"]["median_ms"],
            full_at,
            tokens,
            colors=_COLORS["recompute"],
            linestyles="--",
            label=f"recompute (median of {rec['steps']} steps at a full {rec['window']}-token window)",
        )
    ax.axvline(full_at, color="black", linestyle=":", linewidth=1, label="kvlimit's cache full (KV length L)")
    ax.set_yscale("log")
    ax.set_xlabel("tokens generated")
    ax.set_ylabel("latency per token (ms, bucket median, 10-90 % band)")
    ax.set_title("Decode latency along the run")
    ax.legend(fontsize=8, loc="best")
    ax.grid(True, which="both", alpha=0.3)


def _plot_cache(
    ax: Axes,
    runs: dict[str, Any],
    gen_names: list[str],
    kv_names: list[str],
    rec: dict[str, Any] | None,
    tokens: int,
    limit: int,
    per_token: int,
) -> None:
    """(2) The cache's K/V bytes along each generate run, and kvlimit's bound L x bytes per token."""
    for name in gen_names:
        cache = runs[name]["cache"]
        mib = [b / 2**20 for b in cache["bytes"]]
        ax.plot(cache["token"], mib, color=_color(name, kv_names), label=name)
    if rec:
        ax.plot([0, tokens], [0, 0], color=_COLORS["recompute"], linestyle="--", label="recompute (no cache)")
    ax.axhline(
        limit * per_token / 2**20,
        color="black",
        linestyle=":",
        linewidth=1,
        label=f"kvlimit bound: L x {per_token} B/token",
    )
    ax.set_xlabel("tokens generated")
    ax.set_ylabel("K/V cache (MiB)")
    ax.set_title("Cache size along the run")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)


def _plot_steps(
    ax: Axes, block: dict[str, Any] | None, rec: dict[str, Any] | None, kv_names: list[str]
) -> None:
    """(3) One decode step of each interleaved variant (median), recomputation's step beside them."""
    if not block:
        ax.text(0.5, 0.5, "interleaved block not run", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    names = list(block["variants"])
    values = [block["variants"][n]["median_ms"] or 0.0 for n in names]
    colors = [_color(n, kv_names) for n in names]
    if rec and rec["summary"]["median_ms"] is not None:
        names.append("recompute")
        values.append(rec["summary"]["median_ms"])
        colors.append(_COLORS["recompute"])
    bars = ax.bar(names, values, color=colors)
    for bar, name in zip(bars, names, strict=True):
        if name.endswith("@T"):
            bar.set_hatch("//")
    ax.bar_label(bars, labels=[f"{v:.1f} ms" for v in values], fontsize=8)
    ax.set_yscale("log")
    positive = [v for v in values if v > 0]
    if positive:
        ax.set_ylim(min(positive) / 2, max(positive) * 2)
    far = block.get("far_length")
    ax.set_title(
        f"One decode step, interleaved (median): at L = {block['kv_length']}"
        + (f"; @T = after {far} tokens" if far else ""),
        fontsize=10,
    )
    ax.tick_params(axis="x", labelsize=8)
    ax.set_ylabel("ms")


def _plot_memory(ax: Axes, runs: dict[str, Any], kv_names: list[str]) -> None:
    """(4) Peak memory per run (CUDA's allocator peak when measured, else process RSS), growth in labels."""
    mem_names = [n for n in runs if runs[n].get("memory")]
    cuda = any(runs[n]["memory"].get("cuda_peak_allocated") is not None for n in mem_names)
    key, growth_key = ("cuda_peak_allocated", "cuda_peak_growth") if cuda else ("rss_peak", "rss_peak_growth")
    peaks = [(runs[n]["memory"].get(key) or 0) / 2**20 for n in mem_names]
    growth = [(runs[n]["memory"].get(growth_key) or 0) / 2**20 for n in mem_names]
    bars = ax.bar(mem_names, peaks, color=[_color(n, kv_names) for n in mem_names])
    ax.bar_label(
        bars, labels=[f"{p:.0f} MiB\n(+{g:.0f})" for p, g in zip(peaks, growth, strict=True)], fontsize=8
    )
    ax.set_ylim(0, max(peaks, default=1.0) * 1.2 or 1.0)
    ax.set_ylabel("MiB")
    ax.set_title(
        ("CUDA peak allocated" if cuda else "Peak process RSS (sampled)") + " per run, (+ growth during it)"
    )
