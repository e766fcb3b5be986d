"""The recall tier on a compiled decode step (`kvlimit.cache.recall_static.StaticRecall`).

Oracles: the same call with `compile=False` (the eager tier, its block table on the host), token for
token, for every family recall serves and every decoding mode: greedy, seeded sampling, beams,
left-padded rows that start recalling at different steps, a bounded store whose rings wrap (the
eager store drops its oldest blocks), an unbounded one whose rings double (one more graph, no
break), scoring by keys, a rebase inside the run; torch._dynamo's counters (one graph, no break, no
recompile); the host reads of a step (none inside it); the addresses of every tensor the captured
step reads, through beam reorders; the continuous engine compiled against the engine eager and
each prompt alone; a chunk between compiled steps; a continued cache; random recall configurations
(hypothesis). Compiled with `aot_eager` (dynamo captures the graph inductor would get), as in
tests/test_compile.py. The family sweep runs on the installed release for every family and on every
older supported release (oracle) for one family of each kind (`RELEASE_SWEEP`); the rest on the
installed one.
"""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch._inductor.utils import run_and_get_code
from transformers.generation.configuration_utils import CompileConfig

import kvlimit
from kvlimit.cache.compiled import SEQ_LENGTH_READERS
from kvlimit.cache.recall_static import StaticRecall
from kvlimit.engine import ContinuousEngine
from kvlimit.integrations import hf
from kvlimit.integrations.hf import compile_counters

from .helpers import FAMILIES, allocated_buffers, left_padded, make_model, serves_recall
from .test_compile import _HostReads, _reset_counters, record_addresses
from .test_engine import SAMPLING, assert_alone, requests, run

LIMIT = 16
RECALL = 4  # blocks of 4 (`block_for`): one recalled block per KV head
RECALL_FAMILIES = [f for f in FAMILIES if f not in SEQ_LENGTH_READERS and serves_recall(f)]


def _graph_only() -> CompileConfig:
    return CompileConfig(backend="aot_eager", fullgraph=True, dynamic=False, mode="default")


def _both(model, **kwargs):
    ids, mask = left_padded(model)
    common = dict(input_ids=ids, attention_mask=mask, pad_token_id=0, cache_limit=LIMIT, recall=RECALL)
    common.update(kwargs)
    common.setdefault("max_new_tokens", 3 * LIMIT)
    torch.manual_seed(0)
    eager = kvlimit.generate(model, **common, compile=False)
    _reset_counters()
    torch.manual_seed(0)
    compiled = kvlimit.generate(model, **common, compile=True, compile_config=_graph_only(),
                                return_dict_in_generate=True)  # fmt: skip
    return eager, compiled


#: families whose compiled recall also runs on every older release (oracle): one of each way a family
#: attends and rotates (plain RoPE, partial rotary, query/key norms, soft caps and sliding layers,
#: parallel blocks); every family runs on the installed release (CI time: about 3 s a family a release)
RELEASE_SWEEP = ("llama", "gpt_neox", "phi", "qwen3", "gemma2", "gemma3_text", "falcon", "cohere")


@pytest.mark.parametrize(
    "family",
    [pytest.param(f, marks=pytest.mark.oracle) if f in RELEASE_SWEEP else f for f in RECALL_FAMILIES],
)
def test_compiled_recall_equals_eager(family):
    eager, compiled = _both(make_model(family), do_sample=False, min_new_tokens=3 * LIMIT)
    assert torch.equal(compiled.sequences, eager)
    counted = compile_counters()
    assert (counted["graphs"], counted["breaks"], counted["recompiles"]) == (1, 0, 0)
    cache = compiled.past_key_values
    assert cache.static_recall is not None and cache.stats["recall_stored"] == sum(cache.static_recall.stored)
    assert max(cache.static_recall.stored) >= 2 * RECALL  # rows recalled, from more than one block


