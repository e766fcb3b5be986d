"""`kvlimit.generate` and `kvlimit.enable`: a `cache_limit=` argument for transformers' generate.

Contract
--------
- `kvlimit.generate(model, input_ids=..., attention_mask=..., cache_limit=N, **generate_kwargs)`
  and `model.generate(..., custom_generate=kvlimit.generate, cache_limit=N)` run transformers' own
  decoding loops (greedy, sampling, beam search, beam sampling) with a `BoundedCache` that never
  holds more than N tokens per row. Without `cache_limit` both behave exactly like stock generate.
- `kvlimit.enable(model)` opts one model instance in: afterwards `model.generate(..., cache_limit=N)`
  works; calls without `cache_limit` go to stock generate untouched. Nothing is patched at import.
- Bad arguments raise `ValueError` naming the parameter; unsupported models and decoding modes
  raise errors that say what is supported. With `return_dict_in_generate=True` the output's
  `cache` (alias `past_key_values`) is the `BoundedCache`.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
from typing import Any

import torch

from .cache import BoundedCache, LayerLayout, quant
from .cache.quant import DEFAULT_KV_GROUP
from .config import LimitConfig
from .integrations import hf
from .policies import EvictionPolicy
from .positions import make_keeper

logger = logging.getLogger(__name__)

#: Positional policies rebase RoPE keys once positions reach max(this, 4 x the limit): rare, and small
#: enough that float32 angles stay exact.
REBASE_MIN = 32768
#: Per-layer policies re-rank RoPE keys to in-cache positions when positions reach this x the limit,
#: so no kept key is ever further than that from the query.
RANK_EVERY = 2
#: Every setting of a registered policy is an argument of generate (transformers hands a
#: custom_generate only the arguments its signature names; tests/test_arguments.py checks the list).
POLICY_SETTINGS = ("n_sink", "n_recent", "window", "pool", "decode_policy")
#: Arguments of generate that configure the bounded cache (all need cache_limit).
_LIMIT_OPTIONS = ("policy", "positions", "prefill_chunk", "kv_dtype", "kv_group", *POLICY_SETTINGS)


def _needs_limit(options: dict[str, Any]) -> ValueError:
    """The error for cache options given without `cache_limit` (`options` by name, None when not given)."""
    given = " and ".join(name for name, value in options.items() if value is not None)
    verb = "needs" if " and " not in given else "need"
    return ValueError(
        f"{given} {verb} cache_limit: policy, window, pool, decode_policy, n_sink, n_recent, positions, "
        "prefill_chunk, kv_dtype and kv_group need cache_limit; pass cache_limit=N"
    )


def _limit_config(cache_limit: int | str, options: dict[str, Any]) -> LimitConfig:
    """The validated `LimitConfig` of generate's cache arguments (`options` keyed by `_LIMIT_OPTIONS`)."""
    settings = {name: options.get(name) for name in POLICY_SETTINGS}
    return LimitConfig.create(
        cache_limit,
        options.get("policy"),
        positions=options.get("positions"),
        prefill_chunk=options.get("prefill_chunk"),
        kv_dtype=options.get("kv_dtype"),
        kv_group=options.get("kv_group"),
        **settings,
    )


