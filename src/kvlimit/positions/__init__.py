"""How kept tokens get positions, per positional family.

- `rope`: keys are rotated; `RopeSpec` moves a stored key to another position exactly.
- `alibi`: positions are distances read from the cache's slot order (kept in temporal order).
- `absolute`: learned position tables; kept tokens are re-encoded or their positions clamped.
"""

from .rope import RopeSpec

__all__ = ["RopeSpec"]
