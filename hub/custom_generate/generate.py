"""kvlimit as a transformers `custom_generate` repository: `cache_limit=` for any decoder-only model.

transformers loads this file for `model.generate(..., custom_generate="<this repository or folder>",
trust_remote_code=True)` and calls `generate(model=model, **arguments of that call)`. Everything is
handed to `kvlimit.generate` (the installed package; nothing here imports a sibling file), which runs
transformers' own greedy, sampling and beam-search loops with a bounded KV cache when the call has a
`cache_limit`, and stock generation when it has none.
"""

import kvlimit


def generate(model, *args, **kwargs):
    """transformers' `generate` with a bounded KV cache: see `kvlimit.generate` for the arguments."""
    return kvlimit.generate(model, *args, **kwargs)
