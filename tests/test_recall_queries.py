"""A prompt's last tokens choose their own recalled blocks (`recall_queries`, `forward.prefill_spans`).

Oracles: the spans by hand, and properties over random prompts (the head's spans are a shorter
prompt's without a tail, the tail one column each); a one-column prompt chunk recalls exactly what
a decode step of the same token recalls (every layer, every head); `kvlimit.generate` equals a hand
loop over the spans (the prompt is fed as the spans say), and the tail changes what is recalled;
each row of a left-padded batch against the row alone; the engine against `kvlimit.generate`, and
the steps it admits a long prompt in (the tail's pieces share steps); the argument checks and the
command line's flag.
"""

import copy

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import kvlimit
from kvlimit.cli import build_parser
from kvlimit.clitools import recall_from_args
from kvlimit.config import RECALL_QUERIES
from kvlimit.engine import ContinuousEngine, Request
from kvlimit.forward import prefill_chunk, prefill_spans, prompt_tail

from .helpers import left_padded, make_model, steps_to_admit

LIMIT, RECALL = 16, 4


def test_the_spans_by_hand():
    assert prefill_spans(10, 3) == [(0, 3), (3, 6), (6, 9)]
    assert prefill_spans(10, 3, 4) == [(0, 2), (2, 5), (5, 6), (6, 7), (7, 8), (8, 9)]
    assert prefill_spans(4, 3, 9) == [(0, 1), (1, 2), (2, 3)]  # a tail longer than the prompt: every column
    assert prefill_spans(1, 3, 2) == []


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300), st.integers(1, 64), st.integers(0, 80))
def test_the_spans_are_a_shorter_prompts_then_one_column_each(columns, chunk, tail):
    spans = prefill_spans(columns, chunk, tail)
    assert [start for start, _ in spans] == [0, *(end for _, end in spans)][: len(spans)]  # contiguous from 0
    assert (spans[-1][1] if spans else 0) == columns - 1  # all but the last column
    assert all(0 < end - start <= chunk for start, end in spans)
    kept = min(tail, columns - 1)
    assert spans[len(spans) - kept :] == [(c, c + 1) for c in range(columns - 1 - kept, columns - 1)]
    assert spans[: len(spans) - kept] == prefill_spans(columns - kept, chunk)


def _recalled(cache):
    return {layer: index.clone() for layer, (index, _) in cache.recall_hook.last_recalled.items()}


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_a_one_column_chunk_recalls_what_a_decode_step_does(family):
    model = make_model(family)
    ids, mask = left_padded(model, lengths=(40, 33))
    cache = kvlimit.build_cache(
        model, kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_block=2), rows=2
    )
    cache.recall_hook.record_recalled = True
    for start in range(0, 36, 4):
        kvlimit.forward_step(model, cache, ids[:, start : start + 4], mask[:, start : start + 4])
    for column in range(36, 40):
        as_decode = copy.deepcopy(cache)
        chunk_out = kvlimit.forward_step(
            model, cache, ids[:, column : column + 1], mask[:, column : column + 1]
        )
        decode_out = kvlimit.forward_step(model, as_decode, ids[:, column : column + 1])
        chunked, decoded = _recalled(cache), _recalled(as_decode)
        assert chunked.keys() == decoded.keys() and chunked
        assert all(torch.equal(chunked[layer], decoded[layer]) for layer in chunked)
        torch.testing.assert_close(chunk_out.logits, decode_out.logits, atol=2e-5, rtol=1e-4)


def _by_hand(model, ids, spans):
    """The first new token's logits: `spans` fed as prompt chunks, then the last column as a decode step."""
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_queries=0)
    cache = kvlimit.build_cache(model, config, max_length=ids.shape[1] + 1)
    for start, end in spans:
        kvlimit.forward_step(model, cache, ids[:, start:end], torch.ones_like(ids[:, start:end]))
    return kvlimit.forward_step(model, cache, ids[:, -1:]).logits[:, -1]


def test_generate_feeds_the_prompts_last_tokens_one_by_one():
    model = make_model("llama")
    ids, _ = left_padded(model, lengths=(45,))
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_queries=5)
    cache = kvlimit.build_cache(model, config, max_length=46)
    assert prompt_tail(cache) == 5
    assert prompt_tail(kvlimit.build_cache(model, kvlimit.LimitConfig.create(LIMIT), max_length=46)) == 0
    chunk = prefill_chunk(cache, 45)
    assert chunk is not None
    out = kvlimit.generate(model, input_ids=ids, cache_limit=config, max_new_tokens=1, do_sample=False,
                           output_logits=True, return_dict_in_generate=True)  # fmt: skip
    tailed = _by_hand(model, ids, prefill_spans(45, chunk, 5))
    untailed = _by_hand(model, ids, prefill_spans(45, chunk))
    torch.testing.assert_close(out.logits[0], tailed, atol=2e-5, rtol=1e-4)
    assert (tailed - untailed).abs().max() > 1e-3  # the tail changes what the prompt's end recalled


