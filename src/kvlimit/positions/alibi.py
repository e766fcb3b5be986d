"""ALiBi positions (Bloom, MPT, Falcon-RW): distances come from the column order of the mask.

These models add a bias proportional to the key's column distance from the query, read from the 2D
attention mask the cache builds over its slots. Keeping the slots in temporal order (an eviction
shifts the later slots left, see `kvlimit.cache.plan`) makes those distances the in-cache ones, so
nothing is ever rotated or rewritten.
"""

from __future__ import annotations

from typing import ClassVar

from .base import PositionKeeper


class AlibiOrder(PositionKeeper):
    """Keep slots in temporal order; nothing else to do."""

    name: ClassVar[str] = "alibi"
    ordered: ClassVar[bool] = True
