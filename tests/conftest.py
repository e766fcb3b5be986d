"""Shared test setup: deterministic runs, the shared tiny Llama (helpers live in `tests/helpers`)."""

import os

import pytest
import torch

# the cores this process may use (a test run pinned to one core with taskset gets one thread), or
# KVLIMIT_TEST_THREADS (scripts/test-releases.sh runs two test processes at once, one thread each)
torch.set_num_threads(
    int(os.environ.get("KVLIMIT_TEST_THREADS", 0)) or max(1, min(2, len(os.sched_getaffinity(0))))
)


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


@pytest.fixture(scope="session")
def tiny_llama():
    """A 2-layer random Llama (float32, sdpa; 4 heads, 2 kv heads of 16 dims, the usual 0.02 init)."""
    from .helpers import make_model

    return make_model("llama", num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                      initializer_range=0.02)  # fmt: skip
