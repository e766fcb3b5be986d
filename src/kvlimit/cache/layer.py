"""One attention layer of a bounded cache, as transformers sees it: the step's plan carried out.

Contract: `BoundedLayer` is a transformers cache layer that holds no keys of its own: its keys and
values live in the cache's `KVStore`. Before each forward the cache hands every bounded layer the
step's `StepPlan` (`begin`); the model's attention then calls `update` with the new keys and values,
and the layer writes them into the slots the plan names (through the store) and returns the keys
and values this step attends to: `kv_length` of them, as `get_mask_sizes` says (transformers'
invariant). A per-layer policy's statistic of each new key is written beside its slot. Positions
are not this layer's business: `kvlimit.positions` moves stored keys between steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..integrations.hf import CacheLayerMixin
from .plan import SetWrites, StepPlan
from .store import KVStore, Placement

#: A per-layer policy's `token_statistic`: (batch, kv_heads, q, head_dim) keys -> (batch, q).
Statistic = Callable[[torch.Tensor], torch.Tensor]


class BoundedLayer(CacheLayerMixin):
    """One bounded attention layer (see the module docstring).

    Args:
        layer_idx: the model layer this is.
        store: where its keys and values live.
        kept_set: the index of the kept set whose bookkeeping describes its slots.
        statistic: the per-layer policy's `token_statistic`, or None.
    """

    is_compileable = False
    is_sliding = False
    is_croppable = False

    def __init__(self, layer_idx: int, store: KVStore, kept_set: int = 0, statistic: Statistic | None = None):
        # CacheLayerMixin.__init__ would set keys/values attributes: this layer's are the store's
        self.layer_idx = layer_idx
        self.store = store
        self.kept_set = kept_set
        self.statistic = statistic
        self.plan: StepPlan | None = None
        self.columns = 0  # columns this layer has taken (real tokens and padding), as DynamicLayer counts
        #: the plan whose keys `update` stored last; the cache counts the columns when it advances, so that
        #: a compiled forward reads no host counter that changes every step (it would recompile)
        self.stored: StepPlan | None = None
        #: keep the keys `update` returns until `attended_keys` takes them (an attention tap that sees
        #: the queries but not the keys: a family's own sdpa code)
        self.keep_attended = False
        self._attended: torch.Tensor | None = None

    # --- what transformers reads --------------------------------------------------------------
    @property
    def is_initialized(self) -> bool:  # type: ignore[override]
        return self.store.has(self.layer_idx)

    @property
    def slots(self) -> int:
        return self.store.slots

    @property
    def keys(self) -> torch.Tensor | None:  # type: ignore[override]
        """Every slot's key (batch, kv_heads, slots, head_dim) in the model's dtype (a quantized store
        dequantizes a copy); None before the first write."""
        return self.store.read(self.layer_idx)[0] if self.is_initialized else None

    @property
    def values(self) -> torch.Tensor | None:  # type: ignore[override]
        return self.store.read(self.layer_idx)[1] if self.is_initialized else None

    @property
    def device(self) -> torch.device | None:
        keys = self.keys
        return None if keys is None else keys.device

    # --- transformers layer API -------------------------------------------------------------
    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        self.store.allocate(self.layer_idx, key_states, value_states)

    def begin(self, plan: StepPlan) -> None:
        """Take the plan of the coming forward."""
        self.plan = plan

    def commit(self, plan: StepPlan) -> bool:
        """Close the step of `plan`: count its columns if `update` stored its keys; False if it did not."""
        if self.stored is not plan:
            return False
        self.columns += plan.q
        self.stored = None
        return True

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Store the new keys/values and return the keys/values this step attends to.

        key_states: (batch, kv_heads, q, head_dim). Returns keys of length `get_mask_sizes(q)[0]`.
        """
        plan = self._plan_for(key_states.shape[-2])
        self.lazy_initialization(key_states, value_states)
        writes = plan.writes[self.kept_set]
        if writes.permute is not None:
            self.store.permute_slots(self.layer_idx, writes.permute)
        if plan.kind == "decode":
            keys, values = self._decode(plan, writes, key_states, value_states)
        else:
            keys, values = self._chunk(plan, writes, key_states, value_states)
        self.stored = plan
        if self.keep_attended:
            self._attended = keys
        return keys, values

    def attended_keys(self) -> torch.Tensor:
        """The keys the last `update` returned (batch, kv_heads, kv_length, head_dim), handed over once."""
        keys, self._attended = self._attended, None
        if keys is None:
            raise RuntimeError(f"layer {self.layer_idx} kept no attended keys (keep_attended is off)")
        return keys

    def _decode(
        self, plan: StepPlan, writes: SetWrites, key_states: torch.Tensor, value_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        assert writes.slot is not None
        self.store.write_token(
            self.layer_idx, writes.slot, key_states, value_states, first_index=plan.first_index
        )
        if self.statistic is not None and writes.statistic is not None:
            writes.statistic.scatter_(1, writes.slot[:, None], self.statistic(key_states).float())
        return self.store.read(self.layer_idx, plan.kv_length)

    def _chunk(
        self, plan: StepPlan, writes: SetWrites, key_states: torch.Tensor, value_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        rows, cols, slots = plan.write_rows, plan.write_cols, writes.write_slots
        placed = None if rows is None or cols is None or slots is None else Placement(rows, cols, slots)
        keys, values = self.store.as_stored(self.layer_idx, key_states, value_states, placed)
        if plan.recall_columns:  # zeros the attention's recall fills in (`BoundedCache.fill_recall`)
            keys = torch.cat(
                (keys.new_zeros((*keys.shape[:2], plan.recall_columns, keys.shape[-1])), keys), dim=2
            )
            values = torch.cat(
                (values.new_zeros((*values.shape[:2], plan.recall_columns, values.shape[-1])), values), dim=2
            )
        if writes.shown is not None:
            stored_k, stored_v = self.store.gather(self.layer_idx, writes.shown)
            keys = torch.cat((stored_k, keys), dim=2)
            values = torch.cat((stored_v, values), dim=2)
        if placed is not None and placed.rows.numel() > 0:
            new_keys = key_states[placed.rows, :, placed.cols]
            self.store.write(
                self.layer_idx, placed.rows, placed.slots, new_keys, value_states[placed.rows, :, placed.cols]
            )
            if self.statistic is not None and writes.statistic is not None:
                writes.statistic[placed.rows, placed.slots] = self.statistic(key_states).float()[
                    placed.rows, placed.cols
                ]
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
        self.plan = None
        self.stored = None
        self.columns = 0

    def crop(self, tokens_to_remove: int) -> None:
        raise NotImplementedError("a bounded cache cannot be rolled back: evicted tokens are gone")

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        raise RuntimeError("reorder through BoundedCache.reorder_cache, which moves every per-row state")

    def batch_repeat_interleave(self, repeats: int) -> None:
        raise RuntimeError("use BoundedCache.batch_repeat_interleave")

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        raise RuntimeError("use BoundedCache.batch_select_indices")

    def nbytes(self) -> int:
        """Bytes of this layer's keys and values as the store holds them."""
        return sum(t.numel() * t.element_size() for t in self.store.layer_tensors(self.layer_idx))
