"""Compiled decode steps: a bounded cache with static shapes under torch.compile equals eager decoding.

Oracles: the same call with `compile=False` (transformers' own loop, the cache's dynamic decode step),
token for token: greedy, seeded sampling and beams, left-padded batches, runs of three times the
limit (fill, first eviction, ring wrap; a RoPE sink rebase, a per-layer re-rank and a learned-position
re-encode where a test makes them due); torch.compile with `fullgraph=True` (a graph break fails the
call); torch._dynamo's counters (one graph, no recompile) and `error_on_recompile` after warm-up (a
later call with other lengths compiles nothing new); a count of the operations that read the device
on the host in every step; the addresses of every state tensor a captured step reads. The tests
compile with the `aot_eager` backend: dynamo captures the whole graph exactly as inductor would be
given it, without spending a C++ compile per case on a 2-core CPU; one test and the benchmarks
compile with inductor.
"""

import contextlib
import itertools
import logging

import pytest
import torch
from torch.overrides import TorchFunctionMode
from transformers import TextIteratorStreamer
from transformers.generation.configuration_utils import CompileConfig
from transformers.generation.streamers import BaseStreamer

import kvlimit
from kvlimit.cache.compiled import SEQ_LENGTH_READERS
from kvlimit.integrations import hf
from kvlimit.integrations.hf import compile_counters

from .helpers import FAMILIES, SLIDING_WINDOW, TinyModel, build_tiny, left_padded, make_model, output_cache

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle

LIMIT = 16
#: families with their own sliding-window layers (window SLIDING_WINDOW < LIMIT: kept, as rings when static)
SLIDING = ("mistral", "gemma2", "gemma3_text")
#: every family transformers compiles with its StaticCache
COMPILING = [f for f in FAMILIES if f not in SEQ_LENGTH_READERS]


def _reset_counters() -> None:
    """Forget what was compiled and torch._dynamo's counters (they count for the whole process)."""
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()


def _graph_only() -> CompileConfig:
    return CompileConfig(backend="aot_eager", fullgraph=True, dynamic=False, mode="default")


def _both(model, compile_config=None, **kwargs):
    ids, mask = left_padded(model)
    common = dict(input_ids=ids, attention_mask=mask, pad_token_id=0, **kwargs)
    common.setdefault("cache_limit", LIMIT)
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


@pytest.mark.parametrize("family", SLIDING)
def test_sliding_families_compile_when_every_layer_is_bounded(family):
    """A limit no larger than the model's own window bounds every layer."""
    eager, compiled = _both(make_model(family), do_sample=True, cache_limit=SLIDING_WINDOW, max_new_tokens=30)
    assert torch.equal(compiled, eager)


@pytest.mark.parametrize(
    ("family", "options"),
    [
        ("gemma3_text", dict(do_sample=True, top_p=0.8)),
        ("mistral", dict(num_beams=2, do_sample=False)),
        ("gemma2", dict(do_sample=False, policy="knorm")),  # re-ranks: the rings' keys move too
        ("gemma3_text", dict(do_sample=False, policy="tova", kv_dtype="int8")),
    ],
)
def test_the_models_own_sliding_layers_as_rings(family, options):
    """Above the model's window its sliding layers stay its own, in static form as rings: one graph."""
    _reset_counters()
    eager, compiled = _both(make_model(family), **options)
    assert torch.equal(compiled, eager)
    assert compile_counters()["graphs"] == 1


