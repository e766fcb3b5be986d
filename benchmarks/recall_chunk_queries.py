"""Streaming perplexity with the recall tier, by how many of a prompt chunk's last queries choose its
recalled blocks (`recall_queries`; 0: all of them, the mean, as before it was an option), beside `sinks`.

`kvlimit ppl` feeds a text in chunks of a quarter of the limit, so every chunk's tokens attend the
blocks its choosing queries chose: this is where choosing by a chunk's last queries could cost what it
gains on a question at a prompt's end (`benchmarks/retrieval_suite.py --configs ...:qN`). Texts: the
Botchan corpus (what recall was tuned on) and any held-out files given.

    python benchmarks/recall_chunk_queries.py --texts corpus,/usr/share/common-licenses/GPL-3 --queries 0,8
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

import torch
from tqdm import tqdm

import kvlimit
from kvlimit.eval import corpus
from kvlimit.eval.perplexity import streaming_perplexity
from kvlimit.models import load_model


def text_ids(name: str, tokenizer: Any, max_tokens: int) -> torch.Tensor:
    """The first `max_tokens` tokens of a text, tokenized as `kvlimit ppl` tokenizes it."""
    path = corpus.ensure_corpus() if name == "corpus" else pathlib.Path(name)
    ids = tokenizer(path.read_text(encoding="utf-8"), return_attention_mask=False)["input_ids"]
    return torch.tensor(ids[:max_tokens])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", default="corpus", help="comma-separated: corpus (Botchan) or file paths")
    parser.add_argument("--limits", default="256,1024")
    parser.add_argument("--queries", default="0,8", help="recall_queries values (0: all of a chunk's)")
    parser.add_argument("--recall", type=float, default=0.25, help="recalled slots, a fraction of the limit")
    parser.add_argument("--max-tokens", type=int, default=10_000)
    parser.add_argument("--chunk", type=float, default=0.25,
                        help="tokens per forward, a fraction of the limit (default 0.25: as `kvlimit ppl`)")  # fmt: skip
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    torch.set_num_threads(2)
    loaded = load_model(None)
    limits = [int(x) for x in args.limits.split(",")]
    queries = [int(x) for x in args.queries.split(",")]
    texts = args.texts.split(",")
    runs = [(t, limit, q) for t in texts for limit in limits for q in [None, *queries]]
    results = []
    for name, limit, q in tqdm(runs, desc="perplexity", file=sys.stderr):
        ids = text_ids(name, loaded.tokenizer, args.max_tokens)
        config = (kvlimit.LimitConfig.create(limit) if q is None else
                  kvlimit.LimitConfig.create(limit, recall=int(args.recall * limit), recall_queries=q))  # fmt: skip
        ppl = streaming_perplexity(loaded.model, ids, cache_limit=config, chunk=int(args.chunk * limit)).ppl
        results.append(
            {"text": name, "limit": limit, "recall_queries": q, "tokens": int(ids.numel()), "ppl": ppl}
        )
    print(f"streaming perplexity, recall {args.recall} and chunks {args.chunk} of the limit, by recall_queries"
          " (sinks: no recall)")  # fmt: skip
    for name in texts:
        for limit in limits:
            cells = {
                r["recall_queries"]: r["ppl"] for r in results if r["text"] == name and r["limit"] == limit
            }
            line = "  ".join(f"q={q}: {cells[q]:.3f}" for q in queries)
            print(f"{name.split('/')[-1]:>10} @ {limit:>5}: sinks {cells[None]:.3f}  {line}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
