"""Evaluation helpers: the long-text corpus and streaming perplexity on it.

    from kvlimit.eval import ensure_corpus, streaming_perplexity, recompute_perplexity, full_perplexity

- `ensure_corpus()` (`kvlimit.eval.corpus`): the path of the Botchan text, 65k SmolLM2 tokens.
- `streaming_perplexity(model, ids, cache_limit=L, policy="sinks")`: per-token NLL and perplexity of a
  text streamed through a bounded cache; `recompute_perplexity` (sliding window with re-computation,
  same visibility) and `full_perplexity` (stock unbounded cache) are the baselines
  (`kvlimit.eval.perplexity`). `plot_perplexity` (`kvlimit.eval.plot`, needs matplotlib) draws them.
- `kvlimit.eval.command`: the `kvlimit ppl` subcommand.
"""

from .corpus import CORPUS_SHA256, CORPUS_SOURCE, CORPUS_TITLE, ensure_corpus
from .perplexity import (
    PerplexityProgress,
    PerplexityResult,
    default_chunk,
    full_perplexity,
    recompute_perplexity,
    segment_perplexities,
    streaming_perplexity,
)
from .plot import plot_perplexity

__all__ = [
    "CORPUS_SHA256",
    "CORPUS_SOURCE",
    "CORPUS_TITLE",
    "PerplexityProgress",
    "PerplexityResult",
    "default_chunk",
    "ensure_corpus",
    "full_perplexity",
    "plot_perplexity",
    "recompute_perplexity",
    "segment_perplexities",
    "streaming_perplexity",
]
