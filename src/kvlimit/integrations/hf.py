"""Every transformers internal kvlimit depends on lives here (checked against transformers 5.25).

Contract: the rest of kvlimit reaches transformers internals (cache protocol, mask builders,
rotary classes, generation loops and modes) only through this module; it imports only public API
(`AutoModelForCausalLM`, `DynamicCache`, stopping criteria, streamers) directly. It provides

- the cache base classes (`Cache`, `CacheLayerMixin`, `DynamicSlidingWindowLayer`);
- `inspect_model(model) -> ModelSpec`: the model's family, positional scheme, per-layer RoPE
  frequencies and layout, layer types and sliding windows; unsupported models get an error that
  lists what is supported;
- `step_model_inputs(...)`: the one path from a bounded cache's step to a forward's inputs (its
  positions and attention mask, a dict of masks where the model mixes bounded layers with its own
  sliding ones), used by `kvlimit.forward_step` and, through `steer_generation`, by generate;
- `steer_generation(...)`: a context manager that, for one `generate` call, replaces the model's
  `prepare_inputs_for_generation` on the instance (never the class) so that every forward gets the
  bounded cache's positions and attention mask, and advances the cache after each forward;
- `run_decoding(...)`: dispatch to transformers' own `_sample` / `_beam_search` loops;
  `prepared_by_generate(generation_config)`: whether transformers' generate prepared a call;
  `enclosing_generate_arguments()`: the `streamer` / `assistant_model` that `GenerationMixin.generate`
  does not forward to a `custom_generate` callable, read from its frame (used only where
  transformers alone saw the call: `custom_generate=kvlimit.generate`);
- the release adapter: the supported range (`MIN_TRANSFORMERS`, checked at import), the name of the
  cache argument (`CACHE_ARG`: `cache` from 5.24, `past_key_values` before) with `cache_argument`,
  `output_cache`, `passed_cache`, `put_cache` and `normalize_cache_argument`, and the per-layer
  types and windows (`layer_types_and_windows`: 5.18 returns one shared dict of layer kwargs).

Facts this relies on (transformers 5.18 to 5.25): `generate(custom_generate=callable)` prepares
inputs, expands rows for beams, then calls the callable with `(model, input_ids,
logits_processor=, stopping_criteria=, generation_config=, **custom_kwargs, **model_kwargs)` and
swallows `streamer`; masks are built by `create_causal_mask` from a 2D mask read at columns
`kv_offset + i` of `cache.get_mask_sizes`, with queries at `cache.get_query_offset` (from 5.14;
kvlimit's floor is 5.18); with no 2D mask they are sized from the cache alone (and sdpa's per-step
all-ones check of a given mask, a host sync, is skipped). A forward given the cache under the other
release's name swallows it into `**kwargs` and runs on a fresh cache of its own, silently: every
call here goes through `cache_argument`, and `probe_kv_shapes` refuses a probe that wrote nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import inspect
import logging
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import torch
import transformers
from packaging.version import Version
from transformers import GenerationConfig, PreTrainedModel
from transformers.cache_utils import (
    Cache,
    CacheLayerMixin,
    DynamicCache,
    DynamicSlidingWindowLayer,
    get_layer_types_and_kwargs,
)
from transformers.generation.configuration_utils import GenerationMode
from transformers.generation.logits_process import LogitsProcessorList
from transformers.generation.stopping_criteria import StoppingCriteriaList
from transformers.generation.utils import GenerationMixin
from transformers.masking_utils import (
    ALL_MASK_ATTENTION_FUNCTIONS,
    create_causal_mask,
    create_sliding_window_causal_mask,
)
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
from transformers.models.auto.configuration_auto import model_type_to_module_name

from ..positions.rope import RopeSpec

logger = logging.getLogger(__name__)

# --- the release adapter ------------------------------------------------------------------------
#: The oldest transformers release kvlimit supports (and tests); pyproject.toml says the same.
MIN_TRANSFORMERS = "5.18.0"
TRANSFORMERS_VERSION = Version(transformers.__version__)
if Version(TRANSFORMERS_VERSION.base_version) < Version(MIN_TRANSFORMERS):
    raise ImportError(
        f"kvlimit needs transformers >= {MIN_TRANSFORMERS} (and < 6); this environment has "
        f"{transformers.__version__}: pip install 'transformers>={MIN_TRANSFORMERS},<6'"
    )


def _names_cache(function: Callable[..., Any]) -> str:
    """The name `function` takes a cache by: `cache` (transformers 5.24 on) or `past_key_values`.

    Tested by the new name's presence: 5.25 shows both names in the mask builders' signatures.
    """
    return "cache" if "cache" in inspect.signature(function).parameters else "past_key_values"


#: The keyword a model forward, generate's model kwargs and the model's outputs use for the cache.
CACHE_ARG = _names_cache(GenerationMixin.prepare_inputs_for_generation)
#: The other release's name for it (accepted from users and renamed).
OTHER_CACHE_ARG = "past_key_values" if CACHE_ARG == "cache" else "cache"
#: The keyword the mask builders take the cache by.
MASK_CACHE_ARG = _names_cache(create_causal_mask)


def cache_argument(cache: Any) -> dict[str, Any]:
    """`{name: cache}` for a model forward or generate, under this release's name."""
    return {CACHE_ARG: cache}


