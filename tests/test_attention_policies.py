"""Policies that choose by attention (`tova`, `h2o`, `snapkv`): every family whose attention kvlimit reads.

Oracles:
- limit >= length: identical to stock generate (greedy and beam search);
- depth 1 (TOVA): before every evicting decode step, a fresh *eager* forward over the tokens the
  layer keeps, at the positions the cache records, gives the attention weights of the newest query;
  the token the step evicts is exactly the one with the lowest mean weight (sinks kept, equal weights:
  the oldest), and the step's logits equal a fresh forward over what is kept then;
- H2O keeps the mean of every query's attention: in a one-layer model it equals the test's own
  average of the eager weights of every step that saw the key;
- no host-device synchronisation is added to the decode step.
Families that compute attention in their own code (bloom and mpt; falcon before transformers 5.25, gptj
before 5.24) give their own attention weights, through a hook: the same oracles hold for them.
Batch independence, replay and the limit for these policies are in `test_fuzz.py`.
"""

from __future__ import annotations

import pytest
import torch

import kvlimit
from kvlimit.cache import BoundedCache
from kvlimit.integrations.hf import attention_families, tap_reports_queries
from kvlimit.policies import RECENT

from .helpers import (
    ALIBI_FAMILIES,
    FAMILIES,
    attn_implementations,
    bounded_cache,
    left_padded,
    make_model,
    model_type,
    syncs_per_step,
    takes_positions,
)

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle

ATTENTION_FAMILIES = [f for f in FAMILIES if model_type(f) in attention_families()]


def test_the_policies_are_registered_and_explain_themselves():
    for name in ("tova", "h2o", "snapkv"):
        policy = kvlimit.make_policy(name)
        assert policy.per_layer and policy.reads_attention and name in kvlimit.POLICIES
    assert kvlimit.make_policy("snapkv", decode_policy="tova").attention_mode("decode") == RECENT
    with pytest.raises(ValueError, match=r"decode_policy=.h2o. is not one of 'sinks', 'tova'"):
        kvlimit.make_policy("snapkv", decode_policy="h2o")
    with pytest.raises(ValueError, match=r"pool must be an odd int >= 1"):
        kvlimit.make_policy("snapkv", pool=4)


def test_every_family_can_be_read():
    assert set(attention_families()) == set(kvlimit.supported_families())
    assert {model_type(f) for f in ATTENTION_FAMILIES} == set(kvlimit.supported_families())


@pytest.mark.parametrize("policy", ["tova", "h2o", "snapkv"])
@pytest.mark.parametrize("family", ATTENTION_FAMILIES)
def test_matches_stock_when_nothing_is_evicted(family, policy):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model)
    kwargs = dict(max_new_tokens=8, do_sample=False, return_dict_in_generate=True, output_scores=True)
    ref = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=ids.shape[1] + 8, policy=policy,
                           **kwargs)  # fmt: skip
    assert torch.equal(out.sequences, ref.sequences)
    for got, want in zip(out.scores, ref.scores, strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("policy", ["tova", "h2o"])
def test_beam_search_matches_stock_when_nothing_is_evicted(policy):
    model = make_model("llama")
    ids, mask = left_padded(model)
    kwargs = dict(max_new_tokens=8, num_beams=3, num_return_sequences=2, do_sample=False,
                  return_dict_in_generate=True, output_scores=True)  # fmt: skip
    ref = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=ids.shape[1] + 8, policy=policy,
                           **kwargs)  # fmt: skip
    assert torch.equal(out.sequences, ref.sequences)
    torch.testing.assert_close(out.sequences_scores, ref.sequences_scores, atol=1e-5, rtol=1e-5)


# --- depth 1: the evicted token is the least attended ---------------------------------------------


def eager_twin(family: str):
    """The same one-layer weights with eager attention, which returns its attention weights."""
    return make_model(family, num_layers=1, attn_implementation="eager")


def fresh(model, tokens: list[int], positions: list[int], alibi: bool):
    """A fresh forward over `tokens` at `positions` (ALiBi: column order): last logits, last query's weights."""
    kwargs = {"output_attentions": True}
    if takes_positions(model) and not alibi:
        kwargs["position_ids"] = torch.tensor([positions])
    with torch.no_grad():
        out = model(input_ids=torch.tensor([tokens]), **kwargs)
    return out.logits[0, -1], out.attentions[0][0, :, -1].float().mean(dim=0)


class DecodeLog:
    """Per decode step and row: the (index, id, position) of every kept token before and after planning."""

    def __init__(self, monkeypatch):
        self.steps: list[list[tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]]] = []
        original = BoundedCache.prepare_step
        log = self

        def prepare_step(cache, input_ids, attention_mask=None):
            decode = attention_mask is None and cache.columns_seen > 0
            before = [held(cache, r) for r in range(input_ids.shape[0])] if decode else None
            step = original(cache, input_ids, attention_mask)
            if before is not None:
                log.steps.append([(before[r], held(cache, r)) for r in range(input_ids.shape[0])])
            return step

        monkeypatch.setattr(BoundedCache, "prepare_step", prepare_step)


def held(cache, row: int) -> list[tuple[int, int, int]]:
    return list(
        zip(cache.kept_token_indices(row), cache.kept_token_ids(row), cache.kept_positions(row), strict=True)
    )


