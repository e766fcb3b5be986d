"""A load generator for OpenAI-compatible servers (kvlimit serve, transformers serve, ...): many streamed
chat requests at a fixed concurrency over loopback, bounded in count and time.

Contract: `run_load(url, bodies, concurrency=C)` sends every body of `bodies` to `url`'s
`/v1/chat/completions` with `stream: true`, at most C at once, a tqdm bar over finished requests on a
terminal, and returns one `Outcome` per request: its HTTP status, seconds to its first content chunk
(time to first token), the gaps between its content chunks (per-token latency; a chunk carries one token
on both servers), its completion tokens (the final `usage`, else the content chunks counted), its finish
reason (a stream that ends without one, or with an error event, was cut short), whether it ended with
`data: [DONE]` (OpenAI's last event; transformers serve 5.25 sends none) and the error body. `summarize`
turns them into the numbers a report gives (completed, rejected with 429, failed, cut short; tokens/s
over the wall time; time to first token, per-token latency p50 / p99 and the longest gap; a whole
request's seconds p50 / p99); `load_lines` renders the table, `plot_load` the figure. Nothing is
retried: a 429 is counted as such.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx2 as httpx
from tqdm import tqdm

from .stats import quantile


@dataclass
class Outcome:
    """One request's fate (see the module docstring)."""

    status: int
    seconds: float
    first_token: float | None = None
    gaps: list[float] = field(default_factory=list)
    tokens: int = 0
    finish_reason: str | None = None
    done: bool = False
    error: str | None = None

    @property
    def complete(self) -> bool:
        """Ended by the server with a finish reason (OpenAI's stream then says `[DONE]`; not every server does)."""
        return self.status == 200 and self.finish_reason is not None and self.error is None


async def _one(client: httpx.AsyncClient, url: str, body: dict[str, Any], headers: dict[str, str]) -> Outcome:
    start = time.perf_counter()
    outcome = Outcome(0, 0.0)
    last = None
    async with client.stream("POST", f"{url}/v1/chat/completions", json={**body, "stream": True},
                             headers=headers) as response:  # fmt: skip
        outcome.status = response.status_code
        if response.status_code != 200:
            outcome.error = (await response.aread()).decode(errors="replace")[:500]
        else:
            async for line in response.aiter_lines():
                if not line.startswith("data: "):
                    continue
                if line == "data: [DONE]":
                    outcome.done = True
                    break
                chunk = json.loads(line[6:])
                if "error" in chunk:
                    outcome.error = json.dumps(chunk["error"])[:500]
                    continue
                usage = chunk.get("usage")
                if usage:
                    outcome.tokens = int(usage.get("completion_tokens") or outcome.tokens)
                for choice in chunk.get("choices") or []:
                    if (choice.get("delta") or {}).get("content"):
                        now = time.perf_counter()
                        if last is None:
                            outcome.first_token = now - start
                        else:
                            outcome.gaps.append(now - last)
                        last = now
                        if not usage:
                            outcome.tokens += 1
                    outcome.finish_reason = choice.get("finish_reason") or outcome.finish_reason
    outcome.seconds = time.perf_counter() - start
    return outcome


async def _run(url: str, bodies: Sequence[dict[str, Any]], concurrency: int, headers: dict[str, str],
               timeout: float, bar: Any) -> list[Outcome]:  # fmt: skip
    gate = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:

        async def guarded(body: dict[str, Any]) -> Outcome:
            async with gate:
                try:
                    outcome = await _one(client, url, body, headers)
                except httpx.HTTPError as exc:
                    outcome = Outcome(-1, 0.0, error=f"{type(exc).__name__}: {exc}")
            bar.update(1)
            return outcome

        return list(await asyncio.gather(*(guarded(b) for b in bodies)))


