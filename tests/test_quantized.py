"""Oracles for the quantized bounded cache (`kv_dtype=`).

1. Off is off: without `kv_dtype` the layers are plain `BoundedLayer`s and nothing changes.
2. The schemes: quantize-dequantize stays within each scheme's bound, on random vectors with
   outliers (hypothesis) and on every family's real keys and values.
3. Exact plumbing: a quantized cache gives the same logits, to float precision, as a float bounded
   cache whose layers round every written key and value through the same scheme (and round again
   after moving keys, as a RoPE rebase does). Every family, positional and per-layer policies,
   chunked prefill, beams, rebases and re-ranks: whatever the quantized layer does to slots, the
   float one does to floats.
4. Quality on the tiny models: with teacher forcing, logits stay within a stated tolerance of the
   float bounded cache; greedy tokens are identical up to the first step whose margin is below it.
5. Memory: `nbytes()` is what the layers hold (codes, scales, float sinks) and matches the
   formula the budgets use; a byte budget holds; rows stay independent; decode adds no host sync.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import LogitsProcessorList

import kvlimit
from kvlimit.cache import BoundedLayer
from kvlimit.cache.quant import BITS, block_size, scheme
from kvlimit.cache.quantized import QuantizedLayer
from kvlimit.generation import token_cost

from .helpers import FAMILIES, ForceTokens, bounded_cache, left_padded, make_model, syncs_per_step

DTYPES = tuple(BITS)
LIMIT = 16
NEW = 40


def bound(name: str, x: torch.Tensor, group: int) -> torch.Tensor:
    """Each element's allowed error (..., dim): half a step of its block (fp8: its e4m3 rounding)."""
    *lead, dim = x.shape
    blocks = x.float().reshape(*lead, dim // group, group)
    if name == "int4":
        step = (blocks.amax(-1, keepdim=True) - blocks.amin(-1, keepdim=True)) / 15
        allowed = step * 0.5 * (1 + 2**-9) + 2**-15
    elif name == "int8":
        allowed = blocks.abs().amax(-1, keepdim=True) / 127 * 0.5 * (1 + 2**-9) + 2**-15
    else:  # e4m3: 3 mantissa bits (relative 2^-4), subnormal spacing 2^-9 of the scale
        scale = blocks.abs().amax(-1, keepdim=True) / 448 * (1 + 2**-9) + 2**-14
        allowed = blocks.abs() * 2**-4 + scale * 2**-10
    return allowed.expand_as(blocks).reshape(*lead, dim)


def round_trip(name: str, x: torch.Tensor, group: int) -> torch.Tensor:
    stored = scheme(name)
    return stored.dequantize(stored.quantize(x, block_size(x.shape[-1], group)), x.dtype)


# --- 1. off is off ----------------------------------------------------------------------------
def test_without_kv_dtype_the_layers_are_float():
    model = make_model("llama")
    ids, mask = left_padded(model)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=4,
                           return_dict_in_generate=True)  # fmt: skip
    assert out.cache.kv_dtype is None
    assert all(type(layer) is BoundedLayer for layer in out.cache.bounded_layers())


@pytest.mark.parametrize("kv_dtype", DTYPES)
def test_with_kv_dtype_every_bounded_layer_is_quantized(kv_dtype):
    model = make_model("gemma2")  # sliding layers of the model's own stay transformers' own
    ids, mask = left_padded(model)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=4,
                           kv_dtype=kv_dtype, return_dict_in_generate=True)  # fmt: skip
    layers = out.cache.bounded_layers()
    assert layers and all(isinstance(layer, QuantizedLayer) for layer in layers)
    assert out.cache.kv_dtype == kv_dtype


