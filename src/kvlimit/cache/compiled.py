"""Which bounded caches can be compiled, and why the others cannot.

Contract: `compile_blocker(cache)` is None when a `BoundedCache` made static (`make_static`) gives
every decode step one graph that torch.compile captures whole (`fullgraph=True`) and never
recompiles; otherwise it is one sentence saying why not, for the log line or the error. A static
decode step (`kvlimit.cache.decode.StaticDecode`) has a host part, run eagerly before the step from
counters that advance by arithmetic (a RoPE rebase or re-rank, a learned-position re-encode when
due), and a device part traced into the graph with the forward: the eviction choice (every policy,
on the device, the same tie rule), the slots, positions and sink rotation, the attention policies'
scores (the attention tap is a plain attribute of the attention modules, which torch.compile
traces), the writes of the new keys and values (quantized there with `kv_dtype`) and attention over
every slot, empty ones masked. With `recall=R` the recall tier moves to the device at the first
static step (`kvlimit.cache.recall_static.StaticRecall`: per-row rings of blocks, scored, chosen
by `topk`, gathered and rotated in the graph), except for Quest's bounds, which it does not serve.
"""

from __future__ import annotations

from typing import Any

from ..policies import POLICIES

#: Families whose forward transformers does not compile (`_can_compile_fullgraph` is False): MPT slices
#: its position bias by the cache's length on the host, so a compiled forward would recompile per step.
SEQ_LENGTH_READERS = ("mpt",)

#: The policies whose decode steps compile: all of them.
COMPILING_POLICIES = tuple(POLICIES)


def compile_blocker(cache: Any) -> str | None:
    """None if `cache` (a `BoundedCache`) can compile its decode steps, else why not."""
    recall = cache.recall
    if recall is not None and recall.score == "bounds":
        return (
            "recall_score='bounds' keeps its blocks in host memory, which the static step does not read; use "
            "recall_score='distance' or 'keys' to compile with recall"
        )
    if len(set(cache.sliding.windows.values())) > 1:
        return (
            "the model's own sliding-window layers have windows of several sizes, which one mask cannot "
            "serve in static form; use a cache_limit no larger than the smallest window to compile"
        )
    return family_blocker(getattr(cache.model_spec, "model_type", None))


def family_blocker(model_type: str | None) -> str | None:
    """None if a family's forward compiles over a bounded cache, else why not."""
    if model_type in SEQ_LENGTH_READERS:
        return (
            f"{model_type}'s forward reads the cache's length as a host integer every step (it would "
            f"recompile per step; transformers does not compile it either); the families that read it so: "
            f"{', '.join(SEQ_LENGTH_READERS)}"
        )
    return None
