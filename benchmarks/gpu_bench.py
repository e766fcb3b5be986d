"""GPU benchmark: a 1B Llama shape (random weights, bf16) -- stock generate vs kvlimit vs recomputation.

Builds a Llama-3.2-1B-shaped model from a config (16 layers, hidden 2048, 32 query / 8 KV heads
of 64 dims, vocab 128256, llama3 RoPE; random weights, so nothing is downloaded) directly on the
GPU in bfloat16, then runs `kvlimit.bench.run_bench` (latency per token along the run, cache bytes,
`torch.cuda.max_memory_allocated` per run, the interleaved block and the ratios) and, unless
`--no-checks`, two checks of kvlimit's decode step at steady state:

- host/device synchronisations: `torch.cuda.set_sync_debug_mode("warn")` over a few kvlimit and
  stock decode steps; every synchronising call is counted by the source line that made it;
- CUDA API calls per step (kernel launches, memcpys, stream synchronisations) from torch.profiler.

Everything is printed; `--out DIR` also writes `gpu_bench.json` and `gpu_bench.png` there.
Defaults (L = 1024, T = 8192) take about 4-6 minutes on one H100/H200; `--tokens` scales the two
generate runs linearly (stock a little more). `--tiny` builds a 2-layer toy shape and runs on the
CPU when no GPU is present, to check the script itself:

    python benchmarks/gpu_bench.py --out "$OUT"                # on a GPU machine
    python benchmarks/gpu_bench.py --tiny --out /tmp/gpu-bench # anywhere, in seconds
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import sys
import time
import warnings
from typing import Any

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

import kvlimit
from kvlimit.bench import BenchSettings, plot_bench, report_lines, run_bench

LLAMA_1B: dict[str, Any] = {
    "vocab_size": 128256,
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 16,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-5,
    "tie_word_embeddings": True,
    "rope_parameters": {
        "rope_type": "llama3",
        "rope_theta": 500000.0,
        "factor": 32.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
    "bos_token_id": 1,
    "eos_token_id": 2,
    "pad_token_id": 0,
}
TINY: dict[str, Any] = {
    **LLAMA_1B,
    "vocab_size": 256,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
}


def build_model(tiny: bool, device: torch.device, dtype: torch.dtype) -> Any:
    config = LlamaConfig(**(TINY if tiny else LLAMA_1B))
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with device:
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    return model.eval()


def sync_report(model: Any, limit: int, steps: int) -> dict[str, Any]:
    """Synchronising CUDA calls in `steps` decode steps of kvlimit and of stock, by source line."""
    device = next(model.parameters()).device
    vocab = int(model.config.vocab_size)
    fill = torch.randint(3, vocab, (1, limit + 8), device=device)
    token = torch.randint(3, vocab, (1, 1), device=device)
    cache = kvlimit.build_cache(model, kvlimit.LimitConfig.create(limit, "sinks"))
    with torch.no_grad():
        for start in range(0, fill.shape[1], 256):
            kvlimit.forward_step(model, cache, fill[:, start : start + 256])
        stock = DynamicCache(config=model.config)
        model(input_ids=fill[:, : limit - 1], cache=stock, use_cache=True)
        mask = torch.ones((1, limit), dtype=torch.long, device=device)
        position = torch.tensor([[limit - 1]], device=device)

        def stock_step() -> None:
            model(input_ids=token, attention_mask=mask, position_ids=position, cache=stock, use_cache=True)
            stock.crop(-1)

        def kv_step() -> None:
            kvlimit.forward_step(model, cache, token)

        out: dict[str, Any] = {}
        for name, fn in (("kvlimit", kv_step), ("stock", stock_step)):
            fn()
            torch.cuda.synchronize(device)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                torch.cuda.set_sync_debug_mode("warn")
                try:
                    for _ in range(steps):
                        fn()
                finally:
                    torch.cuda.set_sync_debug_mode("default")
            where = collections.Counter(
                f"{pathlib.Path(w.filename).name}:{w.lineno}"
                for w in caught
                if "synchroniz" in str(w.message)
            )
            out[name] = {"per_step": sum(where.values()) / steps, "by_line": dict(where.most_common())}
        # CUDA API calls per step
        for name, fn in (("kvlimit", kv_step), ("stock", stock_step)):
            prof = torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
            )
            with prof:
                for _ in range(steps):
                    fn()
                torch.cuda.synchronize(device)
            counts: collections.Counter[str] = collections.Counter()
            for event in prof.key_averages():
                key = event.key
                if key.startswith("cuda") or key.startswith("cudaLaunch"):
                    counts[key] += event.count
            out[name]["cuda_api_per_step"] = {k: v / steps for k, v in counts.most_common(12)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tiny", action="store_true", help="toy shape; runs on the CPU when there is no GPU")
    parser.add_argument("--cache-limit", type=int, default=None, help="default 1024 (--tiny: 32)")
    parser.add_argument("--tokens", type=int, default=None, help="default 8192 (--tiny: 96)")
    parser.add_argument("--policy", default="sinks", help="comma-separated policies (default: sinks)")
    parser.add_argument(
        "--rounds", type=int, default=None, help="interleaved rounds (default 200; --tiny 10)"
    )
    parser.add_argument("--recompute-steps", type=int, default=None, help="default 24 (--tiny 2)")
    parser.add_argument("--no-checks", action="store_true", help="skip the sync and CUDA-call checks")
    parser.add_argument("--out", default=None, help="folder for gpu_bench.json and gpu_bench.png")
    args = parser.parse_args()

    cuda = torch.cuda.is_available()
    if not cuda and not args.tiny:
        print("no CUDA device: run with --tiny to check the script on the CPU", file=sys.stderr)
        return 2
    device = torch.device("cuda" if cuda else "cpu")
    dtype = torch.bfloat16 if cuda else torch.float32
    limit = args.cache_limit or (32 if args.tiny else 1024)
    tokens = args.tokens or (96 if args.tiny else 8192)
    rounds = args.rounds if args.rounds is not None else (10 if args.tiny else 200)
    recompute = args.recompute_steps if args.recompute_steps is not None else (2 if args.tiny else 24)
    started = time.perf_counter()
    model = build_model(args.tiny, device, dtype)
    params = sum(p.numel() for p in model.parameters())
    print(
        f"model: Llama {'tiny' if args.tiny else '1B'} shape, {params / 1e9:.3f}B parameters, {dtype}, "
        f"{device} ({torch.cuda.get_device_name(device) if cuda else 'no GPU'}), built in "
        f"{time.perf_counter() - started:.1f} s",
        flush=True,
    )
    print(f"KV bytes per token: {kvlimit.kv_bytes_per_token(model)}", flush=True)
    settings = BenchSettings(
        cache_limit=limit,
        tokens=tokens,
        policies=tuple(p.strip() for p in args.policy.split(",") if p.strip()),
        interleaved_rounds=rounds,
        recompute_steps=min(recompute, rounds),
    )
    last = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 15 or done == total:
            last[0] = now
            print(f"  [{now - started:6.0f} s] {phase}: {done}/{total}", flush=True)

    result = run_bench(model, settings, progress=progress)
    result["model"]["name"] = (
        f"Llama-3.2-1B shape (random, {dtype})" if not args.tiny else "tiny Llama (random)"
    )
    print("\n".join(report_lines(result)), flush=True)
    if cuda and not args.no_checks:
        checks = sync_report(model, limit, steps=5)
        result["checks"] = checks
        print("\nhost/device synchronisations per decode step (torch.cuda sync debug mode):")
        for name, c in checks.items():
            print(f"  {name}: {c['per_step']:.1f} per step")
            for line, n in c["by_line"].items():
                print(f"    {line}: {n}")
        print("CUDA API calls per decode step (torch.profiler):")
        for name, c in checks.items():
            print(f"  {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in c["cuda_api_per_step"].items()))
    if args.out:
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "gpu_bench.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        plot_bench(result, out / "gpu_bench.png")
        print(f"written: {out / 'gpu_bench.json'}, {out / 'gpu_bench.png'}")
    print(f"total wall time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