def output_cache(output: Any) -> Any:
    """The cache a model output or a generate output (`return_dict_in_generate=True`) holds."""
    return getattr(output, CACHE_ARG)


def passed_cache(kwargs: dict[str, Any]) -> Any:
    """The cache a call's keyword arguments (or generate's model kwargs) carry, or None."""
    return kwargs.get(CACHE_ARG)


def put_cache(kwargs: dict[str, Any], cache: Any) -> None:
    """Make `cache` the one generate's model kwargs carry (replacing generate's own)."""
    kwargs.pop(OTHER_CACHE_ARG, None)
    kwargs[CACHE_ARG] = cache


def normalize_cache_argument(kwargs: dict[str, Any]) -> None:
    """A user's `cache=` / `past_key_values=` under this release's name (either is accepted)."""
    if kwargs.get(OTHER_CACHE_ARG) is None:
        kwargs.pop(OTHER_CACHE_ARG, None)
        return
    if kwargs.get(CACHE_ARG) is not None:
        raise ValueError("pass the cache once: cache= (transformers 5.24 on) or past_key_values= (before)")
    kwargs[CACHE_ARG] = kwargs.pop(OTHER_CACHE_ARG)


def layer_types_and_windows(config: Any) -> tuple[list[str], list[int | None]]:
    """Per layer, its type ("full_attention", "sliding_attention", ...) and sliding window (None: full).

    transformers 5.18 returns one dict of layer kwargs shared by every layer; 5.19 on, one per layer.
    """
    layer_types, per_layer = get_layer_types_and_kwargs(config)
    if isinstance(per_layer, dict):
        sliding = ("sliding_attention", "hybrid_sliding", "chunked_attention")
        window = per_layer.get("sliding_window")
        return list(layer_types), [window if lt in sliding else None for lt in layer_types]
    return list(layer_types), [kw.get("sliding_window") for kw in per_layer]


__all__ = [
    "ATTENTION_IMPLEMENTATIONS",
    "CACHE_ARG",
    "FAMILIES",
    "MASK_CACHE_ARG",
    "MIN_TRANSFORMERS",
    "OTHER_CACHE_ARG",
    "TRANSFORMERS_VERSION",
    "Cache",
    "CacheLayerMixin",
    "DynamicCache",
    "DynamicSlidingWindowLayer",
    "Family",
    "GenerationConfig",
    "GenerationMode",
    "KVShape",
    "LogitsProcessorList",
    "ModelSpec",
    "PlannedCache",
    "StoppingCriteriaList",
    "UnsupportedModelError",
    "attention_families",
    "attention_tap",
    "attn_implementation",
    "build_mask_dict",
    "cache_argument",
    "check_decoding_mode",
    "enclosing_generate_arguments",
    "generation_mode",
    "inspect_model",
    "is_user_cache",
    "kv_bytes",
    "kv_bytes_of_layer",
    "layer_types_and_windows",
    "make_reencode_fn",
    "model_name",
    "normalize_cache_argument",
    "output_cache",
    "passed_cache",
    "prepared_by_generate",
    "probe_kv_bytes_per_token",
    "probe_kv_shapes",
    "put_cache",
    "run_decoding",
    "steer_generation",
    "step_model_inputs",
    "stock_generate",
    "supported_families",
    "takes_logits_to_keep",
    "text_config",
]

PositionKind = Literal["rope", "alibi", "absolute"]


@dataclass(frozen=True)
class Family:
    """What kvlimit knows about one `model_type`."""

    positions: PositionKind
    interleaved: bool = False  # RoPE layout: GPT-J style pairs instead of half-split
    mask_dict: bool = False  # the model accepts a dict of masks keyed by layer type