# --- 2. the schemes ---------------------------------------------------------------------------
vectors = st.tuples(
    st.sampled_from(DTYPES),
    st.sampled_from([16, 32, 64, 96, 128]),  # dims
    st.sampled_from([8, 16, 32, 64]),  # groups
    st.floats(1e-3, 50.0),  # magnitude (blocks stay inside float16's range, as the scheme requires)
    st.floats(1.0, 100.0),  # outlier factor
    st.integers(0, 2**31 - 1),  # seed
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(vectors)
def test_round_trip_error_is_within_the_bound(case):
    name, dim, group, magnitude, outlier, seed = case
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn((3, 2, 5, dim), generator=generator) * magnitude
    x[..., 0] *= outlier  # a channel of outliers, as keys have
    x[0, 0, 0] = 0.0  # an all-zero vector (an empty slot) must survive too
    block = block_size(dim, group)
    error = (round_trip(name, x, group) - x).abs()
    assert torch.isfinite(error).all()
    assert (error <= bound(name, x, block)).all(), (error - bound(name, x, block)).max()


@pytest.mark.parametrize("kv_dtype", DTYPES)
def test_stored_bytes_per_vector_match_the_codes(kv_dtype):
    stored = scheme(kv_dtype)
    for dim, group in ((64, 32), (128, 32), (80, 32), (96, 64)):
        block = block_size(dim, group)
        codes = stored.quantize(torch.randn(7, dim), block)
        assert codes.nbytes() == 7 * stored.bytes_per_vector(dim, block)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_familys_keys_and_values_round_trip_within_the_bound(family):
    model = make_model(family)
    ids, mask = left_padded(model)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=8,
                           return_dict_in_generate=True)  # fmt: skip
    for layer in out.cache.bounded_layers():
        for tensor in layer.stored():
            for name in DTYPES:
                block = block_size(tensor.shape[-1], 32)
                error = (round_trip(name, tensor, 32) - tensor).abs()
                assert (error <= bound(name, tensor, block)).all(), (family, name)


# --- 3. exact plumbing: the quantized cache is a float cache that rounds what it stores -------
class RoundingLayer(BoundedLayer):
    """A float bounded layer that rounds every key and value it stores (and shows a chunk's queries)
    through `kv_dtype`, except its first `float_slots` slots, and rounds moved keys again: what
    `QuantizedLayer` must equal."""

    def __init__(self, *args, kv_dtype, group_size, float_slots):
        super().__init__(*args)
        self.kv_dtype, self.group_size, self.float_slots = kv_dtype, group_size, float_slots

    def _round(self, x):
        return round_trip(self.kv_dtype, x, self.group_size)

    def write_slot(self, slot, key_states, value_states, *, first_index=0):
        sink = (slot < self.float_slots).view(-1, 1, 1, 1)  # the oracle always checks, on the device
        keys = torch.where(sink, key_states, self._round(key_states))
        values = torch.where(sink, value_states, self._round(value_states))
        super().write_slot(slot, keys, values, first_index=first_index)

    def as_stored(self, plan, writes, key_states, value_states):
        keys, values = self._round(key_states), self._round(value_states)
        rows, cols, slots = plan.write_rows, plan.write_cols, writes.write_slots
        if rows is not None and slots is not None:
            sink = slots < self.float_slots
            keys[rows[sink], :, cols[sink]] = key_states[rows[sink], :, cols[sink]]
            values[rows[sink], :, cols[sink]] = value_states[rows[sink], :, cols[sink]]
        return keys, values

    def store(self, rows, slots, keys, values):
        sink = (slots < self.float_slots).view(-1, 1, 1)
        super().store(rows, slots, torch.where(sink, keys, self._round(keys)),
                      torch.where(sink, values, self._round(values)))  # fmt: skip

    def transform_keys(self, move, start=0):
        super().transform_keys(move, start)
        first = max(start, self.float_slots)
        self.keys[:, :, first:] = self._round(self.keys[:, :, first:])


def rounding_cache(model, limit, kv_dtype, policy="sinks", max_length=None, **settings):
    """A float `BoundedCache` of `RoundingLayer`s (pass it to generate as `cache=`)."""
    cache = bounded_cache(model, limit, policy, max_length, **settings)
    for idx, layer in list(cache._bounded.items()):
        rounding = RoundingLayer(idx, layer.slots, layer.group, layer.statistic, kv_dtype=kv_dtype,
                                 group_size=32, float_slots=min(cache.policy.protected_tokens, layer.slots))  # fmt: skip
        cache._bounded[idx] = rounding
        cache.layers[idx] = rounding
    return cache


def quantized_cache(model, limit, kv_dtype, policy="sinks", max_length=None, **settings):
    return bounded_cache(model, limit, policy, max_length, kv_dtype=kv_dtype, **settings)


def _pair(model, ids, mask, kv_dtype, policy, **generate_kwargs):
    """Logits (and sequences) of the quantized cache and of its rounding float oracle."""
    runs = []
    for make in (quantized_cache, rounding_cache):
        cache = make(model, LIMIT, kv_dtype, policy)
        runs.append(
            kvlimit.generate(
                model,
                input_ids=ids,
                attention_mask=mask,
                cache_limit=LIMIT,
                policy=policy,
                kv_dtype=kv_dtype if make is quantized_cache else None,
                cache=cache,
                return_dict_in_generate=True,
                output_logits=True,
                do_sample=False,
                **generate_kwargs,
            )
        )
    return runs


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("policy", ["sinks", "knorm"])
def test_quantized_cache_is_the_float_cache_rounding_what_it_stores(family, policy):
    model = make_model(family)
    ids, mask = left_padded(model, lengths=(5, 9))
    kv_dtype = DTYPES[sorted(FAMILIES).index(family) % len(DTYPES)]  # each dtype on a third of the families
    quantized, oracle = _pair(model, ids, mask, kv_dtype, policy, max_new_tokens=NEW)
    assert torch.equal(quantized.sequences, oracle.sequences), (family, policy, kv_dtype)
    for got, want in zip(quantized.logits, oracle.logits, strict=True):
        torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("kv_dtype", DTYPES)
