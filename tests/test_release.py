"""The supported transformers releases (5.18 on): the failures that would be silent are caught.

The cache argument is `cache` from transformers 5.24 and `past_key_values` before; a forward given it
under the other name swallows it into `**kwargs` and runs on a fresh cache of its own, without an
error. So, for every family, on whatever release is installed:
- the probe that measures a token's bytes sees the keys it asked for (never 0 bytes per token);
- every cache update during a bounded generate lands in the `BoundedCache` kvlimit built (a model
  that ignored it would update a `DynamicCache` of its own), and that cache is what generate returns;
- a release below the floor is refused with the command that installs a supported one.
"""

from __future__ import annotations

import inspect

import pytest
import torch
from transformers.cache_utils import Cache

import kvlimit
from kvlimit.integrations import hf

from .helpers import FAMILIES, attn_implementations, left_padded, make_model, model_type, output_cache

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("family", FAMILIES)
def test_the_probe_sees_the_keys_it_asked_for(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    shapes = hf.probe_kv_shapes(model)
    assert len(shapes) == model.config.get_text_config().num_hidden_layers
    per_token = hf.probe_kv_bytes_per_token(model)
    assert per_token > 0 and per_token == kvlimit.kv_bytes_per_token(model)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_update_lands_in_the_bounded_cache(family, monkeypatch):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    assert hf.CACHE_ARG in inspect.signature(type(model).forward).parameters, (family, hf.CACHE_ARG)
    kvlimit.kv_bytes_per_token(model)  # the probe's own forward (a stock cache, remembered per model) first
    updated: list[str] = []
    original = Cache.update

    def spy(self, *args, **kwargs):
        updated.append(type(self).__name__)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Cache, "update", spy)
    ids, mask = left_padded(model, lengths=(4, 9))
    limit = 6
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, max_new_tokens=8,
                           min_new_tokens=8, do_sample=False, return_dict_in_generate=True)  # fmt: skip
    cache = output_cache(out)
    assert isinstance(cache, kvlimit.BoundedCache)
    assert updated and set(updated) == {"BoundedCache"}, f"{family}: updates went to {sorted(set(updated))}"
    assert max(cache.stored_tokens()) <= limit and cache.columns_seen == ids.shape[1] + 7


def test_a_release_below_the_floor_is_refused_with_the_fix():
    hf.check_release("5.24.0")
    hf.check_release("5.18.0.dev0")  # a development build of the floor counts as the floor
    with pytest.raises(
        ImportError, match=r"kvlimit needs transformers >= 5\.18\.0 .* has 5\.17\.0: pip install"
    ):
        hf.check_release("5.17.0")
    with pytest.raises(ImportError, match=r"has 4\.57\.1"):
        hf.check_release("4.57.1")


def test_the_cache_is_passed_under_either_name():
    """A user may write `cache=` or `past_key_values=`: kvlimit passes it on under this release's name."""
    model = make_model("llama")
    ids = torch.tensor([[5, 6, 7, 8]])
    for name in ("cache", "past_key_values"):
        built = kvlimit.build_cache(model, kvlimit.LimitConfig.create(6, n_sink=2))
        out = kvlimit.generate(model, input_ids=ids, max_new_tokens=6, do_sample=False, return_dict_in_generate=True,
                               **{name: built})  # fmt: skip
        assert output_cache(out) is built and built.stored_tokens() == [6]
    assert model_type("llama") == "llama"
