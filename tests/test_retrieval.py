"""The retrieval suite (`kvlimit.eval.retrieval`): its parts, its prompts, its runner.

Oracles: the two parts share no task, phrasing or (task kind aside) filler region; each case holds its
fact at the depth asked and its question where the task puts it, and is the context's length; the
runner with the full cache answers what stock greedy `generate` answers on the same ids; a bounded
cache that holds everything answers the same.
"""

from __future__ import annotations

import pytest
import torch

import kvlimit
from kvlimit.eval import retrieval

from .helpers import TinyModel, build_tiny


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("tiny"))


def test_the_parts_are_apart():
    tune, held = retrieval.tasks("tune"), retrieval.tasks("held-out")
    assert tune and held and {t.name for t in tune}.isdisjoint({t.name for t in held})
    assert {t.plant for t in tune}.isdisjoint({t.plant for t in held})  # no phrasing in both
    assert {t.kind for t in tune} == {t.kind for t in held} == {"single", "multi", "story", "mid-generation"}
    assert {"botchan-a"} <= {t.filler for t in tune} and "botchan-a" not in {t.filler for t in held}
    assert "source" not in {t.filler for t in tune} and "stdlib" not in {t.filler for t in held}  # code apart
    with pytest.raises(ValueError, match="part must be"):
        retrieval.tasks("all")


def test_tasks_by_name_keep_the_suite_order_and_refuse_a_name_of_the_other_part():
    tune, held = retrieval.tasks("tune"), retrieval.tasks("held-out")
    picked = [tune[-1].name, tune[0].name]
    assert retrieval.tasks("tune", picked) == [tune[0], tune[-1]]
    assert retrieval.tasks("tune", tune[1].name) == [tune[1]]  # one name as a string, not its letters
    assert retrieval.tasks("both", [held[0].name, tune[0].name]) == [tune[0], held[0]]
    with pytest.raises(ValueError, match=f"not in part 'tune': {held[0].name}; its tasks: {tune[0].name}, "):
        retrieval.tasks("tune", [tune[0].name, held[0].name])
    with pytest.raises(ValueError, match="not in part 'both': no-such-task;"):
        retrieval.tasks("both", ["no-such-task"])


@pytest.mark.parametrize(
    "task", [t for t in retrieval.SUITE if not t.filler.startswith("botchan")], ids=lambda t: t.name
)
def test_cases_hold_the_fact_at_its_depth(tiny, task):
    (low, high) = retrieval.cases(task, tiny.tokenizer, [400], [0.1, 0.9], [0])
    for case in (low, high):
        ids = case.prompt + case.generated + case.question
        assert len(ids) == 400
        text = tiny.tokenizer.decode(case.prompt)
        assert case.answer in text
        assert (case.generated != []) == (task.kind == "mid-generation")
    if task.kind != "story":
        position = [
            tiny.tokenizer.decode(c.prompt).index(c.answer) / len(tiny.tokenizer.decode(c.prompt))
            for c in (low, high)
        ]
        assert position[0] < 0.3 < 0.7 < position[1]
    assert retrieval.correct(low, f" {low.answer}. And more") and not retrieval.correct(low, " nothing")


def test_the_full_cache_answers_as_stock_generate(tiny):
    (task,) = [t for t in retrieval.SUITE if t.name == "pass-key-while-writing"]
    (case,) = retrieval.cases(task, tiny.tokenizer, [120], [0.5], [0])
    ids = torch.tensor([case.prompt + case.generated + case.question])
    stock = tiny.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=8,
                                do_sample=False, pad_token_id=0)  # fmt: skip
    expected = tiny.tokenizer.decode(stock[0, ids.shape[1] :].tolist(), skip_special_tokens=True)
    assert retrieval.answer(tiny.model, tiny.tokenizer, case, None) == expected
    holds_all = kvlimit.LimitConfig.create(200)
    assert retrieval.answer(tiny.model, tiny.tokenizer, case, holds_all) == expected
    bounded = retrieval.answer(tiny.model, tiny.tokenizer, case, kvlimit.LimitConfig.create(32, recall=8))
    assert isinstance(bounded, str)


def _fresh_logprob(model, ids: list[int], answer: list[int]) -> float:
    """Oracle: log p(answer | ids) from one forward over the whole text, no cache."""
    whole = torch.tensor([ids + answer])
    with torch.no_grad():
        logits = model(input_ids=whole).logits[0].float()
    steps = torch.log_softmax(logits[len(ids) - 1 : -1], dim=-1)
    return float(steps[torch.arange(len(answer)), torch.tensor(answer)].sum())


def test_the_answer_logprob_is_a_fresh_forwards(tiny):
    (task,) = [t for t in retrieval.SUITE if t.name == "pass-key-while-writing"]
    (case,) = retrieval.cases(task, tiny.tokenizer, [120], [0.5], [0])
    forced = retrieval.answer_ids(tiny.tokenizer, case)
    assert tiny.tokenizer.decode(forced).strip() == case.answer
    expected = _fresh_logprob(tiny.model, case.prompt + case.generated + case.question, forced)
    for config in (None, kvlimit.LimitConfig.create(200), kvlimit.LimitConfig.create(200, recall=16)):
        outcome = retrieval.run_case(tiny.model, tiny.tokenizer, case, config)
        assert outcome.answer_logprob == pytest.approx(expected, abs=1e-4)
        assert outcome.text == retrieval.answer(tiny.model, tiny.tokenizer, case, None)


def test_forcing_the_answer_leaves_the_greedy_answer_alone(tiny):
    # a single-key case feeds its prompt as kvlimit.generate does (chunks, then the last token as a
    # decode step), so through a bounded cache with recall its greedy answer is generate's; teacher-forcing
    # the answer on a copy of the cache must not move it (nor may the copy's steps reach the original)
    (task,) = [t for t in retrieval.SUITE if t.name == "pass-key"]
    config = kvlimit.LimitConfig.create(48, recall=16)
    for case in retrieval.cases(task, tiny.tokenizer, [120], [0.1, 0.9], [0, 1]):
        ids = torch.tensor([case.prompt])
        out = kvlimit.generate(tiny.model, input_ids=ids, attention_mask=torch.ones_like(ids), cache_limit=config,
                               max_new_tokens=8, do_sample=False, pad_token_id=0)  # fmt: skip
        expected = tiny.tokenizer.decode(out[0, ids.shape[1] :].tolist(), skip_special_tokens=True)
        outcome = retrieval.run_case(tiny.model, tiny.tokenizer, case, config)
        assert outcome.text == expected
        assert outcome.answer_logprob < 0