@pytest.mark.parametrize(
    ("family", "options"),
    [
        ("llama", dict(do_sample=True, top_k=20)),
        ("qwen2", dict(num_beams=2, do_sample=False)),
        ("llama", dict(num_beams=3, num_return_sequences=2, do_sample=True)),
        ("llama", dict(do_sample=False, recall_store=8 * RECALL, max_new_tokens=80)),  # rings wrap
        ("gemma", dict(do_sample=True, recall_score="keys")),
        ("llama", dict(do_sample=False, recall_positions="packed")),
        ("gemma", dict(do_sample=True, recall_score="keys", recall_positions="packed")),
        ("qwen2", dict(num_beams=2, do_sample=True, recall_positions="full")),
        ("llama", dict(do_sample=False, policy="window", recall=8)),
        ("phi3", dict(do_sample=False, recall=8, recall_block=2)),
        ("llama", dict(do_sample=False, recall_dtype="int8", recall_store=8 * RECALL, max_new_tokens=80)),
        ("qwen3", dict(num_beams=2, do_sample=True, recall_dtype="int4", kv_dtype="int8")),
        ("llama", dict(do_sample=True, recall_dtype="bfloat16", recall_store=8 * RECALL, max_new_tokens=80)),
        ("gpt_neox", dict(num_beams=2, do_sample=False, recall_dtype="float16")),
        # choosing every few steps: a graph that scores and one that does not, the rows' own schedules
        ("llama", dict(do_sample=False, recall_every=3)),
        ("qwen2", dict(num_beams=2, do_sample=False, recall_every=2)),
        ("llama", dict(do_sample=True, recall_every=4, recall_store=8 * RECALL, max_new_tokens=80)),
    ],
)
def test_compiled_recall_modes_equal_eager(family, options):
    eager, compiled = _both(make_model(family), **options)
    assert torch.equal(compiled.sequences, eager)
    assert compile_counters()["breaks"] == 0


@pytest.mark.parametrize("places", ["distance", "full"])
def test_compiled_recall_past_the_trained_context_equals_eager(places):
    """A model of 24 positions: the recalled blocks ("full": the sinks too), each at its own distance,
    soon pass the trained context and sit at that distance from the query; the device bounds them as
    the host does (the sinks' rotation comes from the device counters in a captured step)."""
    model = make_model("llama", max_position_embeddings=24)
    eager, compiled = _both(model, do_sample=False, recall_positions=places)
    assert compiled.sequences.shape[1] > 2 * 24
    assert torch.equal(compiled.sequences, eager)


@pytest.mark.parametrize(
    ("family", "options", "out_of_phase"),
    [
        ("llama", dict(do_sample=False, recall_every=3), True),
        ("qwen2", dict(num_beams=2, do_sample=False, recall_every=2), False),
        (
            "llama",
            dict(
                do_sample=True, recall_every=2, recall_store=8 * RECALL, max_new_tokens=80, min_new_tokens=80
            ),
            True,
        ),  # wraps: over all 80 steps the rows' rings wrap at different steps, and their schedules part
    ],
)
def test_the_host_and_the_device_keep_one_schedule(monkeypatch, family, options, out_of_phase):
    """`open` decides on the host whether any row chooses (which graph runs), `count` decides in the graph
    which rows do: before every static step the two schedules agree row by row (steps since the last
    choice, what the row could recall then, and who chose last step), and the run has steps where every
    row and no row chose (and, where the rows' schedules part, steps where some rows chose)."""
    opened, seen = StaticRecall.open, []

    def open_checked(self: StaticRecall, evicting):
        host = self.schedule
        since = [self.every if s is None else s for s in host.since]
        assert self.since_t.tolist() == since
        for row, s in enumerate(host.since):
            if s is not None:  # a row that has not chosen yet chooses whatever it held
                assert tuple(self.held_t[row].tolist()) == host.held[row]
        if seen:
            assert self.choose_t.tolist() == seen[-1]
        recalled = opened(self, evicting)
        seen.append([s == 1 for s in host.since])
        assert self.choosing == any(seen[-1])
        return recalled

    monkeypatch.setattr(StaticRecall, "open", open_checked)
    eager, compiled = _both(make_model(family), **options)
    assert torch.equal(compiled.sequences, eager)
    kinds = {(all(chose), any(chose)) for chose in seen}  # every row, no row, some rows chose
    assert {(True, True), (False, False)} <= kinds, kinds
    assert ((False, True) in kinds) == out_of_phase, kinds  # rows whose schedules part (the case's rows)


