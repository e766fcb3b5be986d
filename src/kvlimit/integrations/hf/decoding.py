"""transformers' decoding loops, and how a `custom_generate` call is recognised.

Contract: `run_decoding` runs transformers' own `_sample` / `_beam_search` for a generation mode
(`check_decoding_mode` refuses the modes a bounded cache cannot run, saying why);
`prepared_by_generate` tells transformers' call of a custom generate from a user's;
`enclosing_generate_arguments` reads what transformers does not hand a custom generate callable;
`prepared_rules` has transformers prepare one prompt's decoding rules (processors, stopping
criteria, the generation config) for a decoding loop of kvlimit's own.
"""

from __future__ import annotations

import inspect
import logging
import sys
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import GenerationConfig, PreTrainedModel
from transformers.generation.configuration_utils import GenerationMode
from transformers.generation.logits_process import (
    EpsilonLogitsWarper,
    EtaLogitsWarper,
    LogitsProcessorList,
    MinPLogitsWarper,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
    TypicalLogitsWarper,
)
from transformers.generation.stopping_criteria import (
    StoppingCriteria,
    StoppingCriteriaList,
    StopStringCriteria,
)
from transformers.generation.utils import GenerateDecoderOnlyOutput, GenerationMixin

from .release import cache_argument

logger = logging.getLogger(__name__)

_DECODING_METHODS = {
    GenerationMode.GREEDY_SEARCH: "_sample",
    GenerationMode.SAMPLE: "_sample",
    GenerationMode.BEAM_SEARCH: "_beam_search",
    GenerationMode.BEAM_SAMPLE: "_beam_search",
}

#: Why the other modes are refused with a bounded cache.
_UNSUPPORTED_MODES = {
    GenerationMode.ASSISTED_GENERATION: (
        "assisted / speculative decoding verifies several draft tokens per step and rolls the cache "
        "back when they are rejected; a bounded cache has already evicted what a rollback would need"
    ),
    GenerationMode.CONTRASTIVE_SEARCH: "contrastive search lives in a Hub repository in transformers 5 and is not run by kvlimit",
    GenerationMode.DOLA_GENERATION: "DoLa lives in a Hub repository in transformers 5 and is not run by kvlimit",
    GenerationMode.GROUP_BEAM_SEARCH: "group beam search lives in a Hub repository in transformers 5 and is not run by kvlimit",
    GenerationMode.CONSTRAINED_BEAM_SEARCH: "constrained beam search lives in a Hub repository in transformers 5 and is not run by kvlimit",
}


def check_decoding_mode(mode: GenerationMode) -> None:
    if mode in _DECODING_METHODS:
        return
    why = _UNSUPPORTED_MODES.get(mode, "it is not one of the supported modes")
    supported = "greedy search, multinomial sampling, beam search and beam sampling"
    raise ValueError(
        f"{mode.value.replace('_', ' ')} is not supported with cache_limit: {why}. Supported: {supported}"
    )


def run_decoding(
    model: PreTrainedModel,
    mode: GenerationMode,
    input_ids: torch.Tensor,
    logits_processor: LogitsProcessorList,
    stopping_criteria: StoppingCriteriaList,
    generation_config: GenerationConfig,
    streamer: Any,
    model_kwargs: dict[str, Any],
) -> Any:
    """Run transformers' own decoding loop for `mode`."""
    method_name = _DECODING_METHODS.get(mode)
    if method_name is None:
        raise ValueError(
            f"{mode.value.replace('_', ' ')} cannot run through custom_generate=kvlimit.generate; "
            "call model.generate without it (kvlimit.enable routes such calls to transformers)"
        )
    method = getattr(model, method_name)
    extra = {"streamer": streamer} if method_name == "_sample" else {}
    return method(
        input_ids,
        logits_processor=logits_processor,
        stopping_criteria=stopping_criteria,
        generation_config=generation_config,
        **extra,
        **model_kwargs,
    )


#: The model kwargs generate hands a decoding loop that kvlimit's own loop (`kvlimit.loop`) replaces:
#: the cache, the mask and positions it plans itself, and flags with the values it uses.
LOOP_MODEL_KWARGS = frozenset({
    "attention_mask", "cache", "past_key_values", "position_ids", "cache_position", "logits_to_keep",
    "use_cache", "output_attentions", "output_hidden_states", "return_dict",
})  # fmt: skip


