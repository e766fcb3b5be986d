"""`kvlimit throughput`: at a fixed cache budget, each side runs the largest batch that fits.

Speed is measured by the command (ratios in one run), never asserted here; what is exact is: the
batches the budget allows, the cache bytes each run ends with, every row's tokens made.
"""

from __future__ import annotations

import json

import kvlimit
from kvlimit import cli
from kvlimit.bench.throughput import ThroughputSettings, default_sweep, largest_batch, run_throughput

from .helpers import make_model


def test_largest_batch() -> None:
    assert largest_batch(1000, 100, 256) == (10, True)
    assert largest_batch(1000, 100, 4) == (4, True)
    assert largest_batch(50, 100, 256) == (1, False)  # one sequence runs anyway, flagged
    assert list(default_sweep(12)) == [1, 2, 4, 8, 12] and list(default_sweep(1)) == [1]


def test_each_side_gets_the_batch_its_cache_allows() -> None:
    model = make_model("llama")
    per_token = kvlimit.kv_bytes_per_token(model)
    budget = 40 * per_token * 3  # three sequences of a 40-token cache
    settings = ThroughputSettings(
        memory=budget, tokens=24, limits=(8, 40), prompt_length=16, sweep=(1, 2), sweep_steps=2
    )
    result = run_throughput(model, settings)
    runs = {run["name"]: run for run in result["runs"]}
    assert runs["kvlimit-sinks@8"]["batch"] == 15 and runs["kvlimit-sinks@40"]["batch"] == 3
    assert runs["stock"]["batch"] == 3  # (16 + 24) tokens per row at the end
    for name, limit in (("kvlimit-sinks@8", 8), ("kvlimit-sinks@40", 40)):
        assert runs[name]["cache_bytes"] == runs[name]["batch"] * limit * per_token
    assert runs["stock"]["cache_bytes"] == 3 * (16 + 24 - 1) * per_token  # the last token is never stored
    assert set(result["ratios"]) == set(runs) and result["ratios"]["stock"] == 1.0
    assert [point["batch"] for point in result["sweep"]] == [1, 2]