def generate(
    model: Any,
    input_ids: torch.Tensor | None = None,
    logits_processor: Any = None,
    stopping_criteria: Any = None,
    generation_config: Any = None,
    *,
    cache_limit: int | str | None = None,
    policy: str | EvictionPolicy | None = None,
    n_sink: int | None = None,
    n_recent: int | None = None,
    window: int | None = None,
    pool: int | None = None,
    decode_policy: str | None = None,
    positions: str | None = None,
    prefill_chunk: int | None = None,
    kv_dtype: str | None = None,
    kv_group: int | None = None,
    streamer: Any = None,
    **kwargs: Any,
) -> Any:
    """Generate with at most `cache_limit` tokens of KV cache per sequence.

    Args:
        model: a transformers causal LM of a supported family (`kvlimit.supported_families()`).
        input_ids: (batch, prompt) token ids, left-padded for batches (with `attention_mask`).
        cache_limit: the most tokens the cache holds per sequence (int), or a memory budget for the
            whole cache such as "256MiB". None: stock generate.
        policy: a registered policy's name (`kvlimit.POLICIES`): "sinks" (default: StreamingLLM,
            the first `n_sink` tokens + the most recent), "window", and per layer "knorm" (smallest
            key norms), "tova" (the tokens the newest query attends to most), "h2o" (the most
            attended, on average) or "snapkv" (long prompts: what each chunk's last queries attend
            to); or an `EvictionPolicy` object.
        n_sink: the first tokens every policy but "window" never evicts (default 4).
        n_recent: newest tokens "knorm" and "h2o" keep by recency (default: a quarter / half the limit).
        window: "snapkv": how many of a prompt chunk's last queries observe (default 32).
        pool: "snapkv": observed scores are averaged over this many neighbouring keys (odd, default 5).
        decode_policy: "snapkv": how generation goes on after the prompt, "sinks" (default) or "tova".
        positions: "auto"; for learned-absolute-position models (gpt2, opt, gpt_bigcode) also
            "reencode" (default: re-encode the kept window when positions would leave the table)
            or "clamp" (cheap: positions stop at the table's last entry).
        prefill_chunk: tokens per forward when the prompt is longer than the limit (default: a
            quarter of the limit, at most the limit minus the protected tokens).
        kv_dtype: store the bounded cache quantized: "int8" or "fp8" (about a half of bfloat16's
            bytes), "int4" (about a third); None (default) keeps the model's dtype. Per token, in
            blocks of `kv_group` dims with one float16 scale each; the sinks stay in the model's dtype.
        kv_group: dims per quantization block (default 32, as llama.cpp's q8_0 / q4_0).
        streamer: a transformers streamer; receives the tokens as they are generated.
        **kwargs: anything transformers' `generate` takes (max_new_tokens, do_sample, num_beams, ...).

    Returns:
        What transformers' `generate` returns: a tensor of sequences, or a `ModelOutput` with
        `return_dict_in_generate=True` whose `cache` is the `BoundedCache`.
    """
    options = {"policy": policy, "positions": positions, "prefill_chunk": prefill_chunk, "n_sink": n_sink,
               "n_recent": n_recent, "window": window, "pool": pool, "decode_policy": decode_policy,
               "kv_dtype": kv_dtype, "kv_group": kv_group}  # fmt: skip
    if not hf.is_prepared_call(logits_processor, stopping_criteria, generation_config, kwargs):
        return _generate_from_user(
            model,
            input_ids,
            logits_processor,
            stopping_criteria,
            generation_config,
            cache_limit=cache_limit,
            streamer=streamer,
            **options,
            **kwargs,
        )
    assert input_ids is not None
    call = hf.generate_call_locals()
    streamer = streamer if streamer is not None else call.get("streamer")
    mode = hf.generation_mode(generation_config, call.get("assistant_model"))
    if cache_limit is None:
        if any(v is not None for v in options.values()):
            raise _needs_limit(options)
        return hf.run_decoding(
            model, mode, input_ids, logits_processor, stopping_criteria, generation_config, streamer, kwargs
        )
    config = _limit_config(cache_limit, options)
    hf.check_decoding_mode(mode)
    spec = hf.inspect_model(model)
    if kwargs.get("inputs_embeds") is not None:
        raise ValueError("kvlimit does not support inputs_embeds; pass input_ids")
    generation_config = _with_cache_on(generation_config, kwargs)
    cache, chunk = _prepare_cache(model, spec, config, input_ids, int(generation_config.max_length), kwargs)
    with hf.steer_generation(model, cache, spec):
        if chunk is not None:
            prefill(model, cache, input_ids, kwargs["attention_mask"], chunk)
        return hf.run_decoding(
            model, mode, input_ids, logits_processor, stopping_criteria, generation_config, streamer, kwargs
        )


def _with_cache_on(generation_config: Any, kwargs: dict[str, Any]) -> Any:
    """A copy of the generation config with `use_cache` on (some configs, MPT's, default to no cache)."""
    generation_config = copy.deepcopy(generation_config)
    if not generation_config.use_cache:
        # a cache limit means a cache, and the outputs are the same
        logger.info("kvlimit: turning use_cache on (the model's generation config had it off)")
        generation_config.use_cache = True
        kwargs["use_cache"] = True
    return generation_config


