"""Transformers' own sliding-window layers inside a bounded cache, the mask they need, and their static form.

Contract: a model whose own sliding window is smaller than the limit keeps transformers'
`DynamicSlidingWindowLayer` for those layers (they bound themselves). `SlidingLayers` owns them
beside the bounded layers: it moves their rows with the cache's (`select`), moves their keys when a
position keeper rebases a row (`rotate`), and builds the 2D mask they read (`mask`). Those layers keep
every column (left padding included) of their last `window - 1` tokens, so their mask covers every
column seen so far, which a bounded cache does not keep; the last `reach` columns are remembered here.

A static cache (`BoundedCache.make_static`) turns them into rings at its first static decode step
(`to_rings`): `RingLayer` holds `window` slots per row, column c in slot `c % window`, allocated once,
with a per-slot mask of real columns; each static step writes its column's slot on the device
(`ring_step`, inside the captured step) and the layer attends to every slot, so its shapes never
change (transformers' own static sliding layer changes its mask sizes every step, a recompile).
The ring holds exactly the keys the dynamic layer would attend to: the last `window` columns.
"""

from __future__ import annotations

from typing import Any

import torch

from ..integrations.hf import CacheLayerMixin, DynamicSlidingWindowLayer, kv_bytes_of_layer


class RingLayer(CacheLayerMixin):
    """One sliding layer in static form (see the module docstring), made from the dynamic layer it replaces.

    Args:
        source: the dynamic layer, holding the keys of columns `columns - n .. columns - 1`.
        window: the layer's sliding window.
        columns: columns seen so far.
        real: (batch, n) 1 where those columns are real tokens (0: left padding).
    """

    is_sliding = True
    is_compileable = True
    is_croppable = False

    def __init__(self, source: DynamicSlidingWindowLayer, window: int, columns: int, real: torch.Tensor):
        self.window = window
        self.columns = columns
        keys, values = source.keys, source.values
        assert keys is not None and values is not None
        batch, n = keys.shape[0], keys.shape[2]
        slots = torch.arange(columns - n, columns, device=keys.device) % window
        self.keys: torch.Tensor = keys.new_zeros((batch, keys.shape[1], window, keys.shape[3]))
        self.values: torch.Tensor = values.new_zeros((batch, values.shape[1], window, values.shape[3]))
        self.keys[:, :, slots] = keys
        self.values[:, :, slots] = values
        #: (batch, window) long: 1 where a slot holds a real column
        self.real = torch.zeros((batch, window), dtype=torch.long, device=keys.device)
        self.real[:, slots] = real[:, -n:].long() if n else real[:, :0].long()
        #: (1,) the slot of the open step's column, written on the device (`SlidingLayers.ring_step`)
        self.slot = torch.zeros(1, dtype=torch.long, device=keys.device)
        self.is_initialized = True

    def tensors(self) -> list[torch.Tensor]:
        return [self.keys, self.values, self.real, self.slot]

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        """Allocated when made (from the dynamic layer it replaces)."""

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A decode step's key and value (batch, kv_heads, 1, head_dim) into the step's slot; every slot back."""
        if key_states.shape[-2] != 1:
            raise RuntimeError(
                "a static bounded cache's sliding layers take decode steps only; build a new cache for a new prompt"
            )
        self.keys.index_copy_(2, self.slot, key_states)
        self.values.index_copy_(2, self.slot, value_states)
        return self.keys, self.values

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return self.window, 0

    def get_seq_length(self) -> int:
        return self.columns

    def get_max_length(self) -> int:
        return self.window

    def select(self, index: torch.Tensor) -> None:
        """Keep rows `index`: in place while the number of rows stays."""
        for name in ("keys", "values", "real"):
            tensor = getattr(self, name)
            if index.numel() == tensor.shape[0]:
                tensor.copy_(tensor.index_select(0, index))
            else:
                setattr(self, name, tensor.index_select(0, index))

    def reset(self) -> None:
        raise RuntimeError("a ring layer is reset through its BoundedCache (SlidingLayers.reset)")

    def crop(self, tokens_to_remove: int) -> None:
        raise NotImplementedError("a bounded cache cannot be rolled back")


class SlidingLayers:
    """Transformers' own sliding layers of a bounded cache, by model layer index (see the module docstring).

    Args:
        windows: per sliding layer (model index), its window.
        rope: per model layer, the `RopeSpec` of its keys or None.
    """

    def __init__(self, windows: dict[int, int], rope: list[Any]):
        self.windows = windows
        self.layers: dict[int, Any] = {
            idx: DynamicSlidingWindowLayer(sliding_window=w) for idx, w in windows.items()
        }
        self.rope = rope
        #: columns the sliding layers can still see (their largest window)
        self.reach = max(windows.values(), default=0)
        self._tail: torch.Tensor | None = None  # (batch, <= reach) realness of the last columns
        self.rings = False

    def __bool__(self) -> bool:
        return bool(self.layers)

    @property
    def indices(self) -> list[int]:
        return list(self.layers)

    def mask(self, new_columns: torch.Tensor, columns_seen: int) -> torch.Tensor:
        """The 2D mask of this step: dynamic layers, (batch, columns_seen + q) long, columns older than the
        largest window marked real (no layer sees them any more), the newer ones as they were fed
        (new_columns: (batch, q), 1 = real token; call once per forward, after the step is planned);
        rings, (batch, window): their slots' realness, the open step's included."""
        if self.rings:
            return next(iter(self.layers.values())).real  # one window for every sliding layer
        new_columns = new_columns.long()
        batch = new_columns.shape[0]
        tail = self._tail if self._tail is not None else new_columns.new_ones((batch, 0))
        older = new_columns.new_ones((batch, columns_seen - tail.shape[1]))
        mask = torch.cat((older, tail, new_columns), dim=1)
        self._tail = mask[:, -self.reach :]
        return mask

    def to_rings(self, columns_seen: int) -> None:
        """Turn every dynamic layer into a `RingLayer` (the first static decode step)."""
        if self.rings or not self.layers:
            return
        if len(set(self.windows.values())) > 1:
            raise ValueError("a static cache's sliding layers need one window size for all of them")
        assert self._tail is not None, "the sliding layers have seen no columns yet"
        self.layers = {
            idx: RingLayer(layer, self.windows[idx], columns_seen, self._tail)
            for idx, layer in self.layers.items()
        }
        self.rings = True

    def ring_step(self, columns: torch.Tensor) -> None:
        """The device part of a static decode step: the slot of column `columns - 1` (a device scalar: the
        columns seen, the open step's included) in every ring, marked real."""
        for ring in self.layers.values():
            slot = ((columns - 1) % ring.window).reshape(1)
            ring.slot.copy_(slot)
            ring.real.index_fill_(1, slot, 1)

    def advance(self, q: int) -> None:
        """The step's `q` columns are seen (the rings' host count)."""
        if self.rings:
            for ring in self.layers.values():
                ring.columns += q

    def rotate(self, delta: torch.Tensor) -> None:
        """Move row b's keys by `delta[b]` positions (RoPE layers)."""
        for idx, layer in self.layers.items():
            rope = self.rope[idx]
            if rope is None or layer.keys is None or layer.keys.numel() == 0:
                continue
            rotated = rope.rotate(layer.keys, delta[:, None, None])
            if self.rings:
                layer.keys.copy_(rotated)
            else:
                layer.keys = rotated

    def select(self, index: torch.Tensor) -> None:
        """Keep rows `index` of every layer and of the remembered columns."""
        if self._tail is not None:
            self._tail = self._tail.index_select(0, index)
        for layer in self.layers.values():
            if self.rings:
                layer.select(index)
            elif layer.keys is not None and layer.values is not None and layer.keys.numel() > 0:
                layer.keys = layer.keys.index_select(0, index)
                layer.values = layer.values.index_select(0, index)

    def reset(self) -> None:
        """Back to empty dynamic layers."""
        self._tail = None
        if self.rings or any(getattr(layer, "keys", None) is not None for layer in self.layers.values()):
            self.layers = {
                idx: DynamicSlidingWindowLayer(sliding_window=w) for idx, w in self.windows.items()
            }
        self.rings = False

    def tensors(self) -> list[torch.Tensor]:
        """The rings' tensors (a captured step reads them in place); none for dynamic layers."""
        return [t for layer in self.layers.values() for t in layer.tensors()] if self.rings else []

    def nbytes(self) -> int:
        return sum(kv_bytes_of_layer(layer) for layer in self.layers.values())
