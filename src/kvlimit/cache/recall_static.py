"""The recall tier in a static decode step: blocks chosen, gathered and rotated on the device.

Contract: `StaticRecall` takes over a cache's recall tier at its first static decode step
(`kvlimit.cache.decode.StaticDecode`) and gives the same choices as the eager tier
(`kvlimit.cache.recall.RecallStore`) with fixed shapes and no host read inside a step, so that a
compiled or captured step serves recall too:

- Each row keeps its evicted tokens in a ring of `ring` blocks of its own,
  `(layers, batch, kv_heads, ring + 1, block, head_dim)` per group of layers (the extra block takes
  the writes of rows that evict nothing in a step). Block k of a row (counted in time, from the
  oldest it held when the ring was made) lives at ring slot `k % ring`; a bounded store (`recall_store`)
  has `ring` = its most blocks per row, and a new block overwrites the oldest, as the eager store drops
  it. An unbounded store's ring holds the run's evictions when its length is known
  (`BoundedCache.make_static(max_length)`, as `kvlimit.generate` says it), and doubles, on the host,
  before a row would wrap (the step then compiles once more, for the new shape).
- The host knows, by arithmetic, how many tokens each row has stored (a full row evicts one token a
  step): `open` counts them and says how many recalled columns each row fills (what the position
  keeper needs on the host). Everything else is on the device, in the step (`capture`, `count`,
  `fill`): the evicted token's keys and values written into its ring slot, which slots hold full
  blocks, every full block scored by the layer's queries, the best `slots // block` per KV head taken
  by one `topk` (ties to the older block, scores rounded to float16 as the eager tier does), gathered,
  rotated to the positions the keeper reserves and written into the step's recall columns.
- With `recall_every` > 1 each row chooses on its own schedule (`ChoiceSchedule`, decided on the host in
  `open` and the same by arithmetic on the device in `count`) and keeps its last choice per layer
  (`RingGroup.chosen`, ring slots); a step where no row chooses is another graph, without the scoring.
- Rows move with the cache (`select_rows`, `load_row` from an eager cache's store, with the row's place
  in its schedule and its last choice); `unload` hands the
  blocks back to the eager store when a prompt chunk follows static steps (a continued cache).

Deviations from the eager tier: keys and values both stay on the model's device (the eager tier
keeps a GPU model's values in host memory); the recalled keys are rotated with float32 cosines
(`RopeSpec.cos_sin_float32`, within 3e-7 of the eager tier's float64 ones, which a compiled graph
would compute per element of the keys); Quest's bounds (`recall_score="bounds"`) are not served
here (`kvlimit.cache.compiled.compile_blocker` says so). Quantized blocks (`recall_dtype`) are kept as
the eager store keeps them and dequantized as it does: every key of a layer to score, the chosen
blocks to attend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ..positions.rope import RopeSpec
from .quant import Codes, block_size
from .recall import RecallStore, block_positions, half_order
from .recall_schedule import ChoiceSchedule
from .recall_storage import RECALL_GROUP, Homes

if TYPE_CHECKING:
    from .bounded import BoundedCache
    from .store import KVStore

#: A score's float16 order is multiplied by this and the block's age added below it (`_order_keys`).
_AGE_SPAN = 1 << 40


@dataclass
class RingGroup:
    """One group of layers' rings: keys and values (layers, batch, kv_heads, ring + 1, block, dim),
    floats or `Codes` (a quantized recall store)."""

    members: list[int]
    rope: RopeSpec | None
    keys: torch.Tensor | Codes
    values: torch.Tensor | Codes
    #: (layers, batch, kv_heads, picks) long, the ring slots each row chose last (`recall_every` > 1)
    chosen: torch.Tensor

    def tensors(self) -> list[torch.Tensor]:
        return [*_parts(self.keys), *_parts(self.values)]


class StaticRecall:
    """The recall tier of one static cache (see the module docstring).

    Args:
        cache: the `BoundedCache`, made static, with rows and a recall store (whose eager state,
            the blocks each row holds, the rings start from).
    """

    def __init__(self, cache: BoundedCache):
        store = cache.recall
        assert store is not None
        self.store = store
        self.block, self.picks, self.slots = store.block, store.picks, store.slots
        self.bounded = store.max_blocks is not None
        rows = cache.rows
        self.batch = rows.batch
        self.device = rows.kept_t.device
        self.dtype = cache.store.dtype or torch.float32
        self.scheme = store.scheme  # quantized blocks (recall_dtype), or None
        self.every = store.schedule.every
        #: which rows choose their blocks afresh in a step (`recall_every`): on the host, and the same
        #: decisions by arithmetic on the device (`count`); every row chooses at the first static step
        self.schedule = ChoiceSchedule(self.every)
        self.schedule.start(self.batch)
        self.choosing = True  # whether any row chooses in the open step (a graph per answer)
        self.floats = store.floats or self.dtype  # the dtype floats are kept (and scored) in
        held = max((len(b) for b in store.rows), default=0)
        self.ring = self._ring_size(held, cache.static_max_length, cache.kept_limit)
        self._heads = self._shapes(cache)
        self.groups: list[RingGroup] = []
        self._where: dict[int, tuple[RingGroup, int]] = {}
        for group in store.groups:
            ring = self._new_group(group.members, group.rope)
            self.groups.append(ring)
            self._where.update({idx: (ring, i) for i, idx in enumerate(group.members)})
        #: per row, tokens stored since the rings were made (host), and the same on the device
        self.stored = [0] * self.batch
        self.stored_t = torch.zeros(self.batch, dtype=torch.long, device=self.device)
        #: (batch, ring + 1) the token index of each ring slot's first token
        self.block_first = torch.zeros((self.batch, self.ring + 1), dtype=torch.long, device=self.device)
        # filled by `count` in every step, read by every layer's `fill`
        self.recalled_t = torch.zeros(self.batch, dtype=torch.long, device=self.device)
        self.present = torch.zeros((self.batch, self.ring + 1), dtype=torch.bool, device=self.device)
        self.age = torch.zeros((self.batch, self.ring + 1), dtype=torch.long, device=self.device)
        self.base = torch.zeros(self.batch, dtype=torch.long, device=self.device)
        self.query_positions = torch.zeros(self.batch, dtype=torch.long, device=self.device)
        self.query_index = torch.zeros(self.batch, dtype=torch.long, device=self.device)
        self.since_t = torch.full((self.batch,), self.every, dtype=torch.long, device=self.device)
        self.held_t = torch.zeros((self.batch, 2), dtype=torch.long, device=self.device)
        self.choose_t = torch.ones(self.batch, dtype=torch.bool, device=self.device)
        self.start = cache.slots  # the recall columns follow the kept slots
        for row in range(self.batch):
            self.load_row(row, store, row, count=False)

    def _ring_size(self, held: int, max_length: int | None, kept: int) -> int:
        """Blocks per ring: a bounded store's most blocks per row; else enough for the run's evictions
        when its length is known (`make_static(max_length)`), else a power of two (`_ring_for`)."""
        if self.store.max_blocks is not None:
            return self.store.max_blocks
        if max_length is not None:
            return max(self.picks, held + 1, -(-max(0, max_length - kept) // self.block))
        return _ring_for(held + 1, self.picks)

    def _shapes(self, cache: BoundedCache) -> dict[int, tuple[int, int, int, int]]:
        """Per bounded layer, (key heads, key dim, value heads, value dim), from the store's stacks."""
        shapes = {}
        for stack in cache.store.stacks:
            keys, values = stack.keys, stack.values
            if keys is None or values is None:
                raise RuntimeError("a static step with recall needs the cache's keys allocated (a prefill)")
            for member in stack.members:
                shapes[member] = (keys.shape[2], keys.shape[-1], values.shape[2], values.shape[-1])
        return shapes

    def _new_group(self, members: list[int], rope: RopeSpec | None) -> RingGroup:
        kh, kd, vh, vd = self._heads[members[0]]
        n = len(members)
        keys = self._empty((n, self.batch, kh, self.ring + 1, self.block, kd))
        values = self._empty((n, self.batch, vh, self.ring + 1, self.block, vd))
        chosen = torch.zeros((n, self.batch, kh, self.picks), dtype=torch.long, device=self.device)
        return RingGroup(members, rope, keys, values, chosen)

    def _empty(self, shape: tuple[int, ...]) -> torch.Tensor | Codes:
        if self.scheme is None:
            return torch.zeros(shape, dtype=self.floats, device=self.device)
        return self.scheme.empty(shape, block_size(shape[-1], RECALL_GROUP), self.device)

    def _stored(self, x: torch.Tensor) -> torch.Tensor | Codes:
        """`x` (..., dim) as the rings keep it (the eager store's form: `Homes.quantize`)."""
        if self.scheme is None:
            return x.to(self.floats)
        return self.scheme.quantize(x, block_size(x.shape[-1], RECALL_GROUP))

    def _floats(self, stored: torch.Tensor | Codes, *, as_stored: bool = False) -> torch.Tensor:
        """What `stored` (floats or codes) stands for, in the model's dtype, or floats `as_stored` (the
        dtype blocks are scored in, as the eager store scores them)."""
        if isinstance(stored, Codes):
            assert self.scheme is not None
            return self.scheme.dequantize(stored, self.dtype)
        return stored if as_stored else stored.to(self.dtype)

    def tensors(self) -> list[torch.Tensor]:
        """Every tensor a captured step reads or writes in place."""
        rings = [t for group in self.groups for t in (*group.tensors(), group.chosen)]
        buffers = [self.recalled_t, self.present, self.age, self.base, self.query_positions, self.query_index]
        schedule = [self.since_t, self.held_t, self.choose_t]
        return [*rings, self.stored_t, self.block_first, *buffers, *schedule]

    # --- the host part --------------------------------------------------------------------------
    def recallable(self, stored: int) -> int:
        """Recalled tokens of a row that has stored `stored` tokens: its full blocks held, up to `picks`."""
        started, full = -(-stored // self.block), stored // self.block
        return min(self.picks, min(started, self.ring) - (started > full)) * self.block

    def open(self, evicting: Sequence[bool]) -> list[int]:
        """A static step in which row b evicts one token where `evicting[b]`: count them (growing an
        unbounded ring first where a row would wrap) and return each row's recalled tokens."""
        if not self.bounded and any(
            e and s // self.block >= self.ring for e, s in zip(evicting, self.stored, strict=True)
        ):
            self._grow(2 * self.ring)
        self.stored = [s + int(e) for s, e in zip(self.stored, evicting, strict=True)]
        self.store.stored_total += sum(evicting)
        recalled = [self.recallable(s) for s in self.stored]
        if self.every > 1:  # as `count` decides on the device
            held = [
                (n // self.block, self._oldest(s) if n else -1)
                for n, s in zip(recalled, self.stored, strict=True)
            ]
            self.choosing = any(self.schedule.decide(held))
        return recalled

    def _oldest(self, stored: int) -> int:
        """The time index of the oldest block a row holds after storing `stored` tokens (its ring's)."""
        return max(0, -(-stored // self.block) - self.ring)

    def _grow(self, ring: int) -> None:
        """Rings of `ring` blocks keeping every block at its slot (an unbounded ring never wrapped)."""
        old = self.ring
        self.ring = ring
        for group in self.groups:
            grown = self._new_group(group.members, group.rope)
            for new, before in zip(grown.tensors(), group.tensors(), strict=True):
                new[:, :, :, :old] = before[:, :, :, :old]
            group.keys, group.values = grown.keys, grown.values
        first = torch.zeros((self.batch, ring + 1), dtype=torch.long, device=self.device)
        first[:, :old] = self.block_first[:, :old]
        self.block_first = first
        self.present = torch.zeros((self.batch, ring + 1), dtype=torch.bool, device=self.device)
        self.age = torch.zeros((self.batch, ring + 1), dtype=torch.long, device=self.device)
        for tensor in self.tensors():
            torch._dynamo.mark_static_address(tensor)

    # --- the device part ------------------------------------------------------------------------
    def capture(self, cache: BoundedCache, evicting: torch.Tensor, slot: torch.Tensor) -> None:
        """Before the step's new tokens are written: row b's token in `slot[b]` goes to its ring where
        `evicting[b]` (batch,) bool; the other rows write the ring's spare block."""
        kept = cache.kept_sets[0]
        rows = torch.arange(self.batch, device=self.device)
        token_index, positions = kept.token_index[rows, slot], kept.positions[rows, slot]
        stored = self.stored_t
        at = torch.where(evicting, (stored // self.block) % self.ring, self.ring)
        offset = stored % self.block
        for members, keys, values in cache.store.take(rows, slot):  # (layers, batch, kv_heads, dim)
            group, _ = self._where[members[0]]
            if group.rope is not None:  # kept as the eager store keeps them (see `RecallStore.capture`)
                target = token_index if self.store.score == "distance" else torch.zeros_like(positions)
                keys = group.rope.rotate(keys, (target - positions)[None, :, None])
            layers, heads = keys.shape[0], keys.shape[2]
            index = (torch.arange(layers, device=self.device)[:, None, None], rows[None, :, None],
                     torch.arange(heads, device=self.device)[None, None, :], at[None, :, None],
                     offset[None, :, None])  # fmt: skip
            for ring, new in ((group.keys, keys), (group.values, values)):
                for part, written in zip(_parts(ring), _parts(self._stored(new)), strict=True):
                    part.index_put_(index, written)
        first_at = torch.where(offset == 0, at, self.ring)
        self.block_first.index_put_((rows, first_at), token_index)
        stored.add_(evicting.long())

    def count(self) -> None:
        """After `capture`: which ring slots hold a full block, each one's age, each row's recalled tokens."""
        stored = self.stored_t
        started, full = (stored + self.block - 1) // self.block, stored // self.block
        slot = torch.arange(self.ring + 1, device=self.device)[None, :]
        # the newest block at each slot: k = slot + ring * m for the largest m with k < started
        k = slot + self.ring * torch.div(started[:, None] - 1 - slot, self.ring, rounding_mode="floor")
        self.present.copy_((k >= 0) & (k < full[:, None]) & (slot < self.ring))
        self.age.copy_(k.clamp(min=0))
        held = torch.minimum(started, torch.full_like(started, self.ring)) - (started > full).long()
        recallable = held.clamp(max=self.picks)
        self.recalled_t.copy_(recallable * self.block)
        if self.every > 1:  # which rows choose (`ChoiceSchedule.decide`, as `open` decides on the host)
            oldest = torch.where(recallable > 0, (started - self.ring).clamp(min=0), -1)
            now = torch.stack((recallable, oldest), dim=1)
            choose = (self.since_t >= self.every) | (now != self.held_t).any(dim=1)
            self.choose_t.copy_(choose)
            self.since_t.copy_(torch.where(choose, 1, self.since_t + 1))
            self.held_t.copy_(now)

    def open_step(self, base: torch.Tensor, query_positions: torch.Tensor, shift: torch.Tensor) -> None:
        """The step's recall positions `base` (batch,), its queries' positions and the rows' shifts."""
        self.base.copy_(base)
        self.query_positions.copy_(query_positions)
        self.query_index.copy_(query_positions + shift)

    def column_mask(self) -> torch.Tensor:
        """(batch, slots) long, 1 where a row's recall column holds a token this step."""
        return (torch.arange(self.slots, device=self.device)[None, :] < self.recalled_t[:, None]).long()

    def fill(
        self, layer_idx: int, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, kv_store: KVStore
    ) -> None:
        """Write layer `layer_idx`'s recalled keys and values into the recall columns of `key` and `value`
        (batch, kv_heads, kv_length, head_dim), the layer's as `kv_store` read them, chosen by `query`
        (batch, heads, 1, head_dim)."""
        if layer_idx not in self._where:
            return
        group, i = self._where[layer_idx]
        if self.every == 1:
            chosen = self._choose(group, i, query)  # (batch, kv_heads, picks) ring slots, in time order
        else:  # the rows that do not choose attend the slots they chose last (a graph without scoring
            last = group.chosen[i]  # when no row chooses)
            chosen = last
            if self.choosing:
                chosen = torch.where(self.choose_t[:, None, None], self._choose(group, i, query), last)
                last.copy_(chosen)
        batch, kv_heads, picks = chosen.shape
        flat = (torch.arange(batch, device=self.device)[:, None, None] * kv_heads
                + torch.arange(kv_heads, device=self.device)[None, :, None]) * (self.ring + 1) + chosen  # fmt: skip
        keys = self._floats(_picked(group.keys, i, flat.reshape(-1)))
        values = self._floats(_picked(group.values, i, flat.reshape(-1)))
        keys = keys.view(batch, kv_heads, picks, self.block, -1)
        values = values.view(batch, kv_heads, picks * self.block, -1)
        n = picks * self.block
        if group.rope is not None:
            first = self.block_first.gather(1, chosen.view(batch, -1)).view_as(chosen)
            shift = self.query_index - self.query_positions
            placed = block_positions(self.store.place, first, self.base, shift, self.query_positions,
                                     self.block, self.store.max_distance)  # fmt: skip
            if self.store.score == "distance":  # one rotation a block, from its tokens' indices
                delta = (placed - first)[..., None]
            else:  # kept unrotated: each token to its position
                delta = placed[..., None] + torch.arange(self.block, device=self.device)
            cos, sin = group.rope.cos_sin_float32(delta, keys.device)  # float32: see its docstring
            keys = group.rope.apply(keys, cos, sin).view(batch, kv_heads, n, -1)
        else:
            keys = keys.view(batch, kv_heads, n, -1)
        columns = torch.arange(self.start, self.start + n, device=self.device)
        kv_store.write_columns(layer_idx, key, value, columns, keys, values)

    def _choose(self, group: RingGroup, i: int, query: torch.Tensor) -> torch.Tensor:
        """(batch, kv_heads, picks) the ring slots of the best full blocks for `query`, oldest first
        (slots holding no full block last), as `RecallStore.recall` chooses."""
        batch, heads, _, dim = query.shape
        rope = group.rope
        vector = query
        if rope is not None:  # unrotated, as the eager tier hands the store its query
            cos, sin = rope.cos_sin(-self.query_positions[:, None, None], query.device)
            vector = rope.apply(query, cos, sin)
        kv_heads = _parts(group.keys)[0].shape[2]
        grouped = vector[:, :, 0].float().view(batch, kv_heads, heads // kv_heads, dim)
        if rope is not None and self.store.score == "distance":  # the query at its own token index
            cos, sin = rope.cos_sin(self.query_index, grouped.device)
            grouped = rope.apply(grouped, cos[:, None, None, :], sin[:, None, None, :])
        keys = self._floats(_layer(group.keys, i), as_stored=True)  # (batch, kv_heads, ring + 1, block, dim)
        products = torch.matmul(keys.flatten(2, 3), grouped.to(keys.dtype).transpose(-1, -2))
        best = products.view(batch, kv_heads, self.ring + 1, -1).amax(dim=-1).float()
        if not self.store.per_head:
            best = best.sum(dim=1, keepdim=True).expand(-1, kv_heads, -1)
        score = best.clamp(-6e4, 6e4).half().masked_fill(~self.present[:, None, :], float("-inf"))
        top = _order_keys(score, self.age[:, None, :]).topk(self.picks, dim=-1, sorted=False).indices
        present = self.present[:, None, :].expand(-1, kv_heads, -1).gather(2, top)
        age = self.age[:, None, :].expand(-1, kv_heads, -1).gather(2, top)
        order = torch.where(present, age, _AGE_SPAN + top).argsort(dim=-1)
        return top.gather(2, order)

    # --- rows -----------------------------------------------------------------------------------
    def select_rows(self, index: torch.Tensor, host_index: Sequence[int]) -> None:
        """Rows become rows `index` of before (beam reorders; a new batch size reallocates)."""
        same = len(host_index) == self.batch
        self.stored = [self.stored[i] for i in host_index]
        self.batch = len(host_index)
        self.schedule.select_rows(host_index)
        for group in self.groups:
            if same:
                for part in (*group.tensors(), group.chosen):
                    part.copy_(part.index_select(1, index))
            else:
                group.chosen = group.chosen.index_select(1, index)
                group.keys = _rebuilt(group.keys, [t.index_select(1, index) for t in _parts(group.keys)])
                group.values = _rebuilt(
                    group.values, [t.index_select(1, index) for t in _parts(group.values)]
                )
        names = (
            "stored_t",
            "block_first",
            "recalled_t",
            "present",
            "age",
            "base",
            "query_positions",
            "query_index",
            "since_t",
            "held_t",
            "choose_t",
        )
        for name in names:
            tensor = getattr(self, name)
            if same:
                tensor.copy_(tensor.index_select(0, index))
            else:
                setattr(self, name, tensor.index_select(0, index))

    def load_row(self, row: int, source: RecallStore, source_row: int, *, count: bool = True) -> None:
        """Row `row` holds the blocks of row `source_row` of an eager store of the same layout (oldest at
        slot 0; the row's ring starts there); `count`: its tokens count as stored (`stats`)."""
        blocks = source.rows[source_row] if source_row < len(source.rows) else []
        if not self.bounded and len(blocks) > self.ring:
            self._grow(_ring_for(len(blocks), self.picks))
        blocks = blocks[-self.ring :] if blocks else []
        stored = sum(source.fill[b] for b in blocks)
        if count:
            self.store.stored_total += stored
        self.stored[row] = stored
        self.stored_t[row] = stored
        self.block_first[row] = 0
        self._carry_schedule(row, source, source_row, blocks, stored)
        if not blocks:
            return
        assert source.block_first is not None and source.homes is not None
        ids = torch.tensor(blocks, dtype=torch.long)
        for ring, group in zip(self.groups, source.groups, strict=True):
            assert group.keys is not None and group.values is not None
            theirs = [*_parts(group.keys), *_parts(group.values)]
            for part, copied in zip(ring.tensors(), theirs, strict=True):
                part[:, row, :, : len(blocks)] = copied[:, :, ids.to(copied.device)].to(self.device)
        self.block_first[row, : len(blocks)] = source.block_first[ids.to(source.block_first.device)].to(
            self.device
        )

    def _carry_schedule(
        self, row: int, source: RecallStore, source_row: int, blocks: list[int], stored: int
    ) -> None:
        """Row `row`, loaded with `blocks` of the eager store's row `source_row`, takes that row's place in
        the choice schedule and the blocks it chose last (now at ring slots 0, 1, ... in `blocks`' order);
        it chooses at its next step if it never chose or a block it chose did not come along."""
        since = source.schedule.since[source_row] if source_row < len(source.schedule.since) else None
        slot_of = {b: k for k, b in enumerate(blocks)}
        served = [m for group in self.groups for m in group.members]
        chosen = {m: source._last[m][source_row].tolist() for m in served if m in source._last}
        if len(chosen) < len(served) or any(
            b >= 0 and b not in slot_of for ids in chosen.values() for head in ids for b in head
        ):
            since = None
        recalled = self.recallable(stored)
        held = (recalled // self.block, self._oldest(stored) if recalled else -1)
        self.schedule.carry(row, self.batch, since, held)
        self.since_t[row] = self.every if since is None else since
        self.held_t[row] = torch.tensor(held)
        if since is not None:
            for group in self.groups:
                for i, member in enumerate(group.members):
                    slots = [[slot_of.get(b, 0) for b in head] for head in chosen[member]]
                    group.chosen[i, row] = torch.tensor(slots, dtype=torch.long)

    def unload(self) -> None:
        """Hand every row's blocks back to the eager store, oldest first (its rows start empty): a prompt
        chunk after static steps (a cache continued by a later call) runs the eager tier, and the next
        static step makes rings again."""
        store = self.store
        store.start(self.batch)
        for row, stored in enumerate(self.stored):
            started = -(-stored // self.block)
            for k in range(max(0, started - self.ring), started):
                last = k == started - 1 and stored % self.block
                self._unload_block(row, k % self.ring, stored % self.block if last else self.block)

    def _unload_block(self, row: int, slot: int, fill: int) -> None:
        store = self.store
        if store.homes is None:  # a store that has held nothing: its homes from the rings' shapes
            kh, kd, vh, vd = self._heads[self.groups[0].members[0]]
            keys = torch.zeros((1, 1, kh, kd), dtype=self.dtype, device=self.device)
            values = torch.zeros((1, 1, vh, vd), dtype=self.dtype, device=self.device)
            store.homes = Homes.of(keys, values, self.scheme, self.block, store.score, store.floats)
            store._grow(store.capacity_blocks)
        b = store.table.new_block()
        store.fill[b] = fill
        for ring, eager in zip(self.groups, store.groups, strict=True):
            assert eager.keys is not None and eager.values is not None
            theirs = [*_parts(eager.keys), *_parts(eager.values)]
            for part, target in zip(ring.tensors(), theirs, strict=True):
                target[:, :, b] = part[:, row, :, slot].to(target.device)
        assert store.block_first is not None
        store.block_first[b] = self.block_first[row, slot].to(store.block_first.device)
        store.rows[row].append(b)


def _parts(stored: torch.Tensor | Codes) -> list[torch.Tensor]:
    return stored.tensors() if isinstance(stored, Codes) else [stored]


def _rebuilt(like: torch.Tensor | Codes, parts: list[torch.Tensor]) -> torch.Tensor | Codes:
    return Codes(*parts) if isinstance(like, Codes) else parts[0]


def _layer(stored: torch.Tensor | Codes, i: int) -> torch.Tensor | Codes:
    """Layer i's rings (batch, kv_heads, ring + 1, block, ...), floats or codes."""
    return _rebuilt(stored, [t[i] for t in _parts(stored)])


def _picked(stored: torch.Tensor | Codes, i: int, flat: torch.Tensor) -> torch.Tensor | Codes:
    """Layer i's blocks at `flat` ((row x kv_heads + head) x (ring + 1) + slot): (n, block, ...)."""
    return _rebuilt(stored, [t[i].flatten(0, 2).index_select(0, flat) for t in _parts(stored)])


def _ring_for(blocks: int, picks: int) -> int:
    """An unbounded ring's size for `blocks` blocks: a power of two, at least `picks` and 64."""
    size = max(64, picks)
    while size < blocks:
        size *= 2
    return size


def _order_keys(score: torch.Tensor, age: torch.Tensor) -> torch.Tensor:
    """Distinct integer keys in the order of `score` (float16), ties to the smaller `age` (older block):
    the float16 order (`half_order`, as `kvlimit.cache.recall.best_columns`), then the age."""
    return half_order(score) * _AGE_SPAN + (_AGE_SPAN - 1 - age)
