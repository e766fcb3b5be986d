"""What only a GPU can show: kvlimit's CUDA paths against oracles, the planner against CUDA's allocator.

The test suite runs on the CPU. On a CUDA device this script checks what the CPU never exercises:

- `recall`: the recall tier keeps keys on the GPU and values in pinned host memory, copied back with
  non-blocking transfers. Oracles: with nothing evicted, kvlimit.generate equals stock generate token
  for token; with evictions and recalls, the CUDA run's tokens and logits equal the same run on the
  CPU (float32, so only float noise apart); where the store's tensors live is read and reported.
- `engine`: `ContinuousEngine` on CUDA, every sequence equal to its prompt generated alone with
  `kvlimit.generate` and seeded with `sequence_seed` (greedy, and sampling with a per-sequence CUDA
  generator), with 3 rows for 7 prompts.
- `plan`: `kvlimit.plan` on a SmolLM2-135M-shaped model (random weights, bfloat16) against
  `torch.cuda.max_memory_allocated` while generating a quarter, half and all of each planned batch:
  the peak and the growth over what the process held at plan time, predicted and measured.

Prints one line per check and writes `gpu_checks.json` to `--out`. On a machine without CUDA it
runs the same checks on the CPU against the CPU (to check the script itself; `--device cpu`).

    python benchmarks/gpu_checks.py --out "$OUT"
"""

from __future__ import annotations

import argparse
import copy
import json
import pathlib
import time
from typing import Any

import torch
import transformers
from transformers import LlamaConfig, LlamaForCausalLM

import kvlimit
from kvlimit.integrations.hf import output_cache

from tests.helpers import left_padded, make_model

SMOLLM2_135M: dict[str, Any] = {
    "vocab_size": 49152,
    "hidden_size": 576,
    "intermediate_size": 1536,
    "num_hidden_layers": 30,
    "num_attention_heads": 9,
    "num_key_value_heads": 3,
    "max_position_embeddings": 8192,
    "rope_parameters": {"rope_type": "default", "rope_theta": 100000.0},
    "tie_word_embeddings": True,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "pad_token_id": 2,
}


def tiny(device: torch.device) -> Any:
    model = make_model("llama", num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                       initializer_range=0.02)  # fmt: skip
    return model.to(device)


def check_recall(device: torch.device) -> dict[str, Any]:
    model = tiny(device)
    on_cpu = copy.deepcopy(model).to("cpu")
    ids, mask = (t.to(device) for t in left_padded(model, lengths=(5, 11)))
    greedy = {"do_sample": False, "pad_token_id": 0}
    stock = model.generate(ids, attention_mask=mask, max_new_tokens=24, **greedy)
    nothing = kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=64, recall=8,
                               max_new_tokens=24, **greedy)  # fmt: skip
    result: dict[str, Any] = {"nothing_evicted_equals_stock": bool(torch.equal(stock, nothing))}
    for dtype in (None, "int8"):
        options = {"cache_limit": 32, "recall": 8, "recall_dtype": dtype, "max_new_tokens": 160,
                   "output_scores": True, "return_dict_in_generate": True, **greedy}  # fmt: skip
        gpu = kvlimit.generate(model, input_ids=ids, attention_mask=mask, **options)
        cpu = kvlimit.generate(on_cpu, input_ids=ids.cpu(), attention_mask=mask.cpu(), **options)
        same = gpu.sequences.cpu() == cpu.sequences
        agree = int(same.all(dim=0).long().cumprod(0).sum())  # columns equal in every row, from the start
        steps = max(0, agree - ids.shape[1])
        diff = max(
            (float((g.cpu() - c).abs().max()) for g, c in zip(gpu.scores[:steps], cpu.scores[:steps], strict=True)),
            default=float("nan"),
        )  # fmt: skip
        cache = output_cache(gpu)
        store = cache.recall
        group = store.groups[0]
        values = group.values if isinstance(group.values, torch.Tensor) else group.values.tensors()[0]
        keys = group.keys if isinstance(group.keys, torch.Tensor) else group.keys.tensors()[0]
        result[f"evictions_{dtype or 'float'}"] = {
            "tokens_equal_cpu": bool(same.all()),
            "steps_compared": steps,
            "max_logit_diff_vs_cpu": diff,
            "recall_stored": int(cache.stats["recall_stored"]),
            "keys_device": str(keys.device),
            "values_device": str(values.device),
            "values_pinned": bool(values.is_pinned()) if values.device.type == "cpu" else None,
        }
    return result


