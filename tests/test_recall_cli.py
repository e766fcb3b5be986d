"""The recall tier on the command line: generate (one prompt and --prompts), plan, info, ppl, needle
and bench, on a tiny Llama.

The numbers are checked against the library: the store's bytes against a real run's store
(`BoundedCache.recall_nbytes`) and the block formula (`kvlimit.sizing.recall_block_bytes`), the
attended bytes against the same limit without recall; labels and variants against what was asked.
"""

from __future__ import annotations

import json

import pytest
import torch

import kvlimit
from kvlimit import cli, clitools
from kvlimit.bench.command import settings_from_args
from kvlimit.cache.recall import BLOCK, block_for
from kvlimit.eval.perplexity import streaming_perplexity
from kvlimit.sizing import recall_block_bytes

from .helpers import PROMPT, TinyModel, build_tiny, output_cache, spy_caches

TEXT = " ".join(["the quick brown fox jumps over the lazy dog, hello world, hello there; the end"] * 12)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("recall-cli"))


def run_json(capsys: pytest.CaptureFixture[str], *argv: object) -> dict:
    assert cli.main([str(a) for a in argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_generate_reports_the_store_apart_from_the_cache(tiny, capsys):
    common = ["generate", PROMPT, "--model", tiny.folder, "--raw", "--greedy", "--cache-limit", 16,
              "--max-new-tokens", 40, "--ignore-eos", "--json", "--quiet"]  # fmt: skip
    plain = run_json(capsys, *common)
    recalled = run_json(capsys, *common, "--recall", 8, "--recall-dtype", "int8")
    assert recalled["cache_bytes"] == plain["cache_bytes"]  # attended bytes: the same limit
    assert recalled["recall"] == 8 and recalled["recall_tokens"] == recalled["cache_stats"]["evicted"] > 0
    per_block = recall_block_bytes(tiny.model, [0, 1], "int8", block_for(8))
    blocks = -(-recalled["recall_tokens"] // block_for(8))
    assert recalled["recall_bytes"] == blocks * per_block
    assert plain["recall"] == 0 and plain["recall_bytes"] == 0
    assert cli.main([str(a) for a in common[:-2]] + ["--recall", "8", "--quiet"]) == 0
    assert "recall" not in capsys.readouterr().err  # --quiet: no summary
    assert cli.main([str(a) for a in common[:-2]] + ["--recall", "8"]) == 0
    summary = capsys.readouterr().err
    assert "recall     8 of the 16 slots recalled; store" in summary and "apart from the KV cache" in summary


@pytest.mark.parametrize("batching", ["static", "continuous"])
def test_batch_generate_takes_recall(tiny, tmp_path, monkeypatch, batching):
    caches = spy_caches(monkeypatch)
    prompts = tmp_path / "p.txt"
    prompts.write_text("hello world\nthe lazy dog\nthe quick brown fox\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    assert cli.main(["generate", "--prompts", str(prompts), "--output", str(output), "--model", str(tiny.folder),
                     "--raw", "--greedy", "--max-new-tokens", "20", "--ignore-eos", "--cache-limit", "12",
                     "--recall", "4", "--recall-store", "8", "--recall-block", "2", "--quiet", "--batching", batching]) == 0  # fmt: skip
    lines = output.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and all(json.loads(line)["new_tokens"] == 20 for line in lines)
    assert caches and all(
        c.recall is not None and c.recall.slots == 4 and c.recall.block == 2 for c in caches
    )
    assert all(c.recall.tokens() <= 8 * len(c.recall.rows) for c in caches)  # the bound, per row


@pytest.mark.parametrize("block", [None, 8])
def test_plan_predicts_the_store_a_run_holds(tiny, capsys, block):
    blocks = [] if block is None else ["--recall-block", block]
    argv = ["plan", "--model", tiny.folder, "--memory", "8MiB", "--max-new-tokens", 50, "--prompt-tokens", 10,
            "--cache-limit", "16,32", *blocks, "--recall", 8, "--json", "--quiet"]  # fmt: skip
    plan = run_json(capsys, *argv)
    plain = run_json(capsys, *argv[: -4 - len(blocks)], "--json", "--quiet")
    ids = tiny.tokenizer("the quick brown fox jumps over the lazy dog again", return_tensors="pt")[
        "input_ids"
    ]
    ids = ids[:, :10]
    assert ids.shape[1] == 10
    for row, plain_row in zip(plan["rows"], plain["rows"], strict=True):
        out = kvlimit.generate(tiny.model, input_ids=ids, cache_limit=row["cache_limit"], recall=8,
                               recall_block=block, max_new_tokens=50, min_new_tokens=50, do_sample=False,
                               return_dict_in_generate=True)  # fmt: skip
        assert row["recall_bytes_per_sequence"] == output_cache(out).recall_nbytes() > 0
        assert output_cache(out).recall.block == (block or block_for(8))
        assert row["cache_bytes_per_sequence"] == plain_row["cache_bytes_per_sequence"]
        # on the CPU the store shares the budget: the rows fit beside the store, by the plan's own line
        (line,) = (g for g in plan["growth"] if g["cache_limit"] == row["cache_limit"])
        room = plan["memory"] - line["fixed_bytes"]
        assert row["sequences"] == room // (line["per_row_bytes"] + row["recall_bytes_per_sequence"])
    assert (
        cli.main(["plan", "--model", str(tiny.folder), "--memory", "8MiB", "--recall", "8", "--quiet"]) == 0
    )
    table = capsys.readouterr().out
    assert "recall store per sequence" in table and "recall: 8 slots of each limit recalled" in table


def test_info_gives_the_store_bytes_per_token(tiny, capsys):
    facts = run_json(capsys, "info", "--model", tiny.folder, "--json", "--quiet")
    recall = facts["recall"]
    assert recall["supported"] and recall["block"] == BLOCK  # --recall defaults to one block's slots
    per_token = recall["store_bytes_per_token"]
    assert per_token["int4"] < per_token["int8"] < per_token["bfloat16"] < per_token["model dtype"]
    assert per_token["bfloat16"] == per_token["float16"] == per_token["model dtype"] / 2  # float32 model
    assert per_token["int8"] == recall_block_bytes(tiny.model, [0, 1], "int8", BLOCK) / BLOCK


def test_ppl_runs_recall_tiers_beside_the_policy(tiny, tmp_path, capsys):
    text = tmp_path / "text.txt"
    text.write_text(TEXT, encoding="utf-8")
    data = run_json(capsys, "ppl", text, "--model", tiny.folder, "--cache-limit", 16, "--policy", "sinks,tova",
                    "--recall", "0,0.25,8", "--baseline", "none", "--max-tokens", 120, "--chunk", 4,
                    "--n-sink", 2, "--json", "-q")  # fmt: skip
    runs = {run["label"]: run for run in data["runs"]}
    assert list(runs) == ["sinks@16", "sinks+recall4@16", "sinks+recall8@16", "tova@16"]
    assert runs["sinks+recall4@16"]["ppl"] != runs["sinks@16"]["ppl"]  # the tier really ran
    assert runs["sinks+recall8@16"]["peak_cache_bytes"] == runs["sinks@16"]["peak_cache_bytes"]


def test_ppl_runs_each_recall_placement(tiny, tmp_path, capsys):
    text = tmp_path / "text.txt"
    text.write_text(TEXT, encoding="utf-8")
    data = run_json(capsys, "ppl", text, "--model", tiny.folder, "--cache-limit", 16, "--recall", "0,4",
                    "--recall-positions", "distance,Full,packed", "--baseline", "none", "--max-tokens", 120,
                    "--chunk", 4, "--n-sink", 2, "--json", "-q")  # fmt: skip
    runs = {run["label"]: run["ppl"] for run in data["runs"]}
    assert list(runs) == ["sinks@16", "sinks+recall4@16", "sinks+recall4/full@16", "sinks+recall4/packed@16"]
    assert len(set(runs.values())) == 4  # each placement really ran: the recalled keys sit elsewhere
    ids = torch.tensor(tiny.tokenizer(TEXT)["input_ids"][:120])
    for place in ("distance", "full", "packed"):  # the library's own run of each placement
        config = kvlimit.LimitConfig.create(16, "sinks", n_sink=2, recall=4, recall_positions=place)
        label = "sinks+recall4@16" if place == "distance" else f"sinks+recall4/{place}@16"
        expected = streaming_perplexity(tiny.model, ids, cache_limit=config, chunk=4)
        assert expected.label == label and runs[label] == pytest.approx(expected.ppl, rel=1e-4)


def test_needle_runs_recall_tiers_for_positional_policies(tiny, tmp_path, capsys):
    text = tmp_path / "filler.txt"
    text.write_text(TEXT * 3, encoding="utf-8")
    data = run_json(capsys, "needle", text, "--model", tiny.folder, "--context", 100, "--cache-limit", "16,24",
                    "--policy", "sinks,tova", "--recall", "0,0.5", "--depths", "0.5", "--numbers", 1,
                    "--no-full", "--json", "--quiet")  # fmt: skip
    assert data["runs"] == [
        "sinks@16",
        "sinks+recall8@16",
        "tova@16",
        "sinks@24",
        "sinks+recall12@24",
        "tova@24",
    ]


def test_bench_variants_take_recall(tiny):
    parser = cli.build_parser()
    args = parser.parse_args(["bench", "--cache-limit", "32", "--policy", "sinks,tova", "--recall", "0,0.25",
                              "--kv-dtype", "none,int8"])  # fmt: skip
    settings = settings_from_args(args)
    assert settings.policies == (
        "sinks",
        "sinks:int8",
        "sinks+recall8",
        "sinks+recall8:int8",
        "tova",
        "tova:int8",
    )
    config = settings.config("sinks+recall8:int8")
    assert config.recall == 8 and config.kv_dtype == "int8" and config.policy.name == "sinks"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["generate", PROMPT, "--recall-dtype", "fp8"],
            "--recall-dtype 'fp8' is not one of none, int8, int4",
        ),
        (
            ["generate", PROMPT, "--cache-limit", "16", "--recall", "16"],
            "--recall 16 leaves no recent tokens",
        ),
        (["generate", PROMPT, "--recall-store", "64"], "--recall-store '64' goes with --recall R"),
        (
            ["generate", PROMPT, "--recall", "8", "--policy", "tova"],
            "recall works with the positional policies",
        ),
        (["plan", "--recall", "-1"], "--recall"),
        (
            ["generate", PROMPT, "--recall", "8", "--recall-block", "3"],
            "--recall-block 3 must divide --recall 8: one of 1, 2, 4, 8",
        ),
        (["generate", PROMPT, "--recall-block", "4"], "--recall-block 4 goes with --recall R"),
        (["ppl", "--recall", "x"], "--recall takes slots"),
        (
            ["ppl", "--recall", "8", "--recall-positions", "distance,near"],
            "--recall-positions 'near' is not one of distance, full, packed",
        ),
        (["ppl", "--recall-positions", "full"], "--recall-positions goes with --recall R"),
        (["needle", "--cache-limit", "128", "--recall", "200"], "--recall"),
        (["bench", "--recall", "1.5"], "--recall takes slots"),
    ],
)
def test_bad_recall_options_fail_before_loading(capsys, monkeypatch, argv, message):
    monkeypatch.setattr(clitools, "load_from_args", lambda *a, **k: pytest.fail("loaded a model"))
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_help_names_the_recall_options(capsys):
    for command in ("generate", "plan", "info", "ppl", "needle", "bench"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        assert "--recall" in capsys.readouterr().out
