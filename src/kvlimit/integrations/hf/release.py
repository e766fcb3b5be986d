"""What differs between the supported transformers releases (`floor` checks the range).

Contract: `CACHE_ARG` is the keyword a model forward, generate's model kwargs and a model's outputs
use for the cache (`cache` from 5.24, `past_key_values` before); every call site passes a cache with `cache_argument(cache)`, reads one
with `output_cache(output)` / `passed_cache(kwargs)` and replaces generate's with `put_cache`, so
no site can miss the name (a forward swallows the other name into `**kwargs` and runs on a cache of
its own, silently). `layer_types_and_windows` reads per-layer types and sliding windows (5.18
returns one dict of layer kwargs shared by every layer, 5.19 on one per layer).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from transformers.cache_utils import get_layer_types_and_kwargs
from transformers.generation.utils import GenerationMixin
from transformers.masking_utils import create_causal_mask

logger = logging.getLogger(__name__)


def _names_cache(function: Callable[..., Any]) -> str:
    """The name `function` takes a cache by: `cache` (transformers 5.24 on) or `past_key_values`.

    Tested by the new name's presence: 5.25 shows both names in the mask builders' signatures.
    """
    return "cache" if "cache" in inspect.signature(function).parameters else "past_key_values"


#: The keyword a model forward, generate's model kwargs and the model's outputs use for the cache.
CACHE_ARG = _names_cache(GenerationMixin.prepare_inputs_for_generation)
#: The other release's name for it (accepted from users and renamed).
OTHER_CACHE_ARG = "past_key_values" if CACHE_ARG == "cache" else "cache"
#: The keyword the mask builders take the cache by.
MASK_CACHE_ARG = _names_cache(create_causal_mask)


def cache_argument(cache: Any) -> dict[str, Any]:
    """`{name: cache}` for a model forward or generate, under this release's name."""
    return {CACHE_ARG: cache}


def output_cache(output: Any) -> Any:
    """The cache a model output or a generate output (`return_dict_in_generate=True`) holds."""
    return getattr(output, CACHE_ARG)


def passed_cache(kwargs: dict[str, Any]) -> Any:
    """The cache a call's keyword arguments (or generate's model kwargs) carry, or None."""
    return kwargs.get(CACHE_ARG)


def put_cache(kwargs: dict[str, Any], cache: Any) -> None:
    """Make `cache` the one generate's model kwargs carry (replacing generate's own)."""
    kwargs.pop(OTHER_CACHE_ARG, None)
    kwargs[CACHE_ARG] = cache


def normalize_cache_argument(kwargs: dict[str, Any]) -> None:
    """A user's `cache=` / `past_key_values=` under this release's name (either is accepted)."""
    if kwargs.get(OTHER_CACHE_ARG) is None:
        kwargs.pop(OTHER_CACHE_ARG, None)
        return
    if kwargs.get(CACHE_ARG) is not None:
        raise ValueError("pass the cache once: cache= (transformers 5.24 on) or past_key_values= (before)")
    kwargs[CACHE_ARG] = kwargs.pop(OTHER_CACHE_ARG)


def layer_types_and_windows(config: Any) -> tuple[list[str], list[int | None]]:
    """Per layer, its type ("full_attention", "sliding_attention", ...) and sliding window (None: full).

    transformers 5.18 returns one dict of layer kwargs shared by every layer; 5.19 on, one per layer.
    """
    layer_types, per_layer = get_layer_types_and_kwargs(config)
    if isinstance(per_layer, dict):
        sliding = ("sliding_attention", "hybrid_sliding", "chunked_attention")
        window = per_layer.get("sliding_window")
        return list(layer_types), [window if lt in sliding else None for lt in layer_types]
    return list(layer_types), [kw.get("sliding_window") for kw in per_layer]
