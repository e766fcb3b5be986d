"""BoundedCache: a transformers `Cache` that never holds more than `cache_limit` tokens per row.

Contract
--------
- A step has three parts. `prepare_step(input_ids, attention_mask)` plans the next forward: which
  stored tokens are evicted, which slot each new token takes, the position each new token gets and
  the 2D attention mask the model must use; it returns a `StepInputs` whose `position_ids` and
  `attention_mask` replace generate's own (they no longer line up with the cache once it evicts).
  The model's forward then runs (each bounded layer stores its new keys as planned). `advance()`
  closes the step. `kvlimit.generate` and `kvlimit.forward_step` do all three; a custom loop must.
- In a decode step (one new real token per row) the new token attends to at most `cache_limit`
  keys, its own included, and afterwards the cache holds at most `cache_limit` tokens per row.
  A chunk of `q` tokens (prefill) first evicts down to `cache_limit - q` per row, so every query
  of the chunk also sees at most `cache_limit` keys; the chunk may be at most the policy's
  `max_chunk(cache_limit)` (the limit minus its protected tokens).
- Positions follow StreamingLLM: the kept tokens behave as if at in-cache positions 0..n-1 and the
  new token at n. How that is achieved per scheme (RoPE rotation, ALiBi order, absolute re-encode
  or clamp) is the business of the cache's `keeper` (`kvlimit.positions`), chosen when it is built.
- Rows are independent: left padding is never stored, sinks are counted from each row's first
  real token, and every per-row state moves together in beam reorders.
- `load_row(row, source)` makes one row a copy of a row of another cache built from the same
  config (continuous batching: a prompt prefilled alone takes a finished row's place in a running
  batch). Every per-row state moves (kept sets, counters, keys and values, the keeper's, the recall
  store's blocks); nothing is reallocated once the cache holds its rows.

Where things live
-----------------
- `rows` (`RowCounters`): per-row counts on the host and the device.
- `kept_sets` (`KeptSet`, one per set of layers that keep the same tokens): per slot, the token it
  holds. Positional policies have one kept set; a per-layer policy (`per_layer = True`, e.g.
  `knorm`) has one per bounded layer, each evicting by its own scores and keeping the policy's
  `token_statistic` of its stored keys. Every kept set of a row holds the same number of tokens, so
  one attention mask serves all layers.
- `store` (`KVStore`, or `QuantizedStore` with `kv_dtype`): every bounded layer's keys and values,
  `(batch, kv_heads, slots, head_dim)`, allocated once (`slots = min(cache_limit, longest possible
  sequence)`). `layers` are transformers' view of it (`BoundedLayer`), or transformers' own sliding
  layer where the model's window is smaller than the limit (it bounds itself).
- `keeper` (`kvlimit.positions`): positions, through the store's and the kept sets' operations.
- `kvlimit.cache.plan`: the eviction rules and step plans; `kvlimit.cache.attention`: what the
  attention policies read, folded in by `record_attention`.
- `recall` (`RecallStore`, with `recall=R`): what the policy evicts, in blocks; `cache_limit - R`
  slots keep tokens and R columns per step hold recalled ones (the store's scratch slots in a
  decode step), which the attention fills (`fill_recall`, through `attention_prepare`) with the
  blocks its queries need, at positions between the sinks and the recent window.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from ..integrations.hf import Cache, DynamicSlidingWindowLayer, kv_bytes_of_layer
from ..policies import AttentionKind, EvictionPolicy
from ..positions import PositionKeeper
from .attention import fold_attention
from .compiled import compile_blocker
from .kept import KeptSet
from .layer import BoundedLayer
from .plan import Evicted, SetWrites, StepPlan, decode_slots, evict, place_chunk, shown_to_chunk
from .recall import RecallStore
from .rows import RowCounters
from .store import KVStore

logger = logging.getLogger(__name__)


@dataclass
class StepInputs:
    """What the model forward of one step must be given.

    Attributes:
        position_ids: (batch, q) long, the positions of the new tokens.
        attention_mask: (batch, kv_length) long 2D mask over the keys the bounded layers return
            (stored slots, then the new tokens).
        kind: "decode" (one token per row, written in place) or "chunk".
        mask_all_kept: every column of `attention_mask` is a kept token in every row (known on the
            host, without reading the mask): a model that builds its causal mask from the cache's
            sizes may then be given no 2D mask at all, which spares transformers' mask code a
            host-device synchronisation (its all-ones check) in every decode step.
    """

    position_ids: torch.Tensor
    attention_mask: torch.Tensor
    kind: Literal["decode", "chunk"]
    mask_all_kept: bool = False


@dataclass
class LayerLayout:
    """How each model layer is cached. Built by `kvlimit.build_cache` from the model.

    Attributes:
        kinds: per layer, "bounded" or "sliding" (transformers' own sliding layer, kept where the
            model's window is smaller than the limit).
        sliding_windows: per layer, the model's sliding window or None.
        rope: per layer, the `RopeSpec` of its keys, or None.
    """

    kinds: list[str]
    sliding_windows: list[int | None]
    rope: list[Any]

    @property
    def bounded(self) -> list[int]:
        return [i for i, kind in enumerate(self.kinds) if kind == "bounded"]


class BoundedCache(Cache):
    """A KV cache holding at most `cache_limit` tokens per row. See the module docstring.

    Args:
        cache_limit: the most tokens a row may hold.
        policy: which tokens to evict.
        layout: per-layer kinds, windows and rope specs.
        keeper: how kept tokens get positions (`kvlimit.positions.make_keeper`).
        store: where the bounded layers' keys and values live (`KVStore`, `QuantizedStore`), built
            for `slots = min(cache_limit, max_length)` slots per row (`cache_limit - R` with recall,
            and R scratch slots).
        position_bound: the most positions (or keys per query) the model can address; None = unbounded.
        recall: the recall tier's store, or None.
    """

    def __init__(
        self,
        cache_limit: int,
        policy: EvictionPolicy,
        layout: LayerLayout,
        keeper: PositionKeeper,
        store: KVStore,
        *,
        position_bound: int | None = None,
        recall: RecallStore | None = None,
    ):
        policy.check_limit(cache_limit)
        if position_bound is not None and cache_limit > position_bound:
            raise ValueError(
                f"cache_limit={cache_limit} exceeds the {position_bound} positions this model can address; "
                f"use cache_limit <= {position_bound}"
            )
        if store.width > cache_limit:
            raise ValueError(
                f"the store has {store.width} slots per row, more than cache_limit={cache_limit}"
            )
        if recall is not None and store.width - store.slots != recall.slots:
            raise ValueError(
                f"the store has {store.width - store.slots} scratch slots but recall has {recall.slots}"
            )
        self.store = store
        self.slots = store.slots
        layers: list[Any] = []
        self._bounded: dict[int, BoundedLayer] = {}
        self.sliding_layers: dict[int, DynamicSlidingWindowLayer] = {}
        statistic = policy.token_statistic if policy.keeps_key_statistic else None
        for idx, kind in enumerate(layout.kinds):
            if kind == "bounded":
                kept_set = len(self._bounded) if policy.per_layer else 0
                self._bounded[idx] = BoundedLayer(idx, store, kept_set, statistic)
                layers.append(self._bounded[idx])
            elif kind == "sliding":
                window = layout.sliding_windows[idx]
                assert window is not None
                self.sliding_layers[idx] = DynamicSlidingWindowLayer(sliding_window=window)
                layers.append(self.sliding_layers[idx])
            else:
                raise ValueError(f"unknown layer kind {kind!r}; expected 'bounded' or 'sliding'")
        super().__init__(layers=layers)
        self.cache_limit = cache_limit
        self.policy = policy
        self.layout = layout
        self.keeper = keeper
        self.recall = recall
        #: with recall: per bounded layer, the token index and the position of each recalled column in
        #: the last step that recalled, (batch, kv_heads, n) each, index -1 for an empty column; kept
        #: only while `record_recalled` is set (inspection, tests)
        self.record_recalled = False
        self.last_recalled: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        #: kept sets: one for every layer (positional policies) or one per bounded layer
        self.n_kept_sets = max(1, len(self._bounded)) if policy.per_layer else 1
        self.bounded_indices = list(self._bounded)
        self.sliding_indices = list(self.sliding_layers)
        #: columns transformers' own sliding layers can still see (their largest window)
        self._sliding_reach = max((layout.sliding_windows[i] or 0 for i in self.sliding_layers), default=0)
        #: The `ModelSpec` and `LimitConfig` this cache was built from (set by `kvlimit.build_cache`).
        self.model_spec: Any = None
        self.config: Any = None
        self.evicted = 0
        #: decode steps keep one shape (every slot's key, the mask always given): a compiled forward then
        #: never recompiles (`kvlimit.cache.compiled`); set by `make_static`
        self.static_shapes = False
        #: set while transformers prepares a step's inputs (`hf.steer_generation`): it would size a mask
        #: from a compileable cache before the step is planned
        self.hide_compileable = False
        self._reset_rows()

    @property
    def kept_limit(self) -> int:
        """The most tokens a row keeps: `cache_limit`, less the recall tier's slots (its columns hold
        recalled tokens, not kept ones). A prompt chunk fits `policy.max_chunk(kept_limit)`."""
        return self.cache_limit - (0 if self.recall is None else self.recall.slots)

    @property
    def kv_dtype(self) -> str | None:
        """The quantized storage dtype of the bounded layers, or None (the model's dtype)."""
        scheme = getattr(self.store, "scheme", None)
        return None if scheme is None else scheme.name

    @property
    def stats(self) -> dict[str, int]:
        """What the cache has done: tokens evicted, and the position keeper's moves (rebases, re-encodes)."""
        stats = {"rebases": self.keeper.rebases, "reencodes": self.keeper.reencodes, "evicted": self.evicted}
        if self.recall is not None:
            stats["recall_stored"] = self.recall.stored_total
        return stats

    # --- rows ---------------------------------------------------------------------------------
    def _reset_rows(self) -> None:
        self._rows: RowCounters | None = None
        self.kept_sets: list[KeptSet] = []
        self.columns_seen = 0  # columns (real tokens and padding) of the steps advanced so far
        self.step_open = False
        self._plan: StepPlan | None = None
        # rows fill slots 0..n-1 until a ring eviction: until then a row's next slot is its count
        self._compact = True
        self._column_tail: torch.Tensor | None = None  # (batch, <= window) realness of the last columns
        #: per row, the recalled tokens its queries see in the open step (0 without recall)
        self.recalled: list[int] = []
        self._recall_step: _RecallStep | None = None
        self.keeper.reset()

    def _init_rows(self, batch: int, device: torch.device) -> None:
        self._rows = RowCounters.zeros(batch, device)
        modes = [m for m in (self.policy.attention_mode("decode"), self.policy.attention_mode("chunk")) if m]
        decode_mode = self.policy.attention_mode("decode")
        self.kept_sets = [
            KeptSet.empty(
                batch,
                self.slots,
                device,
                with_statistic=self.policy.keeps_key_statistic,
                with_attention=bool(modes),
                with_count=any(m.kind is AttentionKind.MEAN for m in modes),
                with_newest=decode_mode is not None and decode_mode.tracks_newest,
            )
            for _ in range(self.n_kept_sets)
        ]
        self.recalled = [0] * batch
        if self.recall is not None:
            self.recall.start(batch)
        self.keeper.start(self)

    @property
    def started(self) -> bool:
        """The cache has rows (its first step has been planned)."""
        return self._rows is not None

    @property
    def rows(self) -> RowCounters:
        """The per-row counters (kept, seen, shift); they exist from the first step on."""
        if self._rows is None:
            raise RuntimeError("this BoundedCache has no rows yet: its first step has not been planned")
        return self._rows

    @property
    def valid(self) -> torch.Tensor | None:
        """(batch, slots) bool, True where a slot holds a token (every kept set agrees on the counts)."""
        return self.kept_sets[0].valid if self.kept_sets else None

    @property
    def device(self) -> torch.device | None:
        return self.kept_sets[0].valid.device if self.kept_sets else None

    def bounded_layers(self) -> list[BoundedLayer]:
        return list(self._bounded.values())

    def bounded_layer(self, layer_idx: int) -> BoundedLayer | None:
        """The bounded layer of model layer `layer_idx`, or None (one of transformers' own sliding layers)."""
        return self._bounded.get(layer_idx)

    @property
    def current_plan(self) -> StepPlan | None:
        """The plan of the open step (between `prepare_step` and `advance`), else None."""
        return self._plan if self.step_open else None

    @property
    def attention_record(self) -> Any:
        """Where the attention of this cache's layers is reported (None: the policy reads none)."""
        return self.record_attention if self.policy.reads_attention else None

    def record_attention(
        self,
        layer_idx: int,
        query: torch.Tensor | None,
        key: torch.Tensor | None,
        mask: torch.Tensor | None,
        scaling: float,
        weights: torch.Tensor | None = None,
    ) -> None:
        """One bounded layer's attention in the open step (see `kvlimit.cache.attention`). `key` None and
        no `weights`: the keys this layer returned to the attention (`BoundedLayer.attended_keys`)."""
        plan = self.current_plan
        layer = self._bounded.get(layer_idx)
        if plan is None or layer is None:
            return
        if key is None and weights is None:
            key = layer.attended_keys()  # handed over even when unused, so that none is held on
        mode = self.policy.attention_mode(plan.kind)
        if mode is None:
            return
        kept = self.kept_sets[layer.kept_set]
        fold_attention(plan, kept, plan.writes[layer.kept_set], mode, query, key, mask, scaling, weights)

    def rope_layers(self) -> list[tuple[int, Any]]:
        """The allocated bounded layers whose keys carry RoPE: (model layer index, `RopeSpec`)."""
        return [
            (idx, self.layout.rope[idx])
            for idx in self._bounded
            if self.layout.rope[idx] is not None and self.store.has(idx)
        ]

    def kept_set_of(self, layer_idx: int | None) -> KeptSet:
        """The kept set of model layer `layer_idx` (None: the first)."""
        if layer_idx is None:
            return self.kept_sets[0]
        if layer_idx not in self._bounded:
            raise ValueError(
                f"layer {layer_idx} is not a bounded layer of this cache; bounded layers: {self.bounded_indices}"
            )
        return self.kept_sets[self._bounded[layer_idx].kept_set]

    def keep_attended_keys(self) -> None:
        """Have every bounded layer keep the keys it returns until the attention tap takes them (an
        attention that reports its queries but not its keys: `integrations.hf.attention`)."""
        for layer in self._bounded.values():
            layer.keep_attended = True

    def rotate_sliding_layers(self, delta: torch.Tensor) -> None:
        """Move row b's keys in transformers' own sliding layers by `delta[b]` positions (RoPE)."""
        for idx, sliding in self.sliding_layers.items():
            rope = self.layout.rope[idx]
            if rope is None or sliding.keys is None or sliding.keys.numel() == 0:
                continue
            sliding.keys = rope.rotate(sliding.keys, delta[:, None, None])

    # --- a step -------------------------------------------------------------------------------
    def prepare_step(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> StepInputs:
        """Plan the next forward over `input_ids` (batch, q) with mask columns `attention_mask` (batch, q).

        `attention_mask` holds only the new tokens' columns (1 = real token, 0 = padding); None means all
        real. Returns the position ids and attention mask the model must use for this forward; call
        `advance()` after it.
        """
        if input_ids.ndim != 2:
            raise ValueError(f"input_ids must be (batch, tokens); got shape {tuple(input_ids.shape)}")
        if self.step_open:
            raise RuntimeError(
                "the previous step of this BoundedCache was not advanced: call cache.advance() after each "
                "forward (kvlimit.forward_step does)"
            )
        batch, q = input_ids.shape
        if self._rows is None:
            self._init_rows(batch, input_ids.device)
        elif batch != self.rows.batch:
            raise ValueError(f"this cache holds {self.rows.batch} rows but the step has {batch}")
        decode = q == 1 and self.columns_seen > 0 and attention_mask is None
        if decode:
            self.keeper.begin_step(self, [1] * batch)
            plan, step = self._plan_decode(input_ids)
        else:
            plan, step = self._plan_chunk(input_ids, attention_mask)
        self._plan = plan
        for layer in self._bounded.values():
            layer.begin(plan)
        self.step_open = True
        return step

    def advance(self) -> None:
        """Close the step whose forward has just run."""
        plan = self._plan
        if not self.step_open or plan is None:
            raise RuntimeError("no step to advance: call cache.prepare_step(...) and the model forward first")
        lagging = [i for i, layer in self._bounded.items() if not layer.commit(plan)]
        if lagging:
            raise RuntimeError(
                f"the forward did not store its keys in bounded layers {lagging}; run the model forward "
                "between cache.prepare_step(...) and cache.advance()"
            )
        self.columns_seen += plan.q
        self.step_open = False
        self.keeper.end_step(self)

    def evict(self, need: Sequence[int]) -> list[torch.Tensor] | None:
        """Evict `need[b]` tokens from each row by the policy (every kept set); see `plan.evict`.
        With recall, the evicted tokens go to the recall store."""
        permutes, evicted = evict(self.kept_sets, self.policy, need, ordered=self.keeper.ordered)
        if self.recall is not None:
            self._capture(evicted, need)
        self.evicted += sum(need)
        self._compact = self._compact and self.keeper.ordered
        self.rows.set(kept=[k - n for k, n in zip(self.rows.kept, need, strict=True)])
        return permutes

    def _plan_decode(self, input_ids: torch.Tensor) -> tuple[StepPlan, StepInputs]:
        rows = self.rows
        # static shapes: nothing the forward reads on the host changes from one decode step to the next
        first_index = 0 if self.static_shapes else min(rows.seen)
        full = [n >= self.slots for n in rows.kept]
        full_t = rows.kept_t >= self.slots  # the same on the device, without a copy from the host
        slots, permutes = decode_slots(
            self.kept_sets,
            self.policy,
            full_t,
            rows.kept_t,
            compact=self._compact and not any(full),
            ordered=self.keeper.ordered,
        )
        if any(full):  # a full row's evicted token is gone now, as in a chunk
            if self.recall is not None:
                evicting = torch.tensor([b for b, f in enumerate(full) if f], device=input_ids.device)
                at = slots[0][evicting]
                kept = self.kept_sets[0]  # a vacated slot keeps its entries until the new token's
                evicted = Evicted(evicting, at, kept.token_index[evicting, at], kept.positions[evicting, at])
                self._capture(evicted, [int(f) for f in full])
            rows.evict_one(full, full_t)
            self.evicted += sum(full)
            self._compact = self._compact and self.keeper.ordered
        recall_columns = self._recall_columns()
        self.keeper.place(self, [1] * rows.batch)
        positions = self.keeper.new_positions(rows.seen_t - rows.shift_t)
        batch_rows = torch.arange(rows.batch, device=input_ids.device)
        for kept, slot in zip(self.kept_sets, slots, strict=True):
            kept.store(batch_rows, slot, rows.seen_t, input_ids[:, 0])
            kept.set_positions(batch_rows, slot, positions)
        rows.add_decode_token(self.slots)
        # compact rows fill slots 0..n-1; after a ring eviction a row may hold a token in any slot
        width = max(rows.kept) if self._compact and not self.static_shapes else self.slots
        writes = [
            SetWrites(slot=slot, permute=None if permutes is None else permutes[k], statistic=kept.statistic)
            for k, (kept, slot) in enumerate(zip(self.kept_sets, slots, strict=True))
        ]
        mask = self.kept_sets[0].valid[:, :width].long()
        # kept counts each row's valid slots, so a row holding `width` of them fills the mask's columns
        all_kept = (
            not self.static_shapes
            and min(rows.kept) >= width
            and min(self.recalled, default=0) >= recall_columns
        )
        if recall_columns:  # the store's scratch slots, right after the kept ones (no row is compact)
            assert width == self.slots
            mask = torch.cat((mask, self._recall_mask(recall_columns, mask.device)), dim=1)
            self._recall_step = _RecallStep(
                width, recall_columns, self.keeper.recall_base(self), positions[:, None]
            )
        step = StepInputs(positions[:, None], mask, "decode", mask_all_kept=all_kept)
        plan = StepPlan("decode", 1, width + recall_columns, writes, first_index=first_index,
                        recall_columns=recall_columns)  # fmt: skip
        return plan, step

    def _plan_chunk(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None
    ) -> tuple[StepPlan, StepInputs]:
        batch, q = input_ids.shape
        real = (
            torch.ones((batch, q), dtype=torch.bool, device=input_ids.device)
            if attention_mask is None
            else attention_mask.to(device=input_ids.device).bool()
        )
        counts = real.sum(dim=1).tolist()
        self.keeper.begin_step(self, counts)
        rows = self.rows
        need = [max(0, kept + r - self.slots) for kept, r in zip(rows.kept, counts, strict=True)]
        room = self.policy.max_chunk(self.slots)
        if any(r > room for r, n in zip(counts, need, strict=True) if n > 0):
            raise ValueError(
                f"a chunk of {max(counts)} new tokens does not fit a cache of {self.slots} slots with "
                f"{self.policy.protected_tokens} protected; feed at most {room} tokens per forward (prefill_chunk)"
            )
        permutes = self.evict(need) if any(need) else None
        recall_columns = self._recall_columns()
        self.keeper.place(self, counts)
        # stored keys shown to the chunk: every kept set holds kept[b] tokens, so one mask serves them all
        width = max(rows.kept)
        shown = shown_to_chunk(self.kept_sets, width)
        stored_valid = (
            real.new_zeros((batch, 0)) if shown is None else self.kept_sets[0].valid.gather(1, shown[0])
        )
        write_rows, write_cols, rank, write_slots = place_chunk(self.kept_sets, real, input_ids, rows.seen_t)
        positions = self.keeper.new_positions(
            torch.where(real, rows.seen_t[:, None] - rows.shift_t[:, None] + rank, torch.zeros_like(rank))
        )
        for kept, slots in zip(self.kept_sets, write_slots, strict=True):
            kept.set_positions(write_rows, slots, positions[write_rows, write_cols])
        rows.set(
            kept=[k + r for k, r in zip(rows.kept, counts, strict=True)],
            seen=[s + r for s, r in zip(rows.seen, counts, strict=True)],
        )
        writes = [
            SetWrites(
                permute=None if permutes is None else permutes[k],
                shown=None if shown is None else shown[k],
                write_slots=write_slots[k],
                statistic=kept.statistic,
            )
            for k, kept in enumerate(self.kept_sets)
        ]
        plan = StepPlan("chunk", q, width + recall_columns + q, writes, write_rows, write_cols, real=real,
                        recall_columns=recall_columns)  # fmt: skip
        mask = torch.cat((stored_valid, self._recall_mask(recall_columns, real.device), real), dim=1).long()
        if recall_columns:
            self._recall_step = _RecallStep(
                width, recall_columns, self.keeper.recall_base(self), positions, real
            )
        return plan, StepInputs(positions, mask, "chunk")

    # --- the recall tier ---------------------------------------------------------------------
    def _capture(self, evicted: Evicted, counts: Sequence[int]) -> None:
        """Hand the `evicted` tokens, `counts[b]` of row b, to the recall store (before their slots are
        reused), each row's in time order."""
        assert self.recall is not None
        order = (evicted.rows * (1 << 40) + evicted.token_index).argsort()
        rows, slots = evicted.rows[order], evicted.slots[order]
        taken = self.store.take(rows, slots)
        self.recall.capture(counts, evicted.token_index[order], evicted.positions[order], taken)

    def _recall_columns(self) -> int:
        """After the step's evictions: each row's recalled tokens this step (`recalled`), and the
        recall columns the step's keys get (all R of them once any row recalls, else none)."""
        self._recall_step = None
        self.last_recalled.clear()
        if self.recall is None:
            return 0
        self.recalled = self.recall.recallable()
        return self.recall.slots if any(self.recalled) else 0

    def _recall_mask(self, columns: int, device: torch.device) -> torch.Tensor:
        """(batch, columns) long, 1 where a row's recall column holds a token this step."""
        counts = torch.tensor(self.recalled if columns else [0] * self.rows.batch, device=device)
        return (torch.arange(columns, device=device)[None, :] < counts[:, None]).long()

    @property
    def attention_prepare(self) -> Any:
        """What the attention of this cache's layers calls before attending (`fill_recall`), or None."""
        return self.fill_recall if self.recall is not None else None

    def fill_recall(
        self, layer_idx: int, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor
    ) -> None:
        """Write the step's recalled keys and values of layer `layer_idx` into the recall columns of `key`
        and `value` (batch, kv_heads, kv_length, head_dim), chosen by `query` (batch, heads, q, head_dim)."""
        step = self._recall_step
        if step is None or self.recall is None or not self.recall.serves(layer_idx) or not self.step_open:
            return
        rope = self.layout.rope[layer_idx]
        unrotated = step.rotate(rope, "query", query, -step.query_positions[:, None, :])
        if step.real is None:
            query_vector = unrotated[:, :, 0]
        else:  # a chunk: the mean of its real queries (InfLLM sums the chunk's scores)
            real = step.real[:, None, :, None].to(unrotated.dtype)
            query_vector = (unrotated * real).sum(dim=2) / real.sum(dim=2).clamp(min=1)
        keys, values, chosen = self.recall.recall(layer_idx, query_vector)
        n = keys.shape[2]
        positions = step.base[:, None] + torch.arange(n, device=step.base.device)[None, :]
        keys = step.rotate(rope, "keys", keys, positions[:, None, :])
        start, stop = step.start, step.start + step.columns
        key[:, :, start : start + n] = keys
        value[:, :, start : start + n] = values
        if n < step.columns:
            key[:, :, start + n : stop] = 0
            value[:, :, start + n : stop] = 0
        if self.record_recalled:
            index = self.recall.token_indices(chosen)
            counts = torch.tensor(self.recalled, device=index.device)
            index = torch.where(torch.arange(n, device=index.device) < counts[:, None, None], index, -1)
            self.last_recalled[layer_idx] = (index, positions[:, None, :].expand_as(index))

    def recall_nbytes(self) -> int:
        """Bytes of the recall store's blocks in use (0 without recall): kept apart from `nbytes()`."""
        return 0 if self.recall is None else self.recall.nbytes()

    # --- transformers' own sliding layers ----------------------------------------------------
    def sliding_mask(self, new_columns: torch.Tensor) -> torch.Tensor:
        """The 2D mask transformers' own sliding layers need for this step.

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
        if layer_idx in self._bounded and self._plan is not None:
            return self._plan.kv_length - self._plan.q
        return super().get_query_offset(layer_idx)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        """Columns seen (real tokens and padding), as transformers' layers report; see `stored_tokens`."""
        if layer_idx in self._bounded:
            return self.columns_seen
        return super().get_seq_length(layer_idx)

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        """Reorder every per-row state for beam search (rows of one batch item only move among themselves).
        With recall the order is read on the host: the recall store's block table lives there."""
        if self.started:
            index = beam_idx.to(self.rows.kept_t.device)
            self._select_rows(index, index.tolist() if self.recall is not None else None)

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self.started:
            host = [i for i in range(self.rows.batch) for _ in range(repeats)]
            self._select_rows(torch.tensor(host, device=self.rows.kept_t.device), host)

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.started:
            index = indices.to(self.rows.kept_t.device)
            self._select_rows(index, index.tolist())

    def _select_rows(self, index: torch.Tensor, host_index: Sequence[int] | None) -> None:
        """Keep rows `index` of every per-row state; `host_index` None: a permutation among equal rows."""
        for kept in self.kept_sets:
            kept.select_(index)
        self.rows.select(index, host_index)
        self.store.select_rows(index, in_place=host_index is None)
        if self.recall is not None:
            assert host_index is not None
            self.recall.select_rows(host_index)
        if host_index is not None:
            self.recalled = [self.recalled[i] for i in host_index]
        self.keeper.rows_selected(self, index, host_index)
        if self._column_tail is not None:
            self._column_tail = self._column_tail.index_select(0, index)
        for sliding in self.sliding_layers.values():
            if sliding.keys is not None and sliding.values is not None and sliding.keys.numel() > 0:
                sliding.keys = sliding.keys.index_select(0, index)
                sliding.values = sliding.values.index_select(0, index)

    def open_rows(self, batch: int, device: torch.device) -> None:
        """Give an empty cache `batch` empty rows, to be filled by `load_row` (continuous batching)."""
        if self.started:
            raise RuntimeError("this BoundedCache has rows already")
        self._init_rows(batch, device)

    def load_row(self, row: int, source: BoundedCache, source_row: int = 0) -> None:
        """Row `row` becomes a copy of row `source_row` of `source`, a cache built from the same config
        for the same model whose step is closed; this cache's other rows are untouched."""
        if not self.started or not source.started:
            raise RuntimeError("load_row needs rows in both caches (open_rows, or a step planned)")
        if self.step_open or source.step_open:
            raise RuntimeError("load_row between steps only: advance the open step first")
        if (source.slots, source.policy, source.kv_dtype, source.layout.kinds) != (
            self.slots,
            self.policy,
            self.kv_dtype,
            self.layout.kinds,
        ):
            raise ValueError("load_row needs a source cache built from the same config for the same model")
        if self.sliding_layers:
            raise ValueError(
                "load_row cannot move a row of transformers' own sliding-window layers (they keep every "
                "column of the batch); use a cache_limit no larger than the model's sliding window"
            )
        for kept, copied in zip(self.kept_sets, source.kept_sets, strict=True):
            kept.load_row_(row, copied, source_row)
        self.rows.load_row(row, source.rows, source_row)
        self.store.load_row(row, source.store, source_row, self.rows.batch)
        if self.recall is not None and source.recall is not None:
            self.recall.load_row(row, source.recall, source_row)
        self.recalled[row] = source.recalled[source_row]
        self.keeper.row_loaded(row, source.keeper, source_row)
        # rows fill slots in order only while no row has evicted (see `_plan_decode`)
        self._compact = self._compact and source._compact
        if self.columns_seen == 0:  # a step after this one decodes (see `prepare_step`)
            self.columns_seen = source.columns_seen
            for layer in self._bounded.values():
                layer.columns = source.columns_seen

    def reset(self) -> None:
        for layer in self.layers:
            layer.reset()
        self.store.reset()
        if self.recall is not None:
            self.recall.reset()
        self._reset_rows()

    def crop(self, tokens_to_remove: int) -> None:
        raise NotImplementedError("a bounded cache cannot be rolled back: evicted tokens are gone")

    @property
    def is_compileable(self) -> bool:
        """Its decode steps can be compiled (static shapes on, and nothing in `compile_blocker`): transformers'
        generate then compiles the forward by itself on an accelerator, as for its StaticCache."""
        return self.static_shapes and not self.hide_compileable and compile_blocker(self) is None

    def make_static(self) -> None:
        """Give every decode step from now on one shape (see `static_shapes`), for a compiled forward;
        raises `ValueError` naming why where this cache cannot compile (`compile_blocker`)."""
        reason = compile_blocker(self)
        if reason is not None:
            raise ValueError(f"this bounded cache cannot be compiled: {reason}")
        self.static_shapes = True
        self.store.mark_static()

    # --- inspection --------------------------------------------------------------------------
    # With a per-layer policy each bounded layer keeps its own tokens: pass `layer` (a model layer
    # index) to see one; the default is the first bounded layer (every layer, for positional policies).
    def stored_tokens(self) -> list[int]:
        """How many tokens each row holds now."""
        return list(self.rows.kept) if self.started else []

    def kept_token_ids(self, row: int, layer: int | None = None) -> list[int]:
        """The token ids row `row` holds (in `layer`), in temporal order."""
        kept = self.kept_set_of(layer)
        valid = kept.valid[row]
        order = kept.token_index[row][valid].argsort()
        return kept.token_ids[row][valid][order].tolist()

    def kept_positions(self, row: int, layer: int | None = None) -> list[int]:
        """The position each key of row `row` (in `layer`) is encoded at (RoPE angle or table row), in order."""
        kept = self.kept_set_of(layer)
        valid = kept.valid[row]
        order = kept.token_index[row][valid].argsort()
        return kept.positions[row][valid][order].tolist()

    def kept_token_indices(self, row: int, layer: int | None = None) -> list[int]:
        """Indices (in the row's sequence of real tokens) of the tokens row `row` holds (in `layer`), in order."""
        kept = self.kept_set_of(layer)
        return sorted(kept.token_index[row][kept.valid[row]].tolist())

    def nbytes(self) -> int:
        """Bytes held by keys and values (all layers, all rows), allocated storage included.

        A quantized store counts its codes, scales and float sinks: what it really holds. The store's
        pristine copies of the sinks are not keys the attention reads (`store.overhead_bytes()`).
        """
        return self.store.nbytes() + sum(kv_bytes_of_layer(layer) for layer in self.sliding_layers.values())


@dataclass
class _RecallStep:
    """What the attention needs to fill the recall columns of the open step.

    start / columns: where the recall columns are among a layer's keys; base: (batch,) the position
    of each row's first recalled slot; query_positions: (batch, q) the new tokens' positions; real:
    a chunk's (batch, q) real tokens (None in a decode step). Rotations are made once per step and
    rotation (`rotate`), not per layer.
    """

    start: int
    columns: int
    base: torch.Tensor
    query_positions: torch.Tensor
    real: torch.Tensor | None = None
    _cos_sin: dict[tuple[int, str], tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)

    def rotate(self, rope: Any, what: str, x: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
        """`x` (batch, heads, n, dim) rotated by `delta` (batch, 1, n), with cos/sin made once per step
        (a layer without RoPE: `x` as it is)."""
        if rope is None:
            return x
        key = (id(rope), what)
        if key not in self._cos_sin or self._cos_sin[key][0].shape[-2] != x.shape[-2]:
            self._cos_sin[key] = rope.cos_sin(delta, x.device)
        cos, sin = self._cos_sin[key]
        return rope.apply(x, cos, sin)
