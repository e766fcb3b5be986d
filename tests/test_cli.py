"""Tests for the `kvlimit` command line (kvlimit.cli): generate, info, errors, Ctrl-C, subcommands.

The CLI runs in-process through `kvlimit.cli.main([...])` with capsys, on the tiny random Llama of
tests/helpers/tinymodels.py saved as a model folder (raw prompts: its tokenizer has no chat template) and as
a GGUF file (an instruct model: it carries a chat template), so GGUF loading is tested without the
embedded model. `python -m kvlimit --help` runs once as a subprocess to check the module entry point.
The test marked `slow` runs the embedded SmolLM2-135M-Instruct.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import types
from typing import Any

import pytest
import torch
import transformers

import kvlimit
from kvlimit import cli, clitools
from kvlimit.clitools import CLIError, names
from kvlimit.commands.streaming import TextSink
from kvlimit.models import load_model
from kvlimit.policies import policies_taking

from .helpers import CHAT_TEMPLATE, PROMPT, TinyModel, build_tiny

#: The policies that take each setting, as the messages name them (the registry decides).
TAKE_N_SINK = names(policies_taking("n_sink"))
TAKE_N_RECENT = names(policies_taking("n_recent"))

MAX_NEW = 40
LIMIT = 16


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("tiny-cli"))


@pytest.fixture(scope="session")
def bytes_per_token(tiny: TinyModel) -> int:
    return kvlimit.kv_bytes_per_token(tiny.model)


@pytest.fixture(scope="session")
def shared_xdg(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return tmp_path_factory.mktemp("xdg")


@pytest.fixture(autouse=True)
def _isolated_cache(shared_xdg: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GGUF conversions go to a folder of this session (shared, so only the first test converts)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared_xdg))


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def folder_args(tiny: TinyModel, *extra: Any) -> list[Any]:
    return [
        "generate",
        PROMPT,
        "--model",
        tiny.folder,
        "--cache-limit",
        LIMIT,
        "--max-new-tokens",
        MAX_NEW,
        "--ignore-eos",
        *extra,
    ]


def summary_number(err: str, pattern: str) -> int:
    match = re.search(pattern, err)
    assert match, f"{pattern!r} not in stderr:\n{err}"
    return int(match.group(1))


def prompt_tokens(tiny: TinyModel) -> int:
    return len(tiny.tokenizer(PROMPT)["input_ids"])


# --- help and entry points ---------------------------------------------------------------------------


def test_module_entry_point_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "kvlimit", "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: kvlimit")
    for command in ("generate", "info"):
        assert command in result.stdout


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--help"], ["generate", "info", "COMMAND --help"]),
        (
            ["generate", "--help"],
            [
                "--cache-limit",
                "64MiB",
                "--policy",
                "--n-sink",
                "--ignore-eos",
                "temperature 0.7 and top-p 0.9",
                "--raw",
                "--json",
                "--output",
                "--model",
                "130",
            ],
        ),
        (["info", "--help"], ["--memory", "1GiB", "--json", "--model"]),
    ],
)
def test_help(capsys: pytest.CaptureFixture[str], argv: list[str], expected: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 0
    out = capsys.readouterr().out
    for text in expected:
        assert text in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert capsys.readouterr().out.strip() == f"kvlimit {kvlimit.__version__}"


# --- generate ----------------------------------------------------------------------------------------


def test_generate_streams_text_and_reports_the_bounded_cache(
    tiny: TinyModel, bytes_per_token: int, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *folder_args(tiny, "--seed", 3))

    assert code == 0
    assert out.strip(), "the text goes to stdout"
    assert "kvlimit:" not in out, "only the text goes to stdout"
    assert "Traceback" not in err
    assert f"generated  {MAX_NEW} tokens" in err
    assert "stopped at --max-new-tokens" in err
    assert "sampling (temperature 0.7, top-p 0.9), seed 3" in err
    # longer than the limit: the cache holds exactly LIMIT tokens' worth, allocated once
    total = prompt_tokens(tiny) + MAX_NEW
    assert total > LIMIT
    assert summary_number(err, r"KV cache .*\((\d+) bytes\)") == LIMIT * bytes_per_token
    assert summary_number(err, r"limit (\d+) tokens") == LIMIT
    assert summary_number(err, r", (\d+) held") == LIMIT
    assert summary_number(err, r"unbounded .*\((\d+) bytes\)") == total * bytes_per_token
    assert summary_number(err, r"for (\d+) tokens") == total


def test_streamed_text_equals_json_text_and_output_file(
    tiny: TinyModel, bytes_per_token: int, capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    code, streamed, _ = run(capsys, *folder_args(tiny, "--greedy"))
    assert code == 0

    output = tmp_path / "out.txt"
    code, out, err = run(capsys, *folder_args(tiny, "--greedy", "--json", "--output", output))
    assert code == 0
    report = json.loads(out)  # stdout is one JSON object and nothing else
    text = report["text"]
    assert text
    assert streamed == text + ("" if text.endswith("\n") else "\n")
    assert output.read_text(encoding="utf-8") == streamed
    assert report["generated_tokens"] == MAX_NEW
    assert report["prompt_tokens"] == prompt_tokens(tiny)
    assert report["stop_reason"] == "max_new_tokens"
    assert report["cache_limit"] == LIMIT
    assert report["cache_bytes"] == LIMIT * bytes_per_token
    assert report["kv_bytes_per_token"] == bytes_per_token
    assert report["unbounded_cache_bytes"] == (prompt_tokens(tiny) + MAX_NEW) * bytes_per_token
    assert report["model_type"] == "llama"
    assert report["decoding"] == "greedy"
    assert report["policy"] == "sinks(n_sink=4)"
    assert report["tokens_per_second"] > 0
    assert "generated  40 tokens" in err  # the summary still goes to stderr

    # the text is what transformers' own greedy decoding produces with the same bounded cache
    ids = tiny.tokenizer(PROMPT, return_tensors="pt")
    expected = kvlimit.generate(
        tiny.model, **ids, cache_limit=LIMIT, max_new_tokens=MAX_NEW, min_new_tokens=MAX_NEW, do_sample=False
    )
    assert text == tiny.tokenizer.decode(expected[0, ids["input_ids"].shape[1] :], skip_special_tokens=True)


def test_quiet_prints_only_the_text(tiny: TinyModel, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *folder_args(tiny, "--quiet"))
    assert code == 0
    assert out.strip()
    assert err == ""


def test_window_policy_and_byte_budget(
    tiny: TinyModel, bytes_per_token: int, capsys: pytest.CaptureFixture[str]
) -> None:
    budget = 10 * bytes_per_token + bytes_per_token // 2  # 10.5 tokens' worth: 10 tokens
    code, out, _ = run(
        capsys,
        *folder_args(tiny, "--json", "--policy", "window"),
        "--cache-limit",
        f"{budget}B",
    )
    assert code == 0
    report = json.loads(out)
    assert report["cache_limit"] == 10
    assert report["cache_bytes"] == 10 * bytes_per_token
    assert report["policy"] == "window"


def test_knorm_policy_with_its_settings(
    tiny: TinyModel, bytes_per_token: int, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, *folder_args(tiny, "--json", "--policy", "knorm", "--n-sink", "2", "--n-recent", "3")
    )
    assert code == 0
    report = json.loads(out)
    assert report["policy"] == "knorm(n_sink=2, n_recent=3)"
    assert report["cache_bytes"] == LIMIT * bytes_per_token


def test_beam_search_prints_the_text_at_the_end(
    tiny: TinyModel, bytes_per_token: int, capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    output = tmp_path / "beams.txt"
    code, out, err = run(capsys, *folder_args(tiny, "--num-beams", 2, "--output", output))
    assert code == 0
    assert out.strip()
    assert output.read_text(encoding="utf-8") == out
    assert "beam search, 2 beams" in err
    assert summary_number(err, r"KV cache .*\((\d+) bytes\)") == 2 * LIMIT * bytes_per_token
    assert "limit 16 tokens x 2 beams" in err


def test_gguf_model_gets_its_chat_template(tiny: TinyModel, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["generate", PROMPT, "--model", tiny.gguf_path, "--max-new-tokens", 8, "--ignore-eos", "--json"]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    report = json.loads(out)
    templated = transformers.PreTrainedTokenizerFast(tokenizer_object=tiny.backend)
    templated.chat_template = CHAT_TEMPLATE
    chat_ids = templated.apply_chat_template(
        [{"role": "user", "content": PROMPT}], add_generation_prompt=True, tokenize=True, return_dict=True
    )["input_ids"]
    assert report["prompt_tokens"] == len(chat_ids) > prompt_tokens(tiny)
    assert report["generated_tokens"] == 8

    code, out, _ = run(capsys, *args, "--raw")
    assert code == 0
    assert json.loads(out)["prompt_tokens"] == prompt_tokens(tiny)


def test_first_gguf_load_says_it_converts(
    tiny: TinyModel,
    capsys: pytest.CaptureFixture[str],
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fresh"))
    args = ["generate", PROMPT, "--model", tiny.gguf_path, "--max-new-tokens", 2]
    code, _, err = run(capsys, *args)
    assert code == 0
    assert "the first load of a GGUF file dequantises it" in err
    code, _, err = run(capsys, *args)
    assert code == 0
    assert "dequantises" not in err
    assert "converted weights from" in err
    code, _, err = run(capsys, *args, "--quiet")
    assert err == ""


def test_prompt_from_stdin(
    tiny: TinyModel, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(read=lambda: PROMPT))
    code, out, _ = run(capsys, "generate", "-", "--model", tiny.folder, "--max-new-tokens", 3, "--json")
    assert code == 0
    assert json.loads(out)["prompt_tokens"] == prompt_tokens(tiny)


def test_progress_line_only_on_a_terminal_not_over_the_text(
    tiny: TinyModel, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(capsys, *folder_args(tiny, "--json"))  # text not streamed: progress is drawn
    assert code == 0
    assert re.search(r"\r\d+ tokens, [\d.]+ tokens/s, cache \d+/16", err)

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # the text streams into the terminal
    code, _, err = run(capsys, *folder_args(tiny))
    assert code == 0
    assert "\r" not in err
    assert "generated  40 tokens" in err


# --- Ctrl-C ------------------------------------------------------------------------------------------


def interrupt_after(monkeypatch: pytest.MonkeyPatch, forwards: int) -> None:
    """Make generation's forward number `forwards + 1` raise KeyboardInterrupt, as Ctrl-C would.

    Only forwards through the bounded cache count (kv_bytes_per_token's probe forward does not).
    """
    real_forward = transformers.LlamaForCausalLM.forward
    calls = [0]

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(value, kvlimit.BoundedCache) for value in kwargs.values()):
            calls[0] += 1
        if calls[0] > forwards:
            raise KeyboardInterrupt
        return real_forward(self, *args, **kwargs)

    monkeypatch.setattr(transformers.LlamaForCausalLM, "forward", forward)


def test_ctrl_c_stops_with_130_and_a_summary(
    tiny: TinyModel, bytes_per_token: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    interrupt_after(monkeypatch, 6)  # prefill + 5 decode steps: 6 tokens, the 7th forward is interrupted
    code, out, err = run(capsys, *folder_args(tiny, "--greedy"))
    assert code == 130
    assert out.strip(), "the text generated so far was printed"
    assert "Traceback" not in err
    assert "generated  6 tokens" in err
    assert "interrupted" in err
    assert summary_number(err, r"unbounded .*\((\d+) bytes\)") == (prompt_tokens(tiny) + 6) * bytes_per_token


def test_ctrl_c_with_json_reports_what_was_generated(
    tiny: TinyModel, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    interrupt_after(monkeypatch, 4)
    code, out, _ = run(capsys, *folder_args(tiny, "--greedy", "--json"))
    assert code == 130
    report = json.loads(out)
    assert report["stop_reason"] == "interrupted"
    assert report["generated_tokens"] == 4
    assert report["text"]


def test_ctrl_c_while_loading(
    tiny: TinyModel, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(clitools, "load_from_args", interrupted)
    code, out, err = run(capsys, *folder_args(tiny))
    assert (code, out) == (130, "")
    assert err.strip().endswith("kvlimit: interrupted")


# --- info --------------------------------------------------------------------------------------------


def test_info_text(tiny: TinyModel, bytes_per_token: int, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "info", "--model", tiny.folder, "--memory", "1MiB")
    assert code == 0
    assert re.search(r"^family\s+llama$", out, re.M)
    assert re.search(r"^positions\s+rope \(half-split, 16 rotary dims\)$", out, re.M)
    assert re.search(r"^layers\s+2, all full attention$", out, re.M)
    assert f"({bytes_per_token} bytes, float32, all layers)" in out
    assert f"{2**20 // bytes_per_token} tokens of cache" in out
    assert re.search(r"^chat template\s+no$", out, re.M)
    assert re.search(
        r"^compile\s+yes: --compile / compile=True with every policy \(sinks, window, knorm, tova", out, re.M
    )
    assert "loaded" in err


def test_info_json(tiny: TinyModel, bytes_per_token: int, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "info", "--model", tiny.gguf_path, "--json", "--quiet")
    assert code == 0
    facts = json.loads(out)
    assert facts["kv_bytes_per_token"] == bytes_per_token
    assert facts["memory_bytes"] == 2**30
    assert facts["tokens_in_memory"] == 2**30 // bytes_per_token
    assert facts["model_type"] == "llama"
    assert facts["layers"] == 2
    assert facts["sliding_layers"] == 0
    assert facts["chat_template"] is True
    assert facts["compile"]["supported"] is True and facts["compile"]["why"] is None


def test_generate_compile_refuses_what_cannot_compile(
    tiny: TinyModel, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *folder_args(tiny, "--compile", "--recall", "4", "--recall-score", "bounds"))
    assert code == 2
    assert "compile=True" in err and "recall_score='distance' or 'keys' to compile" in err
    assert "Traceback" not in err


def test_info_shows_sliding_layers(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, tiny: TinyModel
) -> None:
    config = transformers.Gemma2Config(
        vocab_size=tiny.tokenizer.vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        sliding_window=8,
    )
    folder = tmp_path / "gemma2"
    transformers.Gemma2ForCausalLM(config).save_pretrained(folder)
    tiny.tokenizer.save_pretrained(folder)
    code, out, err = run(capsys, "info", "--model", folder, "--attn", "eager")
    assert code == 0, err
    assert re.search(r"^layers\s+2: 1 full attention, 1 sliding window \(8 tokens\)$", out, re.M)


# --- errors ------------------------------------------------------------------------------------------


def assert_error(capsys: pytest.CaptureFixture[str], argv: list[Any], *needles: str) -> str:
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("kvlimit: error:")]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--cache-limit", "0"], ["--cache-limit must be a positive number of tokens", "'0'"]),
        (["--cache-limit", "-5"], ["--cache-limit='-5' is not a token count or a memory size"]),
        (["--cache-limit", "64XB"], ["'64XB' is not a token count or a memory size", "MiB"]),
        (["--cache-limit", "0MiB"], ["must be a positive memory size"]),
        (["--top-p", "1.5"], ["--top-p must be > 0 and <= 1; got 1.5"]),
        (["--top-p", "0"], ["--top-p must be > 0 and <= 1; got 0"]),
        (["--temperature", "0"], ["--temperature must be > 0; got 0"]),
        (["--temperature", "-1"], ["--temperature must be > 0; got -1"]),
        (["--temperature", "nan"], ["--temperature must be > 0; got nan"]),
        (["--max-new-tokens", "0"], ["--max-new-tokens must be >= 1; got 0"]),
        (["--num-beams", "0"], ["--num-beams must be >= 1; got 0"]),
        (["--top-k", "0"], ["--top-k must be >= 1; got 0"]),
        (["--repetition-penalty", "0"], ["--repetition-penalty must be > 0; got 0"]),
        (["--seed", "-1"], ["--seed must be >= 0; got -1"]),
        (["--n-sink", "-1"], ["--n-sink must be >= 0; got -1"]),
        (["--cache-limit", "4", "--n-sink", "4"], ["protects 4 tokens", "--cache-limit 4"]),
        (["--cache-limit", "4"], ["protects 4 tokens"]),  # the default n_sink
        (["--policy", "sink"], ["not a known policy", "did you mean 'sinks'"]),
        (["--policy", "window", "--n-sink", "2"], [f"--n-sink applies to --policy {TAKE_N_SINK} only"]),
        (["--policy", "sinks", "--n-recent", "2"], [f"--n-recent applies to --policy {TAKE_N_RECENT} only"]),
        (["--policy", "knorm", "--n-recent", "-1"], ["--n-recent must be >= 0; got -1"]),
        (
            ["--cache-limit", "8", "--policy", "knorm", "--n-recent", "4"],
            ["n_sink + n_recent", "--cache-limit 8"],
        ),
        (["--greedy", "--temperature", "0.5"], ["--greedy takes no sampling options", "--temperature"]),
    ],
)
def test_bad_options_fail_before_loading(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, extra: list[str], needles: list[str]
) -> None:
    def no_load(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("options are checked before the model loads")

    monkeypatch.setattr(clitools, "load_from_args", no_load)
    assert_error(capsys, ["generate", PROMPT, *extra], *needles)


def test_error_missing_model(capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    assert_error(capsys, ["generate", PROMPT, "--model", tmp_path / "nope.gguf"], "model path does not exist")
    assert_error(capsys, ["info", "--model", tmp_path / "nope"], "model path does not exist")


def test_error_unreadable_model(
    tiny: TinyModel,
    capsys: pytest.CaptureFixture[str],
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "locked.gguf"
    path.write_bytes(tiny.gguf_path.read_bytes())
    path.chmod(0)
    if os.geteuid() == 0:  # root reads files regardless of their mode; simulate the refusal
        real_open = pathlib.Path.open

        def refusing_open(self: pathlib.Path, *args: Any, **kwargs: Any) -> Any:
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return real_open(self, *args, **kwargs)

        monkeypatch.setattr(pathlib.Path, "open", refusing_open)
    try:
        assert_error(capsys, ["generate", PROMPT, "--model", path], "model file is not readable")
    finally:
        path.chmod(0o644)


def test_error_file_that_is_not_a_model(capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello", encoding="utf-8")
    assert_error(capsys, ["generate", PROMPT, "--model", path], "not a GGUF file", "not a model folder")
    assert_error(capsys, ["generate", PROMPT, "--model", tmp_path], "model folder has no config.json")


def test_error_unsupported_architecture(
    tiny: TinyModel, capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    config = transformers.GPTNeoConfig(
        vocab_size=tiny.tokenizer.vocab_size,
        hidden_size=32,
        num_layers=2,
        num_heads=2,
        attention_types=[[["global", "local"], 1]],
        max_position_embeddings=64,
    )
    folder = tmp_path / "gpt-neo"
    transformers.GPTNeoForCausalLM(config).save_pretrained(folder)
    tiny.tokenizer.save_pretrained(folder)
    for argv in (["generate", PROMPT, "--model", folder], ["info", "--model", folder]):
        argv += ["--attn", "eager"]  # transformers has no sdpa for GPT-Neo
        assert_error(capsys, argv, "model_type 'gpt_neo' is not supported by kvlimit", "llama")


def test_error_byte_budget_too_small(tiny: TinyModel, capsys: pytest.CaptureFixture[str]) -> None:
    assert_error(
        capsys, ["generate", PROMPT, "--model", tiny.folder, "--cache-limit", "100B"], "holds only 0 tokens"
    )


def test_error_no_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    assert_error(capsys, ["generate"], "give a PROMPT, or --prompts FILE for many")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--num-return-sequences", "2"),
        ("--batch-size", "4"),
        ("--ray", None),
        ("--workers", "3"),
        ("--memory", "1GiB"),
    ],
)
def test_error_batch_option_without_prompts(
    capsys: pytest.CaptureFixture[str], option: str, value: str | None
) -> None:
    given = [option] if value is None else [option, value]
    assert_error(capsys, ["generate", PROMPT, *given], option, "goes with --prompts FILE")


def test_error_empty_raw_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    assert_error(capsys, ["generate", "  ", "--raw"], "the prompt is empty")


def test_error_unwritable_output(capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    target = tmp_path / "missing-dir" / "out.txt"
    assert_error(capsys, ["generate", PROMPT, "--output", target], "cannot write --output", "out.txt")


def test_error_bad_memory_and_device(tiny: TinyModel, capsys: pytest.CaptureFixture[str]) -> None:
    assert_error(
        capsys, ["info", "--memory", "lots"], "--memory='lots' is not a token count or a memory size"
    )
    if not torch.cuda.is_available():
        assert_error(capsys, ["info", "--model", tiny.folder, "--device", "cuda"], "no CUDA device")


def test_debug_shows_the_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(CLIError, match="--top-p must be"):
        cli.main(["generate", PROMPT, "--top-p", "2", "--debug"])
    with pytest.raises(CLIError, match="--top-p must be"):
        cli.main(["--debug", "generate", PROMPT, "--top-p", "2"])


@pytest.mark.parametrize(
    "argv",
    [[], ["generate", PROMPT, "--max-new-tokens", "many"], ["generate", PROMPT, "--nope"]],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    assert "usage: kvlimit" in capsys.readouterr().err


# --- subcommands from other modules ------------------------------------------------------------------


def test_other_subcommands_register_and_share_the_error_convention(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def handler(args: Any) -> int:
        if args.fail:
            raise CLIError("fake failed")
        print("fake ran")
        return 0

    def register(subparsers: Any) -> None:
        parser = subparsers.add_parser("fake", help="a fake subcommand")
        parser.add_argument("--fail", action="store_true")
        parser.set_defaults(handler=handler)

    module = types.ModuleType("kvlimit_fake_command")
    module.register = register  # type: ignore[attr-defined]
    monkeypatch.setattr(cli, "SUBCOMMANDS", (*cli.SUBCOMMANDS, module))
    assert run(capsys, "fake") == (0, "fake ran\n", "")
    code, _, err = run(capsys, "fake", "--fail")
    assert (code, err) == (2, "kvlimit: error: fake failed\n")


# --- the streamer ------------------------------------------------------------------------------------


def test_text_sink_streams_multibyte_text_exactly(tiny: TinyModel) -> None:
    import io

    text = "héllo wörld, 日本語 the quick brown fox 🦊 says hello"
    ids = tiny.tokenizer(text)["input_ids"]
    stream = io.StringIO()
    sink = TextSink(tiny.tokenizer, [stream], keep_text=True)
    sink.put(torch.tensor([[5, 6, 7]]))  # the prompt: skipped
    pieces = []
    for token in ids:
        before = stream.getvalue()
        sink.put(torch.tensor([token]))
        pieces.append(stream.getvalue()[len(before) :])
        assert "\ufffd" not in stream.getvalue()
    sink.end()
    assert stream.getvalue() == text == sink.text
    assert len([p for p in pieces if p]) > 5  # it really streamed
    assert len(sink.ids) < 8  # and keeps only a short window of ids


# --- the embedded model ------------------------------------------------------------------------------


@pytest.mark.slow
def test_embedded_model_generates_300_tokens_in_64_tokens_of_cache(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME")  # reuse the user's conversion of the embedded model
    code, out, err = run(
        capsys,
        "generate",
        "Write a story about a lighthouse keeper.",
        "--cache-limit",
        64,
        "--max-new-tokens",
        300,
        "--ignore-eos",
        "--seed",
        0,
    )
    assert code == 0, err
    assert len(out.split()) > 50
    assert "generated  300 tokens" in err
    loaded = load_model()
    per_token = kvlimit.kv_bytes_per_token(loaded.model)
    assert per_token == 30 * 2 * 3 * 64 * 4  # SmolLM2-135M: 30 layers, 3 K/V heads of 64, float32
    assert summary_number(err, r"KV cache .*\((\d+) bytes\)") == 64 * per_token
    assert summary_number(err, r", (\d+) held") == 64
