"""A bounded layer that stores its keys and values quantized (`kv_dtype="int8" | "int4" | "fp8"`).

Contract: `QuantizedLayer` is a `BoundedLayer` whose slots hold `kvlimit.cache.quant` codes (per
token, blocks of `block` dims, one float16 scale per block) instead of floats. It overrides only
the storage operations, so plans, policies and position keepers work unchanged:

- A write quantizes the new keys and values of that token alone; nothing else is requantized.
- Every query sees every key as stored, its own chunk's included (`as_stored`), so how a prompt is
  split into chunks (which depends on the longest row of its batch) never changes a row's results.
- A read (`stored`) dequantizes the layer's slots into the model's dtype for the attention about to
  run; that transient exists for one layer at a time (transformers runs the layers in turn and drops
  the returned tensors when the layer's attention is done), and it is what the planner adds.
- The first `float_slots` slots (the policy's sinks) are also kept in the model's dtype, in
  `keys` / `values` `(batch, kv_heads, float_slots, head_dim)`, and reads take them from there:
  RoPE sinks are re-rotated every step from their pristine copy (`positions.RopeSinks`) and so stay
  exact, and sinks draw most of the attention (Xiao et al. 2024), so they are worth their bytes.
  Their codes (written too, for simplicity of the write path) are never read.
- Moving positions (`transform_keys`: a RoPE rebase or re-rank, rare by design) dequantizes the
  moved keys, rotates them and quantizes them again: one more rounding of at most half a step, once
  per rebase, rather than keeping every key in float until it is moved.

`nbytes()` counts the codes, the scales and the float sinks: what the layer really holds.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .layer import BoundedLayer, Statistic
from .plan import GroupWrites, StepPlan
from .quant import Codes, Scheme, block_size


class QuantizedLayer(BoundedLayer):
    """A `BoundedLayer` with quantized storage (see the module docstring).

    Args:
        layer_idx, slots, group, statistic: as for `BoundedLayer`.
        scheme: the quantized dtype (`kvlimit.cache.quant.scheme(name)`).
        group_size: dims per quantization block (a divisor of head_dim is used if it is not one).
        float_slots: the first slots (the sinks) also kept in the model's dtype.
    """

    def __init__(
        self,
        layer_idx: int,
        slots: int,
        group: int = 0,
        statistic: Statistic | None = None,
        *,
        scheme: Scheme,
        group_size: int,
        float_slots: int = 0,
    ):
        super().__init__(layer_idx, slots, group, statistic)
        self.scheme = scheme
        self.group_size = group_size
        self.float_slots = min(float_slots, slots)
        self.key_codes: Codes | None = None
        self.value_codes: Codes | None = None
        self.dtype: torch.dtype | None = None

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        batch, _, _, _ = key_states.shape
        self.device = key_states.device
        self.dtype = key_states.dtype
        self.key_codes = self._empty_codes(key_states)
        self.value_codes = self._empty_codes(value_states)
        self.keys = key_states.new_zeros((batch, key_states.shape[1], self.float_slots, key_states.shape[-1]))
        self.values = value_states.new_zeros(
            (batch, value_states.shape[1], self.float_slots, value_states.shape[-1])
        )
        self.is_initialized = True

    def _empty_codes(self, states: torch.Tensor) -> Codes:
        batch, heads, _, dim = states.shape
        return self.scheme.empty((batch, heads, self.slots, dim), self._block(dim), states.device)

    def _block(self, dim: int) -> int:
        return block_size(dim, self.group_size)

    def _quantize(self, x: torch.Tensor) -> Codes:
        return self.scheme.quantize(x, self._block(x.shape[-1]))

    def _quantize_pair(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[Codes, Codes]:
        """Keys and values quantized, in one call where their shapes agree (fewer small ops per step)."""
        if keys.shape != values.shape:
            return self._quantize(keys), self._quantize(values)
        both = self._quantize(torch.stack((keys, values)))
        split = [tuple(t.unbind(0)) for t in both.tensors()]
        first = Codes(*(t[0] for t in split))
        second = Codes(*(t[1] for t in split))
        return first, second

    def _codes(self) -> tuple[Codes, Codes]:
        assert self.key_codes is not None and self.value_codes is not None
        return self.key_codes, self.value_codes

    # --- storage operations -------------------------------------------------------------------
    def write_slot(
        self,
        slot: torch.Tensor,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        *,
        first_index: int = 0,
    ) -> None:
        index = slot.view(-1, 1, 1, 1)
        for codes, new in zip(self._codes(), self._quantize_pair(key_states, value_states), strict=True):
            for stored, part in zip(codes.tensors(), new.tensors(), strict=True):
                stored.scatter_(2, index.expand_as(part), part)
        n = self.float_slots
        # The sinks are a row's first n tokens, in slots 0..n-1 for good (protected, never evicted):
        # once every row is past them (known on the host), no new token can be one.
        if n and first_index < n:  # rows whose new token is a sink also keep it in float (a masked write)
            assert self.keys is not None and self.values is not None
            at = slot.clamp(max=n - 1).view(-1, 1, 1, 1)
            is_sink = (slot < n).view(-1, 1, 1, 1)
            for floats, states in ((self.keys, key_states), (self.values, value_states)):
                idx = at.expand_as(states)
                floats.scatter_(2, idx, torch.where(is_sink, states, floats.gather(2, idx)))

    def as_stored(
        self, plan: StepPlan, writes: GroupWrites, key_states: torch.Tensor, value_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        assert self.dtype is not None
        keys = self.scheme.dequantize(self._quantize(key_states), self.dtype)
        values = self.scheme.dequantize(self._quantize(value_states), self.dtype)
        rows, cols, slots = plan.write_rows, plan.write_cols, writes.write_slots
        if self.float_slots and rows is not None and cols is not None and slots is not None:
            sink = slots < self.float_slots  # columns that become sinks stay in float
            keys[rows[sink], :, cols[sink]] = key_states[rows[sink], :, cols[sink]]
            values[rows[sink], :, cols[sink]] = value_states[rows[sink], :, cols[sink]]
        return keys, values

    def stored(self, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        assert self.keys is not None and self.values is not None and self.dtype is not None
        length = self.slots if length is None else min(length, self.slots)
        n = min(self.float_slots, length)
        out = []
        for floats, codes in zip((self.keys, self.values), self._codes(), strict=True):
            batch, heads, _, dim = floats.shape
            read = floats.new_empty((batch, heads, length, dim))  # the one-layer transient
            read[:, :, :n] = floats[:, :, :n]
            self.scheme.dequantize_into(_slice(codes, n, length), read[:, :, n:])
            out.append(read)
        return out[0], out[1]

    def store(
        self, rows: torch.Tensor, slots: torch.Tensor, keys: torch.Tensor, values: torch.Tensor
    ) -> None:
        for codes, new in zip(self._codes(), (keys, values), strict=True):
            for stored, part in zip(codes.tensors(), self._quantize(new).tensors(), strict=True):
                stored[rows, :, slots] = part
        if self.float_slots:
            assert self.keys is not None and self.values is not None and self.dtype is not None
            sink = slots < self.float_slots
            self.keys[rows[sink], :, slots[sink]] = keys[sink].to(self.dtype)
            self.values[rows[sink], :, slots[sink]] = values[sink].to(self.dtype)

    def transform_keys(self, move: Callable[[torch.Tensor], torch.Tensor], start: int = 0) -> None:
        assert self.keys is not None
        keys, _ = self.stored()
        moved = move(keys[:, :, start:])
        n = self.float_slots
        if start < n:
            self.keys[:, :, start:] = moved[:, :, : n - start]
        first = max(start, n)  # the float sinks' codes are never read: requantize only what is
        if first < self.slots:
            codes = self._quantize(moved[:, :, first - start :])
            for stored, part in zip(self._codes()[0].tensors(), codes.tensors(), strict=True):
                stored[:, :, first:] = part

    def permute_slots(self, permute: torch.Tensor) -> None:
        n = self.float_slots
        if n:  # a float sink slot that takes a slot beyond the sinks takes its dequantized value
            assert self.keys is not None and self.values is not None
            keys, values = self.gather_slots(permute[:, :n])
            self.keys.copy_(keys)
            self.values.copy_(values)
        index = permute[:, None, :, None]
        for codes in self._codes():
            for stored in codes.tensors():
                stored.copy_(stored.gather(2, index.expand_as(stored)))

    def select_rows(self, index: torch.Tensor, *, in_place: bool) -> None:
        if not self.is_initialized:
            return
        super().select_rows(index, in_place=in_place)  # the float sinks
        for codes in self._codes():
            for name in ("codes", "scales", "mins"):
                stored = getattr(codes, name)
                if stored is None:
                    continue
                if in_place:
                    stored.copy_(stored.index_select(0, index))
                else:
                    setattr(codes, name, stored.index_select(0, index))

    def reset(self) -> None:
        super().reset()
        self.key_codes = self.value_codes = None

    def nbytes(self) -> int:
        codes = sum(c.nbytes() for c in (self.key_codes, self.value_codes) if c is not None)
        return codes + super().nbytes()


def _slice(codes: Codes, start: int, stop: int) -> Codes:
    """The codes of slots `start..stop-1` (every tensor is (batch, kv_heads, slots, ...))."""
    mins = None if codes.mins is None else codes.mins[:, :, start:stop]
    return Codes(codes.codes[:, :, start:stop], codes.scales[:, :, start:stop], mins)
