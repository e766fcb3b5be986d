"""How far int4 keys are from float, and what simple changes to the scheme would buy: attention KL.

Captures the embedded model's queries and RoPE-rotated keys over `--tokens` corpus tokens (eager
attention, one forward), then, per layer, the KL divergence of the last 256 queries' attention from
the float attention when the keys are stored through each variant (the sinks, the first 4 tokens, kept
in float as `QuantizedStore` keeps them). Variants: int8 and int4 as kvlimit stores them (blocks of 32
dims, int4 turned by a Hadamard matrix); int4 in blocks of 16 and of a whole head (64); int4 of the
keys minus a per-head, per-channel mean (taken from tokens 4-259: a fixed offset, stored in float);
int4 of the keys scaled per channel by the queries' RMS (or its square root) before the turn, and
scaled back after. An emulation: the scheme's own quantize/dequantize, outside the cache.

    python benchmarks/int4_keys.py --tokens 2048 > results/ppl/quant/int4-keys-kl.txt
"""

from __future__ import annotations

import argparse
from typing import Any

import torch
from recall_speed import corpus_ids
from transformers.models.llama import modeling_llama

from kvlimit.cache.quant import scheme
from kvlimit.models import load_model

SINKS = 4
QUERIES = 256


def capture(model: Any, ids: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Per layer, the (heads, T, dim) queries and the (kv_heads, T, dim) keys the attention gets."""
    captured = []
    original = modeling_llama.eager_attention_forward

    def tap(module: Any, query: torch.Tensor, key: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        captured.append((query[0].clone(), key[0].clone()))
        return original(module, query, key, *args, **kwargs)

    modeling_llama.eager_attention_forward = tap
    try:
        model(input_ids=ids)
    finally:
        modeling_llama.eager_attention_forward = original
    return captured


def variants(queries: torch.Tensor, keys: torch.Tensor) -> dict[str, torch.Tensor]:
    """Each variant's stored-and-read keys (kv_heads, T, dim)."""
    int4, int8 = scheme("int4"), scheme("int8")

    def through(s: Any, x: torch.Tensor, block: int) -> torch.Tensor:
        return s.dequantize(s.quantize(x, block), torch.float32)

    heads, kv_heads = queries.shape[0], keys.shape[0]
    offset = keys[:, SINKS : SINKS + 256].mean(dim=1, keepdim=True)
    rms = (
        queries[:, SINKS : SINKS + 256].pow(2).mean(1).reshape(kv_heads, heads // kv_heads, -1).mean(1).sqrt()
    )
    weight = (rms / rms.mean(-1, keepdim=True)).unsqueeze(1)
    root = weight.sqrt()
    return {
        "int8 (kvlimit)": through(int8, keys, 32),
        "int4 (kvlimit: blocks of 32, turned)": through(int4, keys, 32),
        "int4, blocks of 16": through(int4, keys, 16),
        "int4, blocks of 64 (the head)": through(int4, keys, 64),
        "int4, mean removed": offset + through(int4, keys - offset, 32),
        "int4, mean removed, blocks of 16": offset + through(int4, keys - offset, 16),
        "int4, scaled by query RMS": through(int4, keys * weight, 32) / weight,
        "int4, scaled by sqrt(query RMS)": through(int4, keys * root, 32) / root,
        "int4, mean removed, sqrt(query RMS)": offset + through(int4, (keys - offset) * root, 32) / root,
    }


def attention_kl(queries: torch.Tensor, keys: torch.Tensor, stored: torch.Tensor) -> float:
    """Mean KL(float attention || attention over `stored` keys) of the last QUERIES queries."""
    heads, kv_heads, dim = queries.shape[0], keys.shape[0], queries.shape[-1]
    tokens = keys.shape[1]
    last = queries[:, -QUERIES:]
    causal = torch.ones(QUERIES, tokens, dtype=torch.bool).tril(tokens - QUERIES)

    def log_attention(k: torch.Tensor) -> torch.Tensor:
        logits = last @ k.repeat_interleave(heads // kv_heads, dim=0).transpose(1, 2) / dim**0.5
        return logits.masked_fill(~causal, float("-inf")).log_softmax(-1)

    stored = stored.clone()
    stored[:, :SINKS] = keys[:, :SINKS]
    ref, got = log_attention(keys), log_attention(stored)
    return float((ref.exp() * (ref - got)).nan_to_num().sum(-1).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=2048)
    args = parser.parse_args()
    torch.set_grad_enabled(False)
    loaded = load_model(None, attn_implementation="eager")
    ids = corpus_ids(loaded.tokenizer, args.tokens, torch.device("cpu"))
    per_variant: dict[str, list[float]] = {}
    for queries, keys in capture(loaded.model, ids):
        for name, stored in variants(queries, keys).items():
            per_variant.setdefault(name, []).append(attention_kl(queries, keys, stored))
    print(
        f"SmolLM2-135M, {args.tokens} corpus tokens, KL of the last {QUERIES} queries' attention, per layer"
    )
    print(f"{'variant':<40} {'mean':>9} {'worst layer':>12}")
    for name, kls in per_variant.items():
        print(f"{name:<40} {sum(kls) / len(kls):9.5f} {max(kls):12.5f}")


if __name__ == "__main__":
    main()
