"""Attention recall: how much of the full cache's attention falls on what a bounded cache attends.

Contract: `attention_recall(model, ids, configs, start=, every=)` measures, for a text `ids` (1, n) and
each bounded configuration, how much of the attention the full cache gives the past a bounded cache
still offers its queries, without asking the model to get anything right:

- The reference is the full cache: one forward over the whole text, whose queries and keys every
  layer hands to the attention tap. For a step at token t, layer l and KV head g, `p` is the mean,
  over g's query heads, of the softmax of the query of token t over the keys of tokens 0..t: the
  share of attention each past token gets when nothing is evicted.
- A bounded run feeds the text through the configuration's cache as generation would: its first
  `start` tokens as a prompt (in chunks when longer than the limit, as `kvlimit.generate` plans
  them), every later token as a decode step (teacher-forced). At every `every`-th decode step it
  reads, per layer and KV head, the set of tokens that step attended: the tokens the layer keeps
  (its sinks and recent window, or a per-layer policy's choice) and the tokens the recall tier
  brought back for that head.
- `share` is the mass of `p` on that set; `oracle` the mass of the set's size of the best tokens
  (the top of `p`): what no selection of that size can beat; `sinks` the mass on the set a `sinks`
  cache of the same limit attends (its first `n_sink` tokens and its newest, found without a run).

The result holds, per configuration, the mean of each over steps, layers and heads, the share of the
oracle's mass it reaches, and per layer the mean share: JSON-ready (`to_dict`), and `plot` draws the
share per layer and over the text. Quest (Tang et al. 2024) reports the recall of the top-k keys and
ShadowKV / InfLLM the retrieval accuracy at a budget; this is the same measure, taken per KV head
during decoding on the model's own text. Library code: it logs and never prints.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from ..build import build_cache
from ..config import LimitConfig
from ..forward import forward_step, prefill, prefill_chunk
from ..integrations import hf

logger = logging.getLogger(__name__)

#: (config name, steps done, steps in all) after each measured step
Progress = Callable[[str, int, int], None]


@dataclass
class Reference:
    """The full cache's queries and keys, per layer: queries (heads, n, dim) and keys (kv_heads, n, dim),
    float32 on the host, and each layer's scaling."""

    queries: dict[int, torch.Tensor] = field(default_factory=dict)
    keys: dict[int, torch.Tensor] = field(default_factory=dict)
    scaling: dict[int, float] = field(default_factory=dict)

    def attention(self, layer: int, t: int) -> torch.Tensor:
        """(kv_heads, t + 1): the mean over each KV head's query heads of token t's attention to 0..t."""
        keys = self.keys[layer][:, : t + 1]
        query = self.queries[layer][:, t]
        kv_heads = keys.shape[0]
        grouped = query.view(kv_heads, -1, query.shape[-1])  # (kv_heads, group, dim)
        logits = torch.einsum("kgd,knd->kgn", grouped, keys) * self.scaling[layer]
        return logits.softmax(dim=-1).mean(dim=1)


def reference(model: Any, ids: torch.Tensor) -> Reference:
    """The full cache's queries and keys of every layer for `ids` (1, n) (see `Reference`)."""
    spec = hf.inspect_model(model)
    ref = Reference()

    def record(layer: int, query: Any, key: Any, mask: Any, scaling: float, weights: Any) -> None:
        if query is None or key is None:
            raise ValueError(
                f"{spec.model_type}'s attention hands no queries here; attention recall needs them"
            )
        ref.queries[layer] = query[0].float().cpu()
        ref.keys[layer] = key[0].float().cpu()
        ref.scaling[layer] = scaling

    with torch.no_grad(), hf.attention_tap(model, spec, record):
        model(input_ids=ids, use_cache=True, **hf.last_logits_only(model))
    return ref


@dataclass
class ConfigRecall:
    """One configuration's attention recall (means over the measured steps, layers and KV heads)."""

    name: str
    share: float
    oracle: float
    sinks: float
    attended: float  # tokens a step attended, on average per layer and KV head
    per_layer: list[float]  # mean share per bounded layer, in layer order
    over_text: list[tuple[int, float]]  # (token, share averaged over layers and heads)
    seconds: float

    @property
    def of_oracle(self) -> float:
        return self.share / self.oracle if self.oracle > 0 else 0.0


def attended_sets(cache: Any, layers: list[int], t: int) -> dict[int, torch.Tensor]:
    """Per layer, (kv_heads, t + 1) bool: the tokens the step that made token t attended, per KV head:
    the layer's kept tokens (the same for every head) and the tokens recalled for the head."""
    out = {}
    hook = cache.recall_hook
    for layer in layers:
        kept = torch.tensor(cache.kept_token_indices(0, layer), dtype=torch.long)
        recalled = None if hook is None else hook.last_recalled.get(layer)
        kv_heads = 1 if recalled is None else recalled[0].shape[1]
        sets = torch.zeros((kv_heads, t + 1), dtype=torch.bool)
        sets[:, kept[kept <= t]] = True
        if recalled is not None:
            index = recalled[0][0].cpu()  # (kv_heads, n), -1 for empty columns
            for g in range(kv_heads):
                chosen = index[g][(index[g] >= 0) & (index[g] <= t)]
                sets[g, chosen] = True
        out[layer] = sets
    return out


def sinks_set(t: int, limit: int, n_sink: int) -> torch.Tensor:
    """(t + 1,) bool: what a `sinks` cache of `limit` tokens attends at the step of token t."""
    chosen = torch.zeros(t + 1, dtype=torch.bool)
    chosen[: min(n_sink, t + 1)] = True
    chosen[max(0, t + 1 - (limit - n_sink)) :] = True
    return chosen


