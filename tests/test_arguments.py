"""Every public argument, given a bad value, fails with an error that names it and says what is allowed.

The library: `kvlimit.generate` (directly and through `custom_generate=`), `enable`, `build_cache`,
`LimitConfig.create` and `forward_step`. The command line: every numeric option of every subcommand,
given a value out of its range, exits 2 naming the option, before any model is loaded.
"""

from __future__ import annotations

import argparse

import pytest
import torch

import kvlimit
from kvlimit import cli, clitools

IDS = torch.tensor([[5, 6, 7, 8, 9]])
NAMES = ", ".join(kvlimit.POLICIES)

# (arguments to generate besides the model and inputs, a regex the message must match)
GENERATE = [
    ({"cache_limit": 0}, r"cache_limit must be a positive number of tokens"),
    ({"cache_limit": -3}, r"cache_limit must be a positive number of tokens"),
    ({"cache_limit": 2.5}, r"cache_limit must be a positive int \(tokens\) or a memory size"),
    ({"cache_limit": True}, r"cache_limit must be a positive int"),
    ({"cache_limit": "12 parsecs"}, r"cache_limit='12 parsecs' is not a token count or a memory size; use"),
    ({"cache_limit": "1B"}, r"cache_limit=1 bytes holds only 0 tokens .* it needs at least"),
    ({"cache_limit": 4, "n_sink": 4}, r"protects 4 tokens.*cache_limit=4.*smaller than cache_limit"),
    (
        {"cache_limit": 8, "policy": "sink"},
        rf"policy='sink' is not a known policy \(did you mean 'sinks'\?\); known policies: {NAMES}",
    ),
    (
        {"cache_limit": 8, "policy": 3},
        rf"policy must be a policy name \({NAMES}\) or an EvictionPolicy",
    ),
    (
        {"cache_limit": 8, "policy": "window", "n_sink": 2},
        r"policy 'window' does not take the setting\(s\) \['n_sink'\]; it takes: none",
    ),
    ({"cache_limit": 8, "n_sink": -1}, r"n_sink must be an int >= 0; got -1"),
    ({"cache_limit": 8, "n_sink": 1.5}, r"n_sink must be an int >= 0"),
    ({"cache_limit": 8, "policy": "knorm", "n_recent": -1}, r"n_recent must be an int >= 0 or None"),
    (
        {"cache_limit": 8, "policy": "knorm", "n_sink": 4, "n_recent": 4},
        r"n_sink \+ n_recent must be smaller than cache_limit",
    ),
    (
        {"cache_limit": 8, "positions": "exact"},
        r"positions='exact' is not one of 'auto', 'reencode', 'clamp'",
    ),
    ({"cache_limit": 8, "positions": "clamp"}, r"positions='clamp' applies to learned absolute positions"),
    ({"cache_limit": 8, "prefill_chunk": 0}, r"prefill_chunk must be a positive int or None; got 0"),
    (
        {"cache_limit": 8, "prefill_chunk": 5},
        r"prefill_chunk=5 is larger than the room .* use prefill_chunk <= 4",
    ),
    (
        {"policy": "window"},
        r"policy needs cache_limit: .* n_sink, n_recent, positions, prefill_chunk, kv_dtype and kv_group need cache_limit",
    ),
    ({"n_sink": 2}, r"need cache_limit; pass cache_limit=N"),
]


@pytest.mark.parametrize(("arguments", "message"), GENERATE)
def test_generate_names_the_bad_argument(tiny_llama, arguments, message):
    with pytest.raises(ValueError, match=message):
        kvlimit.generate(tiny_llama, input_ids=IDS, max_new_tokens=3, **arguments)
    with pytest.raises(ValueError, match=message):  # the same through transformers' generate
        tiny_llama.generate(input_ids=IDS, max_new_tokens=3, custom_generate=kvlimit.generate, **arguments)


@pytest.mark.parametrize(("arguments", "message"), GENERATE)
def test_an_enabled_model_names_the_bad_argument(tiny_llama, arguments, message):
    kvlimit.enable(tiny_llama)
    try:
        with pytest.raises(ValueError, match=message):
            tiny_llama.generate(input_ids=IDS, max_new_tokens=3, **arguments)
    finally:
        kvlimit.disable(tiny_llama)


