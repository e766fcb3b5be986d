"""`--kv-dtype` and `--kv-group` on the command line: generate, plan, info, ppl and bench.

Each command is run on a tiny Llama and its numbers are checked against the library's own formula
(`kvlimit.sizing.row_cost`: limit x stored bytes per token + the float sinks per row), and
against the same command in float where the command compares the two side by side.
"""

from __future__ import annotations

import json

import pytest

import kvlimit
from kvlimit import cli, clitools
from kvlimit.bench.runner import BenchSettings, run_bench

from .helpers import PROMPT, TinyModel, build_tiny, spy_caches

TEXT = " ".join(["the quick brown fox jumps over the lazy dog, hello world, hello there; the end"] * 12)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("quantized-cli"))


def run_json(capsys: pytest.CaptureFixture[str], *argv: object) -> dict:
    assert cli.main([str(a) for a in argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kv_dtype", ["int8", "int4", "fp8"])
def test_generate_stores_the_cache_quantized(tiny, capsys, kv_dtype):
    data = run_json(capsys, "generate", PROMPT, "--model", tiny.folder, "--raw", "--greedy", "--cache-limit", 8,
                    "--max-new-tokens", 16, "--kv-dtype", kv_dtype, "--json", "--quiet")  # fmt: skip
    stored = kvlimit.kv_bytes_per_token(tiny.model, kv_dtype)
    float_bytes = kvlimit.kv_bytes_per_token(tiny.model)
    assert data["kv_dtype"] == kv_dtype and data["stored_bytes_per_token"] == stored < float_bytes
    assert data["kv_bytes_per_token"] == float_bytes
    assert data["cache_bytes"] == 8 * stored + 4 * float_bytes  # sinks (n_sink=4) stay in float
    assert data["generated_tokens"] == 16


def test_generate_byte_budget_counts_the_quantized_bytes(tiny, capsys):
    budget = 8 * 1024
    floats = run_json(capsys, "generate", PROMPT, "--model", tiny.folder, "--raw", "--greedy",
                      "--cache-limit", f"{budget}B", "--max-new-tokens", 4, "--json", "--quiet")  # fmt: skip
    int4 = run_json(capsys, "generate", PROMPT, "--model", tiny.folder, "--raw", "--greedy", "--cache-limit",
                    f"{budget}B", "--max-new-tokens", 4, "--kv-dtype", "int4", "--json", "--quiet")  # fmt: skip
    assert int4["cache_limit"] > 2 * floats["cache_limit"]
    per_token, per_row = kvlimit.sizing.row_cost(
        tiny.model, kvlimit.LimitConfig.create(int4["cache_limit"], kv_dtype="int4")
    )
    assert (
        int4["cache_limit"] * per_token + per_row <= budget < (int4["cache_limit"] + 1) * per_token + per_row
    )


@pytest.mark.parametrize("batching", ["static", "continuous"])
def test_batch_generate_takes_kv_dtype(tiny, tmp_path, monkeypatch, batching):
    caches = spy_caches(monkeypatch)
    prompts = tmp_path / "p.txt"
    prompts.write_text("hello world\nthe lazy dog\nthe quick brown fox\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    assert cli.main(["generate", "--prompts", str(prompts), "--output", str(output), "--model", str(tiny.folder),
                     "--raw", "--greedy", "--max-new-tokens", "6", "--cache-limit", "8", "--kv-dtype", "int8",
                     "--quiet", "--batching", batching]) == 0  # fmt: skip
    lines = output.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and all(json.loads(line)["new_tokens"] == 6 for line in lines)
    assert caches and all(cache.kv_dtype == "int8" for cache in caches)


def test_plan_counts_quantized_rows(tiny, capsys):
    # Limits 32 and 128: at 8 the float sinks outweigh the saving on this 2-layer model (int4 stores
    # 4864 bytes per sequence there, float 4096).
    argv = ["plan", "--model", tiny.folder, "--memory", "8MiB", "--new-tokens", 300, "--cache-limit", "32,128",
            "--json", "--quiet"]  # fmt: skip
    floats = run_json(capsys, *argv)
    int4 = run_json(capsys, *argv, "--kv-dtype", "int4", "--kv-group", 16)
    config = kvlimit.LimitConfig.create(32, kv_dtype="int4", kv_group=16)
    per_token, per_row = kvlimit.sizing.row_cost(tiny.model, config)
    assert int4["stored_bytes_per_token"] == per_token and int4["sink_bytes_per_row"] == per_row
    assert (
        int4["dequantized_bytes_per_token"] == kvlimit.kv_bytes_per_token(tiny.model) // 2
    )  # one of 2 layers
    for q, f, limit in zip(int4["rows"], floats["rows"], (32, 128), strict=True):
        assert q["cache_bytes_per_sequence"] == limit * per_token + per_row < f["cache_bytes_per_sequence"]
        # the probed line of that limit: its cache part exact, and the rows planned from it
        (line,) = (g for g in int4["growth"] if g["cache_limit"] == limit)
        assert line["cache_row_bytes"] == q["cache_bytes_per_sequence"] <= line["per_row_bytes"]
        assert line["probed_sequences"][:2] == [1, 2] and len(line["probed_bytes"]) == len(
            line["probed_sequences"]
        )
        assert q["sequences"] == (int4["memory"] - line["fixed_bytes"]) // line["per_row_bytes"]
    assert int4["stock"]["cache_bytes_per_sequence"] == floats["stock"]["cache_bytes_per_sequence"]
    assert (
        cli.main(["plan", "--model", str(tiny.folder), "--memory", "8MiB", "--kv-dtype", "int8", "--quiet"])
        == 0
    )
    assert "bounded rows store int8" in capsys.readouterr().out


def test_info_shows_the_quantized_bytes_per_token(tiny, capsys):
    facts = run_json(capsys, "info", "--model", tiny.folder, "--json", "--quiet")
    quantized = facts["kv_bytes_per_token_quantized"]
    assert set(quantized) == {"int8", "int4", "fp8", "k8v4"}
    assert (
        quantized["int4"]
        < quantized["k8v4"]
        < quantized["int8"]
        == quantized["fp8"]
        < facts["kv_bytes_per_token"]
    )
    assert 2 * quantized["k8v4"] == quantized["int8"] + quantized["int4"]  # int8 keys, int4 values
    assert quantized == {name: kvlimit.kv_bytes_per_token(tiny.model, name) for name in quantized}


def test_ppl_compares_each_dtype_with_float_side_by_side(tiny, tmp_path, capsys):
    text = tmp_path / "text.txt"
    text.write_text(TEXT, encoding="utf-8")
    data = run_json(capsys, "ppl", text, "--model", tiny.folder, "--cache-limit", 16, "--policy", "sinks,tova",
                    "--kv-dtype", "none,int8,int4", "--baseline", "none", "--max-tokens", 120, "--chunk", 8,
                    "--json", "-q")  # fmt: skip
    runs = {run["label"]: run for run in data["runs"]}
    assert list(runs) == [
        "sinks@16", "sinks@16:int8", "sinks@16:int4", "tova@16", "tova@16:int8", "tova@16:int4"
    ]  # fmt: skip
    for label, run in runs.items():
        if run["kv_dtype"] is not None:
            float_run = runs[label.rpartition(":")[0]]
            assert run["ppl_vs_float"] == pytest.approx(run["ppl"] / float_run["ppl"], rel=1e-4)
            assert run["ppl"] != float_run["ppl"]  # the quantized run really ran quantized


def test_bench_runs_quantized_variants_beside_float(tiny):
    settings = BenchSettings(cache_limit=8, tokens=24, policies=("sinks", "sinks:int8"), interleaved_rounds=4,
                             recompute_steps=1, warmup_rounds=1, far_steps=False, run_stock=True)  # fmt: skip
    result = run_bench(tiny.model, settings)
    quantized, floats = result["ratios"]["kvlimit-sinks:int8"], result["ratios"]["kvlimit-sinks"]
    assert quantized["cache_bytes_exact"] and floats["cache_bytes_exact"]
    per_token, per_row = kvlimit.sizing.row_cost(tiny.model, kvlimit.LimitConfig.create(8, kv_dtype="int8"))
    assert quantized["cache_bytes"] == 8 * per_token + per_row
    assert quantized["vs_float_bytes"] == pytest.approx(quantized["cache_bytes"] / floats["cache_bytes"])
    assert quantized["vs_float_step"] is not None and quantized["vs_float_paired"] is not None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["generate", PROMPT, "--kv-dtype", "int3"], "--kv-dtype 'int3' is not one of none, int8, int4, fp8"),
        (["generate", PROMPT, "--kv-group", "16"], "--kv-group goes with --kv-dtype"),
        (
            ["generate", PROMPT, "--kv-dtype", "int4", "--kv-group", "7"],
            "--kv-group must be an even int >= 2",
        ),
        (["plan", "--kv-dtype", "bf16"], "--kv-dtype 'bf16' is not one of"),
        (["bench", "--kv-dtype", "int8,int8"], "--kv-dtype names a storage twice"),
        (["ppl", "--kv-dtype", "int9"], "--kv-dtype 'int9' is not one of"),
    ],
)
def test_bad_kv_options_fail_before_loading(capsys, monkeypatch, argv, message):
    monkeypatch.setattr(clitools, "load_from_args", lambda *a, **k: pytest.fail("loaded a model"))
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_help_names_the_options(capsys):
    for command in ("generate", "plan", "ppl", "bench"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        assert "--kv-dtype" in capsys.readouterr().out
