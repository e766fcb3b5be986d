"""Unsupported models and decoding modes get errors that say what is supported."""

import pytest
import torch
from transformers import (
    AutoModelForCausalLM,
    MambaConfig,
    MambaForCausalLM,
    T5Config,
    T5ForConditionalGeneration,
)

import kvlimit

from .helpers import FAMILIES, make_model, model_type


def test_encoder_decoder_is_refused_with_the_supported_list():
    model = T5ForConditionalGeneration(
        T5Config(vocab_size=64, d_model=32, d_ff=64, num_layers=1, num_heads=2, d_kv=16)
    )
    with pytest.raises(
        kvlimit.UnsupportedModelError, match=r"encoder-decoder.*Supported decoder-only families: .*llama"
    ):
        kvlimit.inspect_model(model)


def test_state_space_model_is_refused():
    model = MambaForCausalLM(MambaConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1, state_size=4))
    with pytest.raises(kvlimit.UnsupportedModelError, match=r"recurrent .* gpt2"):
        kvlimit.generate(model, input_ids=torch.tensor([[3, 4]]), cache_limit=8, max_new_tokens=2)
    with pytest.raises(kvlimit.UnsupportedModelError):
        kvlimit.enable(model)


def test_unverified_family_is_refused():
    from transformers import AutoConfig

    config = AutoConfig.for_model("olmo", vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                  num_attention_heads=2)  # fmt: skip
    model = AutoModelForCausalLM.from_config(config)
    with pytest.raises(kvlimit.UnsupportedModelError, match=r"'olmo' is not supported.*not been verified"):
        kvlimit.inspect_model(model)


def test_assisted_decoding_is_refused_with_the_reason(tiny_llama):
    ids = torch.tensor([[5, 6, 7, 8]])
    with pytest.raises(
        ValueError, match=r"assisted generation is not supported with cache_limit: .*rolls the cache back"
    ):
        tiny_llama.generate(input_ids=ids, max_new_tokens=4, custom_generate=kvlimit.generate, cache_limit=8,
                            assistant_model=tiny_llama)  # fmt: skip
    with pytest.raises(ValueError, match="assisted generation is not supported"):
        kvlimit.generate(
            tiny_llama, input_ids=ids, max_new_tokens=4, cache_limit=8, prompt_lookup_num_tokens=2
        )


def test_hub_only_modes_are_refused(tiny_llama):
    ids = torch.tensor([[5, 6, 7, 8]])
    with pytest.raises(ValueError, match="contrastive search is not supported with cache_limit"):
        kvlimit.generate(
            tiny_llama, input_ids=ids, max_new_tokens=4, cache_limit=8, penalty_alpha=0.6, top_k=4
        )
    with pytest.raises(ValueError, match="group beam search is not supported with cache_limit"):
        kvlimit.generate(tiny_llama, input_ids=ids, max_new_tokens=4, cache_limit=8, num_beams=4, num_beam_groups=2,
                         diversity_penalty=0.5)  # fmt: skip


def test_flex_attention_is_refused(tiny_llama):
    tiny_llama.config._attn_implementation = "flex_attention"
    try:
        with pytest.raises(ValueError, match="attn_implementation='flex_attention' is not supported"):
            kvlimit.inspect_model(tiny_llama)
    finally:
        tiny_llama.config._attn_implementation = "sdpa"


def test_limit_beyond_the_position_table_is_refused():
    model = make_model("gpt2")
    with pytest.raises(ValueError, match=r"cache_limit=200 exceeds the 96 positions this model can address"):
        kvlimit.generate(model, input_ids=torch.tensor([[5, 6]]), cache_limit=200, max_new_tokens=300)


def test_every_supported_family_is_tested():
    """The supported list is exactly the families the test suite builds and checks."""
    assert set(kvlimit.supported_families()) == {model_type(f) for f in FAMILIES}
