"""Tests for streaming perplexity (kvlimit.eval.perplexity), its plot and the `kvlimit ppl` command.

Identities on tiny random models (tests/helpers/families.py): with room for the whole text, the bounded cache,
the recompute baseline and the unbounded cache all give the NLL of one stock forward over the text.
Oracles for the bounded case: with the window policy every token sees a fixed band of tokens, so the
streaming NLL equals one forward with a banded (or chunk-banded) attention mask, at any depth; on a
one-layer model, where a key depends only on its token and position, the window and sinks policies
equal a fresh forward over exactly the tokens the cache holds. The cache never holds more than the
limit, checked after every chunk and at every attention call. The `full` baseline marks predictions
past the trained context and stops cleanly at its memory budget or on out-of-memory. The command
runs in-process on a tiny Llama folder (tests/helpers/tinymodels.py). The `slow` test runs the embedded
SmolLM2-135M-Instruct on the Botchan corpus.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
from typing import Any

import pytest
import torch
import torch.nn.functional as F

import kvlimit
import kvlimit.cache
from kvlimit.clitools import CLIError, names
from kvlimit.eval import command
from kvlimit.eval.perplexity import (
    PerplexityProgress,
    PerplexityResult,
    default_chunk,
    full_perplexity,
    recompute_perplexity,
    segment_perplexities,
    streaming_perplexity,
)
from kvlimit.eval.plot import moving_average, plot_perplexity
from kvlimit.policies import policies_taking

from .helpers import MAX_POSITIONS, VOCAB_SIZE, TinyModel, build_tiny, make_model

ATOL = 1e-4


def tokens(n: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(3, VOCAB_SIZE, (n,), generator=generator)


def stock_nll(model: Any, ids: torch.Tensor, mask: Any = None) -> torch.Tensor:
    """NLL of tokens 1..n-1 from one forward over the whole text (optionally with a 4D mask)."""
    kwargs: dict[str, Any] = {}
    if mask is not None:
        kwargs = {"attention_mask": mask, "position_ids": torch.arange(ids.numel())[None]}
    with torch.no_grad():
        logits = model(input_ids=ids[None], **kwargs).logits[0]
    return F.cross_entropy(logits[:-1].float(), ids[1:], reduction="none")


def fresh_logits(model: Any, ids: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids=ids[None]).logits[0]


def visible_mask(n: int, limit: int, chunk: int, eager: bool) -> torch.Tensor:
    """(1, 1, n, n): query t of the chunk starting at s sees keys max(0, s+chunk-limit)..t."""
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    chunk_end = ((i // chunk + 1) * chunk).clamp(max=n)
    allowed = (j <= i) & (j >= chunk_end - limit)
    if eager:
        return torch.zeros(allowed.shape).masked_fill(~allowed, torch.finfo(torch.float32).min)[None, None]
    return allowed[None, None]


@pytest.fixture(scope="module")
def llama():
    return make_model("llama")


# --- identities: room for the whole text ----------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "policy", "chunks"),
    [
        ("llama", "sinks", (1, 7, 60)),
        ("llama", "window", (7, 64)),
        ("qwen3", "sinks", (7,)),
        ("gpt2", "sinks", (7, 60)),  # learned absolute positions
        ("gemma2", "window", (7, 64)),  # its own sliding layers (window 8) beside bounded full layers
        ("llama", "knorm", (1, 7, 60)),  # per-layer policy
        ("gemma2", "knorm", (7,)),
    ],
)
def test_streaming_with_room_for_the_text_equals_one_forward(family, policy, chunks):
    model = make_model(family)
    ids = tokens(64)
    want = stock_nll(model, ids)
    for chunk in chunks:
        result = streaming_perplexity(model, ids, cache_limit=64, policy=policy, chunk=chunk)
        assert result.nll.shape == (64,) and math.isnan(result.nll[0])
        torch.testing.assert_close(result.nll[1:], want, atol=ATOL, rtol=0)
        assert result.ppl == pytest.approx(math.exp(want.double().mean()), rel=1e-4)
        assert result.tokens == 64 and result.chunk == chunk


@pytest.mark.parametrize("chunk", [3, 64])
def test_recompute_with_a_window_over_the_text_equals_one_forward(llama, chunk):
    ids = tokens(64, seed=1)
    result = recompute_perplexity(llama, ids, cache_limit=64, chunk=chunk)
    torch.testing.assert_close(result.nll[1:], stock_nll(llama, ids), atol=ATOL, rtol=0)
    assert result.policy == "recompute" and result.cache_limit == 64


def test_full_equals_one_forward_and_accepts_a_batch_of_one(llama):
    ids = tokens(70, seed=2)
    result = full_perplexity(llama, ids[None], chunk=16)
    torch.testing.assert_close(result.nll[1:], stock_nll(llama, ids), atol=ATOL, rtol=0)
    assert result.cache_limit is None and result.label == "full" and result.note is None
    assert result.beyond_context_from is None and result.ppl_within_context is None
    assert result.peak_cache_bytes == 70 * kvlimit.kv_bytes_per_token(llama)


# --- the bounded case ---------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["sinks", "window", "knorm"])
def test_cache_never_holds_more_than_the_limit(llama, policy, monkeypatch):
    limit, chunk = 12, 5
    keys_seen: list[int] = []
    update = kvlimit.cache.BoundedLayer.update

    def spy(self, key_states, value_states, *args, **kwargs):
        keys, values = update(self, key_states, value_states, *args, **kwargs)
        keys_seen.append(keys.shape[-2])
        return keys, values

    monkeypatch.setattr(kvlimit.cache.BoundedLayer, "update", spy)
    events: list[PerplexityProgress] = []
    result = streaming_perplexity(llama, tokens(90), cache_limit=limit, policy=policy, chunk=chunk,
                                  progress=events.append)  # fmt: skip
    assert [e.done for e in events] == [*range(chunk, 90, chunk), 90]
    assert all(e.total == 90 and e.label == f"{policy}@{limit}" for e in events)
    assert [e.cache_tokens for e in events] == [min(e.done, limit) for e in events]
    assert max(keys_seen) == limit  # every query of every chunk attends to at most `limit` keys
    assert result.peak_cache_bytes == limit * kvlimit.kv_bytes_per_token(llama)
    assert all(math.isfinite(e.ppl) and e.tokens_per_s > 0 for e in events)


@pytest.mark.parametrize("family", ["llama", "gpt_neox"])
def test_window_token_by_token_equals_a_banded_forward(family):
    """chunk 1: token t is predicted from tokens t-L+1..t, at every layer: one banded forward."""
    model = make_model(family)
    ids, limit = tokens(40, seed=3), 10
    result = streaming_perplexity(model, ids, cache_limit=limit, policy="window", chunk=1)
    want = stock_nll(model, ids, visible_mask(40, limit, 1, eager=False))
    torch.testing.assert_close(result.nll[1:], want, atol=ATOL, rtol=0)


@pytest.mark.parametrize("chunk", [3, 6])
def test_window_in_chunks_equals_a_chunk_banded_forward(llama, chunk):
    """Query t of the chunk at s sees s+chunk-L..t; each token's hidden states only ever saw its own band."""
    ids, limit = tokens(61, seed=4), 10
    result = streaming_perplexity(llama, ids, cache_limit=limit, policy="window", chunk=chunk)
    want = stock_nll(llama, ids, visible_mask(61, limit, chunk, eager=False))
    torch.testing.assert_close(result.nll[1:], want, atol=ATOL, rtol=0)


