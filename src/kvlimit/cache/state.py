"""The per-row state of a bounded cache: counters, kept sets, and the bookkeeping of its steps.

Contract: `CacheState` owns what every row carries between steps besides its keys and values (which
the store owns): the row counters (`RowCounters`, host and device), one `KeptSet` per set of layers
that keep the same tokens, the recall tier's per-row counts, the columns seen, and the open step.
Rows are created by the first step (or `open_rows`) and dropped by `reset`. The eviction that every
step shares (`evict`: the policy's lowest scores, handed to the recall tier) is here; the planners
(`decode`, `chunk`), the position keepers and the row moves act on this state through its fields.
`BoundedCache` is this state plus the transformers adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ..policies import AttentionKind, EvictionPolicy
from ..positions import PositionKeeper
from .decode import StaticDecode
from .kept import KeptSet
from .plan import StepPlan, evict
from .recall import RecallStore
from .recall_hook import RecallHook
from .recall_static import StaticRecall
from .rows import RowCounters
from .sliding import SlidingLayers
from .store import KVStore


class CacheState:
    """Per-row state of a bounded cache (see the module docstring). Set up by `BoundedCache`."""

    policy: EvictionPolicy
    keeper: PositionKeeper
    store: KVStore
    slots: int
    n_kept_sets: int
    recall: RecallStore | None
    recall_hook: RecallHook | None
    sliding: SlidingLayers
    layout: Any
    layers: list[Any]
    evicted: int
    _bounded: dict[int, Any]

    def _reset_rows(self) -> None:
        self._rows: RowCounters | None = None
        self.kept_sets: list[KeptSet] = []
        self.columns_seen = 0  # columns (real tokens and padding) of the steps advanced so far
        self.step_open = False
        self._plan: StepPlan | None = None
        self.static_decode: StaticDecode | None = None
        #: the recall tier on the device, from the first static decode step on (`StaticRecall`)
        self.static_recall: StaticRecall | None = None
        #: rows fill slots 0..n-1 until a ring eviction: until then a row's next slot is its count
        self.compact = True
        #: per row, the recalled tokens its queries see in the open step (0 without recall)
        self.recalled: list[int] = []
        self.sliding.reset()
        self.sync_sliding_layers()
        self.keeper.reset()

    def sync_sliding_layers(self) -> None:
        """transformers' list of layers holds the sliding layers `sliding` holds now (dynamic, or rings)."""
        for idx, layer in self.sliding.layers.items():
            self.layers[idx] = layer

    def _init_rows(self, batch: int, device: torch.device) -> None:
        self._rows = RowCounters.zeros(batch, device)
        modes = [m for m in (self.policy.attention_mode("decode"), self.policy.attention_mode("chunk")) if m]
        decode_mode = self.policy.attention_mode("decode")
        wanted = {
            "with_statistic": self.policy.keeps_key_statistic,
            "with_attention": bool(modes),
            "with_count": any(m.kind is AttentionKind.MEAN for m in modes),
            "with_newest": decode_mode is not None and decode_mode.tracks_newest,
        }
        self.kept_sets = [KeptSet.empty(batch, self.slots, device, **wanted) for _ in range(self.n_kept_sets)]
        self.recalled = [0] * batch
        if self.recall is not None:
            self.recall.start(batch)
        self.keeper.start(self)  # type: ignore[arg-type]

    @property
    def recalled_t(self) -> torch.Tensor | None:
        """`recalled` on the device, in a static step with recall (else None)."""
        return None if self.static_recall is None else self.static_recall.recalled_t

    @property
    def started(self) -> bool:
        """The cache has rows (its first step has been planned)."""
        return self._rows is not None

    @property
    def rows(self) -> RowCounters:
        """The per-row counters (kept, seen, shift); they exist from the first step on."""
        if self._rows is None:
            raise RuntimeError("this BoundedCache has no rows yet: its first step has not been planned")
        return self._rows

    @property
    def valid(self) -> torch.Tensor | None:
        """(batch, slots) bool, True where a slot holds a token (every kept set agrees on the counts)."""
        return self.kept_sets[0].valid if self.kept_sets else None

    @property
    def device(self) -> torch.device | None:
        return self.kept_sets[0].valid.device if self.kept_sets else None

    def kept_set_of(self, layer_idx: int | None) -> KeptSet:
        """The kept set of model layer `layer_idx` (None: the first)."""
        if layer_idx is None:
            return self.kept_sets[0]
        if layer_idx not in self._bounded:
            raise ValueError(
                f"layer {layer_idx} is not a bounded layer of this cache; bounded layers: {list(self._bounded)}"
            )
        return self.kept_sets[self._bounded[layer_idx].kept_set]

    def rope_layers(self) -> list[tuple[int, Any]]:
        """The allocated bounded layers whose keys carry RoPE: (model layer index, `RopeSpec`)."""
        rope = self.layout.rope
        return [(i, rope[i]) for i in self._bounded if rope[i] is not None and self.store.has(i)]

    def evict(self, need: Sequence[int]) -> list[torch.Tensor] | None:
        """Evict `need[b]` tokens from each row by the policy (every kept set); see `plan.evict`.
        With recall, the evicted tokens go to the recall store."""
        permutes, evicted = evict(self.kept_sets, self.policy, need, ordered=self.keeper.ordered)
        if self.recall_hook is not None:
            self.recall_hook.capture(self.store, evicted, need)
        self.evicted += sum(need)
        self.compact = self.compact and self.keeper.ordered
        self.rows.set(kept=[k - n for k, n in zip(self.rows.kept, need, strict=True)])
        return permutes

    def open_recall(self) -> int:
        """After a step's evictions: set each row's recalled tokens (`recalled`); the recall columns the
        step's keys get (0 without recall or when no row recalls)."""
        if self.recall_hook is None:
            return 0
        self.recalled, columns = self.recall_hook.recallable()
        return columns

    def state_tensors(self) -> list[torch.Tensor]:
        """Every tensor a static decode step reads or writes in place: its buffers, the kept sets, the
        row counters and the store (their addresses stay fixed while the number of rows does)."""
        tensors = [t for kept in self.kept_sets for t in kept.tensors()]
        if self._rows is not None:
            tensors += self._rows.tensors()
        if self.static_decode is not None:
            tensors += self.static_decode.tensors()
        return tensors + self.sliding.tensors() + [t for t, _ in self.store.row_tensors()]
