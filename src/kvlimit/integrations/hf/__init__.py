"""Every transformers internal kvlimit depends on lives in this package (transformers 5.18 to 5.25).

Contract: the rest of kvlimit reaches transformers internals (cache protocol, mask builders,
rotary classes, generation loops and modes) only through this package; it imports only public API
(`AutoModelForCausalLM`, `DynamicCache`, stopping criteria, streamers) directly. It provides

- the cache base classes (`Cache`, `CacheLayerMixin`, `DynamicSlidingWindowLayer`);
- `inspect_model(model) -> ModelSpec`: the model's family, positional scheme, per-layer RoPE
  frequencies and layout, layer types and sliding windows; unsupported models get an error that
  lists what is supported;
- `step_model_inputs(...)`: the one path from a bounded cache's step to a forward's inputs (its
  positions and attention mask, a dict of masks where the model mixes bounded layers with its own
  sliding ones), used by `kvlimit.forward_step` and, through `steer_generation`, by generate;
- `steer_generation(...)`: a context manager that, for one `generate` call, replaces the model's
  `prepare_inputs_for_generation` on the instance (never the class) so that every forward gets the
  bounded cache's positions and attention mask, and advances the cache after each forward;
- `compile_config_for(...)`, `auto_compiles(...)`, `compile_counters()`: compiling the decode
  forward as transformers' generate does, with kvlimit's inductor options (`compiling`); a compiled
  step on the CPU hands sdpa grouped keys and values as they are (`grouped_sdpa`);
- `run_decoding(...)`: dispatch to transformers' own `_sample` / `_beam_search` loops;
  `prepared_by_generate(generation_config)`: whether transformers' generate prepared a call;
  `enclosing_generate_arguments()`: the `streamer` / `assistant_model` that `GenerationMixin.generate`
  does not forward to a `custom_generate` callable, read from its frame (used only where
  transformers alone saw the call: `custom_generate=kvlimit.generate`);
- the release adapter: the supported range (`floor.MIN_TRANSFORMERS`, checked first at import), the name of the
  cache argument (`CACHE_ARG`: `cache` from 5.24, `past_key_values` before) with `cache_argument`,
  `output_cache`, `passed_cache`, `put_cache` and `normalize_cache_argument`, and the per-layer
  types and windows (`layer_types_and_windows`: 5.18 returns one shared dict of layer kwargs).

Facts this relies on (transformers 5.18 to 5.25): `generate(custom_generate=callable)` prepares
inputs, expands rows for beams, then calls the callable with `(model, input_ids,
logits_processor=, stopping_criteria=, generation_config=, **custom_kwargs, **model_kwargs)` and
swallows `streamer`; masks are built by `create_causal_mask` from a 2D mask read at columns
`kv_offset + i` of `cache.get_mask_sizes`, with queries at `cache.get_query_offset` (from 5.14;
kvlimit's floor is 5.18); with no 2D mask they are sized from the cache alone (and sdpa's per-step
all-ones check of a given mask, a host sync, is skipped). A forward given the cache under the other
release's name swallows it into `**kwargs` and runs on a fresh cache of its own, silently: every
call here goes through `cache_argument`, and `probe_kv_shapes` refuses a probe that wrote nothing.
"""

# isort: off
from .floor import MIN_TRANSFORMERS, TRANSFORMERS_VERSION, check_release  # first: refuse an old release

# isort: on
from transformers import GenerationConfig
from transformers.cache_utils import Cache, CacheLayerMixin, DynamicCache, DynamicSlidingWindowLayer
from transformers.generation.configuration_utils import GenerationMode
from transformers.generation.logits_process import LogitsProcessorList
from transformers.generation.stopping_criteria import StoppingCriteriaList

from .attention import attention_families, attention_tap, can_prepare, prepare_families, tap_reports_queries
from .compiling import (
    AUTO_COMPILE_DEVICES,
    CompiledDecodeStep,
    auto_compiles,
    compile_config_for,
    compile_counters,
    compiled_decode_forward,
    loop_compiles,
    room_to_compile,
)
from .decoding import (
    LOOP_MODEL_KWARGS,
    DecodingRules,
    apply_processors,
    check_decoding_mode,
    decoder_only_output,
    enclosing_generate_arguments,
    eos_token_ids,
    generate_batch,
    generation_config,
    generation_mode,
    prepared_by_generate,
    prepared_rules,
    run_decoding,
    stock_generate,
    stop_at_length,
    with_stop_strings,
)
from .grouped_sdpa import grouped_sdpa_on_cpu
from .models import (
    ATTENTION_IMPLEMENTATIONS,
    FAMILIES,
    Family,
    ModelSpec,
    UnsupportedModelError,
    attn_implementation,
    inspect_model,
    is_user_cache,
    model_name,
    supported_families,
    text_config,
)
from .probe import KVShape, kv_bytes, kv_bytes_of_layer, probe_kv_bytes_per_token, probe_kv_shapes
from .release import (
    CACHE_ARG,
    MASK_CACHE_ARG,
    OTHER_CACHE_ARG,
    cache_argument,
    layer_types_and_windows,
    normalize_cache_argument,
    output_cache,
    passed_cache,
    put_cache,
)
from .steps import (
    PlannedCache,
    build_mask_dict,
    last_logits_only,
    make_reencode_fn,
    steer_generation,
    step_model_inputs,
    takes_logits_to_keep,
)

__all__ = [
    "ATTENTION_IMPLEMENTATIONS",
    "AUTO_COMPILE_DEVICES",
    "CACHE_ARG",
    "FAMILIES",
    "LOOP_MODEL_KWARGS",
    "MASK_CACHE_ARG",
    "MIN_TRANSFORMERS",
    "OTHER_CACHE_ARG",
    "TRANSFORMERS_VERSION",
    "Cache",
    "CacheLayerMixin",
    "CompiledDecodeStep",
    "DecodingRules",
    "DynamicCache",
    "DynamicSlidingWindowLayer",
    "Family",
    "GenerationConfig",
    "GenerationMode",
    "KVShape",
    "LogitsProcessorList",
    "ModelSpec",
    "PlannedCache",
    "StoppingCriteriaList",
    "UnsupportedModelError",
    "apply_processors",
    "attention_families",
    "attention_tap",
    "attn_implementation",
    "auto_compiles",
    "build_mask_dict",
    "cache_argument",
    "can_prepare",
    "check_decoding_mode",
    "check_release",
    "compile_config_for",
    "compile_counters",
    "compiled_decode_forward",
    "decoder_only_output",
    "enclosing_generate_arguments",
    "eos_token_ids",
    "generate_batch",
    "generation_config",
    "generation_mode",
    "grouped_sdpa_on_cpu",
    "inspect_model",
    "is_user_cache",
    "kv_bytes",
    "kv_bytes_of_layer",
    "last_logits_only",
    "layer_types_and_windows",
    "loop_compiles",
    "make_reencode_fn",
    "model_name",
    "normalize_cache_argument",
    "output_cache",
    "passed_cache",
    "prepare_families",
    "prepared_by_generate",
    "prepared_rules",
    "probe_kv_bytes_per_token",
    "probe_kv_shapes",
    "put_cache",
    "room_to_compile",
    "run_decoding",
    "steer_generation",
    "step_model_inputs",
    "stock_generate",
    "stop_at_length",
    "supported_families",
    "takes_logits_to_keep",
    "tap_reports_queries",
    "text_config",
    "with_stop_strings",
]
