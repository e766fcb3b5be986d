"""The per-slot bookkeeping of one kept set: which token each slot of each row holds.

Contract: a kept set is the set of bounded layers that keep the same tokens (one kept set for every
layer under a positional policy, one per bounded layer under a per-layer policy). Every tensor is
`(batch, slots)`; a slot is empty where `valid` is False. The kept set moves as a whole: `gather_`
reorders the slots of every row, `select_` replaces rows (beam reorders, batch expansion), and
both move every tensor at once, so no per-slot state can fall out of step with another. Every
change is made in place, except a change of the number of rows: a captured decode step reads the
tensors at fixed addresses. Positions
change only through `set_positions`, `shift_positions` and `place_first` (the position keepers'
operations), tokens through `store`, `vacate` and `clear` (the step planner's).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch

from ..policies import SlotView


@dataclass
class KeptSet:
    """Per-row, per-slot bookkeeping of one kept set. Every tensor is (batch, slots).

    Attributes:
        valid: bool, True where a slot holds a token.
        token_index: long, the token's index among its row's real tokens, -1 when empty.
        token_ids: long, the token's id, -1 when empty.
        positions: long, the position the stored key is encoded at.
        statistic: float32, the per-layer policy's `token_statistic` of the stored key (None unless
            the policy keeps one).
        attention: float32, the attention the stored key received (policies that read attention;
            summed over queries where `attention_count` exists).
        attention_count: float32, how many queries could see the stored key ("mean" attention).
        newest: float32, the attention of the row's newest query, which a decode step evicts by
            ("recent" and "last" decode attention). Kept apart from `attention` because after a
            prompt chunk that holds a mean over the chunk's queries, which depends on how the
            prompt was cut; the newest query does not.
    """

    valid: torch.Tensor
    token_index: torch.Tensor
    token_ids: torch.Tensor
    positions: torch.Tensor
    statistic: torch.Tensor | None = None
    attention: torch.Tensor | None = None
    attention_count: torch.Tensor | None = None
    newest: torch.Tensor | None = None

    @classmethod
    def empty(
        cls,
        batch: int,
        slots: int,
        device: torch.device,
        *,
        with_statistic: bool = False,
        with_attention: bool = False,
        with_count: bool = False,
        with_newest: bool = False,
    ) -> KeptSet:
        def filled(value: int) -> torch.Tensor:
            return torch.full((batch, slots), value, dtype=torch.long, device=device)

        def floats(wanted: bool) -> torch.Tensor | None:
            return torch.zeros((batch, slots), dtype=torch.float32, device=device) if wanted else None

        return cls(
            valid=torch.zeros((batch, slots), dtype=torch.bool, device=device),
            token_index=filled(-1),
            token_ids=filled(-1),
            positions=filled(0),
            statistic=floats(with_statistic),
            attention=floats(with_attention),
            attention_count=floats(with_count),
            newest=floats(with_newest),
        )

    @property
    def slots(self) -> int:
        return int(self.valid.shape[1])

    def view(self, phase: str = "decode") -> SlotView:
        """What a policy may look at in a "decode" or "chunk" step.

        Attention scores are shown rounded to float16 (3 significant digits; below float16's smallest
        normal, 6e-5, they tie at its spacing): scores that differ by float noise alone (the same keys
        seen by a row alone and in a padded batch, whose matrix products round differently) then tie
        exactly, and a tie goes to the oldest token whatever the batch, as for knorm's key norms.
        """
        attention = self.attention
        if phase == "decode" and self.newest is not None:
            attention = self.newest
        elif attention is not None and self.attention_count is not None:
            attention = attention / self.attention_count.clamp(min=1.0)
        if attention is not None:
            attention = attention.half().float()
        return SlotView(self.token_index, self.valid, self.token_ids, self.statistic, attention, phase)

    def time_order(self, *, empty_first: bool) -> torch.Tensor:
        """(batch, slots) slot indices of each row sorted by token index, empty slots first or last.

        Empty slots are told by `valid` (a slot emptied by an ordered eviction keeps a stale index).
        """
        fill = -1 if empty_first else torch.iinfo(torch.long).max
        key = torch.where(self.valid, self.token_index, torch.full_like(self.token_index, fill))
        return key.argsort(dim=1, stable=True)

    def store(
        self,
        rows: torch.Tensor,
        slots: torch.Tensor,
        token_index: torch.Tensor,
        token_ids: torch.Tensor,
    ) -> None:
        """Mark `slots[i]` of row `rows[i]` as holding the token with that index and id."""
        self.valid[rows, slots] = True
        self.token_index[rows, slots] = token_index
        self.token_ids[rows, slots] = token_ids

    def vacate(self, slot: torch.Tensor, rows: torch.Tensor) -> None:
        """Mark slot `slot[b]` empty in every row where `rows[b]` (both (batch,) device tensors).

        Only `valid` changes (without reading anything on the host): the slot's other entries are
        stale until the token written there next replaces them.
        """
        index = slot[:, None]
        self.valid.scatter_(1, index, self.valid.gather(1, index) & ~rows[:, None])

    def clear(self, rows: torch.Tensor, slots: torch.Tensor) -> None:
        """Empty `slots[i]` of row `rows[i]`."""
        self.valid[rows, slots] = False
        self.token_index[rows, slots] = -1
        self.token_ids[rows, slots] = -1

    def set_positions(self, rows: torch.Tensor, slots: torch.Tensor, positions: torch.Tensor) -> None:
        """Slot `slots[i]` of row `rows[i]` now holds a key encoded at `positions[i]`."""
        self.positions[rows, slots] = positions

    def shift_positions(self, delta: torch.Tensor, start: int = 0) -> None:
        """Every slot from `start` on of row b moved by `delta[b]` positions (a rebase)."""
        self.positions[:, start:] += delta[:, None]

    def place_first(self, positions: torch.Tensor) -> None:
        """The first `positions.shape[1]` slots of each row (its sinks) are at `positions` (batch, n)."""
        self.positions[:, : positions.shape[1]] = positions

    def replace_positions(self, positions: torch.Tensor) -> torch.Tensor:
        """Every slot's position replaced by `positions` (batch, slots); returns the change per slot."""
        delta = positions - self.positions
        self.positions.copy_(positions)
        return delta

    def _tensors(self) -> list[str]:
        return [f.name for f in fields(self) if getattr(self, f.name) is not None]

    def gather_(self, permute: torch.Tensor) -> None:
        """Reorder the slots of every row, in place: slot j takes what slot `permute[b, j]` held."""
        for name in self._tensors():
            tensor = getattr(self, name)
            tensor.copy_(tensor.gather(1, permute))

    def load_row_(self, row: int, source: KeptSet, source_row: int) -> None:
        """Row `row` becomes a copy of `source`'s row `source_row` (a kept set of the same policy)."""
        for name in self._tensors():
            getattr(self, name)[row] = getattr(source, name)[source_row]

    def select_(self, index: torch.Tensor) -> None:
        """Replace the rows by rows `index` (batch_new,); in place (the same addresses) when the number of
        rows stays."""
        for name in self._tensors():
            tensor = getattr(self, name)
            if index.numel() == tensor.shape[0]:
                tensor.copy_(tensor.index_select(0, index))
            else:
                setattr(self, name, tensor.index_select(0, index))

    def tensors(self) -> list[torch.Tensor]:
        """Every tensor of the kept set (a captured step reads them at their addresses)."""
        return [getattr(self, name) for name in self._tensors()]
