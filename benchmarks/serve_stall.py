"""The stall a long prompt's prefill puts on the rows that are decoding: the engine before this change
(main at e529381: a prompt prefilled whole, all its chunks at once, when a row frees) against now (one
chunk per decode step, the server's chunk: `kvlimit.serve.app.serving_config`).

On the embedded SmolLM2-135M (float32, CPU), 2 rows, greedy, end of sequence on: a short answer, a long
story, then a long prompt; the short answer ends first and the long prompt takes its row while the story
decodes. Every decode forward of the batch is timed; reported: the story's median step and its longest
gap (the stall), and the long prompt's wait for its first token. The same tokens come out of both::

    taskset -c 1 python benchmarks/serve_stall.py --cache-limit 256 --long-tokens 2000
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import torch

import kvlimit
from kvlimit import engine as engine_now
from kvlimit.frontend import encode_prompt
from kvlimit.serve.app import serving_config

BEFORE = "e529381"


def engine_before() -> Any:
    """The engine module as it was at `BEFORE`, imported beside the current one."""
    source = subprocess.run(["git", "show", f"{BEFORE}:src/kvlimit/engine.py"], capture_output=True, text=True,
                            check=True).stdout  # fmt: skip
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("kvlimit._engine_before", handle.name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def timed(module: Any, engine: Any, stamps: list[float]) -> None:
    """Record the time of every forward of `engine`'s batch cache (its decode steps)."""
    original = module.forward_step

    def forward_step(model: Any, cache: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(model, cache, *args, **kwargs)
        if cache is engine.cache:
            stamps.append(time.perf_counter())
        return out

    module.forward_step = forward_step


def run(
    module: Any, model: Any, config: Any, requests: list[Any], decoding: dict[str, Any]
) -> dict[str, Any]:
    engine = module.ContinuousEngine(model, config, rows=2, decoding=decoding, seed=0)
    stamps: list[float] = []
    timed(module, engine, stamps)
    start = time.perf_counter()
    done = {f.id: (f, time.perf_counter()) for f in engine.run(requests)}
    short_end = done["short"][1]
    # the story's steps while the long prompt is admitted: from the short answer's end to the long one's first token
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    window = [b - a for a, b in itertools.pairwise(stamps) if b >= short_end]
    return {
        "median_step_ms": 1000 * statistics.median(gaps),
        "longest_gap_ms": 1000 * max(window),
        "seconds": time.perf_counter() - start,
        "tokens": {k: f.tokens for k, (f, _) in done.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-limit", type=int, default=256)
    parser.add_argument("--long-tokens", type=int, default=2000)
    parser.add_argument("--max-new-tokens", type=int, default=120)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    loaded = kvlimit.load_model()
    model, tokenizer = loaded.model, loaded.tokenizer
    words = ("the keeper wrote the weather and the ships in his log every night " * 400).split()
    long_text = " ".join(words[: int(args.long_tokens * 0.75)])
    prompts = {
        "short": "Name one colour.",
        "story": "Write a long story about a lighthouse keeper.",
        "long": long_text,
    }
    requests = [kvlimit.Request(k, encode_prompt(tokenizer, v, chat=True)) for k, v in prompts.items()]
    decoding = {
        "max_new_tokens": args.max_new_tokens,
        "do_sample": False,
        "pad_token_id": tokenizer.pad_token_id,
    }
    config = kvlimit.LimitConfig.create(args.cache_limit)
    served = serving_config(model, config, 2)
    with torch.no_grad():
        before = run(engine_before(), model, config, requests, decoding)
        after = run(engine_now, model, served, requests, decoding)
    result = {"cache_limit": args.cache_limit, "long_prompt_tokens": len(requests[2].input_ids),
              "prefill_chunk": served.prefill_chunk, "before": before, "after": after,
              "same_tokens": before["tokens"] == after["tokens"]}  # fmt: skip
    for name in ("before", "after"):
        r = result[name]
        print(f"{name:>6}: story's median step {r['median_step_ms']:.0f} ms, longest gap while the "
              f"{result['long_prompt_tokens']}-token prompt is prefilled {r['longest_gap_ms']:.0f} ms; run {r['seconds']:.1f} s")  # fmt: skip
    print(
        f"prefill chunk {served.prefill_chunk} tokens; the same tokens before and after: {result['same_tokens']}"
    )
    if args.json:
        for name in ("before", "after"):
            result[name].pop("tokens")
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
