"""Attention recall (`kvlimit.eval.attention_recall`, `kvlimit attention-recall`).

Oracles: the reference attention equals the model's own eager attention weights (the mean over each KV
head's query heads); a limit that holds the whole text attends everything (share 1 = oracle 1); a
`sinks` cache attends exactly the set `sinks_set` derives without a run (share = sinks alone); a
share never exceeds its oracle's; a step with recall attends at most the limit per head, and recalled
tokens are tokens the layer no longer keeps.
"""

from __future__ import annotations

import json

import pytest
import torch

import kvlimit
from kvlimit import cli
from kvlimit.eval.attention_recall import attended_sets, attention_recall, reference, sinks_set

from .helpers import TinyModel, build_tiny, make_model


def _ids(model, n=96, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(3, model.config.vocab_size, (1, n), generator=generator)


def test_reference_is_the_models_own_attention():
    model = make_model("llama", attn_implementation="eager")
    ids = _ids(model, 40)
    ref = reference(model, ids)
    out = model(input_ids=ids, output_attentions=True)
    kv_heads = model.config.num_key_value_heads
    for layer, weights in enumerate(out.attentions):
        for t in (0, 7, 39):
            expected = weights[0, :, t, : t + 1].view(kv_heads, -1, t + 1).mean(dim=1)
            torch.testing.assert_close(ref.attention(layer, t), expected.float(), atol=1e-5, rtol=1e-4)


def test_a_limit_holding_the_text_attends_everything():
    model = make_model("qwen2")
    ids = _ids(model)
    (whole,) = attention_recall(model, ids, {"all": kvlimit.LimitConfig.create(128)}, start=30, every=5)
    assert whole.share == pytest.approx(1.0, abs=1e-5) and whole.oracle == pytest.approx(1.0, abs=1e-5)


def test_sinks_attends_the_sinks_set_and_no_share_beats_its_oracle():
    model = make_model("llama")
    ids = _ids(model)
    configs = {
        "sinks": kvlimit.LimitConfig.create(24),
        "window": kvlimit.LimitConfig.create(24, "window"),
        "tova": kvlimit.LimitConfig.create(24, "tova"),
        "recall": kvlimit.LimitConfig.create(32, recall=8),
    }
    results = {r.name: r for r in attention_recall(model, ids, configs, start=40, every=3)}
    assert results["sinks"].share == pytest.approx(results["sinks"].sinks, abs=1e-6)
    assert results["sinks"].attended == pytest.approx(24)
    for r in results.values():
        assert 0 < r.share <= r.oracle + 1e-6 <= 1 + 1e-6
        assert all(0 < s <= 1 + 1e-6 for s in r.per_layer)
    assert results["window"].share < results["window"].sinks + 0.2  # the same size, sinks dropped


def test_sinks_set():
    assert sinks_set(3, 8, 2).tolist() == [True] * 4
    assert sinks_set(10, 6, 2).nonzero()[:, 0].tolist() == [0, 1, 7, 8, 9, 10]


def test_recalled_tokens_are_evicted_ones_and_the_limit_holds():
    model = make_model("llama")
    ids = _ids(model)
    config = kvlimit.LimitConfig.create(32, recall=8)
    cache = kvlimit.build_cache(model, config, max_length=ids.shape[1])
    cache.recall_hook.record_recalled = True
    kvlimit.forward_step(model, cache, ids[:, :20])
    recalled_any = False
    for t in range(20, ids.shape[1]):
        kvlimit.forward_step(model, cache, ids[:, t : t + 1])
        sets = attended_sets(cache, cache.bounded_indices, t)
        for layer in cache.bounded_indices:
            kept = set(cache.kept_token_indices(0, layer))
            assert bool((sets[layer].sum(dim=1) <= 32).all())
            for g in range(sets[layer].shape[0]):
                extra = set(sets[layer][g].nonzero()[:, 0].tolist()) - kept
                assert all(index < t for index in extra)  # recalled: past tokens the layer evicted
                recalled_any = recalled_any or bool(extra)
    assert recalled_any


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("tiny"))


def test_command_table_json_and_plot(tiny, tmp_path, capsys) -> None:
    text = tmp_path / "t.txt"
    text.write_text("the quick brown fox jumps over the lazy dog. hello there. " * 40, encoding="utf-8")
    png = tmp_path / "a.png"
    args = ["attention-recall", str(text), "--model", str(tiny.folder), "--tokens", "120", "--start", "40",
            "--every", "8", "--cache-limit", "32", "--recall", "0,8", "--plot", str(png), "--quiet"]  # fmt: skip
    assert cli.main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["configs"]] == ["sinks@32", "sinks+recall8@32"]
    first = data["configs"][0]
    assert first["share"] == pytest.approx(first["sinks"], abs=1e-6) and first["of_oracle"] <= 1 + 1e-6
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert cli.main(args) == 0
    assert "of oracle" in capsys.readouterr().out
    assert cli.main(["attention-recall", str(text), "--start", "500", "--tokens", "100"]) == 2
    assert "--start" in capsys.readouterr().err
    assert cli.main([*args[:-3], "--recall", "8", "--recall-block", "2,8", "--json"]) == 0  # each block size
    blocks = json.loads(capsys.readouterr().out)["configs"]
    assert [c["name"] for c in blocks] == ["sinks+recall8/b2@32", "sinks+recall8/b8@32"]
    assert blocks[0]["share"] != blocks[1]["share"]  # the block size is what the runs differ in
    assert cli.main([*args[:-3], "--recall", "8", "--recall-block", "3"]) == 2
    assert "--recall-block 3 must divide --recall 8" in capsys.readouterr().err
