"""Where the keys and values of every bounded layer live: one owner, a few named operations.

Contract: a `KVStore` holds the keys and values of each bounded layer, `(batch, kv_heads, slots,
head_dim)` per layer, in the model's dtype. Layers of one shape, device and rotation (their
`StoreLayout.stack`) share one tensor `(layers, batch, kv_heads, slots, head_dim)`, allocated once at
the first write to any of them; each layer's storage is a view of it, so that moving the sinks of
every layer, or the rows of every layer, is one operation per stack. Nothing outside the store holds
or assigns a layer's storage. The cache, the position keepers and the attention recorder use:

- writes: `write_token` (decode: one new token per row, into a slot each), `write` (tokens at
  (row, slot) pairs: prompt chunks, re-encodes), `as_stored` (a chunk's own new keys and values as
  storage will give them back: identical here, rounded in a quantized store);
- reads: `read` (slots 0..n-1 in the model's dtype), `gather` (chosen slots per row);
- moves: `permute_slots` (reorder a layer's slots per row), `select_rows` (beams, batch changes),
  `load_row` (one row becomes a copy of another store's row: continuous batching), `borrow_rows`
  (this store's rows are views of some rows of another's: a prompt prefilled in a batch's free rows);
- positions: `rotate_keys` (a layer's keys from a slot on, by per-row or per-slot position deltas:
  RoPE rebases and re-ranks) and `rotate_sinks` (every RoPE stack's first `pristine_slots` slots,
  placed by per-row deltas from their pristine copy: a positional policy's sinks, each step).

The first `pristine_slots` slots of each row (a positional RoPE policy's sinks, which are written
once and never evicted) also keep a pristine copy: the key as first written, at its original
position, from which `rotate_sinks` places it exactly wherever the sinks must sit. `nbytes()`
counts the keys and values attended (what a limit bounds); the pristine copies are
`overhead_bytes()`.

A quantized store (`kvlimit.cache.quantized.QuantizedStore`) overrides the per-layer storage
operations; its stacks hold the float sinks only.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import torch

from ..integrations.hf import KVShape
from ..positions.rope import RopeSpec

__all__ = ["KVStore", "Placement", "Stack", "StoreLayout"]


@dataclass
class StoreLayout:
    """What the store must know of each bounded layer before any key arrives.

    Attributes:
        slots: slots per row.
        layers: the bounded layers' model indices.
        shapes: per bounded layer, the `KVShape` of one token (from a probe forward; None: unknown,
            the layer gets a stack of its own).
        rope: per bounded layer, the `RopeSpec` of its keys, or None.
        pristine_slots: the first slots also kept pristine (a positional RoPE policy's sinks), 0: none.
        scratch: slots after the `slots` of each row that hold no token of their own: the recall
            tier writes the step's recalled keys there, so a decode step attends to one contiguous
            view (`read(layer, slots + scratch)`).
    """

    slots: int
    layers: list[int]
    shapes: dict[int, KVShape | None] = field(default_factory=dict)
    rope: dict[int, RopeSpec | None] = field(default_factory=dict)
    pristine_slots: int = 0
    scratch: int = 0

    def stacks(self) -> list[list[int]]:
        """The bounded layers grouped into stacks: equal known shape, device and rotation."""
        groups: dict[Hashable, list[int]] = {}
        for idx in self.layers:
            shape = self.shapes.get(idx)
            key: Hashable = ("alone", idx) if shape is None else (shape, id(self.rope.get(idx)))
            groups.setdefault(key, []).append(idx)
        return list(groups.values())


@dataclass
class Stack:
    """The float storage of some layers: keys (layers, batch, kv_heads, n, head_dim), values likewise,
    and the pristine first slots of the keys (layers, batch, kv_heads, pristine_slots, head_dim)."""

    members: list[int]
    rope: RopeSpec | None
    keys: torch.Tensor | None = None
    values: torch.Tensor | None = None
    pristine: torch.Tensor | None = None

    def tensors(self) -> list[torch.Tensor]:
        return [t for t in (self.keys, self.values) if t is not None]


class KVStore:
    """The keys and values of every bounded layer (see the module docstring)."""

    #: `read` hands the attention views of the storage itself (a quantized store: buffers of its own)
    reads_storage = True

    def __init__(self, layout: StoreLayout):
        self.layout = layout
        self.slots = layout.slots
        self.width = layout.slots + layout.scratch  # physical slots per row: kept tokens, then scratch
        self.pristine_slots = min(layout.pristine_slots, layout.slots)
        self.stacks = [Stack(members, layout.rope.get(members[0])) for members in layout.stacks()]
        self._where = {idx: (stack, i) for stack in self.stacks for i, idx in enumerate(stack.members)}
        # each layer's views of its stack, made once per allocation (the hot path reads them every step)
        self._views: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        self.dtype: torch.dtype | None = None
        #: tensors keep fixed addresses for a captured step (`mark_static`): marked as they are allocated
        self.static = False
        #: the storage is views of another store's rows (`borrow_rows`): its bytes are that store's
        self.borrowed = False

    def mark_static(self) -> None:
        """Tell torch.compile that the storage keeps its address (a CUDA graph then reads it in place,
        not through a copy); storage allocated later is marked as it comes."""
        self.static = True
        self._mark_static()

    def _mark_static(self) -> None:
        if self.static:
            for tensor, _ in self.row_tensors():
                torch._dynamo.mark_static_address(tensor)

    # --- allocation ---------------------------------------------------------------------------
    def has(self, layer: int) -> bool:
        """The layer's storage exists (its stack was allocated by a first write)."""
        return layer in self._views

    def allocate(self, layer: int, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        """Allocate the stack of `layer` for rows of `key_states` (batch, kv_heads, q, head_dim), once."""
        stack, _ = self._where[layer]
        if stack.keys is not None:
            return
        self.dtype = key_states.dtype
        batch = key_states.shape[0]
        count = len(stack.members)
        keys_shape = (count, batch, key_states.shape[1], self._float_slots(), key_states.shape[-1])
        values_shape = (count, batch, value_states.shape[1], self._float_slots(), value_states.shape[-1])
        stack.keys = key_states.new_zeros(keys_shape)
        stack.values = value_states.new_zeros(values_shape)
        if self.pristine_slots and stack.rope is not None:
            stack.pristine = key_states.new_zeros((*keys_shape[:3], self.pristine_slots, keys_shape[-1]))
        for member in stack.members:
            self._allocate_layer(member, key_states, value_states)
        self._refresh_views(stack)
        self._mark_static()

    def _refresh_views(self, stack: Stack) -> None:
        assert stack.keys is not None and stack.values is not None
        for i, member in enumerate(stack.members):
            self._views[member] = (stack.keys[i], stack.values[i])

    def _float_slots(self) -> int:
        """Slots each layer keeps in the model's dtype in its stack (all of them here)."""
        return self.width

    def _allocate_layer(self, layer: int, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        """Per-layer storage beside the stacks (a quantized store's codes); nothing here."""

    def keys_of(self, layer: int) -> torch.Tensor:
        """The layer's float key storage (batch, kv_heads, n, head_dim), a view of its stack."""
        if torch.compiler.is_compiling():  # taken in the graph: the views made once would be graph
            return self._in_graph(layer)[0]  # inputs aliasing the stack, which inductor writes by copies
        return self._views[layer][0]

    def values_of(self, layer: int) -> torch.Tensor:
        if torch.compiler.is_compiling():
            return self._in_graph(layer)[1]
        return self._views[layer][1]

    def _in_graph(self, layer: int) -> tuple[torch.Tensor, torch.Tensor]:
        stack, i = self._where[layer]
        assert stack.keys is not None and stack.values is not None
        return stack.keys[i], stack.values[i]

    def _pristine_of(self, layer: int) -> torch.Tensor | None:
        stack, i = self._where[layer]
        return None if stack.pristine is None else stack.pristine[i]

    # --- writes -------------------------------------------------------------------------------
    def write_token(
        self, layer: int, slot: torch.Tensor, key_states: torch.Tensor, value_states: torch.Tensor, *,
        first_index: int = 0,
    ) -> None:  # fmt: skip
        """Decode: write row b's one new key/value (batch, kv_heads, 1, head_dim) into slot `slot[b]`.

        `first_index`: the smallest token index among the new tokens, known on the host; once every row
        is past the pristine slots, none of them can be written there (sinks are a row's first tokens).
        """
        if torch.compiler.is_compiling():  # into the stack itself (see `_into_stack`)
            self._into_stack(layer, slot.view(-1, 1), key_states[:, :, 0], value_states[:, :, 0])
        else:
            index = slot.view(-1, 1, 1, 1)
            self.keys_of(layer).scatter_(2, index.expand_as(key_states), key_states)
            self.values_of(layer).scatter_(2, index.expand_as(value_states), value_states)
        self._keep_pristine_token(layer, slot, key_states, first_index)

    def _into_stack(
        self, layer: int, columns: torch.Tensor, keys: torch.Tensor, values: torch.Tensor
    ) -> None:
        """Write `keys` / `values` (batch, kv_heads, [n,] head_dim) into slots `columns` ((batch, 1) or
        (n,)) of the layer's rows, as an indexed write into its stack. Inside a compiled step this is
        the form inductor writes in place: a `scatter_` or a slice assignment into the layer's view of a
        stack (a graph input) it does through a copy of the layer's whole keys and values, in and out,
        every step (4 x 768 KB a layer for SmolLM2 at limit 1,024: about 7% of its compiled step here)."""
        stack, i = self._where[layer]
        assert stack.keys is not None and stack.values is not None
        at = row_head_index(keys, columns)
        index = (torch.full((1,) * at[0].dim(), i, dtype=torch.long, device=keys.device), *at)
        stack.keys.index_put_(index, keys.to(stack.keys.dtype))
        stack.values.index_put_(index, values.to(stack.values.dtype))

    def write_columns(
        self, layer: int, key: torch.Tensor, value: torch.Tensor, columns: torch.Tensor,
        keys: torch.Tensor, values: torch.Tensor,
    ) -> None:  # fmt: skip
        """Write `keys` / `values` (batch, kv_heads, n, head_dim) into columns `columns` (n,) of `key` /
        `value`, the layer's keys and values as `read` gave them to the attention (the recall tier's
        columns). Where they are the layer's storage (`reads_storage`), a compiled step writes its stack
        (`_into_stack`)."""
        if self.reads_storage and torch.compiler.is_compiling():
            self._into_stack(layer, columns, keys, values)
        else:
            key[:, :, columns] = keys.to(key.dtype)
            value[:, :, columns] = values.to(value.dtype)

    def _keep_pristine_token(
        self, layer: int, slot: torch.Tensor, key_states: torch.Tensor, first_index: int
    ) -> None:
        """Rows whose new token lands in a pristine slot also keep it there (a masked write)."""
        pristine = self._pristine_of(layer)
        n = self.pristine_slots
        if pristine is None or first_index >= n:
            return
        at = slot.clamp(max=n - 1).view(-1, 1, 1, 1).expand_as(key_states)
        first = (slot < n).view(-1, 1, 1, 1)
        pristine.scatter_(2, at, torch.where(first, key_states, pristine.gather(2, at)))

    def write(
        self, layer: int, rows: torch.Tensor, slots: torch.Tensor, keys: torch.Tensor, values: torch.Tensor
    ) -> None:
        """Write `keys[i]` / `values[i]` (kv_heads, head_dim) into slot `slots[i]` of row `rows[i]`."""
        stored_keys = self.keys_of(layer)
        stored_keys[rows, :, slots] = keys.to(stored_keys.dtype)
        stored_values = self.values_of(layer)
        stored_values[rows, :, slots] = values.to(stored_values.dtype)
        self._keep_pristine(layer, rows, slots, keys)

    def _keep_pristine(self, layer: int, rows: torch.Tensor, slots: torch.Tensor, keys: torch.Tensor) -> None:
        pristine = self._pristine_of(layer)
        if pristine is None:
            return
        first = slots < self.pristine_slots
        pristine[rows[first], :, slots[first]] = keys[first].to(pristine.dtype)

    def as_stored(
        self, layer: int, key_states: torch.Tensor, value_states: torch.Tensor, placed: Placement | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A chunk's new keys and values (batch, kv_heads, q, head_dim) as its own queries see them: as
        storage will give them back (`placed`: where each real token goes). The same in every
        chunking, so a row's results do not depend on how its prompt was split."""
        return key_states, value_states

    # --- reads --------------------------------------------------------------------------------
    def read(self, layer: int, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys and values of slots `0..length-1` (all slots for None), in the model's dtype."""
        return self.keys_of(layer)[:, :, :length], self.values_of(layer)[:, :, :length]

    def gather(self, layer: int, slots: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys and values of slots `slots[b, i]` of row b, (batch, kv_heads, n, head_dim)."""
        keys, values = self.read(layer)
        index = slots[:, None, :, None]
        return (
            keys.gather(2, index.expand(-1, keys.shape[1], -1, keys.shape[-1])),
            values.gather(2, index.expand(-1, values.shape[1], -1, values.shape[-1])),
        )

    def take(
        self, rows: torch.Tensor, slots: torch.Tensor
    ) -> list[tuple[list[int], torch.Tensor, torch.Tensor]]:
        """The keys and values of slot `slots[i]` of row `rows[i]` in every layer, per stack:
        (members, keys (layers, n, kv_heads, head_dim), values likewise), in the model's dtype."""
        out = []
        for stack in self.stacks:
            if stack.keys is None or stack.values is None:
                continue
            keys = stack.keys.permute(0, 1, 3, 2, 4)[:, rows, slots]
            values = stack.values.permute(0, 1, 3, 2, 4)[:, rows, slots]
            out.append((stack.members, keys, values))
        return out

    # --- moves --------------------------------------------------------------------------------
    def permute_slots(self, layer: int, permute: torch.Tensor) -> None:
        """Slot j of row b takes what slot `permute[b, j]` held (batch, slots), in place."""
        index = permute[:, None, :, None]
        for stored in (self.keys_of(layer), self.values_of(layer)):
            stored.copy_(stored.gather(2, index.expand_as(stored)))

    def select_rows(self, index: torch.Tensor, *, in_place: bool) -> None:
        """Keep rows `index` of every layer; `in_place` (same batch size) keeps the tensors."""
        for stack in self.stacks:
            for name in ("keys", "values", "pristine"):
                stored = getattr(stack, name)
                if stored is None:
                    continue
                if in_place:
                    stored.copy_(stored.index_select(1, index))
                else:
                    setattr(stack, name, stored.index_select(1, index))
            if not in_place and stack.keys is not None:
                self._refresh_views(stack)
        if not in_place:
            self._mark_static()

    def load_row(self, row: int, source: KVStore, source_row: int, batch: int) -> None:
        """Row `row` of every layer becomes a copy of `source`'s row `source_row` (a store of the same
        layout), in place; an unallocated store is first allocated for `batch` rows like `source`."""
        for layer in self.layout.layers:
            if source.has(layer) and not self.has(layer):
                keys, values = source.keys_of(layer), source.values_of(layer)
                shape = (batch, keys.shape[1], 1, keys.shape[-1])
                self.allocate(layer, keys.new_zeros(shape), values.new_zeros((*shape[:3], values.shape[-1])))
        for mine, theirs in zip(self.row_tensors(), source.row_tensors(), strict=True):
            target, copied = mine[0].select(mine[1], row), theirs[0].select(theirs[1], source_row)
            if target.data_ptr() != copied.data_ptr():  # the same memory: a borrowed row loaded back
                target.copy_(copied)

    def borrow_rows(self, owner: KVStore, start: int, count: int) -> None:
        """Drop this store's storage and take rows `start..start + count - 1` of `owner`'s (a store of the
        same layout, allocated) as its rows 0..count-1: views, so that a write here lands in `owner`,
        until the next `reset`. `nbytes()` is then 0: the bytes are `owner`'s."""
        if any(stack.keys is None for stack in owner.stacks):
            raise RuntimeError("borrow_rows needs the owner's storage allocated (a first write)")
        self.reset()
        rows = slice(start, start + count)
        for mine, theirs in zip(self.stacks, owner.stacks, strict=True):
            for name in ("keys", "values", "pristine"):
                stored = getattr(theirs, name)
                setattr(mine, name, None if stored is None else stored[:, rows])
            self._refresh_views(mine)
        self.dtype = owner.dtype
        self.borrowed = True

    def row_tensors(self) -> list[tuple[torch.Tensor, int]]:
        """Every allocated per-row tensor and its batch dim, in a fixed order."""
        return [
            (stored, 1)
            for stack in self.stacks
            for stored in (stack.keys, stack.values, stack.pristine)
            if stored is not None
        ]

    # --- positions ----------------------------------------------------------------------------
    def rotate_keys(self, layer: int, rope: RopeSpec, delta: torch.Tensor, start: int = 0) -> None:
        """Move the keys of slots `start..` of `layer` by `delta` positions: (batch,) per row, or
        (batch, slots) per slot (only slots `start..` are read)."""
        keys = self.keys_of(layer)
        keys[:, :, start:] = _rotated(rope, keys[:, :, start:], delta, start)

    def rotate_sinks(self, delta: torch.Tensor) -> None:
        """Place the pristine slots of every RoPE stack `delta[b]` positions after where they were first
        written, per row (batch,): `keys[..., :n, :] = rotate(pristine, delta)`."""
        n = self.pristine_slots
        for stack in self.stacks:
            if stack.pristine is None or stack.keys is None or stack.rope is None:
                continue
            cos, sin = stack.rope.cos_sin(delta, delta.device)
            placed = stack.rope.apply(
                stack.pristine, cos[None, :, None, None, :], sin[None, :, None, None, :]
            )
            # an indexed write, not a slice assignment: inductor writes the former into the stack in place
            stack.keys[:, :, :, torch.arange(n, device=delta.device)] = placed

    # --- accounting ---------------------------------------------------------------------------
    def layer_tensors(self, layer: int) -> list[torch.Tensor]:
        """The tensors one layer's keys and values are held in (views of its stack)."""
        if not self.has(layer):
            return []
        return [self.keys_of(layer), self.values_of(layer)]

    def nbytes(self) -> int:
        """Bytes of the keys and values held (every layer, every row): what the attention reads (the
        recall tier's scratch slots included: its recalled tokens are read there); 0 for borrowed rows."""
        if self.borrowed:
            return 0
        return sum(t.numel() * t.element_size() for s in self.stacks for t in s.tensors())

    def overhead_bytes(self) -> int:
        """Bytes held beside the keys and values: the pristine copies of the sinks."""
        return sum(
            s.pristine.numel() * s.pristine.element_size() for s in self.stacks if s.pristine is not None
        )

    def reset(self) -> None:
        """Drop every layer's storage (the next write allocates it again)."""
        for stack in self.stacks:
            stack.keys = stack.values = stack.pristine = None
        self._views.clear()
        self.borrowed = False


@dataclass(frozen=True)
class Placement:
    """Where a chunk's real new tokens go: row `rows[i]`, column `cols[i]` of the chunk, slot `slots[i]`."""

    rows: torch.Tensor
    cols: torch.Tensor
    slots: torch.Tensor


def row_head_index(states: torch.Tensor, columns: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The `index_put_` index of `states` (batch, kv_heads, [n,] head_dim) at slots `columns` of each
    row and head: (rows, heads, columns), broadcast to (batch, kv_heads, n) where `columns` is (n,), the
    same columns in every row, or to (batch, kv_heads) where it is (batch, 1), one column a row."""
    batch, heads = states.shape[:2]
    rows, head = torch.arange(batch, device=states.device), torch.arange(heads, device=states.device)
    if columns.dim() == 1:
        return rows[:, None, None], head[None, :, None], columns[None, None, :]
    return rows[:, None], head[None, :], columns


def _rotated(rope: RopeSpec, keys: torch.Tensor, delta: torch.Tensor, start: int) -> torch.Tensor:
    """`keys` (batch, heads, n, dim) moved by `delta`: (batch,) per row or (batch, slots) per slot."""
    cos, sin = rope.cos_sin(delta, delta.device)
    if delta.ndim == 1:
        return rope.apply(keys, cos[:, None, None, :], sin[:, None, None, :])
    return rope.apply(keys, cos[:, None, start:], sin[:, None, start:])
