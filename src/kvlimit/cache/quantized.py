"""A store that keeps keys and values quantized (`kv_dtype="int8" | "int4" | "fp8" | "k8v4"`).

Contract: `QuantizedStore` is a `KVStore` whose slots hold `kvlimit.cache.quant` codes (per token,
blocks of `block` dims, one float16 scale per block) instead of floats, keys in one scheme and values
in another (the same one but for "k8v4"). It overrides only the per-layer storage operations, so
plans, policies and position keepers work unchanged:

- A write quantizes the new keys and values of that token alone; nothing else is requantized.
- Every query sees every key as stored, its own chunk's included (`as_stored`), so how a prompt is
  split into chunks (which depends on the longest row of its batch) never changes a row's results.
- A read dequantizes the layer's slots into the model's dtype for the attention about to run; that
  transient exists for one layer at a time (transformers runs the layers in turn and drops the
  returned tensors when the layer's attention is done), and it is what the planner adds.
- The first `float_slots` slots (the policy's sinks) are also kept in the model's dtype, in the
  stacks `(layers, batch, kv_heads, float_slots, head_dim)`, and reads take them from there: RoPE
  sinks are re-placed every step from their pristine copy (`rotate_sinks`) and so stay exact, and
  sinks draw most of the attention (Xiao et al. 2024), so they are worth their bytes. Their codes
  (written too, for simplicity of the write path) are never read.
- Moving positions (`rotate_keys`: a RoPE rebase or re-rank, rare by design) dequantizes the moved
  keys, rotates them and quantizes them again: one more rounding of at most half a step, once per
  rebase, rather than keeping every key in float until it is moved.

`nbytes()` counts the codes, the scales and the float sinks: what the store really holds for the
attention.
"""

from __future__ import annotations

import torch

from ..positions.rope import RopeSpec
from .quant import Codes, Scheme, block_size, kv_schemes
from .store import KVStore, Placement, StoreLayout, _rotated, row_head_index


