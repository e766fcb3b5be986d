"""The server's Prometheus metrics, in a registry of its own (one per app, so that several servers can
share a process, as the tests do).

Contract: `Metrics(rows)` holds them; the engine's worker sets the gauges after every step and observes
the latencies as tokens are made, the endpoints count each request's outcome; `render()` is the text
`GET /metrics` returns (`CONTENT_TYPE`).

- `kvlimit_rows` (the batch's rows), `kvlimit_rows_active` (rows decoding a sequence),
  `kvlimit_queue_length` (requests waiting for their prefill), `kvlimit_prefilling` (1 while a prompt
  is being prefilled), `kvlimit_kv_cache_bytes` (the most bytes of keys and values held);
- `kvlimit_prompt_tokens_total`, `kvlimit_generated_tokens_total`;
- `kvlimit_time_to_first_token_seconds` (from the request's submission to its first token) and
  `kvlimit_time_per_output_token_seconds` (between two tokens of one sequence), histograms;
- `kvlimit_requests_total{outcome=...}`: stop, length, cancelled (the client went away), shutdown
  (ended by the drain), rejected (429: the queue was full), invalid (400, 404, 413), unauthorized
  (401), unavailable (503: draining), error (500).
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

CONTENT_TYPE = CONTENT_TYPE_LATEST

#: The outcomes `kvlimit_requests_total` counts (see the module docstring).
OUTCOMES = (
    "stop",
    "length",
    "cancelled",
    "shutdown",
    "rejected",
    "invalid",
    "unauthorized",
    "unavailable",
    "error",
)

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


class Metrics:
    """The server's metrics (see the module docstring)."""

    def __init__(self, rows: int):
        self.registry = CollectorRegistry()
        r = self.registry
        self.rows = Gauge("kvlimit_rows", "rows of the batch (sequences decoded at once)", registry=r)
        self.rows.set(rows)
        self.rows_active = Gauge("kvlimit_rows_active", "rows decoding a sequence", registry=r)
        self.queue_length = Gauge("kvlimit_queue_length", "requests waiting for their prefill", registry=r)
        self.prefilling = Gauge("kvlimit_prefilling", "1 while a prompt is being prefilled", registry=r)
        self.kv_cache_bytes = Gauge(
            "kvlimit_kv_cache_bytes", "the most bytes of keys and values held", registry=r
        )
        self.prompt_tokens = Counter("kvlimit_prompt_tokens", "prompt tokens submitted", registry=r)
        self.generated_tokens = Counter("kvlimit_generated_tokens", "new tokens generated", registry=r)
        self.time_to_first_token = Histogram(
            "kvlimit_time_to_first_token_seconds", "from a request's submission to its first token",
            buckets=_LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.time_per_output_token = Histogram(
            "kvlimit_time_per_output_token_seconds", "between two tokens of one sequence",
            buckets=_LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.requests = Counter("kvlimit_requests", "requests by outcome", ["outcome"], registry=r)
        for outcome in OUTCOMES:
            self.requests.labels(outcome=outcome)

    def outcome(self, outcome: str) -> None:
        """Count one request that ended so (one of `OUTCOMES`)."""
        self.requests.labels(outcome=outcome).inc()

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return bytes(generate_latest(self.registry))
