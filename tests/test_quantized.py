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
from kvlimit.cache import KVStore, QuantizedStore
from kvlimit.cache.quant import BITS, KV_DTYPES, block_size, hadamard, scheme, turns
from kvlimit.sizing import row_cost

from .helpers import (
    FAMILIES,
    QUANT_TOLERANCE,
    ForceTokens,
    bounded_cache,
    left_padded,
    make_model,
    output_cache,
    syncs_per_step,
)

ELEMENTS = tuple(BITS)  # the schemes ("int8", "int4", "fp8")
DTYPES = tuple(KV_DTYPES)  # what a cache takes: the schemes, and "k8v4" (int8 keys, int4 values)
LIMIT = 16
NEW = 40


def bound(name: str, x: torch.Tensor, group: int) -> torch.Tensor:
    """Each element's allowed error (..., dim): half a step of its block (fp8: its e4m3 rounding)."""
    *lead, dim = x.shape
    blocks = x.float().reshape(*lead, dim // group, group)
    if name == "int4":
        low = blocks.amin(-1, keepdim=True)
        low = low - low.abs() * 2**-10  # the minimum is kept in float16, rounded down: up to one ulp
        step = (blocks.amax(-1, keepdim=True) - low) / 15
        allowed = step * 0.5 * (1 + 2**-9) + 2**-15
    elif name == "int8":
        allowed = blocks.abs().amax(-1, keepdim=True) / 127 * 0.5 * (1 + 2**-9) + 2**-15
    else:  # e4m3: 3 mantissa bits (relative 2^-4), subnormal spacing 2^-9 of the scale
        scale = blocks.abs().amax(-1, keepdim=True) / 448 * (1 + 2**-9) + 2**-14
        allowed = blocks.abs() * 2**-4 + scale * 2**-10
    return allowed.expand_as(blocks).reshape(*lead, dim)


def turned(name: str, x: torch.Tensor, block: int) -> torch.Tensor:
    """`x` (..., dim) as the scheme quantizes it: int4 turns each block of a power-of-two size by a
    Hadamard matrix first (the bound holds there); the others store `x` as it is."""
    if name != "int4" or not turns(block):
        return x
    *lead, dim = x.shape
    return hadamard(x.reshape(*lead, dim // block, block)).reshape(*lead, dim)


def round_trip(name: str, x: torch.Tensor, group: int) -> torch.Tensor:
    stored = scheme(name)
    return stored.dequantize(stored.quantize(x, block_size(x.shape[-1], group)), x.dtype)


# --- 1. off is off ----------------------------------------------------------------------------
def test_without_kv_dtype_the_layers_are_float():
    model = make_model("llama")
    ids, mask = left_padded(model)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=4,
                           return_dict_in_generate=True)  # fmt: skip
    assert output_cache(out).kv_dtype is None
    assert type(output_cache(out).store) is KVStore
    assert all(layer.store is output_cache(out).store for layer in output_cache(out).bounded_layers())


@pytest.mark.parametrize("kv_dtype", DTYPES)
def test_with_kv_dtype_every_bounded_layer_is_quantized(kv_dtype):
    model = make_model("gemma2")  # sliding layers of the model's own stay transformers' own
    ids, mask = left_padded(model)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=4,
                           kv_dtype=kv_dtype, return_dict_in_generate=True)  # fmt: skip
    layers = output_cache(out).bounded_layers()
    assert isinstance(output_cache(out).store, QuantizedStore)
    assert layers and all(
        layer.store is output_cache(out).store and layer.layer_idx in output_cache(out).store.key_codes
        for layer in layers
    )
    assert output_cache(out).kv_dtype == kv_dtype


# --- 2. the schemes ---------------------------------------------------------------------------
vectors = st.tuples(
    st.sampled_from(ELEMENTS),
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
    want = turned(name, x, block)
    error = (turned(name, round_trip(name, x, group), block) - want).abs()
    assert torch.isfinite(error).all()
    assert (error <= bound(name, want, block)).all(), (error - bound(name, want, block)).max()


@pytest.mark.parametrize("n", [2, 4, 8, 32, 64])
def test_hadamard_is_sylvesters_matrix_and_its_own_inverse(n):
    """The fast transform equals the product with Sylvester's matrix H_2n = [[H, H], [H, -H]] / sqrt(2),
    built here entry by entry (H[i, j] = (-1)^popcount(i & j) / sqrt(n)), and undoes itself; a vector's
    result is the same bits alone and among others (rows must not see each other)."""
    entries = [[(-1) ** bin(i & j).count("1") for j in range(n)] for i in range(n)]
    matrix = torch.tensor(entries, dtype=torch.float64) / n**0.5
    x = torch.randn(5, 3, n, generator=torch.Generator().manual_seed(n), dtype=torch.float64)
    torch.testing.assert_close(hadamard(x).double(), (x @ matrix), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(hadamard(hadamard(x)).double(), x, atol=1e-5, rtol=1e-5)
    assert torch.equal(hadamard(x[2:3, 1:2]), hadamard(x)[2:3, 1:2])
    assert turns(n) and not turns(n + 2 if n > 2 else 3)


@pytest.mark.parametrize("kv_dtype", ELEMENTS)
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
    for layer in output_cache(out).bounded_layers():
        for tensor in (layer.keys, layer.values):
            for name in ELEMENTS:
                block = block_size(tensor.shape[-1], 32)
                want = turned(name, tensor, block)
                error = (turned(name, round_trip(name, tensor, 32), block) - want).abs()
                assert (error <= bound(name, want, block)).all(), (family, name)


# --- 3. exact plumbing: the quantized cache is a float cache that rounds what it stores -------
class RoundingStore(KVStore):
    """A float store that rounds every key and value it stores (and shows a chunk's queries) through
    `kv_dtype`'s key and value schemes, except its first `float_slots` slots, and rounds moved keys
    again: what `QuantizedStore` must equal."""

    def __init__(self, layout, *, kv_dtype, kv_group, float_slots):
        super().__init__(layout)
        self.key_rounding, self.value_rounding = KV_DTYPES[kv_dtype]
        self.kv_group, self.float_slots = kv_group, float_slots

    def _round(self, x):
        return round_trip(self.key_rounding, x, self.kv_group)

    def _round_values(self, x):
        return round_trip(self.value_rounding, x, self.kv_group)

    def write_token(self, layer, slot, key_states, value_states, *, first_index=0):
        sink = (slot < self.float_slots).view(-1, 1, 1, 1)  # the oracle always checks, on the device
        keys = torch.where(sink, key_states, self._round(key_states))
        values = torch.where(sink, value_states, self._round_values(value_states))
        super().write_token(layer, slot, keys, values, first_index=first_index)

    def as_stored(self, layer, key_states, value_states, placed):
        keys, values = self._round(key_states), self._round_values(value_states)
        if placed is not None:
            sink = placed.slots < self.float_slots
            rows, cols = placed.rows[sink], placed.cols[sink]
            keys[rows, :, cols] = key_states[rows, :, cols]
            values[rows, :, cols] = value_states[rows, :, cols]
        return keys, values

    def write(self, layer, rows, slots, keys, values):
        sink = (slots < self.float_slots).view(-1, 1, 1)
        super().write(layer, rows, slots, torch.where(sink, keys, self._round(keys)),
                      torch.where(sink, values, self._round_values(values)))  # fmt: skip

    def rotate_keys(self, layer, rope, delta, start=0):
        super().rotate_keys(layer, rope, delta, start)
        first = max(start, self.float_slots)
        keys = self.keys_of(layer)
        keys[:, :, first:] = self._round(keys[:, :, first:])


def rounding_cache(model, limit, kv_dtype, policy="sinks", max_length=None, **settings):
    """A float `BoundedCache` whose store is a `RoundingStore` (pass it to generate as `cache=`)."""
    cache = bounded_cache(model, limit, policy, max_length, **settings)
    store = RoundingStore(cache.store.layout, kv_dtype=kv_dtype, kv_group=32,
                          float_slots=min(cache.policy.protected_tokens, cache.slots))  # fmt: skip
    cache.store = store
    for layer in cache.bounded_layers():
        layer.store = store
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
    kv_dtype = DTYPES[sorted(FAMILIES).index(family) % len(DTYPES)]  # each dtype on a quarter of the families
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
TOLERANCE = QUANT_TOLERANCE


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
def _held_tensors(value, skip=("pristine", "rope")) -> list[torch.Tensor]:
    """Every tensor reachable from `value` through attributes, lists and dicts (but fields in `skip`:
    the pristine sinks, counted apart, and the rotation frequencies, which are the model's)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _held_tensors(v, skip)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _held_tensors(v, skip)]
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return [t for k, v in vars(value).items() if k not in skip for t in _held_tensors(v, skip)]
    return []


def _held_bytes(store) -> int:
    """Bytes of every tensor the store holds for the attention, found by walking its attributes (the
    pristine copies of the sinks are its `overhead_bytes()`)."""
    tensors = {id(t): t for t in _held_tensors(store.stacks) + _held_tensors(getattr(store, "key_codes", {}))
               + _held_tensors(getattr(store, "value_codes", {}))}  # fmt: skip
    pristine = sum(
        s.pristine.numel() * s.pristine.element_size() for s in store.stacks if s.pristine is not None
    )
    assert store.overhead_bytes() == pristine
    return sum(t.numel() * t.element_size() for t in tensors.values())


@pytest.mark.parametrize("kv_dtype", DTYPES)
@pytest.mark.parametrize("family", ["llama", "falcon_gqa", "gemma2", "gpt2"])
def test_nbytes_is_what_the_layers_hold_and_what_the_budget_formula_says(kv_dtype, family):
    model = make_model(family)
    ids, mask = left_padded(model)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=30,
                           kv_dtype=kv_dtype, return_dict_in_generate=True)  # fmt: skip
    cache = output_cache(out)
    held = _held_bytes(cache.store)
    sliding = sum(kvlimit.integrations.hf.kv_bytes_of_layer(layer) for layer in cache.sliding_layers.values())
    assert cache.nbytes() == held + sliding
    if not cache.sliding_layers:  # the formula counts a model's own sliding layers in float (an upper bound)
        cost = row_cost(model, kvlimit.LimitConfig.create(LIMIT, kv_dtype=kv_dtype))
        assert cache.nbytes() == ids.shape[0] * (cache.slots * cost.per_token + cost.per_row)
    float_bytes = kvlimit.kv_bytes_per_token(model) * cache.slots * ids.shape[0]
    assert cache.nbytes() < float_bytes


@pytest.mark.parametrize("kv_dtype", DTYPES)
def test_a_byte_budget_holds_more_tokens_and_is_not_exceeded(kv_dtype):
    model = make_model("llama")
    ids, mask = left_padded(model)
    budget = 24 * 1024
    kwargs = dict(input_ids=ids, attention_mask=mask, cache_limit=f"{budget}B", max_new_tokens=200,
                  return_dict_in_generate=True)  # fmt: skip
    plain = output_cache(kvlimit.generate(model, **kwargs))
    quantized = output_cache(kvlimit.generate(model, kv_dtype=kv_dtype, **kwargs))
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
    with pytest.raises(ValueError, match=r"kv_dtype='int3' is not one of 'int8', 'int4', 'fp8', 'k8v4'"):
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


# --- quality on a real text -----------------------------------------------------------------------


@pytest.mark.slow
def test_quantized_perplexity_on_a_real_text_stays_near_float():
    """The embedded SmolLM2 streams 2,000 tokens of the Botchan corpus at limit 256: int8 within 1% of
    the float cache's perplexity, int4 within 6%. Measured here: int8 +0.13%, int4 +4.9% (+7.0% without
    the Hadamard turn, which this bound would catch); README, "Quantized storage", 8,000 tokens: int8
    +0.1%, int4 +4.4%, k8v4 +0.3%. int4 read +1.1% before 71009b1 only because a chunk's own keys were
    shown in floats while every other key was shown as stored (what a decode step sees); the issue's
    goal, 1%, is not met by int4 (this bound guards against worse) and is by k8v4 (int8 keys, int4
    values: the same 1% as int8 holds it to)."""
    from kvlimit.eval.corpus import ensure_corpus
    from kvlimit.eval.perplexity import streaming_perplexity
    from kvlimit.models import load_model

    loaded = load_model()
    text = ensure_corpus().read_text(encoding="utf-8")
    ids = loaded.tokenizer(text, add_special_tokens=False)["input_ids"][:2000]
    ppl = {
        kv_dtype: streaming_perplexity(loaded.model, ids, cache_limit=256, kv_dtype=kv_dtype).ppl
        for kv_dtype in (None, "int8", "int4", "k8v4")
    }
    assert ppl["int8"] <= 1.01 * ppl[None], ppl
    assert ppl["k8v4"] <= 1.01 * ppl[None], ppl
    assert ppl["int4"] <= 1.06 * ppl[None], ppl