def check_engine(device: torch.device) -> dict[str, Any]:
    model = tiny(device)
    generator = torch.Generator().manual_seed(3)
    lengths = (4, 17, 9, 3, 30, 12, 6)
    requests = [kvlimit.Request(f"p{i}", torch.randint(3, model.config.vocab_size, (n,), generator=generator).tolist())
                for i, n in enumerate(lengths)]  # fmt: skip
    config = kvlimit.LimitConfig.create(16)
    result = {}
    for name, decoding in (
        ("greedy", {"max_new_tokens": 40, "do_sample": False}),
        ("sampling", {"max_new_tokens": 40, "do_sample": True, "temperature": 0.8, "top_p": 0.9, "top_k": 20,
                      "repetition_penalty": 1.2}),
    ):  # fmt: skip
        engine = kvlimit.ContinuousEngine(model, config, rows=3, decoding=decoding, seed=5)
        got = {f.id: f.tokens for f in engine.run(requests)}
        equal = 0
        for request in requests:
            transformers.set_seed(kvlimit.sequence_seed(5, request.id, 0))
            ids = torch.tensor([request.input_ids], device=device)
            alone = kvlimit.generate(model, input_ids=ids, cache_limit=config, pad_token_id=0, **decoding)
            equal += got[request.id] == alone[0, ids.shape[1] :].tolist()
        result[name] = {"sequences": len(requests), "equal_to_alone": equal}
    return result


def check_plan(device: torch.device, memory: str) -> dict[str, Any]:
    config = LlamaConfig(**SMOLLM2_135M)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    model = LlamaForCausalLM(config).to(device=device, dtype=dtype).eval()
    rows = []
    prompt, new = 64, 256
    for kv_dtype in (None, "int8"):
        for limit in (128, 1024):
            plan = kvlimit.plan(model, memory=memory, new_tokens=new, prompt_tokens=prompt, limits=[limit],
                                kv_dtype=kv_dtype)  # fmt: skip
            planned = plan.rows[0].sequences
            for batch in sorted({max(1, planned // 4), max(1, planned // 2), max(1, planned)}):
                ids = torch.randint(3, config.vocab_size, (batch, prompt), device=device)
                if device.type == "cuda":
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                start = time.perf_counter()
                with torch.no_grad():
                    kvlimit.generate(model, input_ids=ids, attention_mask=torch.ones_like(ids), cache_limit=limit,
                                     kv_dtype=kv_dtype, max_new_tokens=new, min_new_tokens=new, do_sample=False)  # fmt: skip
                seconds = time.perf_counter() - start
                peak = int(torch.cuda.max_memory_allocated()) if device.type == "cuda" else 0
                predicted = plan.predicted_peak(batch, limit)
                rows.append({
                    "kv_dtype": kv_dtype or "none", "cache_limit": limit, "planned": planned, "batch": batch,
                    "predicted_peak": predicted, "measured_peak": peak,
                    "growth_predicted": predicted - plan.process_bytes, "growth_measured": peak - plan.process_bytes,
                    "tokens_per_second": batch * new / seconds,
                })  # fmt: skip
                row = rows[-1]
                print(f"plan {row['kv_dtype']:>4} L={limit:<5} batch {batch:>3}/{planned}: growth predicted "
                      f"{row['growth_predicted'] / 2**20:7.1f} MiB, measured {row['growth_measured'] / 2**20:7.1f} MiB "
                      f"({(row['growth_measured'] / row['growth_predicted'] - 1) if row['growth_predicted'] else 0:+.1%}); "
                      f"{row['tokens_per_second']:.0f} tok/s", flush=True)  # fmt: skip
    return {"memory": memory, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--checks", default="recall,engine,plan")
    parser.add_argument("--memory", default="256MiB", help="the plan check's budget")
    args = parser.parse_args()
    device = torch.device(args.device)
    report: dict[str, Any] = {"device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
                              "torch": torch.__version__, "transformers": transformers.__version__}  # fmt: skip
    for name in args.checks.split(","):
        start = time.perf_counter()
        if name == "recall":
            report[name] = check_recall(device)
        elif name == "engine":
            report[name] = check_engine(device)
        elif name == "plan":
            report[name] = check_plan(device, args.memory)
        else:
            raise SystemExit(f"--checks: unknown check {name!r}; known: recall, engine, plan")
        print(f"{name} ({time.perf_counter() - start:.1f} s): {json.dumps(report[name])[:2000]}", flush=True)
    pathlib.Path(args.out).mkdir(parents=True, exist_ok=True)
    (pathlib.Path(args.out) / "gpu_checks.json").write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
