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

Per-layer policies
------------------
A policy with `per_layer = True` (e.g. `knorm`) keeps its own tokens in every bounded layer: the
per-slot state above exists once per layer (a "slot group"; positional policies have one group
for all layers), each layer evicts by its own scores, and the policy's `token_statistic` of each
stored key is kept beside its slot. Every layer of a row holds the same number of tokens (each
evicts exactly what the step needs), so one attention mask serves all layers. Positions: RoPE keys
stay where they were written (no sink rotation, since the kept tokens are not one contiguous run)
and once a row's next position reaches `rebase_after`, that row's keys are re-rotated, in every
layer, to in-cache positions 0..n-1 by their rank (rows are ranked on their own, so a row's results
never depend on its batch), so a key's distance to the query stays below `rebase_after`; ALiBi models read
in-cache distances from the column order as always; learned absolute positions are clamped (a
re-encode cannot reproduce a different kept set in every layer).
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
class _SlotState:
    """Per-row, per-slot bookkeeping of one slot group (the layers that keep the same tokens).

    Every tensor is (batch, slots). `statistic` exists for per-layer policies only.
    """

    valid: torch.Tensor  # bool, True where a slot holds a token
    token_index: torch.Tensor  # long, the token's index in its row, -1 when empty
    token_ids: torch.Tensor  # long, -1 when empty
    positions: torch.Tensor  # long, the position each key is encoded at
    statistic: torch.Tensor | None = None  # float32, the policy's `token_statistic` of the stored key

    @classmethod
    def empty(cls, batch: int, slots: int, device: torch.device, with_statistic: bool) -> _SlotState:
        return cls(
            valid=torch.zeros((batch, slots), dtype=torch.bool, device=device),
            token_index=torch.full((batch, slots), -1, dtype=torch.long, device=device),
            token_ids=torch.full((batch, slots), -1, dtype=torch.long, device=device),
            positions=torch.zeros((batch, slots), dtype=torch.long, device=device),
            statistic=torch.zeros((batch, slots), dtype=torch.float32, device=device)
            if with_statistic
            else None,
        )

    def view(self) -> SlotView:
        return SlotView(self.token_index, self.valid, self.token_ids, self.statistic)

    def time_order(self, *, empty_first: bool) -> torch.Tensor:
        """(batch, slots) slot indices of each row sorted by token index, empty slots first or last.

        Empty slots are told by `valid` (a slot emptied by an ordered eviction keeps a stale index).
        """
        fill = -1 if empty_first else torch.iinfo(torch.long).max
        key = torch.where(self.valid, self.token_index, torch.full_like(self.token_index, fill))
        return key.argsort(dim=1, stable=True)

    def _names(self) -> tuple[str, ...]:
        names = ("valid", "token_index", "token_ids", "positions")
        return (*names, "statistic") if self.statistic is not None else names

    def gather_(self, permute: torch.Tensor) -> None:
        """Reorder the slots of every row: slot j takes what slot `permute[b, j]` held."""
        for name in self._names():
            setattr(self, name, getattr(self, name).gather(1, permute))

    def select_(self, index: torch.Tensor) -> None:
        """Replace the rows by rows `index` (batch_new,)."""
        for name in self._names():
            setattr(self, name, getattr(self, name).index_select(0, index))