#: Supported decoder-only model types. Falcon and MPT are resolved per config (rope or ALiBi).
FAMILIES: dict[str, Family] = {
    # RoPE, half-split layout (Llama style); partial rotary where the config says so
    "llama": Family("rope"),
    "mistral": Family("rope"),
    "mixtral": Family("rope"),
    "qwen2": Family("rope", mask_dict=True),
    "qwen3": Family("rope", mask_dict=True),
    "qwen3_moe": Family("rope", mask_dict=True),
    "gemma": Family("rope"),
    "gemma2": Family("rope", mask_dict=True),
    "gemma3_text": Family("rope", mask_dict=True),
    "phi": Family("rope"),
    "phi3": Family("rope"),
    "stablelm": Family("rope"),
    "gpt_neox": Family("rope"),
    "starcoder2": Family("rope"),
    "olmo2": Family("rope"),
    "granite": Family("rope"),
    "smollm3": Family("rope", mask_dict=True),
    "falcon": Family("rope"),
    # RoPE, interleaved pairs
    "gptj": Family("rope", interleaved=True),
    "cohere": Family("rope", interleaved=True),
    # ALiBi
    "bloom": Family("alibi"),
    "mpt": Family("alibi"),
    # learned absolute positions
    "gpt2": Family("absolute"),
    "opt": Family("absolute"),
    "gpt_bigcode": Family("absolute"),
}

#: Model types that keep recurrent / state-space state: a token cache cannot bound them.
_RECURRENT_HINTS = (
    "mamba",
    "rwkv",
    "jamba",
    "zamba",
    "recurrent",
    "xlstm",
    "lfm2",
    "bamba",
    "hybrid",
    "_next",
    "falcon_h1",
)

ATTENTION_IMPLEMENTATIONS = ("sdpa", "eager", "flash_attention_2", "flash_attention_3")


class UnsupportedModelError(ValueError):
    """The model cannot be used with a bounded cache; the message lists what is supported."""


def supported_families() -> list[str]:
    return sorted(FAMILIES)


def _unsupported(model_type: str, why: str) -> UnsupportedModelError:
    return UnsupportedModelError(
        f"model_type {model_type!r} is not supported by kvlimit: {why}. "
        f"Supported decoder-only families: {', '.join(supported_families())}"
    )


@dataclass(frozen=True)
class ModelSpec:
    """The facts about one model that the bounded cache needs.

    Attributes:
        model_type: transformers' `config.model_type` of the text decoder.
        positions: "rope", "alibi" or "absolute".
        layer_types: per layer, "full_attention" or "sliding_attention".
        sliding_windows: per layer, the model's own window (None for full attention).
        rope: per layer, how its keys rotate (None outside RoPE families).
        position_bound: positions must stay below this (learned table size, GPT-J's sin/cos table,
            or the context past which dynamic/longrope frequencies change); None if unbounded.
        accepts_position_ids: the forward takes `position_ids`.
        mask_dict: the forward accepts a dict of masks keyed by layer type.
        attn_implementation: the model's attention implementation.
    """

    model_type: str
    positions: PositionKind
    layer_types: list[str]
    sliding_windows: list[int | None]
    rope: list[RopeSpec | None]
    position_bound: int | None
    accepts_position_ids: bool
    mask_dict: bool
    attn_implementation: str

    @property
    def mask_optional(self) -> bool:
        """The model needs no 2D mask when every key is a kept token.

        True where the causal mask comes from the cache's sizes alone. ALiBi models build their
        biases from the 2D mask, and a model without `position_ids` may derive positions from it.
        """
        return self.positions != "alibi" and self.accepts_position_ids

    @property
    def num_layers(self) -> int:
        return len(self.layer_types)

    @property
    def scheme(self) -> str:
        """A one-line description of the positional scheme."""
        if self.positions == "rope":
            first = next((r for r in self.rope if r is not None), None)
            if first is None:
                return "rope"
            layout = "interleaved" if first.interleaved else "half-split"
            return f"rope ({layout}, {first.rotary_dim} rotary dims)"
        if self.positions == "absolute":
            return f"learned absolute positions (table of {self.position_bound})"
        return self.positions


def text_config(model: PreTrainedModel) -> Any:
    return model.config.get_text_config(decoder=True)


def model_name(model: PreTrainedModel) -> str:
    """The folder or hub name the model was loaded from ('' for a model built from a config)."""
    return str(getattr(text_config(model), "_name_or_path", "") or "")


def attn_implementation(model: PreTrainedModel) -> str:
    """The attention implementation the model runs ("sdpa", "eager", ...)."""
    return str(getattr(model.config, "_attn_implementation", None) or "eager")


def is_user_cache(cache: Any) -> bool:
    """True for a cache object the user built and passed to generate (generate marks those)."""
    return bool(getattr(cache, "_is_user_defined", False))