@pytest.mark.parametrize("chunk", [1, 5])
def test_one_layer_window_equals_recompute(chunk):
    """One layer: keys depend on token and position only, so re-computation changes nothing."""
    model = make_model("llama", num_layers=1)
    ids = tokens(40, seed=5)
    bounded = streaming_perplexity(model, ids, cache_limit=12, policy="window", chunk=chunk)
    recomputed = recompute_perplexity(model, ids, cache_limit=12, chunk=chunk)
    torch.testing.assert_close(bounded.nll[1:], recomputed.nll[1:], atol=ATOL, rtol=0)


@pytest.mark.parametrize("chunk", [1, 5])
def test_one_layer_sinks_equals_a_fresh_forward_over_the_kept_tokens(chunk):
    """One layer: a chunk's logits equal a fresh forward over sinks + the recent tokens it keeps + the chunk."""
    model = make_model("llama", num_layers=1)
    n, limit, n_sink = 45, 14, 3
    ids = tokens(n, seed=6)
    result = streaming_perplexity(model, ids, cache_limit=limit, policy="sinks", n_sink=n_sink, chunk=chunk)
    want = torch.full((n,), float("nan"))
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        q = stop - start
        if stop <= limit:
            window = ids[:stop]
        else:  # the cache evicted down to limit - q: the sinks and the most recent limit - q - n_sink
            window = torch.cat((ids[:n_sink], ids[start - (limit - q - n_sink) : stop]))
        assert window.numel() <= limit
        logits = fresh_logits(model, window)[-q:]
        targets = ids[start + 1 : stop + 1]
        want[start + 1 : start + 1 + targets.numel()] = F.cross_entropy(
            logits[: targets.numel()], targets, reduction="none"
        )
    torch.testing.assert_close(result.nll[1:], want[1:], atol=ATOL, rtol=0)
    assert result.n_sink == n_sink