@dataclass
class _Plan:
    """The current step, shared by every bounded layer. Per-group entries are lists indexed by group."""

    kind: Literal["decode", "chunk"]
    q: int
    kv_length: int
    # decode: per group, the slot of each row's new token, (batch,) long
    slot: list[torch.Tensor] | None = None
    # ordered storage: per group, a gather permutation (batch, slots) applied to K/V before writing
    permute: list[torch.Tensor] | None = None
    # chunk: per group, gather index of the stored keys shown to the chunk, right-aligned in temporal order
    stored_index: list[torch.Tensor] | None = None
    # chunk: where each real new token goes (rows and chunk columns shared, slots per group)
    write_rows: torch.Tensor | None = None
    write_cols: torch.Tensor | None = None
    write_slots: list[torch.Tensor] | None = None
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

    def __init__(self, parent: BoundedCache, layer_idx: int, rope: RopeSpec | None, group: int = 0):
        super().__init__()
        self.parent = parent
        self.layer_idx = layer_idx
        self.rope = rope
        self.group = group  # the slot group whose bookkeeping describes this layer's slots
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
        if self.rope is not None and n_sink > 0 and self.parent.sink_rotation:
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
        g = self.group
        if plan.permute is not None:
            self._permute(plan.permute[g])
        statistic = self.parent.slot_groups[g].statistic
        if plan.kind == "decode":
            assert plan.slot is not None
            slot = plan.slot[g]
            index = slot.view(-1, 1, 1, 1)
            self.keys.scatter_(2, index.expand_as(key_states), key_states)
            self.values.scatter_(2, index.expand_as(value_states), value_states)
            keys, values = self.keys[:, :, : plan.kv_length], self.values[:, :, : plan.kv_length]
            if statistic is not None:
                statistic.scatter_(1, slot[:, None], self.parent.policy.token_statistic(key_states).float())
        else:
            keys, values = self._chunk(plan, key_states, value_states)
            if statistic is not None and plan.write_rows is not None and plan.write_slots is not None:
                new = self.parent.policy.token_statistic(key_states).float()
                statistic[plan.write_rows, plan.write_slots[g]] = new[plan.write_rows, plan.write_cols]
        if plan.sink_writes is not None and self.pristine is not None:
            rows, cols, slots = plan.sink_writes
            self.pristine[rows, :, slots] = key_states[rows, :, cols]
        self.parent.layer_finished(plan)
        return keys, values

    def _chunk(
        self, plan: _Plan, key_states: torch.Tensor, value_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        assert self.keys is not None and self.values is not None
        g = self.group
        if plan.stored_index is not None:
            index = plan.stored_index[g][:, None, :, None]
            stored_k = self.keys.gather(2, index.expand(-1, self.keys.shape[1], -1, self.keys.shape[-1]))
            stored_v = self.values.gather(
                2, index.expand(-1, self.values.shape[1], -1, self.values.shape[-1])
            )
            keys = torch.cat((stored_k, key_states), dim=2)
            values = torch.cat((stored_v, value_states), dim=2)
        else:
            keys, values = key_states, value_states
        if plan.write_rows is not None and plan.write_slots is not None and plan.write_rows.numel() > 0:
            rows, cols, slots = plan.write_rows, plan.write_cols, plan.write_slots[g]
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
        policy.check_limit(cache_limit)
        if policy.per_layer and position_kind == "absolute" and absolute_mode == "reencode":
            raise ValueError(
                f"{policy.describe()} keeps different tokens in each layer, which re-encoding (one fresh "
                f"forward over one kept window) cannot reproduce; use positions='clamp' with this model"
            )
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
                group = len(self._bounded) if policy.per_layer else 0
                self._bounded[idx] = BoundedLayer(self, idx, layout.rope[idx], group)
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
        self.per_layer = policy.per_layer
        #: slot groups: one for every layer (positional policies) or one per bounded layer
        self.n_groups = max(1, len(self._bounded)) if policy.per_layer else 1
        #: RoPE sinks are re-rotated each step to sit just before the recent window (positional
        #: policies, whose kept tokens are sinks + one contiguous run); per-layer policies rank instead
        self.sink_rotation = position_kind == "rope" and not policy.per_layer
        self.storage = "ring" if position_kind in _RING_KINDS else "ordered"
        self.slots = cache_limit if max_length is None else max(1, min(cache_limit, max_length))
        self.n_protected = policy.protected_tokens
        self.position_bound = position_bound
        self.absolute_mode = absolute_mode
        self.rebase_after = rebase_after
        self.bounded_indices = [i for i, k in enumerate(layout.kinds) if k == "bounded"]
        self.sliding_indices = [i for i, k in enumerate(layout.kinds) if k == "sliding"]
        #: columns transformers' own sliding layers can still see (their largest window)
        self._sliding_reach = max((layout.sliding_windows[i] or 0 for i in self._sliding), default=0)
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
        self.slot_groups: list[_SlotState] = []  # per slot group (see the module docstring)
        self.n_kept: list[int] = []  # valid slots per row
        self.n_seen: list[int] = []  # real tokens seen per row (index of the next token)
        self.shift: list[int] = []  # position = token_index - shift
        self._dev_count: torch.Tensor | None = None  # (batch,) mirrors n_kept
        self._dev_seen: torch.Tensor | None = None  # (batch,) mirrors n_seen
        self._dev_shift: torch.Tensor | None = None  # (batch,) mirrors shift
        self.columns_seen = 0
        self._pending_columns = 0
        self._column_tail: torch.Tensor | None = None  # (batch, <= window) realness of the last columns
        self._plan: _Plan | None = None
        self._stacks: list[_KeyStack] | None = None
        self._sink_delta: list[int] | None = None  # last applied rotation of the sinks, per row
        self._has_holes = False  # True once an eviction may have left an empty slot before a full one

    def _init_rows(self, batch: int, device: torch.device) -> None:
        self.batch_size_rows = batch
        self.slot_groups = [
            _SlotState.empty(batch, self.slots, device, with_statistic=self.per_layer)
            for _ in range(self.n_groups)
        ]
        self.n_kept = [0] * batch
        self.n_seen = [0] * batch
        self.shift = [0] * batch
        self._dev_count = torch.zeros(batch, dtype=torch.long, device=device)
        self._dev_seen = torch.zeros(batch, dtype=torch.long, device=device)
        self._dev_shift = torch.zeros(batch, dtype=torch.long, device=device)
        self._sink_delta = [0] * batch

    # Every slot group holds the same number of tokens per row in the same slots, so the first
    # group's validity is every group's (per-layer state: `slot_groups`, `kept_*(row, layer=...)`).
    @property
    def valid(self) -> torch.Tensor | None:
        """(batch, slots) bool, True where a slot holds a token (every group agrees on the counts)."""
        return self.slot_groups[0].valid if self.slot_groups else None

    def _group_of(self, layer_idx: int | None) -> _SlotState:
        if layer_idx is None:
            return self.slot_groups[0]
        if layer_idx not in self._bounded:
            raise ValueError(
                f"layer {layer_idx} is not a bounded layer of this cache; bounded layers: {self.bounded_indices}"
            )
        return self.slot_groups[self._bounded[layer_idx].group]

    @property
    def device(self) -> torch.device | None:
        return self.slot_groups[0].valid.device if self.slot_groups else None

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
        assert self._dev_count is not None and self._dev_seen is not None and self._dev_shift is not None
        full = [n >= self.slots for n in self.n_kept]
        any_full = any(full)
        # the kept count before this token's write, per row: a full row first evicts one
        kept_before = [n - 1 if f else n for n, f in zip(self.n_kept, full, strict=True)]
        if self.position_kind == "rope":
            # per-layer policies rank the tokens held now (the evicted one leaves a gap in the numbering)
            self._maybe_rebase(1, self.n_kept if self.per_layer else kept_before)
        positions = self._finish_positions(self._dev_seen - self._dev_shift)
        permutes = None
        if not any_full and not self._has_holes:
            compact = self._dev_count.clone()  # rows are still compact: the next slot is free
            slots = [compact] * self.n_groups
        elif self.storage == "ring":
            slots = [self.policy.keep_scores(group.view()).argmin(dim=1) for group in self.slot_groups]
        else:
            pairs = [self._ordered_evict(group, full) for group in self.slot_groups]
            slots, permutes = [slot for slot, _ in pairs], [permute for _, permute in pairs]
        if any_full:
            self.stats["evicted"] += sum(full)
            self._has_holes = self.storage == "ring" or self._has_holes
        rows = torch.arange(input_ids.shape[0], device=input_ids.device)
        for group, slot in zip(self.slot_groups, slots, strict=True):
            group.valid[rows, slot] = True
            group.token_index[rows, slot] = self._dev_seen
            group.token_ids[rows, slot] = input_ids[:, 0]
            group.positions[rows, slot] = positions
        sink_writes = None
        if self.n_protected and any(n < self.n_protected for n in kept_before):
            sink_rows = [b for b, n in enumerate(kept_before) if n < self.n_protected]
            idx = torch.tensor(sink_rows, device=input_ids.device)
            sink_writes = (
                idx,
                torch.zeros_like(idx),
                torch.tensor([kept_before[b] for b in sink_rows], device=idx.device),
            )
        if self.sink_rotation:
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
            kind="decode", q=1, kv_length=width, slot=slots, permute=permutes, sink_writes=sink_writes
        )
        mask = self.slot_groups[0].valid[:, :width].long()
        # n_kept counts each row's valid slots, so a row holding `width` of them fills the mask's columns
        return StepInputs(positions[:, None], mask, "decode", mask_all_kept=min(self.n_kept) >= width)

    def _ordered_evict(self, group: _SlotState, full: list[bool]) -> tuple[torch.Tensor, torch.Tensor]:
        """Ordered storage: remove each full row's lowest-scoring slot by shifting later slots left."""
        assert self._dev_count is not None
        device = group.valid.device
        evict = self.policy.keep_scores(group.view()).argmin(dim=1)
        full_t = torch.tensor(full, device=device)
        evict = torch.where(full_t, evict, torch.full_like(evict, self.slots))
        j = torch.arange(self.slots, device=device)[None, :]
        permute = torch.where(j >= evict[:, None], j + 1, j).clamp_(max=self.slots - 1)
        group.gather_(permute)
        # the last slot of a full row is now a duplicate: empty it for the new token
        last = torch.full_like(evict, self.slots - 1)
        rows = torch.arange(len(full), device=device)
        group.valid[rows[full_t], last[full_t]] = False
        slot = torch.where(full_t, last, self._dev_count)
        return slot, permute

    def _plan_chunk(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None) -> StepInputs:
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
        permutes = None
        if any(need):
            permutes = self._evict_in_chunk(need)
        kept_after = [kept - n for kept, n in zip(self.n_kept, need, strict=True)]
        if self.position_kind == "rope":
            self._maybe_rebase(max(counts), kept_after)
        # stored keys shown to the chunk: right-aligned in temporal order (empty slots on the left);
        # every group holds kept_after[b] tokens, so the mask over them is the same for all groups
        width = max(kept_after)
        stored_index = None
        stored_valid = real.new_zeros((batch, 0))
        if width > 0:
            stored_index = []
            for group in self.slot_groups:
                stored_index.append(group.time_order(empty_first=True)[:, self.slots - width :])
            stored_valid = self.slot_groups[0].valid.gather(1, stored_index[0])
        # where the chunk's real tokens go: the free slots, in slot order
        rank = real.long().cumsum(dim=1) - 1
        write_rows, write_cols = real.nonzero(as_tuple=True)
        write_rank = rank[write_rows, write_cols]
        seen = torch.tensor(self.n_seen, device=device)
        shift = torch.tensor(self.shift, device=device)
        write_slots = []
        for group in self.slot_groups:
            free_order = group.valid.to(torch.int8).argsort(dim=1, stable=True)
            slots = free_order[write_rows, write_rank]
            group.valid[write_rows, slots] = True
            group.token_index[write_rows, slots] = seen[write_rows] + write_rank
            group.token_ids[write_rows, slots] = input_ids[write_rows, write_cols]
            write_slots.append(slots)
        sink_writes = None
        if self.sink_rotation and self.n_protected and any(k < self.n_protected for k in kept_after):
            is_sink = write_slots[0] < self.n_protected
            sink_writes = (write_rows[is_sink], write_cols[is_sink], write_slots[0][is_sink])
        if self.sink_rotation and self.columns_seen > 0:
            self._rotate_sinks(
                [s - sh - k for s, sh, k in zip(self.n_seen, self.shift, kept_after, strict=True)]
            )
        positions = self._finish_positions(
            torch.where(real, seen[:, None] - shift[:, None] + rank, torch.zeros_like(rank))
        )
        for group, slots in zip(self.slot_groups, write_slots, strict=True):
            group.positions[write_rows, slots] = positions[write_rows, write_cols]
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
            permute=permutes,
            stored_index=stored_index,
            write_rows=write_rows,
            write_cols=write_cols,
            write_slots=write_slots,
            sink_writes=sink_writes,
        )
        mask = torch.cat((stored_valid, real), dim=1).long()
        return StepInputs(positions, mask, "chunk")

    def _evict_in_chunk(self, need: list[int]) -> list[torch.Tensor] | None:
        """Evict `need[b]` lowest-scoring tokens from each row of every group.

        Ordered storage is compacted afterwards: returns each group's permutation then, else None.
        """
        device = self.slot_groups[0].valid.device
        most = max(need)
        take = torch.arange(most, device=device)[None, :] < torch.tensor(need, device=device)[:, None]
        rows, ranks = take.nonzero(as_tuple=True)
        permutes = []
        for group in self.slot_groups:
            # empty slots are not evicted: they are the room already there
            scores = self.policy.keep_scores(group.view()).masked_fill(~group.valid, float("inf"))
            lowest = scores.topk(most, dim=1, largest=False)
            slots = lowest.indices[rows, ranks]
            if not torch.isfinite(lowest.values[rows, ranks]).all():
                raise RuntimeError(
                    "eviction reached a protected or empty slot; the chunk is too large for the cache"
                )
            group.valid[rows, slots] = False
            group.token_index[rows, slots] = -1
            group.token_ids[rows, slots] = -1
            if self.storage == "ordered":
                permute = group.time_order(empty_first=False)
                group.gather_(permute)
                permutes.append(permute)
        self.stats["evicted"] += int(rows.numel())
        self._has_holes = self._has_holes or self.storage == "ring"
        return permutes if self.storage == "ordered" else None

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
        assert device is not None
        n_rows = min(self.n_protected, self.slots)
        sink_positions = (
            torch.arange(n_rows, device=device)[None, :] + torch.tensor(delta, device=device)[:, None]
        )
        for group in self.slot_groups:
            group.positions[:, :n_rows] = sink_positions
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
        if self.per_layer:
            # ranking changes distances (a rebase only shifts them all), so only the rows that reached
            # the bound are ranked: a row's results never depend on the other rows of its batch
            due = [seen - shift + q - 1 >= limit for seen, shift in zip(self.n_seen, self.shift, strict=True)]
            new_shift = [new if d else old for new, old, d in zip(new_shift, self.shift, due, strict=True)]
        delta = [old - new for old, new in zip(self.shift, new_shift, strict=True)]
        if all(d == 0 for d in delta):
            return
        if self.per_layer:
            self._rank_positions(delta)
        else:
            self.rotate_all_keys(delta)
            start = self.n_protected if self.sink_rotation else 0
            for group in self.slot_groups:
                group.positions[:, start:] += torch.tensor(delta, device=group.positions.device)[:, None]
        self.shift = new_shift
        assert self._dev_shift is not None
        self._dev_shift.copy_(torch.tensor(new_shift, device=self._dev_shift.device))
        self.stats["rebases"] += 1
        logger.debug("rebased RoPE keys by %s positions", delta)

    def _rank_positions(self, row_delta: list[int]) -> None:
        """Per-layer policies: move every layer's keys to in-cache positions 0..n-1 (their rank in time).

        Only rows with a nonzero `row_delta` (the change of their shift) are ranked. One rotation per key
        by its own distance to its new position; transformers' own sliding layers (contiguous recent
        tokens) move by the row's shift change instead.
        """
        device = self.device
        assert device is not None
        due = torch.tensor([d != 0 for d in row_delta], device=device)[:, None]
        slot_deltas = []  # per group, (batch, slots), 0 for empty slots and rows not due
        for group in self.slot_groups:
            rank = group.time_order(empty_first=False).argsort(dim=1)
            target = torch.where(group.valid & due, rank, group.positions)
            slot_deltas.append(target - group.positions)
            group.positions = target
        for layer in self._rope_layers():
            assert layer.keys is not None and layer.rope is not None
            cos, sin = layer.rope.cos_sin(slot_deltas[layer.group], device)
            layer.keys.copy_(layer.rope.apply(layer.keys, cos[:, None], sin[:, None]))
        self._rotate_sliding_keys(torch.tensor(row_delta, device=device))

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
        self._rotate_sliding_keys(delta_t)

    def _rotate_sliding_keys(self, delta_t: torch.Tensor) -> None:
        """Rotate the keys of transformers' own sliding layers of row b by `delta_t[b]` positions."""
        device = delta_t.device
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
        assert self.reencode_fn is not None and self.n_groups == 1, "re-encoding needs one kept set"
        coming = incoming if incoming is not None else [0] * self.batch_size_rows
        need = [max(0, kept + q - self.slots) for kept, q in zip(self.n_kept, coming, strict=True)]
        if any(need):
            self._evict_in_chunk(need)
            self.n_kept = [k - n for k, n in zip(self.n_kept, need, strict=True)]
            assert self._dev_count is not None
            self._dev_count.copy_(torch.tensor(self.n_kept, device=self._dev_count.device))
        group = self.slot_groups[0]
        width = max(self.n_kept)
        index = group.time_order(empty_first=True)[:, self.slots - width :]
        ids = group.token_ids.gather(1, index).clamp(min=0)
        mask = group.valid.gather(1, index).long()
        positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
        per_layer = self.reencode_fn(ids, mask, positions)
        rows, cols = mask.bool().nonzero(as_tuple=True)
        slots = index[rows, cols]
        group.positions[rows, slots] = positions[rows, cols]
        for layer in self._bounded_layers():
            keys, values = per_layer[layer.layer_idx]
            assert layer.keys is not None and layer.values is not None
            layer.keys[rows, :, slots] = keys[rows, :, cols].to(layer.keys.dtype)
            layer.values[rows, :, slots] = values[rows, :, cols].to(layer.values.dtype)
        self.shift = [seen - kept for seen, kept in zip(self.n_seen, self.n_kept, strict=True)]
        assert self._dev_shift is not None
        self._dev_shift.copy_(torch.tensor(self.shift, device=self._dev_shift.device))
        self.stats["reencodes"] += 1

    # --- transformers' own sliding layers ----------------------------------------------------
    def sliding_mask(self, new_columns: torch.Tensor) -> torch.Tensor:
        """The 2D mask transformers' own sliding layers need for this step, outside `generate`.

        Those layers keep every column (left padding included) of their last `window` tokens, so the
        mask must cover every column seen so far: columns older than the largest window are marked
        real (no layer sees them any more), the newer ones as they were fed. Call once per forward,
        after `prepare_step`. new_columns: (batch, q), 1 = real token. Returns (batch, seen + q) long.
        """
        new_columns = new_columns.long()
        batch = new_columns.shape[0]
        tail = self._column_tail if self._column_tail is not None else new_columns.new_ones((batch, 0))
        older = new_columns.new_ones((batch, self.columns_seen - tail.shape[1]))
        mask = torch.cat((older, tail, new_columns), dim=1)
        self._column_tail = mask[:, -self._sliding_reach :]
        return mask

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
        for group in self.slot_groups:
            group.select_(index)
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
        if self._column_tail is not None:
            self._column_tail = self._column_tail.index_select(0, index)
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
    # With a per-layer policy each bounded layer keeps its own tokens: pass `layer` (a model layer
    # index) to see one; the default is the first bounded layer (every layer, for positional policies).
    def kept_token_ids(self, row: int, layer: int | None = None) -> list[int]:
        """The token ids row `row` holds (in `layer`), in temporal order."""
        group = self._group_of(layer)
        valid = group.valid[row]
        order = group.token_index[row][valid].argsort()
        return group.token_ids[row][valid][order].tolist()

    def kept_positions(self, row: int, layer: int | None = None) -> list[int]:
        """The position each key of row `row` (in `layer`) is encoded at (RoPE angle or learned table row), in order."""
        group = self._group_of(layer)
        valid = group.valid[row]
        order = group.token_index[row][valid].argsort()
        return group.positions[row][valid][order].tolist()

    def kept_token_indices(self, row: int, layer: int | None = None) -> list[int]:
        """Indices (in the row's sequence of real tokens) of the tokens row `row` holds (in `layer`), in order."""
        group = self._group_of(layer)
        return sorted(group.token_index[row][group.valid[row]].tolist())

    def nbytes(self) -> int:
        """Bytes held by keys and values (all layers, all rows), allocated storage included."""
        total = 0
        for layer in self.layers:
            for tensor in (getattr(layer, "keys", None), getattr(layer, "values", None)):
                if isinstance(tensor, torch.Tensor):
                    total += tensor.numel() * tensor.element_size()
        return total
