"""`kvlimit.build_cache`: a `BoundedCache` for a model, from a `LimitConfig`.

Contract: `build_cache(model, config, rows=..., max_length=...)` reads the model's facts once
(`integrations.hf.inspect_model`: family, positions, layer types, rotary frequencies; `sizing`: the
shape of one token in each layer), resolves a byte budget to tokens for `rows` rows, and puts the
cache together: which layers are bounded and which stay transformers' own sliding layers, the store
that owns their keys and values (quantized with `kv_dtype`), the position keeper for the model's
scheme, and `cache.config`, the config with its limit in tokens. Errors name the parameter; a model
kvlimit cannot bound raises `UnsupportedModelError` listing what is supported.
"""

from __future__ import annotations

from typing import Any

from .cache import BoundedCache, KVStore, LayerLayout, QuantizedStore, StoreLayout
from .cache.recall import RecallStore, block_for
from .checks import check_int
from .config import RECALL_POSITIONS, LimitConfig
from .integrations import hf
from .positions import make_keeper
from .sizing import kv_shapes, recall_capacity, token_limit

#: Positional policies rebase RoPE keys once positions reach max(this, 4 x the limit): rare, and small
#: enough that float32 angles stay exact.
REBASE_MIN = 32768
#: Per-layer policies re-rank RoPE keys to in-cache positions when positions reach this x the limit,
#: so no kept key is ever further than that from the query.
RANK_EVERY = 2


def build_cache(
    model: Any,
    config: LimitConfig,
    *,
    rows: int = 1,
    max_length: int | None = None,
    rebase_after: int | None = None,
    rank_every: int = RANK_EVERY,
) -> BoundedCache:
    """A `BoundedCache` for `model` as `config` says, for `rows` rows (batch x beams).

    max_length: the longest sequence the cache will see; storage is `min(limit, max_length)` slots
    per row (None: the limit). rebase_after: RoPE keys of a positional policy are rebased to in-cache
    positions before a position reaches this (default `max(4 x limit, REBASE_MIN)`); a per-layer
    policy re-ranks a row's keys when its positions reach `rank_every x limit`. Both are kept below
    the model's own position bound (dynamic / longrope contexts, GPT-J's table).
    """
    if not isinstance(config, LimitConfig):
        raise ValueError(
            f"config must be a kvlimit.LimitConfig (LimitConfig.create(...)); got {type(config).__name__}"
        )
    check_int("rows", rows, at_least=1)
    check_int("max_length", max_length, at_least=1, none_means="the limit")
    check_int("rebase_after", rebase_after, at_least=1, none_means="the default interval")
    check_int("rank_every", rank_every, at_least=1)
    spec = hf.inspect_model(model)
    limit = token_limit(model, config, rows)
    policy = config.policy
    layout = _layout(spec, limit)
    absolute_mode = _absolute_mode(spec, config)
    if spec.positions == "rope":
        if rebase_after is None:
            rebase_after = rank_every * limit if policy.per_layer else max(4 * limit, REBASE_MIN)
        if spec.position_bound is not None:
            rebase_after = min(rebase_after, spec.position_bound)
    reencode = (
        hf.make_reencode_fn(model) if spec.positions == "absolute" and absolute_mode == "reencode" else None
    )
    # "full": the sinks at their own distance as well as the recalled tokens, so every attended token
    # sits where the full cache has it (the recent window does already); "distance" leaves them just
    # before the window, where a bounded cache's perplexity measured better (README)
    place, sinks_at_index = RECALL_POSITIONS[config.recall_positions]
    at_index = bool(config.recall) and sinks_at_index
    context = trained_context(model)
    keeper = make_keeper(spec.positions, policy, absolute_mode=absolute_mode, position_bound=spec.position_bound,
                         rebase_after=rebase_after, reencode=reencode, recall=config.recall,
                         sinks_at_index=at_index, max_distance=context if at_index else None)  # fmt: skip
    kept = limit - config.recall  # slots that keep tokens; the recall tier's R columns are scratch
    slots = kept if max_length is None else max(1, min(kept, max_length))
    store = _store(
        model, config, layout, slots, sinks_pristine=spec.positions == "rope" and not policy.per_layer
    )
    recall = _recall_store(model, config, spec, layout, rows, place, context) if config.recall else None
    cache = BoundedCache(
        limit, policy, layout, keeper, store, position_bound=spec.position_bound, recall=recall
    )
    cache.model_spec = spec
    cache.config = config.with_tokens(limit)
    if policy.reads_attention and hf.tap_reports_queries(spec):
        cache.keep_attended_keys()
    return cache


def _layout(spec: hf.ModelSpec, limit: int) -> LayerLayout:
    """Which layers are bounded: all but a model's own sliding layers whose window is below the limit."""
    kinds = [
        "sliding"
        if layer_type == "sliding_attention" and window is not None and window < limit
        else "bounded"
        for layer_type, window in zip(spec.layer_types, spec.sliding_windows, strict=True)
    ]
    if "sliding" in kinds and "bounded" in kinds and not spec.mask_dict:
        raise hf.UnsupportedModelError(
            f"{spec.model_type} mixes sliding and full attention layers but its forward takes no dict of masks; "
            f"use cache_limit <= {min(w for w in spec.sliding_windows if w is not None)}"
        )
    return LayerLayout(kinds=kinds, sliding_windows=spec.sliding_windows, rope=spec.rope)


