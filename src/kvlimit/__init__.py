"""kvlimit: a bounded KV cache (`cache_limit=`) for Hugging Face transformers generation.

    import kvlimit
    out = kvlimit.generate(model, **inputs, cache_limit=1024, max_new_tokens=100_000)
    out = model.generate(**inputs, custom_generate=kvlimit.generate, cache_limit=1024, policy="window")
    kvlimit.enable(model); model.generate(**inputs, cache_limit="256MiB", num_beams=4)
    for done in kvlimit.ContinuousEngine(model, kvlimit.LimitConfig.create(256), rows=8).run(requests): ...

Importing kvlimit patches nothing. See README.md for the semantics and supported families.
"""

from .build import build_cache, recall_families
from .cache import BoundedCache, StepInputs
from .config import LimitConfig
from .engine import ContinuousEngine, Finished, Request, Token, sequence_seed
from .forward import forward_step
from .generation import disable, enable, generate
from .integrations.hf import UnsupportedModelError, inspect_model, supported_families
from .models import load_model, model_folder
from .planner import MemoryPlan, PlanRow, plan
from .policies import POLICIES, EvictionPolicy, KeyNorm, Sinks, SlotView, Window, make_policy
from .sizing import kv_bytes_per_token

__version__ = "0.2.0"

__all__ = [
    "POLICIES",
    "BoundedCache",
    "ContinuousEngine",
    "EvictionPolicy",
    "Finished",
    "KeyNorm",
    "LimitConfig",
    "MemoryPlan",
    "PlanRow",
    "Request",
    "Sinks",
    "SlotView",
    "StepInputs",
    "Token",
    "UnsupportedModelError",
    "Window",
    "__version__",
    "build_cache",
    "disable",
    "enable",
    "forward_step",
    "generate",
    "inspect_model",
    "kv_bytes_per_token",
    "load_model",
    "make_policy",
    "model_folder",
    "plan",
    "recall_families",
    "sequence_seed",
    "supported_families",
]
