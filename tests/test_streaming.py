"""Streamers receive exactly the generated tokens, in order, also through custom_generate (issue 3)."""

import threading

import pytest
import torch
from transformers.generation.streamers import BaseStreamer

import kvlimit

from .helpers import make_model


class Recorder(BaseStreamer):
    def __init__(self):
        self.puts: list[list[int]] = []
        self.ended = 0

    def put(self, value):
        self.puts.append(value.reshape(-1).tolist())

    def end(self):
        self.ended += 1


@pytest.mark.parametrize("route", ["direct", "custom_generate", "enable"])
def test_streamer_gets_the_prompt_then_each_token(route):
    model = make_model("llama")
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    streamer = Recorder()
    kwargs = dict(input_ids=ids, max_new_tokens=25, min_new_tokens=25, cache_limit=8, streamer=streamer)
    if route == "direct":
        out = kvlimit.generate(model, **kwargs)
    elif route == "custom_generate":
        out = model.generate(custom_generate=kvlimit.generate, **kwargs)
    else:
        kvlimit.enable(model)
        out = model.generate(**kwargs)
        kvlimit.disable(model)
    assert streamer.puts[0] == ids[0].tolist()
    assert [tok for put in streamer.puts[1:] for tok in put] == out[0, ids.shape[1] :].tolist()
    assert streamer.ended == 1


def word_tokenizer():
    """A 128-word tokenizer built offline ("w0" .. "w127"), matching the tiny models' vocabulary."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.WordLevel({f"w{i}": i for i in range(128)}, unk_token="w3"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="w0", bos_token="w1", eos_token="w2")


def test_text_iterator_streamer_in_a_thread():
    from transformers import TextIteratorStreamer

    tokenizer = word_tokenizer()
    model = make_model("llama")
    ids = torch.tensor([tokenizer.encode("w10 w11 w12 w13")])
    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True)
    result = {}

    def run():
        result["out"] = kvlimit.generate(model, input_ids=ids, max_new_tokens=30, min_new_tokens=30, cache_limit=6,
                                         do_sample=False, streamer=streamer)  # fmt: skip

    thread = threading.Thread(target=run)
    thread.start()
    text = "".join(streamer)
    thread.join()
    assert text == tokenizer.decode(result["out"][0, ids.shape[1] :], skip_special_tokens=True)
