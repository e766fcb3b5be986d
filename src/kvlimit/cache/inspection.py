"""What a bounded cache holds, read for people and tests (never on the decoding path).

With a per-layer policy each bounded layer keeps its own tokens: pass `layer` (a model layer index)
to see one; the default is the first bounded layer (every layer, for positional policies).
"""

from __future__ import annotations

from .state import CacheState


class CacheInspection(CacheState):
    """Readers of a bounded cache's state (`BoundedCache` is one)."""

    def stored_tokens(self) -> list[int]:
        """How many tokens each row holds now."""
        return list(self.rows.kept) if self.started else []

    def kept_token_ids(self, row: int, layer: int | None = None) -> list[int]:
        """The token ids row `row` holds (in `layer`), in temporal order."""
        kept = self.kept_set_of(layer)
        valid = kept.valid[row]
        order = kept.token_index[row][valid].argsort()
        return kept.token_ids[row][valid][order].tolist()

    def kept_positions(self, row: int, layer: int | None = None) -> list[int]:
        """The position each key of row `row` (in `layer`) is encoded at (RoPE angle or table row), in order."""
        kept = self.kept_set_of(layer)
        valid = kept.valid[row]
        order = kept.token_index[row][valid].argsort()
        return kept.positions[row][valid][order].tolist()

    def kept_token_indices(self, row: int, layer: int | None = None) -> list[int]:
        """Indices (in the row's sequence of real tokens) of the tokens row `row` holds (in `layer`), in order."""
        kept = self.kept_set_of(layer)
        return sorted(kept.token_index[row][kept.valid[row]].tolist())

    def nbytes(self) -> int:
        """Bytes held by keys and values (all layers, all rows), allocated storage included.

        A quantized store counts its codes, scales and float sinks: what it really holds. The store's
        pristine copies of the sinks are not keys the attention reads (`store.overhead_bytes()`).
        """
        return int(self.store.nbytes() + self.sliding.nbytes())

    def recall_nbytes(self) -> int:
        """Bytes of the recall store's blocks in use (0 without recall): kept apart from `nbytes()`."""
        return 0 if self.recall is None else int(self.recall.nbytes())
