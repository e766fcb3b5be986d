"""`kvlimit.generate` and `kvlimit.enable`: a `cache_limit=` argument for transformers' generate.

Contract
--------
- `kvlimit.generate(model, input_ids=..., attention_mask=..., cache_limit=N, **generate_kwargs)`
  and `model.generate(..., custom_generate=kvlimit.generate, cache_limit=N)` run transformers' own
  decoding loops (greedy, sampling, beam search, beam sampling) with a `BoundedCache` that never
  holds more than N tokens per row. Without `cache_limit` both behave exactly like stock generate.
- `kvlimit.enable(model)` opts one model instance in: afterwards `model.generate(..., cache_limit=N)`
  works; calls without `cache_limit` go to stock generate untouched. Nothing is patched at import.
- Instead of `cache_limit` and its options, a call may pass `cache=build_cache(model, config, ...)`
  (`past_key_values=` before transformers 5.24): the cache carries its `LimitConfig`.
- Bad arguments raise `ValueError` naming the parameter; unsupported models and decoding modes
  raise errors that say what is supported. With `return_dict_in_generate=True` the output's
  `cache` (`past_key_values` before transformers 5.24) is the `BoundedCache`.

One path
--------
Every entry validates its arguments once, into a `LimitConfig`, and then the one core, `_decode`,
runs: it builds (or takes) the cache, prefills a long prompt in chunks and hands transformers' own
loop the steered model. A direct call and an enabled model reach it through transformers'
`generate(custom_generate=BoundedDecoding(config, ...))`, which prepares the inputs (processors,
stopping criteria, beam expansion) and calls the decoding object with them; `custom_generate=
kvlimit.generate` reaches it when transformers calls `generate` with inputs it has prepared, which
`integrations.hf.prepared_by_generate` tells from a marker transformers leaves on the generation
config. Nothing calls itself back.

The streamer: transformers hands a `custom_generate` callable none of the arguments `_sample` also
takes (`streamer` among them: `GenerationMixin._extract_generation_mode_kwargs` keeps only the
callable's own new keys), so a decoding object built here carries the call's streamer itself. Only
`custom_generate=kvlimit.generate`, where transformers alone saw the call, reads the streamer and
the assistant model from transformers' `generate` frame (`hf.enclosing_generate_arguments`): no
argument, return value or attribute carries them to a callable, in any release from 5.18 to 5.25.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
from typing import Any

import torch

from .build import build_cache
from .cache import BoundedCache
from .cache.compiled import compile_blocker
from .config import LimitConfig, argument_names
from .forward import prefill, prefill_chunk
from .integrations import hf
from .loop import LoopRules, loop_refusal, run_loop
from .policies import EvictionPolicy

logger = logging.getLogger(__name__)

#: generate's keyword arguments that configure the cache (the declarations; a test checks the signature).
_ARGUMENTS = frozenset(argument_names())


def generate(
    model: Any,
    input_ids: torch.Tensor | None = None,
    logits_processor: Any = None,
    stopping_criteria: Any = None,
    generation_config: Any = None,
    *,
    cache_limit: int | str | LimitConfig | None = None,
    policy: str | EvictionPolicy | None = None,
    n_sink: int | None = None,
    n_recent: int | None = None,
    observation_window: int | None = None,
    pool: int | None = None,
    decode_policy: str | None = None,
    positions: str | None = None,
    prefill_chunk: int | None = None,
    kv_dtype: str | None = None,
    kv_group: int | None = None,
    recall: int | None = None,
    recall_store: int | str | None = None,
    recall_dtype: str | None = None,
    recall_score: str | None = None,
    recall_block: int | None = None,
    recall_every: int | None = None,
    recall_queries: int | None = None,
    recall_positions: str | None = None,
    window: int | None = None,
    streamer: Any = None,
    compile: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Generate with at most `cache_limit` tokens of KV cache per sequence.

    Args:
        model: a transformers causal LM of a supported family (`kvlimit.supported_families()`).
        input_ids: (batch, prompt) token ids, left-padded for batches (with `attention_mask`).
        cache_limit: the most tokens the cache holds per sequence (int), or a memory budget for the
            whole cache such as "256MiB", or a `LimitConfig` holding every setting below. None: stock
            generate (or the config of a `BoundedCache` passed as `cache=`).
        policy: a registered policy's name (`kvlimit.POLICIES`): "sinks" (default: StreamingLLM,
            the first `n_sink` tokens + the most recent), "window", and per layer "knorm" (smallest
            key norms), "tova" (the tokens the newest query attends to most), "h2o" (the most
            attended, on average) or "snapkv" (long prompts: what each chunk's last queries attend
            to); or an `EvictionPolicy` object.
        n_sink: the first tokens every policy but "window" never evicts (default 4).
        n_recent: newest tokens "knorm" and "h2o" keep by recency (default: a quarter / half the limit).
        observation_window: "snapkv": how many of a prompt chunk's last queries observe (default 32).
        pool: "snapkv": observed scores are averaged over this many neighbouring keys (odd, default 5).
        decode_policy: "snapkv": how generation goes on after the prompt, "sinks" (default) or "tova".
        positions: "auto"; for learned-absolute-position models (gpt2, opt, gpt_bigcode) also
            "reencode" (default: re-encode the kept window when positions would leave the table)
            or "clamp" (cheap: positions stop at the table's last entry).
        prefill_chunk: tokens per forward when the prompt is longer than the limit (default: a
            quarter of the limit, at most the limit minus the protected tokens).
        kv_dtype: store the bounded cache quantized: "int8" or "fp8" (about a half of bfloat16's
            bytes), "int4" (about a third), "k8v4" (int8 keys, int4 values: about 0.4, near int8's
            quality); None (default) keeps the model's dtype. Per token, in
            blocks of `kv_group` dims with one float16 scale each; the sinks stay in the model's dtype.
        kv_group: dims per quantization block (default 32, as llama.cpp's q8_0 / q4_0).
        recall: slots of the limit given to recalled tokens (0 or None: off). What the policy evicts
            is kept in blocks, per row and layer, and each step the blocks the current queries need
            most fill these slots, between the sinks and the recent window (`kvlimit.cache.recall`;
            policies sinks and window, RoPE models).
        recall_store: the most evicted tokens a sequence keeps (int), or a memory size for the whole
            store ("256MiB"); the oldest blocks go first. None: the store grows with the text.
        recall_dtype: "int8" or "int4": the recall store keeps codes; "bfloat16" or "float16": 16-bit
            floats (None: the model's dtype).
        recall_score: how blocks are chosen: "distance" (default: each block's best key for the step's
            queries, each key seen at its distance from the query, as the full cache sees it), "keys"
            (the same, every block judged at one distance) or "bounds" (Quest's per-channel key bounds).
        recall_block: tokens per block of the recall store, a divisor of `recall` (None: 4, or the
            largest of 2 and 1 that divides `recall`): smaller blocks hold more of the attention the full
            cache pays in the same slots; larger ones keep a phrase together.
        recall_every: a decode step chooses a row's blocks afresh every `recall_every` steps (None or 1:
            every step; sooner when what a row can recall changes); between, the row attends the blocks
            it chose last and the step skips the scoring (`kvlimit.cache.recall`, "Choosing every N steps").
        recall_queries: a prompt longer than the limit feeds its last `recall_queries` tokens one per
            forward (None: 16; 0: none), so that each chooses its recalled blocks by its own query, as a
            decode step does: a question at a prompt's end chooses what it asks for; the chunks before it
            choose by the mean of their queries (`kvlimit.forward.prefill_spans`).
        recall_positions: where recalled tokens are attended: "distance" (None, the default: each at its
            own distance from the query, as the full cache holds it, at most the model's trained context;
            the sinks just before the recent window), "full" (the sinks at their own distance too) or
            "packed" (side by side between the sinks and the recent window).
        window: the old name of `observation_window` (accepted with a FutureWarning).
        streamer: a transformers streamer; receives the tokens as they are generated.
        compile: True: compile the decode step (torch.compile, the whole forward in one graph, on any
            device, the CPU included), or raise `ValueError` saying why this configuration cannot;
            False: never. None (default): as transformers does for its StaticCache, compile on an
            accelerator, or wherever `compile_config=` is passed, when the configuration compiles
            (`kvlimit.cache.compiled.compile_blocker`), else run eagerly with one log line saying why.
        **kwargs: anything transformers' `generate` takes (max_new_tokens, do_sample, num_beams, ...).

    Returns:
        What transformers' `generate` returns: a tensor of sequences, or a `ModelOutput` with
        `return_dict_in_generate=True` whose `cache` is the `BoundedCache`.
    """
    arguments = {name: value for name, value in locals().items() if name in _ARGUMENTS}
    if hf.prepared_by_generate(generation_config):
        # transformers' generate is calling us (custom_generate=kvlimit.generate): inputs are prepared
        assert input_ids is not None
        config = _config(arguments, kwargs)
        called = hf.enclosing_generate_arguments()
        decoding = BoundedDecoding(
            config, streamer or called.get("streamer"), called.get("assistant_model"), compile=compile
        )
        return decoding(model, input_ids, logits_processor, stopping_criteria, generation_config, **kwargs)
    given = {"logits_processor": logits_processor, "stopping_criteria": stopping_criteria,
             "generation_config": generation_config, "streamer": streamer}  # fmt: skip
    kwargs.update({name: value for name, value in given.items() if value is not None})
    if input_ids is not None:
        kwargs["input_ids"] = input_ids
    if compile is not None:
        kwargs["compile"] = compile
    return _generate(model, (), arguments, kwargs)


