"""The continuous engine with a prefill cache beside its rows against prompts prefilled in its free rows,
at one KV budget, beside kvlimit's static batches, in one process.

At a byte budget each prefill row is a decoding row less. With `prefill_rows=0` the engine holds no
prefill cache: a prompt is prefilled in the free row it will decode in, so the whole budget is rows.
This runs `kvlimit.bench.workloads` (the workloads of `kvlimit throughput --workloads`) with kvlimit
static and continuous at `prefill_rows=0`, then continuous at each other `--prefill-rows`, and prints
tokens/s, rows, the KV held and each over static::

    python benchmarks/free_rows.py --workloads a,c --memory 48MiB --num-prompts 16 --max-new-tokens 384
"""

from __future__ import annotations

import argparse
import json
import time

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

import kvlimit
from kvlimit.bench.workloads import WorkloadSettings, run_workloads
from kvlimit.config import parse_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", default="a,c")
    parser.add_argument("--memory", default="48MiB")
    parser.add_argument("--cache-limit", type=int, default=128)
    parser.add_argument("--num-prompts", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=384)
    parser.add_argument("--prefill-rows", default="1", help="the other settings of continuous, beside 0")
    parser.add_argument("--json", default=None, help="write every run here")
    args = parser.parse_args()
    folder = kvlimit.model_folder()
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    runs = []
    machine: dict = {}
    started = time.perf_counter()
    for name in args.workloads.split(","):
        common = {"memory": parse_bytes(args.memory), "workloads": (name,), "cache_limit": args.cache_limit,
                  "prompts": args.num_prompts, "new_tokens": args.max_new_tokens}  # fmt: skip
        first = run_workloads(model, tokenizer, WorkloadSettings(**common, systems=("static", "continuous"),
                                                                 prefill_rows=0))  # fmt: skip
        runs += first["runs"]
        machine = first["machine"]
        for p in (int(p) for p in args.prefill_rows.split(",")):
            runs += run_workloads(model, tokenizer, WorkloadSettings(**common, systems=("continuous",),
                                                                     prefill_rows=p))["runs"]  # fmt: skip
    print(f"SmolLM2-135M float32, {machine.get('cpu')}, {torch.get_num_threads()} threads, {args.memory} of KV, limit {args.cache_limit}, "
          f"{args.num_prompts} prompts x {args.max_new_tokens} new tokens, sampling; one process "
          f"({time.perf_counter() - started:.0f} s)")  # fmt: skip
    for name in args.workloads.split(","):
        static = next(r for r in runs if r["workload"] == name and r["system"] == "static")
        print(f"workload ({name}): static {static['tokens_per_s']:.1f} tokens/s, {static['batch']} rows, "
              f"{static['kv_bytes'] / 2**20:.1f} MiB")  # fmt: skip
        for run in (r for r in runs if r["workload"] == name and r["system"] == "continuous"):
            print(f"  continuous, prefill_rows={run['given']['prefill_rows']}: {run['tokens_per_s']:.1f} tokens/s, "
                  f"{run['batch']} rows, {run['kv_bytes'] / 2**20:.1f} MiB held, "
                  f"/ static {run['tokens_per_s'] / static['tokens_per_s']:.2f}")  # fmt: skip
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"machine": machine, "runs": runs}, handle, indent=1)


if __name__ == "__main__":
    main()
