"""Oracle 5: learned-absolute-position models run far past their position table, in both modes.

`reencode` (default) re-encodes the kept window at positions 0..n-1 whenever the next position
would leave the table; `clamp` stops positions at the table's last row. In a one-layer model the
logits of every step equal a fresh forward over the kept tokens at the positions the cache says
they are encoded at (exact for both modes).
"""

import pytest
import torch

import kvlimit

from .helpers import (
    LEARNED_POSITION_FAMILIES,
    MAX_POSITIONS,
    kept_indices,
    left_padded,
    make_model,
    output_cache,
    real_tokens,
)


@pytest.mark.parametrize("family", sorted(LEARNED_POSITION_FAMILIES))
@pytest.mark.parametrize("mode", ["reencode", "clamp"])
def test_four_tables_of_new_tokens(family, mode):
    model = make_model(family)
    ids, mask = left_padded(model, lengths=(3, 6))
    new = 4 * MAX_POSITIONS
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=32, positions=mode,
                           max_new_tokens=new, min_new_tokens=new, return_dict_in_generate=True)  # fmt: skip
    assert out.sequences.shape[1] == ids.shape[1] + new
    cache = output_cache(out)
    assert max(max(cache.kept_positions(r)) for r in range(2)) < MAX_POSITIONS
    if mode == "reencode":
        assert cache.stats["reencodes"] >= 4
    else:
        assert cache.stats["reencodes"] == 0


def test_stock_generate_crashes_past_the_table():
    """The reason for the modes: without them, GPT-2 indexes past its table."""
    model = make_model("gpt2")
    with pytest.raises(IndexError):
        model.generate(
            input_ids=torch.tensor([[5, 6]]),
            max_new_tokens=MAX_POSITIONS + 5,
            min_new_tokens=MAX_POSITIONS + 5,
        )


@pytest.mark.parametrize("family", sorted(LEARNED_POSITION_FAMILIES))
@pytest.mark.parametrize("mode", ["reencode", "clamp"])
def test_depth1_at_encoded_positions(family, mode):
    model = make_model(family, num_layers=1)
    ids, mask = left_padded(model, lengths=(3, 6))
    limit, sinks, new = 10, 2, MAX_POSITIONS + 30
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, n_sink=sinks,
                           positions=mode, max_new_tokens=new, min_new_tokens=new, do_sample=False,
                           return_dict_in_generate=True, output_logits=True)  # fmt: skip
    # replay the same steps against fresh forwards at the positions the cache reported for the kept tokens
    recorder = PositionLog(model, ids, mask, limit, sinks, mode, new)
    for row in range(2):
        tokens = real_tokens(out.sequences[row], mask[row])
        prompt = int(mask[row].sum())
        for step in range(new):
            j = prompt - 1 + step
            kept = kept_indices(j, limit, sinks)
            positions = recorder.positions[row][step]
            assert len(positions) == len(kept)
            x = torch.tensor([[tokens[i] for i in kept]])
            with torch.no_grad():
                want = model(input_ids=x, position_ids=torch.tensor([positions])).logits[0, -1]
            torch.testing.assert_close(out.logits[step][row], want, atol=1e-4, rtol=1e-4)


class PositionLog:
    """Runs the same generation and records, after every step, the positions of the kept keys."""

    def __init__(self, model, ids, mask, limit, sinks, mode, new):
        self.positions = [[], []]
        log = self.positions
        original = kvlimit.BoundedCache.advance

        def advance(cache):
            original(cache)
            for row in range(2):
                log[row].append(cache.kept_positions(row))

        kvlimit.BoundedCache.advance = advance
        try:
            kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, n_sink=sinks,
                             positions=mode, max_new_tokens=new, min_new_tokens=new, do_sample=False)  # fmt: skip
        finally:
            kvlimit.BoundedCache.advance = original
