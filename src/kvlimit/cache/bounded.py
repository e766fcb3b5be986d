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
  real token, and every per-row state moves together in beam reorders (`kvlimit.cache.moves`).
- `load_row(row, source)` makes one row a copy of a row of another cache built from the same
  config (continuous batching); nothing is reallocated once the cache holds its rows.
- `make_static()` gives every decode step from then on one shape and fixed addresses
  (`kvlimit.cache.decode.StaticDecode`): a compiled or captured step serves every step of a run.

Where things live
-----------------
This class is the transformers adapter and the owner of the state; the work is elsewhere:
`decode` and `chunk` plan steps (from `plan`, the eviction rules); `layer.BoundedLayer` carries a
plan out for one layer on the `store` (`KVStore`, or `QuantizedStore` with `kv_dtype`), which owns
every bounded layer's keys and values, `(batch, kv_heads, slots, head_dim)`; `kept.KeptSet` (one per
set of layers that keep the same tokens: one for positional policies, one per bounded layer for a
per-layer policy) says which token each slot holds; `rows.RowCounters` counts per row on the host
and the device; `attention` folds what the attention policies read; `recall_hook.RecallHook` is the
recall tier's narrow interface; `sliding.SlidingLayers` holds transformers' own sliding layers;
`moves` moves rows; `state.CacheState` holds the per-row state; `inspection` reads it for people.
"""

from __future__ import annotations

import logging
from typing import Any

import torch

from ..integrations.hf import Cache
from ..policies import EvictionPolicy
from ..positions import PositionKeeper
from . import moves
from .attention import fold_attention
from .chunk import plan_chunk
from .compiled import compile_blocker
from .decode import StaticDecode, plan_decode
from .inspection import CacheInspection
from .layer import BoundedLayer
from .plan import StepPlan
from .recall import RecallStore
from .recall_hook import RecallHook
from .sliding import SlidingLayers
from .step_inputs import LayerLayout, StepInputs
from .store import KVStore

logger = logging.getLogger(__name__)

__all__ = ["BoundedCache", "LayerLayout", "StepInputs"]


class BoundedCache(CacheInspection, Cache):
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
        _check(cache_limit, policy, store, position_bound, recall)
        self.store = store
        self.slots = store.slots
        statistic = policy.token_statistic if policy.keeps_key_statistic else None
        self._bounded: dict[int, BoundedLayer] = {}
        for idx in layout.bounded:
            kept_set = len(self._bounded) if policy.per_layer else 0
            self._bounded[idx] = BoundedLayer(idx, store, kept_set, statistic)
        self.sliding = SlidingLayers(layout.sliding, layout.rope)
        layers: list[Any] = [self._bounded.get(i) or self.sliding.layers[i] for i in range(len(layout.kinds))]
        super().__init__(layers=layers)
        self.cache_limit = cache_limit
        self.policy = policy
        self.layout = layout
        self.keeper = keeper
        self.recall = recall
        self.recall_hook = None if recall is None else RecallHook(recall, layout.rope)
        #: kept sets: one for every layer (positional policies) or one per bounded layer
        self.n_kept_sets = max(1, len(self._bounded)) if policy.per_layer else 1
        self.bounded_indices = list(self._bounded)
        self.sliding_indices = self.sliding.indices
        #: The `ModelSpec` and `LimitConfig` this cache was built from (set by `kvlimit.build_cache`).
        self.model_spec: Any = None
        self.config: Any = None
        self.evicted = 0
        #: decode steps keep one shape and fixed addresses (`make_static`)
        self.static_shapes = False
        self.static_decode: StaticDecode | None = None
        #: the run's most columns per row, if `make_static` was told (sizes the static recall rings)
        self.static_max_length: int | None = None
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
        return getattr(self.store, "kv_dtype", None)

    @property
    def stats(self) -> dict[str, int]:
        """What the cache has done: tokens evicted, and the position keeper's moves (rebases, re-encodes)."""
        stats = {"rebases": self.keeper.rebases, "reencodes": self.keeper.reencodes, "evicted": self.evicted}
        if self.recall is not None:
            stats["recall_stored"] = self.recall.stored_total
        return stats

    @property
    def sliding_layers(self) -> dict[int, Any]:
        """Transformers' own sliding layers, by model layer index."""
        return self.sliding.layers

    def bounded_layers(self) -> list[BoundedLayer]:
        return list(self._bounded.values())

    def bounded_layer(self, layer_idx: int) -> BoundedLayer | None:
        """The bounded layer of model layer `layer_idx`, or None (one of transformers' own sliding layers)."""
        return self._bounded.get(layer_idx)

    def rotate_sliding_layers(self, delta: torch.Tensor) -> None:
        """Move row b's keys in transformers' own sliding layers by `delta[b]` positions (RoPE)."""
        self.sliding.rotate(delta)

    def sliding_mask(self, new_columns: torch.Tensor) -> torch.Tensor:
        """The 2D mask transformers' own sliding layers need for this step (`SlidingLayers.mask`)."""
        return self.sliding.mask(new_columns, self.columns_seen)

    # --- the attention ------------------------------------------------------------------------
    @property
    def current_plan(self) -> StepPlan | None:
        """The plan of the open step (between `prepare_step` and `advance`), else None."""
        return self._plan if self.step_open else None

    @property
    def attention_record(self) -> Any:
        """Where the attention of this cache's layers is reported (None: the policy reads none)."""
        return self.record_attention if self.policy.reads_attention else None

    @property
    def attention_prepare(self) -> Any:
        """What the attention of this cache's layers calls before attending (`fill_recall`), or None."""
        return None if self.recall is None else self.fill_recall

    def fill_recall(
        self, layer_idx: int, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor
    ) -> None:
        """Write the open step's recalled keys and values of layer `layer_idx` into the recall columns of
        `key` and `value`: the static tier's (`StaticRecall.fill`) once static steps started, else the
        eager tier's (`RecallHook.fill`)."""
        if self.static_recall is not None:
            self.static_recall.fill(layer_idx, query, key, value, self.store)
        elif self.recall_hook is not None:
            self.recall_hook.fill(layer_idx, query, key, value)

    def record_attention(self, layer_idx: int, query: torch.Tensor | None, key: torch.Tensor | None,
                         mask: torch.Tensor | None, scaling: float, weights: torch.Tensor | None = None) -> None:  # fmt: skip
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

    def keep_attended_keys(self) -> None:
        """Have every bounded layer keep the keys it returns until the attention tap takes them (an
        attention that reports its queries but not its keys: `integrations.hf.attention`)."""
        for layer in self._bounded.values():
            layer.keep_attended = True

    # --- a step -------------------------------------------------------------------------------
    def prepare_step(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> StepInputs:
        """Plan the next forward over `input_ids` (batch, q) with mask columns `attention_mask` (batch, q).

        `attention_mask` holds only the new tokens' columns (1 = real token, 0 = padding); None means all
        real. Returns the position ids and attention mask the model must use for this forward; call
        `advance()` after it.
        """
        if input_ids.ndim != 2:
            raise ValueError(f"input_ids must be (batch, tokens); got shape {tuple(input_ids.shape)}")
        self._check_closed()
        batch, q = input_ids.shape
        if self._rows is None:
            self._init_rows(batch, input_ids.device)
        elif batch != self.rows.batch:
            raise ValueError(f"this cache holds {self.rows.batch} rows but the step has {batch}")
        if q == 1 and self.columns_seen > 0 and attention_mask is None:  # a decode step
            if self.static_shapes:
                static = self.open_static_step()
                static.run(input_ids)
                return static.step_inputs
            self.keeper.begin_step(self, [1] * batch)
            plan, step = plan_decode(self, input_ids)
        else:
            if self.static_recall is not None:  # a continued cache: the eager tier plans the chunk
                self.static_recall.unload()
                self.static_recall = self.static_decode = None
            plan, step = plan_chunk(self, input_ids, attention_mask)
        self._begin(plan)
        return step

    def open_static_step(self) -> StaticDecode:
        """Open a static decode step: its host part runs now (`StaticDecode.open`); the returned object's
        `run(input_ids)` is its device part, for the caller to run (inside a compiled step) before the
        forward, whose positions and mask are the object's `positions` and `mask`."""
        if not self.static_shapes or not self.started or self.columns_seen == 0:
            raise RuntimeError("a static decode step needs make_static() and a prefilled cache")
        self._check_closed()
        if self.static_decode is None:
            self.static_decode = StaticDecode(self)
            for tensor in self.state_tensors():  # a captured step reads them in place, not through copies
                torch._dynamo.mark_static_address(tensor)
        self.static_decode.open()
        self._begin(self.static_decode.plan)
        return self.static_decode

    def _check_closed(self) -> None:
        if self.step_open:
            raise RuntimeError(
                "the previous step of this BoundedCache was not advanced: call cache.advance() after each "
                "forward (kvlimit.forward_step does)"
            )

    def _begin(self, plan: StepPlan) -> None:
        self._plan = plan
        for layer in self._bounded.values():
            layer.begin(plan)
        self.step_open = True

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
        self.sliding.advance(plan.q)
        self.step_open = False
        if self.recall_hook is not None:
            self.recall_hook.close()
        self.keeper.end_step(self)

    # --- transformers Cache API --------------------------------------------------------------
    def get_query_offset(self, layer_idx: int = 0) -> int:
        if layer_idx in self._bounded and self._plan is not None:
            return self._plan.kv_length - self._plan.q
        if self.sliding.rings and layer_idx in self.sliding.layers:  # a decode step's query sees every slot
            return int(self.sliding.layers[layer_idx].window) - 1
        return super().get_query_offset(layer_idx)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        """Columns seen before the open step (real tokens and padding), as transformers' layers report;
        see `stored_tokens`. Inside a static decode step, a device tensor (as transformers' StaticLayer
        reports it): a host integer that changes every step would be a new graph every step."""
        if layer_idx in self._bounded:
            static = self.static_decode
            if self.step_open and static is not None and self._plan is static.plan:
                return static.columns - 1  # type: ignore[return-value]
            return self.columns_seen
        return super().get_seq_length(layer_idx)

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        """Reorder every per-row state for beam search (rows of one batch item only move among themselves).
        With recall the order is read on the host: the recall store's block table lives there."""
        if self.started:
            index = beam_idx.to(self.rows.kept_t.device)
            moves.select_rows(self, index, index.tolist() if self.recall is not None else None)

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self.started:
            host = [i for i in range(self.rows.batch) for _ in range(repeats)]
            moves.select_rows(self, torch.tensor(host, device=self.rows.kept_t.device), host)

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.started:
            index = indices.to(self.rows.kept_t.device)
            moves.select_rows(self, index, index.tolist())

    def open_rows(self, batch: int, device: torch.device) -> None:
        """Give an empty cache `batch` empty rows, to be filled by `load_row` (continuous batching)."""
        if self.started:
            raise RuntimeError("this BoundedCache has rows already")
        self._init_rows(batch, device)

    def load_row(self, row: int, source: BoundedCache, source_row: int = 0) -> None:
        """Row `row` becomes a copy of row `source_row` of `source`, a cache built from the same config
        for the same model whose step is closed; this cache's other rows are untouched."""
        moves.load_row(self, row, source, source_row)

    def reset(self) -> None:
        for layer in self._bounded.values():
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

    def make_static(self, max_length: int | None = None) -> None:
        """Give every decode step from now on one shape and fixed addresses (`StaticDecode`), for a
        compiled or captured step; raises `ValueError` naming why where this cache cannot
        (`compile_blocker`). `max_length`: the most columns a row will have seen when the run ends, if
        known; it sizes an unbounded recall store's rings so that they need not grow (and the step
        need not compile again) in the run."""
        reason = compile_blocker(self)
        if reason is not None:
            raise ValueError(f"this bounded cache cannot be compiled: {reason}")
        self.static_max_length = max_length
        self.static_shapes = True
        self.store.mark_static()


def _check(
    cache_limit: int,
    policy: EvictionPolicy,
    store: KVStore,
    position_bound: int | None,
    recall: RecallStore | None,
) -> None:
    """The constructor's arguments agree with each other."""
    policy.check_limit(cache_limit)
    if position_bound is not None and cache_limit > position_bound:
        raise ValueError(
            f"cache_limit={cache_limit} exceeds the {position_bound} positions this model can address; "
            f"use cache_limit <= {position_bound}"
        )
    if store.width > cache_limit:
        raise ValueError(f"the store has {store.width} slots per row, more than cache_limit={cache_limit}")
    if recall is not None and store.width - store.slots != recall.slots:
        raise ValueError(
            f"the store has {store.width - store.slots} scratch slots but recall has {recall.slots}"
        )