@pytest.mark.parametrize(
    ("family", "options"),
    [
        ("llama", dict(do_sample=True, top_k=20, temperature=0.9)),
        ("gpt_neox", dict(do_sample=True, top_p=0.9, repetition_penalty=1.3)),
        ("llama", dict(num_beams=3, do_sample=False)),
        ("phi", dict(num_beams=2, do_sample=True)),
        ("llama", dict(do_sample=False, policy="window")),
        ("qwen3", dict(do_sample=False, policy="knorm")),  # re-ranked at 2 x the limit
        ("falcon_alibi", dict(do_sample=True, policy="knorm")),
        ("llama", dict(do_sample=True, policy="tova")),
        ("gpt2", dict(do_sample=False, policy="tova")),
        ("qwen2", dict(do_sample=False, policy="h2o", n_recent=4)),
        ("llama", dict(do_sample=False, policy="snapkv", decode_policy="tova")),
        ("bloom", dict(do_sample=False, policy="h2o")),  # ALiBi: ordered slots; attention through hooks
        ("gptj", dict(do_sample=True, policy="snapkv")),
        ("llama", dict(num_beams=2, do_sample=False, policy="tova")),
        ("llama", dict(do_sample=False, kv_dtype="int8")),
        ("llama", dict(do_sample=True, kv_dtype="int4")),
        ("gptj", dict(do_sample=False, kv_dtype="fp8")),
        ("qwen3", dict(do_sample=False, kv_dtype="int8", policy="h2o")),
        ("gpt2", dict(do_sample=False, max_new_tokens=120)),  # past the 96-position table: re-encodes
        ("opt", dict(do_sample=False, positions="clamp", max_new_tokens=120)),
    ],
)
def test_compiled_modes_and_options_equal_eager(family, options):
    eager, compiled = _both(make_model(family), **options)
    assert torch.equal(compiled, eager)


def test_a_rebase_inside_a_compiled_run():
    """The host part of a static step rebases RoPE positions when due, outside the captured step."""
    model = make_model("llama")
    config = kvlimit.LimitConfig.create(cache_limit=LIMIT)
    runs = []
    for compile in (False, True):
        cache = kvlimit.build_cache(model, config, rows=2, rebase_after=24)
        torch._dynamo.reset()
        ids, mask = left_padded(model)
        out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache=cache, max_new_tokens=60,
                               pad_token_id=0, do_sample=False, compile=compile,
                               compile_config=_graph_only() if compile else None)  # fmt: skip
        runs.append(out)
        assert cache.stats["rebases"] >= 2
    assert torch.equal(runs[0], runs[1])


def test_outputs_scores_and_streams_as_transformers_loop():
    """kvlimit's own loop gives what transformers' `_sample` gives: sequences, scores, logits, the cache
    and the streamed tokens."""
    model = make_model("llama")
    ids, mask = left_padded(model)
    streams = []

    class Collect(BaseStreamer):
        def __init__(self):
            self.tokens = []

        def put(self, value):
            self.tokens.append(value.tolist())

        def end(self):
            self.tokens.append("end")

    outs = []
    for compile in (False, True):
        streamer = Collect()
        torch.manual_seed(3)
        options = dict(
            do_sample=True, top_k=30, return_dict_in_generate=True, output_scores=True, output_logits=True
        )
        out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=40,
                               pad_token_id=0, streamer=streamer, compile=compile,
                               compile_config=_graph_only() if compile else None, **options)  # fmt: skip
        outs.append(out)
        streams.append(streamer.tokens)
    eager, compiled = outs
    assert torch.equal(eager.sequences, compiled.sequences)
    for name in ("scores", "logits"):
        assert len(getattr(eager, name)) == len(getattr(compiled, name)) == 40
        for a, b in zip(getattr(eager, name), getattr(compiled, name), strict=True):
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    assert isinstance(output_cache(compiled), kvlimit.BoundedCache)
    assert output_cache(compiled).static_shapes
    assert streams[0] == streams[1]


def test_ends_at_end_of_sequence_and_pads_as_transformers():
    model = make_model("llama")
    ids, mask = left_padded(model)
    # the token greedy search makes fourth in row 0 ends the sequence there; row 1 runs on, then pads
    probe = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=4,
                             pad_token_id=0, do_sample=False)  # fmt: skip
    eos = int(probe[0, -1])
    eager, compiled = _both(model, do_sample=False, eos_token_id=eos)
    assert torch.equal(compiled, eager)
    prompt = ids.shape[1]
    assert int(compiled[0, prompt + 3]) == eos
    assert bool((compiled[0, prompt + 4 :] == 0).all())  # row 0 pads after its end


_SYNCS = {
    torch.Tensor.item, torch.Tensor.tolist, torch.Tensor.__bool__, torch.Tensor.__int__, torch.Tensor.__float__,
    torch.Tensor.__index__, torch.Tensor.numpy, torch.nonzero, torch.Tensor.nonzero, torch.masked_select,
    torch.Tensor.masked_select, torch.unique,
}  # fmt: skip