def test_sinks_and_window_differ_once_the_cache_is_full(llama):
    ids = tokens(60, seed=7)
    sinks = streaming_perplexity(llama, ids, cache_limit=12, policy="sinks", chunk=4)
    window = streaming_perplexity(llama, ids, cache_limit=12, policy="window", chunk=4)
    # identical while nothing is evicted (tokens 1..12), different afterwards
    torch.testing.assert_close(sinks.nll[1:13], window.nll[1:13], atol=ATOL, rtol=0)
    assert (sinks.nll[20:] - window.nll[20:]).abs().max() > 1e-3


# --- full: trained context, memory budget, out of memory -------------------------------------------


def test_full_marks_the_tokens_beyond_the_trained_context(llama):
    n = MAX_POSITIONS + 30
    result = full_perplexity(llama, tokens(n, seed=8), chunk=32)
    assert result.context_length == MAX_POSITIONS
    assert result.beyond_context_from == MAX_POSITIONS + 1  # token 97 is the first predicted from 97 tokens
    assert result.ppl_within_context == pytest.approx(
        math.exp(result.nll[1 : MAX_POSITIONS + 1].double().mean())
    )
    assert result.ppl_beyond_context == pytest.approx(
        math.exp(result.nll[MAX_POSITIONS + 1 :].double().mean())
    )
    data = result.to_dict()
    assert data["beyond_context_from"] == MAX_POSITIONS + 1 and data["ppl_beyond_context"] > 0


def test_full_stops_at_its_memory_budget(llama):
    per_token = kvlimit.kv_bytes_per_token(llama)
    ids = tokens(80, seed=9)
    result = full_perplexity(llama, ids, chunk=10, memory_budget=50 * per_token)
    assert 0 < result.tokens < 80 and result.tokens % 10 == 0
    assert result.requested_tokens == 80 and result.nll.shape == (result.tokens,)
    assert "memory budget" in (result.note or "")
    torch.testing.assert_close(result.nll[1:], stock_nll(llama, ids)[: result.tokens - 1], atol=ATOL, rtol=0)


def test_full_stops_cleanly_on_out_of_memory_and_reraises_other_errors(llama, monkeypatch):
    calls = {"n": 0}
    forward = type(llama).forward

    def failing(self, *args, **kwargs):
        if kwargs["input_ids"].shape[-1] == 10:  # the chunks, not kv_bytes_per_token's one-token probe
            calls["n"] += 1
            if calls["n"] == 3:
                raise RuntimeError(message)
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(type(llama), "forward", failing)
    message = "[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory: you tried"
    result = full_perplexity(llama, tokens(50), chunk=10)
    assert result.tokens == 20 and "out of memory" in (result.note or "")
    calls["n"] = 0
    message = "some other bug"
    with pytest.raises(RuntimeError, match="some other bug"):
        full_perplexity(llama, tokens(50), chunk=10)


# --- arguments, segments, serialisation, plot ----------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda m: streaming_perplexity(m, tokens(20), cache_limit=8, chunk=5), "chunk=5 does not fit"),
        (lambda m: streaming_perplexity(m, tokens(20), cache_limit=8, policy="recompute"), "baseline"),
        (lambda m: streaming_perplexity(m, tokens(20), cache_limit=8, policy="lru"), "not a known policy"),
        (lambda m: streaming_perplexity(m, tokens(20), cache_limit=0), "cache_limit"),
        (lambda m: streaming_perplexity(m, tokens(1), cache_limit=8), "at least 2 tokens"),
        (
            lambda m: streaming_perplexity(m, torch.zeros(2, 5, dtype=torch.long), cache_limit=8),
            "one sequence",
        ),
        (lambda m: streaming_perplexity(m, tokens(20), cache_limit=8, segment=0), "segment"),
        (lambda m: recompute_perplexity(m, tokens(20), cache_limit=8, chunk=9), "larger than the window"),
        (lambda m: full_perplexity(m, tokens(20), memory_budget=0), "memory_budget"),
    ],
)
def test_bad_arguments_raise_value_error(llama, call, match):
    with pytest.raises(ValueError, match=match):
        call(llama)


