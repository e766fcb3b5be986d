"""Does `kvlimit.plan` predict the peak? Planned batches run for real, each in a fresh process.

For the embedded SmolLM2 (or `--model`), `kvlimit.plan` says how many sequences fit `--memory` at
`--cache-limit` (float, and with each `--kv-dtype`) and the peak each batch size reaches. This
script then runs `kvlimit.generate` at a quarter, a half and all of that batch, each in its own
process (a process's peak RSS, the kernel's VmHWM, only grows), and prints the measured peak next
to the prediction.

    python benchmarks/plan_check.py --memory 96MiB --max-new-tokens 256 --cache-limit 256 --kv-dtype none,int8
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

CHILD = r"""
import json, sys, torch
from transformers import AutoModelForCausalLM
import kvlimit
from kvlimit.memory import read_peak_rss, reset_peak_rss
torch.set_num_threads(2)
args = json.loads(sys.argv[1])
model = AutoModelForCausalLM.from_pretrained(args["model"] or kvlimit.model_folder(), use_kernels=False)
plan = kvlimit.plan(model, memory=args["memory"], new_tokens=args["new_tokens"], prompt_tokens=args["prompt"],
                    limits=[args["limit"]], kv_dtype=args["kv_dtype"])
batch = args["batch"] or plan.rows[0].sequences
ids = torch.randint(3, model.config.vocab_size, (batch, args["prompt"]), generator=torch.Generator().manual_seed(0))
reset_peak_rss()
base = read_peak_rss()
start = plan.process_bytes
with torch.no_grad():
    kvlimit.generate(model, input_ids=ids, attention_mask=torch.ones_like(ids), cache_limit=args["limit"],
                     kv_dtype=args["kv_dtype"], max_new_tokens=args["new_tokens"], min_new_tokens=args["new_tokens"],
                     do_sample=False)
peak = read_peak_rss()
print(json.dumps({"planned": plan.rows[0].sequences, "batch": batch, "predicted_peak": plan.predicted_peak(batch, args["limit"]),
                  "process_at_plan": plan.process_bytes, "measured_peak": peak, "rss_before_generate": base}))
"""


def run_child(settings: dict[str, Any]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(settings)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--memory", default="96MiB")
    parser.add_argument("--max-new-tokens", "--new-tokens", dest="new_tokens", type=int, default=256)
    parser.add_argument("--prompt-tokens", type=int, default=64)
    parser.add_argument("--cache-limit", type=int, default=256)
    parser.add_argument("--kv-dtype", default="none,int8")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = []
    for name in args.kv_dtype.split(","):
        kv_dtype = None if name == "none" else name
        settings = {"model": args.model, "memory": args.memory, "new_tokens": args.new_tokens,
                    "prompt": args.prompt_tokens, "limit": args.cache_limit, "kv_dtype": kv_dtype, "batch": 0}  # fmt: skip
        planned = run_child(settings)["planned"]
        for batch in sorted({max(1, planned // 4), max(1, planned // 2), planned}):
            result = run_child({**settings, "batch": batch})
            error = (result["measured_peak"] - result["predicted_peak"]) / result["predicted_peak"]
            growth_predicted = result["predicted_peak"] - result["process_at_plan"]
            growth_measured = result["measured_peak"] - result["process_at_plan"]
            rows.append({"kv_dtype": name, **result, "peak_error": error,
                         "growth_predicted": growth_predicted, "growth_measured": growth_measured})  # fmt: skip
            print(f"{name:>5} batch {batch:>3}/{planned}: predicted peak {result['predicted_peak'] / 2**20:8.1f} MiB, "
                  f"measured {result['measured_peak'] / 2**20:8.1f} MiB ({error:+.1%}); growth over the process "
                  f"at plan time: predicted {growth_predicted / 2**20:.1f} MiB, measured {growth_measured / 2**20:.1f} MiB",
                  flush=True)  # fmt: skip
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"settings": vars(args), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
