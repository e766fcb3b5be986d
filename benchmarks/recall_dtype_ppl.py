"""Streaming perplexity of the recall tier with its store in each dtype, side by side in one run.

The first `--tokens` tokens of the corpus streamed through `sinks` with R = L/4 recalled slots at each
`--limits` limit (chunks of a quarter of the limit, as `kvlimit ppl`), the store in the model's dtype
and in each of `--recall-dtypes`; `sinks` alone at the same limit beside.

    python benchmarks/recall_dtype_ppl.py --tokens 5000 > results/recall/ppl-float16.txt
"""

from __future__ import annotations

import argparse

import torch

import kvlimit
from kvlimit.eval.corpus import ensure_corpus
from kvlimit.eval.perplexity import streaming_perplexity
from kvlimit.models import load_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--limits", default="256,1024")
    parser.add_argument("--recall-dtypes", default="bfloat16,float16", help="besides the model's dtype")
    args = parser.parse_args()
    torch.set_grad_enabled(False)
    loaded = load_model(None)
    ids = loaded.tokenizer(ensure_corpus().read_text(), add_special_tokens=False)["input_ids"][: args.tokens]
    dtypes = [None, *args.recall_dtypes.split(",")]
    print(f"streaming perplexity, the corpus's first {len(ids)} tokens, sinks + recall L/4 (store dtype)")
    for limit in (int(x) for x in args.limits.split(",")):
        alone = streaming_perplexity(
            loaded.model, ids, cache_limit=kvlimit.LimitConfig.create(limit, "sinks")
        )
        base = None
        for dtype in dtypes:
            config = kvlimit.LimitConfig.create(limit, "sinks", recall=limit // 4, recall_dtype=dtype)
            result = streaming_perplexity(loaded.model, ids, cache_limit=config)
            base = base or result.ppl
            store = result.extra.get("recall_bytes", 0) / 2**20
            print(f"  limit {limit:>5}, recall {limit // 4:>4}, store {dtype or 'model dtype':<11} "
                  f"ppl {result.ppl:8.4f} ({result.ppl / base - 1:+.3%}), store {store:6.1f} MiB")  # fmt: skip
        print(f"  limit {limit:>5}, sinks alone{'':>22} ppl {alone.ppl:8.4f}")


if __name__ == "__main__":
    main()
