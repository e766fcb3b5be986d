"""Many prompts in one run (`kvlimit generate --prompts`) and the memory planner (`kvlimit plan`).

- the prompt file: plain lines or JSON Lines; a malformed line is named before any model loads;
- every id ends in the output exactly once, with its fields; a run killed part-way (SIGKILL, a
  real process) and run again finishes the rest and keeps what was written;
- a prompt's text is the same in a batch of 4 as alone (rows are independent of their batch);
- `--batch-size auto` takes the planner's batch; the planner's numbers are consistent.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

import kvlimit
from kvlimit import cli, clitools
from kvlimit.commands import batch

from .helpers import TinyModel, build_tiny

WORDS = ["the quick brown fox", "hello world", "the lazy dog says", "over the end", "hello there fox"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("batch"))


def prompts_file(path: pathlib.Path, count: int) -> pathlib.Path:
    path.write_text("".join(f"{WORDS[i % len(WORDS)]} {i}\n" for i in range(count)), encoding="utf-8")
    return path


def generate_args(tiny: TinyModel, prompts: pathlib.Path, output: pathlib.Path, *extra: str) -> list[str]:
    return ["generate", "--prompts", str(prompts), "--output", str(output), "--model", str(tiny.folder),
            "--raw", "--greedy", "--max-new-tokens", "6", "--cache-limit", "8", "--quiet", *extra]  # fmt: skip


def records(path: pathlib.Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": 1, "prompt": "a"}\n{"id": 2, "prompt": "b"\n', "line 2: not JSON"),
        (
            '{"id": 1, "prompt": "a"}\n{"prompt": "b"}\n',
            'line 2: a JSON Lines prompt needs "id" and "prompt"',
        ),
        ('{"id": 1, "prompt": "a"}\n\n{"id": 1, "prompt": "b"}\n', "line 3: id '1' is also on line 1"),
        ('{"id": "x", "prompt": "  "}\n', "line 1: the prompt is empty"),
        ("\n\n", "holds no prompt"),
    ],
)
def test_a_malformed_line_is_named_before_loading(tmp_path, capsys, monkeypatch, content, message) -> None:
    monkeypatch.setattr(clitools, "load_from_args", lambda *a, **k: pytest.fail("loaded a model"))
    path = tmp_path / "prompts.jsonl"
    path.write_text(content, encoding="utf-8")
    assert cli.main(["generate", "--prompts", str(path), "--output", str(tmp_path / "o.jsonl")]) == 2
    assert message in capsys.readouterr().err


def test_plain_and_json_lines(tmp_path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("first\n\nsecond\n", encoding="utf-8")
    assert [(i.id, i.prompt, i.line) for i in batch.read_prompts(str(plain))] == [
        ("1", "first", 1),
        ("3", "second", 3),
    ]
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text('{"id": "a", "prompt": "x"}\n{"id": 7, "prompt": "y"}\n', encoding="utf-8")
    assert [(i.id, i.prompt) for i in batch.read_prompts(str(jsonl))] == [("a", "x"), ("7", "y")]


def test_every_id_exactly_once_with_its_fields(tiny, tmp_path) -> None:
    output = tmp_path / "out.jsonl"
    args = generate_args(tiny, prompts_file(tmp_path / "p.txt", 11), output, "--batch-size", "4")
    assert cli.main(args) == 0
    got = records(output)
    assert sorted(int(r["id"]) for r in got) == list(range(1, 12))
    for record in got:
        assert set(record) == {"id", "prompt", "sequence", "text", "new_tokens", "stop_reason", "seconds"}
        assert record["sequence"] == 0 and 1 <= record["new_tokens"] <= 6
        assert record["stop_reason"] in ("eos", "max_new_tokens")
        if record["stop_reason"] == "max_new_tokens":
            assert record["new_tokens"] == 6  # an eos stops earlier (or at the last token)
    assert cli.main(args) == 0 and records(output) == got  # nothing left to do: nothing written


@pytest.mark.parametrize("batching", ["static", "continuous"])
def test_a_prompt_reads_the_same_in_a_batch_as_alone(tiny, tmp_path, batching) -> None:
    prompts = prompts_file(tmp_path / "p.txt", 7)
    batched, alone = tmp_path / "batched.jsonl", tmp_path / "alone.jsonl"
    options = ("--ignore-eos", "--batching", batching)
    assert cli.main(generate_args(tiny, prompts, batched, "--batch-size", "4", *options)) == 0
    assert cli.main(generate_args(tiny, prompts, alone, "--batch-size", "1", *options)) == 0
    text = {r["id"]: r["text"] for r in records(alone)}
    assert {r["id"]: r["text"] for r in records(batched)} == text


def test_several_sequences_per_prompt(tiny, tmp_path) -> None:
    output = tmp_path / "out.jsonl"
    args = generate_args(tiny, prompts_file(tmp_path / "p.txt", 5), output, "--num-return-sequences", "2",
                         "--seed", "1")  # fmt: skip
    args.remove("--greedy")
    assert cli.main(args) == 0
    got = records(output)
    assert sorted((r["id"], r["sequence"]) for r in got) == sorted(
        (str(i), s) for i in range(1, 6) for s in (0, 1)
    )


def test_a_torn_line_and_a_half_written_id_are_redone(tiny, tmp_path) -> None:
    prompts = prompts_file(tmp_path / "p.txt", 6)
    output = tmp_path / "out.jsonl"
    args = generate_args(tiny, prompts, output, "--num-return-sequences", "2", "--seed", "0", "--batch-size", "2",
                         "--top-k", "5")  # fmt: skip
    args.remove("--greedy")
    assert cli.main(args) == 0
    kept = [r for r in records(output) if r["id"] != "4" or r["sequence"] == 0]  # id 4 half written
    output.write_text("".join(json.dumps(r) + "\n" for r in kept) + '{"id": "5", "pro', encoding="utf-8")
    assert batch.finished_ids(output, 2) == {"1", "2", "3", "5", "6"}
    assert records(output) == [r for r in kept if r["id"] != "4"]  # the torn tail and the half id are gone
    assert cli.main(args) == 0
    final = records(output)
    assert sorted((r["id"], r["sequence"]) for r in final) == sorted(
        (str(i), s) for i in range(1, 7) for s in (0, 1)
    )


@pytest.mark.parametrize(("batching", "written"), [("static", 4), ("continuous", 1)])
def test_ctrl_c_says_how_many_prompts_were_written(
    tiny, tmp_path, capsys, monkeypatch, batching, written
) -> None:
    """Off a terminal (no progress bar) too: the count comes from the records, not from the bar. A
    static batch is one write of 4 records; the continuous engine writes each record as it ends."""
    original = batch.BatchRunner.run

    def interrupted(self, items, sink, on_records):
        def one_then_stop(chunk, active):
            on_records(chunk, active)
            raise KeyboardInterrupt

        return original(self, items, sink, one_then_stop)

    monkeypatch.setattr(batch.BatchRunner, "run", interrupted)
    output = tmp_path / "out.jsonl"
    args = generate_args(
        tiny, prompts_file(tmp_path / "p.txt", 9), output, "--batch-size", "4", "--batching", batching
    )
    args.remove("--quiet")
    cli.main(args)
    assert f"interrupted: {written} of 9 prompts written" in capsys.readouterr().err
    assert len(records(output)) == written


def test_a_killed_run_resumes_and_ends_with_every_id_once(tiny, tmp_path) -> None:
    """A real process, killed with SIGKILL after its first batches, then run again."""
    prompts = prompts_file(tmp_path / "p.txt", 60)
    output = tmp_path / "out.jsonl"
    argv = [sys.executable, "-m", "kvlimit", *generate_args(tiny, prompts, output, "--batch-size", "4",
                                                            "--max-new-tokens", "24", "--ignore-eos")]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if output.exists() and len(output.read_text(encoding="utf-8").splitlines()) >= 8:
            break
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    first = records_tolerant(output)
    assert 8 <= len(first) < 60
    assert subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=False).returncode == 0
    final = records(output)
    assert sorted(int(r["id"]) for r in final) == list(range(1, 61))
    assert all(r in final for r in first)  # what was written before the kill stays


def records_tolerant(path: pathlib.Path) -> list[dict]:
    """The complete records of a file a kill may have left with a torn last line."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            out.append(json.loads(line))
    return out


