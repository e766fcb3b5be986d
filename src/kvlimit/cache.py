"""BoundedCache: a transformers `Cache` that never holds more than `cache_limit` tokens per row.

Contract
--------
- Before every model forward, `prepare_step(input_ids, attention_mask)` plans the step: which
  stored tokens are evicted, which slot each new token takes, the position each new token gets and
  the 2D attention mask the model must use. It returns a `StepInputs` whose `position_ids` and
  `attention_mask` replace generate's own (they no longer line up with the cache once it evicts).
  `kvlimit.generate` does this for you; drive it yourself only for custom loops.
- In a decode step (one new real token per row) the new token attends to at most `cache_limit`
  keys, its own included, and afterwards the cache holds at most `cache_limit` tokens per row.
  A chunk of `q` tokens (prefill) first evicts down to `cache_limit - q` per row, so every query
  of the chunk also sees at most `cache_limit` keys; the chunk may be at most `cache_limit` minus
  the policy's protected tokens.
- Positions follow StreamingLLM: the kept tokens behave as if at in-cache positions 0..n-1 and the
  new token at n (RoPE and ALiBi exactly; learned absolute positions by re-encoding or clamping).
- Rows are independent: left padding is never stored, sinks are counted from each row's first
  real token, and every per-row state moves together in beam reorders.

Storage
-------
Each bounded layer owns keys/values of shape `(batch, kv_heads, slots, head_dim)`, allocated once
(`slots = min(cache_limit, longest possible sequence)`); a new token is written into its slot in
place. Per row and slot the cache keeps `valid`, `token_index` (the token's index in its row, -1
when empty) and `token_ids`. Two slot orders exist:

- "ring" (RoPE, learned absolute positions): a new token overwrites the evicted slot; slot order
  is not temporal order, which is harmless because positions are inside the keys.
- "ordered" (ALiBi): slots stay in temporal order (an eviction shifts the later slots left),
  because ALiBi models read distances from the column order of the mask.

RoPE keys keep the rotation of their absolute position, and the query uses its absolute position;
distances inside the recent window are then already the in-cache ones. Only the sink keys are
moved each step (rotated from a pristine copy, O(n_sink)), and now and then every key is rebased
to in-cache positions (one O(limit) rotation) so that positions stay small and inside the range
where the model's frequencies are fixed.

Layers of a model's own sliding-window type are bounded by the same plan when `cache_limit` is
at most their window; when the window is smaller they keep transformers' own sliding layer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from .integrations.hf import Cache, CacheLayerMixin, DynamicSlidingWindowLayer
from .policies import EvictionPolicy, SlotView
from .positions.rope import RopeSpec

logger = logging.getLogger(__name__)

PositionKind = Literal["rope", "alibi", "absolute", "none"]
#: Position schemes whose keys carry their position inside (slot order does not matter).
_RING_KINDS = ("rope", "absolute", "none")


@dataclass
class StepInputs:
    """What the model forward of one step must be given.

    Attributes:
        position_ids: (batch, q) long, the positions of the new tokens (None for models without them).
        attention_mask: (batch, kv_length) long 2D mask over the keys the bounded layers return
            (stored slots, then the new tokens).
        kind: "decode" (one token per row, written in place) or "chunk".
        mask_all_kept: every column of `attention_mask` is a kept token in every row (known on the
            host, without reading the mask): a model that builds its causal mask from the cache's
            sizes may then be given no 2D mask at all, which spares transformers' mask code a
            host-device synchronisation (its all-ones check) in every decode step.
    """

    position_ids: torch.Tensor | None
    attention_mask: torch.Tensor
    kind: str
    mask_all_kept: bool = False


@dataclass
class _Plan:
    """The current step, shared by every bounded layer."""

    kind: Literal["decode", "chunk"]
    q: int
    kv_length: int
    # decode: the slot of each row's new token, (batch,) long, and its (batch, 1, 1, 1) view
    slot: torch.Tensor | None = None
    # ordered storage: a gather permutation (batch, slots) applied to K/V before writing
    permute: torch.Tensor | None = None
    # chunk: gather index of the stored keys shown to the chunk, right-aligned in temporal order
    stored_index: torch.Tensor | None = None
    # chunk: where each real new token goes
    write_rows: torch.Tensor | None = None
    write_cols: torch.Tensor | None = None
    write_slots: torch.Tensor | None = None
    # writes of sink tokens, which must also land in the pristine copy: (rows, cols, slots)
    sink_writes: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None
    layers_done: int = 0


@dataclass
class _KeyStack:
    """Keys of several layers in one tensor, so one rotation moves all their sinks."""

    layer_indices: list[int]
    keys: torch.Tensor  # (layers, batch, kv_heads, slots, head_dim)
    pristine: torch.Tensor  # (layers, batch, kv_heads, n_sink, head_dim): sinks as first written
    rope: RopeSpec


class BoundedLayer(CacheLayerMixin):
    """One attention layer's bounded storage. State and planning live in the parent `BoundedCache`."""

    is_compileable = False
    is_sliding = False
    is_croppable = False

    def __init__(self, parent: BoundedCache, layer_idx: int, rope: RopeSpec | None):
        super().__init__()
        self.parent = parent
        self.layer_idx = layer_idx
        self.rope = rope
        self.pristine: torch.Tensor | None = None  # (batch, kv_heads, n_sink, head_dim)
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    # --- transformers layer API -------------------------------------------------------------
    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        batch, heads, _, head_dim = key_states.shape
        slots = self.parent.slots
        self.device = key_states.device
        self.keys = key_states.new_zeros((batch, heads, slots, head_dim))
        self.values = value_states.new_zeros((batch, value_states.shape[1], slots, value_states.shape[-1]))
        n_sink = self.parent.n_protected
        if self.rope is not None and n_sink > 0:
            self.pristine = key_states.new_zeros((batch, heads, n_sink, head_dim))
        self.is_initialized = True

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Store the new keys/values and return the keys/values this step attends to.

        key_states: (batch, kv_heads, q, head_dim). Returns keys of length `get_mask_sizes(q)[0]`.
        """
        plan = self.parent.require_plan(key_states.shape[-2])
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        assert self.keys is not None and self.values is not None
        if plan.permute is not None:
            self._permute(plan.permute)
        if plan.kind == "decode":
            assert plan.slot is not None
            index = plan.slot.view(-1, 1, 1, 1)
            self.keys.scatter_(2, index.expand_as(key_states), key_states)
            self.values.scatter_(2, index.expand_as(value_states), value_states)
            keys, values = self.keys[:, :, : plan.kv_length], self.values[:, :, : plan.kv_length]
        else:
            keys, values = self._chunk(plan, key_states, value_states)
        if plan.sink_writes is not None and self.pristine is not None:
            rows, cols, slots = plan.sink_writes
            self.pristine[rows, :, slots] = key_states[rows, :, cols]
        self.parent.layer_finished(plan)
        return keys, values

    def _chunk(
        self, plan: _Plan, key_states: torch.Tensor, value_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        assert self.keys is not None and self.values is not None
        if plan.stored_index is not None:
            index = plan.stored_index[:, None, :, None]
            stored_k = self.keys.gather(2, index.expand(-1, self.keys.shape[1], -1, self.keys.shape[-1]))
            stored_v = self.values.gather(
                2, index.expand(-1, self.values.shape[1], -1, self.values.shape[-1])
            )
            keys = torch.cat((stored_k, key_states), dim=2)
            values = torch.cat((stored_v, value_states), dim=2)
        else:
            keys, values = key_states, value_states
        if plan.write_rows is not None and plan.write_rows.numel() > 0:
            rows, cols, slots = plan.write_rows, plan.write_cols, plan.write_slots
            self.keys[rows, :, slots] = key_states[rows, :, cols]
            self.values[rows, :, slots] = value_states[rows, :, cols]
        return keys, values

    def _permute(self, permute: torch.Tensor) -> None:
        assert self.keys is not None and self.values is not None
        index = permute[:, None, :, None]
        self.keys.copy_(self.keys.gather(2, index.expand_as(self.keys)))
        self.values.copy_(self.values.gather(2, index.expand_as(self.values)))

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        plan = self.parent.require_plan(query_length)
        return plan.kv_length, 0

    def get_seq_length(self) -> int:
        return self.parent.columns_seen

    def get_max_length(self) -> int:
        return -1

    def reset(self) -> None:
        self.keys = self.values = self.pristine = None
        self.is_initialized = False

    def crop(self, tokens_to_remove: int) -> None:
        raise NotImplementedError("a bounded cache cannot be rolled back: evicted tokens are gone")

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        raise RuntimeError("reorder through BoundedCache.reorder_cache, which moves every per-row state")

    def batch_repeat_interleave(self, repeats: int) -> None:
        raise RuntimeError("use BoundedCache.batch_repeat_interleave")

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        raise RuntimeError("use BoundedCache.batch_select_indices")


@dataclass
class LayerLayout:
    """How each model layer is cached. Built by `kvlimit.integrations.hf` from the model.

    Attributes:
        kinds: per layer, "bounded", "sliding" (transformers' own sliding layer, window smaller than
            the limit) or "none" (a layer without its own KV, e.g. KV sharing).
        sliding_windows: per layer, the model's sliding window or None.
        rope: per layer, the `RopeSpec` of its keys, or None.
        layer_types: per layer, the model's layer type name (for dict masks), e.g. "full_attention".
    """

    kinds: list[str]
    sliding_windows: list[int | None]
    rope: list[RopeSpec | None]
    layer_types: list[str] = field(default_factory=list)


class BoundedCache(Cache):
    """A KV cache holding at most `cache_limit` tokens per row. See the module docstring.

    Args:
        cache_limit: the most tokens a row may hold.
        policy: which tokens to evict.
        layout: per-layer kinds, windows and rope specs.
        position_kind: "rope", "alibi", "absolute" or "none".
        max_length: the longest sequence this cache will see (allocation is min(limit, max_length)).
        position_bound: positions must stay below this (table size, or rope range); None = unbounded.
        absolute_mode: for learned absolute positions, "reencode" or "clamp".
        rebase_after: RoPE keys are rebased to in-cache positions when a position reaches this.
    """

    #: Per-slot state that moves with the keys (in permutes and row selections).
    _ROW_STATE = ("valid", "token_index", "token_ids", "positions")

    def __init__(
        self,
        cache_limit: int,
        policy: EvictionPolicy,
        layout: LayerLayout,
        *,
        position_kind: PositionKind = "rope",
        max_length: int | None = None,
        position_bound: int | None = None,
        absolute_mode: str = "reencode",
        rebase_after: int | None = None,
    ):
        if policy.per_layer:
            raise NotImplementedError(
                f"{policy.describe()} decides per layer; BoundedCache plans once per step"
            )
        policy.check_limit(cache_limit)
        if position_bound is not None and cache_limit > position_bound:
            raise ValueError(
                f"cache_limit={cache_limit} exceeds the {position_bound} positions this model can address; "
                f"use cache_limit <= {position_bound}"
            )
        layers: list[Any] = []
        self._bounded: dict[int, BoundedLayer] = {}
        self._sliding: dict[int, DynamicSlidingWindowLayer] = {}
        for idx, kind in enumerate(layout.kinds):
            if kind == "bounded":
                self._bounded[idx] = BoundedLayer(self, idx, layout.rope[idx])
                layers.append(self._bounded[idx])
            elif kind == "sliding":
                window = layout.sliding_windows[idx]
                assert window is not None
                self._sliding[idx] = DynamicSlidingWindowLayer(sliding_window=window)
                layers.append(self._sliding[idx])
            else:
                raise ValueError(f"unknown layer kind {kind!r}")
        super().__init__(layers=layers)
        self.cache_limit = cache_limit
        self.policy = policy
        self.layout = layout
        self.position_kind: PositionKind = position_kind
        self.storage = "ring" if position_kind in _RING_KINDS else "ordered"
        self.slots = cache_limit if max_length is None else max(1, min(cache_limit, max_length))
        self.n_protected = policy.protected_tokens
        self.position_bound = position_bound
        self.absolute_mode = absolute_mode
        self.rebase_after = rebase_after
        self.bounded_indices = [i for i, k in enumerate(layout.kinds) if k == "bounded"]
        self.sliding_indices = [i for i, k in enumerate(layout.kinds) if k == "sliding"]
        #: Runs a fresh forward over token ids to re-encode kept tokens (learned absolute positions).
        self.reencode_fn: (
            Callable[[torch.Tensor, torch.Tensor, torch.Tensor], list[tuple[torch.Tensor, torch.Tensor]]]
            | None
        ) = None
        #: The `ModelSpec` this cache was built for (set by `kvlimit.build_cache`).
        self.model_spec: Any = None
        self.stats = {"rebases": 0, "reencodes": 0, "evicted": 0}
        self._reset_rows()

    # --- row state ---------------------------------------------------------------------------
    def _reset_rows(self) -> None:
        self.batch_size_rows = 0
        self.valid: torch.Tensor | None = None  # (batch, slots) bool
        self.token_index: torch.Tensor | None = None  # (batch, slots) long, -1 when empty
        self.token_ids: torch.Tensor | None = None  # (batch, slots) long, -1 when empty
        self.positions: torch.Tensor | None = None  # (batch, slots) long, the position each key is encoded at
        self.n_kept: list[int] = []  # valid slots per row
        self.n_seen: list[int] = []  # real tokens seen per row (index of the next token)
        self.shift: list[int] = []  # position = token_index - shift
        self._dev_count: torch.Tensor | None = None  # (batch,) mirrors n_kept
        self._dev_seen: torch.Tensor | None = None  # (batch,) mirrors n_seen
        self._dev_shift: torch.Tensor | None = None  # (batch,) mirrors shift
        self.columns_seen = 0
        self._pending_columns = 0
        self._plan: _Plan | None = None
        self._stacks: list[_KeyStack] | None = None
        self._sink_delta: list[int] | None = None  # last applied rotation of the sinks, per row
        self._has_holes = False  # True once an eviction may have left an empty slot before a full one

    def _init_rows(self, batch: int, device: torch.device) -> None:
        self.batch_size_rows = batch
        self.valid = torch.zeros((batch, self.slots), dtype=torch.bool, device=device)
        self.token_index = torch.full((batch, self.slots), -1, dtype=torch.long, device=device)
        self.token_ids = torch.full((batch, self.slots), -1, dtype=torch.long, device=device)
        self.positions = torch.zeros((batch, self.slots), dtype=torch.long, device=device)
        self.n_kept = [0] * batch
        self.n_seen = [0] * batch
        self.shift = [0] * batch
        self._dev_count = torch.zeros(batch, dtype=torch.long, device=device)
        self._dev_seen = torch.zeros(batch, dtype=torch.long, device=device)
        self._dev_shift = torch.zeros(batch, dtype=torch.long, device=device)
        self._sink_delta = [0] * batch

    @property
    def device(self) -> torch.device | None:
        return None if self.valid is None else self.valid.device

    def _bounded_layers(self) -> list[BoundedLayer]:
        return list(self._bounded.values())

    # --- planning ----------------------------------------------------------------------------
    def require_plan(self, query_length: int) -> _Plan:
        plan = self._plan
        if plan is None or plan.q != query_length:
            raise RuntimeError(
                "BoundedCache needs a plan for every forward: call cache.prepare_step(input_ids, attention_mask) "
                "before model(...), and pass the returned position_ids and attention_mask "
                "(kvlimit.generate does this)"
            )
        return plan

    def layer_finished(self, plan: _Plan) -> None:
        plan.layers_done += 1
        if plan.layers_done == len(self.bounded_indices):
            self._commit_columns()

    def _commit_columns(self) -> None:
        self.columns_seen += self._pending_columns
        self._pending_columns = 0

    def prepare_step(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> StepInputs:
        """Plan the next forward over `input_ids` (batch, q) with mask columns `attention_mask` (batch, q).

        `attention_mask` holds only the new tokens' columns (1 = real token, 0 = padding); None means all
        real. Returns the position ids and attention mask the model must use for this forward.
        """
        if input_ids.ndim != 2:
            raise ValueError(f"input_ids must be (batch, tokens); got shape {tuple(input_ids.shape)}")
        batch, q = input_ids.shape
        if self._pending_columns:
            self._commit_columns()
        if self.valid is None:
            self._init_rows(batch, input_ids.device)
        elif batch != self.batch_size_rows:
            raise ValueError(f"this cache holds {self.batch_size_rows} rows but the step has {batch}")
        decode = q == 1 and self.columns_seen > 0 and attention_mask is None
        if decode and self.position_kind == "absolute" and self.absolute_mode == "reencode":
            self._maybe_reencode([1] * batch)
        if decode:
            if self._stacks is None and self.bounded_indices:
                self._build_stacks()
            step = self._plan_decode(input_ids)
        else:
            step = self._plan_chunk(input_ids, attention_mask)
        self._pending_columns = q
        return step

    def _next_positions_max(self, q: int) -> int:
        return (
            max((seen - shift for seen, shift in zip(self.n_seen, self.shift, strict=True)), default=0)
            + q
            - 1
        )

    def _plan_decode(self, input_ids: torch.Tensor) -> StepInputs:
        assert self.valid is not None and self.token_index is not None and self.token_ids is not None
        assert self._dev_count is not None and self._dev_seen is not None and self._dev_shift is not None
        full = [n >= self.slots for n in self.n_kept]
        any_full = any(full)
        # the kept count before this token's write, per row: a full row first evicts one
        kept_before = [n - 1 if f else n for n, f in zip(self.n_kept, full, strict=True)]
        if self.position_kind == "rope":
            self._maybe_rebase(1, kept_before)
        positions = self._finish_positions(self._dev_seen - self._dev_shift)
        permute = None
        if not any_full and not self._has_holes:
            slot = self._dev_count.clone()  # rows are still compact: the next slot is free
        elif self.storage == "ring":
            slot = self.policy.keep_scores(SlotView(self.token_index, self.valid)).argmin(dim=1)
        else:
            slot, permute = self._ordered_evict(full)
        if any_full:
            self.stats["evicted"] += sum(full)
            self._has_holes = self.storage == "ring" or self._has_holes
        rows = torch.arange(input_ids.shape[0], device=input_ids.device)
        self.valid[rows, slot] = True
        self.token_index[rows, slot] = self._dev_seen
        self.token_ids[rows, slot] = input_ids[:, 0]
        assert self.positions is not None
        self.positions[rows, slot] = positions
        sink_writes = None
        if self.n_protected and any(n < self.n_protected for n in kept_before):
            sink_rows = [b for b, n in enumerate(kept_before) if n < self.n_protected]
            idx = torch.tensor(sink_rows, device=input_ids.device)
            sink_writes = (
                idx,
                torch.zeros_like(idx),
                torch.tensor([kept_before[b] for b in sink_rows], device=idx.device),
            )
        if self.position_kind == "rope":
            self._rotate_sinks(
                [s - sh - k for s, sh, k in zip(self.n_seen, self.shift, kept_before, strict=True)]
            )
        for b in range(len(self.n_kept)):
            self.n_kept[b] = min(self.n_kept[b] + 1, self.slots)
            self.n_seen[b] += 1
        self._dev_count.add_(1).clamp_(max=self.slots)
        self._dev_seen.add_(1)
        # Rows fill slots 0..n-1 until they first evict; after that a row is full, or (a hole left by an
        # eviction outside decode) may hold a token in any slot: then show every slot.
        width = self.slots if self._has_holes else max(self.n_kept)
        self._plan = _Plan(
            kind="decode", q=1, kv_length=width, slot=slot, permute=permute, sink_writes=sink_writes
        )
        mask = self.valid[:, :width].long()
        # n_kept counts each row's valid slots, so a row holding `width` of them fills the mask's columns
        return StepInputs(positions[:, None], mask, "decode", mask_all_kept=min(self.n_kept) >= width)

    def _ordered_evict(self, full: list[bool]) -> tuple[torch.Tensor, torch.Tensor]:
        """Ordered storage: remove each full row's lowest-scoring slot by shifting later slots left."""
        assert self.valid is not None and self.token_index is not None and self.token_ids is not None
        assert self._dev_count is not None
        device = self.valid.device
        evict = self.policy.keep_scores(SlotView(self.token_index, self.valid)).argmin(dim=1)
        full_t = torch.tensor(full, device=device)
        evict = torch.where(full_t, evict, torch.full_like(evict, self.slots))
        j = torch.arange(self.slots, device=device)[None, :]
        permute = torch.where(j >= evict[:, None], j + 1, j).clamp_(max=self.slots - 1)
        for name in self._ROW_STATE:
            setattr(self, name, getattr(self, name).gather(1, permute))
        # the last slot of a full row is now a duplicate: empty it for the new token
        last = torch.full_like(evict, self.slots - 1)
        rows = torch.arange(len(full), device=device)
        self.valid[rows[full_t], last[full_t]] = False
        slot = torch.where(full_t, last, self._dev_count)
        return slot, permute

    def _plan_chunk(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None) -> StepInputs:
        assert self.valid is not None and self.token_index is not None and self.token_ids is not None
        device = input_ids.device
        batch, q = input_ids.shape
        real = (
            torch.ones((batch, q), dtype=torch.bool, device=device)
            if attention_mask is None
            else attention_mask.to(device=device).bool()
        )
        counts = real.sum(dim=1).tolist()
        if self.position_kind == "absolute" and self.absolute_mode == "reencode" and self.columns_seen > 0:
            self._maybe_reencode(counts)
        need = [max(0, kept + r - self.slots) for kept, r in zip(self.n_kept, counts, strict=True)]
        room = self.slots - self.n_protected
        if any(r > room for r, n in zip(counts, need, strict=True) if n > 0):
            raise ValueError(
                f"a chunk of {max(counts)} new tokens does not fit a cache of {self.slots} slots with "
                f"{self.n_protected} protected; feed at most {room} tokens per forward (prefill_chunk)"
            )
        permute = None
        if any(need):
            permute = self._evict_in_chunk(need)
        kept_after = [kept - n for kept, n in zip(self.n_kept, need, strict=True)]
        if self.position_kind == "rope":
            self._maybe_rebase(max(counts), kept_after)
        # stored keys shown to the chunk: right-aligned in temporal order (empty slots on the left)
        width = max(kept_after)
        stored_index = None
        stored_valid = real.new_zeros((batch, 0))
        if width > 0:
            order = torch.where(self.valid, self.token_index, torch.full_like(self.token_index, -1))
            stored_index = order.argsort(dim=1, stable=True)[:, self.slots - width :]
            stored_valid = self.valid.gather(1, stored_index)
        # where the chunk's real tokens go: the free slots, in slot order
        rank = real.long().cumsum(dim=1) - 1
        free_order = self.valid.to(torch.int8).argsort(dim=1, stable=True)
        write_rows, write_cols = real.nonzero(as_tuple=True)
        write_rank = rank[write_rows, write_cols]
        write_slots = free_order[write_rows, write_rank]
        seen = torch.tensor(self.n_seen, device=device)
        shift = torch.tensor(self.shift, device=device)
        self.valid[write_rows, write_slots] = True
        self.token_index[write_rows, write_slots] = seen[write_rows] + write_rank
        self.token_ids[write_rows, write_slots] = input_ids[write_rows, write_cols]
        sink_writes = None
        if self.n_protected and any(k < self.n_protected for k in kept_after):
            is_sink = write_slots < self.n_protected
            sink_writes = (write_rows[is_sink], write_cols[is_sink], write_slots[is_sink])
        if self.position_kind == "rope" and self.columns_seen > 0:
            self._rotate_sinks(
                [s - sh - k for s, sh, k in zip(self.n_seen, self.shift, kept_after, strict=True)]
            )
        positions = self._finish_positions(
            torch.where(real, seen[:, None] - shift[:, None] + rank, torch.zeros_like(rank))
        )
        assert self.positions is not None
        self.positions[write_rows, write_slots] = positions[write_rows, write_cols]
        for b, r in enumerate(counts):
            self.n_kept[b] = kept_after[b] + r
            self.n_seen[b] += r
        assert self._dev_count is not None and self._dev_seen is not None
        self._dev_count.copy_(torch.tensor(self.n_kept, device=device))
        self._dev_seen.copy_(seen + torch.tensor(counts, device=device))
        self._plan = _Plan(
            kind="chunk",
            q=q,
            kv_length=width + q,
            permute=permute,
            stored_index=stored_index,
            write_rows=write_rows,
            write_cols=write_cols,
            write_slots=write_slots,
            sink_writes=sink_writes,
        )
        mask = torch.cat((stored_valid, real), dim=1).long()
        return StepInputs(positions, mask, "chunk")

    def _evict_in_chunk(self, need: list[int]) -> torch.Tensor | None:
        """Evict `need[b]` lowest-scoring tokens from each row; ordered storage is compacted."""
        assert self.valid is not None and self.token_index is not None and self.token_ids is not None
        device = self.valid.device
        # empty slots are not evicted: they are the room already there
        scores = self.policy.keep_scores(SlotView(self.token_index, self.valid)).masked_fill(
            ~self.valid, float("inf")
        )
        most = max(need)
        lowest = scores.topk(most, dim=1, largest=False)
        take = torch.arange(most, device=device)[None, :] < torch.tensor(need, device=device)[:, None]
        rows, ranks = take.nonzero(as_tuple=True)
        slots = lowest.indices[rows, ranks]
        if not torch.isfinite(lowest.values[rows, ranks]).all():
            raise RuntimeError(
                "eviction reached a protected or empty slot; the chunk is too large for the cache"
            )
        self.valid[rows, slots] = False
        self.token_index[rows, slots] = -1
        self.token_ids[rows, slots] = -1
        self.stats["evicted"] += int(rows.numel())
        self._has_holes = self._has_holes or self.storage == "ring"
        if self.storage != "ordered":
            return None
        key = torch.where(
            self.valid, self.token_index, torch.full_like(self.token_index, torch.iinfo(torch.long).max)
        )
        permute = key.argsort(dim=1, stable=True)
        for name in self._ROW_STATE:
            setattr(self, name, getattr(self, name).gather(1, permute))
        return permute

    def _finish_positions(self, positions: torch.Tensor) -> torch.Tensor:
        if (
            self.position_kind == "absolute"
            and self.absolute_mode == "clamp"
            and self.position_bound is not None
        ):
            return positions.clamp(max=self.position_bound - 1)
        return positions

    # --- RoPE maintenance --------------------------------------------------------------------
    def _rope_layers(self) -> list[BoundedLayer]:
        return [layer for layer in self._bounded_layers() if layer.rope is not None and layer.is_initialized]

    def _build_stacks(self) -> None:
        """Gather the keys of bounded RoPE layers with sinks into stacks (once, after the first forward)."""
        self._stacks = []
        if not self.n_protected or self.position_kind != "rope":
            return
        groups: dict[tuple[Any, ...], list[BoundedLayer]] = {}
        for layer in self._rope_layers():
            assert layer.keys is not None and layer.rope is not None
            key = (tuple(layer.keys.shape), layer.keys.dtype, layer.keys.device, id(layer.rope))
            groups.setdefault(key, []).append(layer)
        for members in groups.values():
            if any(layer.keys is None or layer.pristine is None for layer in members):
                continue
            stack = torch.stack([layer.keys for layer in members])  # type: ignore[misc]
            pristine = torch.stack([layer.pristine for layer in members])  # type: ignore[misc]
            for i, layer in enumerate(members):
                layer.keys, layer.pristine = stack[i], pristine[i]
            rope = members[0].rope
            assert rope is not None
            self._stacks.append(_KeyStack([m.layer_idx for m in members], stack, pristine, rope))

    def _rotate_sinks(self, delta: list[int]) -> None:
        """Rotate each row's sink keys from their pristine copy by `delta[b]` positions."""
        # `_sink_delta` is the rotation the stored sink keys carry now; rebases leave sinks alone
        if not self.n_protected or self._sink_delta is None or delta == self._sink_delta:
            return
        self._sink_delta = list(delta)
        device = self.device
        assert device is not None and self.positions is not None
        n_rows = min(self.n_protected, self.slots)
        sink_positions = (
            torch.arange(n_rows, device=device)[None, :] + torch.tensor(delta, device=device)[:, None]
        )
        self.positions[:, :n_rows] = sink_positions
        assert device is not None
        delta_t = torch.tensor(delta, device=device)
        n = self.n_protected
        if self._stacks:
            for st in self._stacks:
                cos, sin = st.rope.cos_sin(delta_t, device)
                st.keys[:, :, :, :n] = st.rope.apply(
                    st.pristine, cos[None, :, None, None, :], sin[None, :, None, None, :]
                )
            stacked = {m for st in self._stacks for m in st.layer_indices}
        else:
            stacked = set()
        for layer in self._rope_layers():
            if layer.layer_idx in stacked or layer.pristine is None:
                continue
            assert layer.rope is not None and layer.keys is not None
            cos, sin = layer.rope.cos_sin(delta_t, device)
            layer.keys[:, :, :n] = layer.rope.apply(
                layer.pristine, cos[:, None, None, :], sin[:, None, None, :]
            )

    def _maybe_rebase(self, q: int, kept: Sequence[int] | None = None) -> None:
        """Move every RoPE key to in-cache positions when positions grow past `rebase_after`."""
        limit = self.rebase_after
        if limit is None or self._next_positions_max(q) < limit:
            return
        kept_now = list(self.n_kept if kept is None else kept)
        new_shift = [seen - k for seen, k in zip(self.n_seen, kept_now, strict=True)]
        delta = [old - new for old, new in zip(self.shift, new_shift, strict=True)]
        if all(d == 0 for d in delta):
            return
        self.rotate_all_keys(delta)
        assert self.positions is not None
        start = self.n_protected if self.n_protected else 0
        self.positions[:, start:] += torch.tensor(delta, device=self.positions.device)[:, None]
        self.shift = new_shift
        assert self._dev_shift is not None
        self._dev_shift.copy_(torch.tensor(new_shift, device=self._dev_shift.device))
        self.stats["rebases"] += 1
        logger.debug("rebased RoPE keys by %s positions", delta)

    def rotate_all_keys(self, delta: list[int]) -> None:
        """Rotate every stored RoPE key of row b by `delta[b]` positions (pristine sinks excluded)."""
        device = self.device
        assert device is not None
        delta_t = torch.tensor(delta, device=device)
        n = self.n_protected
        for layer in self._rope_layers():
            assert layer.keys is not None and layer.rope is not None
            cos, sin = layer.rope.cos_sin(delta_t, device)
            start = n if layer.pristine is not None else 0  # sinks are rotated from their pristine copy
            layer.keys[:, :, start:] = layer.rope.apply(
                layer.keys[:, :, start:], cos[:, None, None, :], sin[:, None, None, :]
            )
        for idx, sliding in self._sliding.items():
            rope = self.layout.rope[idx]
            if rope is None or sliding.keys is None or sliding.keys.numel() == 0:
                continue
            cos, sin = rope.cos_sin(delta_t, device)
            sliding.keys = rope.apply(sliding.keys, cos[:, None, None, :], sin[:, None, None, :])

    # --- learned absolute positions ----------------------------------------------------------
    def _maybe_reencode(self, incoming: list[int]) -> None:
        bound = self.position_bound
        if bound is None or self._next_positions_max(max(incoming)) < bound:
            return
        if self.reencode_fn is None:
            raise RuntimeError(
                "positions='reencode' needs BoundedCache.reencode_fn (set by kvlimit.generate)"
            )
        self.reencode(incoming)

    def reencode(self, incoming: list[int] | None = None) -> None:
        """Recompute the kept tokens' keys/values with a fresh forward at positions 0..n-1.

        Called when the next position would leave the model's table. Evicts first if the coming
        tokens (`incoming[b]` per row) need room, so the re-encoded window is what the next step keeps.
        """
        assert self.valid is not None and self.token_index is not None and self.token_ids is not None
        assert self.reencode_fn is not None
        coming = incoming if incoming is not None else [0] * self.batch_size_rows
        need = [max(0, kept + q - self.slots) for kept, q in zip(self.n_kept, coming, strict=True)]
        if any(need):
            self._evict_in_chunk(need)
            self.n_kept = [k - n for k, n in zip(self.n_kept, need, strict=True)]
            assert self._dev_count is not None
            self._dev_count.copy_(torch.tensor(self.n_kept, device=self._dev_count.device))
        width = max(self.n_kept)
        order = torch.where(self.valid, self.token_index, torch.full_like(self.token_index, -1))
        index = order.argsort(dim=1, stable=True)[:, self.slots - width :]
        ids = self.token_ids.gather(1, index).clamp(min=0)
        mask = self.valid.gather(1, index).long()
        positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
        per_layer = self.reencode_fn(ids, mask, positions)
        rows, cols = mask.bool().nonzero(as_tuple=True)
        slots = index[rows, cols]
        assert self.positions is not None
        self.positions[rows, slots] = positions[rows, cols]
        for layer in self._bounded_layers():
            keys, values = per_layer[layer.layer_idx]
            assert layer.keys is not None and layer.values is not None
            layer.keys[rows, :, slots] = keys[rows, :, cols].to(layer.keys.dtype)
            layer.values[rows, :, slots] = values[rows, :, cols].to(layer.values.dtype)
        self.shift = [seen - kept for seen, kept in zip(self.n_seen, self.n_kept, strict=True)]
        assert self._dev_shift is not None
        self._dev_shift.copy_(torch.tensor(self.shift, device=self._dev_shift.device))
        self.stats["reencodes"] += 1

    # --- transformers Cache API --------------------------------------------------------------
    def get_query_offset(self, layer_idx: int = 0) -> int:
        if layer_idx < len(self.layers) and isinstance(self.layers[layer_idx], BoundedLayer):
            plan = self._plan
            if plan is not None:
                return plan.kv_length - plan.q
        return super().get_query_offset(layer_idx)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        """Tokens seen (columns processed), as transformers' sliding-window layers report; see `stored_tokens`."""
        if layer_idx < len(self.layers) and isinstance(self.layers[layer_idx], BoundedLayer):
            return self.columns_seen
        return super().get_seq_length(layer_idx)

    def stored_tokens(self) -> list[int]:
        """How many tokens each row holds now."""
        return list(self.n_kept)

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        """Reorder every per-row state for beam search (rows of one batch item only move among themselves)."""
        if self.valid is None:
            return
        index = beam_idx.to(self.valid.device)
        self._select_rows(index, keep_host=True)

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self.valid is None:
            return
        index = torch.arange(self.batch_size_rows, device=self.valid.device).repeat_interleave(repeats)
        self._select_rows(index, keep_host=False)

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.valid is None:
            return
        self._select_rows(indices.to(self.valid.device), keep_host=False)

    def _select_rows(self, index: torch.Tensor, *, keep_host: bool) -> None:
        """Replace every per-row state by the rows `index` (batch_new,)."""
        assert self.valid is not None and self.token_index is not None and self.token_ids is not None
        for name in self._ROW_STATE:
            setattr(self, name, getattr(self, name).index_select(0, index))
        if not keep_host:
            host = index.tolist()
            self.n_kept = [self.n_kept[i] for i in host]
            self.n_seen = [self.n_seen[i] for i in host]
            self.shift = [self.shift[i] for i in host]
            if self._sink_delta is not None:
                self._sink_delta = [self._sink_delta[i] for i in host]
            self.batch_size_rows = len(host)
        assert self._dev_count is not None and self._dev_seen is not None and self._dev_shift is not None
        self._dev_count = self._dev_count.index_select(0, index)
        self._dev_seen = self._dev_seen.index_select(0, index)
        self._dev_shift = self._dev_shift.index_select(0, index)
        stacked: set[int] = set()
        if self._stacks:
            for st in self._stacks:
                if keep_host:  # the same rows, permuted: in place, so the layers' views stay valid
                    st.keys.copy_(st.keys.index_select(1, index))
                    st.pristine.copy_(st.pristine.index_select(1, index))
                else:
                    st.keys = st.keys.index_select(1, index)
                    st.pristine = st.pristine.index_select(1, index)
                    for i, m in enumerate(st.layer_indices):
                        self._bounded[m].keys, self._bounded[m].pristine = st.keys[i], st.pristine[i]
                stacked.update(st.layer_indices)
        for layer in self._bounded_layers():
            if not layer.is_initialized:
                continue
            assert layer.keys is not None and layer.values is not None
            if layer.layer_idx not in stacked:
                layer.keys = layer.keys.index_select(0, index)
                if layer.pristine is not None:
                    layer.pristine = layer.pristine.index_select(0, index)
            layer.values = layer.values.index_select(0, index)
        for sliding in self._sliding.values():
            if sliding.keys is not None and sliding.values is not None and sliding.keys.numel() > 0:
                sliding.keys = sliding.keys.index_select(0, index)
                sliding.values = sliding.values.index_select(0, index)

    def reset(self) -> None:
        for layer in self.layers:
            layer.reset()
        self._reset_rows()

    def crop(self, tokens_to_remove: int) -> None:
        raise NotImplementedError("a bounded cache cannot be rolled back: evicted tokens are gone")

    @property
    def is_compileable(self) -> bool:
        return False

    # --- inspection --------------------------------------------------------------------------
    def kept_token_ids(self, row: int) -> list[int]:
        """The token ids row `row` holds, in temporal order."""
        assert self.valid is not None and self.token_index is not None and self.token_ids is not None
        valid = self.valid[row]
        order = self.token_index[row][valid].argsort()
        return self.token_ids[row][valid][order].tolist()

    def kept_positions(self, row: int) -> list[int]:
        """The position each key of row `row` is encoded at (RoPE angle or learned table row), in order."""
        assert self.valid is not None and self.token_index is not None and self.positions is not None
        valid = self.valid[row]
        order = self.token_index[row][valid].argsort()
        return self.positions[row][valid][order].tolist()

    def kept_token_indices(self, row: int) -> list[int]:
        """Indices (in the row's sequence of real tokens) of the tokens row `row` holds, in order."""
        assert self.valid is not None and self.token_index is not None
        return sorted(self.token_index[row][self.valid[row]].tolist())

    def nbytes(self) -> int:
        """Bytes held by keys and values (all layers, all rows), allocated storage included."""
        total = 0
        for layer in self.layers:
            for tensor in (getattr(layer, "keys", None), getattr(layer, "values", None)):
                if isinstance(tensor, torch.Tensor):
                    total += tensor.numel() * tensor.element_size()
        return total