def _prepare_cache(
    model: Any,
    spec: hf.ModelSpec,
    config: LimitConfig,
    input_ids: torch.Tensor,
    max_length: int,
    kwargs: dict[str, Any],
) -> tuple[BoundedCache, int | None]:
    """The call's bounded cache (put into `kwargs`) and the prompt's prefill chunk (None: one forward)."""
    rows, prompt_length = input_ids.shape
    cache = _cache_for_call(model, spec, config, kwargs, rows, max_length)
    chunk = _prefill_chunk(config, cache, prompt_length)
    kwargs["cache"] = cache
    if kwargs.get("attention_mask") is None:
        # transformers slices the prompt by the cache's length only when it has a mask to measure it by
        kwargs["attention_mask"] = torch.ones_like(input_ids)
    logger.info(
        "kvlimit: %s, %d rows, %s, %d slots allocated%s",
        config.describe(),
        rows,
        spec.scheme,
        cache.slots,
        f", prefill in chunks of {chunk}" if chunk else "",
    )
    return cache, chunk


def _generate_from_user(
    model: Any,
    input_ids: torch.Tensor | None,
    logits_processor: Any,
    stopping_criteria: Any,
    generation_config: Any,
    *,
    cache_limit: int | str | None,
    streamer: Any,
    **options: Any,
) -> Any:
    """A direct call `kvlimit.generate(model, ...)`: validate, then go through transformers' generate."""
    limit_options = {k: options.pop(k, None) for k in _LIMIT_OPTIONS}
    if input_ids is not None:
        options["input_ids"] = input_ids
    for name, value in (
        ("generation_config", generation_config),
        ("logits_processor", logits_processor),
        ("stopping_criteria", stopping_criteria),
        ("streamer", streamer),
    ):
        if value is not None:
            options[name] = value
    if cache_limit is None:
        if any(v is not None for v in limit_options.values()):
            raise _needs_limit(limit_options)
        return hf.stock_generate(model, **options)
    _limit_config(cache_limit, limit_options)  # fail fast, before transformers prepares anything
    hf.inspect_model(model)
    return hf.stock_generate(
        model, custom_generate=generate, cache_limit=cache_limit, **limit_options, **options
    )


def _cache_for_call(
    model: Any, spec: hf.ModelSpec, config: LimitConfig, kwargs: dict[str, Any], rows: int, max_length: int
) -> BoundedCache:
    existing = kwargs.get("cache")
    if isinstance(existing, BoundedCache):
        if config.cache_limit_tokens is not None and existing.cache_limit != config.cache_limit_tokens:
            raise ValueError(
                f"cache_limit={config.cache_limit_tokens} differs from the passed BoundedCache's limit {existing.cache_limit}"
            )
        if existing.policy != config.policy:
            raise ValueError(
                f"policy {config.policy.describe()} differs from the passed BoundedCache's {existing.policy.describe()}"
            )
        if existing.kv_dtype != config.kv_dtype:
            raise ValueError(
                f"kv_dtype={config.kv_dtype!r} differs from the passed BoundedCache's {existing.kv_dtype!r}"
            )
        return existing
    if existing is not None and hf.is_user_cache(existing):
        raise ValueError(
            "with cache_limit, pass no cache (kvlimit builds one) or a kvlimit.BoundedCache to continue"
        )
    per_token, per_row = token_cost(model, config)
    limit = config.tokens_for(per_token, rows, per_row)
    return build_cache(model, spec, config, limit, max_length)


