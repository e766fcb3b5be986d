"""Per-layer policies, through `knorm`: every layer keeps its own tokens, chosen from its own keys.

Oracles:
- limit >= length: identical to stock generate (every family, greedy and beam search);
- depth 1: a one-layer model's logits at every step equal a fresh forward over the tokens the
  layer keeps, at the positions the cache says their keys are encoded at (every family);
- selection: before every evicting step, the norms of each layer's stored keys (computed here from
  the stored tensors) say which token must go; after the step exactly that one is gone, per layer;
- replay: beam and sampled sequences replayed through a fresh cache give the reported scores;
- the limit holds per row and layer, every layer of a row holds the same count, no host sync is added.
"""

from __future__ import annotations

import pytest
import torch

import kvlimit
from kvlimit.cache import BoundedCache
from kvlimit.policies import KeyNorm, SlotView

from .helpers import (
    ALIBI_FAMILIES,
    FAMILIES,
    LEARNED_POSITION_FAMILIES,
    MAX_POSITIONS,
    attn_implementations,
    beam_score,
    bounded_cache,
    left_padded,
    make_model,
    output_cache,
    syncs_per_step,
    takes_positions,
)

#: as in test_hot_path: far below the lengths `syncs_per_step` generates, so every counted step evicts
SYNC_LIMIT = 6

# --- the policy on its own --------------------------------------------------------------------


def view(norms: list[float], index: list[int]) -> SlotView:
    token_index = torch.tensor([index])
    return SlotView(token_index, token_index >= 0, statistic=torch.tensor([norms]))


def test_score_orders_sinks_then_recent_then_small_norms():
    policy = KeyNorm(n_sink=1, n_recent=2)
    # slot: token 0 (sink), tokens 1..3 (norm ranked), tokens 4, 5 (recent)
    scores = policy.keep_scores(view([9.0, 1.0, 5.0, 3.0, 99.0, 0.5], [0, 1, 2, 3, 4, 5]))
    assert scores[0, 0] == float("inf")
    assert scores.argmin().item() == 2  # the largest norm outside sinks and the recent window
    order = scores[0].argsort().tolist()
    assert order[:3] == [2, 3, 1] and set(order[3:5]) == {4, 5}
    assert scores[0, 4] < scores[0, 5]  # among the recent tokens the older one goes first


def test_default_recent_window_is_a_quarter_of_the_cache():
    policy = KeyNorm(n_sink=0)
    index = list(range(8))
    scores = policy.keep_scores(view([float(i) for i in index], index))
    # slots // 4 = 2 recent tokens (6, 7); of the others the largest norm (token 5) goes first
    assert scores.argmin().item() == 5 and bool((scores[0, 6:] > scores[0, :6].max()).all())


def test_empty_slots_are_reused_first():
    scores = KeyNorm(n_sink=0, n_recent=0).keep_scores(view([1.0, 2.0, 0.0], [0, 1, -1]))
    assert scores.argmin().item() == 2


def test_statistic_is_the_mean_key_norm_and_rotation_invariant():
    keys = torch.randn(2, 3, 5, 8)
    stat = KeyNorm().token_statistic(keys)
    torch.testing.assert_close(stat, keys.norm(dim=-1).mean(dim=1), atol=0, rtol=1e-3)  # float16-rounded
    from kvlimit.positions.rope import RopeSpec

    rope = RopeSpec(inv_freq=1.0 / (10000 ** (torch.arange(0, 8, 2) / 8)), rotary_dim=8)
    torch.testing.assert_close(KeyNorm().token_statistic(rope.rotate(keys, 37)), stat)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"n_sink": -1}, "n_sink must be an int >= 0"),
        ({"n_recent": -2}, "n_recent must be an int >= 0"),
        ({"n_recent": 2.5}, "n_recent must be an int >= 0"),
    ],
)
def test_bad_settings_name_the_parameter(settings, message):
    with pytest.raises(ValueError, match=message):
        kvlimit.make_policy("knorm", **settings)


def test_settings_must_leave_room_in_the_limit(tiny_llama):
    ids = torch.tensor([[5, 6, 7]])
    with pytest.raises(ValueError, match="n_sink \\+ n_recent must be smaller than cache_limit"):
        kvlimit.generate(tiny_llama, input_ids=ids, cache_limit=8, policy="knorm", n_sink=4, n_recent=4)
    with pytest.raises(ValueError, match="does not take the setting"):
        kvlimit.generate(tiny_llama, input_ids=ids, cache_limit=8, policy="sinks", n_recent=2)
    with pytest.raises(
        ValueError, match="n_recent, positions, prefill_chunk, kv_dtype and kv_group need cache_limit"
    ):
        kvlimit.generate(tiny_llama, input_ids=ids, n_recent=2)