def inspect_model(model: PreTrainedModel) -> ModelSpec:
    """Describe `model` for the bounded cache, or raise `UnsupportedModelError`."""
    if not isinstance(model, PreTrainedModel):
        raise ValueError(
            f"model must be a transformers model (a PreTrainedModel such as AutoModelForCausalLM gives); "
            f"got {type(model).__name__}"
        )
    config = text_config(model)
    model_type = str(getattr(config, "model_type", "unknown"))
    if getattr(model.config, "is_encoder_decoder", False):
        raise _unsupported(model_type, "it is an encoder-decoder model; kvlimit bounds decoder-only caches")
    if model_type not in FAMILIES:
        if any(hint in model_type for hint in _RECURRENT_HINTS):
            raise _unsupported(
                model_type, "it keeps recurrent (state-space) state, which a token cache cannot bound"
            )
        raise _unsupported(model_type, "its positional scheme has not been verified")
    family = FAMILIES[model_type]
    positions = family.positions
    if model_type == "falcon" and getattr(config, "alibi", False):
        positions = "alibi"
    attn = attn_implementation(model)
    if attn not in ATTENTION_IMPLEMENTATIONS:
        raise ValueError(
            f"attn_implementation={attn!r} is not supported with a bounded cache; use one of "
            f"{', '.join(ATTENTION_IMPLEMENTATIONS)} (load the model with attn_implementation='sdpa')"
        )
    if attn.startswith("flash") and positions == "alibi":
        raise ValueError(f"{model_type} with ALiBi needs attn_implementation 'sdpa' or 'eager', not {attn!r}")
    layer_types, windows = layer_types_and_windows(config)
    for lt in layer_types:
        if lt not in ("full_attention", "sliding_attention"):
            raise _unsupported(
                model_type, f"it has {lt!r} layers; kvlimit supports full and sliding attention layers"
            )
    rope: list[RopeSpec | None] = [None] * len(layer_types)
    bound: int | None = None
    if positions == "rope":
        rope = _rope_specs(model, config, model_type, family, layer_types)
        # SmolLM3 leaves RoPE out of some layers ("NoPE"): their keys carry no position to move
        no_rope = getattr(config, "no_rope_layers", None)
        if no_rope is not None:
            rope = [spec if no_rope[i] else None for i, spec in enumerate(rope)]
        bounds = [r.position_bound for r in rope if r is not None and r.position_bound is not None]
        bound = min(bounds) if bounds else None
    elif positions == "absolute":
        bound = _absolute_table_size(config, model_type)
    elif model_type == "mpt":
        # MPT slices its ALiBi bias from a table of max_seq_len keys: no more keys than that per query
        bound = int(config.max_seq_len)
    accepts = "position_ids" in inspect.signature(model.forward).parameters
    return ModelSpec(
        model_type=model_type,
        positions=positions,
        layer_types=list(layer_types),
        sliding_windows=windows,
        rope=rope,
        position_bound=bound,
        accepts_position_ids=accepts,
        mask_dict=family.mask_dict,
        attn_implementation=attn,
    )


def _absolute_table_size(config: Any, model_type: str) -> int:
    for name in ("n_positions", "max_position_embeddings"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    raise _unsupported(model_type, "its position table size is unknown")


def _rope_specs(
    model: PreTrainedModel, config: Any, model_type: str, family: Family, layer_types: list[str]
) -> list[RopeSpec | None]:
    """Per-layer RoPE frequencies, read from the model's rotary module (its original, unscaled state)."""
    if model_type == "gptj":
        # GPT-J looks sin/cos up in a table of max_position_embeddings rows built from these frequencies
        head_dim = config.n_embd // config.n_head
        dim = config.rotary_dim or head_dim
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.int64) / dim))
        spec = RopeSpec(
            inv_freq.float(), dim, interleaved=True, position_bound=config.max_position_embeddings
        )
        return [spec] * len(layer_types)
    rotaries = [
        m
        for m in model.modules()
        if hasattr(m, "original_inv_freq")
        or any(hasattr(m, f"{lt}_original_inv_freq") for lt in set(layer_types))
    ]
    if not rotaries:
        raise _unsupported(model_type, "its rotary embedding module was not found")
    rotary = rotaries[0]
    specs: list[RopeSpec | None] = []
    cache: dict[str, RopeSpec] = {}
    for lt in layer_types:
        if lt in cache:
            specs.append(cache[lt])
            continue
        per_type = hasattr(rotary, f"{lt}_original_inv_freq")
        inv_freq = getattr(rotary, f"{lt}_original_inv_freq" if per_type else "original_inv_freq")
        rope_type = rotary.rope_type[lt] if isinstance(rotary.rope_type, dict) else rotary.rope_type
        bound = _rope_position_bound(rotary, config, str(rope_type), lt if per_type else None)
        spec = RopeSpec(
            inv_freq.detach().float().cpu(),
            2 * inv_freq.numel(),
            interleaved=family.interleaved,
            position_bound=bound,
        )
        cache[lt] = spec
        specs.append(spec)
    return specs