@pytest.mark.parametrize("queries", [1, 6])
def test_each_rows_tail_is_its_own_in_a_batch(queries):
    model = make_model("qwen2")
    ids, mask = left_padded(model, lengths=(5, 41, 27))
    common = dict(cache_limit=LIMIT, recall=RECALL, recall_queries=queries, do_sample=False, max_new_tokens=12,
                  pad_token_id=0)  # fmt: skip
    batch = kvlimit.generate(model, input_ids=ids, attention_mask=mask, output_logits=True,
                             return_dict_in_generate=True, **common)  # fmt: skip
    for row in range(ids.shape[0]):
        prompt = ids[row][mask[row].bool()][None]
        alone = kvlimit.generate(
            model, input_ids=prompt, output_logits=True, return_dict_in_generate=True, **common
        )
        new = alone.sequences[0, prompt.shape[1] :]
        assert torch.equal(batch.sequences[row, ids.shape[1] : ids.shape[1] + len(new)], new), row
        torch.testing.assert_close(batch.logits[0][row], alone.logits[0][0], atol=2e-5, rtol=1e-4)


def test_the_engine_feeds_the_tail_as_generate_does():
    model = make_model("llama")
    generator = torch.Generator().manual_seed(5)
    requests = [
        Request(f"p{n}", torch.randint(3, 100, (n,), generator=generator).tolist()) for n in (44, 30, 9)
    ]
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_queries=6)
    decoding = {"max_new_tokens": 8, "do_sample": False}
    engine = ContinuousEngine(model, config, rows=2, decoding=decoding, seed=0)
    got = {f.id: f.tokens for f in engine.run(requests)}
    assert got.keys() == {r.id for r in requests}
    for request in requests:
        ids = torch.tensor([request.input_ids])
        alone = kvlimit.generate(model, input_ids=ids, cache_limit=config, pad_token_id=0, **decoding)
        assert got[request.id] == alone[0, ids.shape[1] :].tolist(), request.id


def test_recall_queries_is_checked():
    with pytest.raises(ValueError, match=r"recall_queries must be an int >= 0 or None \(the last 16\)"):
        kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_queries=-1)
    with pytest.raises(ValueError, match="recall_queries=2 goes with recall"):
        kvlimit.LimitConfig.create(LIMIT, recall_queries=2)
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_queries=0)
    assert config.recall_queries == 0 and "recall_queries=0" in config.describe()
    assert kvlimit.LimitConfig.create(LIMIT, recall=RECALL).recall_queries == RECALL_QUERIES == 16
    args = build_parser().parse_args(["generate", "hi", "--recall", "4", "--recall-queries", "3"])
    assert recall_from_args(args)["recall_queries"] == 3


def test_the_engine_feeds_the_tail_in_the_steps_one_chunk_takes():
    """Without a `prefill_chunk`, a step feeds prompt pieces up to the chunk the prompt is fed in, so the
    tail's one-token pieces and the last column share steps: a long prompt is admitted in one step per
    chunk and as few steps as its tail and last column fill (one step per piece before), while the
    decoding row gets its token in every step, and the long prompt's tokens are still its own alone."""
    model = make_model("llama")
    queries = 6
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_queries=queries)
    decoding = {"max_new_tokens": 30, "do_sample": False}
    generator = torch.Generator().manual_seed(7)
    short = Request("short", [5, 6, 7])
    long = Request("long", torch.randint(3, 100, (41,), generator=generator).tolist())
    engine = ContinuousEngine(model, config, rows=2, decoding=decoding, seed=0)
    steps = steps_to_admit(engine, short, long)
    chunk = prefill_chunk(kvlimit.build_cache(model, config), len(long.input_ids))
    assert chunk is not None and chunk > 1
    head = len(prefill_spans(len(long.input_ids), chunk, queries)) - queries
    assert steps == head + -(-(queries + 1) // chunk)  # the tail and the last column, `chunk` a step
    got = {}
    while engine.busy:
        got.update({e.id: e.tokens for e in engine.step() if isinstance(e, kvlimit.Finished)})
    ids = torch.tensor([long.input_ids])
    alone = kvlimit.generate(model, input_ids=ids, cache_limit=config, pad_token_id=0, **decoding)
    assert got[long.id] == alone[0, ids.shape[1] :].tolist()
