"""The tiny family models of ``helpers/families.py`` are sane: they build, run left-padded batches with sdpa and eager,
and stock ``generate`` gives the same greedy tokens whatever the attention implementation or the padding."""

from __future__ import annotations

import inspect

import pytest
import torch

from .helpers import (
    ALIBI_FAMILIES,
    EAGER_ONLY_FAMILIES,
    FAMILIES,
    LEARNED_POSITION_FAMILIES,
    MAX_POSITIONS,
    ROPE_FAMILIES,
    ROPE_TYPES,
    SLIDING_WINDOW,
    attn_implementations,
    make_config,
    make_model,
    model_type,
)

PROMPTS = ([5, 17, 99, 42, 7, 63, 21, 88, 14, 120, 33, 71], [9, 54, 101, 26, 77, 3, 45])
NEW_TOKENS = 10


def _left_padded(prompts=PROMPTS, pad: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(map(len, prompts))
    ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, prompt in enumerate(prompts):
        ids[row, width - len(prompt) :] = torch.tensor(prompt)
        mask[row, width - len(prompt) :] = 1
    return ids, mask


def _position_kwargs(model, mask: torch.Tensor) -> dict[str, torch.Tensor]:
    """What generate passes: positions counted over the real tokens (the models without the argument infer them)."""
    if "position_ids" not in inspect.signature(type(model).forward).parameters:
        return {}
    return {"position_ids": (mask.cumsum(-1) - 1).clamp(min=0)}


def _generate(model, ids: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    with torch.no_grad():
        out = model.generate(
            input_ids=ids,
            attention_mask=mask if mask is not None else torch.ones_like(ids),
            max_new_tokens=NEW_TOKENS,
            min_new_tokens=NEW_TOKENS,  # a random model emits eos (id 2) now and then; keep every row full length
            do_sample=False,
            pad_token_id=model.config.pad_token_id,
        )
    return out[:, ids.shape[1] :]


def _gptj_table(model):
    """GPT-J's sin/cos table: on its rotary module (transformers 5.24 on) or on each attention (before)."""
    rotary = getattr(model.transformer, "rotary_emb", None)
    return rotary.embed_positions if rotary is not None else model.transformer.h[0].attn.embed_positions


def _head_dim(config) -> int:
    return getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads


# What sets each family apart, checked on the built model.
_FEATURES = {
    "mistral": lambda m: m.config.sliding_window == SLIDING_WINDOW,
    "mixtral": lambda m: m.config.num_local_experts > m.config.num_experts_per_tok > 1,
    "qwen3_moe": lambda m: m.config.num_experts > m.config.num_experts_per_tok > 1,
    "gemma2": lambda m: (
        m.config.layer_types == ["sliding_attention", "full_attention"]
        and m.config.sliding_window == SLIDING_WINDOW
    ),
    "gemma3_text": lambda m: (
        m.config.layer_types == ["sliding_attention", "full_attention"]
        and m.config.sliding_window == SLIDING_WINDOW
        and hasattr(m.model.rotary_emb, "sliding_attention_inv_freq")
        and hasattr(m.model.rotary_emb, "full_attention_inv_freq")
    ),
    "phi": lambda m: 2 * m.model.rotary_emb.inv_freq.numel() < _head_dim(m.config),
    "phi3": lambda m: 2 * m.model.rotary_emb.inv_freq.numel() < _head_dim(m.config),
    "gpt_neox": lambda m: 2 * m.gpt_neox.rotary_emb.inv_freq.numel() < _head_dim(m.config),
    "stablelm": lambda m: 2 * m.model.rotary_emb.inv_freq.numel() < _head_dim(m.config),
    "gptj": lambda m: (
        m.config.rotary_dim < _head_dim(m.config)
        and tuple(_gptj_table(m).shape) == (MAX_POSITIONS, m.config.rotary_dim)
    ),
    "gpt2": lambda m: m.transformer.wpe.num_embeddings == MAX_POSITIONS,
    "gpt_bigcode": lambda m: m.config.multi_query and m.transformer.wpe.num_embeddings == MAX_POSITIONS,
    "opt": lambda m: m.model.decoder.embed_positions.num_embeddings == MAX_POSITIONS + 2,
    "falcon": lambda m: not m.config.alibi and m.config.multi_query and not m.config.new_decoder_architecture,
    "falcon_alibi": lambda m: m.config.alibi,
    "falcon_gqa": lambda m: (
        not m.config.alibi and m.config.new_decoder_architecture and m.config.num_kv_heads > 1
    ),
    "mpt": lambda m: m.config.attn_config.alibi and m.config.max_seq_len == MAX_POSITIONS,
    "smollm3": lambda m: m.config.no_rope_layers == [1, 0],
}


@pytest.mark.parametrize("family", FAMILIES)
def test_builds_tiny_with_its_feature(family):
    model = make_model(family)
    config = model.config
    assert config.model_type == model_type(family)
    assert not model.training
    assert all(p.dtype == torch.float32 for p in model.parameters())
    assert sum(p.numel() for p in model.parameters()) < 300_000
    assert 128 <= config.vocab_size <= 256
    ids = (config.pad_token_id, config.bos_token_id, config.eos_token_id)
    assert all(0 <= i < config.vocab_size for i in ids)
    assert config.pad_token_id != config.eos_token_id
    table = getattr(config, "max_position_embeddings", None) or getattr(config, "max_seq_len", None)
    assert table in (None, MAX_POSITIONS)  # None: bloom, which has no position table
    assert config._attn_implementation == ("eager" if family in EAGER_ONLY_FAMILIES else "sdpa")
    if family in ROPE_FAMILIES and family != "gptj":
        assert config.rope_parameters
    assert _FEATURES.get(family, lambda m: True)(model)


def test_position_kinds_partition_the_families():
    assert set(FAMILIES) == ALIBI_FAMILIES | LEARNED_POSITION_FAMILIES | ROPE_FAMILIES
    assert not ALIBI_FAMILIES & LEARNED_POSITION_FAMILIES


def test_seed_fixes_the_weights_and_spares_the_global_rng():
    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    a = make_model("llama", num_layers=1, seed=5, attn_implementation="eager")
    after = torch.rand(3)
    b = make_model("llama", num_layers=1, seed=5)
    c = make_model("llama", num_layers=1, seed=6)
    assert torch.equal(before, after)
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not all(torch.equal(sa[k], sc[k]) for k in sa)


def test_unknown_family_and_bad_rope_type_raise():
    with pytest.raises(ValueError, match="unknown family"):
        make_config("nope")
    with pytest.raises(ValueError, match="unknown rope_type"):
        make_config("llama", rope_type="nope")
    with pytest.raises(ValueError):
        make_config("gptj", rope_type="yarn")
    with pytest.raises(ValueError):
        make_config("phi3", rope_type="yarn")


@pytest.mark.parametrize("rope_type", ROPE_TYPES)
def test_llama_rope_types_build_and_run_past_the_table(rope_type):
    model = make_model("llama", num_layers=1, rope_type=rope_type)
    rotary = model.model.rotary_emb
    assert model.config.rope_parameters["rope_type"] == rotary.rope_type == rope_type
    ids = torch.arange(3, 3 + MAX_POSITIONS + 8).remainder(model.config.vocab_size)[None]
    with torch.no_grad():
        logits = model(input_ids=ids).logits
    assert torch.isfinite(logits).all()


@pytest.mark.parametrize(
    ("family", "rope_type"), [("phi3", "longrope"), ("gpt_neox", "yarn"), ("gemma3_text", "llama3")]
)
def test_rope_type_on_other_families(family, rope_type):
    config = make_config(family, rope_type=rope_type)
    params = config.rope_parameters["full_attention"] if family == "gemma3_text" else config.rope_parameters
    assert params["rope_type"] == rope_type
    model = make_model(family, num_layers=1, rope_type=rope_type)
    with torch.no_grad():
        assert torch.isfinite(model(input_ids=torch.tensor([[5, 6, 7, 8]])).logits).all()


@pytest.mark.parametrize("family", FAMILIES)
def test_left_padded_forward_matches_unpadded(family):
    ids, mask = _left_padded()
    for impl in attn_implementations(family):
        model = make_model(family, attn_implementation=impl)
        with torch.no_grad():
            batch = model(input_ids=ids, attention_mask=mask, **_position_kwargs(model, mask)).logits
            assert batch.shape == (*ids.shape, model.config.vocab_size)
            for row, prompt in enumerate(PROMPTS):
                alone = model(input_ids=torch.tensor([prompt])).logits[0]
                torch.testing.assert_close(batch[row, -len(prompt) :], alone, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("family", FAMILIES)
def test_stock_generate_left_padded_agrees_across_attention_and_padding(family):
    ids, mask = _left_padded()
    results = {}
    for impl in attn_implementations(family):
        model = make_model(family, attn_implementation=impl)
        results[impl] = _generate(model, ids, mask)
        assert results[impl].shape == (len(PROMPTS), NEW_TOKENS)
    first = next(iter(results.values()))
    for impl, tokens in results.items():
        assert torch.equal(tokens, first), f"{impl} disagrees: {tokens.tolist()} vs {first.tolist()}"
    for row, prompt in enumerate(PROMPTS):
        alone = _generate(model, torch.tensor([prompt]))
        assert torch.equal(alone[0], first[row]), (
            f"row {row}: padded {first[row].tolist()} vs alone {alone[0].tolist()}"
        )
