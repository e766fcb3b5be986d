"""Peak memory of a benchmark phase: process RSS and, on CUDA, the allocator's peak.

Contract: `MemoryWatch(device, interval_s)` is a context manager; while it is open, a daemon thread
samples the process RSS (psutil) every `interval_s` seconds. `watch.phase(into)` wraps one phase and,
when the phase ends (even by an exception), fills `into` with `rss_start`, `rss_peak` (sampled, and
never below the RSS at the end), `rss_hwm` (the kernel's exact high-water mark `VmHWM`, reset at the
phase's start through `/proc/self/clear_refs`; None where Linux does not offer it), `rss_end`,
`rss_peak_growth`, and `cuda_start_allocated`, `cuda_peak_allocated`, `cuda_peak_growth` (peak
statistics reset per phase; None off CUDA). All sizes are bytes.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import psutil
import torch

from ..memory import read_peak_rss, reset_peak_rss

__all__ = ["MemoryWatch"]


class MemoryWatch:
    """Peak RSS (sampled, and the kernel's high-water mark on Linux) and CUDA peak, per phase."""

    def __init__(self, device: torch.device, interval_s: float) -> None:
        self.device = device
        self.interval_s = interval_s
        self.process = psutil.Process()
        self._peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._hwm_ok = reset_peak_rss()

    def __enter__(self) -> MemoryWatch:
        self._thread = threading.Thread(target=self._sample, name="kvlimit-rss", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _rss(self) -> int:
        return int(self.process.memory_info().rss)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval_s):
            rss = self._rss()
            if rss > self._peak:
                self._peak = rss

    @contextlib.contextmanager
    def phase(self, into: dict[str, Any]) -> Iterator[None]:
        """Measure the block's memory into `into` (keys `rss_start`, `rss_peak`, `rss_hwm`, `rss_end`, ...)."""
        start = self._rss()
        self._peak = start
        self._hwm_ok = self._hwm_ok and reset_peak_rss()
        cuda = self.device.type == "cuda"
        if cuda:
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            cuda_start = torch.cuda.memory_allocated(self.device)
        try:
            yield
        finally:
            end = self._rss()
            into["rss_start"] = start
            into["rss_peak"] = max(self._peak, end)
            into["rss_hwm"] = read_peak_rss() if self._hwm_ok else None
            into["rss_end"] = end
            into["rss_peak_growth"] = into["rss_peak"] - start
            if cuda:
                torch.cuda.synchronize(self.device)
                into["cuda_start_allocated"] = cuda_start
                into["cuda_peak_allocated"] = torch.cuda.max_memory_allocated(self.device)
                into["cuda_peak_growth"] = into["cuda_peak_allocated"] - cuda_start
            else:
                into["cuda_start_allocated"] = into["cuda_peak_allocated"] = into["cuda_peak_growth"] = None
