"""Argument validation: every bad input is a ValueError that names the parameter."""

import pytest
import torch

import kvlimit
from kvlimit.config import LimitConfig, parse_bytes
from kvlimit.policies import Sinks, Window, make_policy


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, None, [4], "lots", "12XB", "-3MiB", "0MiB"])
def test_bad_cache_limit_names_the_parameter(bad):
    with pytest.raises(ValueError, match="cache_limit"):
        LimitConfig.create(bad)


def test_token_and_byte_limits():
    assert LimitConfig.create(64).cache_limit_tokens == 64
    assert LimitConfig.create("64").cache_limit_tokens == 64
    config = LimitConfig.create("1MiB")
    assert config.cache_limit_tokens is None and config.cache_limit_bytes == 2**20
    # 1 MiB over 2 rows of 1024-byte tokens is 512 tokens each
    assert config.tokens_for(1024, 2) == 512
    assert parse_bytes("1.5GB") == 1_500_000_000
    assert parse_bytes("4096B") == 4096
    assert parse_bytes("2 kib") == 2048


def test_byte_limit_too_small_for_the_sinks():
    config = LimitConfig.create("4KiB")
    with pytest.raises(ValueError, match="cache_limit=4096 bytes holds only"):
        config.tokens_for(1024, 1)


def test_policy_by_name_object_and_settings():
    assert make_policy(None) == Sinks(n_sink=4)
    assert make_policy("sinks", n_sink=2) == Sinks(n_sink=2)
    assert make_policy("WINDOW") == Window()
    assert make_policy(Window()) == Window()
    assert LimitConfig.create(16, "sinks", n_sink=0).policy == Sinks(n_sink=0)


def test_unknown_policy_suggests_the_closest():
    with pytest.raises(ValueError, match=r"policy='sink' is not a known policy \(did you mean 'sinks'\?\)"):
        make_policy("sink")
    with pytest.raises(ValueError, match="known policies: sinks, window"):
        make_policy("h2o-ish")


def test_unknown_policy_setting_lists_the_allowed_ones():
    with pytest.raises(ValueError, match=r"does not take the setting\(s\) \['n_sink'\]; it takes: none"):
        make_policy("window", n_sink=2)
    with pytest.raises(ValueError, match="set them on the Sinks object"):
        make_policy(Sinks(), n_sink=3)


@pytest.mark.parametrize("n_sink", [8, 9, 100])
def test_n_sink_must_leave_room(n_sink):
    with pytest.raises(ValueError, match="must be smaller than cache_limit"):
        LimitConfig.create(8, "sinks", n_sink=n_sink)


@pytest.mark.parametrize("bad", [-1, 1.0, True])
def test_bad_n_sink(bad):
    with pytest.raises(ValueError, match="n_sink"):
        LimitConfig.create(8, "sinks", n_sink=bad)


def test_positions_and_prefill_chunk_validation():
    with pytest.raises(ValueError, match=r"positions='clam' is not one of .* \(did you mean 'clamp'\?\)"):
        LimitConfig.create(8, positions="clam")
    with pytest.raises(ValueError, match="prefill_chunk"):
        LimitConfig.create(8, prefill_chunk=0)
    with pytest.raises(
        ValueError, match=r"prefill_chunk=7 is larger than the room .* use prefill_chunk <= 4"
    ):
        LimitConfig.create(8, "sinks", prefill_chunk=7)


def test_generate_rejects_bad_arguments_before_running(tiny_llama):
    ids = torch.tensor([[5, 6, 7]])
    with pytest.raises(ValueError, match="cache_limit"):
        kvlimit.generate(tiny_llama, input_ids=ids, cache_limit=0, max_new_tokens=2)
    with pytest.raises(ValueError, match="did you mean 'window'"):
        kvlimit.generate(tiny_llama, input_ids=ids, cache_limit=8, policy="windw", max_new_tokens=2)
    with pytest.raises(ValueError, match="need cache_limit"):
        kvlimit.generate(tiny_llama, input_ids=ids, policy="window", max_new_tokens=2)
    with pytest.raises(ValueError, match="positions='clamp' applies to learned absolute positions"):
        kvlimit.generate(tiny_llama, input_ids=ids, cache_limit=8, positions="clamp", max_new_tokens=2)
