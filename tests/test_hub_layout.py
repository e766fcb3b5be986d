"""`hub/`: kvlimit as a transformers `custom_generate` repository, pushed as it is, tested from the folder.

`model.generate(..., custom_generate="<folder>", trust_remote_code=True, cache_limit=N)` must run
kvlimit (identical tokens to `kvlimit.generate`, a bounded cache in the output), pass a streamer on,
be stock generate without `cache_limit`, and its model card must carry the tag and the sections
transformers' examples use.
"""

from __future__ import annotations

import pathlib
import re

import pytest
import torch
from transformers.generation.streamers import BaseStreamer

import kvlimit

from .helpers import left_padded, make_model, output_cache

pytestmark = pytest.mark.oracle  # transformers' loading of a custom_generate folder, on every release

HUB = pathlib.Path(__file__).resolve().parents[1] / "hub"


def test_the_folder_is_a_custom_generate_repository():
    assert (HUB / "custom_generate" / "generate.py").is_file()
    requirements = (HUB / "custom_generate" / "requirements.txt").read_text().split()
    assert any(line.startswith("kvlimit>=") for line in requirements)
    card = (HUB / "README.md").read_text()
    front = re.match(r"---\n(.*?)\n---\n", card, re.S)
    assert front and "library_name: transformers" in front.group(1) and "- custom_generate" in front.group(1)
    for section in ("Base model", "Model compatibility", "Additional Arguments", "Output Type changes",
                    "Example usage"):  # fmt: skip
        assert f"## {section}" in card, section
    for family in kvlimit.supported_families():  # the card lists what really works
        assert family in card, family


def test_generate_from_the_folder_is_kvlimit():
    model = make_model("llama")
    ids, mask = left_padded(model, lengths=(4, 9))
    kwargs = dict(input_ids=ids, attention_mask=mask, max_new_tokens=20, do_sample=False, cache_limit=8,
                  policy="sinks", n_sink=2, return_dict_in_generate=True)  # fmt: skip
    out = model.generate(custom_generate=str(HUB), trust_remote_code=True, **kwargs)
    want = kvlimit.generate(model, **kwargs)
    assert torch.equal(out.sequences, want.sequences)
    cache = output_cache(out)
    assert isinstance(cache, kvlimit.BoundedCache) and cache.cache_limit == 8
    assert max(cache.stored_tokens()) == 8


def test_without_a_limit_the_folder_is_stock_generate_and_streams():
    class Recorder(BaseStreamer):
        def __init__(self):
            self.puts: list[list[int]] = []

        def put(self, value):
            self.puts.append(value.reshape(-1).tolist())

        def end(self):
            pass

    model = make_model("llama")
    ids = torch.tensor([[5, 6, 7, 8]])
    stock = model.generate(input_ids=ids, max_new_tokens=6, do_sample=False)
    plain = model.generate(input_ids=ids, max_new_tokens=6, do_sample=False, custom_generate=str(HUB),
                           trust_remote_code=True)  # fmt: skip
    assert torch.equal(plain, stock)
    streamer = Recorder()
    bounded = model.generate(input_ids=ids, max_new_tokens=6, do_sample=False, custom_generate=str(HUB),
                             trust_remote_code=True, cache_limit=6, n_sink=2, streamer=streamer)  # fmt: skip
    assert streamer.puts[0] == ids[0].tolist()
    assert [t for put in streamer.puts[1:] for t in put] == bounded[0, 4:].tolist()