def build_cache(
    model: Any,
    spec: hf.ModelSpec,
    config: LimitConfig,
    limit: int,
    max_length: int | None,
    *,
    rebase_after: int | None = None,
    rank_every: int = RANK_EVERY,
) -> BoundedCache:
    """A `BoundedCache` for `model` with `limit` tokens per row.

    rebase_after: RoPE keys of a positional policy are rebased to in-cache positions before a
    position reaches this (default `max(4 x limit, REBASE_MIN)`); a per-layer policy re-ranks a
    row's keys when its positions reach `rank_every x limit`. Both are kept below the model's own
    position bound (dynamic / longrope contexts, GPT-J's table).
    """
    _check_count("limit", limit, at_least=1)
    _check_count("max_length", max_length, at_least=1, none_means="the limit")
    _check_count("rebase_after", rebase_after, at_least=1, none_means="the default interval")
    _check_count("rank_every", rank_every, at_least=1)
    if not isinstance(config, LimitConfig):
        raise ValueError(
            f"config must be a kvlimit.LimitConfig (LimitConfig.create(...)); got {type(config).__name__}"
        )
    kinds = []
    for layer_type, window in zip(spec.layer_types, spec.sliding_windows, strict=True):
        # a model's own sliding window smaller than the limit already bounds its layer: keep it
        kinds.append(
            "sliding"
            if layer_type == "sliding_attention" and window is not None and window < limit
            else "bounded"
        )
    if "sliding" in kinds and "bounded" in kinds and not spec.mask_dict:
        raise hf.UnsupportedModelError(
            f"{spec.model_type} mixes sliding and full attention layers but its forward takes no dict of masks; "
            f"use cache_limit <= {min(w for w in spec.sliding_windows if w is not None)}"
        )
    layout = LayerLayout(kinds=kinds, sliding_windows=spec.sliding_windows, rope=spec.rope)
    # a re-encode is one fresh forward over one kept window: per-layer policies keep one per layer
    absolute_mode = "clamp" if config.policy.per_layer else "reencode"
    if config.positions != "auto":
        if spec.positions != "absolute":
            raise ValueError(
                f"positions={config.positions!r} applies to learned absolute positions (gpt2, opt, gpt_bigcode); "
                f"{spec.model_type} uses {spec.scheme}, whose kept tokens always take in-cache positions"
            )
        absolute_mode = config.positions
    if spec.positions == "rope":
        if rebase_after is None:
            rebase_after = rank_every * limit if config.policy.per_layer else max(4 * limit, REBASE_MIN)
        if spec.position_bound is not None:
            rebase_after = min(rebase_after, spec.position_bound)
    reencode = None
    if spec.positions == "absolute" and absolute_mode == "reencode":
        reencode = hf.make_reencode_fn(model)
    keeper = make_keeper(
        spec.positions,
        config.policy,
        absolute_mode=absolute_mode,
        position_bound=spec.position_bound,
        rebase_after=rebase_after,
        reencode=reencode,
    )
    cache = BoundedCache(
        limit,
        config.policy,
        layout,
        keeper,
        max_length=max_length,
        position_bound=spec.position_bound,
        kv_dtype=config.kv_dtype,
        kv_group=config.kv_group,
    )
    cache.model_spec = spec
    return cache


def _check_count(name: str, value: object, *, at_least: int, none_means: str | None = None) -> None:
    if value is None and none_means is not None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < at_least:
        allowed = f"an int >= {at_least}" + (f" or None ({none_means})" if none_means else "")
        raise ValueError(f"{name} must be {allowed}; got {value!r}")


def forward_step(
    model: Any,
    cache: BoundedCache,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    **forward_kwargs: Any,
) -> Any:
    """One model forward through a bounded cache outside `generate` (custom loops, evaluation).

    input_ids: (batch, q) new tokens; attention_mask: (batch, q) for just these tokens (1 = real,
    0 = left padding), None when all are real. A forward may bring at most the policy's
    `max_chunk(cache_limit)` tokens (the limit minus its protected tokens). Plans the step, runs the
    forward and advances the cache. Returns the model output (logits for every new token unless
    `logits_to_keep` is passed).
    """
    spec = cache.model_spec or hf.inspect_model(model)
    columns = None if attention_mask is None else attention_mask.to(input_ids.device)
    inputs = hf.step_model_inputs(model, cache, spec, input_ids, columns)
    with torch.no_grad(), contextlib.ExitStack() as stack:
        if cache.attention_record is not None:
            stack.enter_context(hf.attention_tap(model, spec, cache.attention_record))
        out = model(input_ids=input_ids, cache=cache, use_cache=True, **inputs, **forward_kwargs)
    cache.advance()
    return out


def prefill_spans(columns: int, chunk: int) -> list[tuple[int, int]]:
    """The column spans `[start, end)` that feed all but the last of `columns` prompt columns in chunks.

    Chunks of at most `chunk` columns are counted back from the last column, so that every row's
    chunks end at the same distances from its last token, whatever its left padding: a row's chunks,
    and so what it evicts before each of them, are the same alone as in any batch.
    """
    ends = range(columns - 1, 0, -chunk)
    return [(max(0, end - chunk), end) for end in reversed(ends)]


def prefill(
    model: Any, cache: BoundedCache, input_ids: torch.Tensor, attention_mask: torch.Tensor, chunk: int
) -> None:
    """Feed a prompt but its last column through `cache` in the chunks of `prefill_spans`.

    generate then runs the last column itself (its logits give the first new token), as a decode
    step (one real token per row): transformers slices the prompt by the columns the cache has seen.
    """
    extra = {"logits_to_keep": 1} if hf.takes_logits_to_keep(model) else {}
    for start, end in prefill_spans(input_ids.shape[1], chunk):
        # with their mask columns, chunks are planned as prompt chunks (the phase SnapKV reads)
        forward_step(model, cache, input_ids[:, start:end], attention_mask[:, start:end], **extra)


