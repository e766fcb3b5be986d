"""The recall tier: what a bounded cache evicts is kept in blocks, and the best blocks come back.

Contract
--------
`RecallStore` keeps, per row, the keys and values the cache evicts, in blocks of `block` tokens
(never padding), for every bounded layer, in the cache's dtype or quantized (`recall_dtype` "int8" /
"int4", `kvlimit.cache.quant`). Under a positional policy every layer evicts the same tokens, so one
block table (on the host) serves every layer; the keys and values live per group of layers of one
shape and rotation (the store's stacks), `(layers, blocks, kv_heads, block, head_dim)`.

Keys are kept *unrotated*: a RoPE key evicted at position p is rotated by -p when it arrives, so a
block can be placed at any position later with one rotation.

How blocks are scored (`score`):
- "keys" (default): a block scores the largest product of any of its keys with any query head of
  the KV head's group, exactly. The keys live beside the queries (on the model's device; ShadowKV
  likewise keeps keys on the GPU and values in host memory); only the chosen values travel.
- "bounds": Quest's bound (Tang et al. 2024): beside each block its keys' per-channel minimum and
  maximum, from which `q . k <= sum_d max(q_d lo_d, q_d hi_d)` bounds every key of the block (for the
  group's summed query). Only the bounds are read to choose; keys and values stay in host memory
  (pinned) when the model is on a GPU, and only the chosen blocks travel, as in InfLLM.
Measured on SmolLM2-135M (needle at 1,024 tokens, limit 256, README): the bound is too loose to find
a five-digit key (0.3 and 0.5 of the needles at R = 64 and 128) where the exact score finds all but
one; so "keys" is the default, and "bounds" is there for a store too large to score exactly.

`recall(layer, query)` scores a row's full blocks against a query (unrotated too, so every block is
judged at the same distance, as InfLLM does), takes the best `slots // block` blocks per row and KV
head (per head: heads of one layer look for different things; measured better than one choice per
layer, README), and returns them in their original
order, unrotated: the cache rotates them to the positions it reserves between the sinks and the
recent window. Which blocks a row holds is that row's own: rows never share an open block, beam
reorders move references to closed blocks (shared, counted) and copy an open one, and the oldest
blocks of a row go first once it holds `capacity` tokens.

Deviations from the papers: InfLLM scores blocks by a few representative keys and keeps a GPU cache
of blocks; Quest scores pages of the full cache. Here InfLLM's evicted blocks are scored by all
their keys (or Quest's bound); a prompt chunk scores by the mean of its queries (InfLLM sums the
chunk's dot products).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..positions.rope import RopeSpec
from .quant import Codes, block_size, scheme

__all__ = ["BLOCK", "RecallGroup", "RecallStore", "block_for"]

#: Tokens per block, unless the recalled slots are fewer or not a multiple (see `block_for`).
BLOCK = 16
#: Dims per quantization block in a quantized recall store (as the cache's default kv_group).
RECALL_GROUP = 32


def block_for(slots: int) -> int:
    """The block size for `slots` recalled slots: the largest of 16, 8, 4, 2, 1 that divides it."""
    return next(b for b in (BLOCK, 8, 4, 2, 1) if slots % b == 0)


@dataclass
class RecallGroup:
    """The blocks of some layers of one shape and rotation.

    Attributes:
        members: the model layers, in the order of the leading dim.
        rope: their rotation (None: the layers take no positions, e.g. a NoPE layer).
        keys / values: (layers, capacity, kv_heads, block, head_dim), floats or `Codes`; None until
            the first write.
        low / high: (layers, capacity, kv_heads, head_dim) float32, each block's key bounds.
    """

    members: list[int]
    rope: RopeSpec | None
    keys: torch.Tensor | Codes | None = None
    values: torch.Tensor | Codes | None = None
    low: torch.Tensor | None = None
    high: torch.Tensor | None = None


class RecallStore:
    """Evicted keys and values in blocks, per row (see the module docstring).

    Args:
        groups: per group of layers, (model layer indices, their `RopeSpec` or None).
        slots: recalled slots per row (each query attends at most this many recalled tokens).
        capacity: most tokens a row keeps (None: no bound; the oldest blocks go first).
        recall_dtype: "int8", "int4" or None (the model's dtype).
        per_head: choose blocks per KV head (True) or one choice per layer for all heads.
        block: tokens per block (default `block_for(slots)`).
        score: "keys" (a block scores its best key's product with the queries, exactly) or "bounds"
            (Quest's bound from each block's per-channel key minimum and maximum).
    """

    def __init__(
        self,
        groups: Sequence[tuple[list[int], RopeSpec | None]],
        slots: int,
        *,
        capacity: int | None = None,
        recall_dtype: str | None = None,
        per_head: bool = True,
        block: int | None = None,
        score: str = "keys",
    ):
        self.groups = [RecallGroup(list(members), rope) for members, rope in groups]
        self._where = {idx: (g, i) for g in self.groups for i, idx in enumerate(g.members)}
        self.slots = slots
        self.block = block_for(slots) if block is None else block
        if slots % self.block:
            raise ValueError(
                f"the recall block ({self.block} tokens) must divide the recalled slots ({slots})"
            )
        self.picks = slots // self.block
        self.max_blocks = None if capacity is None else max(self.picks, capacity // self.block)
        self.scheme = None if recall_dtype is None else scheme(recall_dtype)
        self.per_head = per_head
        if score not in ("keys", "bounds"):
            raise ValueError(f"score={score!r} is not one of 'keys', 'bounds'")
        self.score = score
        self.capacity_blocks = 0
        self.free: list[int] = []
        self.refs: list[int] = []  # per block id, the rows holding it
        self.fill: list[int] = []  # per block id, the tokens it holds
        self.rows: list[list[int]] = []  # per row, its block ids, oldest first
        self.stored_total = 0  # tokens ever stored
        self._table: tuple[torch.Tensor, torch.Tensor] | None = None  # device copy of the full blocks
        #: (capacity,) per block id, the token index of its first token (on the model's device)
        self.block_first: torch.Tensor | None = None
        self._device: torch.device | None = None
        self._dtype: torch.dtype | None = None
        self._shapes: tuple[int, int, int, int] | None = None  # kv_heads and head_dim of keys, values

    def serves(self, layer: int) -> bool:
        return layer in self._where

    # --- rows ---------------------------------------------------------------------------------
    def start(self, batch: int) -> None:
        """Empty rows for a batch of `batch` (the blocks' storage stays allocated)."""
        self.rows = [[] for _ in range(batch)]
        self.free = list(range(self.capacity_blocks - 1, -1, -1))
        self.refs = [0] * self.capacity_blocks
        self.fill = [0] * self.capacity_blocks
        self._table = None

    def reset(self) -> None:
        """Forget every row and drop the storage."""
        for group in self.groups:
            group.keys = group.values = group.low = group.high = None
        self.block_first = None
        self.capacity_blocks = 0
        self.start(0)

    def recallable(self) -> list[int]:
        """Per row, how many recalled slots hold a token in the coming step: its full blocks, up to `slots`."""
        return [min(self.picks, self._full(blocks)) * self.block for blocks in self.rows]

    def select_rows(self, index: Sequence[int]) -> None:
        """Rows become rows `index` of before: closed blocks are shared, an open block is copied."""
        old = self.rows
        new = [list(old[i]) for i in index]
        for blocks in new:
            for b in blocks:
                self.refs[b] += 1
        for blocks in old:
            for b in blocks:
                self._release(b)
        for blocks in new:
            last = blocks[-1] if blocks else None
            if last is not None and self.fill[last] < self.block and self.refs[last] > 1:
                blocks[-1] = self._copy_block(last)  # each row appends to an open block of its own
        self.rows = new
        self._table = None

    def load_row(self, row: int, source: RecallStore, source_row: int) -> None:
        """Row `row` drops its blocks and takes copies of the blocks of `source`'s row `source_row` (a
        store of the same layout: continuous batching, a prompt prefilled alone joining a batch)."""
        for b in self.rows[row]:
            self._release(b)
        self.rows[row] = []
        self._table = None
        if source._device is None:
            return
        if self._device is None:
            self._device, self._dtype, self._shapes = source._device, source._dtype, source._shapes
        for group in self.groups:  # storage for the groups the store has not written yet (once)
            if group.keys is None:
                self._grow_group(group)
        self._grow_first()
        for source_block in source.rows[source_row]:
            b = self._new_block()  # grows every group's storage with the ids
            self.fill[b] = source.fill[source_block]
            for group, theirs in zip(self.groups, source.groups, strict=True):
                pairs = zip(_parts(group), _parts(theirs), strict=True)
                for target, copied in pairs:
                    target[:, b] = copied[:, source_block].to(target.device)
            assert self.block_first is not None and source.block_first is not None
            self.block_first[b] = source.block_first[source_block].to(self.block_first.device)
            self.rows[row].append(b)
            self.stored_total += source.fill[source_block]

    # --- capture ------------------------------------------------------------------------------
    def capture(
        self, counts: Sequence[int], token_index: torch.Tensor, positions: torch.Tensor,
        taken: Sequence[tuple[list[int], torch.Tensor, torch.Tensor]],
    ) -> None:  # fmt: skip
        """Store `counts[r]` newly evicted tokens of row r (rows in order, each row's in time order):
        `token_index` and `positions` (n,) long, and per stack of the cache's store (members, keys,
        values) with keys and values (layers, n, kv_heads, head_dim), keys rotated at `positions`."""
        ids, offsets = self._reserve(counts)
        for members, keys, values in taken:
            self._write(self._where[members[0]][0], ids, offsets, keys, values, positions)
        fresh = [i for i, o in enumerate(offsets) if o == 0]
        if fresh and self.block_first is not None:
            at = torch.tensor(fresh, dtype=torch.long, device=token_index.device)
            block = torch.tensor([ids[i] for i in fresh], dtype=torch.long, device=self.block_first.device)
            self.block_first[block] = token_index[at].to(self.block_first.device)

    def _reserve(self, counts: Sequence[int]) -> tuple[list[int], list[int]]:
        """Places for `counts[r]` new tokens of row r; (block id, offset) per token, rows in order."""
        ids: list[int] = []
        offsets: list[int] = []
        for row, count in enumerate(counts):
            blocks = self.rows[row]
            for _ in range(count):
                if not blocks or self.fill[blocks[-1]] == self.block:
                    blocks.append(self._new_block())
                    self._trim(row)
                b = blocks[-1]
                ids.append(b)
                offsets.append(self.fill[b])
                self.fill[b] += 1
                if self.fill[b] == self.block:
                    self._table = None
        self.stored_total += sum(counts)
        return ids, offsets

    def _write(
        self, group: RecallGroup, ids: Sequence[int], offsets: Sequence[int], keys: torch.Tensor,
        values: torch.Tensor, positions: torch.Tensor,
    ) -> None:  # fmt: skip
        """Store tokens at (`ids[i]`, `offsets[i]`) in `group`, keys unrotated (see `capture`)."""
        self._allocate(keys, values)
        unrotated = keys if group.rope is None else group.rope.rotate(keys, -positions[None, :, None])
        assert group.keys is not None and group.values is not None
        for target, new, home in (
            (group.keys, unrotated, self._key_home),
            (group.values, values, self._storage),
        ):
            at_ids = torch.tensor(list(ids), dtype=torch.long, device=home)
            at_offsets = torch.tensor(list(offsets), dtype=torch.long, device=home)
            new = new.to(home)
            if isinstance(target, Codes):
                for stored, part in zip(target.tensors(), self._quantize(new).tensors(), strict=True):
                    stored[:, at_ids, :, at_offsets] = part.transpose(0, 1)
            else:
                target[:, at_ids, :, at_offsets] = new.to(target.dtype).transpose(0, 1)
        if group.low is None or group.high is None:
            return  # scored by its keys: no bounds kept
        # a new block's bounds start empty; every key widens its block's (duplicates reduce together)
        fresh = [b for b, o in zip(ids, offsets, strict=True) if o == 0]
        if fresh:
            fresh_t = torch.tensor(fresh, dtype=torch.long, device=group.low.device)
            group.low[:, fresh_t] = float("inf")
            group.high[:, fresh_t] = float("-inf")
        as_float = unrotated.float()
        index = torch.tensor(list(ids), dtype=torch.long, device=group.low.device)[None, :, None, None]
        group.low.scatter_reduce_(1, index.expand_as(as_float), as_float, "amin")
        group.high.scatter_reduce_(1, index.expand_as(as_float), as_float, "amax")

    # --- recall -------------------------------------------------------------------------------
    def recall(self, layer: int, query: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The best blocks of every row for `query` (batch, heads, head_dim), unrotated.

        Returns keys and values (batch, kv_heads, n, head_dim) with n = blocks taken x block (at most
        `slots`), unrotated, in their original order, and the block ids taken (batch, picks, kv_heads)
        (-1 where a row had fewer blocks: its columns hold another block's tokens and must be masked,
        as `recallable()` says).
        """
        group, i = self._where[layer]
        assert group.keys is not None and group.values is not None and self._shapes is not None
        table, count = self.device_table(query.device)
        batch, heads, dim = query.shape
        kv_heads = self._shapes[0]
        grouped = query.float().view(batch, kv_heads, heads // kv_heads, dim)
        ids = table.clamp(min=0)
        bound = self._block_scores(group, i, ids, grouped)  # (batch, blocks, kv_heads)
        if not self.per_head:
            bound = bound.sum(dim=-1, keepdim=True).expand(-1, -1, kv_heads)
        # bounds rounded to float16 and ties to the oldest block (a stable sort below): a row's choice
        # does not move with the float noise between a row alone and in a batch
        bound = bound.clamp(-6e4, 6e4).half().float()
        present = torch.arange(table.shape[1], device=table.device)[None, :] < count[:, None]
        bound = bound.masked_fill(~present[:, :, None], float("-inf"))
        picks = min(self.picks, table.shape[1])
        # present blocks come first in the table and score above absent ones: sorting the chosen
        # columns puts a row's blocks in time order, absent ones last
        order = bound.sort(dim=1, descending=True, stable=True).indices
        columns = order[:, :picks].sort(dim=1).values  # (batch, picks, kv_heads)
        chosen = table[:, :, None].expand(-1, -1, kv_heads).gather(1, columns)
        heads_index = torch.arange(kv_heads, device=chosen.device)[None, None, :]
        at = chosen.clamp(min=0)
        keys = self._pick(group.keys, i, at.to(self._key_home), heads_index.to(self._key_home))
        values = self._pick(group.values, i, at.to(self._storage), heads_index.to(self._storage))
        keys = keys.permute(0, 2, 1, 3, 4).reshape(batch, kv_heads, picks * self.block, dim)
        values = values.permute(0, 2, 1, 3, 4).reshape(batch, kv_heads, picks * self.block, -1)
        return keys.to(query.device, non_blocking=True), values.to(query.device, non_blocking=True), chosen

    def _block_scores(
        self, group: RecallGroup, i: int, ids: torch.Tensor, grouped: torch.Tensor
    ) -> torch.Tensor:
        """(batch, blocks, kv_heads) each block's score for the queries `grouped` (batch, kv_heads, g, dim):
        "keys", the largest product of any of its keys with any query head of the KV head's group;
        "bounds", Quest's bound `sum_d max(q_d lo_d, q_d hi_d) = hi . q+ + lo . q-` of the group's
        summed query."""
        if self.score == "keys":
            assert group.keys is not None
            if ids.shape[0] == 1:  # one row: score every allocated block where it lies (no gather), then pick
                every = (
                    group.keys[i]  # a view
                    if isinstance(group.keys, torch.Tensor)
                    else self._pick(group.keys, i, torch.arange(self.capacity_blocks, device=self._key_home))
                )
                every = every.to(grouped.device)
                query = grouped[0].to(every.dtype)  # (kv_heads, g, dim)
                # per KV head, its blocks (a strided view: no copy) against its group's query heads
                best = torch.stack(
                    [(every[:, h] @ query[h].T).amax(dim=(1, 2)) for h in range(query.shape[0])], dim=-1
                )  # (blocks, kv_heads)
                return best.float()[ids[0]][None]
            keys = self._pick(group.keys, i, ids.to(self._key_home))  # (batch, n, kv_heads, block, dim)
            products = torch.einsum("bnkjd,bkgd->bnkgj", keys.to(grouped.device, torch.float32), grouped)
            return products.amax(dim=(-1, -2))
        assert group.low is not None and group.high is not None
        bound = torch.einsum("bnkd,bkd->bnk", group.high[i][ids], grouped.clamp(min=0).sum(dim=2))
        return bound + torch.einsum("bnkd,bkd->bnk", group.low[i][ids], grouped.clamp(max=0).sum(dim=2))

    def token_indices(self, chosen: torch.Tensor) -> torch.Tensor:
        """(batch, kv_heads, n) the token index of each recalled column, from `recall`'s block ids
        (-1 under an absent block). For inspection and tests."""
        assert self.block_first is not None
        first = self.block_first.to(chosen.device)[chosen.clamp(min=0)]
        index = first[..., None] + torch.arange(self.block, device=chosen.device)
        index = torch.where(chosen[..., None] >= 0, index, -1)  # (batch, picks, kv_heads, block)
        batch, picks, kv_heads, _ = index.shape
        return index.permute(0, 2, 1, 3).reshape(batch, kv_heads, picks * self.block)

    def device_table(self, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """(batch, blocks) each row's full block ids oldest first, -1 padded, and (batch,) their counts
        (made on the host when a block fills or rows move, not every step)."""
        if self._table is None or self._table[0].device != device:
            full = [[b for b in blocks if self.fill[b] == self.block] for blocks in self.rows]
            width = max(1, max((len(f) for f in full), default=0))
            table = torch.tensor([f + [-1] * (width - len(f)) for f in full], dtype=torch.long)
            count = torch.tensor([len(f) for f in full], dtype=torch.long)
            self._table = (table.to(device), count.to(device))
        return self._table

    # --- accounting ---------------------------------------------------------------------------
    def tokens(self) -> int:
        """Tokens held (every row, each shared block once)."""
        return sum(self.fill[b] for b in self._in_use())

    def bytes_per_block(self) -> int:
        """Bytes one block takes, all layers: keys and values as stored, and the key bounds."""
        return sum(t[:, 0].numel() * t.element_size() for group in self.groups for t in _parts(group))

    def nbytes(self) -> int:
        """Bytes of the blocks in use (what `recall_store` bounds)."""
        return len(self._in_use()) * self.bytes_per_block()

    def allocated_bytes(self) -> int:
        """Bytes allocated (blocks in use and free ones)."""
        return self.capacity_blocks * self.bytes_per_block()

    # --- internals ----------------------------------------------------------------------------
    def _full(self, blocks: list[int]) -> int:
        return len(blocks) - (1 if blocks and self.fill[blocks[-1]] < self.block else 0)

    def _in_use(self) -> set[int]:
        return {b for blocks in self.rows for b in blocks}

    def _release(self, b: int) -> None:
        self.refs[b] -= 1
        if self.refs[b] == 0:
            self.free.append(b)

    @property
    def _storage(self) -> torch.device:
        """Where blocks live: host memory when the model is on a GPU, else the model's device."""
        assert self._device is not None
        return torch.device("cpu") if self._device.type == "cuda" else self._device

    @property
    def _key_home(self) -> torch.device:
        """Where keys live: beside the queries when they are scored (ShadowKV keeps keys on the GPU and
        values in host memory), else with the values."""
        assert self._device is not None
        return self._device if self.score == "keys" else self._storage

    def _quantize(self, x: torch.Tensor) -> Codes:
        assert self.scheme is not None
        return self.scheme.quantize(x, block_size(x.shape[-1], RECALL_GROUP))

    def _pick(
        self, stored: torch.Tensor | Codes, i: int, at: torch.Tensor, heads: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Layer i's blocks `at` (batch, picks, kv_heads), head by head: (batch, picks, kv_heads, block,
        dim); or with `heads` None, blocks `at` (batch, n) whole: (batch, n, kv_heads, block, dim)."""
        where = (at,) if heads is None else (at, heads)
        if isinstance(stored, Codes):
            assert self.scheme is not None and self._dtype is not None
            return self.scheme.dequantize(Codes(*(t[i][where] for t in stored.tensors())), self._dtype)
        return stored[i][where]

    def _allocate(self, keys: torch.Tensor, values: torch.Tensor) -> None:
        """Storage for `capacity_blocks` blocks in every group, at the first write (shapes known then)."""
        if self._device is None:
            self._device, self._dtype = keys.device, keys.dtype
            self._shapes = (keys.shape[2], keys.shape[-1], values.shape[2], values.shape[-1])
        for group in self.groups:
            if group.keys is None:
                self._grow_group(group)
        self._grow_first()

    def _grow_first(self) -> None:
        if self._device is None:
            return
        held = 0 if self.block_first is None else self.block_first.numel()
        if held < self.capacity_blocks:
            grown = torch.zeros(self.capacity_blocks, dtype=torch.long, device=self._device)
            if self.block_first is not None:
                grown[:held] = self.block_first
            self.block_first = grown

    def _grow_group(self, group: RecallGroup) -> None:
        """Storage for `capacity_blocks` blocks in `group`, keeping the blocks it holds."""
        assert self._device is not None and self._dtype is not None and self._shapes is not None
        kh, kd, vh, vd = self._shapes
        layers, n = len(group.members), self.capacity_blocks
        held = (
            0
            if group.keys is None
            else (group.keys.tensors()[0] if isinstance(group.keys, Codes) else group.keys).shape[1]
        )

        def grown(
            old: torch.Tensor | Codes | None, heads: int, dim: int, storage: torch.device
        ) -> torch.Tensor | Codes:
            pin = storage.type == "cpu" and self._device is not None and self._device.type == "cuda"
            shape = (layers, n, heads, self.block, dim)
            if self.scheme is None:
                new: torch.Tensor | Codes = torch.zeros(shape, dtype=self._dtype, device=storage)
            else:
                new = self.scheme.empty(shape, block_size(dim, RECALL_GROUP), storage)
            parts = new.tensors() if isinstance(new, Codes) else [new]
            olds = [] if old is None else (old.tensors() if isinstance(old, Codes) else [old])
            for part, before in zip(parts, olds, strict=False):
                part[:, :held] = before
            if pin:
                parts = [p.pin_memory() for p in parts]
            return Codes(*parts) if isinstance(new, Codes) else parts[0]

        group.keys = grown(group.keys, kh, kd, self._key_home)
        group.values = grown(group.values, vh, vd, self._storage)
        if self.score != "bounds":
            return
        bounds = torch.zeros((2, layers, n, kh, kd), dtype=torch.float32, device=self._device)
        if group.low is not None and group.high is not None:
            bounds[0, :, :held], bounds[1, :, :held] = group.low, group.high
        group.low, group.high = bounds[0], bounds[1]

    def _new_block(self) -> int:
        if not self.free:
            old = self.capacity_blocks
            self.capacity_blocks = max(2 * old, self.picks, 4)
            self.free = list(range(self.capacity_blocks - 1, old - 1, -1))
            self.refs += [0] * (self.capacity_blocks - old)
            self.fill += [0] * (self.capacity_blocks - old)
            for group in self.groups:  # storage grows with the ids (once allocated)
                if group.keys is not None:
                    self._grow_group(group)
            self._grow_first()
        b = self.free.pop()
        self.refs[b], self.fill[b] = 1, 0
        return b

    def _copy_block(self, source: int) -> int:
        b = self._new_block()
        self.refs[source] -= 1
        self.fill[b] = self.fill[source]
        for t in (t for group in self.groups for t in _parts(group)):
            t[:, b] = t[:, source]
        if self.block_first is not None:
            self.block_first[b] = self.block_first[source]
        return b

    def _trim(self, row: int) -> None:
        """Drop the row's oldest blocks beyond its capacity (freed once no row holds them)."""
        if self.max_blocks is None:
            return
        blocks = self.rows[row]
        while len(blocks) > self.max_blocks:
            self._release(blocks.pop(0))
            self._table = None


def _parts(group: RecallGroup) -> list[torch.Tensor]:
    """Every tensor of a group's blocks (keys, values, bounds), in a fixed order."""
    parts: list[torch.Tensor] = []
    for stored in (group.keys, group.values, group.low, group.high):
        if stored is not None:
            parts.extend(stored.tensors() if isinstance(stored, Codes) else [stored])
    return parts
