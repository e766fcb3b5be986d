"""The committed CPU benchmark: SmolLM2-135M, stock generate vs kvlimit vs recomputation.

A thin wrapper over `kvlimit.bench.run_bench` (the same measurement as `kvlimit bench`) with the
settings of the committed `benchmarks/results/bench-smollm2-135m-cpu.*` as defaults: L = 1024,
T = 16000, policy sinks, `kvlimit bench`'s default prompt, torch's own thread count (2 on the
project's 2-core machine). Prints the report and writes `<out>/<name>.json` and `<out>/<name>.png`.

    python benchmarks/decode_bench.py                          # about 46 minutes on a 2-core CPU
    python benchmarks/decode_bench.py --tokens 2048 --name quick --out /tmp
    python benchmarks/decode_bench.py --threads 1              # steadier on a loaded, shared machine
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import torch

from kvlimit.bench import BenchSettings, plot_bench, report_lines, run_bench
from kvlimit.bench.command import DEFAULT_PROMPT
from kvlimit.models import load_model

HERE = pathlib.Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", default=None, help="model folder or .gguf (default: embedded SmolLM2-135M)"
    )
    parser.add_argument("--cache-limit", type=int, default=1024)
    parser.add_argument("--tokens", type=int, default=16000)
    parser.add_argument("--policy", default="sinks", help="comma-separated policies (default: sinks)")
    parser.add_argument("--rounds", type=int, default=200, help="interleaved rounds at KV length L")
    parser.add_argument("--recompute-steps", type=int, default=24)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's own)")
    parser.add_argument("--prompt", default=DEFAULT_PROMPT)
    parser.add_argument(
        "--out", default=str(HERE / "results"), help="output folder (default: benchmarks/results)"
    )
    parser.add_argument(
        "--name", default="bench-smollm2-135m-cpu", help="file name stem (default: bench-smollm2-135m-cpu)"
    )
    args = parser.parse_args()

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    started = time.perf_counter()
    loaded = load_model(args.model)
    ids = loaded.tokenizer(args.prompt, add_special_tokens=False)["input_ids"]
    settings = BenchSettings(
        cache_limit=args.cache_limit,
        tokens=args.tokens,
        policies=tuple(p.strip() for p in args.policy.split(",") if p.strip()),
        prompt_ids=[int(i) for i in ids],
        interleaved_rounds=args.rounds,
        recompute_steps=args.recompute_steps,
    )
    last = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 60 or done == total:
            last[0] = now
            print(f"[{now - started:7.0f} s] {phase}: {done}/{total}", flush=True)

    result = run_bench(loaded.model, settings, progress=progress)
    result["model"]["name"] = loaded.source
    result["command"] = " ".join(["python", *sys.argv])
    print("\n".join(report_lines(result)))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name}.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    plot_bench(result, out / f"{args.name}.png")
    print(f"written: {out / (args.name + '.json')}, {out / (args.name + '.png')}")
    print(f"total wall time (model load included): {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
