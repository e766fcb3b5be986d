"""Property-based test of the continuous engine: random requests, rows, admission and schedules, against
its oracle (each sequence is its prompt generated alone, `test_engine.alone`).

Hypothesis draws a model and cache config (attention policies, int8 / int4 storage, the recall tier,
re-encoded positions), a `prefill_chunk`, 1-4 rows, `prefill_rows` (0: prompts prefilled in the batch's
free rows; else a prefill cache of that many rows), greedy or sampling, an end-of-sequence token or
none, and 1-6 requests (prompt length, `max_new_tokens`, sequences, a seed of its own or none) submitted
live at random steps, one of them perhaps cancelled at a random step. Every case must: end every
sequence of every request once; give each sequence the tokens of its prompt alone (a cancelled one:
their beginning); and, without a prefill cache, hold no bytes beside the batch's rows. Derandomized:
the same cases every run.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvlimit
from kvlimit.engine import ContinuousEngine

from .helpers import make_model
from .test_engine import LIMIT, ROW_CONFIGS, SAMPLING, SEED, alone

pytestmark = pytest.mark.oracle

#: the configs rows must carry through load_row (borrowed rows included), and the defaults of two families
CONFIGS = [("llama", {}), ("bloom", {}), *ROW_CONFIGS]
EOS = 7  # a token the tiny models make


@functools.cache
def model_of(family: str) -> Any:
    return make_model(family)


@st.composite
def cases(draw: Any) -> dict[str, Any]:
    family, options = draw(st.sampled_from(CONFIGS))
    rows = draw(st.integers(1, 4))
    sampling = draw(st.booleans())
    requests = draw(
        st.lists(
            st.tuples(
                st.integers(1, 24),
                st.integers(1, 8),
                st.integers(1, 2 if sampling else 1),
                st.sampled_from([None, 11]),
            ),
            min_size=1,
            max_size=6,
        )
    )
    return {
        "family": family,
        "options": {**options, "prefill_chunk": draw(st.sampled_from([None, 3, 4]))},
        "rows": rows,
        "prefill_rows": draw(st.sampled_from([0, 1, 2, 4])),
        "sampling": sampling,
        "eos": draw(st.booleans()),
        "requests": [(n, new, min(k, rows), seed) for n, new, k, seed in requests],
        "schedule": draw(st.lists(st.integers(0, 2), min_size=1, max_size=6)),
        "cancel": draw(st.none() | st.tuples(st.integers(0, len(requests) - 1), st.integers(0, 12))),
    }


def engine_run(
    model: Any, case: dict[str, Any], compile: Any = False
) -> tuple[dict[tuple[str, int], kvlimit.Finished], list[kvlimit.Request], Any]:
    config = kvlimit.LimitConfig.create(LIMIT + case["options"].get("recall", 0), **case["options"])
    decoding: dict[str, Any] = {**SAMPLING, "temperature": 1.5} if case["sampling"] else {"do_sample": False}
    if case["eos"]:
        decoding["eos_token_id"] = EOS
    generator = torch.Generator().manual_seed(len(case["requests"]))
    requests = [
        kvlimit.Request(
            f"r{i}",
            torch.randint(3, model.config.vocab_size, (n,), generator=generator).tolist(),
            decoding={"max_new_tokens": new},
            sequences=k,
            seed=seed,
        )
        for i, (n, new, k, seed) in enumerate(case["requests"])
    ]
    engine = ContinuousEngine(model, config, rows=case["rows"], decoding=decoding, seed=SEED,
                              prefill_rows=case["prefill_rows"], compile=compile)  # fmt: skip
    waiting, schedule = list(requests), list(case["schedule"])
    got: dict[tuple[str, int], kvlimit.Finished] = {}
    step = 0
    while waiting or engine.busy:
        for _ in range(schedule.pop(0) if schedule else len(waiting)):
            if waiting:
                engine.submit(waiting.pop(0))
        events = engine.step()
        if case["cancel"] is not None and case["cancel"][1] == step:
            cancelled = requests[case["cancel"][0]]
            events += engine.cancel(cancelled.id)
            waiting = [r for r in waiting if r is not cancelled]
        for event in events:
            if isinstance(event, kvlimit.Finished):
                assert (event.id, event.sequence) not in got
                got[(event.id, event.sequence)] = event
        step += 1
    return got, requests, (config, decoding, engine)


@given(case=cases())
@settings(max_examples=150, derandomize=True, deadline=None, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
def test_random_requests_are_each_their_prompt_alone(case: dict[str, Any]) -> None:
    check(case)


@given(case=cases())
@settings(max_examples=12, derandomize=True, deadline=None, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
def test_random_requests_on_a_compiled_step_are_each_their_prompt_alone(case: dict[str, Any]) -> None:
    """The same on the engine's compiled decode step (aot_eager: the graph dynamo captures, no C++ compile)."""
    from transformers.generation.configuration_utils import CompileConfig

    torch._dynamo.reset()  # each case is a graph of its own: dynamo's recompile limit counts per process
    check(case, CompileConfig(backend="aot_eager", fullgraph=True, dynamic=False, mode="default"))


def check(case: dict[str, Any], compile: Any = False) -> None:
    model = model_of(case["family"])
    got, requests, (config, decoding, engine) = engine_run(model, case, compile)
    every = {(r.id, k) for r in requests for k in range(r.sequences or 1)}
    cancelled = None if case["cancel"] is None else requests[case["cancel"][0]].id
    assert {key for key in every if key[0] != cancelled} <= set(got) <= every
    for (request_id, k), finished in got.items():
        request = next(r for r in requests if r.id == request_id)
        want = alone(model, request, config, decoding, k)
        if finished.stop_reason == "cancelled":  # its tokens so far
            assert request_id == cancelled and finished.tokens == want[: len(finished.tokens)], (
                request_id,
                k,
            )
        else:
            assert finished.tokens == want, (request_id, k)
    if case["prefill_rows"] == 0:
        assert engine.kv_bytes == engine.cache.nbytes()  # nothing beside the batch's rows
