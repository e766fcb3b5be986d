"""Grouped keys and values handed to torch's sdpa as they are, in a compiled CPU step.

Used around kvlimit's compiled step (`CompiledDecodeStep`: kvlimit's loop, the continuous engine,
the benchmarks) and around a whole compiled `kvlimit.generate` call, which covers transformers' loops
too (its sampling loop compiles the forward itself when kvlimit's loop cannot stand in; its beam loop
runs `compiled_decode_forward`).

Contract: within `grouped_sdpa_on_cpu()`, transformers' sdpa attention (`sdpa_attention_forward`)
passes a layer's keys and values on the CPU to `torch.nn.functional.scaled_dot_product_attention`
with `enable_gqa=True` rather than first repeating them once per query head (`repeat_kv`), which it
does wherever an attention mask is given (a bounded cache always gives one) and, from 5.25, an eager
one-token step does not need (it packs the query heads instead, `pack_gqa`, which a compiled graph
skips). The repeat writes `kv_heads x groups` copies of every cached key and value each layer and
step: for SmolLM2-135M (9 query heads on 3 KV heads) at limit 1,024, 141 MB a step. Measured with
kvlimit's compiled sinks step on this 2-core CPU, limit 1,024, 40 steps, two runs each (`/tmp`
script): 47.2 / 46.3 ms repeated, 37.4 / 35.6 ms grouped. The attention computed is the same (the
same products of the same keys and the same queries, in the same order); the tests compare compiled
steps with eager ones token for token.

Why only on the CPU: torch's CUDA kernels that take a mask do not take grouped heads, and sdpa would
fall back to its unfused math there; transformers' own rule is kept for every other device.

How: transformers decides by a function of its sdpa module, `use_gqa_in_sdpa(mask, key, value)`
(5.18 to 5.25); the block replaces it there with `_grouped_on_cpu`, one function object for the
process (torch.compile guards on the function a graph was traced with, so a new one per call would
compile again), and puts the stock one back after. Like `attention_tap`, the swap is visible to
other threads during the block; what they compute is unchanged (see above), only how.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from typing import Any

import torch

_sdpa = importlib.import_module("transformers.integrations.sdpa_attention")
_RULE = "use_gqa_in_sdpa"
_stock = getattr(_sdpa, _RULE)


def _grouped_on_cpu(attention_mask: Any, key: torch.Tensor, value: torch.Tensor) -> bool:
    """transformers' `use_gqa_in_sdpa`, and yes for keys and values of one head size on the CPU."""
    return (key.device.type == "cpu" and key.shape[-1] == value.shape[-1]) or bool(
        _stock(attention_mask, key, value)
    )


@contextlib.contextmanager
def grouped_sdpa_on_cpu() -> Iterator[None]:
    """Within the block, sdpa attention on the CPU takes grouped keys and values as they are (see the
    module docstring). Nested blocks are fine: the outermost puts the stock rule back."""
    previous = getattr(_sdpa, _RULE)
    setattr(_sdpa, _RULE, _grouped_on_cpu)
    try:
        yield
    finally:
        setattr(_sdpa, _RULE, previous)