def _prefilled_pair(model, config, ids, mask):
    """Two caches of `config` prefilled with the prompt: one stays eager, one is made static (without the
    run's length) and stepped by the compiled step returned with them (counters reset)."""
    eager, static = kvlimit.build_cache(model, config), kvlimit.build_cache(model, config)
    for cache in (eager, static):
        kvlimit.forward_step(model, cache, ids, mask)
    static.make_static()
    _reset_counters()
    return eager, static, hf.CompiledDecodeStep(model, static, hf.inspect_model(model), _graph_only())


def test_an_unbounded_store_grows_outside_the_graph():
    """Made static without the run's length, an unbounded store's rings start at 64 blocks; with blocks
    of one token they fill after 64 evictions and double on the host; the step compiles once more for
    the new shape, and every step's logits stay the eager tier's."""
    model = make_model("llama")
    ids, mask = left_padded(model)
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL, recall_block=1)
    eager, static, step = _prefilled_pair(model, config, ids, mask)
    token = ids[:, -1:].contiguous()
    for _ in range(100):
        want = kvlimit.forward_step(model, eager, token).logits[:, -1]
        torch.testing.assert_close(step(token), want, atol=1e-4, rtol=1e-4)
        token = want.argmax(dim=-1, keepdim=True)
    assert static.static_recall.ring == 128 and max(static.static_recall.stored) > 64
    counted = compile_counters()
    assert (counted["graphs"], counted["breaks"]) == (2, 0)


def test_a_known_run_length_sizes_the_rings():
    """`kvlimit.generate` tells the cache its run's length: an unbounded store's rings hold the run's
    evictions from the start (no growth, one graph)."""
    eager, compiled = _both(make_model("llama"), do_sample=False, recall_block=1, max_new_tokens=110)
    assert torch.equal(compiled.sequences, eager)
    recall = compiled.past_key_values.static_recall
    assert recall.ring == 9 + 110 - (LIMIT - RECALL) and max(recall.stored) > 64
    assert compile_counters()["graphs"] == 1


def test_a_rebase_inside_a_compiled_recall_run():
    model = make_model("llama")
    config = kvlimit.LimitConfig.create(cache_limit=LIMIT, recall=RECALL)
    runs = []
    for compile in (False, True):
        cache = kvlimit.build_cache(model, config, rows=2, rebase_after=28)
        _reset_counters()
        ids, mask = left_padded(model)
        runs.append(kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache=cache, max_new_tokens=60,
                                     pad_token_id=0, do_sample=False, compile=compile,
                                     compile_config=_graph_only() if compile else None))  # fmt: skip
        assert cache.stats["rebases"] >= 2
    assert torch.equal(runs[0], runs[1])


def test_no_host_read_inside_a_recall_step():
    """The loop reads one value a step (whether to stop); the step itself, recall included, none."""
    model = make_model("llama")
    ids, mask = left_padded(model)
    kwargs = dict(input_ids=ids, attention_mask=mask, cache_limit=LIMIT, recall=RECALL, recall_store=48,
                  pad_token_id=0, compile=True, compile_config=_graph_only(), do_sample=True)  # fmt: skip
    _reset_counters()
    counts = {}
    for new_tokens in (40, 40, 140):
        with _HostReads() as reads:
            kvlimit.generate(model, **kwargs, max_new_tokens=new_tokens, min_new_tokens=new_tokens)
        counts[new_tokens] = reads.count
    assert counts[140] - counts[40] == 100
    assert compile_counters()["graphs"] == 1


