"""The eviction policy interface: which stored tokens a full cache gives up.

Contract: a policy scores every slot of a cache row; the cache keeps the highest scores and evicts
the lowest when it needs room. The base class owns the shared work (invalid slots score -inf,
validation, description), so a subclass writes one method, `score`. Policies are small frozen
dataclasses; their fields are the settings a user can pass (``policy="sinks", n_sink=2``).

`protected_tokens` counts tokens a policy never evicts (scored +inf); the cache relies on them being
the first tokens of each row, so they sit in the first slots.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import torch


@dataclass(frozen=True)
class SlotView:
    """What a policy may look at, per row and slot.

    Attributes:
        token_index: (batch, slots) long, index of the stored token in its row's sequence
            (0 = the row's first real token), -1 for empty slots.
        valid: (batch, slots) bool, True where a slot holds a token.
    """

    token_index: torch.Tensor
    valid: torch.Tensor


@dataclass(frozen=True)
class EvictionPolicy:
    """Base class. Subclasses set `name` and implement `score`."""

    name: ClassVar[str] = "base"
    #: Policies whose decisions differ per layer (attention-score based ones) set this; the cache
    #: then keeps one plan per layer. Positional policies decide once per step for all layers.
    per_layer: ClassVar[bool] = False

    def score(self, slots: SlotView) -> torch.Tensor:
        """(batch, slots) float keep-scores for the valid slots: higher is kept longer."""
        raise NotImplementedError

    @property
    def protected_tokens(self) -> int:
        """How many of each row's first tokens are never evicted."""
        return 0

    def keep_scores(self, slots: SlotView) -> torch.Tensor:
        """`score` with empty slots at -inf, so they are reused first."""
        scores = self.score(slots).float()
        return scores.masked_fill(~slots.valid, float("-inf"))

    def check_limit(self, cache_limit: int) -> None:
        """Raise ValueError if this policy cannot work with `cache_limit` tokens."""
        if self.protected_tokens >= cache_limit:
            raise ValueError(
                f"{self.describe()} protects {self.protected_tokens} tokens, which leaves no room in "
                f"cache_limit={cache_limit}; the protected count must be smaller than cache_limit"
            )

    @classmethod
    def settings(cls) -> tuple[str, ...]:
        """Names of the settings this policy accepts."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def describe(self) -> str:
        values = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        return f"{self.name}({values})" if values else self.name
