"""Oracle 4: the cache never holds more than the limit, per row, per layer, at any step.

`LimitRecorder` checks at every forward what each query may attend to (from the mask the model
is given) and, after every layer's update, what is stored (valid slots per row and the allocated
tensors). Greedy, sampling and beam search, left-padded batches, every family.
"""

import pytest
import torch

import kvlimit

from .helpers import FAMILIES, LimitRecorder, attn_implementations, left_padded, make_model, output_cache

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle

LIMIT = 7


@pytest.mark.parametrize("family", FAMILIES)
def test_limit_holds_every_step(family, monkeypatch):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model, lengths=(2, 5))
    recorder = LimitRecorder(monkeypatch, LIMIT)
    out = kvlimit.generate(
        model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=20, min_new_tokens=20,
        do_sample=True, return_dict_in_generate=True,
    )  # fmt: skip
    assert recorder.steps == 20 and recorder.max_visible == LIMIT
    # left padding: rows hold different counts until both are full, then every slot is a kept token
    assert 0 < recorder.all_kept_steps < recorder.steps
    # every family's own sliding window (8) is above the limit: every layer is bounded, and full
    assert not output_cache(out).sliding_indices
    assert output_cache(out).stored_tokens() == [LIMIT, LIMIT]
    for layer in output_cache(out).layers:
        if isinstance(layer, kvlimit.cache.BoundedLayer):
            assert layer.keys.shape[2] == LIMIT


def test_limit_holds_in_beam_search_and_long_prompts(monkeypatch):
    model = make_model("llama")
    ids, mask = left_padded(model, lengths=(11, 25))  # both prompts longer than the limit: chunked prefill
    recorder = LimitRecorder(monkeypatch, LIMIT)
    out = kvlimit.generate(
        model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=15, num_beams=3,
        num_return_sequences=2, return_dict_in_generate=True,
    )  # fmt: skip
    assert recorder.max_visible == LIMIT and recorder.max_stored == LIMIT
    assert out.sequences.shape[0] == 4


def test_limit_with_sliding_layers_smaller_than_the_limit(monkeypatch):
    """gemma2 alternates sliding (window 8) and full layers: with a limit of 12 the sliding layers keep
    transformers' own window and the full ones are bounded."""
    model = make_model("gemma2", attn_implementation="eager")
    ids, mask = left_padded(model, lengths=(4, 9))
    recorder = LimitRecorder(monkeypatch, 12)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=12, max_new_tokens=25,
                           min_new_tokens=25, return_dict_in_generate=True)  # fmt: skip
    cache = output_cache(out)
    assert cache.sliding_indices and cache.bounded_indices and recorder.max_stored == 12
    for idx in cache.sliding_indices:
        assert cache.layers[idx].keys.shape[2] < 12  # the model's own window bounds them


def test_byte_budget_is_exact(tiny_llama):
    per_token = kvlimit.kv_bytes_per_token(tiny_llama)  # 2 layers x (K+V) x 2 heads x 16 dims x 4 bytes
    assert per_token == 2 * 2 * 2 * 16 * 4
    ids = torch.tensor([[5, 6, 7], [8, 9, 10]])
    out = kvlimit.generate(tiny_llama, input_ids=ids, cache_limit=f"{per_token * 2 * 10}B", max_new_tokens=30,
                           min_new_tokens=30, return_dict_in_generate=True)  # fmt: skip
    assert output_cache(out).cache_limit == 10 and output_cache(out).nbytes() == per_token * 2 * 10