@pytest.mark.parametrize("family", ATTENTION_FAMILIES)
def test_depth1_tova_evicts_the_least_attended_token(family, monkeypatch):
    model = make_model(family, num_layers=1, attn_implementation=attn_implementations(family)[0])
    if family == "falcon_alibi" and tap_reports_queries(kvlimit.inspect_model(model)):
        # Before transformers 5.25 Falcon-RW's eager code adds its ALiBi bias twice (once scaled into the
        # scores, once in the mask it shares with sdpa), so its eager twin is no oracle for its sdpa
        # attention: both sides run the eager code here (its sdpa side is Falcon's, checked with RoPE).
        model = eager_twin(family)
    eager = eager_twin(family)
    ids, mask = left_padded(model, lengths=(3, 6))
    limit, sinks, new = 7, 1, 24
    log = DecodeLog(monkeypatch)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, policy="tova", n_sink=sinks,
                           max_new_tokens=new, min_new_tokens=new, do_sample=False, return_dict_in_generate=True,
                           output_logits=True)  # fmt: skip
    alibi = family in ALIBI_FAMILIES
    checked = 0
    # log.steps[t] is the decode step that makes new token t + 1 (token 0 comes from the prompt's forward)
    for t, rows in enumerate(log.steps):
        for row, (before, after) in enumerate(rows):
            if len(before) < limit:
                continue  # nothing evicted: the row was still filling
            # the newest query before this step is the last token held: its weights chose who goes
            _, weights = fresh(eager, [i for _, i, _ in before], [p for _, _, p in before], alibi)
            candidates = [
                (float(w), idx) for (idx, _, _), w in zip(before, weights, strict=True) if idx >= sinks
            ]
            gone = {idx for idx, _, _ in before} - {idx for idx, _, _ in after}
            lowest = min(candidates)[0]
            assert len(gone) == 1, f"step {t} row {row}: evicted {gone}"
            (evicted,) = gone
            weight = dict((idx, w) for w, idx in candidates)[evicted]
            # the least attended (float noise between the cache's sdpa and this eager forward: 1e-5)
            assert weight <= lowest + 1e-5, f"step {t} row {row}: evicted {evicted} ({weight}) not {lowest}"
            logits, _ = fresh(eager, [i for _, i, _ in after], [p for _, _, p in after], alibi)
            torch.testing.assert_close(out.logits[t + 1][row], logits, atol=1e-4, rtol=1e-4)
            checked += 1
    assert checked >= 2 * 12


def test_depth1_h2o_keeps_the_mean_attention_of_every_query(monkeypatch):
    """In one layer, the cache's H2O scores equal the average of the eager weights each step gave a key."""
    model = make_model("llama", num_layers=1)
    eager = eager_twin("llama")
    cache = bounded_cache(model, 6, "h2o", n_sink=1, n_recent=1)
    tokens = torch.randint(3, 128, (1, 20), generator=torch.Generator().manual_seed(3))
    sums: dict[int, list[float]] = {}
    for t in range(tokens.shape[1]):
        kvlimit.forward_step(model, cache, tokens[:, t : t + 1])
        kept = held(cache, 0)
        _, weights = fresh(eager, [i for _, i, _ in kept], [p for _, _, p in kept], alibi=False)
        for (idx, _, _), w in zip(kept, weights, strict=True):
            sums.setdefault(idx, []).append(float(w))
    group = cache.kept_sets[0]
    mean = group.attention / group.attention_count.clamp(min=1.0)
    for slot in range(cache.slots):
        idx = int(group.token_index[0, slot])
        want = sum(sums[idx]) / len(sums[idx])
        assert abs(float(mean[0, slot]) - want) < 1e-5, f"token {idx}"
    # the policy sees it rounded to float16, so that scores within float noise of each other tie
    assert torch.equal(group.view().attention, mean.half().float())


@pytest.mark.parametrize("policy", ["tova", "h2o", "snapkv"])
def test_decode_step_adds_no_host_sync(policy):
    model = make_model("llama")
    ids, mask = left_padded(model, lengths=(3, 5))
    stock = syncs_per_step(model, ids, mask)
    bounded = syncs_per_step(model, ids, mask, custom_generate=kvlimit.generate, cache_limit=6, policy=policy,
                             n_sink=1)  # fmt: skip
    assert stock >= 1
    assert bounded <= stock, f"{policy}: {bounded} host syncs per decode step against stock's {stock}"


def test_depth1_tova_in_a_prompt_chunk_averages_the_chunk_queries():
    """A chunk's scores: each kept key's eager weights averaged over the chunk's queries that saw it."""
    model = make_model("llama", num_layers=1)
    eager = eager_twin("llama")
    cache = bounded_cache(model, 10, "tova", n_sink=1)
    tokens = torch.randint(3, 128, (1, 30), generator=torch.Generator().manual_seed(5))
    checked = 0
    for start in range(0, 30, 4):
        kvlimit.forward_step(model, cache, tokens[:, start : start + 4])
        kept = held(cache, 0)
        chunk = [entry for entry in kept if entry[0] >= start]
        shown = [entry for entry in kept if entry[0] < start]
        order = shown + chunk  # the columns the chunk's queries saw, in time
        ids = torch.tensor([[i for _, i, _ in order]])
        with torch.no_grad():
            out = eager(
                input_ids=ids, position_ids=torch.tensor([[p for _, _, p in order]]), output_attentions=True
            )
        weights = out.attentions[0][0].float().mean(dim=0)[-len(chunk) :]  # (chunk queries, columns)
        seen = weights.shape[0] - torch.clamp(torch.arange(len(order)) - len(shown), min=0)
        want = weights.sum(dim=0) / seen
        group = cache.kept_sets[0]
        for (idx, _, _), score in zip(order, want, strict=True):
            slot = int((group.token_index[0] == idx).nonzero()[0, 0])
            assert abs(float(group.attention[0, slot]) - float(score)) < 1e-5, f"token {idx}"
            checked += 1
    assert checked > 40
