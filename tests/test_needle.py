"""`kvlimit needle` and `kvlimit.eval.needle`: the prompt it builds, how it scores, the command's output.

A tiny random model retrieves nothing, so scoring is checked with answers the test controls, and the
pipeline end to end (stock and bounded runs, every policy kind, the table, the JSON, the heat map).
"""

from __future__ import annotations

import json
import pathlib

import pytest

from kvlimit import cli
from kvlimit.eval import needle

from .helpers import TinyModel, build_tiny

FILLER = "the quick brown fox jumps over the lazy dog; hello there, the end of it. " * 60


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("needle"))


@pytest.mark.parametrize("depth", [0.0, 0.5, 1.0])
def test_the_needle_sits_at_its_depth(tiny: TinyModel, depth: float) -> None:
    tokenizer = tiny.tokenizer
    filler = tokenizer(FILLER, add_special_tokens=False)["input_ids"]
    ids = needle.build_prompt(tokenizer, filler, 100, depth, "12345")
    assert len(ids) == 100
    text = tokenizer.decode(ids)
    assert "12345" in text and text.endswith("The secret number is")
    needle_ids = tokenizer(" " + needle.NEEDLE.format(number="12345") + " ", add_special_tokens=False)[
        "input_ids"
    ]
    question = tokenizer(needle.QUESTION, add_special_tokens=False)["input_ids"]
    room = 100 - len(needle_ids) - len(question)
    at = next(i for i in range(len(ids)) if ids[i : i + len(needle_ids)] == needle_ids)
    assert at == round(depth * room)


def test_scoring_counts_the_first_number_only(tiny: TinyModel, monkeypatch: pytest.MonkeyPatch) -> None:
    assert needle.first_number(" 48193. The end") == "48193" and needle.first_number("none") is None
    secrets = needle.secret_numbers(2, seed=0)

    def answers(
        model, tokenizer, ids, policy, limit, recall=0
    ):  # full: right, bounded: right only at depth 0.9
        if limit is None:
            return [f" {n}." for _ in range(ids.shape[0] // 2) for n in secrets]
        return [" 1 then 2"] * 2 + [f" {n}" for n in secrets]

    monkeypatch.setattr(needle, "_answers", answers)
    filler = tiny.tokenizer(FILLER, add_special_tokens=False)["input_ids"]
    result = needle.needle_in_haystack(tiny.model, tiny.tokenizer, filler, contexts=[110], limits=[16],
                                       policies=["sinks"], depths=[0.1, 0.9], numbers=2)  # fmt: skip
    assert result.runs == ["full", "sinks@16"]
    assert result.accuracy("full") == 1.0 and result.accuracy("sinks@16") == 0.5
    assert [c.accuracy for c in result.cells if c.run == "sinks@16"] == [0.0, 1.0]


def test_the_command_runs_every_kind_of_policy(tiny: TinyModel, tmp_path: pathlib.Path, capsys) -> None:
    text = tmp_path / "filler.txt"
    text.write_text(FILLER, encoding="utf-8")
    plot = tmp_path / "needle.png"
    argv = ["needle", str(text), "--model", str(tiny.folder), "--context", "100,120", "--cache-limit", "16,24",
            "--policy", "sinks,tova,snapkv", "--n-sink", "1", "--depths", "0.2,0.8", "--numbers", "2",
            "--json", "--plot", str(plot), "--quiet"]  # fmt: skip
    assert cli.main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == ["full", "sinks@16", "tova@16", "snapkv@16", "sinks@24", "tova@24", "snapkv@24"]
    assert len(data["cells"]) == 7 * 2 * 2
    assert all(0.0 <= cell["accuracy"] <= 1.0 and len(cell["answers"]) == 2 for cell in data["cells"])
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cli.main([*argv[:-4], "--quiet"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["run", "100", "tokens", "120", "tokens", "all"] and len(table) == 8


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--context", "0"], "--context takes positive token counts"),
        (["--depths", "1.5"], "--depths takes fractions between 0 and 1"),
        (["--policy", "nope"], "--policy 'nope' is not one of"),
        (["--numbers", "0"], "--numbers must be >= 1"),
        (["--cache-limit", "4", "--n-sink", "4"], "protects 4 tokens"),
        (
            ["--observation-window", "3", "--policy", "sinks"],
            "--observation-window applies to --policy snapkv only",
        ),
        (
            ["--window", "3", "--policy", "sinks"],
            "--observation-window applies to --policy snapkv only",
        ),  # the old name
    ],
)
def test_bad_options_fail_before_loading(capsys, monkeypatch, extra, message) -> None:
    from kvlimit import clitools

    monkeypatch.setattr(clitools, "load_from_args", lambda *a, **k: pytest.fail("loaded a model"))
    assert cli.main(["needle", *extra]) == 2
    assert message in capsys.readouterr().err