def test_knorm_is_a_known_policy_by_name_and_object():
    assert kvlimit.make_policy("KNorm", n_recent=3) == KeyNorm(n_recent=3)
    assert "knorm" in kvlimit.POLICIES and KeyNorm.per_layer


# --- with the limit out of reach: stock generate ------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_matches_stock_when_nothing_is_evicted(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model)
    kwargs = dict(max_new_tokens=10, do_sample=False, return_dict_in_generate=True, output_scores=True)
    ref = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=ids.shape[1] + 10,
                           policy="knorm", **kwargs)  # fmt: skip
    assert torch.equal(out.sequences, ref.sequences)
    for got, want in zip(out.scores, ref.scores, strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    assert output_cache(out).n_kept_sets == max(1, len(output_cache(out).bounded_indices))


@pytest.mark.parametrize("family", ["llama", "bloom", "gpt2", "gemma3_text"])
def test_beam_search_matches_stock_when_nothing_is_evicted(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model)
    kwargs = dict(max_new_tokens=8, num_beams=3, num_return_sequences=2, do_sample=False,
                  return_dict_in_generate=True, output_scores=True)  # fmt: skip
    ref = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=ids.shape[1] + 8,
                           policy="knorm", **kwargs)  # fmt: skip
    assert torch.equal(out.sequences, ref.sequences)
    torch.testing.assert_close(out.sequences_scores, ref.sequences_scores, atol=1e-5, rtol=1e-5)


# --- depth 1: the logits are a fresh forward over what the layer keeps --------------------------


class KeptLog:
    """After every `prepare_step`: per row, the kept token ids and their key positions (first bounded layer)."""

    def __init__(self, monkeypatch):
        self.steps: list[list[tuple[list[int], list[int]]]] = []
        original = BoundedCache.prepare_step
        log = self.steps

        def prepare_step(cache, input_ids, attention_mask=None):
            step = original(cache, input_ids, attention_mask)
            log.append(
                [(cache.kept_token_ids(r), cache.kept_positions(r)) for r in range(input_ids.shape[0])]
            )
            return step

        monkeypatch.setattr(BoundedCache, "prepare_step", prepare_step)


def fresh_at_positions(model, tokens: list[int], positions: list[int], alibi: bool) -> torch.Tensor:
    """Last-position logits of a fresh forward over `tokens`; keys at `positions` (ALiBi: 0..n-1)."""
    kwargs = {}
    if takes_positions(model) and not alibi:
        kwargs["position_ids"] = torch.tensor([positions])
    with torch.no_grad():
        return model(input_ids=torch.tensor([tokens]), **kwargs).logits[0, -1]


DEPTH1 = sorted(set(FAMILIES))


@pytest.mark.parametrize("family", DEPTH1)
def test_depth1_every_family(family, monkeypatch):
    model = make_model(family, num_layers=1, attn_implementation=attn_implementations(family)[0])
    vary_key_norms(model)  # with a key norm layer, random keys all have one norm: nothing to choose by
    ids, mask = left_padded(model, lengths=(3, 7))
    limit, new = 8, 40
    cache = bounded_cache(model, limit, "knorm", rank_every=2, n_sink=1, n_recent=2)
    log = KeptLog(monkeypatch)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, policy=cache.policy,
                           cache=cache, max_new_tokens=new, min_new_tokens=new, do_sample=False,
                           return_dict_in_generate=True, output_logits=True)  # fmt: skip
    assert len(log.steps) == len(out.logits)
    alibi = family in ALIBI_FAMILIES
    evicted_middle = False
    for row in range(ids.shape[0]):
        for step, logits in zip(log.steps, out.logits, strict=True):
            tokens, positions = step[row]
            assert len(tokens) <= limit
            want = fresh_at_positions(model, tokens, positions, alibi)
            torch.testing.assert_close(logits[row], want, atol=1e-4, rtol=1e-4)
        indices = output_cache(out).kept_token_indices(row)
        # norms, not recency, chose: some kept token is older than the contiguous recent run
        evicted_middle |= indices != [0, *range(indices[-1] - limit + 2, indices[-1] + 1)]
    assert evicted_middle
    if output_cache(out).model_spec.positions == "rope":
        assert output_cache(out).stats["rebases"] >= 3
        # ranked every 2 x limit positions: no key is further than that from the query
        assert max(max(output_cache(out).kept_positions(r)) for r in range(2)) < 2 * limit


# --- selection: each layer evicts its largest stored key norm -----------------------------------


