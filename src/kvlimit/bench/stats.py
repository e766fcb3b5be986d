"""Summary statistics of per-token latencies, pure functions of the numbers they are given.

Contract: `summarize(values)` gives `n`, `median_ms`, `p10_ms`, `p90_ms` and `mean_ms` (all None
but `n` = 0 for no values; quantiles interpolate linearly between the sorted values).
`token_window(latency_ms, start, end, first=...)` summarises tokens [start, end) of a run, clipped to
the tokens it has, with `start`/`end` kept in the summary (None when nothing is left);
`token_buckets` cuts a run into consecutive windows of `bucket_size(tokens, buckets)` tokens.
`ratio(num, den)` is num / den as a float, None when either is missing or `den` is 0.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

__all__ = ["bucket_size", "quantile", "ratio", "summarize", "token_buckets", "token_window"]


def summarize(values: Sequence[float]) -> dict[str, float | int | None]:
    """Median, 10th/90th percentile, mean and count of `values` (milliseconds)."""
    if not values:
        return {"n": 0, "median_ms": None, "p10_ms": None, "p90_ms": None, "mean_ms": None}
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "median_ms": statistics.median(ordered),
        "p10_ms": quantile(ordered, 0.1),
        "p90_ms": quantile(ordered, 0.9),
        "mean_ms": statistics.fmean(ordered),
    }


def quantile(ordered: Sequence[float], q: float) -> float:
    """The `q` quantile of the sorted, non-empty `ordered`, interpolated linearly."""
    if len(ordered) == 1:
        return float(ordered[0])
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


def bucket_size(tokens: int, buckets: int) -> int:
    """Tokens per bucket when `tokens` are cut into `buckets` equal buckets (the last may be short)."""
    return max(1, math.ceil(tokens / buckets))


def token_window(
    latency_ms: Sequence[float], start: int, end: int, *, first: int = 1
) -> dict[str, Any] | None:
    """Summary of tokens [start, end) of a run whose `latency_ms[j]` is token `first + j`."""
    start, end = max(start, first), min(end, first + len(latency_ms))
    if end <= start:
        return None
    return {"start": start, "end": end, **summarize(latency_ms[start - first : end - first])}


def token_buckets(latency_ms: Sequence[float], tokens: int, size: int) -> list[dict[str, Any]]:
    """Summaries of tokens [0, size), [size, 2 size), ... up to `tokens`, empty windows left out."""
    out = []
    for start in range(0, tokens, size):
        window = token_window(latency_ms, start, start + size)
        if window is not None:
            out.append(window)
    return out


def ratio(num: float | None, den: float | None) -> float | None:
    """`num / den`, None when either is None or `den` is 0."""
    if num is None or den is None or den == 0:
        return None
    return float(num) / float(den)
