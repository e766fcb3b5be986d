"""Which of a prompt chunk's queries choose its recalled blocks (`recall_queries`, `RecallStep.choosing`).

Oracles: the choosing mask by hand for left-padded rows (each row's last N real tokens wherever its
padding is, and the mean token index they stand at); the same cache with `recall_queries=0` (all of
a chunk's queries, the mean) when N covers every chunk, exactly; each row of a left-padded batch
against the row alone; the argument checks and the command line's flag.
"""

import pytest
import torch

import kvlimit
from kvlimit.cache.recall_hook import RecallStep
from kvlimit.cli import build_parser
from kvlimit.clitools import recall_from_args

from .helpers import left_padded, make_model

LIMIT, RECALL, CHUNK = 16, 4, 8


def _step(real: list[list[int]], last: int) -> RecallStep:
    real_t = torch.tensor(real)
    batch, q = real_t.shape
    positions = torch.arange(q)[None].repeat(batch, 1) + 20
    return RecallStep(0, RECALL, torch.zeros(batch, dtype=torch.long), positions, [RECALL] * batch,
                      torch.tensor([0, 5, 0]), real_t, last)  # fmt: skip


def test_a_chunk_chooses_by_each_rows_last_real_queries():
    real = [[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0]]
    step = _step(real, 2)
    assert step.choosing().tolist() == [[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 1, 1], [0] * 6]
    # token index = position + shift: row 0 at 24 and 25, row 1 at 29 and 30, an empty row at 0
    assert step.query_index().tolist() == [24, 29, 0]
    everything = _step(real, 0)
    assert everything.choosing().tolist() == real
    assert everything.query_index().tolist() == [(22 + 23 + 24 + 25) // 4, (25 + 30) * 6 // 2 // 6, 0]
    assert _step(real, 6).choosing().tolist() == real  # more than a row's real tokens: all of them


def _chunked(model, ids, mask, **recall):
    """Logits of every chunk and the first recalled layer's recalled token indices after each chunk."""
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_block=2, **recall)
    cache = kvlimit.build_cache(model, config, rows=ids.shape[0])
    cache.recall_hook.record_recalled = True
    layer = cache.recall.groups[0].members[0]
    logits, recalled = [], []
    for start in range(0, ids.shape[1], CHUNK):
        out = kvlimit.forward_step(
            model, cache, ids[:, start : start + CHUNK], mask[:, start : start + CHUNK]
        )
        logits.append(out.logits)
        if layer in cache.recall_hook.last_recalled:
            recalled.append(cache.recall_hook.last_recalled[layer][0].clone())
    return torch.cat(logits, dim=1), recalled


def test_the_last_queries_of_a_whole_chunk_are_all_of_them():
    model = make_model("llama")
    ids, mask = left_padded(model, lengths=(40, 33))
    every, chosen = _chunked(model, ids, mask, recall_queries=0)
    assert len(chosen) >= 3  # chunks that recalled
    whole, same = _chunked(model, ids, mask, recall_queries=CHUNK)
    assert torch.equal(whole, every) and all(torch.equal(a, b) for a, b in zip(same, chosen, strict=True))
    last, picked = _chunked(model, ids, mask, recall_queries=1)  # the option reaches the choice
    assert any(not torch.equal(a, b) for a, b in zip(picked, chosen, strict=True))
    assert not torch.equal(last, every)


@pytest.mark.parametrize("queries", [1, 3])
def test_each_row_chooses_by_its_own_last_queries_in_a_batch(queries):
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


def test_recall_queries_is_checked():
    with pytest.raises(ValueError, match=r"recall_queries must be an int >= 0 or None \(the last 8\)"):
        kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_queries=-1)
    with pytest.raises(ValueError, match="recall_queries=2 goes with recall"):
        kvlimit.LimitConfig.create(LIMIT, recall_queries=2)
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_queries=0)
    assert config.recall_queries == 0 and "recall_queries=0" in config.describe()
    assert (
        kvlimit.LimitConfig.create(LIMIT, recall=RECALL).recall_queries == kvlimit.cache.recall.CHUNK_QUERIES
    )
    args = build_parser().parse_args(["generate", "hi", "--recall", "4", "--recall-queries", "3"])
    assert recall_from_args(args)["recall_queries"] == 3
