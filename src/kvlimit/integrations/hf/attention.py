"""The attention scores of a forward, handed to the cache of a policy that chooses by attention.

Contract: within `attention_tap(model, spec, record)`, every attention layer of the model also hands
what it attended to `record(layer_idx, query, key, mask, scaling, weights)`; the model's own attention
runs as before. Two ways, by how the installed transformers runs the family's attention:

- through transformers' attention registry (`AttentionInterface`; most families): the model's
  attention implementation is set, for the block, to a registered wrapper of itself with the same
  mask function, which passes the queries, the keys the layer returned, the mask and (eager) the
  weights on;
- in the family's own code (bloom and mpt; falcon before transformers 5.25; gptj before 5.24): a
  forward hook on each attention module. Where the module ran its eager code it returns its attention
  probabilities as its second output, which the hook passes on as the weights. Falcon's sdpa code
  returns none: the hook recomputes that layer's queries from the module's inputs (its own
  projection and rotary code) and passes them with the attention mask the module got, and the cache
  supplies the keys the layer attended (`key=None`). Either way the scores are those of the model's
  own attention, with its own mask (Falcon-RW's ALiBi bias travels in it).

Every supported family can be tapped (`attention_families()`), with sdpa or eager attention.

A tap may also `prepare` the keys and values before the attention reads them (the recall tier
writes the blocks it recalls into them, chosen by the layer's queries): `prepare(layer_idx, query,
key, value)` edits `key` and `value` in place. That needs the registry (`prepare_families()`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import sys
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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

#: (layer_idx, query, key, mask, scaling, weights) -> None; see `attention_tap` (query and key are None
#: where the weights come from the model itself).
AttentionRecord = Callable[[int, torch.Tensor | None, torch.Tensor | None, Any, float, Any], None]
#: (layer_idx, query, key, value) -> None, edits key and value in place before the attention reads them.
AttentionPrepare = Callable[[int, torch.Tensor, torch.Tensor, torch.Tensor], None]


# --- attention scores -------------------------------------------------------------------------
@dataclass
class _Tap:
    """What a tap block asks of the attention modules it taps (set on each module: `_set_taps`).

    A plain attribute of the module rather than a context variable, so that torch.compile traces the
    tap into a compiled forward (it cannot trace a `ContextVar`); it holds for one model's modules,
    which one generation uses at a time.
    """

    record: AttentionRecord | None = None
    prepare: AttentionPrepare | None = None


_TAP_ATTRIBUTE = "_kvlimit_tap"
_TAPPABLE = ("sdpa", "eager")


_HOOKED: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()  # model -> open hook taps


@functools.cache
def _uses_attention_registry(model_type: str) -> bool:
    """Whether the installed transformers runs this family's attention through `AttentionInterface`.

    Read from the modeling module itself, because it changes between releases: Falcon computes its
    attention inline in 5.24 and through the registry from 5.25; Bloom and MPT always inline.
    """
    module = model_type_to_module_name(model_type)
    modeling = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    return hasattr(modeling, "ALL_ATTENTION_FUNCTIONS")


def tap_reports_queries(spec: ModelSpec) -> bool:
    """The tap reports this model's queries without its keys (a family's own sdpa code): the cache must
    keep the keys each layer returns for it (`BoundedCache.keep_attended_keys`)."""
    return not _uses_attention_registry(spec.model_type) and spec.attn_implementation != "eager"


def attention_families() -> list[str]:
    """The supported families whose attention kvlimit can read scores from (`attention_tap`): all."""
    return sorted(FAMILIES)


def prepare_families() -> list[str]:
    """The supported families whose keys and values a tap can prepare (their attention runs through
    the registry in the installed transformers)."""
    return sorted(f for f in FAMILIES if _uses_attention_registry(f))


def can_prepare(spec: ModelSpec) -> bool:
    """A tap can prepare this model's keys and values (`prepare=` of `attention_tap`)."""
    return _uses_attention_registry(spec.model_type) and spec.attn_implementation in _TAPPABLE


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
        layer_idx = getattr(module, "layer_idx", None)
        tap: _Tap | None = getattr(module, _TAP_ATTRIBUTE, None)
        if tap is not None and tap.prepare is not None and layer_idx is not None:
            tap.prepare(int(layer_idx), query, key, value)
        output, weights = original(module, query, key, value, attention_mask, **kwargs)
        if tap is not None and tap.record is not None and layer_idx is not None:
            scaling = kwargs.get("scaling") or query.shape[-1] ** -0.5
            tap.record(int(layer_idx), query, key, attention_mask, float(scaling), weights)
        return output, weights

    return attention


