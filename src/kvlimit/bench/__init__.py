"""`kvlimit.bench`: stock generate vs kvlimit vs sliding-window recomputation, side by side.

`run_bench(model, BenchSettings(...))` measures per-token latency along a run, the cache's exact
size, peak memory and the headline ratios (`kvlimit.bench.runner`); `compute_ratios`,
`evaluate_targets`, `TARGETS` and the text report `report_lines` work on a result alone
(`kvlimit.bench.report`); `plot_bench(result, path)` draws it (`kvlimit.bench.plot`, imported on
first use); `kvlimit bench` is the command (`kvlimit.bench.command`). The library logs and never
prints.
"""

from __future__ import annotations

import os
from typing import Any

from .report import TARGETS, compute_ratios, evaluate_targets, report_lines
from .runner import BenchSettings, run_bench

__all__ = [
    "TARGETS",
    "BenchSettings",
    "compute_ratios",
    "evaluate_targets",
    "plot_bench",
    "report_lines",
    "run_bench",
]


def plot_bench(result: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Draw `result` into the PNG `path` (see `kvlimit.bench.plot`)."""
    from .plot import plot_bench as draw

    draw(result, path)
