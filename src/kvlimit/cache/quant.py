"""Quantized keys and values: each token's vectors in blocks of `block` dims, one scale per block.

Contract: `scheme(name)` gives the `Scheme` of "int8", "int4" or "fp8"; `kv_schemes(kv_dtype)` the
schemes of a cache's keys and of its values (`KV_DTYPES`: the three, and "k8v4", int8 keys with int4
values). `Scheme.quantize(x, block)` turns float vectors `x (..., dim)` into `Codes` (the codes and,
per block of `block` consecutive dims, a float16 scale, and for int4 a float16 minimum);
`Scheme.dequantize(codes, dtype)` returns `(..., dim)` floats. Every token is quantized on its own, so a slot can be overwritten (an eviction) or a
row moved (beams) without touching another token; the error per element is at most half a step:
int8 `scale / 2` with `scale >= absmax / 127` (symmetric), int4 `step / 2` with `step >= (max -
min) / 15` (asymmetric, 16 levels), fp8 the e4m3 rounding of `x / scale` (relative 2^-4, or 2^-10 of
the scale below e4m3's smallest normal) with `scale >= absmax / 448`. Scales are float16, rounded
up (and minimums down) so no code overflows, and at least 2^-14; blocks beyond float16's range
(|x| > 65504) are not representable and not supported.

int4 turns each block by a Hadamard matrix before it quantizes (`hadamard`, when the block is a power
of two, `turns`; QuaRot, Ashkboos et al. 2024, turns whole heads the same way) and turns it back after: a key's
few large dims (keys have outlier channels: KIVI, KVQuant) would set the block's step alone, and 16
levels leave the rest of the block a level or two; turned, every dim holds a share of them.
The half-step bound holds for the turned block; the error of the block as a whole has the same length
(the turn is orthogonal). int8 and fp8 have levels enough and are stored unturned.

Why per token, in blocks along the head dimension (llama.cpp's q8_0 / q4_0 layout) rather than
KIVI's per-channel keys (Liu et al. 2024): KIVI quantizes keys per channel over groups of tokens,
which the bounded cache cannot keep, since evictions replace single tokens in place; a group would
have to be requantized at every replacement. Blocks of 32 dims keep a key's outlier channels from
spoiling the scale of the rest of it (the reason KIVI groups keys per channel).

Why "k8v4": a key's error moves every attention weight of every later query (through the softmax's
exponent), a value's error only the output it is averaged into; on the embedded model int4 keys
cost about 4% perplexity and int4 values a fraction of a percent (README, "Quantized storage"), so
int8 keys with int4 values keep most of int4's saving at about int8's quality (KIVI and KVQuant
also spend more on keys than on values).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch

from ..checks import check_int

#: Dims per block (one scale each) unless a user says otherwise (`kv_group=`; "group size" as KIVI
#: and llama.cpp say): llama.cpp's q8_0 / q4_0 blocks.
DEFAULT_KV_GROUP = 32
#: Quantized storage dtypes and their bits per element.
BITS = {"int8": 8, "int4": 4, "fp8": 8}
#: The `kv_dtype` names a cache takes, each with the dtypes of its keys and of its values.
KV_DTYPES: dict[str, tuple[str, str]] = {
    "int8": ("int8", "int8"),
    "int4": ("int4", "int4"),
    "fp8": ("fp8", "fp8"),
    "k8v4": ("int8", "int4"),
}
_FP8_MAX = 448.0  # the largest float8_e4m3fn
_HALF_TINY = 2.0**-14  # float16's smallest normal: scales stay normal, so rounding them is relative


@dataclass
class Codes:
    """Quantized vectors: `codes` (..., dim) (int4: (..., dim / 2), two per byte), per block `scales`
    (..., dim / block) float16 and, for int4, `mins` (..., dim / block) float16.

    fp8 codes are kept as their bits in uint8: PyTorch's CPU scatter and gather do not take
    float8 tensors, and moving bytes is all storage needs.
    """

    codes: torch.Tensor
    scales: torch.Tensor
    mins: torch.Tensor | None = None

    def tensors(self) -> list[torch.Tensor]:
        return [t for t in (getattr(self, f.name) for f in fields(self)) if t is not None]

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in self.tensors())


@dataclass(frozen=True)
class Scheme:
    """One quantized storage dtype (see the module docstring)."""

    name: str

    def empty(self, shape: tuple[int, ...], block: int, device: torch.device) -> Codes:
        """Zero codes for floats of `shape` (..., dim)."""
        *lead, dim = shape
        blocks = (*lead, dim // block)
        if self.name == "int4":
            return Codes(
                torch.zeros((*lead, dim // 2), dtype=torch.uint8, device=device),
                torch.zeros(blocks, dtype=torch.float16, device=device),
                torch.zeros(blocks, dtype=torch.float16, device=device),
            )
        dtype = torch.int8 if self.name == "int8" else torch.uint8  # fp8 as its bits (see `Codes`)
        return Codes(
            torch.zeros(shape, dtype=dtype, device=device),
            torch.zeros(blocks, dtype=torch.float16, device=device),
        )

    def quantize(self, x: torch.Tensor, block: int) -> Codes:
        """`x` (..., dim), dim a multiple of `block`, as codes (see the module docstring)."""
        *lead, dim = x.shape
        blocks = x.float().reshape(*lead, dim // block, block)
        if self.name == "int4":
            if turns(block):  # spread a block's outlier dims over all of it (see the module docstring)
                blocks = hadamard(blocks)
            low = _half_at_most(blocks.amin(dim=-1, keepdim=True))
            step = _half_at_least((blocks.amax(dim=-1, keepdim=True) - low.float()) / 15.0)
            levels = ((blocks - low.float()) / step.float()).round().clamp(0, 15).to(torch.uint8)
            levels = levels.reshape(*lead, dim)
            packed = levels[..., 0::2] | (levels[..., 1::2] << 4)
            return Codes(packed, step[..., 0], low[..., 0])
        top = 127.0 if self.name == "int8" else _FP8_MAX
        scale = _half_at_least(blocks.abs().amax(dim=-1, keepdim=True) / top)
        scaled = blocks / scale.float()
        if self.name == "int8":
            codes = scaled.round().clamp(-127, 127).to(torch.int8)
        else:
            codes = scaled.to(torch.float8_e4m3fn).view(torch.uint8)
        return Codes(codes.reshape(*lead, dim), scale[..., 0])

    def dequantize(self, codes: Codes, dtype: torch.dtype) -> torch.Tensor:
        """The floats `codes` stand for, as `dtype`, (..., dim)."""
        *lead, _ = codes.codes.shape
        dim = codes.codes.shape[-1] * (2 if self.name == "int4" else 1)
        out = torch.empty((*lead, dim), dtype=dtype, device=codes.codes.device)
        self.dequantize_into(codes, out)
        return out

    def dequantize_into(self, codes: Codes, out: torch.Tensor) -> None:
        """Write the floats `codes` stand for into `out` (..., dim), whose last dim is contiguous.

        The hot path of a quantized cache's read: one pass over the codes where the scheme allows
        (int8: codes x scale straight into `out`), computed in float32 and rounded once to `out`'s dtype.
        """
        scales = codes.scales.float()[..., None]  # (..., blocks, 1)
        *lead, count, _ = scales.shape
        dim = out.shape[-1]
        blocks = out.view(*lead, count, dim // count)
        in_float = out.dtype == torch.float32
        if torch.compiler.is_compiling():  # torch.compile takes no `out=` views; it fuses this pass itself
            blocks.copy_(self._dequantized_blocks(codes, scales, count, dim // count))
            return
        if self.name == "int8":
            torch.mul(codes.codes.view(*lead, count, dim // count), scales, out=blocks)
            return
        if self.name == "fp8":  # float8 does not promote: each code's float from a 256-entry table
            table = _fp8_table(out.device)
            stored = table.index_select(0, codes.codes.reshape(-1).int()).view(*lead, count, dim // count)
            torch.mul(stored, scales, out=blocks)
            return
        assert codes.mins is not None
        packed = codes.codes.view(*lead, count, dim // count // 2)  # even dims low nibbles, odd high
        levels = torch.stack((packed & 0x0F, packed >> 4), dim=-1).view(*lead, count, dim // count)
        if turns(dim // count):
            blocks.copy_(_unturned(levels, scales, codes.mins))
            return
        target = blocks if in_float else torch.empty(blocks.shape, dtype=torch.float32, device=out.device)
        torch.mul(levels, scales, out=target)
        target.add_(codes.mins.float()[..., None])
        if not in_float:
            blocks.copy_(target)

    def _dequantized_blocks(self, codes: Codes, scales: torch.Tensor, count: int, block: int) -> torch.Tensor:
        """The same floats as `dequantize_into`, as a new float32 tensor (..., count, block), without `out=`."""
        lead = scales.shape[:-2]
        if self.name == "int8":
            return codes.codes.view(*lead, count, block) * scales
        if self.name == "fp8":
            table = _fp8_table(scales.device)
            return table.index_select(0, codes.codes.reshape(-1).int()).view(*lead, count, block) * scales
        assert codes.mins is not None
        packed = codes.codes.view(*lead, count, block // 2)
        levels = torch.stack((packed & 0x0F, packed >> 4), dim=-1).view(*lead, count, block)
        if turns(block):
            return _unturned(levels, scales, codes.mins)
        return levels * scales + codes.mins.float()[..., None]

    def bytes_per_vector(self, dim: int, block: int) -> int:
        """Stored bytes of one vector of `dim` floats in blocks of `block` dims."""
        scale_bytes = 2 * (dim // block) * (2 if self.name == "int4" else 1)
        return dim * BITS[self.name] // 8 + scale_bytes


_FP8_TABLES: dict[torch.device, torch.Tensor] = {}
_SIGNS: dict[tuple[int, torch.device], torch.Tensor] = {}  # Sylvester's matrices of +1 and -1


def _fp8_table(device: torch.device) -> torch.Tensor:
    """(256,) float32: the value of every float8_e4m3fn bit pattern (a gather is faster than converting)."""
    table = _FP8_TABLES.get(device)
    if table is None:
        bits = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(torch.float8_e4m3fn)
        table = _FP8_TABLES[device] = bits.float().to(device)
    return table


def _unturned(levels: torch.Tensor, steps: torch.Tensor, mins: torch.Tensor) -> torch.Tensor:
    """A turned int4 block's floats turned back, (..., count, block) float32, from its `levels` (..., count,
    block), `steps` (..., count, 1) float32 and `mins` (..., count) float16.

    The block stood for `levels * step + min`; turned back by H (symmetric, H 1 = sqrt(n) e_0) that is
    `step / sqrt(n) * (S levels) + min * sqrt(n) e_0`, with S the matrix of signs. `S levels` sums at
    most n levels of 0..15, integers a float32 holds exactly whatever the order of the sums: one matrix
    product, and the same bits for a vector alone or in a batch of any shape.
    """
    n = levels.shape[-1]
    signs = _SIGNS.get((n, levels.device))
    if signs is None:
        signs = _SIGNS[(n, levels.device)] = (hadamard(torch.eye(n)) * n**0.5).round().to(levels.device)
    floats = (levels.float() @ signs).mul_(steps * n**-0.5)
    floats[..., 0].add_(mins.float() * n**0.5)
    return floats


def turns(block: int) -> bool:
    """Whether int4 turns blocks of `block` dims (a power of two, at least 2: see the module docstring)."""
    return block >= 2 and not block & (block - 1)


def hadamard(x: torch.Tensor) -> torch.Tensor:
    """`x` (..., n) times the Hadamard matrix of order n (Sylvester's, scaled by 1/sqrt(n): symmetric
    and orthogonal, so applying it twice gives `x` back), n a power of two, in float32.

    The fast Walsh-Hadamard transform: log2(n) rounds of sums and differences of pairs, element by
    element, so a vector's result never depends on what else is in the tensor (a matrix product's
    summation order can follow the batch's shape; a row must read the same alone and in a batch).
    """
    *lead, n = x.shape
    out = x.float()
    half = 1
    while half < n:
        pairs = out.reshape(*lead, n // (2 * half), 2, half)
        first, second = pairs[..., 0, :], pairs[..., 1, :]
        out = torch.stack((first + second, first - second), dim=-2).reshape(*lead, n)
        half *= 2
    return out * n**-0.5


def _half_at_least(x: torch.Tensor) -> torch.Tensor:
    """`x` (>= 0) as float16, rounded up (so no code overflows), and at least float16's smallest normal."""
    half = x.clamp(min=_HALF_TINY).half()
    return torch.where(half.float() < x, torch.nextafter(half, torch.full_like(half, torch.inf)), half)


