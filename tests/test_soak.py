"""The soak (`benchmarks/soak.py`) on 20,000 tokens: one generate call, the cache's bytes constant.

The script's 100,000-token run measures memory and step time (ratios in one run, figures in the
README); a test asserts only what is exact: every new token made, the cache's bytes never changing.
"""

import importlib.util
import pathlib
import sys

import pytest

SCRIPT = pathlib.Path(__file__).parent.parent / "benchmarks" / "soak.py"


def load_script():
    spec = importlib.util.spec_from_file_location("soak", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses resolve their annotations through it
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_twenty_thousand_tokens_stay_flat():
    result = load_script().soak(20_000, 32, warmup=2_000, window=2_000)
    assert result.tokens == 20_000
    # 32 tokens x (2 layers x K and V x 2 kv heads x 16 dims x 4 bytes)
    assert result.cache_bytes_min == result.cache_bytes_max == 32 * (2 * 2 * 2 * 16 * 4)


def test_soak_rejects_a_warmup_longer_than_the_run():
    with pytest.raises(ValueError, match="need 0 < warmup < tokens"):
        load_script().soak(100, 8, warmup=200, window=10)
