"""How kept tokens get positions: one keeper per positional scheme, chosen once per cache.

- `rope.RopeSpec`: moves a stored RoPE key to another position by a pure rotation (the maths).
- `rope_keepers.RopeSinks` / `RopeRanks`: RoPE caches under positional / per-layer policies.
- `alibi.AlibiOrder`: ALiBi caches keep their slots in temporal order.
- `absolute.AbsoluteReencode` / `AbsoluteClamp`: learned position tables.

`make_keeper` picks the keeper for a model's scheme, a policy and the user's `positions=` choice;
`kvlimit.positions.base` states the contract every keeper implements.
"""

from __future__ import annotations

from typing import Literal

from ..policies import EvictionPolicy
from .absolute import AbsoluteClamp, AbsoluteReencode, ReencodeFn
from .alibi import AlibiOrder
from .base import PositionKeeper
from .rope import RopeSpec
from .rope_keepers import RopeRanks, RopeSinks

#: The positional schemes of the supported families.
PositionKind = Literal["rope", "alibi", "absolute"]


def make_keeper(
    kind: PositionKind,
    policy: EvictionPolicy,
    *,
    absolute_mode: str = "reencode",
    position_bound: int | None = None,
    rebase_after: int | None = None,
    reencode: ReencodeFn | None = None,
    recall: int = 0,
    sinks_at_index: bool = False,
    max_distance: int | None = None,
) -> PositionKeeper:
    """The keeper for a cache of `kind` under `policy`.

    rebase_after: RoPE positions are rebased (positional policies) or re-ranked (per-layer policies)
    before they reach this. absolute_mode: "reencode" or "clamp" for learned positions; `reencode`
    is the fresh forward it needs. recall: positions reserved for recalled tokens between the sinks
    and the recent window (positional RoPE policies). sinks_at_index, max_distance: the sinks of a
    positional RoPE policy sit at their own distance from the query, at most max_distance
    (`RopeSinks`; with recalled tokens placed at theirs).
    """
    if kind == "rope":
        if policy.per_layer:
            return RopeRanks(rebase_after)
        return RopeSinks(policy.protected_tokens, rebase_after, reserve=recall,
                         sinks_at_index=sinks_at_index, max_distance=max_distance)  # fmt: skip
    if kind == "alibi":
        return AlibiOrder()
    if position_bound is None:
        raise ValueError("learned absolute positions need the size of their table (position_bound)")
    if absolute_mode == "clamp":
        return AbsoluteClamp(position_bound)
    if policy.per_layer:
        raise ValueError(
            f"{policy.describe()} keeps different tokens in each layer, which re-encoding (one fresh "
            f"forward over one kept window) cannot reproduce; use positions='clamp' with this model"
        )
    if reencode is None:
        raise ValueError("positions='reencode' needs the fresh forward that re-encodes (reencode=)")
    return AbsoluteReencode(position_bound, reencode)


__all__ = [
    "AbsoluteClamp",
    "AbsoluteReencode",
    "AlibiOrder",
    "PositionKeeper",
    "PositionKind",
    "ReencodeFn",
    "RopeRanks",
    "RopeSinks",
    "RopeSpec",
    "make_keeper",
]