def _recall_store(
    model: Any,
    config: LimitConfig,
    spec: hf.ModelSpec,
    layout: LayerLayout,
    rows: int,
    place: str,
    context: int | None,
) -> RecallStore:
    """The recall tier's store for the bounded layers (RoPE or none; attention through the registry),
    placing recalled tokens by `place` no farther than `context` (the trained context) from the query."""
    if spec.positions != "rope":
        raise hf.UnsupportedModelError(
            f"recall places recalled tokens by rotating RoPE keys; {spec.model_type} uses {spec.scheme}. "
            f"recall works with the RoPE families: {', '.join(recall_families())}"
        )
    if not hf.can_prepare(spec):
        raise hf.UnsupportedModelError(
            f"recall fills its keys inside the attention, which {spec.model_type} with attn_implementation="
            f"{spec.attn_implementation!r} does not let kvlimit reach in this transformers release; use 'sdpa' or "
            f"'eager' with one of: {', '.join(recall_families())}"
        )
    bounded = layout.bounded
    shapes = kv_shapes(model)
    groups: dict[tuple[Any, ...], list[int]] = {}
    for idx in bounded:
        groups.setdefault((shapes[idx], id(layout.rope[idx])), []).append(idx)
    block = recall_block_tokens(config)
    capacity = recall_capacity(model, config, bounded, rows, block)
    if capacity is not None and capacity < config.recall:
        raise ValueError(
            f"recall_store holds {capacity} tokens per sequence, fewer than recall={config.recall} slots; "
            "give it room for at least the recalled slots"
        )
    return RecallStore(
        [(members, layout.rope[members[0]]) for members in groups.values()],
        config.recall,
        capacity=capacity,
        recall_dtype=config.recall_dtype,
        score=config.recall_score,
        block=block,
        every=config.recall_every,
        place=place,
        max_distance=context,
    )


def trained_context(model: Any) -> int | None:
    """The model's `max_position_embeddings` (its trained context: the farthest a recalled token is
    placed), or None when it has none."""
    value = getattr(hf.text_config(model), "max_position_embeddings", None)
    return int(value) if isinstance(value, int) and value > 0 else None


def recall_block(model: Any, config: LimitConfig, limit: int) -> tuple[int, int]:
    """(tokens, bytes) of one row's recall block for `config.recall` slots at `limit` tokens: the bounded
    layers' keys and values in `config.recall_dtype` and their key bounds (`sizing.recall_block_bytes`)."""
    from .sizing import recall_block_bytes

    block = recall_block_tokens(config)
    layers = _layout(hf.inspect_model(model), limit).bounded
    return block, recall_block_bytes(model, layers, config.recall_dtype, block, config.recall_score)


def recall_block_tokens(config: LimitConfig) -> int:
    """Tokens per block of `config`'s recall store: its `recall_block`, else `block_for(recall)`."""
    return config.recall_block or block_for(config.recall)


def recall_families() -> list[str]:
    """The families recall works with in the installed transformers: RoPE, attention through the registry."""
    prepared = set(hf.prepare_families())
    return [name for name, family in hf.FAMILIES.items() if family.positions == "rope" and name in prepared]


def _absolute_mode(spec: hf.ModelSpec, config: LimitConfig) -> str:
    """How learned absolute positions are kept: the user's `positions=`, else reencode (clamp per layer:
    a re-encode is one fresh forward over one kept window, and per-layer policies keep one per layer)."""
    if config.positions == "auto":
        return "clamp" if config.policy.per_layer else "reencode"
    if spec.positions != "absolute":
        raise ValueError(
            f"positions={config.positions!r} applies to learned absolute positions (gpt2, opt, gpt_bigcode); "
            f"{spec.model_type} uses {spec.scheme}, whose kept tokens always take in-cache positions"
        )
    return config.positions


def _store(
    model: Any, config: LimitConfig, layout: LayerLayout, slots: int, *, sinks_pristine: bool
) -> KVStore:
    """The store of the bounded layers: float, or quantized with `config.kv_dtype`."""
    shapes = kv_shapes(model)
    bounded = layout.bounded
    store_layout = StoreLayout(
        slots,
        bounded,
        shapes={i: shapes[i] if i < len(shapes) else None for i in bounded},
        rope={i: layout.rope[i] for i in bounded},
        pristine_slots=config.policy.protected_tokens if sinks_pristine else 0,
        scratch=config.recall,
    )
    if config.kv_dtype is None:
        return KVStore(store_layout)
    return QuantizedStore(store_layout, kv_dtype=config.kv_dtype, kv_group=config.kv_group,
                          float_slots=config.policy.protected_tokens)  # fmt: skip
