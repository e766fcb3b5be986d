"""A PNG of streaming-perplexity runs: smoothed per-token NLL against token position.

Contract: `plot_perplexity(results, path)` draws one panel per cache limit (sorted), each holding the
runs with that limit (bounded policies and the recompute baseline) plus every run without a limit
(the unbounded "full" baseline, drawn in each panel). A curve is the moving average of `nll` over
`smooth` tokens (default: 256, fewer for short texts), plotted at the centre of its window. A vertical
line marks the model's trained context when it lies inside the x range; the tokens of a "full" run
past it are predicted at positions the model never saw. Rendering uses matplotlib's Agg canvas on a
`Figure` of its own (pyplot and the global backend are not touched), so it works headless.
Returns the path written. Raises `ValueError` for an empty list of results.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch

from ..policies import policy_names
from .perplexity import PerplexityResult

if TYPE_CHECKING:  # matplotlib is imported when a plot is drawn, not with this module
    from matplotlib.axes import Axes

__all__ = ["DEFAULT_SMOOTH", "moving_average", "plot_perplexity"]

#: Tokens averaged per point of a curve.
DEFAULT_SMOOTH = 256

# recompute is drawn thin on top of the wide default-policy curve, so that both show where they coincide
_BASELINE_STYLE: dict[str, dict[str, Any]] = {
    "recompute": {"color": "#2ca02c", "linestyle": "--", "linewidth": 0.9, "zorder": 3},
    "full": {"color": "#555555", "linestyle": ":", "linewidth": 1.2},
}
#: Policies are drawn in the registry's order, a colour each (the first, the default, wide).
_POLICY_COLORS = ("#1f77b4", "#d62728", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


def _style(policy: str) -> dict[str, Any]:
    if policy in _BASELINE_STYLE:
        return _BASELINE_STYLE[policy]
    names = policy_names()
    index = names.index(policy) if policy in names else len(names)
    style: dict[str, Any] = {"color": _POLICY_COLORS[index % len(_POLICY_COLORS)], "linestyle": "-"}
    return {**style, "linewidth": 2.2, "alpha": 0.75} if index == 0 else {**style, "linewidth": 1.2}


def _order(policy: str) -> int:
    """recompute first, then the policies in registry order, then full, then anything else."""
    names = policy_names()
    if policy == "recompute":
        return 0
    if policy in names:
        return 1 + names.index(policy)
    return len(names) + (1 if policy == "full" else 2)


def moving_average(nll: torch.Tensor, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(positions, means): the mean of every `width` consecutive NLL values, NaN (token 0) skipped.

    Positions are the token index at the centre of each window.
    """
    index = torch.arange(nll.numel(), dtype=torch.float64)
    keep = ~nll.isnan()
    values, index = nll[keep].double(), index[keep]
    width = max(1, min(width, values.numel()))
    if values.numel() == 0:
        return index, values
    sums = torch.cat((torch.zeros(1, dtype=torch.float64), values.cumsum(0)))
    means = (sums[width:] - sums[:-width]) / width
    centres = (index[width - 1 :] + index[: index.numel() - width + 1]) / 2
    return centres, means


def plot_perplexity(
    results: Sequence[PerplexityResult],
    path: str | os.PathLike[str],
    *,
    smooth: int | None = None,
    title: str | None = None,
) -> pathlib.Path:
    """Write a PNG of the smoothed NLL of every run in `results` to `path` (see the module docstring)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not results:
        raise ValueError("plot_perplexity needs at least one result")
    longest = max(r.tokens for r in results)
    width = smooth if smooth is not None else max(1, min(DEFAULT_SMOOTH, longest // 8))
    if width <= 0:
        raise ValueError(f"smooth must be a positive number of tokens; got {smooth!r}")
    panels = _panels(results)

    figure = Figure(figsize=(10, 3.2 * len(panels) + 0.6), dpi=110)
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    context = next((r.context_length for r in results if r.context_length is not None), None)
    for ax, (heading, runs) in zip(axes, panels, strict=True):
        _draw_panel(ax, heading, runs, width, context, longest)
    axes[-1].set_xlabel("token position")
    if title:
        figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    out = pathlib.Path(path)
    figure.savefig(out, format="png")
    return out


def _panels(results: Sequence[PerplexityResult]) -> list[tuple[str, list[PerplexityResult]]]:
    """One (heading, runs) panel per cache limit, the unbounded runs in each; one panel if none is bounded."""
    limits = sorted({r.cache_limit for r in results if r.cache_limit is not None})
    unbounded = [r for r in results if r.cache_limit is None]
    return [
        (f"cache limit {limit} tokens", [r for r in results if r.cache_limit == limit] + unbounded)
        for limit in limits
    ] or [("unbounded cache", unbounded)]


def _draw_panel(
    ax: Axes, heading: str, runs: list[PerplexityResult], width: int, context: int | None, longest: int
) -> None:
    """One panel: each run's NLL averaged over `width` tokens, and the trained context if it is passed."""
    for run in sorted(runs, key=lambda r: (_order(r.policy), r.label)):
        x, y = moving_average(run.nll, width)
        if y.numel() == 0:
            continue
        style = _style(run.policy)
        label = f"{run.label}  (ppl {run.ppl:.2f})"
        if run.policy == "full" and run.beyond_context_from is not None:
            within, beyond = run.ppl_within_context, run.ppl_beyond_context
            label = f"full  (ppl {within:.2f} within context, {beyond:.2f} beyond)"
        elif run.note:
            label += ", stopped early"
        ax.plot(x.numpy(), y.numpy(), label=label, **{"linewidth": 1.2, **style})
    if context is not None and context < longest:
        ax.axvline(context, color="black", linewidth=0.9, alpha=0.7)
        ax.annotate(
            f"trained context ({context})",
            xy=(context, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(4, -12),
            textcoords="offset points",
            fontsize=8,
        )
    ax.set_title(heading, fontsize=10)
    ax.set_ylabel(f"NLL (nats), mean of {width}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    ax.set_xlim(0, longest)
