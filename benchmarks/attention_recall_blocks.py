"""How recall's block choices hold the full cache's attention, side by side (`kvlimit.eval.attention_recall`).

On a text recall's choices were tuned on (the Botchan corpus) and one they never looked at (kvlimit's own
source, the retrieval suite's held-out filler; it changes with the code), the last `--steps` decode steps of
`--tokens` tokens are measured at limits of a quarter and an eighth of the context, for R = L/4 recalled
slots (`--shares 4,2` adds L/2): the share of the full cache's attention on the tokens each step attended, over the share
of the best set of as many tokens (the oracle); sinks alone at the same limit beside. Variants: blocks of
16 and of 4 tokens, scored by keys (position-blind) and by distance (`--variants` picks some), each
with the store in each of `--recall-dtypes` (default: none, the model's dtype).

    python benchmarks/attention_recall_blocks.py --json results/recall/attention-blocks.json
    python benchmarks/attention_recall_blocks.py --variants "distance b4" --recall-dtypes none,bfloat16,float16
    python benchmarks/attention_recall_blocks.py --variants "distance b4" --recall-every 1,2,4 --every 1
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import torch
from tqdm import tqdm

import kvlimit
from kvlimit.eval.attention_recall import attention_recall
from kvlimit.eval.retrieval import filler_text
from kvlimit.models import load_model

VARIANTS = {
    "keys b16": ("keys", 16),
    "distance b16": ("distance", 16),
    "keys b4": ("keys", 4),
    "distance b4": ("distance", 4),
}
TEXTS = {"botchan (tuned on)": "botchan-a", "kvlimit source (held out)": "source"}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=64, help="decode steps measured, the text's last")
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--shares", default="4", help="R = L / each of these")
    parser.add_argument(
        "--variants", default=",".join(VARIANTS), help="comma separated, of: " + ", ".join(VARIANTS)
    )
    parser.add_argument(
        "--recall-dtypes", default="none", help="the store's dtypes, comma separated (none: the model's)"
    )
    parser.add_argument("--recall-every", default="1",
                        help="decode steps between block choices, comma separated (default: 1); measure "
                        "with --every 1, as a step measured every N may be a choosing step each time")  # fmt: skip
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    dtypes = [None if d == "none" else d for d in args.recall_dtypes.split(",")]
    everies = [int(e) for e in args.recall_every.split(",")]
    variants = {f"{v}{'' if d is None else ' ' + d}{'' if e == 1 else f' every {e}'}": (*VARIANTS[v], d, e)
                for v in args.variants.split(",") for d in dtypes for e in everies}  # fmt: skip
    loaded = load_model(None)
    rows: list[dict[str, Any]] = []
    work = [(text, fraction, share, name) for text in TEXTS for fraction in (4, 8)
            for share in (int(s) for s in args.shares.split(","))
            for name in variants]  # fmt: skip
    with tqdm(total=len(work), desc="attention recall", file=sys.stderr) as bar:
        for text, fraction, share, name in work:
            ids = loaded.tokenizer(filler_text(TEXTS[text]), add_special_tokens=False)["input_ids"][
                : args.tokens
            ]
            limit = args.tokens // fraction
            score, block, dtype, every = variants[name]
            config = kvlimit.LimitConfig.create(limit, recall=limit // share, recall_score=score, recall_block=block,
                                                recall_dtype=dtype, recall_every=every)  # fmt: skip
            (result,) = attention_recall(loaded.model, torch.tensor([ids]), {name: config},
                                         start=args.tokens - args.steps, every=args.every)  # fmt: skip
            rows.append({"text": text, "limit": limit, "recall": limit // share, "variant": name,
                         "share": round(result.share, 4), "oracle": round(result.oracle, 4),
                         "of_oracle": round(result.of_oracle, 4), "sinks": round(result.sinks, 4),
                         "sinks_of_oracle": round(result.sinks / result.oracle, 4)})  # fmt: skip
            bar.update()
    print(f"attention recall, the last {args.steps} steps of {args.tokens} tokens (every {args.every}); "
          "share of the full cache's attention held / the oracle's:")  # fmt: skip
    width = max(12, *(len(v) for v in variants))
    print(f"  {'text':<26} {'limit':>5} {'R':>4} {'sinks':>6} " + " ".join(f"{v:>{width}}" for v in variants))
    for i in range(0, len(rows), len(variants)):
        group = rows[i : i + len(variants)]
        first = group[0]
        print(f"  {first['text']:<26} {first['limit']:>5} {first['recall']:>4} {first['sinks_of_oracle']:>6.3f} "
              + " ".join(f"{r['of_oracle']:>{width}.3f}" for r in group))  # fmt: skip
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(
                {"tokens": args.tokens, "steps": args.steps, "every": args.every, "rows": rows},
                handle,
                indent=1,
            )


if __name__ == "__main__":
    main()
