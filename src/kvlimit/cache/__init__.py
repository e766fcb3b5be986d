"""The bounded KV cache, one idea per module.

- `bounded.BoundedCache`: the transformers `Cache`; a step is `prepare_step`, the forward, `advance`.
- `store.KVStore`: every bounded layer's keys and values, and the few operations that move them
  (`quantized.QuantizedStore`: the same, stored as `quant` codes).
- `layer.BoundedLayer`: one layer as transformers sees it, carrying out the step's plan on the store.
- `plan`: who is evicted, which slot each new token takes, what each query may see.
- `kept.KeptSet`: the per-slot bookkeeping of one set of layers that keep the same tokens.
- `rows.RowCounters`: per-row counts, host and device copies kept in step.
- `attention`: what the attention policies read, folded into a kept set.

Positions are kept by `kvlimit.positions`.
"""

from .bounded import BoundedCache, LayerLayout, StepInputs
from .kept import KeptSet
from .layer import BoundedLayer
from .plan import SetWrites, StepPlan
from .quantized import QuantizedStore
from .rows import RowCounters
from .store import KVStore, StoreLayout

__all__ = [
    "BoundedCache",
    "BoundedLayer",
    "KVStore",
    "KeptSet",
    "LayerLayout",
    "QuantizedStore",
    "RowCounters",
    "SetWrites",
    "StepInputs",
    "StepPlan",
    "StoreLayout",
]