def _half_at_most(x: torch.Tensor) -> torch.Tensor:
    """`x` as float16, rounded down (an int4 block's minimum stays at or below its smallest value)."""
    half = x.half()
    return torch.where(half.float() > x, torch.nextafter(half, torch.full_like(half, -torch.inf)), half)


def scheme(name: str) -> Scheme:
    if name not in BITS:
        raise ValueError(
            f"kv_dtype={name!r} is not one of {', '.join(map(repr, BITS))} (or None: the model's dtype)"
        )
    return Scheme(name)


def kv_schemes(kv_dtype: str) -> tuple[Scheme, Scheme]:
    """The schemes of a cache's keys and of its values for `kv_dtype` (one of `KV_DTYPES`)."""
    if kv_dtype not in KV_DTYPES:
        raise ValueError(
            f"kv_dtype={kv_dtype!r} is not one of {', '.join(map(repr, KV_DTYPES))} (or None: the model's dtype)"
        )
    keys, values = KV_DTYPES[kv_dtype]
    return Scheme(keys), Scheme(values)


def block_size(dim: int, kv_group: int) -> int:
    """The block used for vectors of `dim` dims: `kv_group` dims, or the largest divisor of dim below it."""
    size = min(kv_group, dim)
    while dim % size:
        size -= 1
    return size


def check_kv_group(kv_group: object) -> int:
    """Validate a `kv_group` setting (dims per quantization block)."""
    rule = f"an even int >= 2 (dims per quantization block, default {DEFAULT_KV_GROUP})"
    value = check_int("kv_group", kv_group, at_least=2, allowed=rule)
    if value % 2:
        raise ValueError(f"kv_group must be {rule}; got {kv_group!r}")
    return value
