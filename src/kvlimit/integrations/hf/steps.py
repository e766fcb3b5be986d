"""From a bounded cache's step to a forward's inputs, inside and outside transformers' generate.

Contract: `step_model_inputs` plans the next step on the cache and returns the forward's attention
mask and positions (a dict of masks where the model mixes bounded layers with its own sliding ones);
`steer_generation` makes every forward that generate prepares take them, and advances the cache
after each; `make_reencode_fn` is the fresh forward learned absolute positions are re-encoded by.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Iterator
from typing import Any, Protocol

import torch
from transformers import PreTrainedModel
from transformers.cache_utils import (
    DynamicCache,
)
from transformers.generation.utils import GenerationMixin
from transformers.masking_utils import (
    create_causal_mask,
    create_sliding_window_causal_mask,
)

from .attention import AttentionPrepare, AttentionRecord, attention_tap
from .models import ModelSpec, text_config
from .release import CACHE_ARG, MASK_CACHE_ARG, cache_argument, output_cache

logger = logging.getLogger(__name__)


# --- masks ------------------------------------------------------------------------------------
def build_mask_dict(
    model: PreTrainedModel,
    cache: Any,
    bounded_mask: torch.Tensor | None,
    stock_mask: torch.Tensor | None,
    position_ids: torch.Tensor | None,
    query_ids: torch.Tensor,
) -> dict[str, Any]:
    """Masks for a model mixing bounded layers with transformers' own sliding layers.

    Bounded (full-attention) layers read `bounded_mask`, whose columns are the cache's slots (None:
    every slot is a kept token); transformers' sliding layers read generate's own growing 2D mask, as
    they always do. `query_ids` (batch, q) are the step's new tokens.
    """
    query_length = query_ids.shape[1]
    config = text_config(model)
    embeds = torch.empty((query_ids.shape[0], query_length, 0), dtype=model.dtype, device=query_ids.device)
    common = {"config": config, "inputs_embeds": embeds, MASK_CACHE_ARG: cache, "position_ids": position_ids}
    return {
        "full_attention": create_causal_mask(attention_mask=bounded_mask, **common),
        "sliding_attention": create_sliding_window_causal_mask(attention_mask=stock_mask, **common),
    }


# --- generation -------------------------------------------------------------------------------


class PlannedCache(Protocol):
    """What the step functions need of a bounded cache (`kvlimit.BoundedCache` is one)."""

    bounded_indices: list[int]
    sliding_indices: list[int]
    columns_seen: int
    step_open: bool
    hide_compileable: bool

    def prepare_step(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> Any: ...

    def advance(self) -> None: ...

    def sliding_mask(self, new_columns: torch.Tensor) -> torch.Tensor: ...

    @property
    def attention_record(self) -> AttentionRecord | None: ...

    @property
    def attention_prepare(self) -> AttentionPrepare | None: ...


def step_model_inputs(
    model: PreTrainedModel,
    cache: PlannedCache,
    spec: ModelSpec,
    input_ids: torch.Tensor,
    new_columns: torch.Tensor | None,
) -> dict[str, Any]:
    """Plan the next step on `cache` and return what the forward must get: `attention_mask` and `position_ids`.

    input_ids: (batch, q) the new tokens; new_columns: (batch, q), 1 = real token, 0 = left padding,
    or None when all are real (a decode step: nothing is read from the device). Bounded layers read the
    cache's own mask over its slots (None, the causal mask from the cache's sizes, when every slot is a
    kept token and the model allows it); transformers' own sliding layers read a mask over every column
    seen so far, which the cache remembers (`BoundedCache.sliding_mask`); a model with both gets a dict.
    """
    step = cache.prepare_step(input_ids, new_columns)
    return forward_inputs(model, cache, spec, step, input_ids, new_columns)


def forward_inputs(
    model: PreTrainedModel,
    cache: PlannedCache,
    spec: ModelSpec,
    step: Any,
    input_ids: torch.Tensor,
    new_columns: torch.Tensor | None,
) -> dict[str, Any]:
    """The forward's `attention_mask` and `position_ids` from a planned step (`StepInputs`) (see
    `step_model_inputs`); a static decode step's compiled forward builds them here too, inside its graph."""
    position_ids = step.position_ids if spec.accepts_position_ids else None
    bounded_mask = None if step.mask_all_kept and spec.mask_optional else step.attention_mask
    mask: Any = bounded_mask
    if cache.sliding_indices:
        columns = torch.ones_like(input_ids) if new_columns is None else new_columns.to(input_ids.device)
        stock = cache.sliding_mask(columns)
        if cache.bounded_indices:
            mask = build_mask_dict(model, cache, bounded_mask, stock, position_ids, input_ids)
        else:
            mask = stock
    inputs: dict[str, Any] = {"attention_mask": mask}
    if position_ids is not None:
        inputs["position_ids"] = position_ids
    return inputs


