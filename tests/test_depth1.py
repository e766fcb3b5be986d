"""Oracle 2: in a one-layer model, each step's logits equal a fresh forward over the kept tokens.

A one-layer model's keys depend only on token and position, so with the limit active the logits
of every step must equal a fresh forward over exactly the tokens the policy keeps, at positions
0..n-1 (StreamingLLM's in-cache positions). Checked for every RoPE and ALiBi family, sinks and
window, in a left-padded batch whose rows have different lengths, long enough to evict many times
and (RoPE) to rebase the positions several times.
"""

import pytest
import torch

import kvlimit

from .helpers import (
    ALIBI_FAMILIES,
    ROPE_FAMILIES,
    ROPE_TYPES,
    attn_implementations,
    bounded_cache,
    fresh_logits_many,
    kept_indices,
    left_padded,
    make_model,
    output_cache,
    real_tokens,
)

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle

LIMIT = 8
NEW = 40


def assert_depth1(model, policy, n_sink, new=NEW, limit=LIMIT, lengths=(3, 7), rebase_after=None):
    """`rebase_after` None: the production rebase interval; else RoPE keys are rebased that often."""
    ids, mask = left_padded(model, lengths=lengths)
    settings = {"n_sink": n_sink} if policy == "sinks" else {}
    cache = (
        bounded_cache(model, limit, policy, rebase_after=rebase_after, **settings) if rebase_after else None
    )
    out = kvlimit.generate(
        model,
        cache=cache,
        input_ids=ids,
        attention_mask=mask,
        cache_limit=limit,
        policy=policy,
        n_sink=n_sink if policy == "sinks" else None,
        max_new_tokens=new,
        min_new_tokens=new,  # no early stop at EOS: every row runs the whole length (raw logits are unaffected)
        do_sample=False,
        return_dict_in_generate=True,
        output_logits=True,
    )
    sinks = n_sink if policy == "sinks" else 0
    for row in range(ids.shape[0]):
        tokens = real_tokens(out.sequences[row], mask[row])
        prompt = int(mask[row].sum())
        # the forward of step t consumed token prompt - 1 + t; the oracle sees only what is kept then
        kept = [
            [tokens[i] for i in kept_indices(prompt - 1 + t, limit, sinks)] for t in range(len(out.logits))
        ]
        for logits, want in zip(out.logits, fresh_logits_many(model, kept), strict=True):
            torch.testing.assert_close(logits[row], want, atol=1e-4, rtol=1e-4)
    return out


DEPTH1 = sorted(ROPE_FAMILIES | ALIBI_FAMILIES)


@pytest.mark.parametrize("family", DEPTH1)
@pytest.mark.parametrize(("policy", "n_sink"), [("sinks", 2), ("window", None)])
def test_depth1_every_family(family, policy, n_sink):
    model = make_model(family, num_layers=1, attn_implementation=attn_implementations(family)[0])
    out = assert_depth1(model, policy, n_sink, rebase_after=4 * LIMIT)  # rebase RoPE keys every 4 x limit
    if family in ROPE_FAMILIES:
        assert output_cache(out).stats["rebases"] >= 1


@pytest.mark.parametrize("family", ["llama", "bloom", "falcon_alibi", "gptj", "gpt_neox"])
def test_depth1_eager(family):
    assert_depth1(
        make_model(family, num_layers=1, attn_implementation="eager"), "sinks", 3, rebase_after=4 * LIMIT
    )


@pytest.mark.parametrize("rope_type", ROPE_TYPES)
def test_depth1_every_rope_type(rope_type):
    assert_depth1(make_model("llama", num_layers=1, rope_type=rope_type), "sinks", 2, rebase_after=4 * LIMIT)


def test_depth1_production_rebase_interval(monkeypatch):
    """The production rule (rebase before a position reaches max(4 x limit, REBASE_MIN)), with its floor
    lowered so that it is reached: rows are rebased, and no kept key's position ever reaches 4 x limit."""
    import kvlimit.build

    monkeypatch.setattr(kvlimit.build, "REBASE_MIN", 16)
    model = make_model("llama", num_layers=1)
    out = assert_depth1(model, "sinks", 4, new=120, limit=12)
    assert output_cache(out).stats["rebases"] >= 2
    assert all(max(output_cache(out).kept_positions(row)) < 4 * 12 for row in range(2))


@pytest.mark.parametrize(("family", "rope_type"), [("llama", "dynamic"), ("gptj", None)])
def test_depth1_positions_stay_below_the_models_bound(family, rope_type):
    """With the production settings, a model whose positions are bounded (dynamic RoPE's original context,
    GPT-J's sin/cos table) is rebased below its bound, however far generation runs."""
    model = make_model(family, num_layers=1, **({"rope_type": rope_type} if rope_type else {}))
    bound = kvlimit.inspect_model(model).position_bound
    assert bound is not None
    out = assert_depth1(model, "sinks", 2, new=2 * bound, limit=12)
    assert output_cache(out).stats["rebases"] >= 1
    assert all(max(output_cache(out).kept_positions(row)) < bound for row in range(2))
