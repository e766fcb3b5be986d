"""Choosing recalled blocks every N decode steps (`recall_every`, `kvlimit.cache.recall_schedule`).

Oracles: the same cache with `recall_every=1`, teacher-forced on the same tokens: the first recalled
layer's query does not depend on what was recalled (it is the embeddings'), and a positional policy
evicts the same tokens either way, so at a step where a row chooses it must choose what the
every-step cache chooses, and at any other step attend exactly what it attended the step before;
each row of a left-padded batch against the row alone (the schedule is the row's own); the argument
checks. The compiled step (both graphs: scoring and not), beams, a bounded store whose rings wrap and
the continuous engine are held to the eager tier and to each prompt alone in
tests/test_compile_recall.py and tests/test_engine.py.
"""

import pytest
import torch

import kvlimit

from .helpers import left_padded, make_model

LIMIT, RECALL, BLOCK = 16, 4, 2  # two recalled blocks of 2


def _teacher_forced(model, every: int, feed: torch.Tensor, ids, mask):
    """The first recalled layer's recalled token indices (batch, kv_heads, RECALL) after each decode step
    of `feed` (steps, batch), and each row's steps since its last choice."""
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_block=BLOCK, recall_every=every)
    cache = kvlimit.build_cache(model, config, rows=ids.shape[0])
    cache.recall_hook.record_recalled = True
    for start in range(0, ids.shape[1], 8):
        kvlimit.forward_step(model, cache, ids[:, start : start + 8], mask[:, start : start + 8])
    layer = cache.recall.groups[0].members[0]
    recalled, since = [], []
    for token in feed:
        kvlimit.forward_step(model, cache, token[:, None])
        recalled.append(cache.recall_hook.last_recalled[layer][0].clone())
        since.append(list(cache.recall.schedule.since))
    return recalled, since


@pytest.mark.parametrize("every", [2, 3, 5])
def test_a_row_chooses_what_every_step_chooses_and_keeps_it_between(every):
    model = make_model("llama")
    ids, mask = left_padded(model, lengths=(9, 21))
    feed = torch.randint(3, model.config.vocab_size, (30, 2), generator=torch.Generator().manual_seed(every))
    reference, _ = _teacher_forced(model, 1, feed, ids, mask)
    recalled, since = _teacher_forced(model, every, feed, ids, mask)
    reused = differs = 0
    for step in range(1, len(feed)):
        for row in range(2):
            assert 1 <= since[step][row] <= every
            if since[step][row] == 1:  # chose this step: what the every-step cache chose
                assert torch.equal(recalled[step][row], reference[step][row]), (step, row)
            else:  # attended what it attended the step before
                assert torch.equal(recalled[step][row], recalled[step - 1][row]), (step, row)
                reused += 1
                differs += not torch.equal(recalled[step][row], reference[step][row])
    assert reused >= len(feed) // 2  # most steps reuse, and some reuse a choice the query would not make
    assert differs > 0


def test_each_row_keeps_its_own_schedule_in_a_batch():
    model = make_model("qwen2")
    ids, mask = left_padded(model, lengths=(5, 23, 14))
    common = dict(cache_limit=LIMIT, recall=RECALL, recall_every=3, do_sample=False, max_new_tokens=40,
                  pad_token_id=0)  # fmt: skip
    batch = kvlimit.generate(model, input_ids=ids, attention_mask=mask, **common)
    for row in range(ids.shape[0]):
        prompt = ids[row][mask[row].bool()][None]
        alone = kvlimit.generate(model, input_ids=prompt, **common)
        new = alone[0, prompt.shape[1] :]  # (a row that ends is padded in the batch)
        assert torch.equal(batch[row, ids.shape[1] : ids.shape[1] + len(new)], new), row


def test_recall_every_is_checked():
    with pytest.raises(ValueError, match="recall_every must be an int >= 1"):
        kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_every=0)
    with pytest.raises(ValueError, match="recall_every=2 goes with recall"):
        kvlimit.LimitConfig.create(LIMIT, recall_every=2)
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_every=4)
    assert config.recall_every == 4 and "recall_every=4" in config.describe()
    assert kvlimit.LimitConfig.create(LIMIT, recall=RECALL).recall_every == 1
