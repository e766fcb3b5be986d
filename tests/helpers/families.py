"""Tiny random decoder-only models, one per architecture family, built offline from configs.

Every builder returns a model small enough for a 2-core CPU (hidden 64, 2 heads of 32 dims -- falcon_gqa: 4 of
16 --, vocab 128, position table 96, float32, < 250k parameters) that still exercises the feature that sets its
family apart: the RoPE layout and rotary width, ALiBi, learned absolute positions, multi-query / grouped-query
attention, sliding-window layers, mixture-of-experts, NoPE layers. ``notes/families.md`` documents what each family does at run time (where its positions come from,
what it does with a 2D mask, how it calls ``cache.update``) in transformers 5.25.

Usage::

    from tests.helpers.families import FAMILIES, make_config, make_model

    model = make_model("llama")                         # sdpa, 2 layers, seed 0
    model = make_model("gptj", attn_implementation="eager", num_layers=1)
    config = make_config("llama", rope_type="yarn")     # any of ROPE_TYPES
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch
from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig, PreTrainedModel

__all__ = [
    "ALIBI_FAMILIES",
    "EAGER_ONLY_FAMILIES",
    "FAMILIES",
    "INIT_RANGE",
    "LEARNED_POSITION_FAMILIES",
    "MAX_POSITIONS",
    "ORIGINAL_MAX_POSITIONS",
    "ROPE_FAMILIES",
    "ROPE_TYPES",
    "SLIDING_WINDOW",
    "TOKEN_IDS",
    "VOCAB_SIZE",
    "attn_implementations",
    "make_config",
    "make_model",
    "model_type",
    "rope_parameters_for",
    "serves_recall",
]

VOCAB_SIZE = 128
HIDDEN = 64
HEADS = 2
INTERMEDIATE = 128
# Position table size / RoPE "pretraining" length. A 24-token prompt plus 40 new tokens fits; tests that want to
# run past the table (learned absolute positions, GPT-J's sinusoid table, MPT's ALiBi table) only need ~100 steps.
MAX_POSITIONS = 96
# Threshold length of the scaled RoPE types (yarn, longrope, llama3): the implicit factor is 96 / 48 = 2.
ORIGINAL_MAX_POSITIONS = MAX_POSITIONS // 2
SLIDING_WINDOW = 8
# 10x the usual 0.02: attention is then far from uniform and logits far from flat, so a wrong position or a
# dropped key changes greedy tokens (with 0.02 the attention entropy of these models is ~ln(seq_len)).
INIT_RANGE = 0.2
# pad is distinct from eos everywhere; all three are inside the vocabulary.
TOKEN_IDS = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}

ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3")
_ROPE_FACTOR = 2.0


def _common(**extra: Any) -> dict[str, Any]:
    # Untied heads: with tied embeddings these random models mostly repeat one token.
    return {
        "vocab_size": VOCAB_SIZE,
        "tie_word_embeddings": False,
        "initializer_range": INIT_RANGE,
        **TOKEN_IDS,
        **extra,
    }


def _llama_like(num_layers: int, *, kv_heads: int = 1, **extra: Any) -> dict[str, Any]:
    return _common(
        hidden_size=HIDDEN,
        intermediate_size=INTERMEDIATE,
        num_hidden_layers=num_layers,
        num_attention_heads=HEADS,
        num_key_value_heads=kv_heads,
        max_position_embeddings=MAX_POSITIONS,
        **extra,
    )


def _alternating(num_layers: int) -> list[str]:
    """sliding, full, sliding, full, ... (gemma2's own default order)."""
    return ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(num_layers)]


def _llama(n: int) -> dict[str, Any]:
    return _llama_like(n)


def _mistral(n: int) -> dict[str, Any]:
    return _llama_like(n, sliding_window=SLIDING_WINDOW)


def _mixtral(n: int) -> dict[str, Any]:
    return _llama_like(n, num_local_experts=4, num_experts_per_tok=2, sliding_window=None)