class SelectionCheck:
    """Before each decode step, predict each layer's evicted token from its stored keys; check after."""

    def __init__(self, monkeypatch, policy: KeyNorm):
        self.policy = policy
        self.checked = 0
        self.layers_disagree = False
        original = BoundedCache.prepare_step
        check = self

        def prepare_step(cache, input_ids, attention_mask=None):
            expect = check.predict(cache) if attention_mask is None and cache.columns_seen else None
            step = original(cache, input_ids, attention_mask)
            check.after(cache)
            if expect is not None:
                check.verify(cache, expect)
            return step

        monkeypatch.setattr(BoundedCache, "prepare_step", prepare_step)

    def predict(self, cache) -> dict[tuple[int, int], tuple[set[int], dict[int, float]]]:
        """(layer, row) -> (the tokens held now, the key norm of each evictable token), for full rows.

        Evictable: neither a sink nor among the `n_recent` newest. Norms come from the stored keys.
        """
        want = {}
        for idx in cache.bounded_indices:
            layer = cache.layers[idx]
            group = cache.kept_sets[layer.kept_set]
            norms = layer.keys.float().norm(dim=-1).mean(dim=1)  # (batch, slots), unrounded
            for row, kept in enumerate(cache.rows.kept):
                if kept < cache.slots:
                    continue
                index = group.token_index[row]
                newest = int(index.max())
                candidates = (index >= self.policy.n_sink) & (index <= newest - self.policy.n_recent)
                held = set(index[group.valid[row]].tolist())
                want[(idx, row)] = (
                    held,
                    {int(index[s]): float(norms[row, s]) for s in candidates.nonzero()[:, 0]},
                )
        return want

    def after(self, cache) -> None:
        counts = [group.valid.sum(dim=1).tolist() for group in cache.kept_sets]
        assert all(c == cache.rows.kept for c in counts), "every layer of a row holds the same count"
        assert max(cache.rows.kept) <= cache.cache_limit
        assert all(torch.equal(g.valid, cache.kept_sets[0].valid) for g in cache.kept_sets)
        sets = [tuple(sorted(g.token_index[0][g.valid[0]].tolist())) for g in cache.kept_sets]
        self.layers_disagree |= len(set(sets)) > 1

    def verify(self, cache, want) -> None:
        for (idx, row), (held, norms) in want.items():
            kept = set(cache.kept_token_indices(row, layer=idx))
            gone = held - kept
            assert len(gone) == 1 and len(kept) == cache.slots, f"layer {idx} row {row}: evicted {gone}"
            (token,) = gone
            assert token in norms, f"layer {idx} row {row} evicted token {token}, a sink or a recent token"
            top = max(norms.values())
            # the largest norm goes (up to the policy's float16 rounding, within which ties go either way)
            assert norms[token] >= top * (1 - 1e-3), (
                f"layer {idx} row {row} evicted a key of norm {norms[token]} while one of norm {top} was kept"
            )
            self.checked += 1


@pytest.mark.parametrize("family", ["llama", "qwen3", "gpt_neox", "bloom", "gpt2", "gemma2", "mixtral"])
def test_each_layer_evicts_its_largest_key_norm(family, monkeypatch):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    vary_key_norms(model)
    ids, mask = left_padded(model, lengths=(4, 9))
    policy = KeyNorm(n_sink=2, n_recent=2)
    check = SelectionCheck(monkeypatch, policy)
    cache = bounded_cache(model, 8, policy, rank_every=2)
    kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=8, policy=policy, cache=cache,
                     max_new_tokens=30, min_new_tokens=30, do_sample=True, top_k=20)  # fmt: skip
    assert check.checked >= 2 * 2 * 20  # layers x rows x evicting steps
    assert check.layers_disagree, "the layers of a random model should not all keep the same tokens"


# --- replay, beams, long prompts, absolute positions, hot path ----------------------------------


def vary_key_norms(model) -> None:
    """Random init leaves a key-norm layer's weights all equal, so every key has the same norm and knorm's
    choices are float-noise ties; a trained model's weights differ per dimension. Make them differ."""
    generator = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("k_norm.weight"):
                param.add_(torch.randn(param.shape, generator=generator))


@pytest.mark.parametrize("family", ["llama", "bloom", "gpt2", "phi3", "gemma3_text", "qwen3"])
def test_replay_reproduces_beam_scores(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    vary_key_norms(model)
    ids, mask = left_padded(model, lengths=(4, 9))  # the longer prompt is prefilled in chunks
    limit, new = 7, 16
    policy = KeyNorm(n_sink=1, n_recent=2)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, policy=policy,
                           max_new_tokens=new, num_beams=3, num_return_sequences=2, do_sample=False,
                           output_scores=True, return_dict_in_generate=True)  # fmt: skip
    config = kvlimit.LimitConfig.create(limit, policy)
    chunk = config.policy.default_chunk(
        limit
    )  # generate's automatic prefill chunk for prompts longer than the limit
    for row in range(out.sequences.shape[0]):
        item = row // 2
        cache = kvlimit.build_cache(model, config)
        generated = out.sequences[row, ids.shape[1] :].tolist()
        want = beam_score(model, cache, ids[item : item + 1], mask[item : item + 1], generated, 1.0, chunk)
        torch.testing.assert_close(out.sequences_scores[row], want, atol=1e-4, rtol=1e-4)


