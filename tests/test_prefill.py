"""Prompts longer than the limit are prefilled in chunks (issue 3).

Before a chunk of q tokens the cache evicts down to limit - q, so every query of the chunk sees at
most `cache_limit` keys and transient memory stays within limit + chunk.
"""

import pytest
import torch

import kvlimit

from .helpers import (
    LimitRecorder,
    attn_implementations,
    fresh_logits,
    kept_indices,
    left_padded,
    make_model,
    output_cache,
    real_tokens,
)

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("family", ["llama", "gptj", "bloom", "gpt2", "gemma2", "mpt"])
def test_chunked_equals_unchunked_when_the_prompt_fits(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model, lengths=(9, 14))
    kwargs = dict(max_new_tokens=6, do_sample=False, return_dict_in_generate=True, output_logits=True)
    whole = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=32, **kwargs)
    for chunk in (1, 3, 5):
        chunked = kvlimit.generate(
            model, input_ids=ids, attention_mask=mask, cache_limit=32, prefill_chunk=chunk, **kwargs
        )
        assert torch.equal(chunked.sequences, whole.sequences)
        for got, want in zip(chunked.logits, whole.logits, strict=True):
            torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("family", ["llama", "phi3", "gptj", "falcon_alibi", "bloom", "mpt", "qwen3"])
@pytest.mark.parametrize("chunk", [None, 2, 5])
def test_depth1_oracle_for_the_prompts_last_token(family, chunk):
    """A one-layer model: the logits after a long chunked prompt equal a fresh forward over what is kept."""
    model = make_model(family, num_layers=1, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model, lengths=(17, 30))
    limit, sinks = 8, 2
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, n_sink=sinks,
                           prefill_chunk=chunk, max_new_tokens=3, min_new_tokens=3, do_sample=False,
                           return_dict_in_generate=True, output_logits=True)  # fmt: skip
    for row in range(2):
        tokens = real_tokens(out.sequences[row], mask[row])
        prompt = int(mask[row].sum())
        for step in range(3):
            want = fresh_logits(model, [tokens[i] for i in kept_indices(prompt - 1 + step, limit, sinks)])
            torch.testing.assert_close(out.logits[step][row], want, atol=1e-4, rtol=1e-4)


def test_fifty_thousand_token_prompt_in_bounded_memory(monkeypatch):
    model = make_model("llama")
    prompt = torch.randint(3, model.config.vocab_size, (1, 50_000))
    recorder = LimitRecorder(monkeypatch, 512)
    chunk_sizes = []
    original = kvlimit.BoundedCache.prepare_step

    def prepare_step(cache, input_ids, attention_mask=None):
        chunk_sizes.append(input_ids.shape[1])
        return original(cache, input_ids, attention_mask)

    monkeypatch.setattr(kvlimit.BoundedCache, "prepare_step", prepare_step)
    recorder_prepare = kvlimit.BoundedCache.prepare_step
    assert recorder_prepare is prepare_step
    out = kvlimit.generate(model, input_ids=prompt, cache_limit=512, max_new_tokens=4, min_new_tokens=4,
                           return_dict_in_generate=True)  # fmt: skip
    assert out.sequences.shape[1] == 50_004
    assert output_cache(out).stored_tokens() == [512]
    # transient memory: a forward brings at most one chunk, and the keys it attends to are limit + chunk at most
    assert max(chunk_sizes) == output_cache(out).policy.default_chunk(512) == 512 // 4
    assert sum(chunk_sizes) == 50_000 + 3
    assert recorder.max_stored == 512


def test_prefill_chunk_must_fit(tiny_llama):
    with pytest.raises(ValueError, match=r"prefill_chunk=7 is larger than the room"):
        kvlimit.generate(
            tiny_llama, input_ids=torch.tensor([[5, 6, 7]]), cache_limit=8, prefill_chunk=7, max_new_tokens=2
        )