def test_recall_state_keeps_its_addresses(monkeypatch):
    """Every tensor the captured step reads keeps its address from step to step, through beam reorders."""
    model = make_model("llama")
    seen = record_addresses(monkeypatch)
    eager, compiled = _both(model, num_beams=2, do_sample=False, recall_store=32, max_new_tokens=4 * LIMIT)
    assert torch.equal(compiled.sequences, eager)
    assert len(seen) > 3 * LIMIT
    assert all(ptrs == seen[0] for ptrs in seen)


@pytest.mark.parametrize(("reorder", "recall"), [(None, False), (None, True), (True, True)])
def test_inductor_writes_the_stacks_in_place(reorder, recall):
    """The real backend (a C++ compile on the CPU), on a two-layer model, sinks alone and with recall: the
    eager tier's tokens, and no buffer the size of a whole stack of keys or values, or of one layer's, in
    the step's code. Two ways to lose the in-place writes, both guarded: a write into a layer's view of
    a stack (a graph input) by `scatter_` or a slice assignment, which inductor does through a copy of
    the layer's keys and values in and out (`KVStore._into_stack` writes the stack itself); and
    inductor's `reorder_for_locality`, which moves the capture's read of the evicted token past the
    layer's write of the new one into the same stack, which then cannot be written in place.
    `compile_config_for` turns the pass off (`STEP_OPTIONS`); a caller's own options win, and with it on
    (`reorder=True`, with recall) the copy is there: the check can fail."""
    model = make_model("llama", num_layers=2)
    ids, mask = left_padded(model)
    common = dict(input_ids=ids, attention_mask=mask, pad_token_id=0, cache_limit=LIMIT,
                  max_new_tokens=3 * LIMIT, do_sample=False, **(dict(recall=RECALL) if recall else {}))  # fmt: skip
    eager = kvlimit.generate(model, **common, compile=False)
    given = None if reorder is None else CompileConfig(fullgraph=True, dynamic=False,
                                                       options={"reorder_for_locality": reorder})  # fmt: skip
    with torch._inductor.config.patch(fx_graph_cache=False):  # the code is saved only when generated
        out, codes = run_and_get_code(kvlimit.generate, model, **common, compile=True, compile_config=given,
                                      return_dict_in_generate=True)  # fmt: skip
    assert torch.equal(out.sequences, eager)
    stack = out.past_key_values.store.stacks[0]
    shapes = {tuple(t.shape) for t in (stack.keys, stack.values)} | {
        tuple(t.shape[1:]) for t in (stack.keys, stack.values)
    }
    allocated = {shape for code in codes for shape, _ in allocated_buffers(code)}
    copied = shapes & allocated
    assert codes and len(allocated) > 5 and (copied if reorder else not copied), copied


@pytest.mark.parametrize("kv_dtype", ["int8", "int4"])
def test_inductor_writes_quantized_codes_in_place(kv_dtype):
    """A quantized store's codes and scales (per-layer tensors, graph inputs) are written in place by the
    real backend: no buffer of their shape and dtype in the step's code (a `scatter_` into them is done
    through a copy in and out; `QuantizedStore.write_token` writes them by `index_put_` when compiling).
    The tokens are checked against the eager tier with the graph-only backend in test_compile.py: under
    inductor a quantized store's rounding is not the eager tier's (fused scale arithmetic), and the tokens
    part after a while."""
    model = make_model("llama", num_layers=2)
    ids, mask = left_padded(model)
    common = dict(input_ids=ids, attention_mask=mask, pad_token_id=0, cache_limit=LIMIT,
                  max_new_tokens=3 * LIMIT, do_sample=False, kv_dtype=kv_dtype)  # fmt: skip
    with torch._inductor.config.patch(fx_graph_cache=False):
        out, codes = run_and_get_code(kvlimit.generate, model, **common, compile=True,
                                      return_dict_in_generate=True)  # fmt: skip
    store = out.past_key_values.store
    stored = [t for layer in (store.key_codes[0], store.value_codes[0]) for t in layer.tensors()]
    buffers = {(tuple(t.shape), str(t.dtype).removeprefix("torch.")) for t in stored}
    allocated = {buffer for code in codes for buffer in allocated_buffers(code)}
    copied = buffers & allocated
    assert codes and stored and len(allocated) > 5 and not copied, copied


