"""Helpers shared by the test modules: inputs, a bounded cache with explicit settings, replayed scores,
host-sync counting. Oracles (reference computations) live in `oracles.py`, tiny models in `families.py`."""

from __future__ import annotations

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from transformers import LogitsProcessor

import kvlimit
from kvlimit.integrations.hf import cache_argument, output_cache

from .oracles import replay_logits

__all__ = [
    "EOS",
    "QUANT_TOLERANCE",
    "ForceTokens",
    "SyncCounter",
    "beam_score",
    "bounded_cache",
    "cache_argument",
    "left_padded",
    "output_cache",
    "spy_caches",
    "syncs_per_step",
]

EOS = 2
#: Largest |logit - float logit| a quantized cache may show with teacher forcing on the 0.02-init tiny
#: models (test_quantized.py), and so also the most a quantized row alone and in its padded batch may
#: differ by (test_fuzz.py): float noise between the two can move a value across a rounding boundary.
#: a 16-bit recall store rounds each element to 2^-9 (bfloat16) or 2^-12 (float16) of itself
QUANT_TOLERANCE = {"int8": 0.05, "fp8": 0.25, "int4": 0.5, "k8v4": 0.5, "bfloat16": 0.05, "float16": 0.01}
#: Decode-step host syncs are counted over two runs of these lengths (set-up work cancels out).
SHORT, LONG = 12, 24


def left_padded(model, lengths=(5, 9), seed=1):
    generator = torch.Generator().manual_seed(seed)
    width = max(lengths)
    ids = torch.randint(3, model.config.vocab_size, (len(lengths), width), generator=generator)
    mask = torch.zeros_like(ids)
    for row, n in enumerate(lengths):
        ids[row, : width - n] = model.config.pad_token_id
        mask[row, width - n :] = 1
    return ids, mask


class ForceTokens(LogitsProcessor):
    """Makes greedy generation take `tokens` in order: teacher forcing through generate itself."""

    def __init__(self, tokens: list[int], prompt_length: int):
        self.tokens = tokens
        self.prompt_length = prompt_length

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        forced = torch.full_like(scores, float("-inf"))
        forced[:, self.tokens[input_ids.shape[1] - self.prompt_length]] = 0.0
        return forced


def bounded_cache(
    model,
    limit,
    policy="sinks",
    max_length=None,
    *,
    rebase_after=None,
    rank_every=2,
    kv_dtype=None,
    **settings,
):
    """A `BoundedCache` for `model` built with explicit position settings (pass it to generate as `cache=`)."""
    config = kvlimit.LimitConfig.create(limit, policy, kv_dtype=kv_dtype, **settings)
    return kvlimit.build_cache(
        model, config, max_length=max_length, rebase_after=rebase_after, rank_every=rank_every
    )


def beam_score(model, cache, prompt, prompt_mask, generated, length_penalty, chunk):
    """Sum of the replayed log-probs of `generated` (up to its EOS) over length ** length_penalty."""
    end = len(generated)
    if EOS in generated:
        end = generated.index(EOS) + 1
    tokens = torch.tensor([generated[:end]])
    logits = replay_logits(model, cache, prompt, prompt_mask, tokens, chunk=chunk)
    total = sum(
        torch.log_softmax(step[0].float(), -1)[tok] for step, tok in zip(logits, generated[:end], strict=True)
    )
    return total / end**length_penalty


class SyncCounter(TorchDispatchMode):
    """Counts host reads of tensor values inside the block."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is torch.ops.aten._local_scalar_dense.default:
            self.count += 1
        return func(*args, **(kwargs or {}))


def syncs_per_step(model, ids, mask, **kwargs) -> float:
    counts = []
    for new_tokens in (SHORT, LONG):
        counter = SyncCounter()
        with counter:
            model.generate(
                input_ids=ids, attention_mask=mask, max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                **{"do_sample": False, **kwargs},
            )  # fmt: skip
        counts.append(counter.count)
    return (counts[1] - counts[0]) / (LONG - SHORT)


def spy_caches(monkeypatch) -> list:
    """The caches the batch job (`kvlimit.jobs`) generates with: each static batch's, and the continuous
    engine's at the end of its run."""
    from kvlimit import jobs

    caches: list = []
    original = jobs.generate

    def spy(*args, **kwargs):
        out = original(*args, return_dict_in_generate=True, **kwargs)
        caches.append(output_cache(out))
        return out.sequences

    class Recording(jobs.ContinuousEngine):
        def run(self, requests):
            yield from super().run(requests)
            caches.append(self.cache)

    monkeypatch.setattr(jobs, "generate", spy)
    monkeypatch.setattr(jobs, "ContinuousEngine", Recording)
    return caches
