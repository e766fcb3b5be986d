"""Compiling the decode forward the way transformers' own generate does.

Contract: transformers' decoding loops (`_sample`, `_beam_search`) run the prefill eagerly and every
later forward through `model.get_compiled_call(generation_config.compile_config)` when the cache
`is_compileable` and the device is an accelerator, or any device where the compile config's
private `_compile_all_devices` is set (transformers 5.18 to 5.25 all have it). `compile_config_for`
builds that config; `compile_counters` reads torch._dynamo's counters (graphs, breaks,
recompiles), which the tests and the benchmarks report. `CompiledDecodeStep` is kvlimit's own
compiled unit, used by its own decode loop (`kvlimit.loop`): a bounded cache's static decode step
and the forward, as one graph. `room_to_compile` lets those compiled calls hold a graph per shape past
torch's own limit of 8 per function (`STEP_GRAPH_LIMIT`).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterator
from typing import Any

import torch
from transformers.generation.configuration_utils import CompileConfig, GenerationMode

from .attention import attention_tap
from .grouped_sdpa import grouped_sdpa_on_cpu
from .release import cache_argument
from .steps import forward_inputs, last_logits_only

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
    config = with_step_options(config, device)
    config._compile_all_devices = True
    return config


#: Inductor options a bounded cache's compiled step gets (options the caller gives win). Without
#: `reorder_for_locality`, inductor moves the recall tier's read of the token a step evicts (its
#: capture into the ring) next to its first use, past the first layer's write of the new token into
#: the same stack; the stack can then no longer be written in place, and inductor copies all of it
#: twice a step (in and out: 24 MB each for SmolLM2-135M at limit 1,024). Measured on this CPU: the
#: recall step 1.38x -> 1.28x sinks, sinks unchanged (README, Recall).
STEP_OPTIONS = {"reorder_for_locality": False}

#: More inductor options, on the CPU only. `cpp_wrapper`: the step's graph calls its kernels from
#: generated C++ instead of Python, where each of a step's ~1,000 kernel and library calls cost
#: microseconds of interpreter (on a GPU, CUDA graphs already replay the step without it). Measured on
#: this CPU, SmolLM2-135M at limit 1,024: the sinks step 35.8 -> 32.5 ms, the recall step 48.3 -> 45.3 ms
#: (README, "Compiling the decode step"); its price is a longer first compile (a C++ file for the
#: whole step: 95 -> 135 s for that sinks step on a cold cache), not paid again from the cache.
CPU_STEP_OPTIONS = {"cpp_wrapper": True}


def with_step_options(config: Any, device: torch.device | None = None) -> Any:
    """`config` (a `CompileConfig`) as kvlimit compiles with it: with inductor, its mode given as the
    inductor options it stands for (torch.compile takes a mode or options, not both), `STEP_OPTIONS`
    (and on the CPU `CPU_STEP_OPTIONS`) under the caller's own options; another backend's config as it
    is. Applying it twice changes nothing."""
    if config.backend != "inductor":
        return config
    from torch._inductor import list_mode_options

    mode = config.mode if config.mode not in (None, "default") else None
    options = {
        **STEP_OPTIONS,
        **(CPU_STEP_OPTIONS if device is not None and device.type == "cpu" else {}),
        **(list_mode_options(mode, config.dynamic) if mode else {}),
        **(config.options or {}),
    }
    return CompileConfig(
        fullgraph=config.fullgraph,
        dynamic=config.dynamic,
        backend=config.backend,
        mode=None,  # type: ignore[arg-type]  # typed str, but torch.compile refuses a mode beside options
        options=options,
    )


def _compile_arguments(compile_config: Any, device: torch.device) -> dict[str, Any]:
    """torch.compile's keyword arguments for `compile_config` on `device`, with kvlimit's step options."""
    config = with_step_options(compile_config, device)
    return {k: v for k, v in config.to_dict().items() if not k.startswith("_")}


#: Graphs one compiled step function may hold in a process, where torch's own limit is 8 per code
#: object: kvlimit's step is one function for every model, batch size, limit and configuration a process
#: compiles (one graph each), and `fullgraph=True` turns dynamo's fallback at the limit into an error, so a
#: ninth batch size in one process failed. Raised only within kvlimit's compiled calls (`room_to_compile`).
STEP_GRAPH_LIMIT = 64


@contextlib.contextmanager
def room_to_compile() -> Iterator[None]:
    """Within the block, a compiled step may hold up to `STEP_GRAPH_LIMIT` graphs (dynamo's
    `recompile_limit`, or the caller's own where higher; set back on leaving: about 15 us a call);
    beyond that, a `RuntimeError` that says why, in place of dynamo's (`FailOnRecompileLimitHit` from
    kvlimit's loop, `Unsupported` from a forward compiled inside transformers' beam search). Entered per
    call by `CompiledDecodeStep` (the engine's step, outside generate) and once around a static-shaped
    generate, which covers transformers' loops (their own compiled forward, `compiled_decode_forward`)."""
    from torch._dynamo.exc import FailOnRecompileLimitHit, Unsupported

    limit = max(STEP_GRAPH_LIMIT, int(torch._dynamo.config.recompile_limit))
    try:
        with torch._dynamo.config.patch(recompile_limit=limit):
            yield
    except (FailOnRecompileLimitHit, Unsupported) as error:
        if isinstance(error, Unsupported) and "recompile limit" not in str(error):
            raise
        raise RuntimeError(
            f"compile: this process has compiled kvlimit's decode step for {limit} different shapes (one "
            "graph per model, batch size, cache limit and configuration), the most torch.compile keeps for "
            "one function (torch._dynamo.config.recompile_limit); reuse fewer shapes, call "
            "torch._dynamo.reset() to drop the graphs, or decode eagerly (compile=False)"
        ) from error


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
    options = _compile_arguments(compile_config, model.device)
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


class CompiledDecodeStep:
    """One static decode step of a bounded cache as one compiled function: the cache's device part
    (`StaticDecode.run`: slots, eviction, positions, mask) and the model forward, traced together
    (`fullgraph`: a graph break is an error; static shapes). The host part runs before it
    (`cache.open_static_step()`) and the cache advances after it, eagerly.

    The compiled function is made once per model and compile options and kept on the model, so a
    later call with another cache of the same shapes runs the same graph (torch.compile guards on
    shapes and types, not on which cache).

    Args:
        model: the causal LM.
        cache: a `BoundedCache` made static (`make_static`) and prefilled.
        spec: the model's `ModelSpec` (whether it takes positions, `logits_to_keep`).
        compile_config: the `CompileConfig` whose options (mode, backend, fullgraph, dynamic, options)
            torch.compile gets; None: the eager step (the same code, uncompiled).
    """

    def __init__(self, model: Any, cache: Any, spec: Any, compile_config: Any):
        self.model = model
        self.cache = cache
        self.spec = spec
        self.extra: dict[str, Any] = dict(last_logits_only(model))
        self.function = _device_step if compile_config is None else _compiled_step(model, compile_config)

    def __call__(self, input_ids: torch.Tensor) -> torch.Tensor:
        """input_ids (batch, 1), the step's tokens -> the next logits (batch, vocab) float32."""
        static = self.cache.open_static_step()
        cache = self.cache
        # a decode step: no autograd graph (a caller outside generate may have it on); the attention
        # tapped for what the cache's policy reads and its recall tier fills (a no-op inside generate's)
        with (
            torch.no_grad(),
            grouped_sdpa_on_cpu(),
            attention_tap(self.model, self.spec, cache.attention_record, cache.attention_prepare),
            room_to_compile(),
        ):
            logits: torch.Tensor = self.function(
                self.model, self.cache, self.spec, static, input_ids, self.extra
            )
        self.cache.advance()
        return logits


def _device_step(
    model: Any, cache: Any, spec: Any, static: Any, input_ids: torch.Tensor, extra: dict[str, Any]
) -> torch.Tensor:
    """The traced part of a static decode step: the cache's device part, then the forward (with the
    masks `forward_inputs` makes of the step, as an eager step gets them)."""
    static.run(input_ids)
    inputs = forward_inputs(model, cache, spec, static.step_inputs, input_ids, None)
    out = model(input_ids=input_ids, **inputs, **cache_argument(cache), use_cache=True, **extra)
    return out.logits[:, -1].float()


def _compiled_step(model: Any, compile_config: Any) -> Callable[..., torch.Tensor]:
    """`_device_step` compiled with `compile_config`'s options, made once per model and options."""
    options = _compile_arguments(compile_config, model.device)
    key = repr(sorted(options.items()))
    made: dict[str, Callable[..., torch.Tensor]] = model.__dict__.setdefault("_kvlimit_compiled_steps", {})
    if key not in made:
        made[key] = torch.compile(_device_step, **options)
    return made[key]
