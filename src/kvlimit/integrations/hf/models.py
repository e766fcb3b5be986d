"""What kvlimit knows about a model: its family, positional scheme, layers and rotary frequencies.

Contract: `inspect_model(model)` returns a `ModelSpec` (the facts the bounded cache needs) or raises
`UnsupportedModelError` listing the supported families; `FAMILIES` is the one list of them.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from typing import Any, Literal

import torch
from transformers import PreTrainedModel

from ...positions.rope import RopeSpec
from .release import layer_types_and_windows

logger = logging.getLogger(__name__)

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
