"""Per-layer cost of the quantized storage: one read (`read`) and one decode write (`write_token`).

A `QuantizedStore` holding one layer shaped like one of SmolLM2-135M's (1 row, 3 KV heads, 1024
slots, head_dim 64, 4 float sinks), timed for each scheme (and int4 without its Hadamard turn, for
what the turn costs); a decode step pays both once per layer.

    python benchmarks/quant_layer.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch

from kvlimit.cache import QuantizedStore, StoreLayout, quant


def per_call_ms(fn: Callable[[], object], n: int = 200) -> float:
    for _ in range(10):
        fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e3


def main() -> None:
    torch.set_num_threads(2)
    rows, heads, slots, dim = 1, 3, 1024, 64
    first = torch.randn(rows, heads, slots, dim)
    new = torch.randn(rows, heads, 1, dim)
    slot = torch.tensor([5])
    turns = quant.turns
    for label in ("int8", "int4", "int4 unturned", "fp8", "k8v4"):
        name = label.split()[0]
        # "int4 unturned": int4 as it was before its blocks were turned (what the turn costs a read)
        quant.turns = (lambda block: False) if label == "int4 unturned" else turns
        store = QuantizedStore(StoreLayout(slots, [0]), kv_dtype=name, kv_group=32, float_slots=4)
        store.allocate(0, first, first)
        read = per_call_ms(lambda: store.read(0))  # noqa: B023
        write = per_call_ms(lambda: store.write_token(0, slot, new, new, first_index=10))  # noqa: B023
        quantize = per_call_ms(lambda: store.key_scheme.quantize(new, 32))  # noqa: B023
        print(
            f"{label}: read {read:.3f} ms, decode write {write:.3f} ms (quantizing one vector {quantize:.3f} ms) per layer"
        )
    quant.turns = turns


if __name__ == "__main__":
    main()
