"""Re-rotation identities: rotate(RoPE(k, p), q - p) == RoPE(k, q), by the model's own rotary code."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch._inductor.utils import run_and_get_code

from kvlimit.integrations.hf import DynamicCache, cache_argument, inspect_model
from kvlimit.positions.rope import RopeSpec

from .helpers import make_model
from .helpers.inductor_code import allocated_buffers

ROPE_TYPES = ["default", "linear", "dynamic", "yarn", "longrope", "llama3"]


def _keys_at(model, ids, start):
    """Keys of layer 0 when `ids` sit at positions start, start+1, ... (the model's own RoPE)."""
    cache = DynamicCache(config=model.config)
    positions = torch.arange(start, start + ids.shape[1])[None]
    with torch.no_grad():
        model(input_ids=ids, position_ids=positions, **cache_argument(cache), use_cache=True)
    return cache.layers[0].keys


def _check_moves(model, p, q):
    spec = inspect_model(model).rope[0]
    assert spec is not None
    ids = torch.randint(3, model.config.vocab_size, (1, 5))
    moved = spec.rotate(_keys_at(model, ids, p), q - p)
    torch.testing.assert_close(moved, _keys_at(model, ids, q), atol=2e-5, rtol=1e-4)


@pytest.mark.parametrize("rope_type", ROPE_TYPES)
def test_llama_rope_types(rope_type):
    model = make_model("llama", num_layers=1, rope_type=rope_type)
    spec = inspect_model(model).rope[0]
    bound = spec.position_bound
    if rope_type in ("dynamic", "longrope"):
        assert bound is not None  # frequencies change past it: positions must stay below
        _check_moves(model, 3, bound - 6)
        _check_moves(model, bound - 6, 0)
    else:
        assert bound is None
        _check_moves(model, 3, 900)
        _check_moves(model, 700, 1)


@pytest.mark.parametrize(
    "family",
    [
        "gptj",
        "gpt_neox",
        "stablelm",
        "phi3",
        "qwen2",
        "qwen3",
        "gemma2",
        "gemma3_text",
        "falcon",
        "mistral",
        "mixtral",
    ],
)
def test_layouts_and_partial_rotary(family):
    model = make_model(family, num_layers=1)
    spec = inspect_model(model).rope[0]
    assert spec is not None
    top = spec.position_bound or 200
    _check_moves(model, 2, top - 6)
    _check_moves(model, top - 6, 0)


def test_layout_details():
    assert inspect_model(make_model("gptj", num_layers=1)).rope[0].interleaved
    neox = inspect_model(make_model("gpt_neox", num_layers=1)).rope[0]
    head_dim = (
        make_model("gpt_neox", num_layers=1).config.hidden_size
        // make_model("gpt_neox", num_layers=1).config.num_attention_heads
    )
    assert neox.rotary_dim < head_dim and not neox.interleaved


def test_rotation_composes_and_inverts():
    spec = RopeSpec(1.0 / (10000 ** (torch.arange(0, 16, 2) / 16)), 16)
    x = torch.randn(2, 3, 4, 16)
    torch.testing.assert_close(spec.rotate(spec.rotate(x, 7), -7), x, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(spec.rotate(spec.rotate(x, 3), 4), spec.rotate(x, 7), atol=1e-5, rtol=1e-5)
    per_row = spec.rotate(x, torch.tensor([1, 5])[:, None, None])
    torch.testing.assert_close(per_row[1], spec.rotate(x[1:], 5)[0])
    # a pure rotation keeps norms (the model's attention_scaling is never applied twice)
    torch.testing.assert_close(spec.rotate(x, 123456).norm(dim=-1), x.norm(dim=-1), atol=1e-4, rtol=1e-5)


def test_partial_rotary_leaves_the_rest_alone():
    spec = RopeSpec(1.0 / (10000 ** (torch.arange(0, 4, 2) / 4)), 4, interleaved=True)
    x = torch.randn(1, 1, 3, 10)
    moved = spec.rotate(x, 9)
    assert torch.equal(moved[..., 4:], x[..., 4:])
    assert not torch.allclose(moved[..., :4], x[..., :4])


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    span=st.sampled_from([10, 5_000, 1_000_000]),
    interleaved=st.booleans(),
    rotary_dim=st.sampled_from([8, 32, 64]),
    base=st.sampled_from([10_000.0, 500_000.0]),
)
def test_float32_cosines_stay_within_an_ulp_of_the_float64_ones(seed, span, interleaved, rotary_dim, base):
    """`cos_sin_float32` (angles reduced in float64, cosines in float32: the compiled recall step's
    rotation) against `cos_sin` (float64 cosines), for positions up to a million either way."""
    generator = torch.Generator().manual_seed(seed)
    inv_freq = 1.0 / base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    rope = RopeSpec(inv_freq.float(), rotary_dim, interleaved)
    delta = torch.randint(-span, span + 1, (3, 17), generator=generator)
    (cos, sin), (cos32, sin32) = (
        rope.cos_sin(delta, torch.device("cpu")),
        rope.cos_sin_float32(delta, torch.device("cpu")),
    )
    assert cos32.shape == cos.shape == (3, 17, rotary_dim) and cos32.dtype == torch.float32
    assert float((cos32 - cos).abs().max()) <= 3e-7
    assert float((sin32 - sin).abs().max()) <= 3e-7


@pytest.mark.parametrize("float32", [False, True])
def test_compiled_rotation_takes_each_cosine_once(float32):
    """Compiled (inductor, CPU), a rotation of blocks of 4 keys by one angle per block computes its
    cosines and sines once per block and frequency, into a buffer (the recall step's `fill`), not per
    key and dim inside the rotation's loop (8 times as many, in float64 before the reduction); and
    rotates to the eager values."""
    rope = RopeSpec(inv_freq=1.0 / 10000 ** (torch.arange(0, 32).double() / 32), rotary_dim=64)
    keys = torch.randn(1, 3, 16, 4, 64)
    delta = torch.randint(-5000, 5000, (1, 3, 16, 1))

    def rotate(keys: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
        cos_sin = rope.cos_sin_float32 if float32 else rope.cos_sin
        return rope.apply(keys, *cos_sin(delta, keys.device))

    torch._dynamo.reset()
    got, codes = run_and_get_code(torch.compile(rotate, fullgraph=True), keys, delta)
    buffers = allocated_buffers("\n".join(codes))
    dtype = "float32" if float32 else "float64"  # a block's cosines and sines: 2 x 3 x 16 x 32
    assert any(math.prod(shape) == 2 * 3 * 16 * 32 and kind == dtype for shape, kind in buffers), buffers
    torch.testing.assert_close(got, rotate(keys, delta), rtol=0, atol=1e-5)