# --- the planner ------------------------------------------------------------------------------------


def test_the_plan_is_consistent(tiny) -> None:
    result = kvlimit.plan(tiny.model, memory="64MiB", new_tokens=400, prompt_tokens=16, limits=[8, 32, 128])
    per_token = kvlimit.kv_bytes_per_token(tiny.model)
    assert result.kv_bytes_per_token == per_token and result.memory == 64 * 2**20
    assert [row.cache_bytes_per_sequence for row in result.rows] == [n * per_token for n in (8, 32, 128)]
    assert result.stock.cache_bytes_per_sequence == 416 * per_token
    fits = [row.sequences for row in result.rows]
    assert fits == sorted(fits, reverse=True) and fits[-1] >= result.stock.sequences >= 1
    for row in (*result.rows, result.stock):
        grown = row.predicted_peak_bytes - result.process_bytes
        assert 0 < grown <= result.memory  # the planned batch fits
        one_more = result.predicted_peak(row.sequences + 1, row.cache_limit) - result.process_bytes
        assert one_more > result.memory  # and is the largest that does
    assert result.transient_per_row_bytes >= 0 and result.model_bytes > 0


def test_plan_command_and_auto_batch(tiny, tmp_path, capsys) -> None:
    assert cli.main(["plan", "--model", str(tiny.folder), "--memory", "8MiB", "--new-tokens", "300",
                     "--cache-limit", "8,64", "--json", "--quiet"]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert [row["cache_limit"] for row in data["rows"]] == [8, 64] and data["stock"]["cache_limit"] is None
    assert cli.main(["plan", "--model", str(tiny.folder), "--memory", "8MiB", "--quiet"]) == 0
    assert "stock (unbounded)" in capsys.readouterr().out
    output = tmp_path / "out.jsonl"
    args = generate_args(
        tiny, prompts_file(tmp_path / "p.txt", 5), output, "--batch-size", "auto", "--memory", "4MiB"
    )
    args.remove("--quiet")
    assert cli.main(args) == 0
    assert "continuous batching, 5 rows" in capsys.readouterr().err and len(records(output)) == 5


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--memory", "1GiB"], "--memory sizes --batch-size auto"),
        (["--batch-size", "0"], "--batch-size must be a positive int or auto"),
        (["--num-return-sequences", "0"], "--num-return-sequences must be >= 1"),
        (["--json"], "--json is for one prompt"),
    ],
)
def test_batch_options_fail_before_loading(tmp_path, capsys, monkeypatch, extra, message) -> None:
    monkeypatch.setattr(clitools, "load_from_args", lambda *a, **k: pytest.fail("loaded a model"))
    prompts = prompts_file(tmp_path / "p.txt", 2)
    assert cli.main(["generate", "--prompts", str(prompts), *extra]) == 2
    assert message in capsys.readouterr().err