def _config(arguments: dict[str, Any], kwargs: dict[str, Any]) -> LimitConfig | None:
    """The call's validated config: from its cache options, or from a `BoundedCache` it passes."""
    config = LimitConfig.from_arguments(arguments)
    passed = hf.passed_cache(kwargs)
    if not isinstance(passed, BoundedCache):
        return config
    if config is not None:
        _check_agrees(config, passed)
    return passed.config if passed.config is not None else config


def _check_agrees(config: LimitConfig, cache: BoundedCache) -> None:
    """Options given beside a `BoundedCache` must describe it."""
    if config.cache_limit_tokens is not None and cache.cache_limit != config.cache_limit_tokens:
        raise ValueError(
            f"cache_limit={config.cache_limit_tokens} differs from the passed BoundedCache's limit {cache.cache_limit}"
        )
    if cache.policy != config.policy:
        raise ValueError(
            f"policy {config.policy.describe()} differs from the passed BoundedCache's {cache.policy.describe()}"
        )
    if cache.kv_dtype != config.kv_dtype:
        raise ValueError(
            f"kv_dtype={config.kv_dtype!r} differs from the passed BoundedCache's {cache.kv_dtype!r}"
        )


def _generate(model: Any, args: tuple[Any, ...], arguments: dict[str, Any], kwargs: dict[str, Any]) -> Any:
    """A user's call (direct, or through an enabled model): validate once, then transformers' generate
    with a `BoundedDecoding` of the config (stock generate when there is none)."""
    hf.normalize_cache_argument(kwargs)
    config = _config(arguments, kwargs)
    compile = kwargs.pop("compile", None)
    if config is None:
        if compile is not None:
            raise ValueError("compile needs cache_limit: it compiles the bounded cache's decode step")
        return hf.stock_generate(model, *args, **kwargs)
    hf.with_stop_strings(kwargs)  # transformers would not hand our decoding the tokenizer they need
    hf.inspect_model(model)  # an unsupported model fails before transformers prepares anything
    if "custom_generate" in kwargs:
        raise ValueError(
            "custom_generate cannot be combined with cache_limit: kvlimit is the custom generate"
        )
    decoding = BoundedDecoding(config, kwargs.get("streamer"), kwargs.get("assistant_model"), compile=compile)
    return hf.stock_generate(model, *args, custom_generate=decoding, **kwargs)


