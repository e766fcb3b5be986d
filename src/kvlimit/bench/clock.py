"""Per-token timing of a `generate` call, and what a transformers cache holds.

Contract: `StepClock` is a `StoppingCriteria` that never stops generation: each call (once per new
token) appends `time.perf_counter()` to `times`, after a `torch.cuda.synchronize()` on CUDA so the
time includes the token's kernels; every `sample_every` tokens, and at the last of `total` tokens,
it appends `(token index, cache bytes, stored tokens)` to `samples` and reports progress. `sync`
waits for a CUDA device (no-op elsewhere). `dynamic_cache_bytes` / `dynamic_cache_tokens` read a
transformers cache's K/V bytes and its sequence length from its layers' tensors.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch
from transformers import StoppingCriteria

from ..integrations.hf import kv_bytes

__all__ = ["Progress", "StepClock", "dynamic_cache_bytes", "dynamic_cache_tokens", "sync"]

#: progress(phase, done, total): called at most every few tokens, never required.
Progress = Callable[[str, int, int], None]


class StepClock(StoppingCriteria):
    """Called by generate once per new token: records the time and, now and then, the cache's size."""

    def __init__(
        self,
        total: int,
        sample_every: int,
        cache_bytes: Callable[[], int],
        stored_tokens: Callable[[], int],
        device: torch.device,
        progress: Progress | None,
        phase: str,
    ) -> None:
        self.total = total
        self.sample_every = max(1, sample_every)
        self.cache_bytes = cache_bytes
        self.stored_tokens = stored_tokens
        self.sync = device.type == "cuda"
        self.device = device
        self.progress = progress
        self.phase = phase
        self.times: list[float] = []
        self.samples: list[tuple[int, int, int]] = []  # (token index, cache bytes, stored tokens)
        self._no = torch.zeros(1, dtype=torch.bool, device=device)

    def __call__(
        self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs: Any
    ) -> torch.BoolTensor:
        if self.sync:
            torch.cuda.synchronize(self.device)
        self.times.append(time.perf_counter())
        index = len(self.times) - 1
        if index % self.sample_every == 0 or index == self.total - 1:
            self.samples.append((index, self.cache_bytes(), self.stored_tokens()))
            if self.progress is not None:
                self.progress(self.phase, index + 1, self.total)
        if self._no.shape[0] != input_ids.shape[0]:
            self._no = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        return self._no  # type: ignore[return-value]


def dynamic_cache_bytes(cache: Any) -> int:
    """K/V bytes held by a transformers cache (all layers, all rows)."""
    return kv_bytes(cache)


def dynamic_cache_tokens(cache: Any) -> int:
    """Tokens a transformers cache holds: the sequence length of its first 4-d key tensor (0 if none)."""
    for layer in getattr(cache, "layers", []):
        keys = getattr(layer, "keys", None)
        if isinstance(keys, torch.Tensor) and keys.ndim == 4:
            return int(keys.shape[-2])
    return 0


def sync(device: torch.device) -> None:
    """Wait for the queued work of a CUDA `device`; nothing to wait for elsewhere."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
