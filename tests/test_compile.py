"""Compiled decode steps: a bounded cache with static shapes under torch.compile equals eager decoding.

Oracles: the same call with `compile=False` (token for token, greedy, seeded sampling and beams,
left-padded batches, runs of several times the limit: fill, first eviction, ring wrap); torch.compile
with `fullgraph=True` (a graph break fails the call) and `torch._dynamo.config.error_on_recompile`
after warm-up (a later call with other lengths compiles nothing new). The tests compile with the
`aot_eager` backend: dynamo captures the whole graph exactly as inductor would be given it, without
spending a C++ compile per case on a 2-core CPU; the benchmarks compile with inductor.
"""

import logging

import pytest
import torch
from transformers.generation.configuration_utils import CompileConfig

import kvlimit
from kvlimit.cache.compiled import SEQ_LENGTH_READERS

from .helpers import FAMILIES, SLIDING_WINDOW, left_padded, make_model, output_cache

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle

LIMIT = 16
#: families that compile (the others: their own sliding layers at this limit, or a host length read)
COMPILING = [
    f for f in FAMILIES if f not in SEQ_LENGTH_READERS and f not in ("mistral", "gemma2", "gemma3_text")
]


def _graph_only() -> CompileConfig:
    return CompileConfig(backend="aot_eager", fullgraph=True, dynamic=False, mode="default")


def _both(model, compile_config=None, **kwargs):
    ids, mask = left_padded(model)
    common = dict(input_ids=ids, attention_mask=mask, cache_limit=LIMIT, pad_token_id=0, **kwargs)
    common.setdefault("max_new_tokens", 3 * LIMIT)
    torch.manual_seed(0)
    eager = kvlimit.generate(model, **common, compile=False)
    torch._dynamo.reset()
    torch.manual_seed(0)
    compiled = kvlimit.generate(model, **common, compile=True, compile_config=compile_config or _graph_only())
    return eager, compiled


@pytest.mark.parametrize("family", COMPILING)
def test_compiled_greedy_equals_eager(family):
    eager, compiled = _both(make_model(family), do_sample=False)
    assert torch.equal(compiled, eager)


@pytest.mark.parametrize(
    ("family", "options"),
    [
        ("llama", dict(do_sample=True, top_k=20, temperature=0.9)),
        ("gpt_neox", dict(do_sample=True, top_p=0.9)),
        ("llama", dict(num_beams=3, do_sample=False)),
        ("phi", dict(num_beams=2, do_sample=True)),
        ("llama", dict(do_sample=False, policy="window")),
        ("qwen3", dict(do_sample=False, policy="knorm")),
        ("falcon_alibi", dict(do_sample=True, policy="knorm")),
        ("llama", dict(do_sample=False, kv_dtype="int8")),
        ("llama", dict(do_sample=True, kv_dtype="int4")),
        ("gptj", dict(do_sample=False, kv_dtype="fp8")),
        ("gpt2", dict(do_sample=False, max_new_tokens=120)),  # past the 96-position table: re-encodes
    ],
)
def test_compiled_modes_and_options_equal_eager(family, options):
    eager, compiled = _both(make_model(family), **options)
    assert torch.equal(compiled, eager)


def test_one_graph_and_no_recompile_after_warm_up():
    model = make_model("llama")
    ids, mask = left_padded(model)
    kwargs = dict(attention_mask=mask, cache_limit=LIMIT, pad_token_id=0, do_sample=False, compile=True)
    torch._dynamo.reset()
    kvlimit.generate(model, input_ids=ids, max_new_tokens=2 * LIMIT, compile_config=_graph_only(), **kwargs)
    # warm: another length of run and of prompt, the same batch, limit and dtype, compiles nothing new
    longer = torch.cat((ids, ids[:, -3:]), dim=1)
    longer_mask = torch.cat((mask, torch.ones_like(mask[:, -3:])), dim=1)
    kwargs["attention_mask"] = longer_mask
    with torch._dynamo.config.patch(error_on_recompile=True):
        out = kvlimit.generate(
            model, input_ids=longer, max_new_tokens=5 * LIMIT, compile_config=_graph_only(),
            return_dict_in_generate=True, **kwargs,
        )  # fmt: skip
    cache = output_cache(out)
    assert cache.static_shapes and cache.is_compileable
    assert max(cache.stored_tokens()) == LIMIT


def test_inductor_compiles_and_equals_eager():
    """The real backend once (a C++ compile on the CPU), on a one-layer model."""
    eager, compiled = _both(
        make_model("llama", num_layers=1),
        compile_config=CompileConfig(fullgraph=True, dynamic=False, mode="default"),
        do_sample=False,
        max_new_tokens=2 * LIMIT,
    )
    assert torch.equal(compiled, eager)


@pytest.mark.parametrize(
    ("family", "options", "named"),
    [
        ("llama", dict(recall=4), "recall"),
        ("llama", dict(policy="tova"), "tova"),
        ("llama", dict(policy="h2o"), "h2o"),
        ("bloom", {}, "bloom"),
        ("mistral", {}, "sliding-window"),
    ],
)
def test_what_cannot_compile_says_why(family, options, named, caplog):
    model = make_model(family)
    ids, mask = left_padded(model)
    limit = SLIDING_WINDOW + 8 if family == "mistral" else LIMIT
    kwargs = dict(input_ids=ids, attention_mask=mask, cache_limit=limit, max_new_tokens=4, do_sample=False,
                  pad_token_id=0, **options)  # fmt: skip
    with pytest.raises(ValueError, match=named):
        kvlimit.generate(model, **kwargs, compile=True)
    # asked through compile_config (compile=None), it decodes eagerly and says why, once
    with caplog.at_level(logging.WARNING, logger="kvlimit.generation"):
        eager = kvlimit.generate(model, **kwargs, compile_config=_graph_only())
    assert any("decoding eagerly" in r.message and named in r.message for r in caplog.records)
    assert torch.equal(eager, kvlimit.generate(model, **kwargs))


def test_cpu_default_stays_eager_and_compile_is_checked():
    model = make_model("llama")
    ids, mask = left_padded(model)
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=4,
                           pad_token_id=0, return_dict_in_generate=True)  # fmt: skip
    assert not output_cache(out).static_shapes  # no accelerator, no compile_config: transformers' rule
    with pytest.raises(ValueError, match="compile must be True, False or None"):
        kvlimit.generate(model, input_ids=ids, cache_limit=LIMIT, max_new_tokens=2, compile="yes")
    with pytest.raises(ValueError, match="compile needs cache_limit"):
        kvlimit.generate(model, input_ids=ids, max_new_tokens=2, compile=True)