class QuantizedStore(KVStore):
    """A `KVStore` with quantized storage (see the module docstring).

    Args:
        layout: as for `KVStore`.
        kv_dtype: one of `kvlimit.cache.quant.KV_DTYPES`: the keys' and the values' schemes.
        kv_group: dims per quantization block (a divisor of head_dim is used if it is not one).
        float_slots: the first slots (the sinks) also kept in the model's dtype.
    """

    reads_storage = False  # `read` dequantizes the codes into buffers of its own

    def __init__(self, layout: StoreLayout, *, kv_dtype: str, kv_group: int, float_slots: int = 0):
        self.float_slots = min(float_slots, layout.slots)
        super().__init__(layout)
        self.key_scheme, self.value_scheme = self.schemes = kv_schemes(kv_dtype)
        self.kv_dtype = kv_dtype
        self.kv_group = kv_group
        self.key_codes: dict[int, Codes] = {}
        self.value_codes: dict[int, Codes] = {}

    def _float_slots(self) -> int:
        return self.float_slots

    def _allocate_layer(self, layer: int, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        self.key_codes[layer] = self._empty_codes(self.key_scheme, key_states)
        self.value_codes[layer] = self._empty_codes(self.value_scheme, value_states)

    def _empty_codes(self, scheme: Scheme, states: torch.Tensor) -> Codes:
        batch, heads, _, dim = states.shape
        return scheme.empty((batch, heads, self.width, dim), self._block(dim), states.device)

    def _block(self, dim: int) -> int:
        return block_size(dim, self.kv_group)

    def _quantize(self, scheme: Scheme, x: torch.Tensor) -> Codes:
        return scheme.quantize(x, self._block(x.shape[-1]))

    def _quantize_pair(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[Codes, Codes]:
        """Keys and values quantized, in one call where their shapes and schemes agree (fewer small ops
        per step)."""
        if keys.shape != values.shape or self.key_scheme != self.value_scheme:
            return self._quantize(self.key_scheme, keys), self._quantize(self.value_scheme, values)
        both = self._quantize(self.key_scheme, torch.stack((keys, values)))
        split = [tuple(t.unbind(0)) for t in both.tensors()]
        return Codes(*(t[0] for t in split)), Codes(*(t[1] for t in split))

    def _codes(self, layer: int) -> tuple[Codes, Codes]:
        return self.key_codes[layer], self.value_codes[layer]

    # --- writes -------------------------------------------------------------------------------
    def write_token(
        self, layer: int, slot: torch.Tensor, key_states: torch.Tensor, value_states: torch.Tensor, *,
        first_index: int = 0,
    ) -> None:  # fmt: skip
        index = slot.view(-1, 1, 1, 1)
        compiling = torch.compiler.is_compiling()
        # compiled, an indexed write, which inductor makes in place (a `scatter_` it makes by copies)
        token_at = row_head_index(key_states, slot.view(-1, 1)) if compiling else None
        for codes, new in zip(self._codes(layer), self._quantize_pair(key_states, value_states), strict=True):
            for stored, part in zip(codes.tensors(), new.tensors(), strict=True):
                if token_at is not None:
                    stored.index_put_(token_at, part[:, :, 0])
                else:
                    stored.scatter_(2, index.expand_as(part), part)
        n = self.float_slots
        # The sinks are a row's first n tokens, in slots 0..n-1 for good (protected, never evicted):
        # once every row is past them (known on the host), no new token can be one.
        if n and first_index < n:  # rows whose new token is a sink also keep it in float (a masked write)
            at = slot.clamp(max=n - 1).view(-1, 1, 1, 1)
            is_sink = (slot < n).view(-1, 1, 1, 1)
            pairs = ((self.keys_of(layer), key_states), (self.values_of(layer), value_states))
            kept = [
                torch.where(is_sink, states, floats.gather(2, at.expand_as(states)))
                for floats, states in pairs
            ]
            if compiling:
                self._into_stack(layer, at.view(-1, 1), kept[0][:, :, 0], kept[1][:, :, 0])
            else:
                for (floats, _), new_floats in zip(pairs, kept, strict=True):
                    floats.scatter_(2, at.expand_as(new_floats), new_floats)
        self._keep_pristine_token(layer, slot, key_states, first_index)

    def write(
        self, layer: int, rows: torch.Tensor, slots: torch.Tensor, keys: torch.Tensor, values: torch.Tensor
    ) -> None:
        for codes, scheme, new in zip(self._codes(layer), self.schemes, (keys, values), strict=True):
            for stored, part in zip(codes.tensors(), self._quantize(scheme, new).tensors(), strict=True):
                stored[rows, :, slots] = part
        if self.float_slots:
            sink = slots < self.float_slots
            float_keys, float_values = self.keys_of(layer), self.values_of(layer)
            float_keys[rows[sink], :, slots[sink]] = keys[sink].to(float_keys.dtype)
            float_values[rows[sink], :, slots[sink]] = values[sink].to(float_values.dtype)
        self._keep_pristine(layer, rows, slots, keys)

    def as_stored(
        self, layer: int, key_states: torch.Tensor, value_states: torch.Tensor, placed: Placement | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        keys = self.key_scheme.dequantize(self._quantize(self.key_scheme, key_states), key_states.dtype)
        values = self.value_scheme.dequantize(
            self._quantize(self.value_scheme, value_states), value_states.dtype
        )
        if self.float_slots and placed is not None:
            sink = placed.slots < self.float_slots  # columns that become sinks stay in float
            rows, cols = placed.rows[sink], placed.cols[sink]
            keys[rows, :, cols] = key_states[rows, :, cols]
            values[rows, :, cols] = value_states[rows, :, cols]
        return keys, values

    # --- reads --------------------------------------------------------------------------------
    def read(self, layer: int, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        length = self.width if length is None else min(length, self.width)
        n = min(self.float_slots, length)
        out = []
        for floats, codes, scheme in zip(
            (self.keys_of(layer), self.values_of(layer)), self._codes(layer), self.schemes, strict=True
        ):
            batch, heads, _, dim = floats.shape
            buffer = floats.new_empty((batch, heads, length, dim))  # the one-layer transient
            buffer[:, :, :n] = floats[:, :, :n]
            scheme.dequantize_into(_slice(codes, n, length), buffer[:, :, n:])
            out.append(buffer)
        return out[0], out[1]

    def take(
        self, rows: torch.Tensor, slots: torch.Tensor
    ) -> list[tuple[list[int], torch.Tensor, torch.Tensor]]:
        out = []
        for stack in self.stacks:
            if not self.has(stack.members[0]):
                continue
            per_layer = []
            for member in stack.members:
                assert self.dtype is not None
                per_layer.append(
                    tuple(
                        scheme.dequantize(Codes(*(t[rows, :, slots] for t in codes.tensors())), self.dtype)
                        for codes, scheme in zip(self._codes(member), self.schemes, strict=True)
                    )
                )
            keys = torch.stack([k for k, _ in per_layer])
            values = torch.stack([v for _, v in per_layer])
            out.append((stack.members, keys, values))
        return out

    # --- moves --------------------------------------------------------------------------------
    def permute_slots(self, layer: int, permute: torch.Tensor) -> None:
        n = self.float_slots
        if n:  # a float sink slot that takes a slot beyond the sinks takes its dequantized value
            keys, values = self.gather(layer, permute[:, :n])
            self.keys_of(layer).copy_(keys)
            self.values_of(layer).copy_(values)
        index = permute[:, None, :, None]
        for codes in self._codes(layer):
            for stored in codes.tensors():
                stored.copy_(stored.gather(2, index.expand_as(stored)))

    def select_rows(self, index: torch.Tensor, *, in_place: bool) -> None:
        super().select_rows(index, in_place=in_place)  # the float sinks
        for codes in (*self.key_codes.values(), *self.value_codes.values()):
            for name in ("codes", "scales", "mins"):
                stored = getattr(codes, name)
                if stored is None:
                    continue
                if in_place:
                    stored.copy_(stored.index_select(0, index))
                else:
                    setattr(codes, name, stored.index_select(0, index))
        if not in_place:
            self._mark_static()

    def borrow_rows(self, owner: KVStore, start: int, count: int) -> None:
        assert isinstance(owner, QuantizedStore)
        super().borrow_rows(owner, start, count)  # the float sinks
        for mine, theirs in ((self.key_codes, owner.key_codes), (self.value_codes, owner.value_codes)):
            for layer, codes in theirs.items():
                mins = None if codes.mins is None else codes.mins[start : start + count]
                mine[layer] = Codes(
                    codes.codes[start : start + count], codes.scales[start : start + count], mins
                )

    def row_tensors(self) -> list[tuple[torch.Tensor, int]]:
        codes = [
            (stored, 0)
            for layer in sorted(self.key_codes)
            for both in self._codes(layer)
            for stored in both.tensors()
        ]
        return [*super().row_tensors(), *codes]

    # --- positions ----------------------------------------------------------------------------
    def rotate_keys(self, layer: int, rope: RopeSpec, delta: torch.Tensor, start: int = 0) -> None:
        keys, _ = self.read(layer)
        moved = _rotated(rope, keys[:, :, start:], delta, start)
        n = self.float_slots
        if start < n:
            self.keys_of(layer)[:, :, start:] = moved[:, :, : n - start]
        first = max(start, n)  # the float sinks' codes are never read: requantize only what is
        if first < self.width:
            codes = self._quantize(self.key_scheme, moved[:, :, first - start :])
            for stored, part in zip(self.key_codes[layer].tensors(), codes.tensors(), strict=True):
                stored[:, :, first:] = part

    # --- accounting ---------------------------------------------------------------------------
    def layer_tensors(self, layer: int) -> list[torch.Tensor]:
        if not self.has(layer):
            return []
        codes = [t for c in self._codes(layer) for t in c.tensors()]
        return [*super().layer_tensors(layer), *codes]

    def nbytes(self) -> int:
        if self.borrowed:
            return 0
        codes = sum(c.nbytes() for c in (*self.key_codes.values(), *self.value_codes.values()))
        return codes + super().nbytes()

    def reset(self) -> None:
        super().reset()
        self.key_codes.clear()
        self.value_codes.clear()


def _slice(codes: Codes, start: int, stop: int) -> Codes:
    """The codes of slots `start..stop-1` (every tensor is (batch, kv_heads, slots, ...))."""
    mins = None if codes.mins is None else codes.mins[:, :, start:stop]
    return Codes(codes.codes[:, :, start:stop], codes.scales[:, :, start:stop], mins)
