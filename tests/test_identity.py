"""Oracle 1: with cache_limit >= prompt + new tokens, kvlimit is stock generate, token for token.

Every family, sdpa and eager, a left-padded batch whose rows have different lengths. The cache
still goes through all of kvlimit's machinery (slots, its own masks and positions); only nothing
is evicted, so tokens must be identical and scores equal to float precision.
"""

import pytest
import torch

import kvlimit

from .helpers import FAMILIES, attn_implementations, left_padded, make_model, output_cache

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle

NEW = 12


CASES = [(family, attn) for family in FAMILIES for attn in attn_implementations(family)]


@pytest.mark.parametrize(("family", "attn"), CASES)
def test_greedy_matches_stock(family, attn):
    model = make_model(family, attn_implementation=attn)
    ids, mask = left_padded(model)
    kwargs = dict(max_new_tokens=NEW, do_sample=False, return_dict_in_generate=True, output_scores=True)
    ref = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
    out = kvlimit.generate(
        model, input_ids=ids, attention_mask=mask, cache_limit=ids.shape[1] + NEW, **kwargs
    )
    assert torch.equal(out.sequences, ref.sequences)
    for got, want in zip(out.scores, ref.scores, strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    assert isinstance(output_cache(out), kvlimit.BoundedCache)


@pytest.mark.parametrize("family", FAMILIES)
def test_sampling_with_processors_matches_stock(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model, seed=2)
    kwargs = dict(
        max_new_tokens=NEW,
        do_sample=True,
        temperature=0.8,
        top_k=20,
        top_p=0.9,
        repetition_penalty=1.3,
        num_return_sequences=2,
        return_dict_in_generate=True,
        output_logits=True,
    )
    torch.manual_seed(7)
    ref = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
    torch.manual_seed(7)
    out = model.generate(
        input_ids=ids,
        attention_mask=mask,
        custom_generate=kvlimit.generate,
        cache_limit=64,
        policy="window",
        **kwargs,
    )
    assert torch.equal(out.sequences, ref.sequences)
    for got, want in zip(out.logits, ref.logits, strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_without_cache_limit_it_is_stock(tiny_llama):
    ids = torch.tensor([[5, 6, 7, 8]])
    ref = tiny_llama.generate(input_ids=ids, max_new_tokens=6, do_sample=False, return_dict_in_generate=True)
    out = kvlimit.generate(
        tiny_llama, input_ids=ids, max_new_tokens=6, do_sample=False, return_dict_in_generate=True
    )
    via_custom = tiny_llama.generate(input_ids=ids, max_new_tokens=6, custom_generate=kvlimit.generate)
    assert torch.equal(out.sequences, ref.sequences) and torch.equal(via_custom, ref.sequences)
    assert type(output_cache(out)).__name__ == "DynamicCache"


def test_enable_is_explicit_and_reversible(tiny_llama):
    ids = torch.tensor([[5, 6, 7, 8]])
    assert "generate" not in vars(tiny_llama)  # importing kvlimit patched nothing
    kvlimit.enable(tiny_llama)
    try:
        out = tiny_llama.generate(
            input_ids=ids, max_new_tokens=30, cache_limit=8, return_dict_in_generate=True
        )
        assert (
            isinstance(output_cache(out), kvlimit.BoundedCache)
            and max(output_cache(out).stored_tokens()) == 8
        )
        plain = tiny_llama.generate(input_ids=ids, max_new_tokens=3, return_dict_in_generate=True)
        assert type(output_cache(plain)).__name__ == "DynamicCache"
        with pytest.raises(ValueError, match="n_sink needs cache_limit"):
            tiny_llama.generate(input_ids=ids, max_new_tokens=3, n_sink=2)
    finally:
        kvlimit.disable(tiny_llama)
    assert "generate" not in vars(tiny_llama)