class BoundedDecoding:
    """What transformers' generate calls with prepared inputs (`custom_generate=`): the one core.

    Carries the call's validated config (None: stock decoding), the streamer and assistant model
    that transformers does not hand a `custom_generate` callable, and whether to compile (see
    `kvlimit.generate`'s `compile`).
    """

    def __init__(
        self,
        config: LimitConfig | None,
        streamer: Any = None,
        assistant_model: Any = None,
        *,
        compile: bool | None = None,
    ):
        if compile is not None and not isinstance(compile, bool):
            raise ValueError(f"compile must be True, False or None; got {compile!r}")
        self.config = config
        self.streamer = streamer
        self.assistant_model = assistant_model
        self.compile = compile

    def __call__(
        self,
        model: Any,
        input_ids: torch.Tensor,
        logits_processor: Any,
        stopping_criteria: Any,
        generation_config: Any,
        **model_kwargs: Any,
    ) -> Any:
        mode = hf.generation_mode(generation_config, self.assistant_model)
        run = functools.partial(hf.run_decoding, model, mode, input_ids, logits_processor, stopping_criteria)
        if self.config is None:
            return run(generation_config, self.streamer, model_kwargs)
        hf.check_decoding_mode(mode)
        spec = hf.inspect_model(model)
        if model_kwargs.get("inputs_embeds") is not None:
            raise ValueError("kvlimit does not support inputs_embeds; pass input_ids")
        generation_config = _with_cache_on(generation_config, model_kwargs)
        rows, prompt_length = input_ids.shape
        cache = _cache_for_call(model, self.config, model_kwargs, rows, int(generation_config.max_length))
        # a passed cache continues: as in transformers, input_ids hold the columns it has seen, then new ones
        seen = cache.columns_seen
        if seen and prompt_length <= seen:
            raise ValueError(
                f"the passed cache has seen {seen} columns; input_ids ({prompt_length} columns) must hold them "
                "and the new ones after them, as transformers continues a cache"
            )
        chunk = prefill_chunk(cache, prompt_length - seen, self.config.prefill_chunk)
        hf.put_cache(model_kwargs, cache)
        generation_config = self._compiling(cache, input_ids.device, generation_config)
        if model_kwargs.get("attention_mask") is None:
            # transformers slices the prompt by the cache's length only when it has a mask to measure it by
            model_kwargs["attention_mask"] = torch.ones_like(input_ids)
        logger.info("kvlimit: %s, %d rows, %s, %d slots allocated%s", cache.config.describe(), rows, spec.scheme,
                    cache.slots, f", prefill in chunks of {chunk}" if chunk else "")  # fmt: skip
        own_loop = self._own_loop(cache, mode, generation_config, model_kwargs)
        with (
            hf.steer_generation(model, cache, spec),
            self._compiled_forward(model, cache, mode, generation_config, own_loop),
            # a compiled step (kvlimit's loop or transformers') takes grouped heads as they are on the CPU
            hf.grouped_sdpa_on_cpu() if cache.static_shapes else contextlib.nullcontext(),
            # room for a graph per shape, once for the run: transformers' loops compile the forward (their
            # own compiled call, or beams' `compiled_decode_forward`) and take no room per call
            hf.room_to_compile() if cache.static_shapes else contextlib.nullcontext(),
        ):
            if chunk is not None:  # a continued cache: the prompt's columns after those it has seen
                mask = model_kwargs["attention_mask"]
                prefill(model, cache, input_ids[:, seen:], mask[:, seen:], chunk)
            if own_loop:
                step = hf.CompiledDecodeStep(model, cache, spec, generation_config.compile_config)
                rules = LoopRules(logits_processor, stopping_criteria, generation_config, self.streamer)
                return run_loop(model, cache, input_ids, model_kwargs["attention_mask"], rules, step)
            return run(generation_config, self.streamer, model_kwargs)

    def _compiling(self, cache: BoundedCache, device: torch.device, generation_config: Any) -> Any:
        """Make `cache`'s decode steps static and the generation config compile them, where asked
        (`compile`, or transformers' own rule when it is None) and possible."""
        if self.compile is False:
            generation_config.disable_compile = True
            return generation_config
        if self.compile is None and not hf.auto_compiles(device, generation_config):
            return generation_config
        reason = compile_blocker(cache)
        if reason is not None:
            if self.compile:
                raise ValueError(f"compile=True: {reason}")
            logger.warning("kvlimit: decoding eagerly: %s", reason)
            generation_config.disable_compile = True
            return generation_config
        cache.make_static(int(generation_config.max_length))
        generation_config.compile_config = hf.compile_config_for(generation_config.compile_config, device)
        return generation_config

    @staticmethod
    def _own_loop(
        cache: BoundedCache, mode: Any, generation_config: Any, model_kwargs: dict[str, Any]
    ) -> bool:
        """Whether kvlimit's own loop runs this compiled call (greedy search and sampling), else why not,
        in one log line (transformers' loop then compiles the forward itself)."""
        if not cache.static_shapes or not hf.loop_compiles(mode):
            return False
        refusal = loop_refusal(generation_config, model_kwargs)
        if refusal is not None:
            logger.info("kvlimit: compiled forward in transformers' loop: %s", refusal)
        return refusal is None

    @staticmethod
    def _compiled_forward(
        model: Any, cache: BoundedCache, mode: Any, generation_config: Any, own_loop: bool
    ) -> contextlib.AbstractContextManager[None]:
        """Compile the decode forwards of a transformers loop that does not compile them itself (beam search)."""
        if not cache.static_shapes or own_loop or hf.loop_compiles(mode):
            return contextlib.nullcontext()

        def is_decode() -> bool:
            plan = cache.current_plan
            return plan is not None and plan.kind == "decode"

        return hf.compiled_decode_forward(model, is_decode, generation_config.compile_config)