def test_segments_default_chunk_and_json(llama):
    nll = torch.tensor([float("nan"), 1.0, 1.0, 2.0, 2.0, 3.0])
    assert segment_perplexities(nll, 2) == [(0, 2, math.e), (2, 4, pytest.approx(math.exp(1.5))),
                                            (4, 6, pytest.approx(math.exp(2.5)))]  # fmt: skip
    assert [s[:2] for s in segment_perplexities(nll, 1)] == [(1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]
    assert default_chunk(256, 4) == 64 and default_chunk(1024) == 256 and default_chunk(3, 2) == 1
    result = streaming_perplexity(llama, tokens(50), cache_limit=16, segment=20)
    assert result.chunk == 4 and [s[:2] for s in result.segments] == [(0, 20), (20, 40), (40, 50)]
    data = json.loads(json.dumps(result.to_dict(include_nll=True)))
    assert data["policy"] == "sinks" and data["cache_limit"] == 16 and data["tokens"] == 50
    assert data["nll"][0] is None and len(data["nll"]) == 50 and len(data["segments"]) == 3


def test_moving_average_and_plot(llama, tmp_path):
    x, y = moving_average(torch.tensor([float("nan"), 1.0, 2.0, 3.0, 4.0]), 2)
    assert x.tolist() == [1.5, 2.5, 3.5] and y.tolist() == [1.5, 2.5, 3.5]
    ids = tokens(MAX_POSITIONS + 10, seed=10)
    results = [
        recompute_perplexity(llama, ids, cache_limit=32),
        streaming_perplexity(llama, ids, cache_limit=32, policy="window"),
        streaming_perplexity(llama, ids, cache_limit=48),
        full_perplexity(llama, ids),
    ]
    path = plot_perplexity(results, tmp_path / "ppl.png", smooth=8, title="tiny")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError):
        plot_perplexity([], tmp_path / "none.png")


# --- the command ----------------------------------------------------------------------------------

TEXT = (
    "the quick brown fox jumps over the lazy dog. hello world, hello there; the end. "
    "a lighthouse keeper writes a long story about the sea, the fox and the dog. "
) * 12


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("tiny-ppl"))


@pytest.fixture(scope="module")
def text_file(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("text") / "story.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def parse(*argv: Any) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kvlimit")
    command.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["ppl", *(str(a) for a in argv)])


def ppl(tiny: TinyModel, text: Any, *extra: Any) -> argparse.Namespace:
    return parse(text, "--model", tiny.folder, *extra)


RUNS = ["--cache-limit", "16,24", "--policy", "sinks,window", "--baseline", "recompute,full",
        "--max-tokens", 140, "--chunk", 8, "--segment", 50]  # fmt: skip


def test_command_prints_a_table(tiny, text_file, capsys):
    assert len(tiny.tokenizer(TEXT)["input_ids"]) > 140
    assert command.run(ppl(tiny, text_file, *RUNS)) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[1].split()[:5] == ["run", "limit", "chunk", "tokens", "ppl"]
    labels = [line.split()[0] for line in lines[2:9]]
    assert labels == [
        "recompute@16",
        "sinks@16",
        "window@16",
        "recompute@24",
        "sinks@24",
        "window@24",
        "full",
    ]
    assert "trained context of 128 tokens" in out  # the tiny model's context; 140 tokens go past it
    assert "[7/7] full: ppl" in err


def test_command_json_and_plot(tiny, text_file, tmp_path, capsys):
    plot, nll = tmp_path / "ppl.png", tmp_path / "nll.json"
    argv = ["--cache-limit", "16", "--baseline", "recompute,full", "--max-tokens", 140, "--chunk", 8,
            "--segment", 50, "--json", "--plot", plot, "--save-nll", nll, "-q"]  # fmt: skip
    assert command.run(ppl(tiny, text_file, *argv)) == 0
    out, err = capsys.readouterr()
    assert "[1/3]" not in err and "tokens of" not in err  # --quiet
    data = json.loads(out)
    assert data["tokens"] == 140 and data["context_length"] == 128 and len(data["runs"]) == 3
    by_label = {run["label"]: run for run in data["runs"]}
    assert list(by_label) == ["recompute@16", "sinks@16", "full"]
    for run in data["runs"]:
        assert {"policy", "cache_limit", "tokens", "ppl", "segments", "seconds"} <= set(run)
        assert run["tokens"] == 140 and run["ppl"] > 1 and len(run["segments"]) == 3
    assert by_label["sinks@16"]["ppl_vs_recompute"] == pytest.approx(
        by_label["sinks@16"]["ppl"] / by_label["recompute@16"]["ppl"], rel=1e-4
    )
    assert by_label["full"]["cache_limit"] is None and by_label["full"]["beyond_context_from"] == 129
    assert plot.read_bytes()[:4] == b"\x89PNG"
    saved = json.loads(nll.read_text())
    assert [len(run["nll"]) for run in saved["runs"]] == [140] * 3


