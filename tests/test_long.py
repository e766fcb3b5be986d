"""Generation far past the trained context: positions stay where the model can use them.

RoPE keys are rebased to in-cache positions often enough that positions stay below the range where
dynamic / longrope frequencies change, and below GPT-J's sin/cos table (which stock generate indexes
past and crashes on).
"""

import pytest
import torch

import kvlimit

from .helpers import MAX_POSITIONS, bounded_cache, make_model

NEW = 5 * MAX_POSITIONS
LIMIT = 24


@pytest.mark.parametrize(
    ("family", "rope_type"),
    [("llama", None), ("llama", "dynamic"), ("llama", "longrope"), ("gptj", None), ("phi3", "longrope")],
)
def test_five_contexts_of_new_tokens(family, rope_type):
    kwargs = {"rope_type": rope_type} if rope_type else {}
    model = make_model(family, **kwargs)
    # where the model sets no bound (default RoPE), rebase every 4 x limit positions to see it held
    bound = kvlimit.inspect_model(model).position_bound or 4 * LIMIT
    ids = torch.tensor([[5, 6, 7, 8], [0, 9, 10, 11]])
    mask = (ids != 0).long()
    cache = bounded_cache(model, LIMIT, rebase_after=bound)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, cache=cache,
                           max_new_tokens=NEW, min_new_tokens=NEW, do_sample=True, return_dict_in_generate=True)  # fmt: skip
    assert out.sequences.shape[1] == 4 + NEW
    assert cache.stored_tokens() == [LIMIT, LIMIT]
    top = max(max(cache.kept_positions(r)) for r in range(2))
    assert cache.stats["rebases"] >= 1 and top < bound


def test_gptj_stock_generate_crashes_past_its_table():
    model = make_model("gptj")
    with pytest.raises((IndexError, RuntimeError)):
        model.generate(
            input_ids=torch.tensor([[5, 6]]),
            max_new_tokens=MAX_POSITIONS + 4,
            min_new_tokens=MAX_POSITIONS + 4,
        )
