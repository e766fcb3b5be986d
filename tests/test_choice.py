"""The batched choice of every row's token (`kvlimit.choice.RowChoice`) against transformers' own.

Oracles: for random rows, each with its own decoding settings (temperature, top-k, top-p, min-p,
repetition penalty, minimum new tokens, end of sequence, stop strings) prepared by transformers for its
prompt alone, the batched scores equal, exactly, the row's processors applied to the row alone; the
chosen tokens equal `argmax` (greedy) or `torch.multinomial` from a generator seeded the same (sampling),
step after step (the generators stay in step); the done flags equal the row's stopping criteria; a row
with a processor the choice does not batch goes through its own processors, in the same pass.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlimit.choice import RowChoice, batchable
from kvlimit.integrations import hf

from .helpers import build_tiny, make_model

MODEL = make_model("llama")
VOCAB = MODEL.config.vocab_size

DECODINGS = st.fixed_dictionaries(
    {"do_sample": st.booleans()},
    optional={
        "temperature": st.sampled_from([0.5, 0.8, 1.3]),
        "top_k": st.integers(1, 40),
        "top_p": st.sampled_from([0.3, 0.7, 0.9, 0.95]),
        "min_p": st.sampled_from([0.05, 0.2]),
        "repetition_penalty": st.sampled_from([0.8, 1.2, 1.5]),
        "min_new_tokens": st.integers(0, 6),
        "no_repeat_ngram_size": st.just(2),  # not batched: the row's own processors
    },
)


def _rules(decoding, prompt):
    eos = int(torch.randint(3, VOCAB, (1,), generator=torch.Generator().manual_seed(len(prompt))))
    ids = torch.tensor([prompt])
    rules = hf.prepared_rules(MODEL, ids, max_new_tokens=5, eos_token_id=[2, eos], pad_token_id=0, **decoding)
    return ids, rules


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    decodings=st.lists(DECODINGS, min_size=1, max_size=4),
    prompts=st.lists(st.lists(st.integers(3, VOCAB - 1), min_size=1, max_size=12), min_size=4, max_size=4),
    seed=st.integers(0, 1000),
)
def test_rows_choose_as_each_alone(decodings, prompts, seed):
    rows = len(decodings)
    choice = RowChoice(rows, VOCAB, 8, torch.device("cpu"))
    alone = []
    for b, decoding in enumerate(decodings):
        ids, rules = _rules(decoding, prompts[b])
        generators = (
            [torch.Generator().manual_seed(seed + b) for _ in range(2)]
            if decoding["do_sample"]
            else [None, None]
        )
        choice.start(b, ids, rules, generators[0])
        alone.append([ids, rules, generators[1], False])
        assert batchable(rules) == ("no_repeat_ngram_size" not in decoding)
    logits_gen = torch.Generator().manual_seed(seed)
    for _step in range(5):
        live = [b for b in range(rows) if not alone[b][3]]
        if not live:
            break
        logits = torch.randn((len(live), VOCAB), generator=logits_gen) * 3
        index = torch.tensor(live)
        batched = choice.scores(logits, live, index)
        tokens, host, done = choice.choose(logits, live)
        for i, b in enumerate(live):
            ids, rules, generator, _ = alone[b]
            scores = hf.apply_processors(rules.processors, ids, logits[i : i + 1].clone())
            assert torch.equal(batched[i : i + 1], scores), (b, decodings[b])
            if generator is None:
                token = int(scores.argmax(dim=-1))
            else:
                token = int(torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator)[0, 0])
            assert host[i] == token == int(tokens[i])
            ids = torch.cat((ids, torch.tensor([[token]])), dim=1)
            stop = bool(rules.stopping(ids, scores)[0])
            assert done[i] == stop
            alone[b] = [ids, rules, generator, stop]
            assert torch.equal(choice.row_ids(b), ids)


def test_stop_strings_and_the_buffer_growing(tmp_path):
    tiny = build_tiny(tmp_path)
    prompt = tiny.tokenizer("the quick brown", return_tensors="pt")["input_ids"]
    rules = hf.prepared_rules(tiny.model, prompt, tokenizer=tiny.tokenizer, max_new_tokens=400, stop_strings=["fox"],
                              do_sample=False)  # fmt: skip
    vocab = tiny.model.config.vocab_size
    choice = RowChoice(1, vocab, 4, torch.device("cpu"))  # a buffer narrower than the prompt: it grows
    choice.start(0, prompt, rules, None)
    fox = tiny.tokenizer(" fox", add_special_tokens=False)["input_ids"]
    done = [False]
    for token in fox:
        logits = torch.full((1, vocab), -10.0)
        logits[0, token] = 10.0
        _, host, done = choice.choose(logits, [0])
        assert host == [token]
    assert done == [True]
    assert choice.new_tokens(0) == fox
    assert torch.equal(choice.row_ids(0), torch.cat((prompt, torch.tensor([fox])), dim=1))