@pytest.mark.parametrize("policy", ["sinks", "tova", "h2o", "snapkv", "window"])
def test_policies_prefill_chunks_and_beams_match_the_rounding_oracle(kv_dtype, policy):
    model = make_model("llama", attn_implementation="eager")
    ids, mask = left_padded(model, lengths=(30, 41))  # longer than the limit: chunked prefill
    for extra in ({"max_new_tokens": 20}, {"max_new_tokens": 12, "num_beams": 3}):
        quantized, oracle = _pair(model, ids, mask, kv_dtype, policy, **extra)
        assert torch.equal(quantized.sequences, oracle.sequences), (policy, extra)
        for got, want in zip(quantized.logits, oracle.logits, strict=True):
            torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize(("family", "policy"), [("llama", "sinks"), ("qwen2", "knorm"), ("gptj", "sinks")])
def test_rebases_and_reranks_round_moved_keys_once(family, policy):
    model = make_model(family)
    ids, mask = left_padded(model)
    runs = []
    for make in (quantized_cache, rounding_cache):
        cache = make(model, LIMIT, "int4", policy, rebase_after=24, rank_every=2)
        runs.append(
            kvlimit.generate(
                model,
                input_ids=ids,
                attention_mask=mask,
                cache_limit=LIMIT,
                policy=policy,
                kv_dtype="int4" if make is quantized_cache else None,
                cache=cache,
                max_new_tokens=60,
                do_sample=False,
                return_dict_in_generate=True,
                output_logits=True,
            )
        )
        assert cache.stats["rebases"] > 0
    for got, want in zip(runs[0].logits, runs[1].logits, strict=True):
        torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)


# --- 4. quality on the tiny models -------------------------------------------------------------
#: Largest |logit - float logit| allowed with teacher forcing on the 0.02-init tiny models.
TOLERANCE = {"int8": 0.05, "fp8": 0.25, "int4": 0.5}


@pytest.mark.parametrize("kv_dtype", DTYPES)
@pytest.mark.parametrize("family", ["llama", "gpt2", "falcon_alibi", "phi3", "gpt_neox"])
def test_logits_stay_within_tolerance_and_greedy_tokens_agree_while_margins_allow(kv_dtype, family):
    model = make_model(family, initializer_range=0.02)
    ids, mask = left_padded(model, lengths=(9,))
    kwargs = dict(cache_limit=LIMIT, max_new_tokens=NEW, do_sample=False, return_dict_in_generate=True,
                  output_logits=True)  # fmt: skip
    ref = kvlimit.generate(model, input_ids=ids, attention_mask=mask, **kwargs)
    forced = LogitsProcessorList([ForceTokens(ref.sequences[0, ids.shape[1] :].tolist(), ids.shape[1])])
    teacher = kvlimit.generate(model, input_ids=ids, attention_mask=mask, kv_dtype=kv_dtype,
                               logits_processor=forced, **kwargs)  # fmt: skip
    diffs = [(a - b).abs().max().item() for a, b in zip(teacher.logits, ref.logits, strict=True)]
    assert max(diffs) <= TOLERANCE[kv_dtype], (family, kv_dtype, max(diffs))
    free = kvlimit.generate(model, input_ids=ids, attention_mask=mask, kv_dtype=kv_dtype, **kwargs)
    for step, logits in enumerate(ref.logits):
        top = logits[0].topk(2).values
        if top[0] - top[1] <= 2 * TOLERANCE[kv_dtype]:
            break  # from here on the float cache's own choice is within the quantization's reach
        assert free.sequences[0, ids.shape[1] + step] == ref.sequences[0, ids.shape[1] + step], step


# --- 5. memory, independence, hot path ---------------------------------------------------------
def _held_bytes(layer) -> int:
    """Bytes of every tensor a layer object holds, found by walking its attributes."""
    total = 0
    for value in vars(layer).values():
        items = (
            [getattr(value, f) for f in ("codes", "scales", "mins")] if hasattr(value, "scales") else [value]
        )
        total += sum(t.numel() * t.element_size() for t in items if isinstance(t, torch.Tensor))
    return total