def _qwen2(n: int) -> dict[str, Any]:
    return _llama_like(n)


def _qwen3(n: int) -> dict[str, Any]:
    return _llama_like(n, head_dim=HIDDEN // HEADS)


def _qwen3_moe(n: int) -> dict[str, Any]:
    return _llama_like(
        n,
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=32,
        decoder_sparse_step=1,
        mlp_only_layers=[],
    )


def _gemma(n: int) -> dict[str, Any]:
    return _llama_like(n, head_dim=HIDDEN // HEADS)


def _gemma2(n: int) -> dict[str, Any]:
    return _llama_like(
        n,
        head_dim=HIDDEN // HEADS,
        query_pre_attn_scalar=HIDDEN // HEADS,
        sliding_window=SLIDING_WINDOW,
        layer_types=_alternating(n),
    )


def _gemma3_text(n: int) -> dict[str, Any]:
    # The default pattern is 5 sliding layers per full one, so small models would be all-sliding: alternate.
    return _llama_like(
        n,
        head_dim=HIDDEN // HEADS,
        query_pre_attn_scalar=HIDDEN // HEADS,
        sliding_window=SLIDING_WINDOW,
        layer_types=_alternating(n),
    )


def _phi(n: int) -> dict[str, Any]:
    return _llama_like(
        n, kv_heads=HEADS, rope_parameters={"rope_type": "default", "partial_rotary_factor": 0.5}
    )


def _phi3(n: int) -> dict[str, Any]:
    # Phi-4-mini style partial rotary. `original_max_position_embeddings` is kept at the table size so that
    # Phi3ForCausalLM.prepare_inputs_for_generation never drops the cache (see notes/families.md).
    return _llama_like(
        n,
        original_max_position_embeddings=MAX_POSITIONS,
        rope_parameters={"rope_type": "default", "partial_rotary_factor": 0.75},
    )


def _gpt_neox(n: int) -> dict[str, Any]:
    return _common(
        hidden_size=HIDDEN,
        intermediate_size=INTERMEDIATE,
        num_hidden_layers=n,
        num_attention_heads=HEADS,
        max_position_embeddings=MAX_POSITIONS,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
    )


def _stablelm(n: int) -> dict[str, Any]:
    return _llama_like(
        n, kv_heads=HEADS, rope_parameters={"rope_type": "default", "partial_rotary_factor": 0.25}
    )


def _gptj(n: int) -> dict[str, Any]:
    # Interleaved (rotate_every_two) RoPE on the first `rotary_dim` of the 32 head dims.
    return _common(
        n_embd=HIDDEN, n_layer=n, n_head=HEADS, n_inner=INTERMEDIATE, n_positions=MAX_POSITIONS, rotary_dim=8
    )


def _cohere(n: int) -> dict[str, Any]:
    # Interleaved RoPE, but through the standard rotary_emb / rope_parameters path (unlike GPT-J).
    return _llama_like(n)


def _gpt2(n: int) -> dict[str, Any]:
    return _common(
        n_embd=HIDDEN,
        n_layer=n,
        n_head=HEADS,
        n_inner=INTERMEDIATE,
        n_positions=MAX_POSITIONS,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
    )


def _gpt_bigcode(n: int) -> dict[str, Any]:
    return _common(
        n_embd=HIDDEN,
        n_layer=n,
        n_head=HEADS,
        n_inner=INTERMEDIATE,
        n_positions=MAX_POSITIONS,
        multi_query=True,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
    )


def _opt(n: int) -> dict[str, Any]:
    kwargs = _common(
        hidden_size=HIDDEN,
        num_hidden_layers=n,
        num_attention_heads=HEADS,
        ffn_dim=INTERMEDIATE,
        max_position_embeddings=MAX_POSITIONS,
        word_embed_proj_dim=HIDDEN,
        dropout=0.0,
    )
    kwargs["init_std"] = kwargs.pop("initializer_range")  # OPT's name for it
    return kwargs


def _bloom(n: int) -> dict[str, Any]:
    return _common(hidden_size=HIDDEN, n_layer=n, n_head=HEADS)


def _falcon(n: int) -> dict[str, Any]:
    # Falcon-7B style: RoPE, multi-query (one K/V head), parallel attention + MLP.
    return _common(
        hidden_size=HIDDEN,
        num_hidden_layers=n,
        num_attention_heads=HEADS,
        max_position_embeddings=MAX_POSITIONS,
        alibi=False,
        multi_query=True,
        parallel_attn=True,
        new_decoder_architecture=False,
    )


def _falcon_alibi(n: int) -> dict[str, Any]:
    # Falcon-RW style: ALiBi, full multi-head attention, sequential attention then MLP, biases.
    return _common(
        hidden_size=HIDDEN,
        num_hidden_layers=n,
        num_attention_heads=HEADS,
        max_position_embeddings=MAX_POSITIONS,
        alibi=True,
        multi_query=False,
        parallel_attn=False,
        new_decoder_architecture=False,
        bias=True,
    )


def _falcon_gqa(n: int) -> dict[str, Any]:
    # Falcon-40B style: RoPE, "new decoder architecture" with grouped K/V heads.
    return _common(
        hidden_size=HIDDEN,
        num_hidden_layers=n,
        num_attention_heads=HEADS * 2,
        num_kv_heads=2,
        max_position_embeddings=MAX_POSITIONS,
        alibi=False,
        new_decoder_architecture=True,
        parallel_attn=True,
    )


def _mpt(n: int) -> dict[str, Any]:
    return _common(
        d_model=HIDDEN,
        n_layers=n,
        n_heads=HEADS,
        expansion_ratio=2,
        max_seq_len=MAX_POSITIONS,
        attn_config={"alibi": True, "alibi_bias_max": 8},
    )


def _starcoder2(n: int) -> dict[str, Any]:
    return _llama_like(n, sliding_window=None, residual_dropout=0.0, embedding_dropout=0.0)


def _olmo2(n: int) -> dict[str, Any]:
    return _llama_like(n)


def _granite(n: int) -> dict[str, Any]:
    return _llama_like(
        n, embedding_multiplier=2.0, logits_scaling=2.0, residual_multiplier=0.5, attention_multiplier=0.2
    )


def _smollm3(n: int) -> dict[str, Any]:
    # Every second layer is NoPE (no rotary embedding at all): no_rope_layers = [1, 0, 1, 0, ...].
    return _llama_like(n, no_rope_layer_interval=2)


# family name -> (model_type, kwargs builder)
_SPECS: dict[str, tuple[str, Callable[[int], dict[str, Any]]]] = {
    "llama": ("llama", _llama),
    "mistral": ("mistral", _mistral),
    "mixtral": ("mixtral", _mixtral),
    "qwen2": ("qwen2", _qwen2),
    "qwen3": ("qwen3", _qwen3),
    "qwen3_moe": ("qwen3_moe", _qwen3_moe),
    "gemma": ("gemma", _gemma),
    "gemma2": ("gemma2", _gemma2),
    "gemma3_text": ("gemma3_text", _gemma3_text),
    "phi": ("phi", _phi),
    "phi3": ("phi3", _phi3),
    "gpt_neox": ("gpt_neox", _gpt_neox),
    "stablelm": ("stablelm", _stablelm),
    "gptj": ("gptj", _gptj),
    "cohere": ("cohere", _cohere),
    "gpt2": ("gpt2", _gpt2),
    "gpt_bigcode": ("gpt_bigcode", _gpt_bigcode),
    "opt": ("opt", _opt),
    "bloom": ("bloom", _bloom),
    "falcon": ("falcon", _falcon),
    "falcon_alibi": ("falcon", _falcon_alibi),
    "falcon_gqa": ("falcon", _falcon_gqa),
    "mpt": ("mpt", _mpt),
    "starcoder2": ("starcoder2", _starcoder2),
    "olmo2": ("olmo2", _olmo2),
    "granite": ("granite", _granite),
    "smollm3": ("smollm3", _smollm3),
}

FAMILIES: tuple[str, ...] = tuple(_SPECS)

ALIBI_FAMILIES = frozenset({"bloom", "falcon_alibi", "mpt"})
LEARNED_POSITION_FAMILIES = frozenset({"gpt2", "gpt_bigcode", "opt"})
ROPE_FAMILIES = frozenset(FAMILIES) - ALIBI_FAMILIES - LEARNED_POSITION_FAMILIES


def serves_recall(family: str) -> bool:
    """Whether `recall=` works for this family in the installed transformers (`kvlimit.recall_families`)."""
    import kvlimit

    return family in ROPE_FAMILIES and _SPECS[family][0] in kvlimit.recall_families()


def _sdpa_supported(family: str) -> bool:
    """Whether the installed transformers runs this family with sdpa (it refuses at load otherwise)."""
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    config_type, _ = _SPECS[family]
    model_class = getattr(transformers, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[config_type])
    return bool(getattr(model_class, "_supports_sdpa", False))


# No sdpa in the installed transformers: gemma2 (sdpa cannot soft-cap logits: eager in every release),
# bloom and mpt (hand-written attention), and GPT-J before transformers 5.24 (its old attention classes).
EAGER_ONLY_FAMILIES = frozenset({"gemma2"} | {f for f in FAMILIES if not _sdpa_supported(f)})
# Families whose config has a flat `rope_parameters` dict that `rope_type=` may replace (GPT-J has no
# rope_parameters: its sinusoid table is fixed; gemma3_text keeps one dict per layer type; phi3 only accepts
# "default" and "longrope").
_ROPE_TYPE_FAMILIES = ROPE_FAMILIES - {"gptj"}


def model_type(family: str) -> str:
    """The transformers `model_type` behind a family name (``falcon_alibi`` -> ``falcon``)."""
    return _spec(family)[0]


def attn_implementations(family: str) -> tuple[str, ...]:
    """The attention implementations the family supports on CPU: ("sdpa", "eager") or ("eager",)."""
    _spec(family)
    return ("eager",) if family in EAGER_ONLY_FAMILIES else ("sdpa", "eager")


def rope_parameters_for(
    rope_type: str,
    *,
    head_dim: int = HIDDEN // HEADS,
    partial_rotary_factor: float = 1.0,
    rope_theta: float = 10000.0,
    max_positions: int = MAX_POSITIONS,
) -> dict[str, Any]:
    """A valid transformers 5.25 `rope_parameters` dict for `rope_type`, scaled by a factor of 2.

    The scaled types that need a pretraining length (yarn, longrope, llama3) get
    ``original_max_position_embeddings = max_positions // 2``; dynamic NTK rescales once a position reaches
    ``max_position_embeddings`` (its threshold is the config's table size, not a rope parameter).
    """
    params: dict[str, Any] = {"rope_type": rope_type, "rope_theta": rope_theta}
    if partial_rotary_factor != 1.0:
        params["partial_rotary_factor"] = partial_rotary_factor
    original = max_positions // 2
    if rope_type == "default":
        pass
    elif rope_type in ("linear", "dynamic"):
        params["factor"] = _ROPE_FACTOR
    elif rope_type == "yarn":
        params.update(factor=_ROPE_FACTOR, original_max_position_embeddings=original)
    elif rope_type == "longrope":
        half = int(head_dim * partial_rotary_factor) // 2
        params.update(
            factor=_ROPE_FACTOR,
            original_max_position_embeddings=original,
            short_factor=[1.0 + 0.05 * i for i in range(half)],
            long_factor=[1.0 + 0.5 * i for i in range(half)],
        )
    elif rope_type == "llama3":
        params.update(
            factor=_ROPE_FACTOR,
            original_max_position_embeddings=original,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
        )
    else:
        raise ValueError(f"unknown rope_type {rope_type!r}; expected one of {ROPE_TYPES}")
    return params


def make_config(
    family: str,
    *,
    num_layers: int = 2,
    attn_implementation: str = "sdpa",
    rope_type: str | None = None,
    **overrides: Any,
) -> PretrainedConfig:
    """The tiny config of `family`; `overrides` are passed to the config constructor (and win).

    `attn_implementation="sdpa"` becomes "eager" for EAGER_ONLY_FAMILIES (transformers refuses sdpa there);
    read `config._attn_implementation` for what was chosen.

    `rope_type` (one of ROPE_TYPES) replaces the RoPE scheme of a RoPE family while keeping its theta and partial
    rotary factor (see `rope_parameters_for`); for gemma3_text it applies to the full-attention layers only (as
    `rope_scaling` does in transformers), phi3 accepts only "default" and "longrope", and GPT-J (fixed sinusoid
    table), ALiBi and learned-position families accept none.
    """
    mtype, build = _spec(family)
    kwargs = build(num_layers)
    if rope_type is not None:
        kwargs = _with_rope_type(family, kwargs, rope_type, overrides)
    kwargs.update(overrides)
    config = AutoConfig.for_model(mtype, **kwargs)
    config._attn_implementation = _resolve_attn(family, attn_implementation)
    return config


def make_model(
    family: str,
    *,
    num_layers: int = 2,
    attn_implementation: str = "sdpa",
    seed: int = 0,
    **overrides: Any,
) -> PreTrainedModel:
    """`AutoModelForCausalLM.from_config(make_config(...))`: float32, eval mode, weights fixed by `seed`.

    The same (family, num_layers, seed, overrides) give the same weights whatever the attention implementation.
    The caller's global RNG state is left untouched.
    """
    config = make_config(family, num_layers=num_layers, attn_implementation=attn_implementation, **overrides)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = AutoModelForCausalLM.from_config(
            config, attn_implementation=config._attn_implementation, dtype=torch.float32
        )
    return model.eval()


def _spec(family: str) -> tuple[str, Callable[[int], dict[str, Any]]]:
    try:
        return _SPECS[family]
    except KeyError:
        raise ValueError(f"unknown family {family!r}; expected one of {FAMILIES}") from None


def _resolve_attn(family: str, attn_implementation: str) -> str:
    if attn_implementation == "sdpa" and family in EAGER_ONLY_FAMILIES:
        return "eager"
    return attn_implementation


def _with_rope_type(
    family: str, kwargs: dict[str, Any], rope_type: str, overrides: dict[str, Any]
) -> dict[str, Any]:
    if family not in _ROPE_TYPE_FAMILIES:
        raise ValueError(f"family {family!r} has no configurable rope_parameters")
    if family == "phi3" and rope_type not in ("default", "longrope"):
        raise ValueError("phi3 only supports rope_type 'default' or 'longrope'")
    kwargs = copy.deepcopy(kwargs)
    max_positions = overrides.get(
        "max_position_embeddings", kwargs.get("max_position_embeddings", MAX_POSITIONS)
    )
    hidden = kwargs.get("hidden_size", HIDDEN)
    head_dim = kwargs.get("head_dim") or hidden // kwargs.get("num_attention_heads", HEADS)
    old = dict(kwargs.get("rope_parameters") or {})
    params = rope_parameters_for(
        rope_type,
        head_dim=head_dim,
        partial_rotary_factor=old.get("partial_rotary_factor", 1.0),
        rope_theta=old.get("rope_theta", 10000.0),
        max_positions=max_positions,
    )
    if family == "gemma3_text":
        params["rope_theta"] = 1_000_000.0
        kwargs["rope_parameters"] = {
            "full_attention": params,
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        }
    else:
        kwargs["rope_parameters"] = params
    if family == "phi3" and rope_type == "longrope":
        # Phi3 reads its own top-level field, which wins over the rope_parameters entry.
        kwargs["original_max_position_embeddings"] = params["original_max_position_embeddings"]
    return kwargs
