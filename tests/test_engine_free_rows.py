"""The continuous engine without a prefill cache (`prefill_rows=0`): prompts prefilled in the batch's
own free rows, against the engine's oracle (each prompt generated alone, `test_engine.alone`).

- every sequence is its prompt alone, for attention policies, quantized storage, the recall tier,
  positions, chunked prompts, several sequences of a prompt, rows freed at different steps;
- a group of prompts takes a run of free rows in one step, and a prompt of many chunks is prefilled
  whole before the decoding rows' next forward (one of them in between would write into its rows);
- no bytes beside the batch's rows: the prefill's storage is the batch's, and a byte budget holds the
  rows alone.
"""

from __future__ import annotations

import pytest

import kvlimit
from kvlimit.engine import ContinuousEngine

from .helpers import make_model
from .test_engine import LIMIT, NEW, ROW_CONFIGS, SAMPLING, SEED, alone, assert_alone, collect, requests, run

pytestmark = pytest.mark.oracle


def drive(
    engine: ContinuousEngine,
) -> tuple[dict[tuple[str, int], list[int]], dict[str, int], dict[str, int]]:
    """Step `engine` until it is idle: each (request, sequence)'s tokens, and the step of each request's
    first token and of its (last) end."""
    got: dict[tuple[str, int], list[int]] = {}
    first_step: dict[str, int] = {}
    ended: dict[str, int] = {}
    step = 0
    while engine.busy:
        events = engine.step()
        for e in events:
            if isinstance(e, kvlimit.Token):
                first_step.setdefault(e.id, step)
        got.update(collect(events))
        ended.update({e.id: step for e in events if isinstance(e, kvlimit.Finished)})
        step += 1
    return got, first_step, ended


@pytest.mark.parametrize(
    ("family", "options"),
    [
        ("llama", {}),
        ("bloom", {}),
        ("llama", {"prefill_chunk": 4}),
        ("llama", {"policy": "tova", "prefill_chunk": 4}),
        *ROW_CONFIGS,
    ],
)
def test_prompts_prefilled_in_free_rows_are_each_alone(family, options):
    model = make_model(family)
    config = kvlimit.LimitConfig.create(LIMIT + options.get("recall", 0), **options)
    eos = 7  # a token the tiny models make: rows end at different steps, free rows are scattered
    decoding = {"max_new_tokens": NEW, "eos_token_id": eos, **SAMPLING, "temperature": 1.5}
    reqs = requests(model, lengths=(3, 11, 17, 5, 22, 9, 2, 14, 6, 1))
    assert_alone(model, config, decoding, reqs, run(model, config, decoding, reqs, rows=4, prefill_rows=0))


def test_each_sequence_of_a_prompt_prefilled_in_a_free_row_is_its_own():
    """A prompt's first sequence stays in the row it was prefilled in; the others are loaded into free
    rows no prompt of the group was prefilled in."""
    model = make_model("qwen2")
    config = kvlimit.LimitConfig.create(LIMIT)
    decoding = {"max_new_tokens": NEW, **SAMPLING}
    reqs = requests(model, lengths=(5, 14, 3, 8, 2))
    got = run(model, config, decoding, reqs, rows=5, num_return_sequences=2, prefill_rows=0)
    assert_alone(model, config, decoding, reqs, got, sequences=2)


def test_a_group_takes_a_run_of_free_rows_in_one_step():
    """Rows that end together free a run of rows: the next prompts are prefilled in them together, in
    one forward, and their first tokens come in one step; no prefill cache holds a byte."""
    model = make_model("llama")
    config = kvlimit.LimitConfig.create(LIMIT)
    decoding = {"max_new_tokens": 5, "do_sample": False}
    reqs = requests(model, lengths=(4, 6, 3, 5, 7, 2, 6, 4))
    engine = ContinuousEngine(model, config, rows=4, decoding=decoding, seed=SEED, prefill_rows=0)
    for request in reqs:
        engine.submit(request)
    got, first_step, _ = drive(engine)
    started = [{i for i, at in first_step.items() if at == s} for s in sorted(set(first_step.values()))]
    assert started == [{r.id for r in reqs[:4]}, {r.id for r in reqs[4:]}]  # in place, then one group
    assert engine._scratch.store.borrowed and engine._scratch.store.nbytes() == 0
    assert engine.kv_bytes == engine.cache.nbytes()
    assert_alone(model, config, decoding, reqs, got)