def _rope_position_bound(rotary: Any, config: Any, rope_type: str, layer_type: str | None) -> int | None:
    """Positions below this keep the rotary frequencies fixed (dynamic / longrope change past it)."""
    if "dynamic" in rope_type:
        return int(rotary.original_max_seq_len)
    if rope_type == "longrope":
        params = config.rope_parameters[layer_type] if layer_type else config.rope_parameters
        return int(params["original_max_position_embeddings"])
    return None


# --- masks ------------------------------------------------------------------------------------
def build_mask_dict(
    model: PreTrainedModel,
    cache: Any,
    bounded_mask: torch.Tensor | None,
    stock_mask: torch.Tensor | None,
    position_ids: torch.Tensor | None,
    query_ids: torch.Tensor,
) -> dict[str, Any]:
    """Masks for a model mixing bounded layers with transformers' own sliding layers.

    Bounded (full-attention) layers read `bounded_mask`, whose columns are the cache's slots (None:
    every slot is a kept token); transformers' sliding layers read generate's own growing 2D mask, as
    they always do. `query_ids` (batch, q) are the step's new tokens.
    """
    query_length = query_ids.shape[1]
    config = text_config(model)
    embeds = torch.empty((query_ids.shape[0], query_length, 0), dtype=model.dtype, device=query_ids.device)
    common = {"config": config, "inputs_embeds": embeds, MASK_CACHE_ARG: cache, "position_ids": position_ids}
    return {
        "full_attention": create_causal_mask(attention_mask=bounded_mask, **common),
        "sliding_attention": create_sliding_window_causal_mask(attention_mask=stock_mask, **common),
    }


# --- generation -------------------------------------------------------------------------------
#: (layer_idx, query, key, mask, scaling, weights) -> None; see `attention_tap`.
AttentionRecord = Callable[[int, torch.Tensor, torch.Tensor, Any, float, Any], None]