def decoder_only_output(sequences: torch.Tensor, scores: Any, logits: Any, cache: Any) -> Any:
    """The `return_dict_in_generate` output of a decoder-only loop, as transformers' `_sample` makes it."""
    ids = typing.cast(torch.LongTensor, sequences)
    return GenerateDecoderOnlyOutput(sequences=ids, scores=scores, logits=logits, **cache_argument(cache))


def prepared_by_generate(generation_config: Any) -> bool:
    """True when `GenerationMixin.generate` prepared this call's generation config (it is calling a
    `custom_generate` callable), False for a user's call.

    `generate` works on a deep copy of the user's config and sets the tensors of its special tokens
    on it (`_prepare_special_tokens`: `_eos_token_tensor`, ...), which a config a user makes or loads
    never has; every release from 5.18 to 5.25 does.
    """
    return isinstance(generation_config, GenerationConfig) and "_eos_token_tensor" in vars(generation_config)


_GENERATE_CODE = inspect.unwrap(GenerationMixin.generate).__code__


def enclosing_generate_arguments() -> dict[str, Any]:
    """`streamer` and `assistant_model` of the enclosing `GenerationMixin.generate` call.

    transformers does not forward them to a `custom_generate` callable: `_extract_generation_mode_kwargs`
    replaces them by the callable's own new keyword arguments, and `streamer` is a named parameter
    of `generate`, so it never reaches the callable by any argument. The generate frame still holds
    them as locals; this is the one place kvlimit reads a frame, and only for
    `custom_generate=kvlimit.generate` (a direct call and an enabled model carry them themselves).
    Returns {} when no such frame is on the stack.
    """
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is _GENERATE_CODE:
            local = frame.f_locals
            return {name: local.get(name) for name in ("streamer", "assistant_model")}
        frame = frame.f_back  # type: ignore[assignment]
    return {}


#: Warpers that read only the scores, never the tokens so far: the same for every row of a batch.
_SCORE_ONLY_WARPERS = (
    TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper, MinPLogitsWarper, TypicalLogitsWarper,
    EpsilonLogitsWarper, EtaLogitsWarper,
)  # fmt: skip


@dataclass
class DecodingRules:
    """What transformers' generate prepares for one prompt of a batch of one: its logits processors,
    its stopping criteria and its generation config (`do_sample`, the end-of-sequence ids, ...).

    `processors` is split in two, applied in this order: `own` (those that read the row's tokens:
    repetition penalty, minimum length, ...) and `warpers`, the trailing score-only warpers
    (temperature, top-k, top-p, ...), which a loop may apply to many rows' scores at once when their
    `warpers_key` agree.
    """

    processors: LogitsProcessorList
    stopping: StoppingCriteriaList
    config: GenerationConfig

    @property
    def split(self) -> int:
        """Where the trailing score-only warpers begin in `processors`."""
        at = len(self.processors)
        while at > 0 and type(self.processors[at - 1]) in _SCORE_ONLY_WARPERS:
            at -= 1
        return at

    @property
    def own(self) -> LogitsProcessorList:
        return LogitsProcessorList(self.processors[: self.split])

    @property
    def warpers(self) -> LogitsProcessorList:
        return LogitsProcessorList(self.processors[self.split :])

    @property
    def warpers_key(self) -> tuple[Any, ...]:
        """Equal for rules whose warpers do the same (type and settings)."""
        return tuple((type(w).__name__, repr(sorted(vars(w).items()))) for w in self.warpers)


def apply_processors(
    processors: Sequence[Any], input_ids: torch.Tensor, scores: torch.Tensor
) -> torch.Tensor:
    """What `LogitsProcessorList.__call__` does for processors that take no extra arguments (generate's
    own): each in turn. Without the list's `inspect.signature` of every processor on every call, which
    was a quarter of a continuous-batching step on a small model (one call per row and step)."""
    for processor in processors:
        scores = processor(input_ids, scores)
    return scores


def _capture_rules(
    model: Any, input_ids: torch.Tensor, logits_processor: LogitsProcessorList,
    stopping_criteria: StoppingCriteriaList, generation_config: GenerationConfig, **kwargs: Any,
) -> DecodingRules:  # fmt: skip
    return DecodingRules(logits_processor, stopping_criteria, generation_config)


