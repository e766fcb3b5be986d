"""Moving RoPE keys to another position by a pure rotation.

Contract: for a key rotated by the model to position p, `RopeSpec.rotate(key, q - p)` equals the
key the model would have produced at position q, for every rope type whose frequencies do not
depend on the sequence length at run time (default, linear, yarn, llama3, proportional, and
dynamic / longrope below their original context), in both layouts (half-split as in Llama,
interleaved pairs as in GPT-J) and with partial rotary dimensions (GPT-NeoX, Phi, StableLM).

The model's own rotary module is never called: it multiplies cos/sin by `attention_scaling` (a
rotation must not) and dynamic variants change state. The frequencies come from the model's
buffers or config (see `kvlimit.integrations.hf`). Angles are computed in float64 so that large
position differences lose no precision; the product is taken in float32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True, eq=False)
class RopeSpec:
    """How one attention layer rotates its keys.

    Attributes:
        inv_freq: (rotary_dim // 2,) inverse frequencies, as the model uses them.
        rotary_dim: number of leading head dimensions that are rotated (the rest pass through).
        interleaved: True for GPT-J style pairs (0,1),(2,3)..., False for half-split (i, i + rotary_dim/2).
        position_bound: positions must stay below this (a lookup table's size, or the context
            beyond which the frequencies change); None when any position works.
    """

    inv_freq: torch.Tensor
    rotary_dim: int
    interleaved: bool = False
    position_bound: int | None = None

    def __post_init__(self) -> None:
        if self.inv_freq.ndim != 1 or 2 * self.inv_freq.numel() != self.rotary_dim:
            raise ValueError(
                f"inv_freq has {self.inv_freq.numel()} frequencies but rotary_dim is {self.rotary_dim}"
            )

    def cos_sin(self, delta: torch.Tensor, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin of `delta` (any shape, integer positions) laid out over the rotary dims.

        Returns two float32 tensors of shape `(*delta.shape, rotary_dim)`.
        """
        angles = self._angles(delta, device)
        return self._laid_out(*_cos_sin_once(angles).float())

    def cos_sin_float32(self, delta: torch.Tensor, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """`cos_sin` with the angles reduced to [-pi, pi] in float64 and their cosines and sines taken in
        float32: within about 3e-7 of `cos_sin`. For a compiled graph, where a float64 cosine costs
        several float32 ones: the recall tier's chosen blocks (3.5 ms of a 43 ms step of the embedded
        model on this CPU in float64, when inductor still took them per element of the keys)."""
        angles = self._angles(delta, device)
        reduced = (angles - torch.round(angles / (2 * math.pi)) * (2 * math.pi)).float()  # [-pi, pi]
        return self._laid_out(*_cos_sin_once(reduced))

    def _angles(self, delta: torch.Tensor, device: torch.device) -> torch.Tensor:
        """float64 angles `(*delta.shape, rotary_dim // 2)`: each position times each frequency."""
        freqs = self.inv_freq.to(device=device, dtype=torch.float64)
        return delta.to(device=device, dtype=torch.float64)[..., None] * freqs

    def _laid_out(self, cos: torch.Tensor, sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-frequency cos and sin (..., rotary_dim // 2) spread over the rotary dims in this layout."""
        if self.interleaved:
            return cos.repeat_interleave(2, dim=-1), sin.repeat_interleave(2, dim=-1)
        return torch.cat((cos, cos), dim=-1), torch.cat((sin, sin), dim=-1)

    def apply(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        """Rotate the first `rotary_dim` dims of `x` (..., head_dim) by precomputed `cos_sin`.

        `cos`/`sin` must broadcast against `x[..., :rotary_dim]`. Returns a new tensor in x's dtype.
        """
        rot = x[..., : self.rotary_dim].float()
        if self.interleaved:
            even, odd = rot[..., 0::2], rot[..., 1::2]
            turned = torch.stack((-odd, even), dim=-1).flatten(-2)
        else:
            half = self.rotary_dim // 2
            turned = torch.cat((-rot[..., half:], rot[..., :half]), dim=-1)
        rotated = (rot * cos + turned * sin).to(x.dtype)
        if self.rotary_dim == x.shape[-1]:
            return rotated
        return torch.cat((rotated, x[..., self.rotary_dim :]), dim=-1)

    def rotate(self, x: torch.Tensor, delta: torch.Tensor | int) -> torch.Tensor:
        """Move keys `x` (batch, heads, seq, head_dim) forward by `delta` positions.

        `delta` is an int, or a tensor broadcastable to `(batch, heads, seq)` (e.g. per row `(batch, 1, 1)`).
        """
        delta_t = torch.as_tensor(delta)
        cos, sin = self.cos_sin(delta_t, x.device)
        return self.apply(x, cos, sin)


def _cos_sin_once(angles: torch.Tensor) -> torch.Tensor:
    """(2, *angles.shape): the cosines and sines of `angles`, stacked. Why a stack: a compiled graph
    computes a stack's inputs once, into it, where it would otherwise fuse the cosines into whatever
    they rotate and take them again for every element rotated (inductor on the CPU: a recalled block's
    angle again for each of its tokens and both halves of the dims, a query's for each head; a float64
    cosine costs tens of nanoseconds)."""
    return torch.stack((angles.cos(), angles.sin()))
