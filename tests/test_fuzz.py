"""Property-based tests: random requests, as a new user would make them, against the oracles.

Hypothesis draws a family, 1-2 layers, an attention implementation, 1-3 left-padded rows, a limit
(in tokens or as a byte budget), a policy with its settings, the positions mode of learned-position
models, a decoding mode (greedy, sampling with processors, beam search with
`num_return_sequences`), `prefill_chunk`, `kv_dtype` and `kv_group`, the recall tier (`recall`,
`recall_store`, `recall_dtype`, `recall_score`, `recall_block`, `recall_every`, `recall_queries`,
`recall_positions`: positional policies on the families it serves), `max_new_tokens` and
`min_new_tokens`: every option generate takes (a test checks the draws against the declarations).
Every case must:

1. run (a valid request raises nothing);
2. hold the limit in every layer at every step (`oracles.LimitRecorder`; a byte budget gives
   exactly the token limit it names);
3. equal stock `generate` when the limit is never reached (its logits along stock's tokens;
   beam search: the same sequences and scores);
4. be batch independent: each row, generated alone along the tokens it got in its batch, gets the
   same logits (beam search: the same sequences and scores), to the tolerance stock transformers
   itself shows between a row alone and in a padded batch (up to 1.7e-5 on these models); with
   `kv_dtype` or `recall_dtype`, to the quantized cache's own tolerance against float (`QUANT_TOLERANCE`): float noise
   between the two can move a value across a rounding boundary, storing it one step apart;
5. replay: the returned sequences fed back through a fresh cache (`kvlimit.forward_step`) give the
   logits (beam search: the `sequences_scores`) that generation reported.

`test_invalid_requests_name_the_parameter` corrupts one argument of a valid case and checks the
`ValueError` names it. The default profile runs 200 cases in the suite, `-m slow` 2,000; both are
derandomized (the same cases every run), and a failing case is printed as a `Case(...)` to replay.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvlimit
from kvlimit.cache.quant import BITS, KV_DTYPES
from kvlimit.config import argument_names
from kvlimit.policies import POLICIES, RENAMED_SETTINGS, policies_taking

from .helpers import (
    EOS,
    FAMILIES,
    LEARNED_POSITION_FAMILIES,
    QUANT_TOLERANCE,
    ForceTokens,
    LimitRecorder,
    attn_implementations,
    beam_score,
    left_padded,
    make_model,
    output_cache,
    replay_logits,
    serves_recall,
)

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle

#: Stock transformers' own difference between a row alone and in a padded batch reaches 1.7e-5 here.
ATOL = 1e-4


def row_tolerance(case: Case) -> float:
    """How far a row's logits alone may be from those in its batch: float noise (ATOL), or with kv_dtype
    the quantized cache's own tolerance against float (a value that float noise moves across a rounding
    boundary is stored one step apart; with an attention policy that can change an eviction)."""
    dtypes = [d for d in (case.kv_dtype, case.recall_dtype) if d is not None]
    return max([ATOL, *(QUANT_TOLERANCE[d] for d in dtypes)])


PROFILE = dict(
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass(frozen=True)
class Case:
    """One request: what the user asks generate for (see the module docstring)."""

    family: str
    layers: int
    attn: str
    lengths: tuple[int, ...]
    limit: int
    limit_in_bytes: bool
    policy: str
    settings: tuple[tuple[str, Any], ...]
    positions: str | None
    mode: str  # "greedy", "sample" or "beams"
    num_beams: int
    num_return: int
    sampling: tuple[tuple[str, float], ...]
    prefill_chunk: int | None
    max_new: int
    min_new: int | None
    seed: int
    kv_dtype: str | None = None
    kv_group: int | None = None
    recall: int | None = None
    recall_store: int | None = None
    recall_dtype: str | None = None
    recall_score: str | None = None
    recall_block: int | None = None
    recall_every: int | None = None
    recall_queries: int | None = None
    recall_positions: str | None = None

    @property
    def limit_options(self) -> dict[str, Any]:
        """generate's cache arguments, with the limit in tokens."""
        options: dict[str, Any] = {"cache_limit": self.limit, "policy": self.policy, **dict(self.settings)}
        if self.positions is not None:
            options["positions"] = self.positions
        if self.prefill_chunk is not None:
            options["prefill_chunk"] = self.prefill_chunk
        if self.kv_dtype is not None:
            options["kv_dtype"] = self.kv_dtype
            if self.kv_group is not None:
                options["kv_group"] = self.kv_group
        for name in (
            "recall",
            "recall_store",
            "recall_dtype",
            "recall_score",
            "recall_block",
            "recall_every",
            "recall_queries",
            "recall_positions",
        ):
            if getattr(self, name) is not None:
                options[name] = getattr(self, name)
        return options

    @property
    def decoding(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"max_new_tokens": self.max_new}
        if self.min_new is not None:
            kwargs["min_new_tokens"] = self.min_new
        if self.mode == "beams":
            kwargs.update(num_beams=self.num_beams, num_return_sequences=self.num_return, do_sample=False)
        else:
            kwargs.update(do_sample=self.mode == "sample", num_return_sequences=self.num_return)
            if self.mode == "sample":
                kwargs.update(dict(self.sampling))
        return kwargs