class _StopAtLength(StoppingCriteria):
    """Stops every row once the sequences reach `length` tokens (not generate's own `MaxLengthCriteria`,
    which generate refuses to take twice, and which also sizes the cache)."""

    def __init__(self, length: int):
        self.length = length

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        done = input_ids.shape[1] >= self.length
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)


def stop_at_length(length: int) -> StoppingCriteriaList:
    """Stopping criteria that end a generate call at `length` tokens (prompt included) while its
    `max_new_tokens` still sizes the cache (the planner's probes: a run's cache, a few steps)."""
    return StoppingCriteriaList([_StopAtLength(length)])


def with_stop_strings(kwargs: dict[str, Any]) -> None:
    """Turn generate's `stop_strings=` (with `tokenizer=`) in `kwargs` into a `StopStringCriteria` among
    its `stopping_criteria`, in place, as generate itself builds it.

    transformers hands a `custom_generate` callable no tokenizer (`_extract_generation_mode_kwargs`
    replaces the mode arguments by the callable's own), so generate would refuse the stop strings of
    any call that goes through kvlimit ("we could not locate a tokenizer") even with `tokenizer=`.
    """
    stop = kwargs.pop("stop_strings", None)
    if stop is None:
        return
    tokenizer = kwargs.pop("tokenizer", None)
    if tokenizer is None:
        raise ValueError(
            "stop_strings needs tokenizer= (the model's tokenizer), as transformers' generate does"
        )
    criteria = StoppingCriteriaList(kwargs.get("stopping_criteria") or [])
    criteria.append(StopStringCriteria(stop_strings=stop, tokenizer=tokenizer))
    kwargs["stopping_criteria"] = criteria


def prepared_rules(model: Any, input_ids: torch.Tensor, **generate_kwargs: Any) -> DecodingRules:
    """The rules transformers' `generate(input_ids, **generate_kwargs)` would decode `input_ids`
    (1, prompt) by, prepared by generate itself (the public `custom_generate` hook, which receives
    them) and nothing run: the same processors (with this prompt's length, e.g. for
    `min_new_tokens`), the same stopping criteria (`max_new_tokens`, end of sequence, stop strings
    with `tokenizer=`), the same merged generation config, in every release from 5.18."""
    if input_ids.shape[0] != 1:
        raise ValueError(f"prepared_rules takes one prompt, (1, length); got {tuple(input_ids.shape)}")
    with_stop_strings(generate_kwargs)
    generate_kwargs.pop("tokenizer", None)
    rules = stock_generate(
        model, input_ids=input_ids, attention_mask=torch.ones_like(input_ids),
        custom_generate=_capture_rules, **generate_kwargs,
    )  # fmt: skip
    assert isinstance(rules, DecodingRules)
    return rules


def eos_token_ids(eos_token_id: int | list[int] | None) -> set[int]:
    """The end-of-sequence ids a generation config's `eos_token_id` (an id, a list or None) names."""
    return {eos_token_id} if isinstance(eos_token_id, int) else set(eos_token_id or [])


def generation_config(**settings: Any) -> GenerationConfig:
    """A transformers `GenerationConfig` with these settings."""
    return GenerationConfig(**settings)


def generate_batch(
    model: Any, prompts: list[list[int]], config: GenerationConfig, *, num_blocks: int, page_size: int,
    **options: Any,
) -> dict[str, Any]:  # fmt: skip
    """transformers' own continuous batching (`model.generate_batch`), its paged cache `num_blocks` pages
    of `page_size` tokens, with more `ContinuousBatchingConfig` options (`max_batch_tokens`, ...); the
    outputs by request id (each with `generated_tokens`)."""
    from transformers.generation.configuration_utils import ContinuousBatchingConfig

    paged = ContinuousBatchingConfig(page_size=page_size, num_blocks=num_blocks, **options)
    outputs: dict[str, Any] = model.generate_batch(
        prompts, generation_config=config, continuous_batching_config=paged, progress_bar=False
    )
    return outputs


def generation_mode(generation_config: GenerationConfig, assistant_model: Any = None) -> GenerationMode:
    return generation_config.get_generation_mode(assistant_model)


def stock_generate(model: Any, *args: Any, **kwargs: Any) -> Any:
    """transformers' own `generate`, bypassing an instance-level override set by `kvlimit.enable`."""
    return type(model).generate(model, *args, **kwargs)