@contextlib.contextmanager
def attention_tap(
    model: PreTrainedModel,
    spec: ModelSpec,
    record: AttentionRecord | None = None,
    prepare: AttentionPrepare | None = None,
) -> Iterator[None]:
    """Within the block, every attention layer of `model` also hands what it attended to `record`,
    and lets `prepare` edit its keys and values first (see the module docstring); nested blocks tap
    once, for the innermost `record` and `prepare`. Neither given: nothing is tapped."""
    if record is None and prepare is None:
        yield
        return
    name = spec.attn_implementation
    if name not in _TAPPABLE:
        need = "policies that choose by attention" if record is not None else "recall"
        raise ValueError(f"{need} need attn_implementation 'sdpa' or 'eager'; the model uses {name!r}")
    if not _uses_attention_registry(spec.model_type):
        if prepare is not None:
            raise ValueError(
                f"{spec.model_type} computes its attention in its own code in this transformers release, where "
                f"kvlimit cannot place recalled keys; recall works with: {', '.join(prepare_families())}"
            )
        assert record is not None
        with _weights_hooks(model, record):
            yield
        return
    tapped = f"kvlimit_tap_{name}"
    if tapped not in ALL_ATTENTION_FUNCTIONS:
        ALL_ATTENTION_FUNCTIONS.register(tapped, _tapped(name))
        ALL_MASK_ATTENTION_FUNCTIONS.register(tapped, ALL_MASK_ATTENTION_FUNCTIONS[name])
    previous = model.config._attn_implementation  # the tap may already be on (a forward inside generate)
    model.config._attn_implementation = tapped
    try:
        with _set_taps(model, _Tap(record, prepare)):
            yield
    finally:
        model.config._attn_implementation = previous


@contextlib.contextmanager
def _set_taps(model: PreTrainedModel, tap: _Tap) -> Iterator[None]:
    """Within the block, every module of `model` with a `layer_idx` carries `tap` (an inner block's
    wins; each module's previous tap comes back on exit)."""
    modules = [m for m in model.modules() if hasattr(m, "layer_idx")]
    previous = [m.__dict__.get(_TAP_ATTRIBUTE) for m in modules]
    for module in modules:
        module.__dict__[_TAP_ATTRIBUTE] = tap
    try:
        yield
    finally:
        for module, before in zip(modules, previous, strict=True):
            if before is None:
                module.__dict__.pop(_TAP_ATTRIBUTE, None)
            else:
                module.__dict__[_TAP_ATTRIBUTE] = before


def _attention_modules(model: PreTrainedModel) -> list[Any]:
    """The attention modules of a family whose attention runs in its own code (one per layer)."""
    return [m for m in model.modules() if type(m).__name__.endswith("Attention") and hasattr(m, "layer_idx")]


def _report(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any) -> None:
    """Forward hook: pass the module's attention to the tap in effect (module docstring)."""
    tap: _Tap | None = getattr(module, _TAP_ATTRIBUTE, None)
    record = None if tap is None else tap.record
    if record is None:
        return
    weights = output[1] if isinstance(output, tuple) and len(output) > 1 else None
    if isinstance(weights, torch.Tensor) and weights.ndim == 4:
        record(int(module.layer_idx), None, None, None, 1.0, weights)
        return
    query_of = _QUERIES.get(type(module).__name__)
    if query_of is None:
        raise RuntimeError(
            f"{type(module).__name__} returned no attention weights and kvlimit cannot recompute its queries; "
            "a policy that chooses by attention needs one or the other (run the model with eager attention)"
        )
    query, mask, scaling = query_of(module, args, kwargs)
    record(int(module.layer_idx), query, None, mask, scaling, None)


def _falcon_query(
    module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[torch.Tensor, Any, float]:
    """Falcon's queries (batch, heads, q, head_dim) as its attention used them, its mask and scaling."""
    hidden = kwargs["hidden_states"] if "hidden_states" in kwargs else args[0]
    query, _, _ = module._split_heads(module.query_key_value(hidden))
    batch, length = query.shape[:2]
    query = query.transpose(1, 2).reshape(batch, module.num_heads, length, module.head_dim)
    alibi = kwargs.get("alibi", args[1] if len(args) > 1 else None)
    if alibi is None:  # rotary Falcon: the module's own rotation at the step's positions
        cos, sin = kwargs["position_embeddings"]
        apply = sys.modules[type(module).__module__].apply_rotary_pos_emb
        query, _ = apply(query, query, cos, sin)
    mask = kwargs.get("attention_mask", args[2] if len(args) > 2 else None)
    return query, mask, module.head_dim**-0.5


#: Families whose own attention code may return no weights (their sdpa path): how to recompute the
#: queries it used, by attention module class.
_QUERIES: dict[str, Callable[[Any, tuple[Any, ...], dict[str, Any]], tuple[torch.Tensor, Any, float]]] = {
    "FalconAttention": _falcon_query,
}


@contextlib.contextmanager
def _weights_hooks(model: PreTrainedModel, record: AttentionRecord) -> Iterator[None]:
    """Forward hooks on the model's attention modules for the block (once, however deeply nested)."""
    handles = []
    if not _HOOKED.get(model):
        handles = [m.register_forward_hook(_report, with_kwargs=True) for m in _attention_modules(model)]
        if not handles:
            raise ValueError(f"no attention modules found in {type(model).__name__} to read attention from")
    _HOOKED[model] = _HOOKED.get(model, 0) + 1
    try:
        with _set_taps(model, _Tap(record)):
            yield
    finally:
        _HOOKED[model] -= 1
        for handle in handles:
            handle.remove()
