"""The decode step compiled against eager against stock, side by side in one run (ratios, not a test).

Systems, per batch size, all greedy on the embedded SmolLM2-135M (or `--model`), end of sequence ignored:

- kvlimit compiled: `kvlimit.generate(compile=True)`, inductor, fullgraph, static shapes: the cache's
  static decode step and the forward as one graph, in kvlimit's own loop;
- kvlimit eager: `compile=False`, transformers' loop and the cache's dynamic step;
- stock: transformers' generate with its dynamic cache, eager;
- static compiled: transformers' generate with its `StaticCache` of `max_cache_len` = the limit,
  compiled by transformers itself (`compile_config`, fullgraph, static shapes; forced on the
  CPU with the config's `_compile_all_devices`): the peer at the same KV length, for as long as it holds;
- static compiled c++ (on the CPU): the same, given inductor's C++ wrapper (`options={"cpp_wrapper":
  True}`), which kvlimit's compiled step gets on the CPU (`hf.compile_config_for`): the peer as well
  configured as kvlimit;
- with `--kv-dtype`, kvlimit's quantized step compiled and eager.

What is timed is the decode step alone: each system runs 8 and 8 + `--tokens` new tokens on the same
prompt and the step costs (t(long) - t(short)) / --tokens, so the prefill, the compile and the fixed
costs cancel. kvlimit's and stock's prompt is `--cache-limit` tokens long (kvlimit's cache is full and
evicts in every timed step, stock attends as many keys); the static cache's is 32 tokens, and its
steps attend every one of its `--cache-limit` slots. The systems are
interleaved for `--rounds` rounds after one warm-up of each length (where the compile happens: its
time is printed apart); the median per round is reported, with ratios to kvlimit eager and to the
compiled static cache.

    python benchmarks/compile_step.py --cache-limit 128 --tokens 64 --batch 1,8 --rounds 3 --kv-dtype int8

On a GPU (`--device cuda`) the compiled systems use CUDA graphs (`--mode reduce-overhead`, the default
there), timings wait for the device, and `--sync-check` also runs kvlimit's compiled step (its host
part, its graph, its advance) under `torch.cuda.set_sync_debug_mode("error")`, which raises on any
host synchronisation inside it. `--backend cudagraphs` captures the graph without inductor's kernel
generation (seconds to compile instead of minutes; launches are what a small model's step costs).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import torch
from transformers import StaticCache
from transformers.generation.configuration_utils import CompileConfig

import kvlimit
from kvlimit.integrations import hf
from kvlimit.models import load_model

PROMPT = 32


def _compile_config(backend: str, mode: str | None, cpp_wrapper: bool = False) -> CompileConfig:
    options: dict[str, Any] = dict(fullgraph=True, dynamic=False, backend=backend)
    if cpp_wrapper:  # inductor's options instead of a mode (torch.compile takes one or the other)
        options.update(mode=None, options={"cpp_wrapper": True})
    elif backend == "inductor":
        options["mode"] = mode
    config = CompileConfig(**options)
    config._compile_all_devices = True  # transformers compiles only on accelerators unless told
    return config


def systems(
    limit: int, kv_dtype: str | None, compiling: CompileConfig, peer_cpp: CompileConfig | None = None
) -> dict[str, dict[str, Any]]:
    """Each system's generate arguments; `via` says which generate runs it. `peer_cpp`: also the static
    cache compiled with that config (inductor's C++ wrapper, which kvlimit's step gets on the CPU)."""
    out: dict[str, dict[str, Any]] = {
        "kvlimit compiled": dict(via="kvlimit", cache_limit=limit, compile=True, compile_config=compiling),
        "kvlimit eager": dict(via="kvlimit", cache_limit=limit, compile=False),
        "stock": dict(via="stock"),
        "static compiled": dict(via="stock", static=True, compile_config=compiling),
    }
    if peer_cpp is not None:
        out["static compiled c++"] = dict(via="stock", static=True, compile_config=peer_cpp)
    if kv_dtype:
        out[f"{kv_dtype} compiled"] = dict(out["kvlimit compiled"], kv_dtype=kv_dtype)
        out[f"{kv_dtype} eager"] = dict(out["kvlimit eager"], kv_dtype=kv_dtype)
    return out


#: new tokens of the shorter run; the longer adds --tokens (the timed steps)
SHORT = 8


def _prompt(name: str, limit: int, batch: int, vocab: int, device: torch.device) -> torch.Tensor:
    """The system's prompt: `limit` tokens (kvlimit's cache is full and evicts in every timed step; stock
    attends as many keys), or PROMPT tokens for the static cache of `limit` slots (its steps attend every
    slot whatever it holds)."""
    generator = torch.Generator().manual_seed(0)
    length = PROMPT if name.startswith("static compiled") else limit
    return torch.randint(3, vocab, (batch, length), generator=generator).to(device)


def _run(model: Any, ids: torch.Tensor, options: dict[str, Any], new_tokens: int, limit: int) -> float:
    options = dict(options)
    via = options.pop("via")
    if options.pop("static", False):  # transformers' StaticCache of `limit` slots, a new one per call
        options.update(hf.cache_argument(StaticCache(config=model.config, max_cache_len=limit)))
    _wait(ids.device)
    common = dict(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False, pad_token_id=0,
                  min_new_tokens=new_tokens, max_new_tokens=new_tokens)  # fmt: skip
    started = time.perf_counter()
    with torch.no_grad():
        if via == "kvlimit":
            kvlimit.generate(model, **common, **options)
        else:
            model.generate(**common, **options)
    _wait(ids.device)
    return time.perf_counter() - started


def _wait(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def measure(model: Any, batch: int, limit: int, args: argparse.Namespace) -> list[dict]:
    tokens, rounds = args.tokens, args.rounds
    peer_cpp = None
    if args.device == "cpu" and args.backend == "inductor":  # the peer as kvlimit compiles on the CPU
        peer_cpp = _compile_config(args.backend, args.mode, cpp_wrapper=True)
    chosen = systems(limit, args.kv_dtype, _compile_config(args.backend, args.mode), peer_cpp)
    prompts = {name: _prompt(name, limit, batch, model.config.vocab_size, model.device) for name in chosen}
    warm: dict[str, float] = {}
    for name, options in chosen.items():
        ids = prompts[name]
        warm[name] = _run(model, ids, options, SHORT, limit) + _run(
            model, ids, options, SHORT + tokens, limit
        )
    per_step: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(rounds):
        for name, options in chosen.items():
            ids = prompts[name]
            long = _run(model, ids, options, SHORT + tokens, limit)
            per_step[name].append((long - _run(model, ids, options, SHORT, limit)) / tokens * 1e3)
    ms = {name: statistics.median(values) for name, values in per_step.items()}
    rows = []
    print(f"batch {batch}, limit {limit}: ms per decode step (median of {rounds}); ratios: kvlimit eager / "
          f"system, system / static compiled")  # fmt: skip
    for name in chosen:
        ratio_eager = ms["kvlimit eager"] / ms[name]
        ratio_static = ms[name] / ms["static compiled"]
        print(f"  {name:<18} {ms[name]:8.2f} ms   {ratio_eager:5.2f}x   {ratio_static:5.2f}x   "
              f"warm-up (compile) {warm[name]:6.1f} s")  # fmt: skip
        rows.append(dict(batch=batch, limit=limit, system=name, ms_per_step=ms[name], eager_over_system=ratio_eager,
                         system_over_static_compiled=ratio_static, warmup_s=warm[name], rounds=per_step[name]))  # fmt: skip
    sys.stdout.flush()
    return rows


def sync_check(model: Any, limit: int, compiling: CompileConfig) -> None:
    """kvlimit's compiled steps (host part, graph, advance) under CUDA's sync debug mode "error"."""
    from kvlimit.forward import forward_step

    ids = torch.randint(3, model.config.vocab_size, (4, PROMPT), device=model.device)
    cache = kvlimit.build_cache(model, kvlimit.LimitConfig.create(limit), rows=4)
    cache.make_static()
    forward_step(model, cache, ids)
    step = hf.CompiledDecodeStep(model, cache, hf.inspect_model(model), compiling)
    token = ids[:, -1:].clone()
    with torch.no_grad():
        for _ in range(3):  # compile, record the graph
            step(token)
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            for _ in range(2 * limit):
                step(token)
        finally:
            torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()
    print(f"sync check: {2 * limit} compiled steps at limit {limit} without a host synchronisation")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", default=None, help="model folder or .gguf (default: embedded SmolLM2-135M)"
    )
    parser.add_argument("--cache-limit", default="128", help="limits, comma-separated")
    parser.add_argument("--tokens", type=int, default=64, help="timed decode steps per run")
    parser.add_argument("--batch", default="1,8", help="batch sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--kv-dtype", default=None, help="also measure this quantized storage (int8, int4, fp8)"
    )
    parser.add_argument("--json", default=None, help="also write the numbers here")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--dtype", default="auto", help="auto (float32 on the CPU, bfloat16 on CUDA), ...")
    parser.add_argument("--backend", default="inductor", help="torch.compile backend: inductor or cudagraphs")
    parser.add_argument("--mode", default=None, help="inductor mode (default: reduce-overhead on CUDA)")
    parser.add_argument(
        "--sync-check", action="store_true", help="CUDA: no host sync inside the compiled step"
    )
    args = parser.parse_args()
    limits = [int(n) for n in str(args.cache_limit).split(",")]
    if min(limits) < PROMPT + SHORT + args.tokens:
        parser.error(
            f"--cache-limit must hold the {PROMPT}-token prompt and --tokens steps of the static cache"
        )
    if args.mode is None:
        args.mode = "reduce-overhead" if args.device == "cuda" else "default"
    model = load_model(args.model, device=args.device, dtype=args.dtype).model
    results = []
    for limit in limits:
        for batch in (int(b) for b in args.batch.split(",")):
            results += measure(model, batch, limit, args)
    if args.sync_check:
        sync_check(model, min(limits), _compile_config(args.backend, args.mode))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(args=vars(args), torch=torch.__version__, results=results), f, indent=2)


if __name__ == "__main__":
    main()
