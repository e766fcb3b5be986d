"""Where the recall store's blocks live: one `RecallGroup` per set of layers of one shape and rotation.

Contract: a group holds its layers' blocks, `(layers, kv_heads, capacity, block, head_dim)` keys and
values (floats, or `kvlimit.cache.quant` codes with a `recall_dtype`), and with "bounds" scoring each
block's per-channel key minimum and maximum `(layers, kv_heads, capacity, head_dim)`. Heads lead the
blocks so that one head's keys are one run of memory: scoring every block of a row is one batched
matmul over the heads, reading the keys once. `Homes` says
where and in what form: keys beside the queries when they are scored exactly, values (and keys scored
by bounds) in host memory, pinned, when the model is on a GPU. A group grows to a capacity keeping the
blocks it holds (`grow`), writes tokens at (block, offset) places (`write`), hands back blocks by id
(`pick`) and copies one block to another (`copy_block`); the block table (`recall_table`) decides ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..positions.rope import RopeSpec
from .quant import Codes, Scheme, block_size

#: Dims per quantization block in a quantized recall store (as the cache's default kv_group).
RECALL_GROUP = 32
#: The `recall_dtype`s that keep floats, and their dtypes.
RECALL_FLOATS = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def recall_float_dtype(recall_dtype: str | None) -> torch.dtype | None:
    """The float dtype a `recall_dtype` of "bfloat16" / "float16" names (None: codes, or the model's)."""
    return RECALL_FLOATS.get(recall_dtype or "")


@dataclass(frozen=True)
class Homes:
    """Where and how a store keeps its blocks (fixed at its first write).

    Attributes:
        device / dtype: the model's.
        shapes: kv_heads and head_dim of keys, then of values.
        keys / values: the devices keys and values live on.
        scheme: the quantized dtype, or None (floats in `floats`).
        floats: the dtype floats are kept in (the model's `dtype`, or a 16-bit `recall_dtype`); blocks
            are scored in it and handed back in `dtype`.
        block: tokens per block.
        bounds: keep each block's key bounds (the "bounds" score).
    """

    device: torch.device
    dtype: torch.dtype
    shapes: tuple[int, int, int, int]
    keys: torch.device
    values: torch.device
    scheme: Scheme | None
    block: int
    bounds: bool
    floats: torch.dtype

    @classmethod
    def of(
        cls, keys: torch.Tensor, values: torch.Tensor, scheme: Scheme | None, block: int, score: str,
        floats: torch.dtype | None = None,
    ) -> Homes:  # fmt: skip
        """The homes of a store whose first evicted keys and values (layers, n, kv_heads, head_dim) are
        these; `floats`: a dtype to keep floats in other than theirs."""
        device = keys.device
        storage = torch.device("cpu") if device.type == "cuda" else device
        return cls(
            floats=floats or keys.dtype,
            device=device,
            dtype=keys.dtype,
            shapes=(keys.shape[2], keys.shape[-1], values.shape[2], values.shape[-1]),
            keys=storage if score == "bounds" else device,
            values=storage,
            scheme=scheme,
            block=block,
            bounds=score == "bounds",
        )

    def quantize(self, x: torch.Tensor) -> Codes:
        assert self.scheme is not None
        return self.scheme.quantize(x, block_size(x.shape[-1], RECALL_GROUP))


@dataclass
class RecallGroup:
    """The blocks of some layers of one shape and rotation.

    Attributes:
        members: the model layers, in the order of the leading dim.
        rope: their rotation (None: the layers take no positions, e.g. a NoPE layer).
        keys / values: (layers, kv_heads, capacity, block, head_dim), floats or `Codes`; None until
            the first write.
        low / high: (layers, kv_heads, capacity, head_dim) float32, each block's key bounds.
    """

    members: list[int]
    rope: RopeSpec | None
    keys: torch.Tensor | Codes | None = None
    values: torch.Tensor | Codes | None = None
    low: torch.Tensor | None = None
    high: torch.Tensor | None = None

    def parts(self) -> list[torch.Tensor]:
        """Every tensor of the group's blocks (keys, values, bounds), in a fixed order."""
        parts: list[torch.Tensor] = []
        for stored in (self.keys, self.values, self.low, self.high):
            if stored is not None:
                parts.extend(stored.tensors() if isinstance(stored, Codes) else [stored])
        return parts

    def drop(self) -> None:
        self.keys = self.values = self.low = self.high = None

    def held(self) -> int:
        """Blocks the storage has room for."""
        if self.keys is None:
            return 0
        return (self.keys.tensors()[0] if isinstance(self.keys, Codes) else self.keys).shape[2]

    def grow(self, capacity: int, homes: Homes) -> None:
        """Storage for `capacity` blocks, keeping the blocks held."""
        held = self.held()
        if self.keys is not None and held >= capacity:
            return
        kh, kd, vh, vd = homes.shapes
        self.keys = _grown(
            self.keys, (len(self.members), kh, capacity, homes.block, kd), homes.keys, homes, held
        )
        self.values = _grown(
            self.values, (len(self.members), vh, capacity, homes.block, vd), homes.values, homes, held
        )
        if not homes.bounds:
            return
        bounds = torch.zeros(
            (2, len(self.members), kh, capacity, kd), dtype=torch.float32, device=homes.device
        )
        if self.low is not None and self.high is not None:
            bounds[0, :, :, :held], bounds[1, :, :, :held] = self.low, self.high
        self.low, self.high = bounds[0], bounds[1]

    def write(
        self,
        ids: Sequence[int],
        offsets: Sequence[int],
        keys: torch.Tensor,
        values: torch.Tensor,
        homes: Homes,
    ) -> None:
        """Tokens at (`ids[i]`, `offsets[i]`): keys (unrotated) and values (layers, n, kv_heads, head_dim);
        a block's key bounds widen with each key (a new block's start empty)."""
        assert self.keys is not None and self.values is not None
        for target, new, home in ((self.keys, keys, homes.keys), (self.values, values, homes.values)):
            at_ids = torch.tensor(list(ids), dtype=torch.long, device=home)
            at_offsets = torch.tensor(list(offsets), dtype=torch.long, device=home)
            new = new.to(home)
            if isinstance(target, Codes):
                for stored, part in zip(target.tensors(), homes.quantize(new).tensors(), strict=True):
                    stored[:, :, at_ids, at_offsets] = part.transpose(1, 2)
            else:
                target[:, :, at_ids, at_offsets] = new.to(target.dtype).transpose(1, 2)
        if self.low is None or self.high is None:
            return  # scored by its keys: no bounds kept
        fresh = [b for b, o in zip(ids, offsets, strict=True) if o == 0]
        if fresh:
            fresh_t = torch.tensor(fresh, dtype=torch.long, device=self.low.device)
            self.low[:, :, fresh_t] = float("inf")
            self.high[:, :, fresh_t] = float("-inf")
        as_float = keys.float().to(self.low.device).transpose(1, 2)  # (layers, kv_heads, n, head_dim)
        index = torch.tensor(list(ids), dtype=torch.long, device=self.low.device)[None, None, :, None]
        self.low.scatter_reduce_(2, index.expand_as(as_float), as_float, "amin")
        self.high.scatter_reduce_(2, index.expand_as(as_float), as_float, "amax")

    def pick(
        self,
        stored: torch.Tensor | Codes,
        i: int,
        at: torch.Tensor,
        homes: Homes,
        heads: torch.Tensor | None = None,
        *,
        as_stored: bool = False,
    ) -> torch.Tensor:
        """Layer i's blocks `at` (batch, kv_heads, picks) head by head, `heads` (1, kv_heads, 1): (batch,
        kv_heads, picks, block, dim); or with `heads` None, blocks `at` (batch, n) whole, heads first:
        (kv_heads, batch, n, block, dim). In the model's dtype, or floats `as_stored` (to score them)."""
        tensors = list(stored.tensors()) if isinstance(stored, Codes) else [stored]
        if heads is None:
            parts = [t[i][:, at] for t in tensors]
        else:  # one index_select of (head, block) rows of the layer's storage (kv_heads x capacity, ...)
            flat = (heads * tensors[0].shape[2] + at).reshape(-1)
            parts = [t[i].flatten(0, 1).index_select(0, flat).view(*at.shape, *t.shape[3:]) for t in tensors]
        if isinstance(stored, Codes):
            assert homes.scheme is not None
            return homes.scheme.dequantize(Codes(*parts), homes.dtype)
        return parts[0] if as_stored else parts[0].to(homes.dtype)

    def copy_block(self, source: int, target: int) -> None:
        for t in self.parts():
            t[:, :, target] = t[:, :, source]


def _grown(
    old: torch.Tensor | Codes | None, shape: tuple[int, ...], home: torch.device, homes: Homes, held: int
) -> torch.Tensor | Codes:
    """New storage of `shape` on `home` holding `old`'s first `held` blocks (pinned host memory for a
    GPU model's blocks kept on the host)."""
    if homes.scheme is None:
        new: torch.Tensor | Codes = torch.zeros(shape, dtype=homes.floats, device=home)
    else:
        new = homes.scheme.empty(shape, block_size(shape[-1], RECALL_GROUP), home)
    parts = new.tensors() if isinstance(new, Codes) else [new]
    olds = [] if old is None else (old.tensors() if isinstance(old, Codes) else [old])
    for part, before in zip(parts, olds, strict=False):
        part[:, :, :held] = before
    if home.type == "cpu" and homes.device.type == "cuda":
        parts = [p.pin_memory() for p in parts]
    return Codes(*parts) if isinstance(new, Codes) else parts[0]
