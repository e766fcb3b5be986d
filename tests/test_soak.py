"""The soak (`benchmarks/soak.py`) on 20,000 tokens: flat cache bytes, flat memory, flat step time.

The committed figures come from the script's 100,000-token run (see the README); here a shorter run
checks the same three properties: the cache's bytes never change, RSS grows by less than a few MiB
after the warm-up, and the late steps are as fast as the early ones (a ratio within one run).
"""

import importlib.util
import pathlib

import pytest

SCRIPT = pathlib.Path(__file__).parent.parent / "benchmarks" / "soak.py"


def load_script():
    spec = importlib.util.spec_from_file_location("soak", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_twenty_thousand_tokens_stay_flat():
    result = load_script().soak(20_000, 32, warmup=2_000, window=2_000)
    assert result.tokens == 20_000
    assert result.cache_bytes_min == result.cache_bytes_max > 0
    assert result.rss_growth_mib < 4.0, f"RSS grew {result.rss_growth_mib:.2f} MiB after the warm-up"
    assert result.late_over_early < 1.25, f"late steps {result.late_over_early:.2f}x the early ones"


def test_soak_rejects_a_warmup_longer_than_the_run():
    with pytest.raises(ValueError, match="need 0 < warmup < tokens"):
        load_script().soak(100, 8, warmup=200, window=10)
