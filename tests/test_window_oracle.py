"""A multi-layer oracle for the `window` policy: streaming equals a banded full-sequence forward.

With the window policy every token j attends to tokens j-L+1..j (L = cache_limit) in every
bounded layer, and RoPE/in-cache distances equal absolute distances. So the logits of each
generated step must equal one forward over the whole sequence with a banded mask (layers of the
model's own sliding type keep their window W). This checks all layers at once: rebased positions,
decode-time eviction, token-by-token prefill, and the dict of masks used when a model mixes
its own sliding layers (window < limit) with bounded full layers.
"""

import pytest
import torch

import kvlimit

from .helpers import (
    ROPE_FAMILIES,
    SLIDING_WINDOW,
    attn_implementations,
    bounded_cache,
    left_padded,
    make_model,
    output_cache,
    real_tokens,
)

#: run on every supported transformers release (scripts/test-releases.sh)
pytestmark = pytest.mark.oracle

LIMIT = 6
NEW = 24


def band(length: int, width: int, eager: bool, dtype: torch.dtype) -> torch.Tensor:
    """(1, 1, length, length) mask: query i sees keys i-width+1..i."""
    i = torch.arange(length)[:, None]
    j = torch.arange(length)[None, :]
    allowed = (j <= i) & (j > i - width)
    if eager:
        return torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)[
            None, None
        ]
    return allowed[None, None]


def banded_logits(model, tokens: list[int], limit: int) -> torch.Tensor:
    eager = model.config._attn_implementation == "eager"
    n = len(tokens)
    full = band(n, limit, eager, model.dtype)
    layer_types = set(getattr(model.config.get_text_config(), "layer_types", None) or [])
    mask = full
    if "sliding_attention" in layer_types and "full_attention" in layer_types:
        window = min(limit, SLIDING_WINDOW)  # bounded too when the limit is below the model's window
        mask = {"full_attention": full, "sliding_attention": band(n, window, eager, model.dtype)}
    elif getattr(model.config, "sliding_window", None):
        mask = band(n, min(limit, model.config.sliding_window), eager, model.dtype)
    with torch.no_grad():
        return model(
            input_ids=torch.tensor([tokens]), attention_mask=mask, position_ids=torch.arange(n)[None]
        ).logits[0]


def run(model, limit, lengths, prefill_chunk=None, rebase_after=None):
    """`rebase_after` None: the production rebase interval; else RoPE keys are rebased that often."""
    ids, mask = left_padded(model, lengths=lengths)
    cache = bounded_cache(model, limit, "window", rebase_after=rebase_after) if rebase_after else None
    out = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, policy="window", cache=cache,
                           prefill_chunk=prefill_chunk, max_new_tokens=NEW, min_new_tokens=NEW, do_sample=False,
                           return_dict_in_generate=True, output_logits=True)  # fmt: skip
    for row in range(ids.shape[0]):
        tokens = real_tokens(out.sequences[row], mask[row])
        prompt = int(mask[row].sum())
        want = banded_logits(model, tokens[:-1], limit)
        for step, logits in enumerate(out.logits):
            torch.testing.assert_close(logits[row], want[prompt - 1 + step], atol=2e-4, rtol=2e-4)
    return out


@pytest.mark.parametrize("family", sorted(ROPE_FAMILIES))
def test_window_equals_banded_forward(family):
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    run(model, LIMIT, lengths=(3, 5), rebase_after=4 * LIMIT)


@pytest.mark.parametrize("family", ["llama", "gemma2", "gemma3_text", "qwen3"])
def test_window_long_prompt_token_by_token(family):
    """Prompts longer than the limit, prefilled one token per forward: exactly streaming."""
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    run(model, LIMIT, lengths=(9, 14), prefill_chunk=1, rebase_after=4 * LIMIT)


@pytest.mark.parametrize("family", ["gemma2", "gemma3_text"])
def test_own_sliding_window_below_the_limit(family):
    """limit 12 > window 8: sliding layers are transformers' own, full layers are bounded (dict masks)."""
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    out = run(model, 12, lengths=(3, 7))
    assert output_cache(out).sliding_indices and output_cache(out).bounded_indices


@pytest.mark.parametrize("family", ["gemma2", "gemma3_text"])
def test_forward_step_remembers_left_padding_for_the_models_own_sliding_layers(family):
    """Outside generate, a left-padded row's pad columns stay masked in transformers' own sliding layers
    (limit 9 > window 8) for as long as they are inside the window: decode steps equal the banded forward."""
    model = make_model(family, attn_implementation=attn_implementations(family)[0])
    ids, mask = left_padded(model, lengths=(4, 9))
    limit = 9
    cache = kvlimit.build_cache(model, kvlimit.LimitConfig.create(limit, "window"))
    assert cache.sliding_indices and cache.bounded_indices
    generator = torch.Generator().manual_seed(4)
    fed = torch.randint(3, model.config.vocab_size, (2, 12), generator=generator)
    logits = [kvlimit.forward_step(model, cache, ids, mask).logits[:, -1]]
    for t in range(fed.shape[1]):
        logits.append(kvlimit.forward_step(model, cache, fed[:, t : t + 1]).logits[:, -1])
    for row in range(2):
        tokens = ids[row][mask[row].bool()].tolist() + fed[row].tolist()
        want = banded_logits(model, tokens, limit)
        prompt = int(mask[row].sum())
        for step, got in enumerate(logits):
            torch.testing.assert_close(got[row], want[prompt - 1 + step], atol=2e-4, rtol=2e-4)
