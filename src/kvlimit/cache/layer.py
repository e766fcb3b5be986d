"""One attention layer's bounded storage: its keys and values, written in place as the plan says.

Contract: `BoundedLayer` is a transformers cache layer. Before each forward the cache hands every
bounded layer the step's `StepPlan` (`begin`); the model's attention then calls `update` with the
new keys and values, and the layer writes them into its slots and returns the keys and values this
step attends to: `kv_length` of them, as `get_mask_sizes` says (transformers' invariant). Storage
is `(batch, kv_heads, slots, head_dim)`, allocated once at the first update. Positions are not
this layer's business: `kvlimit.positions` rotates or rewrites the stored keys between steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..integrations.hf import CacheLayerMixin
from .plan import GroupWrites, StepPlan

#: A per-layer policy's `token_statistic`: (batch, kv_heads, q, head_dim) keys -> (batch, q).
Statistic = Callable[[torch.Tensor], torch.Tensor]


class BoundedLayer(CacheLayerMixin):
    """The keys and values of one bounded attention layer (see the module docstring).

    Args:
        layer_idx: the model layer this is.
        slots: slots per row.
        group: the slot group whose bookkeeping describes these slots.
        statistic: the per-layer policy's `token_statistic`, or None.
    """

    is_compileable = False
    is_sliding = False
    is_croppable = False

    def __init__(self, layer_idx: int, slots: int, group: int = 0, statistic: Statistic | None = None):
        super().__init__()
        self.layer_idx = layer_idx
        self.slots = slots
        self.group = group
        self.statistic = statistic
        self.plan: StepPlan | None = None
        self.columns = 0  # columns this layer has taken (real tokens and padding), as DynamicLayer counts
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    # --- transformers layer API -------------------------------------------------------------
    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        batch, heads, _, head_dim = key_states.shape
        self.device = key_states.device
        self.keys = key_states.new_zeros((batch, heads, self.slots, head_dim))
        self.values = value_states.new_zeros(
            (batch, value_states.shape[1], self.slots, value_states.shape[-1])
        )
        self.is_initialized = True

    def begin(self, plan: StepPlan) -> None:
        """Take the plan of the coming forward."""
        self.plan = plan

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Store the new keys/values and return the keys/values this step attends to.

        key_states: (batch, kv_heads, q, head_dim). Returns keys of length `get_mask_sizes(q)[0]`.
        """
        plan = self._plan_for(key_states.shape[-2])
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        writes = plan.groups[self.group]
        if writes.permute is not None:
            self.permute_slots(writes.permute)
        if plan.kind == "decode":
            keys, values = self._decode(plan, writes, key_states, value_states)
        else:
            keys, values = self._chunk(plan, writes, key_states, value_states)
        self.columns += plan.q
        return keys, values

    def _decode(
        self, plan: StepPlan, writes: GroupWrites, key_states: torch.Tensor, value_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        assert writes.slot is not None
        self.write_slot(writes.slot, key_states, value_states, first_index=plan.first_index)
        if self.statistic is not None and writes.statistic is not None:
            writes.statistic.scatter_(1, writes.slot[:, None], self.statistic(key_states).float())
        return self.stored(plan.kv_length)

    def _chunk(
        self, plan: StepPlan, writes: GroupWrites, key_states: torch.Tensor, value_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        keys, values = self.as_stored(plan, writes, key_states, value_states)
        if writes.shown is not None:
            stored_k, stored_v = self.gather_slots(writes.shown)
            keys = torch.cat((stored_k, key_states), dim=2)
            values = torch.cat((stored_v, value_states), dim=2)
        rows, cols, slots = plan.write_rows, plan.write_cols, writes.write_slots
        if rows is not None and cols is not None and slots is not None and rows.numel() > 0:
            self.store(rows, slots, key_states[rows, :, cols], value_states[rows, :, cols])
            if self.statistic is not None and writes.statistic is not None:
                writes.statistic[rows, slots] = self.statistic(key_states).float()[rows, cols]
        return keys, values

    def _plan_for(self, query_length: int) -> StepPlan:
        plan = self.plan
        if plan is None or plan.q != query_length:
            raise RuntimeError(
                "BoundedCache needs a plan for every forward: call cache.prepare_step(input_ids, attention_mask) "
                "before model(...), pass the returned position_ids and attention_mask, and call "
                "cache.advance() after it (kvlimit.forward_step and kvlimit.generate do all three)"
            )
        return plan

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return self._plan_for(query_length).kv_length, 0

    def get_seq_length(self) -> int:
        return self.columns

    def get_max_length(self) -> int:
        return -1

    def reset(self) -> None:
        self.keys = self.values = None
        self.plan = None
        self.columns = 0
        self.is_initialized = False

    def crop(self, tokens_to_remove: int) -> None:
        raise NotImplementedError("a bounded cache cannot be rolled back: evicted tokens are gone")

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        raise RuntimeError("reorder through BoundedCache.reorder_cache, which moves every per-row state")

    def batch_repeat_interleave(self, repeats: int) -> None:
        raise RuntimeError("use BoundedCache.batch_repeat_interleave")

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        raise RuntimeError("use BoundedCache.batch_select_indices")

    # --- storage operations (the cache and the position keepers call these) --------------------
    # A subclass that stores keys differently (`QuantizedLayer`) overrides exactly these.
    def as_stored(
        self, plan: StepPlan, writes: GroupWrites, key_states: torch.Tensor, value_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A chunk's new keys and values as its own queries see them: as they will be stored.

        (A decode step's query reads its key back from storage.) The same in every chunking, so a
        row's results do not depend on how its prompt was split (which depends on its batch).
        """
        return key_states, value_states

    def write_slot(
        self,
        slot: torch.Tensor,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        *,
        first_index: int = 0,
    ) -> None:
        """Decode: write row b's one new key/value (batch, kv_heads, 1, head_dim) into slot `slot[b]`.

        `first_index`: the smallest token index among the new tokens (`StepPlan.first_index`)."""
        assert self.keys is not None and self.values is not None
        index = slot.view(-1, 1, 1, 1)
        self.keys.scatter_(2, index.expand_as(key_states), key_states)
        self.values.scatter_(2, index.expand_as(value_states), value_states)

    def stored(self, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys and values of slots `0..length-1` (all slots for None), in the model's dtype."""
        assert self.keys is not None and self.values is not None
        return self.keys[:, :, :length], self.values[:, :, :length]

    def gather_slots(self, slots: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys and values of slots `slots[b, i]` of row b, (batch, kv_heads, n, head_dim)."""
        keys, values = self.stored()
        index = slots[:, None, :, None]
        return (
            keys.gather(2, index.expand(-1, keys.shape[1], -1, keys.shape[-1])),
            values.gather(2, index.expand(-1, values.shape[1], -1, values.shape[-1])),
        )

    def store(
        self, rows: torch.Tensor, slots: torch.Tensor, keys: torch.Tensor, values: torch.Tensor
    ) -> None:
        """Write `keys[i]`/`values[i]` (kv_heads, head_dim) into slot `slots[i]` of row `rows[i]`."""
        assert self.keys is not None and self.values is not None
        self.keys[rows, :, slots] = keys.to(self.keys.dtype)
        self.values[rows, :, slots] = values.to(self.values.dtype)

    def transform_keys(self, move: Callable[[torch.Tensor], torch.Tensor], start: int = 0) -> None:
        """Replace the keys of slots `start..` by `move(keys)` (a rotation), in place."""
        assert self.keys is not None
        self.keys[:, :, start:] = move(self.keys[:, :, start:])

    def permute_slots(self, permute: torch.Tensor) -> None:
        """Slot j of row b takes what slot `permute[b, j]` held (in place: views of the keys stay valid)."""
        assert self.keys is not None and self.values is not None
        index = permute[:, None, :, None]
        self.keys.copy_(self.keys.gather(2, index.expand_as(self.keys)))
        self.values.copy_(self.values.gather(2, index.expand_as(self.values)))

    def select_rows(self, index: torch.Tensor, *, in_place: bool) -> None:
        """Keep rows `index`; `in_place` (same batch size) keeps the tensors, and so any view of them."""
        if not self.is_initialized:
            return
        assert self.keys is not None and self.values is not None
        if in_place:
            self.keys.copy_(self.keys.index_select(0, index))
            self.values.copy_(self.values.index_select(0, index))
        else:
            self.keys = self.keys.index_select(0, index)
            self.values = self.values.index_select(0, index)

    def nbytes(self) -> int:
        """Bytes of the allocated keys and values."""
        return sum(t.numel() * t.element_size() for t in (self.keys, self.values) if t is not None)
