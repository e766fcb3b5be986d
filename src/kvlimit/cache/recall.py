"""The recall tier: what a bounded cache evicts is kept in blocks, and the best blocks come back.

Contract
--------
`RecallStore` keeps, per row, the keys and values the cache evicts, in blocks of `block` tokens
(never padding), for every bounded layer, in the cache's dtype, in 16-bit floats (`recall_dtype`
"bfloat16" / "float16": half a float32 model's bytes, scored in that dtype) or quantized (`recall_dtype`
"int8" / "int4", `kvlimit.cache.quant`). Under a positional policy every layer evicts the same tokens, so one
block table (on the host) serves every layer; the keys and values live per group of layers of one
shape and rotation (the store's stacks), `(layers, kv_heads, blocks, block, head_dim)`.

Keys are kept *unrotated* (a RoPE key evicted at position p is rotated by -p when it arrives, so a
block can be placed at any position later with one rotation), except under "distance", where each is
kept rotated at its token index, as the full cache held it; `recall` hands back unrotated keys either
way, or, given the positions the cache reserves (`base`), keys rotated at them (under "distance" one
rotation per block, from its tokens' indices to their positions: a block's tokens are consecutive).

How blocks are scored (`score`):
- "distance" (default): a block scores the largest product of any of its keys with any query head of
  the KV head's group, as the full cache would compute it: the query rotated at its token index against
  keys rotated at theirs (RoPE), so a head that attends by recency picks the blocks just evicted and a
  head that looks for content picks by content. The keys live beside the queries (on the model's
  device; ShadowKV likewise keeps keys on the GPU and values in host memory); only the chosen values
  travel.
- "keys": the same product, every block judged at one distance (the query and the keys unrotated, as
  InfLLM judges its blocks): position-blind.
- "bounds": Quest's bound (Tang et al. 2024): beside each block its keys' per-channel minimum and
  maximum, from which `q . k <= sum_d max(q_d lo_d, q_d hi_d)` bounds every key of the block (for the
  group's summed query). Only the bounds are read to choose; keys and values stay in host memory
  (pinned) when the model is on a GPU, and only the chosen blocks travel, as in InfLLM.
Measured on SmolLM2-135M (README, "Does recall generalize?"): with blocks of 4 tokens and "distance",
the tokens a step attends hold 0.94-0.96 of the attention the best set of as many tokens holds, on a
text recall was tuned on and one it never saw, at a quarter of the context; "keys" with blocks of 16
(the first default) 0.82 and 0.91. The bound is too loose to find a five-digit key (0.3 and 0.5 of the
needles at R = 64 and 128, limit 256, where the exact score finds all but one).

`recall(layer, query, query_index, base=, shift=, newest=)` scores a row's full blocks against a query,
takes the best `slots // block` blocks per row and KV head (per head: heads of one layer look for
different things; measured better than one choice per layer, README), and returns them in their
original order, rotated to where the step attends them (`place`, `block_positions`: each token at its
own distance from the query, as the full cache holds it, at most `max_distance`; or "packed" at the
positions the cache reserves between the sinks and the recent window, from `base`), or unrotated. Which blocks a row holds is that row's own: rows never share an open block, beam reorders
move references to closed blocks (shared, counted) and copy an open one, and the oldest blocks of a
row go first once it holds `capacity` tokens.

Choosing every N steps (`every`, `recall_every`): scoring reads every stored key of every layer in
every step, the recall step's largest cost where memory is slow. With `every` > 1 a decode step chooses
a row's blocks afresh only when its schedule says so (`recall_schedule.ChoiceSchedule`: `every` steps
since its last choice, its first decode step after a prompt chunk, or a change in what it can recall);
between, the row attends the blocks it chose last (kept per layer, `_last`), turned to the step's
positions, and a step in which no row chooses scores nothing. Prompt chunks always choose.

The store orchestrates two parts: `recall_table.BlockTable` (which blocks each row holds, on the host:
ids, reference counts, fills, trimming) and `recall_storage.RecallGroup` (where a group's blocks live,
their growth, writes and picks, by the store's `Homes`).

Deviations from the papers: InfLLM scores blocks of 128 tokens by a few representative keys, every
block at one distance, and keeps a GPU cache of blocks; Quest scores pages of 16 tokens of the full
cache by its bound. Here evicted blocks of 4 tokens are scored by all their keys at their distances
(or by Quest's bound); a prompt chunk scores by the mean of its queries, at the mean of their token
indices (InfLLM sums the chunk's dot products). One choice then serves all of a chunk's queries, and a
question at a prompt's end is a few of them: `kvlimit.forward.prefill` feeds a prompt's last
`recall_queries` tokens one per forward, so that each chooses by its own query (README, "A prompt's
last queries").
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F

from ..positions.rope import RopeSpec
from .quant import scheme
from .recall_schedule import ChoiceSchedule
from .recall_storage import RECALL_GROUP, Homes, RecallGroup, recall_float_dtype
from .recall_table import BlockTable

__all__ = ["BLOCK", "RECALL_GROUP", "RecallGroup", "RecallStore", "best_columns", "block_for"]

#: Tokens per block, unless the recalled slots are fewer or not a multiple (see `block_for`). Measured
#: with attention recall (README, "Does recall generalize?"): blocks of 4 hold more of the full cache's
#: attention than blocks of 8 or 16 in the same slots, on both texts, at 1/4 and 1/8 of the context.
BLOCK = 4


def block_for(slots: int) -> int:
    """The block size for `slots` recalled slots: the largest of `BLOCK`, 2, 1 that divides it."""
    return next(b for b in (BLOCK, 2, 1) if slots % b == 0)


def half_order(scores: torch.Tensor) -> torch.Tensor:
    """Long integers in the value order of float16 `scores`: the bits, negative scores' magnitudes
    flipped (+0 and -0 equal)."""
    bits = scores.view(torch.int16).int()
    return torch.where(bits < 0, -(bits & 0x7FFF), bits).long()


def best_columns(scores: torch.Tensor, picks: int) -> torch.Tensor:
    """The columns of the `picks` best `scores` (..., n) float16 along the last dim, ties to the lower
    column, in column order: the first `picks` of a stable descending sort, found by one `topk`.

    Each score becomes a distinct integer key: its float16 bits in value order (negative scores'
    magnitudes flipped; +0 and -0 equal) times n, plus n - 1 - column, so that no two keys tie and
    `topk` (which need not be stable) picks what the stable sort puts first, on any device.
    """
    n = scores.shape[-1]
    keys = half_order(scores) * n + torch.arange(n - 1, -1, -1, device=scores.device)
    return keys.topk(picks, dim=-1, sorted=False).indices.sort(dim=-1).values


#: Where recalled tokens are attended (`recall_positions`): "distance", each at its own distance from
#: the query (as the full cache holds it; at most the model's trained context), or "packed", the blocks
#: side by side in time order between the sinks and the recent window.
RECALL_PLACES = ("distance", "packed")


def block_positions(
    place: str,
    first: torch.Tensor,
    base: torch.Tensor,
    shift: torch.Tensor,
    newest: torch.Tensor,
    block: int,
    max_distance: int | None,
) -> torch.Tensor:
    """(batch, kv_heads, picks) the position each recalled block's first token takes (its others follow
    it): blocks `first` (batch, kv_heads, picks) by their first tokens' indices, in time order.

    "packed": block k of row b at `base[b] + k * block` (the recall columns' own positions). "distance":
    at its token index less the row's `shift` (batch,) (token index minus position: the recent window's
    own offset), so that the query sees it at the distance the full cache does, but no farther than
    `max_distance` from the row's `newest` (batch,) query position (None: no bound).
    """
    if place == "packed":
        column = torch.arange(first.shape[2], device=first.device)[None, None, :] * block
        return base.to(first.device)[:, None, None] + column
    at = first - shift.to(first.device)[:, None, None]
    if max_distance is None:
        return at
    return torch.maximum(at, (newest.to(first.device) - max_distance)[:, None, None])


class RecallStore:
    """Evicted keys and values in blocks, per row (see the module docstring).

    Args:
        groups: per group of layers, (model layer indices, their `RopeSpec` or None).
        slots: recalled slots per row (each query attends at most this many recalled tokens).
        capacity: most tokens a row keeps (None: no bound; the oldest blocks go first).
        recall_dtype: "int8", "int4", "bfloat16", "float16" or None (the model's dtype).
        per_head: choose blocks per KV head (True) or one choice per layer for all heads.
        block: tokens per block (default `block_for(slots)`).
        score: "distance" (a block scores its best key's product with the queries, each key turned by
            its distance to the query as the full cache sees it), "keys" (the same at one distance for
            every block) or "bounds" (Quest's bound from each block's per-channel key minimum and maximum).
        every: decode steps between a row's block choices (see "Choosing every N steps" above).
        place: where recalled tokens are attended, "packed" or "distance" (`block_positions`; the
            config's `recall_positions` "distance" (the default) and "full" both place recalled tokens
            by "distance"; "full" also moves the sinks, which the position keeper owns).
        max_distance: under "distance", the farthest a recalled token is placed from the query (the
            model's trained context; None: no bound).
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
        score: str = "distance",
        every: int = 1,
        place: str = "packed",
        max_distance: int | None = None,
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
        #: floats kept in a 16-bit `recall_dtype` (None: codes, or the model's dtype)
        self.floats = recall_float_dtype(recall_dtype)
        self.scheme = None if recall_dtype is None or self.floats is not None else scheme(recall_dtype)
        self.per_head = per_head
        if score not in ("keys", "bounds", "distance"):
            raise ValueError(f"score={score!r} is not one of 'keys', 'bounds', 'distance'")
        self.score = score
        if place not in RECALL_PLACES:
            raise ValueError(f"place={place!r} is not one of {', '.join(map(repr, RECALL_PLACES))}")
        self.place, self.max_distance = place, max_distance
        #: which rows choose in a decode step (`recall_every`); the open step's decision, and per layer
        #: the block ids each row chose last (batch, kv_heads, picks), kept when `every` > 1
        self.schedule = ChoiceSchedule(every)
        self._choosing: torch.Tensor | None = None
        self._deciding = "all"
        self._last: dict[int, torch.Tensor] = {}
        self.table = BlockTable(self.block, self.picks, self.max_blocks, self._grow, self._copy_block)
        self.stored_total = 0  # tokens ever stored
        #: (capacity,) per block id, the token index of its first token (on the model's device)
        self.block_first: torch.Tensor | None = None
        #: where and how blocks are kept, fixed at the first write (or taken from a source row's store)
        self.homes: Homes | None = None
        self._step_memo: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None
        self._query_memo: dict[int, tuple[torch.Tensor, int, torch.Tensor, torch.Tensor]] = {}

    def serves(self, layer: int) -> bool:
        return layer in self._where

    @property
    def rows(self) -> list[list[int]]:
        """Per row, its block ids, oldest first."""
        return self.table.rows

    @property
    def fill(self) -> list[int]:
        """Per block id, the tokens it holds."""
        return self.table.fill

    @property
    def refs(self) -> list[int]:
        """Per block id, the rows holding it."""
        return self.table.refs

    @property
    def capacity_blocks(self) -> int:
        return self.table.capacity

    # --- rows ---------------------------------------------------------------------------------
    def start(self, batch: int) -> None:
        """Empty rows for a batch of `batch` (the blocks' storage stays allocated)."""
        self.table.start(batch)
        self.schedule.start(batch)
        self._last.clear()

    def reset(self) -> None:
        """Forget every row and drop the storage."""
        for group in self.groups:
            group.drop()
        self.block_first = None
        self.table.forget()
        self.schedule.start(0)
        self._last.clear()

    def recallable(self) -> list[int]:
        """Per row, how many recalled slots hold a token in the coming step: its full blocks, up to `slots`."""
        return self.table.recallable()

    def select_rows(self, index: Sequence[int]) -> None:
        """Rows become rows `index` of before: closed blocks are shared, an open block is copied."""
        self.table.select_rows(index)
        self.schedule.select_rows(index)
        for layer, chosen in self._last.items():
            self._last[layer] = chosen[torch.tensor(list(index), dtype=torch.long, device=chosen.device)]

    def load_row(self, row: int, source: RecallStore, source_row: int) -> None:
        """Row `row` drops its blocks and takes copies of the blocks of `source`'s row `source_row` (a
        store of the same layout: continuous batching, a prompt prefilled alone joining a batch), and
        its place in the choice schedule with the blocks it chose last."""
        self.table.drop_row(row)
        copied: dict[int, int] = {}
        if source.homes is not None:
            self.homes = self.homes or source.homes
            self._grow(self.capacity_blocks)  # storage for the groups the store has not written yet (once)
            for source_block in source.rows[source_row]:
                b = self.table.new_block()  # grows every group's storage with the ids
                copied[source_block] = b
                self.fill[b] = source.fill[source_block]
                for group, theirs in zip(self.groups, source.groups, strict=True):
                    pairs = zip(group.parts(), theirs.parts(), strict=True)
                    for target, copied_part in pairs:
                        target[:, :, b] = copied_part[:, :, source_block].to(target.device)
                assert self.block_first is not None and source.block_first is not None
                self.block_first[b] = source.block_first[source_block].to(self.block_first.device)
                self.rows[row].append(b)
                self.stored_total += source.fill[source_block]
        since = source.schedule.since[source_row] if source_row < len(source.schedule.since) else None
        self.schedule.carry(row, len(self.rows), since, self.held(row))
        if since is not None:  # the blocks it chose last, by their new ids
            for layer, chosen in source._last.items():
                ids = [[copied.get(b, -1) for b in head] for head in chosen[source_row].tolist()]
                last = self._last.get(layer)
                if last is None or last.shape[0] != len(self.rows):
                    last = self._last[layer] = torch.full((len(self.rows), *chosen.shape[1:]), -1,
                                                          dtype=torch.long, device=chosen.device)  # fmt: skip
                last[row] = torch.tensor(ids, dtype=torch.long)

    def held(self, row: int) -> tuple[int, int]:
        """What row `row` can recall (`ChoiceSchedule`): its recallable blocks, and its oldest block's id
        (-1 with none)."""
        recallable = self.table.recallable_blocks(row)
        return recallable, self.rows[row][0] if recallable else -1

    # --- capture ------------------------------------------------------------------------------
    def capture(
        self, counts: Sequence[int], token_index: torch.Tensor, positions: torch.Tensor,
        taken: Sequence[tuple[list[int], torch.Tensor, torch.Tensor]],
    ) -> None:  # fmt: skip
        """Store `counts[r]` newly evicted tokens of row r (rows in order, each row's in time order):
        `token_index` and `positions` (n,) long, and per stack of the cache's store (members, keys,
        values) with keys and values (layers, n, kv_heads, head_dim), keys rotated at `positions`."""
        ids, offsets = self.table.reserve(counts)
        self.stored_total += sum(counts)
        for members, keys, values in taken:
            if self.homes is None:
                self.homes = Homes.of(keys, values, self.scheme, self.block, self.score, self.floats)
                self._grow(self.capacity_blocks)
            group = self._where[members[0]][0]
            if group.rope is not None:  # unrotated, or (scoring by distance) rotated at the token's index
                target = token_index if self._at_index(group) else torch.zeros_like(positions)
                keys = group.rope.rotate(keys, (target - positions)[None, :, None])
            group.write(ids, offsets, keys, values, self.homes)
        fresh = [i for i, o in enumerate(offsets) if o == 0]
        if fresh and self.block_first is not None:
            at = torch.tensor(fresh, dtype=torch.long, device=token_index.device)
            block = torch.tensor([ids[i] for i in fresh], dtype=torch.long, device=self.block_first.device)
            self.block_first[block] = token_index[at].to(self.block_first.device)

    # --- recall -------------------------------------------------------------------------------
    def recall(
        self,
        layer: int,
        query: torch.Tensor,
        query_index: torch.Tensor | None = None,
        *,
        base: torch.Tensor | None = None,
        shift: torch.Tensor | None = None,
        newest: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The best blocks of every row for `query` (batch, heads, head_dim), unrotated, the query of the
        token `query_index` (batch,) of each row (the "distance" score reads it).

        Returns keys and values (batch, kv_heads, n, head_dim) with n = blocks taken x block (at most
        `slots`), in their original order, and the block ids taken (batch, picks, kv_heads) (-1 where a
        row had fewer blocks: its columns hold another block's tokens and must be masked, as
        `recallable()` says). Keys come back unrotated, or with `base` (batch,) rotated to the positions
        the attention gives them (`positions`: the recall columns' own, from `base`, or each block's
        own distance, from the rows' `shift` and `newest` query positions (batch,)), one rotation per
        block when the store keeps keys at their token indices.
        """
        group, i = self._where[layer]
        homes = self.homes
        assert group.keys is not None and group.values is not None and homes is not None
        batch, _, dim = query.shape
        kv_heads = homes.shapes[0]
        if self._deciding == "none":  # no row chooses this step: each attends what it chose last
            chosen = self._last[layer]
        else:
            chosen = self._choose(group, i, query, query_index)
            if self._deciding != "all":  # kept for the steps that follow (`every` > 1)
                chosen = F.pad(chosen, (0, self.picks - chosen.shape[2]), value=-1)
                if self._choosing is not None:
                    chosen = torch.where(self._choosing[:, None, None], chosen, self._last[layer])
                self._last[layer] = chosen
        picks = chosen.shape[2]
        heads_index = torch.arange(kv_heads, device=chosen.device)[None, :, None]
        at = chosen.clamp(min=0)
        keys = group.pick(group.keys, i, at.to(homes.keys), homes, heads_index.to(homes.keys))
        values = group.pick(group.values, i, at.to(homes.values), homes, heads_index.to(homes.values))
        first = self.first_indices(at)
        placed = None if base is None else self.positions(first, base, shift, newest)
        keys = self._turned(group, keys, first, placed).reshape(batch, kv_heads, picks * self.block, dim)
        values = values.reshape(batch, kv_heads, picks * self.block, -1)
        return (
            keys.to(query.device, non_blocking=True),
            values.to(query.device, non_blocking=True),
            chosen.transpose(1, 2),
        )

    def begin_step(self, decode: bool, device: torch.device) -> None:
        """A step that recalls opens: a prompt chunk (every row chooses, and chooses again at its next
        decode step) or a decode step (the rows `schedule` says choose; the others attend what they chose
        last). With `every` = 1 every row chooses every step and nothing is kept."""
        self._choosing = None
        if self.schedule.every == 1:
            self._deciding = "all"
            return
        if not decode:
            self.schedule.renew()
            self._deciding = "all"
            return
        choosing = self.schedule.decide([self.held(row) for row in range(len(self.rows))])
        if all(choosing):
            self._deciding = "kept"
        elif not any(choosing):
            self._deciding = "none"
        else:
            self._deciding = "some"
            self._choosing = torch.tensor(choosing, device=device)

    def _choose(
        self, group: RecallGroup, i: int, query: torch.Tensor, query_index: torch.Tensor | None
    ) -> torch.Tensor:
        """(batch, kv_heads, picks) the block ids of each row's best full blocks for `query` (batch, heads,
        head_dim), oldest first, -1 where a row has fewer (picks: at most `self.picks`)."""
        table, ids, absent = self._step_table(query.device)
        batch, heads, dim = query.shape
        assert self.homes is not None
        kv_heads = self.homes.shapes[0]
        grouped = query.float().view(batch, kv_heads, heads // kv_heads, dim)
        bound = self._block_scores(group, i, ids, grouped, query_index)  # (batch, kv_heads, blocks)
        if not self.per_head:
            bound = bound.sum(dim=1, keepdim=True).expand(-1, kv_heads, -1)
        # bounds rounded to float16 and ties to the oldest block (`best_columns`): a row's choice does
        # not move with the float noise between a row alone and in a batch
        bound = bound.clamp(-6e4, 6e4).half().masked_fill(absent, float("-inf"))
        picks = min(self.picks, table.shape[1])
        # present blocks come first in the table and score above absent ones: the chosen columns in
        # order put a row's blocks in time order, absent ones last
        columns = best_columns(bound, picks)  # (batch, kv_heads, picks)
        return table[:, None, :].expand(-1, kv_heads, -1).gather(2, columns)

    def _step_table(self, device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The block table (batch, blocks) (-1 padded), its ids clamped to 0, and (batch, 1, blocks)
        where a row has no block: made once per table (a step's layers share it)."""
        table, count = self.table.device_table(device)
        if self._step_memo is None or self._step_memo[0] is not table:
            columns = torch.arange(table.shape[1], device=device)
            absent = (columns[None, :] >= count[:, None])[:, None, :]
            self._step_memo = (table, table.clamp(min=0), absent)
        return self._step_memo

    def first_indices(self, at: torch.Tensor) -> torch.Tensor:
        """The token index of the first token of each block `at` (any shape of block ids >= 0)."""
        assert self.block_first is not None  # made with the homes, at the first write
        return self.block_first.to(at.device)[at]

    def positions(
        self,
        first: torch.Tensor,
        base: torch.Tensor,
        shift: torch.Tensor | None = None,
        newest: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """(batch, kv_heads, picks) the position in the step's attention of the first token of each block
        whose first token index is `first` (batch, kv_heads, picks) (`block_positions`: the store's
        `place`)."""
        if self.place == "distance" and (shift is None or newest is None):
            raise ValueError(
                "recall_positions='distance' places blocks by the rows' shift: pass shift and newest"
            )
        zeros = torch.zeros_like(base)
        return block_positions(self.place, first, base, zeros if shift is None else shift,
                               zeros if newest is None else newest, self.block, self.max_distance)  # fmt: skip

    def _turned(
        self, group: RecallGroup, keys: torch.Tensor, first: torch.Tensor, placed: torch.Tensor | None
    ) -> torch.Tensor:
        """`keys` (batch, kv_heads, picks, block, dim) of the blocks whose first token indices are
        `first` (batch, kv_heads, picks), as stored, turned unrotated (`placed` None) or each block's
        tokens to `placed` (batch, kv_heads, picks) and the positions after it (see `recall`)."""
        if group.rope is None:
            return keys
        if self._at_index(group):
            if placed is None:  # back to 0: each token by its own index
                delta = -(first[..., None] + torch.arange(self.block, device=first.device))
            else:  # a block's tokens are consecutive, as are their positions: one distance per block
                delta = (placed.to(first.device) - first)[..., None]
        elif placed is None:
            return keys
        else:
            delta = placed.to(first.device)[..., None] + torch.arange(self.block, device=first.device)
        cos, sin = group.rope.cos_sin(delta, keys.device)
        return group.rope.apply(keys, cos, sin)

    def _block_scores(
        self,
        group: RecallGroup,
        i: int,
        ids: torch.Tensor,
        grouped: torch.Tensor,
        query_index: torch.Tensor | None,
    ) -> torch.Tensor:
        """(batch, kv_heads, blocks) each block's score for the queries `grouped` (batch, kv_heads, g, dim):
        "keys", the largest product of any of its keys with any query head of the KV head's group;
        "bounds", Quest's bound `sum_d max(q_d lo_d, q_d hi_d) = hi . q+ + lo . q-` of the group's
        summed query."""
        if self._at_index(group):  # the query at its own index against keys at theirs: the full cache's
            assert group.rope is not None
            if query_index is None:
                raise ValueError(
                    "recall_score='distance' scores at the query's token index: pass query_index"
                )
            cos, sin = self._query_turn(group.rope, query_index, grouped.device)  # (batch, rotary_dim)
            grouped = group.rope.apply(grouped, cos[:, None, None, :], sin[:, None, None, :])
        if self.score in ("keys", "distance"):
            homes = self.homes
            assert group.keys is not None and homes is not None
            # one row: score every block handed out where it lies (no gather), then pick
            if ids.shape[0] == 1:
                handed = self.table.high
                every = (
                    group.keys[i, :, :handed]  # a view, (kv_heads, blocks, block, dim)
                    if isinstance(group.keys, torch.Tensor)
                    else group.pick(group.keys, i, torch.arange(handed, device=homes.keys)[None], homes)[:, 0]
                )
                kv_heads, blocks, _, dim = every.shape
                # head by head, every key of the head against its group's queries: one batched matmul
                products = torch.bmm(
                    every.to(grouped.device).reshape(kv_heads, -1, dim),
                    grouped[0].to(every.dtype).transpose(1, 2),
                )
                best = products.view(kv_heads, blocks, -1).amax(dim=-1)  # (kv_heads, blocks)
                return best.float()[:, ids[0]][None]
            # (kv_heads, batch, n, block, dim), scored in the dtype they are kept in, as one row's are
            keys = group.pick(group.keys, i, ids.to(homes.keys), homes, as_stored=True)
            products = torch.einsum("kbnjd,bkgd->bkngj", keys.to(grouped.device), grouped.to(keys.dtype))
            return products.amax(dim=(-1, -2)).float()
        assert group.low is not None and group.high is not None
        upper, lower = group.high[i][:, ids], group.low[i][:, ids]  # (kv_heads, batch, n, head_dim)
        bound = torch.einsum("kbnd,bkd->bkn", upper, grouped.clamp(min=0).sum(dim=2))
        return bound + torch.einsum("kbnd,bkd->bkn", lower, grouped.clamp(max=0).sum(dim=2))

    def _query_turn(
        self, rope: RopeSpec, query_index: torch.Tensor, device: torch.device
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin (batch, rotary_dim) of the queries' token indices, made once for the layers of a
        step that pass the same `query_index` tensor (unchanged since: its version is checked)."""
        memo = self._query_memo.get(id(rope))
        if memo is None or memo[0] is not query_index or memo[1] != query_index._version:
            memo = (query_index, query_index._version, *rope.cos_sin(query_index, device))
            self._query_memo[id(rope)] = memo
        return memo[2], memo[3]

    def keeps_index(self, layer: int) -> bool:
        """Whether `layer`'s keys are kept rotated at their token indices (scoring by distance, a layer
        with RoPE): `recall` with `base` turns them to their positions itself."""
        return self._at_index(self._where[layer][0])

    def _at_index(self, group: RecallGroup) -> bool:
        """Whether `group` keeps its keys rotated at their token indices (scoring by distance) rather
        than unrotated."""
        return self.score == "distance" and group.rope is not None

    def token_indices(self, chosen: torch.Tensor) -> torch.Tensor:
        """(batch, kv_heads, n) the token index of each recalled column, from `recall`'s block ids
        (-1 under an absent block). For inspection and tests."""
        first = self.first_indices(chosen.clamp(min=0))
        index = first[..., None] + torch.arange(self.block, device=chosen.device)
        index = torch.where(chosen[..., None] >= 0, index, -1)  # (batch, picks, kv_heads, block)
        batch, picks, kv_heads, _ = index.shape
        return index.permute(0, 2, 1, 3).reshape(batch, kv_heads, picks * self.block)

    # --- accounting ---------------------------------------------------------------------------
    def tokens(self) -> int:
        """Tokens held (every row, each shared block once)."""
        return self.table.tokens()

    def bytes_per_block(self) -> int:
        """Bytes one block takes, all layers: keys and values as stored, and the key bounds."""
        return sum(t[:, :, 0].numel() * t.element_size() for group in self.groups for t in group.parts())

    def nbytes(self) -> int:
        """Bytes of the blocks in use (what `recall_store` bounds)."""
        return len(self.table.in_use()) * self.bytes_per_block()

    def allocated_bytes(self) -> int:
        """Bytes allocated (blocks in use and free ones)."""
        return self.capacity_blocks * self.bytes_per_block()

    # --- internals ----------------------------------------------------------------------------
    def _grow(self, capacity: int) -> None:
        """Every group's storage (and the blocks' first indices) for `capacity` blocks, once the store
        knows its homes; the blocks held stay."""
        if self.homes is None:
            return
        for group in self.groups:
            group.grow(capacity, self.homes)
        held = 0 if self.block_first is None else self.block_first.numel()
        if held < capacity:
            grown = torch.zeros(capacity, dtype=torch.long, device=self.homes.device)
            if self.block_first is not None:
                grown[:held] = self.block_first
            self.block_first = grown

    def _copy_block(self, source: int, b: int) -> None:
        for group in self.groups:
            group.copy_block(source, b)
        if self.block_first is not None:
            self.block_first[b] = self.block_first[source]