@pytest.mark.parametrize("kv_dtype", DTYPES)
@pytest.mark.parametrize("family", ["llama", "falcon_gqa", "gemma2", "gpt2"])
def test_nbytes_is_what_the_layers_hold_and_what_the_budget_formula_says(kv_dtype, family):
    model = make_model(family)
    ids, mask = left_padded(model)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=30,
                           kv_dtype=kv_dtype, return_dict_in_generate=True)  # fmt: skip
    cache = out.cache
    held = sum(_held_bytes(layer) for layer in cache.bounded_layers())
    sliding = sum(kvlimit.integrations.hf.kv_bytes_of_layer(layer) for layer in cache.sliding_layers.values())
    assert cache.nbytes() == held + sliding
    if not cache.sliding_layers:  # the formula counts a model's own sliding layers in float (an upper bound)
        per_token, per_row = token_cost(model, kvlimit.LimitConfig.create(LIMIT, kv_dtype=kv_dtype))
        assert cache.nbytes() == ids.shape[0] * (cache.slots * per_token + per_row)
    float_bytes = kvlimit.kv_bytes_per_token(model) * cache.slots * ids.shape[0]
    assert cache.nbytes() < float_bytes


@pytest.mark.parametrize("kv_dtype", DTYPES)
def test_a_byte_budget_holds_more_tokens_and_is_not_exceeded(kv_dtype):
    model = make_model("llama")
    ids, mask = left_padded(model)
    budget = 24 * 1024
    kwargs = dict(input_ids=ids, attention_mask=mask, cache_limit=f"{budget}B", max_new_tokens=200,
                  return_dict_in_generate=True)  # fmt: skip
    plain = kvlimit.generate(model, **kwargs).cache
    quantized = kvlimit.generate(model, kv_dtype=kv_dtype, **kwargs).cache
    assert quantized.nbytes() <= budget and plain.nbytes() <= budget
    assert quantized.cache_limit > 2 * plain.cache_limit


@pytest.mark.parametrize("kv_dtype", DTYPES)
def test_rows_are_independent(kv_dtype):
    model = make_model("qwen2")
    ids, mask = left_padded(model, lengths=(6, 20, 11))
    kwargs = dict(cache_limit=LIMIT, max_new_tokens=30, do_sample=False, kv_dtype=kv_dtype, policy="knorm")
    batch = kvlimit.generate(model, input_ids=ids, attention_mask=mask, **kwargs)
    for row in range(ids.shape[0]):
        real = mask[row].bool()
        alone = kvlimit.generate(model, input_ids=ids[row : row + 1, real], **kwargs)[0, int(real.sum()) :]
        # a row that ended early is padded in the batch
        assert batch[row, ids.shape[1] : ids.shape[1] + len(alone)].tolist() == alone.tolist(), row
        assert (batch[row, ids.shape[1] + len(alone) :] == model.config.pad_token_id).all(), row


@pytest.mark.parametrize("policy", ["sinks", "knorm"])
@pytest.mark.parametrize("kv_dtype", DTYPES)
def test_decode_steps_add_no_host_sync(kv_dtype, policy):
    model = make_model("llama")
    ids, mask = left_padded(model)
    stock = syncs_per_step(model, ids, mask)
    bounded = syncs_per_step(model, ids, mask, custom_generate=kvlimit.generate, cache_limit=6, policy=policy,
                             kv_dtype=kv_dtype)  # fmt: skip
    assert stock >= 1  # the counter sees generate's own stopping check
    assert bounded <= stock, f"{kv_dtype}: {bounded} host syncs per decode step against stock's {stock}"


def test_bad_settings_name_the_parameter():
    model = make_model("llama")
    ids, mask = left_padded(model)
    with pytest.raises(ValueError, match=r"kv_dtype='int3' is not one of 'int8', 'int4', 'fp8'"):
        kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=8, kv_dtype="int3")
    with pytest.raises(ValueError, match="kv_group must be an even int >= 2"):
        kvlimit.generate(
            model, input_ids=ids, attention_mask=mask, cache_limit=8, kv_dtype="int8", kv_group=3
        )
    with pytest.raises(ValueError, match="kv_dtype needs cache_limit"):
        kvlimit.generate(model, input_ids=ids, attention_mask=mask, kv_dtype="int8")
    cache = quantized_cache(model, 8, "int8")
    with pytest.raises(ValueError, match="kv_dtype=None differs from the passed BoundedCache's 'int8'"):
        kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=8, cache=cache)
