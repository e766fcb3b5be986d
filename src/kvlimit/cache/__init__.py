"""The bounded KV cache, one idea per module.

- `bounded.BoundedCache`: the transformers `Cache`; a step is `prepare_step`, the forward, `advance`.
- `layer.BoundedLayer`: one layer's keys and values, written in place as the step's plan says.
- `plan`: who is evicted, which slot each new token takes, what each query may see.
- `slots.SlotState`: the per-slot bookkeeping of one group of layers that keep the same tokens.
- `rows.RowCounters`: per-row counts, host and device copies kept in step.

Positions are kept by `kvlimit.positions`.
"""

from .bounded import BoundedCache, LayerLayout, StepInputs
from .layer import BoundedLayer
from .plan import GroupWrites, StepPlan
from .rows import RowCounters
from .slots import SlotState

__all__ = [
    "BoundedCache",
    "BoundedLayer",
    "GroupWrites",
    "LayerLayout",
    "RowCounters",
    "SlotState",
    "StepInputs",
    "StepPlan",
]
