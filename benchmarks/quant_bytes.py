"""Cache bytes at one length: kvlimit's bounded cache in float and quantized, stock and transformers' QuantizedCache.

Every cache sees the same `--tokens` tokens of text (the first of the project's corpus, one row) and
its bytes are counted from the tensors it holds afterwards: stock `DynamicCache` and transformers'
`QuantizedCache("fp8")` (per-tensor scale, grows without bound; the quanto and HQQ backends are
counted too where their packages import), then kvlimit at each `--cache-limit` in the model's dtype
and in each `--kv-dtype`, whose bytes are checked against `limit x stored bytes per token + float
sinks` (`kvlimit.sizing.row_cost`). Prints a table; `--json FILE` writes the numbers.

    python benchmarks/quant_bytes.py --tokens 4096 --cache-limit 256,1024 --json benchmarks/results/quant-bytes.json
"""

from __future__ import annotations

import argparse
import json
import logging
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache
from transformers.cache_utils import QuantizedCache

import kvlimit
from kvlimit.eval.corpus import ensure_corpus
from kvlimit.sizing import row_cost

logging.basicConfig(level=logging.WARNING)


def tensor_bytes(obj: Any, seen: set[int] | None = None) -> int:
    """Bytes of every distinct storage reachable from `obj` through attributes, tuples, lists and dicts
    (a view of a storage already counted, such as one layer of a stacked allocation, adds nothing)."""
    seen = set() if seen is None else seen
    if isinstance(obj, torch.Tensor):
        storage = obj.untyped_storage()
        if storage.data_ptr() in seen:
            return 0
        seen.add(storage.data_ptr())
        return int(storage.nbytes())
    if isinstance(obj, (list, tuple)):
        return sum(tensor_bytes(o, seen) for o in obj)
    if isinstance(obj, dict):
        return sum(tensor_bytes(o, seen) for o in obj.values())
    if hasattr(obj, "__dict__") and not isinstance(obj, torch.nn.Module):
        return sum(tensor_bytes(o, seen) for o in vars(obj).values())
    return 0


def stock_bytes(model: Any, ids: torch.Tensor, backend: str | None) -> int | str:
    """Bytes a transformers cache holds after `ids`: DynamicCache (None) or QuantizedCache(backend)."""
    config = model.config
    try:
        cache = DynamicCache(config=config) if backend is None else QuantizedCache(backend, config)
    except (ImportError, ValueError) as exc:  # quanto / HQQ not installed
        return f"unavailable: {str(exc).splitlines()[0][:80]}"
    with torch.no_grad():
        for start in range(0, ids.shape[1], 512):
            model(input_ids=ids[:, start : start + 512], cache=cache, use_cache=True, logits_to_keep=1)
    return tensor_bytes(cache.layers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--cache-limit", default="256,1024")
    parser.add_argument("--kv-dtype", default="int8,int4,fp8,k8v4")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    torch.set_num_threads(2)
    model = AutoModelForCausalLM.from_pretrained(kvlimit.model_folder(), use_kernels=False)
    tokenizer = AutoTokenizer.from_pretrained(kvlimit.model_folder())
    text = ensure_corpus().read_text(encoding="utf-8")[: args.tokens * 8]
    ids = torch.tensor([tokenizer(text)["input_ids"][: args.tokens]])
    rows: list[dict[str, Any]] = []
    float_per_token = kvlimit.kv_bytes_per_token(model)
    for name, backend in (("stock DynamicCache", None), ("transformers QuantizedCache fp8", "fp8"),
                          ("transformers QuantizedCache quanto int4", "quanto"),
                          ("transformers QuantizedCache hqq int4", "hqq")):  # fmt: skip
        rows.append({"cache": name, "limit": None, "bytes": stock_bytes(model, ids, backend)})
        print(rows[-1], flush=True)
    for limit in (int(x) for x in args.cache_limit.split(",")):
        for kv_dtype in (None, *args.kv_dtype.split(",")):
            with torch.no_grad():
                out = kvlimit.generate(model, input_ids=ids[:, :-1], attention_mask=torch.ones_like(ids[:, :-1]),
                                       cache_limit=limit, kv_dtype=kv_dtype, max_new_tokens=1, do_sample=False,
                                       return_dict_in_generate=True)  # fmt: skip
            held = tensor_bytes([(layer.__dict__) for layer in out.cache.layers])
            per_token, per_row = row_cost(model, kvlimit.LimitConfig.create(limit, kv_dtype=kv_dtype))
            rows.append({
                "cache": f"kvlimit {kv_dtype or 'float32'}", "limit": limit, "bytes": out.cache.nbytes(),
                "held_tensor_bytes": held, "formula": limit * per_token + per_row,
            })  # fmt: skip
            print(rows[-1], flush=True)
    full = args.tokens * float_per_token
    print(f"\n{args.tokens} tokens of SmolLM2-135M (float32, {float_per_token} bytes per token unbounded):")
    print(f"  {'cache':<42} {'limit':>6} {'bytes':>12} {'vs stock':>9}  check")
    for row in rows:
        size = row["bytes"]
        if isinstance(size, str):
            print(f"  {row['cache']:<42} {'-':>6} {size}")
            continue
        check = ""
        if "formula" in row:
            check = "== formula" if size == row["formula"] else f"!= formula {row['formula']}"
            check += (
                ", == held tensors"
                if size == row["held_tensor_bytes"]
                else f", held {row['held_tensor_bytes']}"
            )
        limit = "-" if row["limit"] is None else str(row["limit"])
        print(f"  {row['cache']:<42} {limit:>6} {size:>12} {full / size:>8.1f}x  {check}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {"tokens": args.tokens, "float_bytes_per_token": float_per_token, "rows": rows}, f, indent=1
            )


if __name__ == "__main__":
    main()