def test_scattered_free_rows_take_a_group_each_in_one_step():
    """Rows 0 and 2 end together: runs of one free row each; the two waiting prompts are prefilled in
    them, a group each, both before the step's decode forward."""
    model = make_model("llama")
    config = kvlimit.LimitConfig.create(LIMIT)
    decoding = {"max_new_tokens": 6, "do_sample": False}
    reqs = requests(model, lengths=(4, 6, 3, 5, 7, 2))
    lengths = [3, 8, 3, 8, 5, 5]  # new tokens of each: rows 0 and 2 end first, together
    reqs = [
        kvlimit.Request(r.id, r.input_ids, decoding={"max_new_tokens": n})
        for r, n in zip(reqs, lengths, strict=True)
    ]
    engine = ContinuousEngine(model, config, rows=4, decoding=decoding, seed=SEED, prefill_rows=0)
    for request in reqs:
        engine.submit(request)
    got, first_step, ended = drive(engine)
    assert ended[reqs[0].id] == ended[reqs[2].id] < ended[reqs[1].id]
    assert first_step[reqs[4].id] == first_step[reqs[5].id] == ended[reqs[0].id] + 1
    for request, n in zip(reqs, lengths, strict=True):
        assert got[(request.id, 0)] == alone(model, request, config, {**decoding, "max_new_tokens": n})


def test_a_long_prompt_in_free_rows_is_prefilled_whole_before_the_next_decode():
    """A prompt of many chunks is fed whole in the step that admits it (a decode forward between its
    chunks would write the free row's token into its storage): the decoding row's token and the long
    prompt's first token come in that one step, and both are their prompts alone."""
    model = make_model("llama")
    config = kvlimit.LimitConfig.create(LIMIT, prefill_chunk=4)
    decoding = {"max_new_tokens": 30, "do_sample": False}
    short, long = requests(model, lengths=(3, 41))
    engine = ContinuousEngine(model, config, rows=2, decoding=decoding, seed=SEED, prefill_rows=0)
    engine.submit(short)
    got = collect(engine.step())  # in place: its first token
    assert engine.active == 1
    engine.step()
    engine.submit(long)
    events = engine.step()
    assert {e.id for e in events if isinstance(e, kvlimit.Token)} == {short.id, long.id}
    assert engine.active == 2
    while engine.busy:
        got.update(collect(engine.step()))
    assert got[(long.id, 0)] == alone(model, long, config, decoding)
    assert got[(short.id, 0)] == alone(model, short, config, decoding)


def test_a_compiled_step_with_prompts_in_free_rows_gives_the_same_tokens():
    from transformers.generation.configuration_utils import CompileConfig

    model = make_model("llama")
    config = kvlimit.LimitConfig.create(LIMIT + 4, recall=4)
    decoding = {"max_new_tokens": NEW, **SAMPLING}
    reqs = requests(model, lengths=(3, 11, 17, 5, 22, 9, 2))
    compiled = CompileConfig(backend="aot_eager", fullgraph=True, dynamic=False, mode="default")
    eager = run(model, config, decoding, reqs, prefill_rows=0)
    assert run(model, config, decoding, reqs, prefill_rows=0, compile=compiled) == eager
    assert_alone(model, config, decoding, reqs, eager)


def test_a_byte_budget_holds_the_rows_alone():
    """At a byte budget every prefill row is a decoding row less; without a prefill cache the budget is
    the rows': their limit is what `rows + prefill_rows` rows of the same bytes would get at
    `prefill_rows`."""
    model = make_model("llama")
    budget = kvlimit.LimitConfig.create("64KiB")
    limits = {
        p: ContinuousEngine(model, budget, rows=4, prefill_rows=p).config.cache_limit_tokens
        for p in (0, 1, 4)
    }
    assert limits[0] > limits[1] > limits[4]
    one_more = ContinuousEngine(model, budget, rows=3, prefill_rows=1).config.cache_limit_tokens
    assert limits[0] == one_more  # 4 rows and none beside hold what 3 rows and one beside do