def test_what_recall_cannot_compile_says_why():
    model = make_model("llama")
    ids, mask = left_padded(model)
    with pytest.raises(ValueError, match="recall_score='bounds'"):
        kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=LIMIT, recall=RECALL,
                         max_new_tokens=4, pad_token_id=0, compile=True, recall_score="bounds")  # fmt: skip


def test_a_continued_recall_cache_compiles_to_the_eager_tokens():
    """A second call on the same cache (transformers' convention: the seen columns, then new ones) feeds
    its new columns as a chunk after static steps; compiled and eager give the same tokens in both calls."""
    model = make_model("llama")
    ids, mask = left_padded(model)
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL)
    runs = []
    for compile in (False, True):
        cache = kvlimit.build_cache(model, config, rows=2)
        _reset_counters()
        kwargs = dict(cache=cache, pad_token_id=0, do_sample=False, compile=compile,
                      compile_config=_graph_only() if compile else None)  # fmt: skip
        first = kvlimit.generate(model, input_ids=ids, attention_mask=mask, max_new_tokens=30, **kwargs)
        more = torch.cat((first, ids[:, -5:]), dim=1)
        more_mask = torch.cat((mask, torch.ones_like(more[:, mask.shape[1] :])), dim=1)
        second = kvlimit.generate(
            model, input_ids=more, attention_mask=more_mask, max_new_tokens=30, **kwargs
        )
        runs.append((first, second, cache.stats["recall_stored"]))
    assert torch.equal(runs[0][0], runs[1][0]) and torch.equal(runs[0][1], runs[1][1])
    assert runs[0][2] == runs[1][2] > 0


def _held(store):
    """Per row of an eager recall store, each block's first token index and fill, oldest first."""
    return [[(int(store.block_first[b]), store.fill[b]) for b in row] for row in store.rows]


def test_a_chunk_after_static_steps_hands_the_blocks_back():
    """A prompt chunk after static steps (a cache fed more prompt) runs the eager tier: the rings' blocks
    go back to the eager store, and the next static step makes rings again; every step's logits stay
    those of a cache that never left the eager tier."""
    model = make_model("llama")
    ids, mask = left_padded(model)
    config = kvlimit.LimitConfig.create(LIMIT, recall=RECALL)
    eager, static, step = _prefilled_pair(model, config, ids, mask)
    token = ids[:, -1:].contiguous()
    for phase in range(2):
        for _ in range(30):
            want = kvlimit.forward_step(model, eager, token).logits[:, -1]
            torch.testing.assert_close(step(token), want, atol=1e-4, rtol=1e-4)
            token = want.argmax(dim=-1, keepdim=True)
        if phase == 0:  # more prompt: five tokens as one chunk
            chunk = ids[:, -5:].contiguous()
            want = kvlimit.forward_step(model, eager, chunk).logits[:, -1]
            torch.testing.assert_close(kvlimit.forward_step(model, static, chunk).logits[:, -1], want, atol=1e-4,
                                       rtol=1e-4)  # fmt: skip
            assert static.static_recall is None and _held(static.recall) == _held(eager.recall)
            token = want.argmax(dim=-1, keepdim=True)
    assert static.stats["recall_stored"] == eager.stats["recall_stored"] > 8 * RECALL
    static.reset()
    assert static.static_recall is None


