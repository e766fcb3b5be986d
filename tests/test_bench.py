"""kvlimit.bench: the runner's structure, exact cache sizes, ratios from the measurements, the command.

No timing assertions: the machines running the tests are noisy. The tiny random Llama runs with one
torch thread here (oversubscribed OpenMP threads on a loaded 2-core machine are slower, not faster).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
from collections.abc import Iterator
from typing import Any

import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

import kvlimit
from kvlimit.bench import BenchSettings, compute_ratios, evaluate_targets, plot_bench, report_lines, run_bench
from kvlimit.bench import command as bench_command
from kvlimit.clitools import CLIError

from .helpers import make_model

LIMIT = 16
TOKENS = 48
PROMPT = 8
BUCKETS = 6


@pytest.fixture(scope="module")
def one_thread() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def model(one_thread: None) -> Any:
    torch.manual_seed(0)
    return make_model("llama")


@pytest.fixture(scope="module")
def result(model: Any) -> dict[str, Any]:
    settings = BenchSettings(
        cache_limit=LIMIT,
        tokens=TOKENS,
        policies=("sinks", "window"),
        prompt_length=PROMPT,
        buckets=BUCKETS,
        interleaved_rounds=6,
        recompute_steps=2,
        warmup_rounds=1,
        cache_samples=TOKENS,  # a sample at every token
        keep_raw=True,
    )
    return run_bench(model, settings)


def test_result_structure(result: dict[str, Any]) -> None:
    assert result["schema"] == "kvlimit-bench/1"
    assert set(result) >= {
        "settings",
        "model",
        "machine",
        "runs",
        "interleaved",
        "ratios",
        "targets",
        "wall_s",
    }
    assert list(result["runs"]) == ["kvlimit-sinks", "kvlimit-window", "stock", "recompute"]
    assert result["settings"]["bucket_size"] == TOKENS // BUCKETS
    assert result["machine"]["torch"] == torch.__version__
    json.dumps(result)  # JSON-ready as returned
    for name in ("kvlimit-sinks", "kvlimit-window", "stock"):
        run = result["runs"][name]
        assert run["tokens"] == TOKENS
        assert len(run["latency_ms"]) == TOKENS - 1  # token 0 comes with the prefill
        assert all(x > 0 for x in run["latency_ms"])
        assert run["prefill_s"] > 0
        buckets = run["buckets"]
        assert len(buckets) == BUCKETS
        assert buckets[0]["start"] == 1 and buckets[-1]["end"] == TOKENS
        assert sum(b["n"] for b in buckets) == TOKENS - 1
        for b in buckets:
            assert b["median_ms"] == pytest.approx(
                statistics.median(run["latency_ms"][b["start"] - 1 : b["end"] - 1])
            )
        assert run["memory"]["rss_peak"] >= run["memory"]["rss_start"] > 0
    block = result["interleaved"]
    assert block["kv_length"] == LIMIT
    assert block["far_length"] == PROMPT + TOKENS
    assert set(block["variants"]) == {
        "kvlimit-sinks",
        "kvlimit-sinks@T",
        "kvlimit-window",
        "kvlimit-window@T",
        "stock",
        "stock@T",
    }
    assert all(v["n"] == 6 for v in block["variants"].values())
    recompute = result["runs"]["recompute"]
    assert recompute["steps"] == 2 and recompute["window"] == LIMIT
    assert recompute["cache"]["final_bytes"] == 0


def test_kvlimit_cache_bytes_are_exactly_the_limit(result: dict[str, Any], model: Any) -> None:
    per_token = kvlimit.kv_bytes_per_token(model)
    assert result["model"]["kv_bytes_per_token"] == per_token
    for name in ("kvlimit-sinks", "kvlimit-window"):
        cache = result["runs"][name]["cache"]
        assert cache["token"] == list(range(TOKENS))
        # allocated once, L slots: exactly L x bytes per token all along, and once full it holds L tokens
        assert set(cache["bytes"]) == {LIMIT * per_token}
        for token, stored in zip(cache["token"], cache["stored_tokens"], strict=True):
            assert stored == min(LIMIT, PROMPT + token)
        assert cache["final_bytes"] == LIMIT * per_token
        assert result["runs"][name]["cache"]["stats"]["evicted"] > 0


def test_stock_cache_grows_linearly(result: dict[str, Any], model: Any) -> None:
    per_token = kvlimit.kv_bytes_per_token(model)
    cache = result["runs"]["stock"]["cache"]
    for token, size, stored in zip(cache["token"], cache["bytes"], cache["stored_tokens"], strict=True):
        assert stored == PROMPT + token
        assert size == (PROMPT + token) * per_token
    assert cache["final_bytes"] == (PROMPT + TOKENS - 1) * per_token


def test_ratios_come_from_the_measurements(result: dict[str, Any]) -> None:
    runs = result["runs"]
    variants = result["interleaved"]["variants"]
    size = result["settings"]["bucket_size"]
    assert compute_ratios(result) == result["ratios"]
    for name in ("kvlimit-sinks", "kvlimit-window"):
        raw = runs[name]["latency_ms"]  # raw[j] is token j + 1
        at_limit = statistics.median(raw[LIMIT - 1 : LIMIT - 1 + size])
        at_end = statistics.median(raw[TOKENS - size - 1 :])
        r = result["ratios"][name]
        assert r["flatness_runs"] == pytest.approx(at_end / at_limit)
        assert r["flatness"] == pytest.approx(
            variants[f"{name}@T"]["median_ms"] / variants[name]["median_ms"]
        )
        assert r["speedup_at_T"] == pytest.approx(
            variants["stock@T"]["median_ms"] / variants[f"{name}@T"]["median_ms"]
        )
        assert r["stock_slowdown"] == pytest.approx(
            variants["stock@T"]["median_ms"] / variants["stock"]["median_ms"]
        )
        assert r["eviction_overhead"] == pytest.approx(
            variants[name]["median_ms"] / variants["stock"]["median_ms"]
        )
        assert r["recompute_speedup"] == pytest.approx(
            runs["recompute"]["summary"]["median_ms"] / variants[name]["median_ms"]
        )
        assert r["cache_ratio"] == pytest.approx((PROMPT + TOKENS - 1) / LIMIT)
        assert r["cache_bytes_exact"] is True
        targets = result["targets"][name]
        assert targets["cache_bytes_exact"]["met"] is True
        assert targets["cache_ratio"]["met"] is False  # 55 / 16 tokens: far below 15x
    lines = report_lines(result)
    assert any("(a) flatness" in line for line in lines)
    assert any("(d) stock cache bytes" in line for line in lines)


def _fake_result(
    kv_step: float, stock_step: float, at_limit: float, at_end: float, recompute: float
) -> dict[str, Any]:
    def window(median: float) -> dict[str, Any]:
        return {"start": 0, "end": 1, "n": 1, "median_ms": median}

    return {
        "settings": {"cache_limit": 1024},
        "model": {"kv_bytes_per_token": 100},
        "runs": {
            "kvlimit-sinks": {
                "kind": "kvlimit",
                "windows": {"at_limit": window(at_limit), "at_end": window(at_end), "steady": window(at_end)},
                "cache": {"final_bytes": 102400},
            },
            "stock": {
                "kind": "stock",
                "windows": {"around_limit": window(stock_step)},
                "cache": {"final_bytes": 1_600_000},
            },
            "recompute": {"kind": "recompute", "summary": {"median_ms": recompute}},
        },
        "interleaved": {
            "variants": {"kvlimit-sinks": {"median_ms": kv_step}, "stock": {"median_ms": stock_step}},
            "per_round_ratio": {"kvlimit-sinks/stock": {"median_ms": 1.01}},
        },
    }


def test_compute_ratios_and_targets_on_known_numbers() -> None:
    result = _fake_result(kv_step=10.4, stock_step=10.0, at_limit=10.0, at_end=10.3, recompute=300.0)
    r = compute_ratios(result)["kvlimit-sinks"]
    assert r["eviction_overhead"] == pytest.approx(1.04)
    assert r["eviction_overhead_paired"] == 1.01
    assert r["flatness"] == pytest.approx(1.03)
    assert r["recompute_speedup"] == pytest.approx(300 / 10.4)
    assert r["recompute_speedup_runs"] == pytest.approx(300 / 10.3)
    assert r["cache_ratio"] == pytest.approx(15.625)
    assert r["cache_bytes_exact"] is True
    result["ratios"] = compute_ratios(result)
    met = {k: v["met"] for k, v in evaluate_targets(result)["kvlimit-sinks"].items()}
    assert met == {
        "eviction_overhead": True,
        "flatness": True,
        "cache_bytes_exact": True,
        "cache_ratio": True,
        "recompute_speedup": True,
    }
    slow = _fake_result(kv_step=12.0, stock_step=10.0, at_limit=10.0, at_end=11.0, recompute=100.0)
    slow["ratios"] = compute_ratios(slow)
    met = {k: v["met"] for k, v in evaluate_targets(slow)["kvlimit-sinks"].items()}
    assert (
        met["eviction_overhead"] is False and met["flatness"] is False and met["recompute_speedup"] is False
    )


def test_plot_writes_a_png(result: dict[str, Any], tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bench.png"
    plot_bench(result, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "bench.png.tmp").exists()


# --- the command ---------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kvlimit")
    bench_command.register(parser.add_subparsers(dest="command"))
    return parser


@pytest.fixture(scope="module")
def model_folder(model: Any, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("tiny-llama")
    words = ["once", "upon", "a", "time", "there", "was", "an", "old", "lighthouse", "keeper"]
    vocab = {
        "<pad>": 0,
        "<s>": 1,
        "</s>": 2,
        **{w: i + 3 for i, w in enumerate(words)},
        "<unk>": 3 + len(words),
    }
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="<unk>", pad_token="<pad>", bos_token="<s>", eos_token="</s>"
    )
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _bench_args(folder: pathlib.Path, *extra: str) -> list[str]:
    return [
        "bench",
        "--model",
        str(folder),
        "--cache-limit",
        "12",
        "--tokens",
        "20",
        "--interleaved-rounds",
        "3",
        "--recompute-steps",
        "1",
        "--prompt",
        "once upon a time there was",
        "--threads",
        "1",
        *extra,
    ]


def test_command_json_on_stdout_and_plot(
    model_folder: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "bench.png"
    args = _parser().parse_args(_bench_args(model_folder, "--json", "--plot", str(png)))
    assert args.handler(args) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)  # stdout holds exactly one JSON object
    assert data["settings"]["prompt_length"] == 6
    assert data["settings"]["cache_limit"] == 12
    assert data["runs"]["kvlimit-sinks"]["cache"]["final_stored_tokens"] == 12
    assert data["ratios"]["kvlimit-sinks"]["cache_bytes_exact"] is True
    assert "(a) flatness" in err  # the report goes to stderr
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_command_json_file_keeps_report_on_stdout(
    model_folder: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "bench.json"
    args = _parser().parse_args(
        _bench_args(model_folder, "--json", str(target), "--no-stock", "--policy", "window", "-q")
    )
    assert args.handler(args) == 0
    out, _ = capsys.readouterr()
    assert "(a) flatness" in out and f"JSON written to {target}" in out
    data = json.loads(target.read_text(encoding="utf-8"))
    assert list(data["runs"]) == ["kvlimit-window", "recompute"]
    assert data["ratios"]["kvlimit-window"]["cache_ratio"] is None  # no stock run to compare with


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--policy", "sinks,lru"], "not a known policy"),
        (["--policy", "sinks,sinks"], "twice"),
        (["--tokens", "1"], "--max-new-tokens must be >= 2"),
        (["--cache-limit", "1"], "--cache-limit must be >= 2"),
        (["--recompute-steps", "5", "--interleaved-rounds", "2"], "cannot exceed --interleaved-rounds"),
        (["--plot", "out.jpg"], "--plot must name a .png file"),
        (["--json", "/no/such/folder/x.json"], "does not exist"),
    ],
)
def test_command_errors_before_loading(extra: list[str], message: str, tmp_path: pathlib.Path) -> None:
    # the model path does not exist: these errors must come before any load
    args = _parser().parse_args(["bench", "--model", str(tmp_path / "missing"), *extra])
    with pytest.raises(CLIError, match=message):
        args.handler(args)


def test_cli_registers_bench() -> None:
    cli = pytest.importorskip("kvlimit.cli")
    parser = cli.build_parser()
    assert bench_command in cli.SUBCOMMANDS
    args = parser.parse_args(["bench", "--tokens", "100", "--json"])
    assert args.handler is bench_command.run and args.json == "-"


def test_command_compile_times_the_compiled_step(
    model_folder: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--compile`: kvlimit's runs and its interleaved steps go through the compiled step (the graph-only
    backend here, as in tests/test_compile.py); the cache is the same, its bytes exactly the limit's."""
    from transformers.generation.configuration_utils import CompileConfig

    from kvlimit.bench import runner

    made = []

    def graph_only(given: Any, device: Any) -> Any:
        made.append(device)
        config = CompileConfig(backend="aot_eager", fullgraph=True, dynamic=False, mode="default")
        config._compile_all_devices = True
        return config

    monkeypatch.setattr(runner, "compile_config_for", graph_only)
    torch._dynamo.reset()
    args = _parser().parse_args(_bench_args(model_folder, "--json", "--compile"))
    assert args.handler(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"]["compile"] is True and made
    run = data["runs"]["kvlimit-sinks"]
    assert run["cache"]["final_stored_tokens"] == 12 and run["tokens"] == 20
    assert data["ratios"]["kvlimit-sinks"]["cache_bytes_exact"] is True
