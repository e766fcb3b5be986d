"""Beam search and several return sequences under cache_limit (issue 3).

- With cache_limit >= total length, beam search is stock beam search: same sequences,
  sequences_scores and beam_indices, every family, batched and left-padded.
- With the limit active, teacher-forced replay is the oracle: feeding a returned beam back through
  a fresh bounded cache must reproduce the score beam search reported for it. A beam's cache state
  depends only on its own token history, so this holds only if every reorder moved each beam's kept
  tokens, positions and policy state together.
"""

import pytest
import torch

import kvlimit

from .helpers import (
    FAMILIES,
    attn_implementations,
    beam_score,
    left_padded,
    make_model,
    output_cache,
    replay_logits,
)

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("family", FAMILIES)
def test_beam_search_matches_stock(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model)
    kwargs = dict(max_new_tokens=10, num_beams=3, num_return_sequences=2, length_penalty=0.8, early_stopping=True,
                  do_sample=False, return_dict_in_generate=True, output_scores=True)  # fmt: skip
    ref = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=ids.shape[1] + 10, **kwargs)
    assert torch.equal(out.sequences, ref.sequences)
    assert torch.equal(out.beam_indices, ref.beam_indices)
    torch.testing.assert_close(out.sequences_scores, ref.sequences_scores, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("family", ["llama", "gptj", "gpt_neox", "bloom", "gpt2", "gemma3_text", "qwen3"])
def test_replay_reproduces_beam_scores_with_the_limit_active(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model, lengths=(4, 7))
    limit, new, penalty = 6, 16, 1.0
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, n_sink=2, max_new_tokens=new,
                           num_beams=4, num_return_sequences=3, length_penalty=penalty, do_sample=False, output_scores=True,
                           return_dict_in_generate=True)  # fmt: skip
    config = kvlimit.LimitConfig.create(limit, "sinks", n_sink=2)
    for row in range(out.sequences.shape[0]):
        item = row // 3
        prompt, prompt_mask = ids[item : item + 1], mask[item : item + 1]
        generated = out.sequences[row, ids.shape[1] :].tolist()
        cache = kvlimit.build_cache(model, config)
        chunk = (
            config.policy.default_chunk(limit) if ids.shape[1] > limit else None
        )  # generate's prefill chunk
        want = beam_score(model, cache, prompt, prompt_mask, generated, penalty, chunk)
        torch.testing.assert_close(out.sequences_scores[row], want, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("family", ["llama", "bloom", "gpt2", "phi3"])
def test_replay_reproduces_sampled_logits(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model, lengths=(4, 9))
    limit, new = 7, 20
    torch.manual_seed(3)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, n_sink=2, max_new_tokens=new,
                           min_new_tokens=new, do_sample=True, top_k=30, num_return_sequences=2,
                           return_dict_in_generate=True, output_logits=True)  # fmt: skip
    config = kvlimit.LimitConfig.create(limit, "sinks", n_sink=2)
    chunk = config.policy.default_chunk(
        limit
    )  # the automatic prefill chunk for prompts longer than the limit
    for row in range(out.sequences.shape[0]):
        item = row // 2
        cache = kvlimit.build_cache(model, config)
        prompt, prompt_mask = ids[item : item + 1], mask[item : item + 1]
        replayed = replay_logits(model, cache, prompt, prompt_mask, out.sequences[row : row + 1, ids.shape[1] :],
                                 chunk=chunk if ids.shape[1] > limit else None)  # fmt: skip
        for got, want in zip(out.logits, replayed, strict=True):
            torch.testing.assert_close(got[row], want[0], atol=1e-4, rtol=1e-4)


def test_left_padded_rows_keep_their_own_sinks_through_beam_reorders():
    model = make_model("llama")
    ids, mask = left_padded(model, lengths=(3, 8))
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=6, n_sink=2, max_new_tokens=20,
                           min_new_tokens=20, num_beams=3, num_return_sequences=3, return_dict_in_generate=True)  # fmt: skip
    cache = output_cache(out)
    for row in range(6):
        item = row // 3
        first_real = ids[item][mask[item].bool()][:2].tolist()
        assert cache.kept_token_ids(row)[:2] == first_real  # pads are never sinks
        assert cache.kept_token_indices(row)[:2] == [0, 1]
        # the cache rows are the running beams (returned sequences may be earlier finished ones): each holds
        # its sinks and then its most recent tokens, in order
        last_fed = int(mask[item].sum()) + 20 - 2  # the token sampled last is never fed back
        assert cache.kept_token_indices(row)[2:] == list(range(last_fed - 3, last_fed + 1))