@pytest.mark.parametrize(
    "options",
    [
        dict(recall=RECALL),
        dict(recall=RECALL, recall_dtype="int8"),
        dict(recall=RECALL, recall_every=3),
        dict(policy="tova"),
    ],
)
def test_the_compiled_engine_equals_the_eager_engine(options):
    """Rows loaded into the rings (`load_row`) as prompts come and go; the attention is tapped in the
    compiled step as in the eager one (recall fills there; tova reads there)."""
    model = make_model("llama")
    config = kvlimit.LimitConfig.create(LIMIT + options.get("recall", 0), **options)
    decoding = {"max_new_tokens": 30, **SAMPLING}
    reqs = requests(model, lengths=(25, 3, 30, 7))
    compiled = run(model, config, decoding, reqs, rows=2, compile=_graph_only())
    assert compiled == run(model, config, decoding, reqs, rows=2)
    assert_alone(model, config, decoding, reqs, compiled)


def test_the_engine_names_what_cannot_compile():
    model = make_model("llama")
    with pytest.raises(ValueError, match="compile: recall_score='bounds'"):
        ContinuousEngine(model, kvlimit.LimitConfig.create(2 * LIMIT, recall=4, recall_score="bounds"), rows=2,
                         compile=True)  # fmt: skip


@st.composite
def recall_runs(draw: st.DrawFn) -> dict:
    """A random recall request: family, limit, recall slots, store bound, dtype, score, block, choice
    interval, policy, prefill chunk, decoding mode and length."""
    limit = draw(st.integers(10, 24))
    recall = draw(st.sampled_from([r for r in (2, 4, 6, 8) if r <= limit - 6]))  # room for 4 sinks
    options = dict(
        family=draw(st.sampled_from(RECALL_FAMILIES)),
        lengths=tuple(draw(st.lists(st.integers(1, 14), min_size=1, max_size=3))),
        cache_limit=limit,
        recall=recall,
        policy=draw(st.sampled_from(["sinks", "window"])),
        recall_store=draw(st.none() | st.integers(recall, recall + 24)),
        recall_dtype=draw(st.sampled_from([None, None, "int8", "int4", "bfloat16"])),
        recall_score=draw(st.sampled_from(["distance", "keys"])),
        recall_block=draw(st.sampled_from([None, 1, 2])),
        recall_every=draw(st.sampled_from([None, None, 2, 3])),
        recall_positions=draw(st.sampled_from([None, None, "full", "packed"])),
        prefill_chunk=draw(st.none() | st.integers(1, limit - recall - 4)),
        max_new_tokens=draw(st.integers(limit, 3 * limit)),
        seed=draw(st.integers(0, 2**16)),
    )
    mode = draw(st.sampled_from(["greedy", "sample", "beams"]))
    decoding = {"greedy": dict(do_sample=False), "sample": dict(do_sample=True, top_k=20),
                "beams": dict(num_beams=2, do_sample=False)}[mode]  # fmt: skip
    return {**options, **decoding}


@given(request=recall_runs())
@settings(max_examples=8, derandomize=True, deadline=None, database=None, print_blob=True)
def test_random_recall_requests_compile_to_the_eager_tokens(request):
    """Over random recall configurations and decoding modes, the compiled run gives the eager run's tokens."""
    options = dict(request)
    model = make_model(options.pop("family"))
    ids, mask = left_padded(model, lengths=options.pop("lengths"), seed=options["seed"])
    seed = options.pop("seed")
    common = dict(input_ids=ids, attention_mask=mask, pad_token_id=0, **options)
    torch.manual_seed(seed)
    eager = kvlimit.generate(model, **common, compile=False)
    _reset_counters()
    torch.manual_seed(seed)
    compiled = kvlimit.generate(model, **common, compile=True, compile_config=_graph_only())
    assert torch.equal(compiled, eager)
    assert compile_counters()["breaks"] == 0