class _HostReads(TorchFunctionMode):
    """Counts the operations that read a tensor's values on the host (a synchronisation on a device),
    boolean-mask indexing included."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in _SYNCS or (func is torch.Tensor.__getitem__ and _bool_index(args[1])):
            self.count += 1
        return func(*args, **(kwargs or {}))


def _bool_index(index):
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, torch.Tensor) and p.dtype == torch.bool for p in parts)


@pytest.mark.parametrize(
    "options", [dict(do_sample=False), dict(do_sample=True, policy="tova", kv_dtype="int8")]
)
def test_one_host_read_per_step(options):
    """A compiled decode step reads nothing on the host (fullgraph would fail on it); the loop around it
    reads one value per step: whether to stop."""
    model = make_model("llama")
    ids, mask = left_padded(model)
    kwargs = dict(input_ids=ids, attention_mask=mask, cache_limit=LIMIT, pad_token_id=0, compile=True,
                  compile_config=_graph_only(), **options)  # fmt: skip
    _reset_counters()
    counts = {}
    for new_tokens in (40, 40, 140):  # the first compiles (under the counting mode: no recompile later)
        with _HostReads() as reads:
            kvlimit.generate(model, **kwargs, max_new_tokens=new_tokens)
        counts[new_tokens] = reads.count  # the second 40: warm
    assert counts[140] - counts[40] == 100
    assert compile_counters()["graphs"] == 1


def test_one_graph_no_recompile_over_2000_tokens_and_a_later_call():
    model = make_model("llama")
    ids, mask = left_padded(model)
    kwargs = dict(attention_mask=mask, cache_limit=LIMIT, pad_token_id=0, do_sample=True, compile=True)
    _reset_counters()
    kvlimit.generate(model, input_ids=ids, max_new_tokens=2000, compile_config=_graph_only(), **kwargs)
    counted = compile_counters()
    assert (counted["graphs"], counted["breaks"], counted["recompiles"]) == (1, 0, 0)
    # warm: another length of run and of prompt, the same batch, limit and dtype, compiles nothing new
    longer = torch.cat((ids, ids[:, -3:]), dim=1)
    kwargs["attention_mask"] = torch.cat((mask, torch.ones_like(mask[:, -3:])), dim=1)
    with torch._dynamo.config.patch(error_on_recompile=True):
        out = kvlimit.generate(
            model, input_ids=longer, max_new_tokens=5 * LIMIT, compile_config=_graph_only(),
            return_dict_in_generate=True, **kwargs,
        )  # fmt: skip
    cache = output_cache(out)
    assert cache.static_shapes and cache.is_compileable
    assert max(cache.stored_tokens()) == LIMIT


def record_addresses(monkeypatch) -> list[list[int]]:
    """From now on, each static step opened appends the addresses of every state tensor to the list returned."""
    seen: list[list[int]] = []
    original = kvlimit.BoundedCache.open_static_step

    def recording(self):
        static = original(self)
        seen.append([t.data_ptr() for t in self.state_tensors()])
        return static

    monkeypatch.setattr(kvlimit.BoundedCache, "open_static_step", recording)
    return seen


@pytest.mark.parametrize(
    ("family", "options"),
    [("qwen3", dict(policy="knorm", kv_dtype="int4")), ("gemma2", dict(num_beams=2, policy="h2o"))],
)
def test_state_keeps_its_addresses(monkeypatch, family, options):
    """Every tensor a captured step reads or writes keeps its address from the first step to the last
    (a CUDA graph reads them in place), through re-ranks and beam reorders."""
    model = make_model(family)
    seen = record_addresses(monkeypatch)
    _both(model, do_sample=False, max_new_tokens=4 * LIMIT, **options)
    assert len(seen) > 3 * LIMIT
    assert all(ptrs == seen[0] for ptrs in seen)


@pytest.mark.parametrize(
    ("grouped", "loop"),
    [(True, dict(do_sample=False)), (False, dict(do_sample=False)),
     (True, dict(do_sample=False, output_hidden_states=True)), (True, dict(num_beams=2, do_sample=False))],
)  # fmt: skip
def test_compiled_cpu_steps_hand_grouped_heads_to_sdpa(grouped, loop, monkeypatch):
    """A compiled step on the CPU hands sdpa the grouped keys and values as they are (no node of the
    traced graph comes from transformers' `repeat_kv`; `integrations.hf.grouped_sdpa`) and makes the
    eager tokens, in kvlimit's loop, transformers' sampling loop (hidden states asked for) and its beam
    loop; the stock rule is back after. Without the swap (`grouped=False`) the graph repeats them: the
    check can fail."""
    from transformers.integrations import sdpa_attention

    from kvlimit.integrations.hf import compiling

    stock_rule = sdpa_attention.use_gqa_in_sdpa
    repeats = []

    def recording(graph_module, example_inputs):  # a torch.compile backend: records, then runs eagerly
        traces = [node.meta.get("stack_trace") or "" for node in graph_module.graph.nodes]
        repeats.append(sum("in repeat_kv" in trace for trace in traces))
        return graph_module.forward

    if not grouped:
        monkeypatch.setattr(compiling, "grouped_sdpa_on_cpu", contextlib.nullcontext)
        monkeypatch.setattr(hf, "grouped_sdpa_on_cpu", contextlib.nullcontext)
    model = make_model("llama")  # 4 query heads on 1 KV head
    assert model.config.num_key_value_heads < model.config.num_attention_heads
    config = CompileConfig(backend=recording, fullgraph=True, dynamic=False, mode="default")
    eager, compiled = _both(model, compile_config=config, **loop)
    assert torch.equal(compiled, eager)
    assert repeats and (not any(repeats) if grouped else all(repeats))
    assert sdpa_attention.use_gqa_in_sdpa is stock_rule


def test_compile_configs_get_the_step_options():
    """With inductor, kvlimit compiles with `STEP_OPTIONS` (locality reordering off: it made inductor copy
    a whole stack twice a step, tests/test_compile_recall.py), on the CPU also `CPU_STEP_OPTIONS` (the C++
    wrapper), the mode given as the options it stands for, and the caller's own options over all of them;
    another backend's config is left as it is."""
    from torch._inductor import list_mode_options

    from kvlimit.integrations.hf.compiling import CPU_STEP_OPTIONS, STEP_OPTIONS, with_step_options

    cpu = hf.compile_config_for(None, torch.device("cpu"))
    assert (cpu.mode, cpu.options, cpu.fullgraph, cpu.dynamic) == (
        None, {**STEP_OPTIONS, **CPU_STEP_OPTIONS}, True, False
    )  # fmt: skip
    cuda = hf.compile_config_for(None, torch.device("cuda"))
    assert cuda.options == {**STEP_OPTIONS, **list_mode_options("reduce-overhead", False)}
    given = CompileConfig(mode="max-autotune", options={"reorder_for_locality": True, "max_autotune": False,
                                                        "cpp_wrapper": False})  # fmt: skip
    mine = hf.compile_config_for(given, torch.device("cpu"))
    assert mine.options == {**list_mode_options("max-autotune", None), "reorder_for_locality": True,
                            "max_autotune": False, "cpp_wrapper": False}  # fmt: skip
    assert with_step_options(mine, torch.device("cpu")).to_dict() == mine.to_dict()  # twice changes nothing
    assert given.mode == "max-autotune" and given.options == {
        "reorder_for_locality": True,
        "max_autotune": False,
        "cpp_wrapper": False,
    }
    other = CompileConfig(backend="aot_eager", mode="default")
    assert hf.compile_config_for(other, torch.device("cpu")).to_dict() == other.to_dict()


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
        ("llama", dict(recall=4, recall_score="bounds"), "bounds"),
        ("mpt", {}, "mpt"),
    ],
)
def test_what_cannot_compile_says_why(family, options, named, caplog):
    model = make_model(family)
    ids, mask = left_padded(model)
    kwargs = dict(input_ids=ids, attention_mask=mask, cache_limit=LIMIT, max_new_tokens=4, do_sample=False,
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


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("tiny"))