def _mass_and_oracle(p: torch.Tensor, chosen: torch.Tensor) -> tuple[float, float, float]:
    """(share on `chosen`, the best share of as many tokens, tokens chosen), each a mean over KV heads.
    p: (kv_heads, t + 1); chosen: (kv_heads or 1, t + 1) bool."""
    chosen = chosen.expand_as(p)
    share = (p * chosen).sum(dim=1)
    counts = chosen.sum(dim=1)
    best = p.sort(dim=1, descending=True).values.cumsum(dim=1)
    oracle = best.gather(1, (counts - 1).clamp(min=0)[:, None])[:, 0] * (counts > 0)
    return float(share.mean()), float(oracle.mean()), float(counts.float().mean())


def attention_recall(
    model: Any,
    ids: torch.Tensor,
    configs: dict[str, LimitConfig],
    *,
    start: int,
    every: int = 1,
    progress: Progress | None = None,
) -> list[ConfigRecall]:
    """Measure every configuration on `ids` (1, n) (see the module docstring)."""
    n = ids.shape[1]
    if not 0 < start < n:
        raise ValueError(f"start must be between 1 and the text's {n - 1} tokens; got {start}")
    if every < 1:
        raise ValueError(f"every must be >= 1; got {every}")
    started = time.perf_counter()
    ref = reference(model, ids)
    logger.info(
        "attention recall: reference forward over %d tokens in %.1f s", n, time.perf_counter() - started
    )
    return [_run(model, ids, name, config, ref, start, every, progress) for name, config in configs.items()]


def _run(
    model: Any, ids: torch.Tensor, name: str, config: LimitConfig, ref: Reference, start: int, every: int,
    progress: Progress | None,
) -> ConfigRecall:  # fmt: skip
    """One configuration: the bounded run, measured every `every` decode steps."""
    started = time.perf_counter()
    cache = build_cache(model, config, max_length=ids.shape[1])
    if cache.recall_hook is not None:
        cache.recall_hook.record_recalled = True
    layers = [i for i in cache.bounded_indices if i in ref.queries]
    limit, n_sink = cache.cache_limit, cache.policy.protected_tokens
    chunk = prefill_chunk(cache, start, config.prefill_chunk)
    mask = torch.ones_like(ids)
    if chunk is not None:  # the prompt as generate feeds it: all but its last token in chunks
        prefill(model, cache, ids[:, :start], mask[:, :start], chunk)
    else:
        forward_step(model, cache, ids[:, : start - 1], mask[:, : start - 1], **hf.last_logits_only(model))
    steps = list(range(start - 1, ids.shape[1]))
    measured = [t for k, t in enumerate(steps) if k % every == 0]
    sums = {"share": 0.0, "oracle": 0.0, "sinks": 0.0, "attended": 0.0}
    per_layer = {layer: 0.0 for layer in layers}
    over_text = []
    for t in steps:
        forward_step(model, cache, ids[:, t : t + 1], **hf.last_logits_only(model))
        if t not in measured:
            continue
        sets = attended_sets(cache, layers, t)
        sinks = sinks_set(t, limit, n_sink)
        step_share = 0.0
        for layer in layers:
            p = ref.attention(layer, t)
            share, oracle, attended = _mass_and_oracle(p, sets[layer])
            sums["share"] += share
            sums["oracle"] += oracle
            sums["attended"] += attended
            sums["sinks"] += _mass_and_oracle(p, sinks[None])[0]
            per_layer[layer] += share
            step_share += share
        over_text.append((t, step_share / len(layers)))
        if progress is not None:
            progress(name, len(over_text), len(measured))
    count = len(measured) * len(layers)
    return ConfigRecall(
        name=name,
        share=sums["share"] / count,
        oracle=sums["oracle"] / count,
        sinks=sums["sinks"] / count,
        attended=sums["attended"] / count,
        per_layer=[per_layer[layer] / len(measured) for layer in layers],
        over_text=over_text,
        seconds=time.perf_counter() - started,
    )


def to_dict(results: list[ConfigRecall]) -> dict[str, Any]:
    """JSON-ready results."""
    return {
        "configs": [
            {
                "name": r.name, "share": r.share, "oracle": r.oracle, "of_oracle": r.of_oracle, "sinks": r.sinks,
                "attended": r.attended, "per_layer": r.per_layer, "over_text": r.over_text,
                "seconds": round(r.seconds, 1),
            }
            for r in results
        ]
    }  # fmt: skip


def plot(results: list[ConfigRecall], path: str, title: str = "") -> None:
    """Two panels: the mean share per layer for each configuration (with its oracle's mean), and the
    share over the text (averaged over layers)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 4.5), dpi=110)
    FigureCanvasAgg(figure)
    by_layer, over = figure.subplots(1, 2)
    for r in results:
        line = by_layer.plot(
            range(len(r.per_layer)), r.per_layer, marker=".", label=f"{r.name} ({r.share:.3f})"
        )
        over.plot(*zip(*r.over_text, strict=True), color=line[0].get_color(), linewidth=0.8)
    if results:
        by_layer.axhline(
            results[0].oracle, color="black", linestyle="--", linewidth=0.8, label="oracle (first)"
        )
        by_layer.axhline(results[0].sinks, color="grey", linestyle=":", linewidth=0.8, label="sinks alone")
    by_layer.set_xlabel("bounded layer")
    by_layer.set_ylabel("share of the full cache's attention")
    by_layer.set_ylim(0, 1)
    by_layer.legend(fontsize=7)
    over.set_xlabel("token")
    over.set_ylabel("share (mean over layers)")
    over.set_ylim(0, 1)
    figure.suptitle(title or "attention recall")
    figure.tight_layout()
    figure.savefig(path, format="png")
