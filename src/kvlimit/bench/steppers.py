"""One decode step of each benchmarked variant, ready to be timed in turn.

Contract: a `Stepper` is built with its cache already filled (untimed); `prepare()` restores the
state the next step must start from (untimed), `step()` is exactly one decode step. `timed(stepper,
device)` runs `prepare`, then `step` between two device syncs, and returns the step's milliseconds.
- `KvlimitStepper`: a `BoundedCache` fed `fill` in chunks it can take; a step is
  `kvlimit.forward_step` of one token, eviction planning included (with a compile config: the cache's
  compiled static step, `integrations.hf.CompiledDecodeStep`).
- `StockStepper`: a `DynamicCache` holding `fill`; a step attends to `len(fill) + 1` keys, and
  `prepare` crops the cache back to `len(fill)`, so every step sees the same KV length.
- `RecomputeStepper`: sliding-window recomputation, a fresh forward over the last window of tokens
  without a cache; the argmax token slides into the window.
"""

from __future__ import annotations

import time
from typing import Any

import torch
from transformers import DynamicCache

from ..build import build_cache
from ..config import LimitConfig
from ..forward import forward_step
from ..integrations.hf import CompiledDecodeStep, cache_argument, inspect_model, last_logits_only, text_config
from .clock import sync

__all__ = [
    "KvlimitStepper",
    "RecomputeStepper",
    "Stepper",
    "StockStepper",
    "timed",
]


class Stepper:
    """One decode step of one variant; `prepare` runs untimed before each timed `step`."""

    def prepare(self) -> None:
        """Restore the state the next step starts from (nothing to restore by default)."""
        return None

    def step(self) -> None:
        """One decode step."""
        raise NotImplementedError


def timed(stepper: Stepper, device: torch.device) -> float:
    """Milliseconds of one `stepper.step()` (after its untimed `prepare`), device work included."""
    stepper.prepare()
    sync(device)
    start = time.perf_counter()
    stepper.step()
    sync(device)
    return (time.perf_counter() - start) * 1000.0


class KvlimitStepper(Stepper):
    """A kvlimit cache fed `fill` (in chunks); a step is `kvlimit.forward_step` of one token, planning included."""

    def __init__(
        self,
        model: Any,
        config: LimitConfig,
        fill: torch.Tensor,
        step_ids: torch.Tensor,
        compile_config: Any = None,
    ) -> None:
        self.model = model
        self.cache = build_cache(model, config)
        self.step_ids = step_ids
        room = max(1, min(1024, self.cache.policy.max_chunk(self.cache.kept_limit)))
        extra = last_logits_only(model)  # a fill needs the last logits only
        if compile_config is not None:
            self.cache.make_static()
        for start in range(0, fill.shape[1], room):
            forward_step(model, self.cache, fill[:, start : start + room], **extra)
        self.compiled = (
            None
            if compile_config is None
            else CompiledDecodeStep(model, self.cache, inspect_model(model), compile_config)
        )

    def step(self) -> None:
        if self.compiled is not None:
            with torch.no_grad():
                self.compiled(self.step_ids)
            return
        forward_step(self.model, self.cache, self.step_ids)


class StockStepper(Stepper):
    """A `DynamicCache` holding `fill`; a step attends to `len(fill) + 1` keys, then `prepare` crops it back."""

    def __init__(self, model: Any, fill: torch.Tensor, step_ids: torch.Tensor, extra: dict[str, Any]) -> None:
        self.model = model
        self.cache = DynamicCache(config=text_config(model))
        device = fill.device
        for start in range(0, fill.shape[1], 1024):
            model(
                input_ids=fill[:, start : start + 1024], **cache_argument(self.cache), use_cache=True, **extra
            )
        self.length = int(fill.shape[1])
        self.mask = torch.ones((1, self.length + 1), dtype=torch.long, device=device)
        self.position = torch.tensor([[self.length]], device=device)
        self.step_ids = step_ids

    def prepare(self) -> None:
        grown = self.cache.get_seq_length() - self.length
        if grown > 0:
            self.cache.crop(-grown)

    def step(self) -> None:
        self.model(
            input_ids=self.step_ids,
            attention_mask=self.mask,
            position_ids=self.position,
            **cache_argument(self.cache),
            use_cache=True,
        )


class RecomputeStepper(Stepper):
    """Sliding-window recomputation: a fresh forward over the last `limit` tokens, no cache."""

    def __init__(self, model: Any, window: torch.Tensor, extra: dict[str, Any]) -> None:
        self.model = model
        self.window = window.clone()
        self.extra = extra

    def step(self) -> None:
        logits = self.model(input_ids=self.window, use_cache=False, **self.extra).logits
        nxt = logits[:, -1].argmax(dim=-1, keepdim=True)
        self.window = torch.cat((self.window[:, 1:], nxt), dim=1)