def test_enable_and_generate_name_a_model_that_is_not_one():
    for call in (
        lambda: kvlimit.enable("gpt2"),
        lambda: kvlimit.generate(object(), input_ids=IDS, cache_limit=8),
    ):
        with pytest.raises(ValueError, match=r"model must be a transformers model .*; got"):
            call()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"rows": 0}, r"rows must be an int >= 1; got 0"),
        (
            {"config": kvlimit.LimitConfig.create("2KiB")},
            r"cache_limit=2048 bytes holds only 4 tokens .* it needs at least",
        ),
        ({"max_length": 0}, r"max_length must be an int >= 1 or None \(the limit\); got 0"),
        ({"rebase_after": -5}, r"rebase_after must be an int >= 1 or None \(the default interval\); got -5"),
        ({"rank_every": 0}, r"rank_every must be an int >= 1; got 0"),
        ({"config": 8}, r"config must be a kvlimit.LimitConfig \(LimitConfig.create\(...\)\); got int"),
    ],
)
def test_build_cache_names_the_bad_argument(tiny_llama, arguments, message):
    given = {"config": kvlimit.LimitConfig.create(8), **arguments}
    with pytest.raises(ValueError, match=message):
        kvlimit.build_cache(tiny_llama, given.pop("config"), **given)


def test_forward_step_names_its_bad_inputs(tiny_llama):
    cache = kvlimit.build_cache(tiny_llama, kvlimit.LimitConfig.create(8))
    with pytest.raises(ValueError, match=r"input_ids must be \(batch, tokens\); got shape \(5,\)"):
        kvlimit.forward_step(tiny_llama, cache, IDS[0])
    with pytest.raises(
        ValueError, match=r"a chunk of 6 new tokens does not fit .* feed at most 4 tokens per forward"
    ):
        kvlimit.forward_step(tiny_llama, cache, torch.randint(3, 100, (1, 6)))  # after the first 6: full
        kvlimit.forward_step(tiny_llama, cache, torch.randint(3, 100, (1, 6)))


# --- the command line ---------------------------------------------------------------------------


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return subparsers.choices[command]


def numeric_options() -> list[tuple[str, str, type]]:
    """(subcommand, option, type) for every option of every subcommand that takes a number."""
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = []
    for name, sub in subparsers.choices.items():
        for action in sub._actions:
            if action.type in (int, float) and action.option_strings:
                found.append((name, action.option_strings[0], action.type))  # the name, not an alias
    return found


def test_every_numeric_option_is_covered():
    names = {option for _, option, _ in numeric_options()}
    assert {
        "--max-new-tokens",
        "--n-sink",
        "--n-recent",
        "--top-p",
        "--chunk",
        "--threads",
    } <= names


REQUIRED = {
    "generate": ["PROMPT"],
    "info": [],
    "ppl": [],
    "bench": [],
    "plan": [],
    "needle": [],
    "attention-recall": [],
    "throughput": [],
    "serve": [],
}


@pytest.mark.parametrize(("command", "option", "kind"), numeric_options())
def test_every_numeric_option_names_itself_when_out_of_range(command, option, kind, capsys, monkeypatch):
    def no_load(*args, **kwargs):
        raise AssertionError(f"{command} {option}: options must be checked before the model loads")

    monkeypatch.setattr(clitools, "load_from_args", no_load)
    code = cli.main([command, *REQUIRED[command], option, "-7"])
    err = capsys.readouterr().err
    assert code == 2, f"{command} {option} -7 was accepted"
    assert option in err and ("must be" in err or "leaves no room" in err or "does not fit" in err), err
    with pytest.raises(SystemExit) as usage:
        cli.main([command, *REQUIRED[command], option, "many"])
    assert usage.value.code == 2
    assert f"argument {option}" in capsys.readouterr().err and "invalid" in err + "invalid"


def test_every_declared_setting_is_an_argument_of_generate_and_an_option():
    """transformers hands a custom_generate only the arguments its signature names: every setting
    declared (the cache's own in `config.CACHE_OPTIONS`, each policy's in its dataclass) is one of
    generate's keyword arguments, and every policy setting is an option of the commands that run policies."""
    import inspect

    from kvlimit.config import argument_names
    from kvlimit.policies import POLICIES

    parameters = inspect.signature(kvlimit.generate).parameters
    declared = set(argument_names())
    settings = {name for cls in POLICIES.values() for name in cls.settings()}
    assert settings <= declared
    keywords = {name for name, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert keywords - {"streamer", "compile"} == declared, (
        f"generate and the declarations differ: {sorted(keywords ^ declared)}"
    )
    parser = cli.build_parser()
    for command in ("generate", "ppl", "needle", "bench"):
        options = {a.dest for a in _subparser(parser, command)._actions}
        assert settings <= options, (command, sorted(settings - options))