def test_text_streamer_with_a_compiled_run(tiny):
    """A streamer that decodes text on the host works in kvlimit's loop as in transformers'."""
    inputs = tiny.tokenizer(["the quick brown fox"], return_tensors="pt")
    texts = []
    for compile in (False, True):
        streamer = TextIteratorStreamer(tiny.tokenizer)
        kvlimit.generate(tiny.model, **inputs, cache_limit=LIMIT, max_new_tokens=40, do_sample=False,
                         streamer=streamer, compile=compile, compile_config=_graph_only() if compile else None)  # fmt: skip
        texts.append("".join(streamer))
    assert texts[0] == texts[1]
    assert texts[0].startswith("the quick brown fox")


@pytest.mark.parametrize("compile", [False, True])
def test_a_continued_cache_equals_one_call_on_the_whole_text(compile):
    """A cache passed to a second call continues as transformers continues one: input_ids hold the
    columns it has seen and new ones, and only the new ones are fed. With room for everything, the
    second call equals stock generate on the whole text (chunked prefill included); a prompt that does
    not reach past what the cache has seen is refused, naming the columns."""
    model = make_model("llama")
    ids, mask = left_padded(model)
    cache = kvlimit.build_cache(model, kvlimit.LimitConfig.create(128, prefill_chunk=4), rows=2)
    kwargs = dict(cache=cache, pad_token_id=0, do_sample=False, compile=compile,
                  compile_config=_graph_only() if compile else None)  # fmt: skip
    first = kvlimit.generate(model, input_ids=ids, attention_mask=mask, max_new_tokens=12, **kwargs)
    more = torch.cat((first, ids[:, -5:]), dim=1)
    more_mask = torch.cat((mask, torch.ones_like(more[:, mask.shape[1] :])), dim=1)
    second = kvlimit.generate(model, input_ids=more, attention_mask=more_mask, max_new_tokens=12, **kwargs)
    stock = model.generate(input_ids=more, attention_mask=more_mask, max_new_tokens=12, do_sample=False,
                           pad_token_id=0)  # fmt: skip
    assert torch.equal(second, stock)
    with pytest.raises(ValueError, match=f"has seen {cache.columns_seen} columns"):
        kvlimit.generate(model, input_ids=ids, attention_mask=mask, max_new_tokens=2, **kwargs)