def test_command_reads_the_corpus_word_and_byte_limits(tiny, text_file, monkeypatch, capsys):
    import kvlimit.eval.corpus

    monkeypatch.setattr(kvlimit.eval.corpus, "ensure_corpus", lambda: text_file)
    per_token = kvlimit.kv_bytes_per_token(tiny.model)
    args = parse("--model", tiny.folder, "--cache-limit", f"{20 * per_token}B", "--baseline", "none",
                 "--max-tokens", 40, "--json")  # fmt: skip
    assert args.text == "corpus"
    assert command.run(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["text"] == str(text_file)
    assert [(r["label"], r["chunk"]) for r in data["runs"]] == [("sinks@20", 5)]


def test_command_runs_knorm_with_its_settings(tiny, text_file, capsys):
    args = ppl(tiny, text_file, "--policy", "knorm", "--baseline", "none", "--cache-limit", "20",
               "--n-sink", "2", "--n-recent", "4", "--max-tokens", "80", "--json")  # fmt: skip
    assert command.run(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_sink"] == 2 and data["n_recent"] == 4
    (run,) = data["runs"]
    assert run["label"] == "knorm@20" and run["tokens"] == 80 and math.isfinite(run["ppl"])


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--cache-limit", "16", "--chunk", "13"], "--chunk 13 does not fit --cache-limit 16"),
        (["--cache-limit", "16", "--policy", "window", "--chunk", "17"], "does not fit"),
        (["--policy", "lru"], "--policy 'lru'"),
        (["--baseline", "oracle"], "--baseline 'oracle'"),
        (["--baseline", "none,full"], "none cannot be combined"),
        (["--policy", "window", "--baseline", "none", "--cache-limit", "abc"], "--cache-limit"),
        (["--max-tokens", "0"], "--max-tokens"),
        (["--segment", "0"], "--segment"),
        (["--threads", "0"], "--threads"),
        (["--cache-limit", "4", "--n-sink", "4"], "--n-sink 4"),
        (["--n-recent", "2"], f"--n-recent applies to --policy {names(policies_taking('n_recent'))} only"),
        (["--policy", "knorm", "--cache-limit", "16", "--n-recent", "12"], "--n-recent 12 leaves no room"),
        (["--policy", "knorm", "--n-recent", "-1"], "--n-recent must be >= 0"),
        (["--plot", "out.jpg"], "PNG"),
        (["--memory-budget", "lots"], "--memory-budget"),
        (["--cache-limit", "1B"], "--cache-limit"),
    ],
)
def test_command_bad_arguments(tiny, text_file, argv, match):
    with pytest.raises(CLIError, match=match):
        command.run(ppl(tiny, text_file, *argv))


def test_command_bad_text_files(tiny, tmp_path):
    with pytest.raises(CLIError, match="not a file"):
        command.run(ppl(tiny, tmp_path / "missing.txt"))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00abc")
    with pytest.raises(CLIError, match="not UTF-8"):
        command.run(ppl(tiny, binary))
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    with pytest.raises(CLIError, match="empty"):
        command.run(ppl(tiny, empty))


# --- the embedded model -------------------------------------------------------------------------


@pytest.mark.slow
def test_smollm2_sinks_track_recompute_and_window_does_not():
    from kvlimit.eval.corpus import ensure_corpus
    from kvlimit.models import load_model

    loaded = load_model(None)
    ids = loaded.tokenizer(ensure_corpus().read_text(), return_tensors="pt").input_ids[0, :1536]
    results: dict[str, PerplexityResult] = {
        "recompute": recompute_perplexity(loaded.model, ids, cache_limit=256, chunk=64),
        "sinks": streaming_perplexity(loaded.model, ids, cache_limit=256, policy="sinks", chunk=64),
        "window": streaming_perplexity(loaded.model, ids, cache_limit=256, policy="window", chunk=64),
    }
    assert results["sinks"].ppl < 1.10 * results["recompute"].ppl
    assert results["window"].ppl > 1.2 * results["sinks"].ppl
    # identical until the first eviction (the chunk at 256)
    torch.testing.assert_close(
        results["sinks"].nll[1:257], results["recompute"].nll[1:257], atol=1e-3, rtol=0
    )
