"""The attention scores of a forward, handed to the cache of a policy that chooses by attention.

Contract: within `attention_tap(model, spec, record)`, every attention call of the model also hands
its queries, keys, mask and (eager) weights to `record`; the model's own attention runs as before.
`attention_families()` names the families this works for in the installed transformers.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import logging
import sys
from collections.abc import Callable, Iterator
from typing import Any

import torch
from transformers import PreTrainedModel
from transformers.masking_utils import (
    ALL_MASK_ATTENTION_FUNCTIONS,
)
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
from transformers.models.auto.configuration_auto import model_type_to_module_name

from .models import FAMILIES, ModelSpec

logger = logging.getLogger(__name__)

#: (layer_idx, query, key, mask, scaling, weights) -> None; see `attention_tap`.
AttentionRecord = Callable[[int, torch.Tensor, torch.Tensor, Any, float, Any], None]

# --- attention scores -------------------------------------------------------------------------
_ATTENTION_TAP: contextvars.ContextVar[AttentionRecord | None] = contextvars.ContextVar(
    "kvlimit_tap", default=None
)
_TAPPABLE = ("sdpa", "eager")


@functools.cache
def _uses_attention_registry(model_type: str) -> bool:
    """Whether the installed transformers runs this family's attention through `AttentionInterface`.

    Read from the modeling module itself, because it changes between releases: Falcon computes its
    attention inline in 5.24 and through the registry from 5.25; Bloom and MPT always inline.
    """
    module = model_type_to_module_name(model_type)
    modeling = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    return hasattr(modeling, "ALL_ATTENTION_FUNCTIONS")


def attention_families() -> list[str]:
    """The supported families whose attention kvlimit can read scores from (`attention_tap`)."""
    return sorted(name for name in FAMILIES if _uses_attention_registry(name))


def _tapped(name: str) -> Callable[..., tuple[torch.Tensor, Any]]:
    """An attention function that runs implementation `name`, then reports to the tap in effect."""

    def attention(
        module: Any,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        attention_mask: Any,
        **kwargs: Any,
    ) -> tuple[torch.Tensor, Any]:
        # eager is not in the registry: each modeling file has its own (soft-capping, upcasting, ...)
        original = (
            sys.modules[type(module).__module__].eager_attention_forward
            if name == "eager"
            else ALL_ATTENTION_FUNCTIONS[name]
        )
        output, weights = original(module, query, key, value, attention_mask, **kwargs)
        record = _ATTENTION_TAP.get()
        layer_idx = getattr(module, "layer_idx", None)
        if record is not None and layer_idx is not None:
            scaling = kwargs.get("scaling") or query.shape[-1] ** -0.5
            record(int(layer_idx), query, key, attention_mask, float(scaling), weights)
        return output, weights

    return attention


@contextlib.contextmanager
def attention_tap(model: PreTrainedModel, spec: ModelSpec, record: AttentionRecord) -> Iterator[None]:
    """Within the block, every attention call of `model` also hands its queries and keys to `record`.

    The model runs its own attention as before (sdpa or eager, whose weights are passed on): the
    model's attention implementation is set, for the block, to a registered wrapper of it with the
    same mask function (transformers' `AttentionInterface` / `AttentionMaskInterface`), and restored.
    """
    name = spec.attn_implementation
    if not _uses_attention_registry(spec.model_type):
        raise ValueError(
            f"{spec.model_type} computes attention in its own code, which kvlimit cannot read scores from; "
            f"policies that choose by attention work with {', '.join(attention_families())}"
        )
    if name not in _TAPPABLE:
        raise ValueError(
            f"policies that choose by attention need attn_implementation 'sdpa' or 'eager'; the model uses {name!r}"
        )
    tapped = f"kvlimit_tap_{name}"
    if tapped not in ALL_ATTENTION_FUNCTIONS:
        ALL_ATTENTION_FUNCTIONS.register(tapped, _tapped(name))
        ALL_MASK_ATTENTION_FUNCTIONS.register(tapped, ALL_MASK_ATTENTION_FUNCTIONS[name])
    token = _ATTENTION_TAP.set(record)
    previous = model.config._attn_implementation  # the tap may already be on (a forward inside generate)
    model.config._attn_implementation = tapped
    try:
        yield
    finally:
        model.config._attn_implementation = previous
        _ATTENTION_TAP.reset(token)