class PlannedCache(Protocol):
    """What the step functions need of a bounded cache (`kvlimit.BoundedCache` is one)."""

    bounded_indices: list[int]
    sliding_indices: list[int]
    columns_seen: int
    step_open: bool

    def prepare_step(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> Any: ...

    def advance(self) -> None: ...

    def sliding_mask(self, new_columns: torch.Tensor) -> torch.Tensor: ...

    @property
    def attention_record(self) -> AttentionRecord | None: ...


def step_model_inputs(
    model: PreTrainedModel,
    cache: PlannedCache,
    spec: ModelSpec,
    input_ids: torch.Tensor,
    new_columns: torch.Tensor | None,
) -> dict[str, Any]:
    """Plan the next step on `cache` and return what the forward must get: `attention_mask` and `position_ids`.

    input_ids: (batch, q) the new tokens; new_columns: (batch, q), 1 = real token, 0 = left padding,
    or None when all are real (a decode step: nothing is read from the device). Bounded layers read the
    cache's own mask over its slots (None, the causal mask from the cache's sizes, when every slot is a
    kept token and the model allows it); transformers' own sliding layers read a mask over every column
    seen so far, which the cache remembers (`BoundedCache.sliding_mask`); a model with both gets a dict.
    """
    step = cache.prepare_step(input_ids, new_columns)
    position_ids = step.position_ids if spec.accepts_position_ids else None
    bounded_mask = None if step.mask_all_kept and spec.mask_optional else step.attention_mask
    mask: Any = bounded_mask
    if cache.sliding_indices:
        columns = torch.ones_like(input_ids) if new_columns is None else new_columns.to(input_ids.device)
        stock = cache.sliding_mask(columns)
        if cache.bounded_indices:
            mask = build_mask_dict(model, cache, bounded_mask, stock, position_ids, input_ids)
        else:
            mask = stock
    inputs: dict[str, Any] = {"attention_mask": mask}
    if position_ids is not None:
        inputs["position_ids"] = position_ids
    return inputs


@contextlib.contextmanager
def steer_generation(model: Any, cache: PlannedCache, spec: ModelSpec) -> Iterator[None]:
    """Within the block, every forward that `generate` prepares gets the bounded cache's inputs.

    The model's `prepare_inputs_for_generation` is shadowed on the instance and restored on exit. Each
    prepared forward first advances the cache past the previous one (it has run by then); leaving the
    block normally advances past the last.
    """
    had_instance_attr = "prepare_inputs_for_generation" in model.__dict__
    original = model.prepare_inputs_for_generation
    # Phi3 overrides it to drop the cache and re-feed the whole sequence when positions cross its
    # original context (longrope switches frequencies there). kvlimit keeps positions below that
    # context, so the switch never happens and the generic preparation is the right one.
    inner = (
        GenerationMixin.prepare_inputs_for_generation.__get__(model)
        if spec.model_type == "phi3"
        else original
    )

    def prepare(input_ids: torch.Tensor, *args: Any, **kwargs: Any) -> dict[str, Any]:
        model_inputs = inner(input_ids, *args, **kwargs)
        if model_inputs.get(CACHE_ARG) is not cache:
            raise RuntimeError(
                f"{type(model).__name__}.prepare_inputs_for_generation replaced the bounded cache; "
                "kvlimit cannot bound this model's generation"
            )
        new_ids = model_inputs["input_ids"]
        if new_ids is None:
            raise ValueError("kvlimit does not support inputs_embeds generation; pass input_ids")
        if cache.step_open:
            cache.advance()
        q = new_ids.shape[1]
        stock_mask = kwargs.get("attention_mask")
        # One column after the cache has seen some is a real token in every row: a decode step, or the
        # prompt's last column after kvlimit's own prefill (prompts are left-padded). Skip reading the
        # mask (no host sync). A whole prompt at once may hold padding.
        one_real_column = q == 1 and cache.columns_seen > 0
        new_columns = None if (one_real_column or stock_mask is None) else stock_mask[:, -q:]
        model_inputs.update(step_model_inputs(model, cache, spec, new_ids, new_columns))
        return model_inputs

    model.prepare_inputs_for_generation = prepare
    try:
        with contextlib.ExitStack() as stack:
            if cache.attention_record is not None:
                stack.enter_context(attention_tap(model, spec, cache.attention_record))
            yield
        if cache.step_open:
            cache.advance()
    finally:
        if had_instance_attr:
            model.prepare_inputs_for_generation = original
        else:
            del model.prepare_inputs_for_generation


def takes_logits_to_keep(model: PreTrainedModel) -> bool:
    """The forward takes `logits_to_keep` (a forward that needs only the last logits can skip the rest)."""
    try:
        return "logits_to_keep" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


# --- attention scores -------------------------------------------------------------------------
_ATTENTION_TAP: contextvars.ContextVar[AttentionRecord | None] = contextvars.ContextVar(
    "kvlimit_tap", default=None
)
_TAPPABLE = ("sdpa", "eager")


@functools.cache
def _uses_attention_registry(model_type: str) -> bool:
    """Whether the installed transformers runs this family's attention through `AttentionInterface`.

    Read from the modeling module itself, because it changes between releases: Falcon computes its
    attention inline in 5.24 and through the registry from 5.25; Bloom and MPT always inline.
    """
    module = model_type_to_module_name(model_type)
    modeling = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    return hasattr(modeling, "ALL_ATTENTION_FUNCTIONS")


def attention_families() -> list[str]:
    """The supported families whose attention kvlimit can read scores from (`attention_tap`)."""
    return sorted(name for name in FAMILIES if _uses_attention_registry(name))


def _tapped(name: str) -> Callable[..., tuple[torch.Tensor, Any]]:
    """An attention function that runs implementation `name`, then reports to the tap in effect."""

    def attention(
        module: Any,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        attention_mask: Any,
        **kwargs: Any,
    ) -> tuple[torch.Tensor, Any]:
        # eager is not in the registry: each modeling file has its own (soft-capping, upcasting, ...)
        original = (
            sys.modules[type(module).__module__].eager_attention_forward
            if name == "eager"
            else ALL_ATTENTION_FUNCTIONS[name]
        )
        output, weights = original(module, query, key, value, attention_mask, **kwargs)
        record = _ATTENTION_TAP.get()
        layer_idx = getattr(module, "layer_idx", None)
        if record is not None and layer_idx is not None:
            scaling = kwargs.get("scaling") or query.shape[-1] ** -0.5
            record(int(layer_idx), query, key, attention_mask, float(scaling), weights)
        return output, weights

    return attention


@contextlib.contextmanager
def attention_tap(model: PreTrainedModel, spec: ModelSpec, record: AttentionRecord) -> Iterator[None]:
    """Within the block, every attention call of `model` also hands its queries and keys to `record`.

    The model runs its own attention as before (sdpa or eager, whose weights are passed on): the
    model's attention implementation is set, for the block, to a registered wrapper of it with the
    same mask function (transformers' `AttentionInterface` / `AttentionMaskInterface`), and restored.
    """
    name = spec.attn_implementation
    if not _uses_attention_registry(spec.model_type):
        raise ValueError(
            f"{spec.model_type} computes attention in its own code, which kvlimit cannot read scores from; "
            f"policies that choose by attention work with {', '.join(attention_families())}"
        )
    if name not in _TAPPABLE:
        raise ValueError(
            f"policies that choose by attention need attn_implementation 'sdpa' or 'eager'; the model uses {name!r}"
        )
    tapped = f"kvlimit_tap_{name}"
    if tapped not in ALL_ATTENTION_FUNCTIONS:
        ALL_ATTENTION_FUNCTIONS.register(tapped, _tapped(name))
        ALL_MASK_ATTENTION_FUNCTIONS.register(tapped, ALL_MASK_ATTENTION_FUNCTIONS[name])
    token = _ATTENTION_TAP.set(record)
    previous = model.config._attn_implementation  # the tap may already be on (a forward inside generate)
    model.config._attn_implementation = tapped
    try:
        yield
    finally:
        model.config._attn_implementation = previous
        _ATTENTION_TAP.reset(token)


def make_reencode_fn(model: PreTrainedModel) -> Any:
    """A function that runs a fresh forward over kept tokens and returns each layer's (keys, values)."""
    extra = {"logits_to_keep": 1} if takes_logits_to_keep(model) else {}

    def reencode(
        ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor
    ) -> list[tuple[torch.Tensor, torch.Tensor]]:
        fresh = DynamicCache(config=text_config(model))
        with torch.no_grad():
            out = model(
                input_ids=ids,
                attention_mask=mask,
                position_ids=positions,
                **cache_argument(fresh),
                use_cache=True,
                **extra,
            )
        return [(layer.keys, layer.values) for layer in output_cache(out).layers]

    return reencode


#: Decoding modes kvlimit runs, by transformers' generation mode.
_DECODING_METHODS = {
    GenerationMode.GREEDY_SEARCH: "_sample",
    GenerationMode.SAMPLE: "_sample",
    GenerationMode.BEAM_SEARCH: "_beam_search",
    GenerationMode.BEAM_SAMPLE: "_beam_search",
}

#: Why the other modes are refused with a bounded cache.
_UNSUPPORTED_MODES = {
    GenerationMode.ASSISTED_GENERATION: (
        "assisted / speculative decoding verifies several draft tokens per step and rolls the cache "
        "back when they are rejected; a bounded cache has already evicted what a rollback would need"
    ),
    GenerationMode.CONTRASTIVE_SEARCH: "contrastive search lives in a Hub repository in transformers 5 and is not run by kvlimit",
    GenerationMode.DOLA_GENERATION: "DoLa lives in a Hub repository in transformers 5 and is not run by kvlimit",
    GenerationMode.GROUP_BEAM_SEARCH: "group beam search lives in a Hub repository in transformers 5 and is not run by kvlimit",
    GenerationMode.CONSTRAINED_BEAM_SEARCH: "constrained beam search lives in a Hub repository in transformers 5 and is not run by kvlimit",
}


def check_decoding_mode(mode: GenerationMode) -> None:
    if mode in _DECODING_METHODS:
        return
    why = _UNSUPPORTED_MODES.get(mode, "it is not one of the supported modes")
    supported = "greedy search, multinomial sampling, beam search and beam sampling"
    raise ValueError(
        f"{mode.value.replace('_', ' ')} is not supported with cache_limit: {why}. Supported: {supported}"
    )


def run_decoding(
    model: PreTrainedModel,
    mode: GenerationMode,
    input_ids: torch.Tensor,
    logits_processor: LogitsProcessorList,
    stopping_criteria: StoppingCriteriaList,
    generation_config: GenerationConfig,
    streamer: Any,
    model_kwargs: dict[str, Any],
) -> Any:
    """Run transformers' own decoding loop for `mode`."""
    method_name = _DECODING_METHODS.get(mode)
    if method_name is None:
        raise ValueError(
            f"{mode.value.replace('_', ' ')} cannot run through custom_generate=kvlimit.generate; "
            "call model.generate without it (kvlimit.enable routes such calls to transformers)"
        )
    method = getattr(model, method_name)
    extra = {"streamer": streamer} if method_name == "_sample" else {}
    return method(
        input_ids,
        logits_processor=logits_processor,
        stopping_criteria=stopping_criteria,
        generation_config=generation_config,
        **extra,
        **model_kwargs,
    )


def prepared_by_generate(generation_config: Any) -> bool:
    """True when `GenerationMixin.generate` prepared this call's generation config (it is calling a
    `custom_generate` callable), False for a user's call.

    `generate` works on a deep copy of the user's config and sets the tensors of its special tokens
    on it (`_prepare_special_tokens`: `_eos_token_tensor`, ...), which a config a user makes or loads
    never has; every release from 5.18 to 5.25 does.
    """
    return isinstance(generation_config, GenerationConfig) and "_eos_token_tensor" in vars(generation_config)


_GENERATE_CODE = inspect.unwrap(GenerationMixin.generate).__code__


def enclosing_generate_arguments() -> dict[str, Any]:
    """`streamer` and `assistant_model` of the enclosing `GenerationMixin.generate` call.

    transformers does not forward them to a `custom_generate` callable: `_extract_generation_mode_kwargs`
    replaces them by the callable's own new keyword arguments, and `streamer` is a named parameter
    of `generate`, so it never reaches the callable by any argument. The generate frame still holds
    them as locals; this is the one place kvlimit reads a frame, and only for
    `custom_generate=kvlimit.generate` (a direct call and an enabled model carry them themselves).
    Returns {} when no such frame is on the stack.
    """
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is _GENERATE_CODE:
            local = frame.f_locals
            return {name: local.get(name) for name in ("streamer", "assistant_model")}
        frame = frame.f_back  # type: ignore[assignment]
    return {}


def generation_mode(generation_config: GenerationConfig, assistant_model: Any = None) -> GenerationMode:
    return generation_config.get_generation_mode(assistant_model)


def stock_generate(model: Any, *args: Any, **kwargs: Any) -> Any:
    """transformers' own `generate`, bypassing an instance-level override set by `kvlimit.enable`."""
    return type(model).generate(model, *args, **kwargs)


def kv_bytes(cache: Any) -> int:
    """Bytes of keys and values a transformers cache holds now (every layer, every row), allocated storage included.

    A cache with its own count (`nbytes()`: a `BoundedCache`, quantized layers included) gives it.
    """
    if callable(getattr(cache, "nbytes", None)):
        return int(cache.nbytes())
    return sum(kv_bytes_of_layer(layer) for layer in getattr(cache, "layers", []))


def kv_bytes_of_layer(layer: Any) -> int:
    """Bytes of one transformers cache layer's `keys` and `values` tensors."""
    total = 0
    for tensor in (getattr(layer, "keys", None), getattr(layer, "values", None)):
        if isinstance(tensor, torch.Tensor):
            total += tensor.numel() * tensor.element_size()
    return total


@dataclass(frozen=True)
class KVShape:
    """One layer's cache of one token of one row: key and value heads and dims, bytes per element,
    and the device the layer's keys are on."""

    key_heads: int
    key_dim: int
    value_heads: int
    value_dim: int
    element_size: int
    device: str = "cpu"

    @property
    def nbytes(self) -> int:
        return (self.key_heads * self.key_dim + self.value_heads * self.value_dim) * self.element_size


def probe_kv_shapes(model: PreTrainedModel) -> list[KVShape]:
    """Per layer, the shape one token takes in one sequence's cache.

    Measured with a one-token forward through a `DynamicCache`, so it is right for every family
    (grouped-query, multi-query, per-layer head sizes) without reading family-specific config fields.
    """
    probe = DynamicCache(config=text_config(model))
    device = next(model.parameters()).device
    ids = torch.zeros((1, 1), dtype=torch.long, device=device)
    with torch.no_grad():
        model(input_ids=ids, **cache_argument(probe), use_cache=True)
    shapes = []
    for layer in probe.layers:
        keys, values = getattr(layer, "keys", None), getattr(layer, "values", None)
        if isinstance(keys, torch.Tensor) and isinstance(values, torch.Tensor) and keys.numel():
            shapes.append(
                KVShape(keys.shape[1], keys.shape[-1], values.shape[1], values.shape[-1], keys.element_size(),
                        str(keys.device))
            )  # fmt: skip
    if len(shapes) != len(probe.layers) or not shapes:
        raise RuntimeError(
            f"{type(model).__name__} wrote no keys into the cache passed as {CACHE_ARG}= (transformers "
            f"{transformers.__version__}): it would run on a cache of its own, unbounded; kvlimit cannot bound it"
        )
    return shapes


def probe_kv_bytes_per_token(model: PreTrainedModel) -> int:
    """Bytes of keys and values one token takes in one sequence's cache, summed over layers."""
    return sum(shape.nbytes for shape in probe_kv_shapes(model))
