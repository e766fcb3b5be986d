"""Per-row counters of a bounded cache, on the host and on the device, kept in step by one object.

Contract: `kept[b]` is how many tokens row b holds, `seen[b]` how many real tokens it has consumed
(the index its next token gets), and a stored key's position is its token index minus `shift[b]`
(RoPE rebases and re-encodes move it). The host lists let the planner decide without reading the
device (a decode step must not synchronise); the device tensors `kept_t`, `seen_t` and `shift_t`,
each `(batch,)` long, feed position arithmetic on the device. Every change goes through a method
here, which updates both copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch


@dataclass
class RowCounters:
    """`kept`, `seen` and `shift` per row, as host lists and as device tensors (see the module docstring)."""

    kept: list[int]
    seen: list[int]
    shift: list[int]
    kept_t: torch.Tensor
    seen_t: torch.Tensor
    shift_t: torch.Tensor

    @classmethod
    def zeros(cls, batch: int, device: torch.device) -> RowCounters:
        def zero() -> torch.Tensor:
            return torch.zeros(batch, dtype=torch.long, device=device)

        return cls([0] * batch, [0] * batch, [0] * batch, zero(), zero(), zero())

    @property
    def batch(self) -> int:
        return len(self.kept)

    def set(
        self,
        *,
        kept: Sequence[int] | None = None,
        seen: Sequence[int] | None = None,
        shift: Sequence[int] | None = None,
    ) -> None:
        """Replace the given counters (host values), copying them to the device."""
        for name, values in (("kept", kept), ("seen", seen), ("shift", shift)):
            if values is None:
                continue
            setattr(self, name, list(values))
            device_copy: torch.Tensor = getattr(self, f"{name}_t")
            device_copy.copy_(torch.tensor(list(values), device=device_copy.device))

    def evict_one(self, full: Sequence[bool], full_t: torch.Tensor) -> None:
        """One token fewer in the rows marked by `full` (host) and `full_t` (the same, on the device)."""
        self.kept = [k - 1 if f else k for k, f in zip(self.kept, full, strict=True)]
        self.kept_t.sub_(full_t.long())

    def tensors(self) -> list[torch.Tensor]:
        """The device counters (a captured step reads them at their addresses)."""
        return [self.kept_t, self.seen_t, self.shift_t]

    def add_decode_token(self, slots: int) -> None:
        """One new token in every row: `seen + 1`, `kept + 1` up to `slots`, without reading the device."""
        self.kept = [min(k + 1, slots) for k in self.kept]
        self.seen = [s + 1 for s in self.seen]
        self.kept_t.add_(1).clamp_(max=slots)
        self.seen_t.add_(1)

    def select(self, index: torch.Tensor, host_index: Sequence[int] | None) -> None:
        """Keep rows `index` (batch_new,). `host_index` None: a permutation among rows with equal counters
        (beam-search reorders move beams of one prompt among themselves), so the host lists stay."""
        if host_index is not None:
            self.kept = [self.kept[i] for i in host_index]
            self.seen = [self.seen[i] for i in host_index]
            self.shift = [self.shift[i] for i in host_index]
        for name in ("kept_t", "seen_t", "shift_t"):
            tensor: torch.Tensor = getattr(self, name)
            if index.numel() == tensor.shape[0]:  # in place: a captured step reads the same address
                tensor.copy_(tensor.index_select(0, index))
            else:
                setattr(self, name, tensor.index_select(0, index))

    def load_row(self, row: int, source: RowCounters, source_row: int) -> None:
        """Row `row` takes the counters of `source`'s row `source_row`."""
        for name in ("kept", "seen", "shift"):
            value = getattr(source, name)[source_row]
            getattr(self, name)[row] = value
            getattr(self, f"{name}_t")[row] = value

    def next_positions(self) -> list[int]:
        """The position each row's next token gets (before any rebase): `seen - shift`."""
        return [s - sh for s, sh in zip(self.seen, self.shift, strict=True)]

    def renumbering(
        self, incoming: Sequence[int], bound: int | None, reserve: int = 0
    ) -> tuple[list[int], list[int]] | None:
        """Renumber each row whose step (`incoming[b]` new tokens) would reach position `bound`.

        Returns (new shift, change of shift) per row, 0 change for the other rows: a renumbered row's
        kept tokens take positions `reserve`..`reserve + kept - 1` (positions below are reserved for
        recalled tokens) and its next token `reserve + kept`. None when no row changes.
        """
        if bound is None:
            return None
        due = self.reaching(incoming, bound)
        shift = [
            s - k - reserve if d else old
            for s, k, old, d in zip(self.seen, self.kept, self.shift, due, strict=True)
        ]
        delta = [old - new for old, new in zip(self.shift, shift, strict=True)]
        return None if all(d == 0 for d in delta) else (shift, delta)

    def reaching(self, incoming: Sequence[int], bound: int) -> list[bool]:
        """Per row: would a step bringing `incoming[b]` new tokens give a position >= `bound` (before any rebase)?"""
        return [pos + q - 1 >= bound for pos, q in zip(self.next_positions(), incoming, strict=True)]
