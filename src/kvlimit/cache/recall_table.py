"""The recall store's block table: which blocks each row holds, on the host.

Contract: blocks are numbered ids into the store's storage. `BlockTable` hands out ids (`reserve`:
places for a row's newly evicted tokens, a new block when the row's last one is full), counts
references (beam reorders share a row's closed blocks; `select_rows` copies an open block that rows
would share, through the store's `copy` callback), frees a block when no row holds it, drops a row's
oldest blocks beyond `max_blocks`, and says what each row can recall (`recallable`: its full blocks).
When it runs out of ids it doubles them and calls the store's `grow` callback, which grows every
group's storage to the new capacity. `device_table` is the full blocks of every row as a device
tensor, rebuilt only when a block fills or rows move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch


class BlockTable:
    """Block ids per row, reference counts and fills (see the module docstring).

    Args:
        block: tokens per block.
        picks: blocks a step recalls at most (the store never holds fewer ids than this).
        max_blocks: most blocks a row keeps (None: no bound; the oldest go first).
        grow: called with the new capacity when the ids double (the storage follows).
        copy: called with (source id, new id) to copy a block's contents.
    """

    def __init__(
        self,
        block: int,
        picks: int,
        max_blocks: int | None,
        grow: Callable[[int], None],
        copy: Callable[[int, int], None],
    ):
        self.block = block
        self.picks = picks
        self.max_blocks = max_blocks
        self._grow = grow
        self._copy = copy
        self.capacity = 0
        self.free: list[int] = []
        self.refs: list[int] = []  # per block id, the rows holding it
        self.fill: list[int] = []  # per block id, the tokens it holds
        self.rows: list[list[int]] = []  # per row, its block ids, oldest first
        #: one past the highest id handed out since `start` (ids go lowest first: scoring reads ids below)
        self.high = 0
        self._device_table: tuple[torch.Tensor, torch.Tensor] | None = None

    def start(self, batch: int) -> None:
        """Empty rows for a batch of `batch` (the ids stay allocated)."""
        self.rows = [[] for _ in range(batch)]
        self.free = list(range(self.capacity - 1, -1, -1))
        self.refs = [0] * self.capacity
        self.fill = [0] * self.capacity
        self.high = 0
        self._device_table = None

    def forget(self) -> None:
        """No ids and no rows (the storage was dropped)."""
        self.capacity = 0
        self.start(0)

    def full_blocks(self, blocks: list[int]) -> int:
        return len(blocks) - (1 if blocks and self.fill[blocks[-1]] < self.block else 0)

    def recallable_blocks(self, row: int) -> int:
        """How many blocks row `row` recalls in the coming step: its full blocks, up to `picks`."""
        return min(self.picks, self.full_blocks(self.rows[row]))

    def recallable(self) -> list[int]:
        """Per row, how many recalled slots hold a token in the coming step (`recallable_blocks` tokens)."""
        return [self.recallable_blocks(row) * self.block for row in range(len(self.rows))]

    def in_use(self) -> set[int]:
        return {b for blocks in self.rows for b in blocks}

    def tokens(self) -> int:
        """Tokens held (every row, each shared block once)."""
        return sum(self.fill[b] for b in self.in_use())

    def release(self, b: int) -> None:
        self.refs[b] -= 1
        if self.refs[b] == 0:
            self.free.append(b)

    def new_block(self) -> int:
        """A free id (the ids, and the storage, double when none is left), held by one row, empty."""
        if not self.free:
            old = self.capacity
            self.capacity = max(2 * old, self.picks, 4)
            self.free = list(range(self.capacity - 1, old - 1, -1))
            self.refs += [0] * (self.capacity - old)
            self.fill += [0] * (self.capacity - old)
            self._grow(self.capacity)
        b = self.free.pop()
        self.refs[b], self.fill[b] = 1, 0
        self.high = max(self.high, b + 1)
        return b

    def copy_block(self, source: int) -> int:
        """A new block with `source`'s contents, held by the row that held `source` (which lets go of it)."""
        b = self.new_block()
        self.refs[source] -= 1
        self.fill[b] = self.fill[source]
        self._copy(source, b)
        return b

    def select_rows(self, index: Sequence[int]) -> None:
        """Rows become rows `index` of before: closed blocks are shared, an open block is copied."""
        old = self.rows
        new = [list(old[i]) for i in index]
        for blocks in new:
            for b in blocks:
                self.refs[b] += 1
        for blocks in old:
            for b in blocks:
                self.release(b)
        for blocks in new:
            last = blocks[-1] if blocks else None
            if last is not None and self.fill[last] < self.block and self.refs[last] > 1:
                blocks[-1] = self.copy_block(last)  # each row appends to an open block of its own
        self.rows = new
        self._device_table = None

    def drop_row(self, row: int) -> None:
        """Row `row` holds no block any more."""
        for b in self.rows[row]:
            self.release(b)
        self.rows[row] = []
        self._device_table = None

    def reserve(self, counts: Sequence[int]) -> tuple[list[int], list[int]]:
        """Places for `counts[r]` new tokens of row r; (block id, offset) per token, rows in order."""
        ids: list[int] = []
        offsets: list[int] = []
        for row, count in enumerate(counts):
            blocks = self.rows[row]
            for _ in range(count):
                if not blocks or self.fill[blocks[-1]] == self.block:
                    blocks.append(self.new_block())
                    self._trim(row)
                b = blocks[-1]
                ids.append(b)
                offsets.append(self.fill[b])
                self.fill[b] += 1
                if self.fill[b] == self.block:
                    self._device_table = None
        return ids, offsets

    def _trim(self, row: int) -> None:
        """Drop the row's oldest blocks beyond `max_blocks` (freed once no row holds them)."""
        if self.max_blocks is None:
            return
        blocks = self.rows[row]
        while len(blocks) > self.max_blocks:
            self.release(blocks.pop(0))
            self._device_table = None

    def device_table(self, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """(batch, blocks) each row's full block ids oldest first, -1 padded, and (batch,) their counts."""
        if self._device_table is None or self._device_table[0].device != device:
            full = [[b for b in blocks if self.fill[b] == self.block] for blocks in self.rows]
            width = max(1, max((len(f) for f in full), default=0))
            table = torch.tensor([f + [-1] * (width - len(f)) for f in full], dtype=torch.long)
            count = torch.tensor([len(f) for f in full], dtype=torch.long)
            self._device_table = (table.to(device), count.to(device))
        return self._device_table