def test_the_command_writes_its_report_json_and_plot(tmp_path, capsys) -> None:
    from .helpers import build_tiny

    tiny = build_tiny(tmp_path)
    out, plot = tmp_path / "t.json", tmp_path / "t.png"
    assert cli.main(["throughput", "--model", str(tiny.folder), "--memory", "64KiB", "--tokens", "12",
                     "--cache-limit", "8", "--sweep", "1,2", "--json", str(out), "--plot", str(plot), "--quiet"]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "kvlimit-sinks@8" in text and "stock" in text and "steady decode rate" in text
    data = json.loads(out.read_text())
    assert data["schema"] == "kvlimit-throughput/1" and len(data["runs"]) == 2
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_workloads_give_every_system_the_same_bytes(tmp_path) -> None:
    """`--workloads`: each system's batch is what the budget allows, every row's tokens are made (end of
    sequence ignored), and no system holds more keys and values than the budget."""
    from kvlimit.bench.workloads import WorkloadSettings, plot_workloads, run_workloads, workload_lines

    from .helpers import build_tiny

    tiny = build_tiny(tmp_path)
    per_token = kvlimit.kv_bytes_per_token(tiny.model)
    budget = 5 * 16 * per_token  # five rows of a 16-token cache
    settings = WorkloadSettings(memory=budget, workloads=("a", "b"), cache_limit=16, prompts=6, new_tokens=10,
                                page_size=8)  # fmt: skip
    result = run_workloads(tiny.model, tiny.tokenizer, settings)
    runs = {(run["workload"], run["system"]): run for run in result["runs"]}
    assert len(runs) == 8
    for workload in ("a", "b"):
        assert runs[(workload, "continuous")]["batch"] == 5  # prompts prefilled in its free rows
        assert runs[(workload, "continuous")]["given"] == {"prefill_rows": 0}
        assert runs[(workload, "static")]["batch"] == 5
        assert runs[(workload, "generate_batch")]["batch"] == 10  # pages of 8 tokens
        for system in ("continuous", "static", "generate_batch"):
            assert runs[(workload, system)]["kv_bytes"] <= budget
    for system in ("continuous", "static", "stock", "generate_batch"):
        assert runs[("a", system)]["new_tokens"] == 6 * 10  # end of sequence ignored: every token made
    given = runs[("a", "generate_batch")]["given"]  # its best configuration, from a sweep, reported
    assert set(given["swept_tokens_per_s"]) == {"default", "256", "512", "1024"}
    best = max(given["swept_tokens_per_s"], key=given["swept_tokens_per_s"].get)
    assert str(given["max_batch_tokens"] or "default") == best and given["auto_switch_to_flash"] is False
    assert set(result["ratios"]["a"]) == {"static", "stock", "generate_batch"}
    assert any("kvlimit continuous" in line for line in workload_lines(result))
    plot_workloads(result, str(tmp_path / "w.png"))
    assert (tmp_path / "w.png").stat().st_size > 10_000


def test_workloads_prefill_rows_hold_bytes_beside_the_rows(tmp_path, capsys) -> None:
    """`--prefill-rows N` gives kvlimit continuous N prefill rows, each a decoding row less at the budget;
    without --workloads it is refused by name."""
    from .helpers import build_tiny

    tiny = build_tiny(tmp_path)
    budget = 5 * 16 * kvlimit.kv_bytes_per_token(tiny.model)
    out = tmp_path / "w.json"
    args = ["throughput", "--model", str(tiny.folder), "--workloads", "a", "--systems", "continuous",
            "--num-prompts", "6", "--tokens", "6", "--cache-limit", "16", "--memory", f"{budget}B", "--quiet"]  # fmt: skip
    assert cli.main([*args, "--prefill-rows", "2", "--json", str(out)]) == 0
    run = json.loads(out.read_text())["runs"][0]
    assert (run["batch"], run["given"]) == (3, {"prefill_rows": 2})
    assert run["new_tokens"] == 6 * 6 and run["kv_bytes"] <= budget
    assert cli.main(["throughput", "--model", str(tiny.folder), "--prefill-rows", "1", "--quiet"]) == 2
    assert "--prefill-rows go with --workloads" in capsys.readouterr().err
    assert cli.main([*args, "--prefill-rows", "-1"]) == 2
    assert "--prefill-rows" in capsys.readouterr().err


def test_compile_runs_the_compiled_step_and_is_refused_with_workloads(tmp_path, capsys, monkeypatch) -> None:
    import torch
    from transformers.generation.configuration_utils import CompileConfig

    from kvlimit.integrations import hf

    from .helpers import build_tiny

    def graph_only(given, device):
        config = CompileConfig(backend="aot_eager", fullgraph=True, dynamic=False, mode="default")
        config._compile_all_devices = True
        return config

    monkeypatch.setattr(hf, "compile_config_for", graph_only)
    torch._dynamo.reset()
    tiny = build_tiny(tmp_path)
    out = tmp_path / "t.json"
    assert cli.main(["throughput", "--model", str(tiny.folder), "--memory", "64KiB", "--tokens", "12",
                     "--cache-limit", "8", "--compile", "--json", str(out), "--quiet"]) == 0  # fmt: skip
    data = json.loads(out.read_text())
    assert data["settings"]["compile"] is True
    run = next(r for r in data["runs"] if r["name"] == "kvlimit-sinks@8")
    assert run["cache_bytes"] == run["batch"] * 8 * kvlimit.kv_bytes_per_token(tiny.model)
    assert (
        cli.main(["throughput", "--model", str(tiny.folder), "--workloads", "a", "--compile", "--quiet"]) == 2
    )
    assert "--compile does not apply to --workloads" in capsys.readouterr().err
