"""Which bounded caches can be compiled, and why the others cannot.

Contract: `compile_blocker(cache)` is None when a `BoundedCache` with static shapes
(`BoundedCache.make_static`) gives every decode step's forward one shape that torch.compile captures
whole (`fullgraph=True`) and never recompiles; otherwise it is one sentence saying why not, for the
log line or the error. The step's planning (eviction choice, slots, positions, sink rotation, a
learned-position re-encode) runs outside the compiled forward, eagerly, from device tensors and host
counters that advance by arithmetic; the compiled forward writes the new keys and values in place at
the planned slots (quantizing them there with `kv_dtype`) and attends over every slot, empty ones
masked.
"""

from __future__ import annotations

from typing import Any

#: Families whose forward reads the cache's length as a host integer every step (Bloom and MPT size
#: their ALiBi and causal mask by `cache.get_seq_length()`): a compiled forward would recompile per step.
SEQ_LENGTH_READERS = ("bloom", "mpt")


def compile_blocker(cache: Any) -> str | None:
    """None if `cache` (a `BoundedCache`) can compile its decode steps, else why not."""
    if cache.recall is not None:
        return (
            "the recall tier (recall=R) chooses its blocks on the host in every step; use recall=0 to compile"
        )
    if cache.sliding_layers:
        return (
            "the model's own sliding-window layers (transformers' DynamicSlidingWindowLayer) change shape "
            "every step; use a cache_limit no larger than the model's sliding window to compile"
        )
    if cache.policy.reads_attention:
        return (
            f"policy {cache.policy.describe()} reads the attention through a tap torch.compile cannot trace "
            "yet; the policies that compile: sinks, window, knorm"
        )
    return family_blocker(getattr(cache.model_spec, "model_type", None))


def family_blocker(model_type: str | None) -> str | None:
    """None if a family's forward compiles over a bounded cache, else why not."""
    if model_type in SEQ_LENGTH_READERS:
        return (
            f"{model_type}'s forward reads the cache's length as a host integer every step (it would "
            f"recompile per step); the families that read it so: {', '.join(SEQ_LENGTH_READERS)}"
        )
    return None


#: The policies whose decode steps compile.
COMPILING_POLICIES = ("sinks", "window", "knorm")