def _with_cache_on(generation_config: Any, kwargs: dict[str, Any]) -> Any:
    """A copy of the generation config with `use_cache` on (some configs, MPT's, default to no cache)."""
    generation_config = copy.deepcopy(generation_config)
    if not generation_config.use_cache:
        # a cache limit means a cache, and the outputs are the same
        logger.info("kvlimit: turning use_cache on (the model's generation config had it off)")
        generation_config.use_cache = True
        kwargs["use_cache"] = True
    return generation_config


def _cache_for_call(
    model: Any, config: LimitConfig, kwargs: dict[str, Any], rows: int, max_length: int
) -> BoundedCache:
    """The passed `BoundedCache`, or a new one for `rows` rows of at most `max_length` tokens."""
    existing = hf.passed_cache(kwargs)
    if isinstance(existing, BoundedCache):
        return existing
    if existing is not None and hf.is_user_cache(existing):
        raise ValueError(
            "with cache_limit, pass no cache (kvlimit builds one) or a kvlimit.BoundedCache to continue"
        )
    return build_cache(model, config, rows=rows, max_length=max_length)


def enable(model: Any) -> Any:
    """Opt `model` in: afterwards `model.generate(..., cache_limit=N)` uses a bounded cache.

    Calls without `cache_limit` run transformers' generate untouched. Returns the model.
    """
    hf.inspect_model(model)  # fail now, not at the first generate
    if getattr(model, "_kvlimit_enabled", False):
        return model
    names = argument_names()

    @functools.wraps(type(model).generate)
    def bounded_generate(*args: Any, **kwargs: Any) -> Any:
        arguments = {name: kwargs.pop(name, None) for name in names}
        return _generate(model, args, arguments, kwargs)  # `compile` travels in kwargs

    model.generate = bounded_generate
    model._kvlimit_enabled = True
    return model


def disable(model: Any) -> Any:
    """Undo `enable(model)`. Returns the model."""
    if getattr(model, "_kvlimit_enabled", False):
        del model.generate
        del model._kvlimit_enabled
    return model