def run_load(
    url: str, bodies: Sequence[dict[str, Any]], *, concurrency: int, api_key: str | None = None,
    timeout: float = 600.0, label: str = "requests",
) -> tuple[list[Outcome], float]:  # fmt: skip
    """Send every body (see the module docstring); the outcomes, in order, and the wall seconds."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    start = time.perf_counter()
    with tqdm(
        total=len(bodies), desc=label, unit="req", file=sys.stderr, disable=not sys.stderr.isatty()
    ) as bar:
        outcomes = asyncio.run(_run(url, bodies, concurrency, headers, timeout, bar))
    return outcomes, time.perf_counter() - start


def summarize(outcomes: list[Outcome], wall: float) -> dict[str, Any]:
    """The report's numbers for one run (see the module docstring)."""
    complete = [o for o in outcomes if o.complete]
    firsts = sorted(o.first_token for o in complete if o.first_token is not None)
    gaps = sorted(g for o in complete for g in o.gaps)
    whole = sorted(o.seconds for o in complete)
    tokens = sum(o.tokens for o in complete)
    return {
        "requests": len(outcomes),
        "completed": len(complete),
        "rejected_429": sum(o.status == 429 for o in outcomes),
        "failed": sum(o.status not in (200, 429) for o in outcomes),
        "cut_short": sum(o.status == 200 and not o.complete for o in outcomes),
        "without_done": sum(o.status == 200 and not o.done for o in outcomes),
        "finish_reasons": {
            r: sum(o.finish_reason == r for o in complete) for r in {o.finish_reason for o in complete}
        },
        "tokens": tokens,
        "wall_s": wall,
        "tokens_per_s": tokens / wall if wall > 0 else 0.0,
        "ttft_p50_s": quantile(firsts, 0.5) if firsts else None,
        "ttft_p99_s": quantile(firsts, 0.99) if firsts else None,
        "token_latency_p50_s": quantile(gaps, 0.5) if gaps else None,
        "token_latency_p99_s": quantile(gaps, 0.99) if gaps else None,
        "longest_gap_s": gaps[-1] if gaps else None,
        "request_p50_s": quantile(whole, 0.5) if whole else None,
        "request_p99_s": quantile(whole, 0.99) if whole else None,
        "errors": sorted({o.error for o in outcomes if o.error})[:5],
    }


def load_lines(summaries: dict[str, dict[str, Any]]) -> list[str]:
    """One row per run: requests and what became of them, tokens/s, latencies in milliseconds."""

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value * 1000:.0f}"

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    lines = [f"{'run':<40}{'done':>5}{'429':>5}{'fail':>5}{'cut':>4}{'tokens':>7}{'wall s':>7}{'tok/s':>6}"
             f"{'TTFT p50':>9}{'p99':>7}{'tok p50':>8}{'p99':>6}{'max':>7}{'req p50':>8}{'p99':>7}  (ms; req: s)"]  # fmt: skip
    for name, s in summaries.items():
        lines.append(
            f"{name:<40}{s['completed']:>5}{s['rejected_429']:>5}{s['failed']:>5}{s['cut_short']:>4}{s['tokens']:>7}"
            f"{s['wall_s']:>7.0f}{s['tokens_per_s']:>6.1f}{ms(s['ttft_p50_s']):>9}{ms(s['ttft_p99_s']):>7}"
            f"{ms(s['token_latency_p50_s']):>8}{ms(s['token_latency_p99_s']):>6}{ms(s.get('longest_gap_s')):>7}"
            f"{seconds(s.get('request_p50_s')):>8}{seconds(s.get('request_p99_s')):>7}"
        )
    return lines


def plot_load(runs: dict[str, tuple[list[Outcome], dict[str, Any]]], path: str, title: str) -> None:
    """Per run: tokens/s, and the distributions of time to first token, per-token latency (its longest gap
    marked) and whole requests' seconds."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(15, 3.9), dpi=110)
    FigureCanvasAgg(figure)
    rate, first, token, whole = figure.subplots(1, 4)
    names = list(runs)
    labels = [name.replace(", ", "\n") for name in names]
    rate.bar(range(len(names)), [runs[n][1]["tokens_per_s"] for n in names], color="#1f77b4")
    rate.set_xticks(range(len(names)), labels, fontsize=7)
    rate.set_title("aggregate completion tokens/s", fontsize=9)
    for panel, values, label in (
        (first, lambda o: [x.first_token for x in o if x.complete and x.first_token is not None], "time to first token (s)"),
        (token, lambda o: [g for x in o if x.complete for g in x.gaps], "per-token latency (s)"),
        (whole, lambda o: [x.seconds for x in o if x.complete], "a whole request (s)"),
    ):  # fmt: skip
        data = [values(runs[n][0]) or [0.0] for n in names]
        panel.boxplot(data, whis=(1, 99), showfliers=False)
        panel.set_xticks(range(1, len(names) + 1), labels, fontsize=7)
        panel.set_title(f"{label}:\nbox p25-p75, whiskers p1-p99", fontsize=9)
    longest = [
        max(values, default=0.0)
        for values in ([g for x in runs[n][0] if x.complete for g in x.gaps] for n in names)
    ]
    token.scatter(range(1, len(names) + 1), longest, marker="x", color="#d62728", label="longest gap")
    token.set_yscale("log")
    token.legend(fontsize=7)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, format="png")


def outcomes_json(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    return [asdict(o) for o in outcomes]


def outcomes_from_json(records: list[dict[str, Any]]) -> list[Outcome]:
    return [Outcome(**record) for record in records]
