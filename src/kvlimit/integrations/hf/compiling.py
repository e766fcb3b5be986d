"""Compiling the decode forward the way transformers' own generate does.

Contract: transformers' decoding loops (`_sample`, `_beam_search`) run the prefill eagerly and every
later forward through `model.get_compiled_call(generation_config.compile_config)` when the cache
`is_compileable` and the device is an accelerator, or any device where the compile config's
private `_compile_all_devices` is set (transformers 5.18 to 5.25 all have it). `compile_config_for`
builds that config; `compile_counters` reads torch._dynamo's counters (graphs, breaks,
recompiles), which the tests and the benchmarks report.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterator
from typing import Any

import torch
from transformers.generation.configuration_utils import CompileConfig, GenerationMode

#: Devices on which transformers' generate compiles a compileable cache's forward by itself.
AUTO_COMPILE_DEVICES = ("cuda", "xpu", "neuron", "tpu", "mps")


def compile_config_for(given: Any, device: torch.device, *, fullgraph: bool = True) -> Any:
    """The `CompileConfig` a bounded run compiles with: `given` (the caller's) or one of our own
    (`fullgraph`, static shapes; CUDA graphs on CUDA, where launching kernels is what a step costs),
    set to compile on every device, the CPU included."""
    if given is not None:
        config = copy.deepcopy(given)
    else:
        mode = "reduce-overhead" if device.type == "cuda" else "default"
        config = CompileConfig(fullgraph=fullgraph, dynamic=False, mode=mode)
    config._compile_all_devices = True
    return config


def auto_compiles(device: torch.device, generation_config: Any) -> bool:
    """Whether transformers' generate compiles a compileable cache's forward by itself here."""
    if getattr(generation_config, "disable_compile", False):
        return False
    return (
        device.type in AUTO_COMPILE_DEVICES or getattr(generation_config, "compile_config", None) is not None
    )


def compile_counters() -> dict[str, int]:
    """torch._dynamo's counters so far in this process: frames compiled ("graphs"), graph breaks and
    recompiles (guard failures that compiled a frame again)."""
    from torch._dynamo.utils import counters

    stats = counters["stats"]
    return {
        "graphs": int(stats.get("unique_graphs", 0)),
        "breaks": int(sum(counters["graph_break"].values())),
        "recompiles": int(sum(counters["recompiles"].values())) if "recompiles" in counters else 0,
        "frames": int(counters["frames"].get("ok", 0)),
    }


#: Decoding modes whose loop (`_sample`) compiles the forward itself when the cache is compileable
#: (5.18 to 5.25); beam search calls `self(...)` uncompiled in every release.
SELF_COMPILING_MODES = (GenerationMode.GREEDY_SEARCH, GenerationMode.SAMPLE)


def loop_compiles(mode: GenerationMode) -> bool:
    """Whether transformers' loop for `mode` compiles a compileable cache's forward itself."""
    return mode in SELF_COMPILING_MODES


@contextlib.contextmanager
def compiled_decode_forward(model: Any, is_decode: Callable[[], bool], compile_config: Any) -> Iterator[None]:
    """Within the block, the model's forwards for which `is_decode()` holds run compiled (with the
    options of `compile_config`), the others (prompt chunks) eagerly: for a loop that does not compile
    the forward itself (beam search). The compiled forward is made once per model and options."""
    options = {k: v for k, v in compile_config.to_dict().items() if not k.startswith("_")}
    key = repr(sorted(options.items()))
    eager = type(model).forward.__get__(model)
    made = model.__dict__.get("_kvlimit_compiled_forward")
    if made is None or made[0] != key:
        made = (key, torch.compile(eager, **options))
        model.__dict__["_kvlimit_compiled_forward"] = made
    compiled = made[1]
    had_own = "forward" in model.__dict__
    previous = model.__dict__.get("forward")

    def forward(*args: Any, **kwargs: Any) -> Any:
        return compiled(*args, **kwargs) if is_decode() else eager(*args, **kwargs)

    model.forward = forward
    try:
        yield
    finally:
        if had_own:
            model.forward = previous
        else:
            del model.forward