def test_left_padded_beams_keep_their_own_sinks(monkeypatch):
    model = make_model("llama")
    ids, mask = left_padded(model, lengths=(3, 8))
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=6, policy="knorm", n_sink=2,
                           n_recent=1, max_new_tokens=20, min_new_tokens=20, num_beams=3, num_return_sequences=3,
                           return_dict_in_generate=True)  # fmt: skip
    cache = output_cache(out)
    for row in range(6):
        item = row // 3
        first_real = ids[item][mask[item].bool()][:2].tolist()
        for layer in cache.bounded_indices:
            assert cache.kept_token_ids(row, layer=layer)[:2] == first_real  # pads are never sinks
            assert len(cache.kept_token_indices(row, layer=layer)) == 6


@pytest.mark.parametrize("family", sorted(LEARNED_POSITION_FAMILIES))
def test_absolute_positions_are_clamped_far_past_the_table(family):
    model = make_model(family)
    ids, mask = left_padded(model, lengths=(3, 6))
    new = 4 * MAX_POSITIONS
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=16, policy="knorm",
                           max_new_tokens=new, min_new_tokens=new, return_dict_in_generate=True)  # fmt: skip
    assert out.sequences.shape[1] == ids.shape[1] + new
    assert output_cache(out).keeper.name == "clamp" and output_cache(out).stats["reencodes"] == 0
    with pytest.raises(ValueError, match="positions='clamp'"):
        kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=16, policy="knorm",
                         positions="reencode", max_new_tokens=2)  # fmt: skip


@pytest.mark.parametrize("family", ["llama", "bloom", "gpt2", "gemma2"])
def test_decode_step_adds_no_host_sync(family):
    model = make_model(family)
    ids, mask = left_padded(model, lengths=(3, 5))
    stock = syncs_per_step(model, ids, mask)
    bounded = syncs_per_step(model, ids, mask, custom_generate=kvlimit.generate, cache_limit=SYNC_LIMIT,
                             policy="knorm", n_sink=1, n_recent=1)  # fmt: skip
    assert bounded <= stock, f"{family}: {bounded} host syncs per decode step against stock's {stock}"


@pytest.mark.parametrize("family", ["llama", "phi3", "bloom", "gpt2"])
@pytest.mark.parametrize("chunk", [3, 5])
def test_depth1_chunked_streaming(family, chunk, monkeypatch):
    """Chunks evict several tokens per layer at once: the last token of each chunk still sees exactly
    what the layer keeps, at the positions the cache records."""
    model = make_model(family, num_layers=1, attn_implementation=attn_implementations(family)[0])
    cache = bounded_cache(model, 8, KeyNorm(n_sink=1, n_recent=1), rank_every=2)
    log = KeptLog(monkeypatch)
    ids = torch.randint(3, model.config.vocab_size, (1, 40), generator=torch.Generator().manual_seed(2))
    for start in range(0, 40, chunk):
        got = kvlimit.forward_step(model, cache, ids[:, start : start + chunk]).logits[0, -1]
        tokens, positions = log.steps[-1][0]
        assert len(tokens) <= 8
        want = fresh_at_positions(model, tokens, positions, family in ALIBI_FAMILIES)
        torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
    assert cache.stats["evicted"] == 40 - 8


def test_a_user_policy_is_one_small_class(tiny_llama, monkeypatch):
    """The README's example: a per-layer policy written outside kvlimit, without touching the cache."""
    from dataclasses import dataclass
    from typing import ClassVar

    @dataclass(frozen=True)
    class SmallKeys(kvlimit.EvictionPolicy):
        name: ClassVar[str] = "small-keys"
        per_layer: ClassVar[bool] = True

        def token_statistic(self, keys: torch.Tensor) -> torch.Tensor:
            return keys.norm(dim=-1).mean(dim=1)

        def score(self, slots: SlotView) -> torch.Tensor:
            return -slots.statistic

    # the same rule as knorm without sinks or a recent window: check every eviction of every layer with it
    check = SelectionCheck(monkeypatch, KeyNorm(n_sink=0, n_recent=0))
    ids = torch.randint(3, 128, (2, 6), generator=torch.Generator().manual_seed(1))
    out = kvlimit.generate(tiny_llama, input_ids=ids, cache_limit=5, policy=SmallKeys(), max_new_tokens=12,
                           min_new_tokens=12, do_sample=False, return_dict_in_generate=True)  # fmt: skip
    assert output_cache(out).stored_tokens() == [5, 5] and output_cache(out).n_kept_sets == 2
    assert check.checked == 2 * 2 * 12  # layers x rows x steps, every one evicting
