"""The continuous engine in a background thread, fed from the server's event loop.

Contract: `EngineWorker(engine, max_queue=..., metrics=...)` runs `ContinuousEngine` steps in one
thread of its own (`start` / `close`). From any thread:

- `submit(request, sink)` hands a `kvlimit.engine.Request` to the engine; `sink(event)` is then called
  from the engine's thread with every `Token` and `Finished` of that request, as they are made, or one
  `Failed` (the engine refused the request: status 400; a step failed: 500; the drain ran out: 503).
  Raises `QueueFull` (with `retry_after` seconds) when `max_queue` requests wait already beyond the rows
  free now (a request for which a row is free waits only for its prefill), `Draining` once `drain` was
  called.
- `cancel(request_id)` ends a request at the next step boundary, wherever it is: its rows are free
  for the next step (a disconnected client's request).
- `drain(seconds)`: admit nothing more; requests in flight go on, and those still running after
  `seconds` end with a `Failed` saying so (status 503).

The engine itself is driven by this thread alone. The metrics' gauges are set after every step, and
time to first token and time per output token observed as tokens are made.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from ..engine import ContinuousEngine, Finished, Request, Token
from .metrics import Metrics

logger = logging.getLogger(__name__)


@dataclass
class Failed:
    """A request the worker ended without finishing it: why, and the HTTP status that stands for it."""

    id: str
    message: str
    status: int


Event = Token | Finished | Failed
Sink = Callable[[Event], None]


class QueueFull(Exception):
    """The queue holds `max_queue` requests already; `retry_after`: seconds to wait, estimated."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class Draining(Exception):
    """The server is shutting down and admits no request."""


@dataclass
class _Flight:
    """A request in flight: where its events go, when it was submitted, its sequences not ended."""

    sink: Sink
    submitted: float
    left: int
    last_token: dict[int, float]


