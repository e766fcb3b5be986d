"""The decode step adds no host-device synchronisation to stock generate's own.

A synchronisation shows up as `aten::_local_scalar_dense` (what `.item()`, `bool(tensor)` and
`int(tensor)` run). Stock `generate` already has one per step (its stopping check); a bounded decode
step, eviction included, must not add any. The count is taken over two runs of different lengths,
so set-up work (prefill, generate's preparation) cancels and only the per-step cost remains.
"""

import pytest
import torch

import kvlimit

from .helpers import FAMILIES, left_padded, make_model, syncs_per_step

#: far below helpers.SHORT and LONG: every step of the difference evicts
LIMIT = 6


@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "left-padded"])
@pytest.mark.parametrize("family", FAMILIES)
def test_decode_step_adds_no_host_sync(family, padded):
    model = make_model(family)
    if padded:
        ids, mask = left_padded(model, lengths=(3, 5))
    else:
        ids = torch.randint(3, model.config.vocab_size, (2, 5), generator=torch.Generator().manual_seed(0))
        mask = torch.ones_like(ids)
    stock = syncs_per_step(model, ids, mask)
    bounded = syncs_per_step(model, ids, mask, custom_generate=kvlimit.generate, cache_limit=LIMIT)
    assert stock >= 1  # the counter sees generate's own stopping check
    assert bounded <= stock, f"{family}: {bounded} host syncs per decode step against stock's {stock}"


@pytest.mark.parametrize(
    "mode", [{"do_sample": True, "top_k": 5}, {"num_beams": 3}], ids=["sampling", "beams"]
)
def test_sampling_and_beam_steps_add_no_host_sync(mode):
    model = make_model("llama")
    ids, mask = left_padded(model, lengths=(3, 5))
    stock = syncs_per_step(model, ids, mask, **mode)
    bounded = syncs_per_step(model, ids, mask, custom_generate=kvlimit.generate, cache_limit=LIMIT, **mode)
    assert stock >= 1  # the counter sees generate's own stopping check
    assert bounded <= stock, f"{mode}: {bounded} host syncs per decode step against stock's {stock}"