@contextlib.contextmanager
def steer_generation(model: Any, cache: PlannedCache, spec: ModelSpec) -> Iterator[None]:
    """Within the block, every forward that `generate` prepares gets the bounded cache's inputs.

    The model's `prepare_inputs_for_generation` is shadowed on the instance and restored on exit. Each
    prepared forward first advances the cache past the previous one (it has run by then); leaving the
    block normally advances past the last.
    """
    had_instance_attr = "prepare_inputs_for_generation" in model.__dict__
    original = model.prepare_inputs_for_generation
    # Phi3 overrides it to drop the cache and re-feed the whole sequence when positions cross its
    # original context (longrope switches frequencies there). kvlimit keeps positions below that
    # context, so the switch never happens and the generic preparation is the right one.
    inner = (
        GenerationMixin.prepare_inputs_for_generation.__get__(model)
        if spec.model_type == "phi3"
        else original
    )

    def prepare(input_ids: torch.Tensor, *args: Any, **kwargs: Any) -> dict[str, Any]:
        # transformers builds a 4D mask from a compileable cache's sizes here, before kvlimit has planned
        # the step (the sizes are the plan's): the cache says it is not compileable meanwhile, and the
        # mask it gives after planning replaces generate's
        cache.hide_compileable = True
        try:
            model_inputs = inner(input_ids, *args, **kwargs)
        finally:
            cache.hide_compileable = False
        if model_inputs.get(CACHE_ARG) is not cache:
            raise RuntimeError(
                f"{type(model).__name__}.prepare_inputs_for_generation replaced the bounded cache; "
                "kvlimit cannot bound this model's generation"
            )
        new_ids = model_inputs["input_ids"]
        if new_ids is None:
            raise ValueError("kvlimit does not support inputs_embeds generation; pass input_ids")
        if cache.step_open:
            cache.advance()
        q = new_ids.shape[1]
        stock_mask = kwargs.get("attention_mask")
        # One column after the cache has seen some is a real token in every row: a decode step, or the
        # prompt's last column after kvlimit's own prefill (prompts are left-padded). Skip reading the
        # mask (no host sync). A whole prompt at once may hold padding.
        one_real_column = q == 1 and cache.columns_seen > 0
        new_columns = None if (one_real_column or stock_mask is None) else stock_mask[:, -q:]
        model_inputs.update(step_model_inputs(model, cache, spec, new_ids, new_columns))
        return model_inputs

    model.prepare_inputs_for_generation = prepare
    try:
        with attention_tap(model, spec, cache.attention_record, cache.attention_prepare):
            yield
        if cache.step_open:
            cache.advance()
    finally:
        if had_instance_attr:
            model.prepare_inputs_for_generation = original
        else:
            del model.prepare_inputs_for_generation


def takes_logits_to_keep(model: PreTrainedModel) -> bool:
    """The forward takes `logits_to_keep` (a forward that needs only the last logits can skip the rest)."""
    try:
        return "logits_to_keep" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


def last_logits_only(model: PreTrainedModel) -> dict[str, Any]:
    """`{"logits_to_keep": 1}` where the forward takes it (a forward that needs only the last position's
    logits then computes no others), else {}: keyword arguments for the forward."""
    return {"logits_to_keep": 1} if takes_logits_to_keep(model) else {}


def make_reencode_fn(model: PreTrainedModel) -> Any:
    """A function that runs a fresh forward over kept tokens and returns each layer's (keys, values)."""
    extra = last_logits_only(model)

    def reencode(
        ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor
    ) -> list[tuple[torch.Tensor, torch.Tensor]]:
        fresh = DynamicCache(config=text_config(model))
        with torch.no_grad():
            out = model(
                input_ids=ids,
                attention_mask=mask,
                position_ids=positions,
                **cache_argument(fresh),
                use_cache=True,
                **extra,
            )
        return [(layer.keys, layer.values) for layer in output_cache(out).layers]

    return reencode


#: Decoding modes kvlimit runs, by transformers' generation mode.