def test_a_process_compiles_more_batch_sizes_than_torchs_limit_of_eight():
    """torch.compile keeps 8 graphs per function, and kvlimit's step is one function for every shape: a
    ninth batch size in one process failed under `fullgraph` (greedy in kvlimit's loop, beams in
    transformers'). Each of nine batch sizes compiles its own graph and decodes as eagerly."""
    model = make_model("llama")
    _reset_counters()
    for num_beams in (1, 2):
        for rows in range(1, 10):
            torch.manual_seed(rows)
            ids = torch.randint(3, model.config.vocab_size, (rows, 5))
            common = dict(input_ids=ids, attention_mask=torch.ones_like(ids), cache_limit=8, max_new_tokens=4,
                          do_sample=False, num_beams=num_beams, pad_token_id=0)  # fmt: skip
            compiled = kvlimit.generate(model, **common, compile=True, compile_config=_graph_only())
            if rows in (1, 9):
                assert torch.equal(compiled, kvlimit.generate(model, **common, compile=False))
    assert compile_counters()["graphs"] >= 18


def test_past_the_graph_limit_a_clear_error(monkeypatch):
    """Past `STEP_GRAPH_LIMIT` graphs, an error that says what was compiled and what to do."""
    model = make_model("llama")
    _reset_counters()
    monkeypatch.setattr(hf.compiling, "STEP_GRAPH_LIMIT", 2)
    with torch._dynamo.config.patch(recompile_limit=1):
        for rows, num_beams in itertools.product((1, 2, 3), (1, 2)):
            ids = torch.randint(3, model.config.vocab_size, (rows, 5))
            call = dict(input_ids=ids, attention_mask=torch.ones_like(ids), cache_limit=8, max_new_tokens=3,
                        do_sample=False, num_beams=num_beams, compile=True, compile_config=_graph_only())  # fmt: skip
            if rows < 3:
                kvlimit.generate(model, **call)
            else:
                with pytest.raises(
                    RuntimeError, match=r"compiled kvlimit's decode step for 2 different shapes"
                ):
                    kvlimit.generate(model, **call)
