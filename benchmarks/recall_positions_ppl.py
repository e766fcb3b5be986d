"""Perplexity token by token (what generation sees) of `sinks` and of recall with each `recall_positions`.

A text streamed through each cache one token per forward (`--chunk 1`, the default): every token is a
decode step, its recalled blocks chosen by its own query, as in generation. `kvlimit ppl` feeds chunks of
a quarter of the limit instead, where one choice serves a chunk and the first tokens of a chunk see a
shorter recent window; the two measure different things (README, "Where recalled tokens sit"). The
first `--tokens` tokens of TEXT (`corpus`: Botchan, which recall was tuned on; any UTF-8 file), at each
`--limits` limit, R = L/4; a table of perplexities, per segment of `--segment` tokens, and the ratio
to `sinks`, in one run.

    python benchmarks/recall_positions_ppl.py corpus --tokens 6000 --limits 256,1024
    python benchmarks/recall_positions_ppl.py /usr/share/common-licenses/GPL-3 --tokens 3000 --limits 256
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

import kvlimit
from kvlimit.eval.corpus import ensure_corpus
from kvlimit.eval.perplexity import streaming_perplexity
from kvlimit.models import load_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("text", nargs="?", default="corpus", help="a UTF-8 file, or corpus (Botchan)")
    parser.add_argument("--tokens", type=int, default=3000)
    parser.add_argument("--limits", default="256")
    parser.add_argument(
        "--places", default="packed,distance,full", help="recall_positions to run beside sinks"
    )
    parser.add_argument("--chunk", type=int, default=1, help="tokens per forward (1: every token decoded)")
    parser.add_argument("--segment", type=int, default=1000)
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args()
    torch.set_grad_enabled(False)
    loaded = load_model(None)
    path = ensure_corpus() if args.text == "corpus" else Path(args.text)
    ids = loaded.tokenizer(path.read_text(encoding="utf-8"), add_special_tokens=False)["input_ids"][
        : args.tokens
    ]
    print(f"perplexity of {path.name}'s first {len(ids)} tokens, {args.chunk} token(s) per forward, R = L/4")
    rows = []
    for limit in (int(x) for x in args.limits.split(",")):
        configs = {"sinks": kvlimit.LimitConfig.create(limit, "sinks")}
        for place in args.places.split(","):
            configs[f"recall {place}"] = kvlimit.LimitConfig.create(
                limit, "sinks", recall=limit // 4, recall_positions=place
            )
        base = None
        for name, config in configs.items():
            started = time.perf_counter()
            result = streaming_perplexity(
                loaded.model, ids, cache_limit=config, chunk=args.chunk, segment=args.segment
            )
            base = result.ppl if base is None else base
            segments = [round(ppl, 3) for _, _, ppl in result.segments]
            rows.append({"limit": limit, "config": name, "ppl": result.ppl, "segments": segments,
                         "seconds": round(time.perf_counter() - started, 1)})  # fmt: skip
            print(f"limit {limit:5d}  {name:18s} ppl {result.ppl:8.3f}  {result.ppl / base:.4f}x sinks  "
                  f"segments {segments}  {rows[-1]['seconds']:.0f} s", flush=True)  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps({"text": str(path), "tokens": len(ids), "chunk": args.chunk,
                                               "rows": rows}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