# --- continuous batching ------------------------------------------------------------------------------


def sampled(tiny: TinyModel, prompts: pathlib.Path, output: pathlib.Path, *extra: str) -> list[dict]:
    args = generate_args(
        tiny, prompts, output, "--seed", "3", "--top-k", "40", "--max-new-tokens", "10", *extra
    )
    args.remove("--greedy")
    assert cli.main(args) == 0
    return records(output)


def test_a_sampled_text_is_the_same_whatever_the_batch_the_order_or_a_resume(tiny, tmp_path) -> None:
    """The issue's corpus user: the same file shuffled, another --batch-size, a resumed run: 0 of 10 texts
    were identical with static batches; every one is with the continuous engine."""
    prompts = prompts_file(tmp_path / "p.txt", 10)
    lines = prompts.read_text(encoding="utf-8").splitlines()
    shuffled = tmp_path / "shuffled.jsonl"  # JSON Lines keep the ids of the first file's lines
    order = [7, 2, 9, 0, 5, 3, 8, 1, 6, 4]
    shuffled.write_text("".join(json.dumps({"id": str(i + 1), "prompt": lines[i]}) + "\n" for i in order))
    first = {r["id"]: r["text"] for r in sampled(tiny, prompts, tmp_path / "a.jsonl", "--batch-size", "3")}
    again = {r["id"]: r["text"] for r in sampled(tiny, shuffled, tmp_path / "b.jsonl", "--batch-size", "5")}
    assert again == first and len(set(first.values())) > 5
    resumed = tmp_path / "c.jsonl"
    resumed.write_text(
        "".join(json.dumps(r) + "\n" for r in records(tmp_path / "a.jsonl")[:4]), encoding="utf-8"
    )
    assert {r["id"]: r["text"] for r in sampled(tiny, prompts, resumed, "--batch-size", "2")} == first
    for rows in ("1", "3", "0"):  # prompts prefilled one at a time, three together, or in free rows
        grouped = sampled(
            tiny, prompts, tmp_path / f"g{rows}.jsonl", "--batch-size", "4", "--prefill-rows", rows
        )
        assert {r["id"]: r["text"] for r in grouped} == first
    static = {
        r["id"]: r["text"] for r in sampled(tiny, prompts, tmp_path / "d.jsonl", "--batching", "static")
    }
    assert set(static) == set(first)  # static batches run too (their texts depend on the batch)