class EngineWorker:
    """`ContinuousEngine` steps in a thread of their own (see the module docstring)."""

    def __init__(self, engine: ContinuousEngine, *, max_queue: int, metrics: Metrics):
        self.engine = engine
        self.max_queue = max_queue
        self.metrics = metrics
        self._lock = threading.Condition()
        self._inbox: list[tuple[Request, Sink]] = []
        self._cancels: list[str] = []
        self._flights: dict[str, _Flight] = {}
        self._stopping = False
        self._deadline: float | None = None
        self._drain_seconds = 0.0
        self._thread: threading.Thread | None = None
        self._request_seconds = 1.0  # a moving average of finished requests' seconds, for Retry-After

    # --- from any thread ------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="kvlimit-engine", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 30.0) -> None:
        """Stop the thread (after its current step) and wait for it."""
        with self._lock:
            self._stopping = True
            self._lock.notify()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def draining(self) -> bool:
        return self._deadline is not None

    @property
    def queued(self) -> int:
        """Requests waiting for their prefill (submitted, or in the engine's queue)."""
        return len(self._inbox) + self.engine.queued

    def submit(self, request: Request, sink: Sink) -> None:
        """Hand `request` to the engine (see the module docstring)."""
        with self._lock:
            if self._deadline is not None:
                raise Draining("the server is shutting down and admits no new request")
            waiting = self.queued
            backlog = waiting - (self.engine.rows - self.engine.active)  # beyond the rows free now
            if backlog >= self.max_queue:
                retry = math.ceil(self._request_seconds * (backlog + 1) / self.engine.rows)
                raise QueueFull(
                    f"the server is at capacity: {self.engine.active} of {self.engine.rows} rows decoding and "
                    f"{waiting} requests waiting (--max-queue {self.max_queue}); retry later",
                    max(1, retry),
                )
            self._inbox.append((request, sink))
            self._lock.notify()

    def cancel(self, request_id: str) -> None:
        """End `request_id` at the next step boundary (nothing happens if it has ended)."""
        with self._lock:
            self._cancels.append(request_id)
            self._lock.notify()

    def drain(self, seconds: float) -> None:
        """Admit nothing more; end what still runs after `seconds` (see the module docstring)."""
        with self._lock:
            if self._deadline is None:
                self._drain_seconds = seconds
                self._deadline = time.monotonic() + seconds
                logger.info("draining: %d requests in flight, %.0f s to finish", len(self._flights), seconds)
            self._lock.notify()

    # --- the engine's thread --------------------------------------------------------------------
    def _loop(self) -> None:
        with torch.no_grad():
            while True:
                with self._lock:
                    while not (self._inbox or self._cancels or self._stopping or self.engine.busy
                               or self._deadline_passed()):  # fmt: skip
                        self._lock.wait(0.5)
                    inbox, self._inbox = self._inbox, []
                    cancels, self._cancels = self._cancels, []
                    if self._stopping:
                        break
                for request, sink in inbox:  # before the cancels: one may name a request of this inbox
                    self._admit(request, sink)
                for request_id in cancels:
                    self._cancel(request_id)
                if self._deadline_passed():
                    self._end_all(
                        f"the server is shutting down: the request was still running after the drain time "
                        f"(--drain-seconds {self._drain_seconds:g})", 503,
                    )  # fmt: skip
                if self.engine.busy:
                    self._step()
                self._gauges()

    def _deadline_passed(self) -> bool:
        return self._deadline is not None and bool(self._flights) and time.monotonic() >= self._deadline

    def _admit(self, request: Request, sink: Sink) -> None:
        try:
            self.engine.submit(request)
        except ValueError as exc:
            _deliver(sink, Failed(request.id, str(exc), 400))
            return
        sequences = request.sequences or self.engine.num_return_sequences
        self._flights[request.id] = _Flight(sink, time.perf_counter(), sequences, {})
        self.metrics.prompt_tokens.inc(len(request.input_ids))

    def _cancel(self, request_id: str) -> None:
        if self._flights.pop(request_id, None) is not None:
            self.engine.cancel(request_id)

    def _end_all(self, message: str, status: int) -> None:
        for request_id, flight in list(self._flights.items()):
            self.engine.cancel(request_id)
            _deliver(flight.sink, Failed(request_id, message, status))
        self._flights.clear()

    def _step(self) -> None:
        try:
            events = self.engine.step()
        except Exception as exc:  # a failed step leaves the batch in no known state: start it again
            logger.exception("an engine step failed; every request in flight ends with an error")
            self._end_all(f"the engine failed: {type(exc).__name__}: {exc}", 500)
            self.engine.open()
            return
        now = time.perf_counter()
        for event in events:
            flight = self._flights.get(event.id)
            if flight is None:
                continue
            if isinstance(event, Token):
                self._observe(flight, event.sequence, now)
            else:
                flight.left -= 1
                if flight.left == 0:
                    del self._flights[event.id]
                    self._request_seconds = 0.9 * self._request_seconds + 0.1 * (now - flight.submitted)
            _deliver(flight.sink, event)

    def _observe(self, flight: _Flight, sequence: int, now: float) -> None:
        self.metrics.generated_tokens.inc()
        last = flight.last_token.get(sequence)
        if last is None:
            if not flight.last_token:
                self.metrics.time_to_first_token.observe(now - flight.submitted)
        else:
            self.metrics.time_per_output_token.observe(now - last)
        flight.last_token[sequence] = now

    def _gauges(self) -> None:
        engine = self.engine
        self.metrics.rows_active.set(engine.active)
        self.metrics.queue_length.set(self.queued)
        self.metrics.prefilling.set(0 if engine.prefilling is None else 1)
        self.metrics.kv_cache_bytes.set(engine.kv_bytes)


def _deliver(sink: Sink, event: Any) -> None:
    """Hand `event` to a request's sink; a sink whose reader is gone (its loop closed) is skipped."""
    try:
        sink(event)
    except RuntimeError:
        logger.debug("event for request %s dropped: its reader is gone", getattr(event, "id", "?"))
