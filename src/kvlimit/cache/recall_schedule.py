"""When a row of the recall tier chooses its blocks afresh: `recall_every`, on the host.

Contract: `ChoiceSchedule(every)` keeps, per row, the decode steps since the row last chose its blocks
and what the row could recall then (its recallable blocks and its oldest full block). `decide(held)`
is called once per decode step that recalls, with what each row can recall now, and says which rows
choose this step: a row chooses when it has not chosen since its last prompt chunk or load (`renew`),
when `every` decode steps have passed since its last choice, or when what it can recall has changed
(a block filled while it held fewer than it recalls, or its oldest block left a bounded store): so a
row that does not choose attends exactly the blocks it chose, all still held. With `every` = 1 every
row chooses every step.

The schedule is a row's own (counted from its own prompt, whatever its batch mates), so a row's
tokens do not depend on its batch; both tiers keep one (`RecallStore` with block ids, `StaticRecall`
with ring slots, the same events by arithmetic), and make the same decisions.
"""

from __future__ import annotations

from collections.abc import Sequence

#: What a row can recall: (its recallable blocks, an id of its oldest full block, -1 with none).
Held = tuple[int, int]


class ChoiceSchedule:
    """Per row, decode steps since its last choice and what it held then (see the module docstring)."""

    def __init__(self, every: int):
        self.every = every
        #: per row, decode steps since its last choice (None: it chooses at its next decode step)
        self.since: list[int | None] = []
        self.held: list[Held] = []

    def start(self, batch: int) -> None:
        """`batch` rows, none of which has chosen."""
        self.since = [None] * batch
        self.held = [(0, -1)] * batch

    def renew(self, row: int | None = None) -> None:
        """Row `row` (None: every row) chooses at its next decode step (a prompt chunk, a loaded row)."""
        if row is None:
            self.since = [None] * len(self.since)
        elif row < len(self.since):
            self.since[row] = None

    def carry(self, row: int, batch: int, since: int | None, held: Held) -> None:
        """Row `row` (of `batch`) takes a loaded row's place in its own schedule: `since` as counted where
        it was (None: it chooses at its next step), holding `held` (in this store's terms)."""
        if len(self.since) != batch:
            self.start(batch)
        self.since[row] = since
        self.held[row] = held

    def select_rows(self, index: Sequence[int]) -> None:
        """Rows become rows `index` of before (beam reorders)."""
        self.since = [self.since[i] for i in index]
        self.held = [self.held[i] for i in index]

    def decide(self, held: Sequence[Held]) -> list[bool]:
        """A decode step in which row b can recall `held[b]`: which rows choose (and the step counted)."""
        if len(self.since) != len(held):
            self.start(len(held))
        chosen = []
        for b, now in enumerate(held):
            since = self.since[b]
            choose = since is None or since >= self.every or now != self.held[b]
            self.since[b] = 1 if choose else since + 1  # type: ignore[operator]
            self.held[b] = now
            chosen.append(choose)
        return chosen