def test_the_batching_is_said_and_beams_run_static(tiny, tmp_path, capsys) -> None:
    prompts = prompts_file(tmp_path / "p.txt", 3)
    args = generate_args(tiny, prompts, tmp_path / "a.jsonl", "--batch-size", "2")
    args.remove("--quiet")
    assert cli.main(args) == 0
    assert "continuous batching, 2 rows, cache_limit 8 tokens" in capsys.readouterr().err
    beams = generate_args(tiny, prompts, tmp_path / "b.jsonl", "--num-beams", "2")
    beams.remove("--quiet")
    assert cli.main(beams) == 0
    assert (
        "static batches of 3 prompts (num_beams > 1: beam search runs on static batches"
        in capsys.readouterr().err
    )
    assert len(records(tmp_path / "b.jsonl")) == 3
    assert cli.main([*beams, "--batching", "continuous"]) == 2
    assert "--num-beams above 1 runs on static batches" in capsys.readouterr().err


def test_stop_texts_end_a_sequence_and_need_continuous_batching(tiny, tmp_path, capsys) -> None:
    prompts = prompts_file(tmp_path / "p.txt", 6)
    plain = {r["id"]: r for r in records_of(tiny, prompts, tmp_path / "plain.jsonl")}
    # the commonest printable character of the plain texts (a random model's text is no language):
    # the records that contain it end where it first appears
    printable = [c for r in plain.values() for c in r["text"] if c.isascii() and c.isprintable() and c != " "]
    word = max(sorted(set(printable)), key=printable.count)
    stopped = records_of(tiny, prompts, tmp_path / "stop.jsonl", "--stop", word)
    for record in stopped:
        text = plain[record["id"]]["text"]
        assert text.startswith(record["text"])  # the same sequence, cut short at most
        if record["stop_reason"] == "stop_string":
            assert record["text"].endswith(word) and word not in record["text"][: -len(word)]
            assert record["new_tokens"] <= plain[record["id"]]["new_tokens"]
        else:
            assert record["text"] == text and word not in text
    assert any(r["stop_reason"] == "stop_string" for r in stopped)
    static = generate_args(tiny, prompts, tmp_path / "s.jsonl", "--stop", word, "--batching", "static")
    assert cli.main(static) == 2
    assert "stop strings (--stop) run on continuous batching" in capsys.readouterr().err


def records_of(tiny: TinyModel, prompts: pathlib.Path, output: pathlib.Path, *extra: str) -> list[dict]:
    assert (
        cli.main(generate_args(tiny, prompts, output, "--ignore-eos", "--max-new-tokens", "12", *extra)) == 0
    )
    return records(output)


def test_prefill_rows_is_checked(tiny, tmp_path, capsys) -> None:
    prompts = prompts_file(tmp_path / "p.txt", 2)
    for extra, said in (
        (("--prefill-rows", "-1"), "--prefill-rows must be"),
        (("--prefill-rows", "2", "--batching", "static"), "--prefill-rows is for continuous batching"),
    ):
        assert cli.main(generate_args(tiny, prompts, tmp_path / "o.jsonl", *extra)) == 2
        assert said in capsys.readouterr().err
    assert cli.main(["generate", "hello", "--model", str(tiny.folder), "--prefill-rows", "2"]) == 2
    assert "--prefill-rows" in capsys.readouterr().err