@st.composite
def cases(draw: st.DrawFn) -> Case:
    family = draw(st.sampled_from(FAMILIES))
    policy = draw(st.sampled_from(list(POLICIES)))
    chosen: dict[str, Any] = {}
    if policy in policies_taking("n_sink"):
        chosen["n_sink"] = draw(st.integers(0, 3))
    if policy in policies_taking("n_recent") and draw(st.booleans()):
        chosen["n_recent"] = draw(st.integers(0, 3))
    by_rule = sum(chosen.values())  # sinks (and knorm's and h2o's recent windows) are kept by rule
    if policy in policies_taking("observation_window"):  # snapkv's observation
        chosen.update(observation_window=draw(st.integers(0, 6)), pool=draw(st.sampled_from([1, 3])),
                      decode_policy=draw(st.sampled_from(["sinks", "tova"])))  # fmt: skip
    limit = draw(st.integers(by_rule + 2, 16))
    # drawn for every case, used where recall applies: the draws do not depend on the families the
    # installed transformers serves, so every release sees the same cases
    recall = draw(st.integers(1, limit - chosen.get("n_sink", 0) - 1))  # at least one recent slot
    recall_store = draw(st.none() | st.integers(recall, recall + 24))
    recall_dtype = draw(st.sampled_from([None, None, "int8", "int4", "bfloat16"]))
    recall_score = draw(st.sampled_from([None, "keys", "bounds"]))
    if not (draw(st.integers(0, 3)) and not POLICIES[policy].per_layer and serves_recall(family)):
        recall = recall_store = recall_dtype = recall_score = None
    room = limit - (recall or 0) - chosen.get("n_sink", 0)
    positions = None
    if family in LEARNED_POSITION_FAMILIES:
        modes = [None, "clamp"] if POLICIES[policy].per_layer else [None, "reencode", "clamp"]
        positions = draw(st.sampled_from(modes))
    mode = draw(st.sampled_from(["greedy", "sample", "beams"]))
    num_beams = draw(st.integers(2, 3)) if mode == "beams" else 1
    sampling = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "temperature": st.sampled_from([0.7, 1.3]),
                "top_k": st.integers(2, 40),
                "top_p": st.sampled_from([0.8, 0.95]),
                "repetition_penalty": st.sampled_from([1.2]),
            },
        )
    )
    max_new = draw(st.integers(1, 20))
    case = Case(
        family=family,
        layers=draw(st.integers(1, 2)),
        attn=draw(st.sampled_from(attn_implementations(family))),
        lengths=tuple(draw(st.lists(st.integers(1, 14), min_size=1, max_size=3))),
        limit=limit,
        limit_in_bytes=draw(st.booleans()),
        policy=policy,
        settings=tuple(sorted(chosen.items())),
        positions=positions,
        mode=mode,
        num_beams=num_beams,
        num_return=draw(st.integers(1, {"greedy": 1, "sample": 2, "beams": num_beams}[mode])),
        sampling=tuple(sorted(sampling.items())),
        prefill_chunk=draw(st.none() | st.integers(1, room)),
        max_new=max_new,
        min_new=draw(st.none() | st.integers(0, max_new)),
        seed=draw(st.integers(0, 2**16)),
        kv_dtype=(kv_dtype := draw(st.sampled_from([None, None, *BITS]))),
        kv_group=draw(st.sampled_from([None, 8, 16])) if kv_dtype else None,
        recall=recall,
        recall_store=recall_store,
        recall_dtype=recall_dtype,
        recall_score=recall_score,
    )
    # the block size and "k8v4" (in half the cases drawn int4) follow from the case's seed rather than
    # draws of their own: a new draw would shift every later case of the derandomized stream (and the
    # profile the fuzz promises)
    block = None if case.seed % 3 == 0 or recall is None else _divisor(recall, 1 + case.seed % 8)
    every = None if recall is None else (None, None, 2, 3)[case.seed // 7 % 4]  # choices every N steps
    queries = None if recall is None else (None, 0, 1, 2)[case.seed // 29 % 4]  # a chunk's choosing queries
    places = (
        None if recall is None else (None, "packed", "full")[case.seed // 53 % 3]
    )  # where recalled tokens sit
    mixed = "k8v4" if kv_dtype == "int4" and case.seed % 2 else kv_dtype
    return replace(case, recall_block=block, recall_every=every, recall_queries=queries, recall_positions=places,
                   kv_dtype=mixed)  # fmt: skip


def _divisor(slots: int, near: int) -> int:
    """The largest divisor of `slots` at most `near`: a recall block size for `slots` recalled slots."""
    return next(d for d in range(min(near, slots), 0, -1) if slots % d == 0)


@functools.cache
def model_for(family: str, layers: int, attn: str) -> Any:
    return make_model(family, num_layers=layers, attn_implementation=attn)


def run(case: Case, model: Any, ids: torch.Tensor, mask: torch.Tensor, **overrides: Any) -> Any:
    options = {**case.limit_options, **case.decoding, **overrides}
    torch.manual_seed(case.seed)
    return kvlimit.generate(
        model, input_ids=ids, attention_mask=mask, return_dict_in_generate=True, output_logits=True,
        output_scores=True, **options,
    )  # fmt: skip


def check(case: Case) -> None:
    """Every oracle of the module docstring for one case (replay a printed failure with `check(Case(...))`)."""
    model = model_for(case.family, case.layers, case.attn)
    ids, mask = left_padded(model, lengths=case.lengths, seed=case.seed)
    rows = ids.shape[0] * max(case.num_beams, case.num_return)
    budget = {}
    if case.limit_in_bytes:  # exactly the bytes of `limit` tokens per row, as this storage keeps them
        options = {k: v for k, v in case.limit_options.items() if k not in ("cache_limit", "prefill_chunk")}
        config = kvlimit.LimitConfig.create(case.limit, options.pop("policy"), **options)
        budget["cache_limit"] = f"{kvlimit.sizing.row_cost(model, config).bytes_for(case.limit, rows)}B"
    with pytest.MonkeyPatch.context() as patch:
        recorder = LimitRecorder(patch, case.limit)
        out = run(case, model, ids, mask, **budget)
    assert recorder.steps >= 1 and output_cache(out).cache_limit == case.limit
    assert max(output_cache(out).stored_tokens()) <= case.limit
    if max(case.lengths) + case.max_new <= case.limit - (case.recall or 0) and case.kv_dtype is None:
        check_identity(case, model, ids, mask, out)  # quantized: the rounding oracle (test_quantized.py)
    if case.mode == "beams":
        check_beams(case, model, ids, mask, out)
    else:
        check_rows(case, model, ids, mask, out)


def forced_logits(model: Any, ids: torch.Tensor, mask: torch.Tensor, tokens: list[int], **limit: Any):
    """(steps, vocab) raw logits of greedy generation forced along `tokens` (kvlimit with `limit`, else stock)."""
    kwargs = dict(input_ids=ids, attention_mask=mask, max_new_tokens=len(tokens), do_sample=False,
                  logits_processor=[ForceTokens(tokens, ids.shape[1])], output_logits=True,
                  return_dict_in_generate=True)  # fmt: skip
    out = kvlimit.generate(model, **kwargs, **limit) if limit else model.generate(**kwargs)
    assert out.sequences[0, ids.shape[1] :].tolist() == tokens
    return torch.stack([step[0] for step in out.logits])


def fresh_cache(case: Case, model: Any) -> kvlimit.BoundedCache:
    """A new cache with the case's limit, policy and positions (the replay oracle's)."""
    options = {k: v for k, v in case.limit_options.items() if k not in ("cache_limit", "prefill_chunk")}
    config = kvlimit.LimitConfig.create(case.limit, options.pop("policy"), **options)
    return kvlimit.build_cache(model, config)


def own_tokens(sequence: torch.Tensor, start: int) -> list[int]:
    """A row's generated tokens up to and including its end-of-sequence token."""
    tokens = sequence[start:].tolist()
    return tokens[: tokens.index(EOS) + 1] if EOS in tokens else tokens


def check_identity(case: Case, model: Any, ids: torch.Tensor, mask: torch.Tensor, out: Any) -> None:
    """With the limit out of reach, kvlimit is stock generate."""
    torch.manual_seed(case.seed)
    stock = model.generate(input_ids=ids, attention_mask=mask, return_dict_in_generate=True, output_logits=True,
                           output_scores=True, **case.decoding)  # fmt: skip
    if case.mode == "beams":
        assert torch.equal(out.sequences, stock.sequences)
        torch.testing.assert_close(out.sequences_scores, stock.sequences_scores, atol=ATOL, rtol=1e-4)
        return
    for row in range(stock.sequences.shape[0]):
        item = row // case.num_return
        tokens = own_tokens(stock.sequences[row], ids.shape[1])
        got = forced_logits(model, ids[item : item + 1], mask[item : item + 1], tokens, **case.limit_options)
        want = torch.stack([step[row] for step in stock.logits])[: len(tokens)]
        torch.testing.assert_close(got, want, atol=ATOL, rtol=1e-4)


def check_rows(case: Case, model: Any, ids: torch.Tensor, mask: torch.Tensor, out: Any) -> None:
    """Greedy and sampling: each row alone gets its batch logits, and a replay reproduces them all."""
    logits = torch.stack(out.logits, dim=1)  # (rows, steps, vocab)
    for row in range(out.sequences.shape[0]):
        item = row // case.num_return
        alone = ids[item : item + 1][mask[item : item + 1].bool()][None]
        tokens = own_tokens(out.sequences[row], ids.shape[1])
        got = forced_logits(model, alone, torch.ones_like(alone), tokens, **case.limit_options)
        torch.testing.assert_close(logits[row, : len(tokens)], got, atol=row_tolerance(case), rtol=1e-4)
    expanded_ids = ids.repeat_interleave(case.num_return, dim=0)
    expanded_mask = mask.repeat_interleave(case.num_return, dim=0)
    cache = fresh_cache(case, model)
    replayed = replay_logits(model, cache, expanded_ids, expanded_mask, out.sequences[:, ids.shape[1] :],
                             chunk=prefill_chunk(case, ids.shape[1], output_cache(out)))  # fmt: skip
    torch.testing.assert_close(torch.stack(replayed, dim=1), logits, atol=row_tolerance(case), rtol=1e-4)


def check_beams(case: Case, model: Any, ids: torch.Tensor, mask: torch.Tensor, out: Any) -> None:
    """Beam search: each prompt alone returns the same beams, and replaying each gives its score."""
    for item in range(ids.shape[0]):
        alone = ids[item : item + 1][mask[item : item + 1].bool()][None]
        solo = run(case, model, alone, torch.ones_like(alone))
        rows = slice(item * case.num_return, (item + 1) * case.num_return)
        batch_sequences = out.sequences[rows, ids.shape[1] :]
        solo_sequences = solo.sequences[:, alone.shape[1] :]
        width = solo_sequences.shape[1]  # the batch runs on until its last prompt is done: filled after
        tolerance = row_tolerance(case)
        torch.testing.assert_close(
            out.sequences_scores[rows], solo.sequences_scores, atol=tolerance, rtol=1e-4
        )
        if (
            case.kv_dtype is None and case.recall_dtype is None
        ):  # quantized: beams within the tolerance of each other may be chosen differently
            assert torch.equal(batch_sequences[:, :width], solo_sequences)
            fill = batch_sequences[:, width:]
            assert bool(((fill == EOS) | (fill == model.generation_config.pad_token_id)).all())
        for row in range(rows.start, rows.stop):
            cache = fresh_cache(case, model)
            generated = out.sequences[row, ids.shape[1] :].tolist()
            want = beam_score(model, cache, alone, torch.ones_like(alone), generated, 1.0,
                              prefill_chunk(case, alone.shape[1], output_cache(out)))  # fmt: skip
            torch.testing.assert_close(out.sequences_scores[row], want, atol=tolerance, rtol=1e-4)


def prefill_chunk(case: Case, prompt_length: int, cache: Any) -> int | None:
    """The chunk generate prefills a prompt of `prompt_length` columns with (None: one forward)."""
    if case.prefill_chunk is not None:
        return case.prefill_chunk
    kept = cache.kept_limit  # the limit less the recalled slots
    return cache.policy.default_chunk(kept) if prompt_length > kept else None


@given(case=cases())
@settings(max_examples=200, **PROFILE)
def test_random_requests_hold_every_oracle(case: Case) -> None:
    check(case)


@pytest.mark.slow
@given(case=cases())
@settings(max_examples=2000, **PROFILE)
def test_random_requests_hold_every_oracle_2000(case: Case) -> None:
    check(case)


# --- invalid requests ----------------------------------------------------------------------------

#: How to spoil one argument of a valid case, and the name the error must give.
SPOILERS = {
    "cache_limit": lambda case: {"cache_limit": 0},
    "n_sink": lambda case: {"n_sink": -1},
    "n_recent": lambda case: {"n_recent": -2},
    "prefill_chunk": lambda case: {"prefill_chunk": case.limit + 1},
    "policy": lambda case: {"policy": "sink"},
    "positions": lambda case: {"positions": "exact"},
}


@given(case=cases(), spoil=st.sampled_from(sorted(SPOILERS)))
@settings(max_examples=60, **PROFILE)
def test_invalid_requests_name_the_parameter(case: Case, spoil: str) -> None:
    model = model_for(case.family, case.layers, case.attn)
    ids, mask = left_padded(model, lengths=case.lengths, seed=case.seed)
    options = {**case.limit_options, **SPOILERS[spoil](case)}
    if spoil == "n_sink" and case.policy not in policies_taking("n_sink"):
        options["policy"] = "sinks"
    if spoil == "n_recent":
        options["policy"] = "knorm"
    with pytest.raises(ValueError, match=spoil):
        kvlimit.generate(model, input_ids=ids, attention_mask=mask, **options, **case.decoding)


def test_the_profile_has_the_cases_it_promises() -> None:
    seen: list[Case] = []

    @given(case=cases())
    @settings(max_examples=200, **PROFILE)
    def collect(case: Case) -> None:
        seen.append(case)

    collect()
    assert len(seen) == 200
    assert {c.mode for c in seen} == {"greedy", "sample", "beams"}
    assert {c.policy for c in seen} == set(POLICIES) and len({c.family for c in seen}) >= 20
    assert any(c.limit_in_bytes for c in seen) and any(c.prefill_chunk for c in seen)
    assert any(max(c.lengths) + c.max_new <= c.limit for c in seen), "identity cases"
    assert any(max(c.lengths) > c.limit for c in seen), "prompts longer than the limit"
    # every option generate takes (the declarations: kvlimit.config.argument_names) is drawn
    drawn = {name for c in seen for name in c.limit_options}
    assert set(argument_names()) - set(RENAMED_SETTINGS) <= drawn, sorted(set(argument_names()) - drawn)
    recalled = [c for c in seen if c.recall]  # float and quantized stores, both scores, bounds, beams
    assert len(recalled) >= 10 and None in {c.recall_dtype for c in recalled}
    assert {c.recall_dtype for c in recalled} & {"int8", "int4"}
    assert {c.recall_score for c in recalled} >= {"keys", "bounds"}
    assert len({c.recall_block for c in recalled}) >= 3  # the default and given block sizes
    assert any(c.recall_store for c in recalled) and any(c.mode == "beams" for c in recalled)
    assert {c.recall_every for c in recalled} >= {None, 2, 3}
    queries = {c.recall_queries for c in recalled}  # the default tail, none, and a short one
    assert queries >= {None, 0} and queries & {1, 2}, queries
    assert {c.recall_positions for c in recalled} == {None, "packed", "full"}
    assert {c.kv_dtype for c in seen} == {None, *KV_DTYPES} and {c.kv_group for c in seen if c.kv_dtype} >= {
        None,
        8,
        16,
    }


def test_a_case_is_printed_as_code_to_replay() -> None:
    case = Case("llama", 1, "sdpa", (3, 5), 6, False, "sinks", (("n_sink", 1),), None, "greedy", 1, 1, (),
                None, 4, None, 7)  # fmt: skip
    assert eval(repr(case)) == case and replace(case, limit=7).limit == 7
    check(case)