def _prefill_chunk(config: LimitConfig, cache: BoundedCache, prompt_length: int) -> int | None:
    room = cache.policy.max_chunk(cache.cache_limit)
    if config.prefill_chunk is not None:
        if config.prefill_chunk > room:
            raise ValueError(
                f"prefill_chunk={config.prefill_chunk} exceeds the {room} unprotected tokens of the cache"
            )
        return config.prefill_chunk
    if prompt_length <= cache.cache_limit:
        return None
    return cache.policy.default_chunk(cache.cache_limit)


def kv_bytes_per_token(model: Any, kv_dtype: str | None = None, kv_group: int = DEFAULT_KV_GROUP) -> int:
    """Bytes of keys and values one token takes in the cache of one sequence (all layers).

    The model's dtype: measured once per model, dtype and device with a one-token forward (exact for
    every family), then remembered on the model. Quantized (`kv_dtype`): the codes and scales of
    those same key and value shapes (`kvlimit.cache.quant`); the layers of a model's own sliding
    window stay in its dtype and are counted so.
    """
    key = (str(model.dtype), str(model.device))
    known = getattr(model, "_kvlimit_kv_shapes", None)
    if known is None or known[0] != key:
        known = (key, hf.probe_kv_shapes(model))
        model._kvlimit_kv_shapes = known
    shapes: list[hf.KVShape] = known[1]
    if kv_dtype is None:
        return sum(shape.nbytes for shape in shapes)
    stored = quant.scheme(kv_dtype)
    spec = hf.inspect_model(model)
    sliding = {i for i, kind in enumerate(spec.layer_types) if kind == "sliding_attention"}
    total = 0
    for idx, shape in enumerate(shapes):
        if idx in sliding:
            total += shape.nbytes
            continue
        for heads, dim in ((shape.key_heads, shape.key_dim), (shape.value_heads, shape.value_dim)):
            total += heads * stored.bytes_per_vector(dim, quant.block_size(dim, kv_group))
    return total


def largest_layer_bytes_per_token(model: Any) -> int:
    """One token's keys and values in the model's dtype in its largest layer: what a quantized cache
    dequantizes at a time, per token (the transient the planner counts)."""
    kv_bytes_per_token(model)  # measures and remembers the shapes
    return max(shape.nbytes for shape in model._kvlimit_kv_shapes[1])


def token_cost(model: Any, config: LimitConfig) -> tuple[int, int]:
    """(bytes per token, fixed bytes per row) of `config`'s cache for `model`, one row.

    A row of `n` tokens takes `n x bytes_per_token + bytes_per_row`: a quantized cache also keeps
    its policy's sinks in the model's dtype (`bytes_per_row`); a float cache has none.
    """
    per_token = kv_bytes_per_token(model, config.kv_dtype, config.kv_group)
    if config.kv_dtype is None:
        return per_token, 0
    return per_token, config.policy.protected_tokens * kv_bytes_per_token(model)


def enable(model: Any) -> Any:
    """Opt `model` in: afterwards `model.generate(..., cache_limit=N)` uses a bounded cache.

    Calls without `cache_limit` run transformers' generate untouched. Returns the model.
    """
    hf.inspect_model(model)  # fail now, not at the first generate
    if getattr(model, "_kvlimit_enabled", False):
        return model

    @functools.wraps(type(model).generate)
    def bounded_generate(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("cache_limit") is None:
            options = {name: kwargs.pop(name, None) for name in _LIMIT_OPTIONS}
            if any(v is not None for v in options.values()):
                raise _needs_limit(options)
            return hf.stock_generate(model, *args, **kwargs)
        if "custom_generate" in kwargs:
            raise ValueError("custom_generate cannot be combined with cache_limit on a kvlimit-enabled model")
        return hf.stock_generate(model, *args, custom_generate=generate, **kwargs)

    model.generate = bounded_generate
    model._kvlimit_enabled = True
    return model


def disable(model: Any) -> Any:
    """Undo `enable(model)`. Returns the model."""
    if getattr(model, "_kvlimit_enabled", False):
        del model.generate
        del model._kvlimit_enabled
    return model
