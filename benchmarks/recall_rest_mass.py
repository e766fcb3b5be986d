"""An experiment, not the library: what a bounded cache lacks at a far single key is the attention mass of
the tokens it does not attend. This gives it back as one column and runs retrieval cases with it.

At every recall step (prompt chunk or decode step, eager or static tier), in every recall layer, the last
recall column becomes the *rest*: key 0, an additive bias per query head and query equal to
log sum exp(logit) over the stored tokens the step did not recall (exact: the query at its token index
against every stored key at its own, as the "distance" score reads them), so each attended token keeps the
weight the full cache gives it over the stored and attended tokens; and a value:

- `zero`: 0 (the rest attends nothing: only the attended tokens' weights are the full cache's);
- `mean`: the plain mean of the rest's values, per KV head;
- `wmean`: their attention-weighted mean, the weights averaged over the KV head's query heads and a
  chunk's queries (one column serves them all);
- `none`: the library as it is (no rest column); `fullcache`: the full cache; `sinks`: no recall.

A mode may name the placement, `wmean:full` (`recall_positions`; default "distance"). Limit = a quarter
of the context, R = L/4, as the retrieval suite. Batch 1 only. It patches private methods
(`RecallStore.recall`, `RecallHook.fill`, `StaticRecall.fill`) and transformers' sdpa entry for the
run: a diagnostic, not an API.

    python benchmarks/recall_rest_mass.py none,zero,mean,wmean,wmean:full --tasks lock-combination --seeds 3
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import torch
from retrieval_suite import config_for as suite_config  # beside this script (run as `python benchmarks/...`)
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

import kvlimit
from kvlimit.cache import recall as recall_module
from kvlimit.cache import recall_hook, recall_static
from kvlimit.cache.recall_static import _layer
from kvlimit.eval import retrieval
from kvlimit.models import load_model

MODE = {"value": "none"}
#: layer -> (the rest column, log-mass (batch, heads, queries)), set by a fill, read by that layer's sdpa
PENDING: dict[int, tuple[int, torch.Tensor]] = {}
CHOSEN: dict[int, torch.Tensor] = {}  # layer -> the eager store's chosen block ids (batch, picks, kv_heads)


def rest_column(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, rest: torch.Tensor) -> Any:
    """The rest's log-mass (kv_heads, g, queries) and value (kv_heads, dim) for queries `q` (kv_heads, g,
    queries, dim) at their token indices, stored `keys`, `values` (kv_heads, blocks, block, dim) and
    `rest` (kv_heads, blocks, block) the stored tokens not recalled."""
    logits = torch.einsum("kgqd,knbd->kgqnb", q, keys) * q.shape[-1] ** -0.5
    masked = logits.masked_fill(~rest[:, None, None], float("-inf")).flatten(3)
    log_mass = torch.logsumexp(masked, dim=-1)
    if MODE["value"] == "zero":
        value = torch.zeros_like(values[:, 0, 0])
    elif MODE["value"] == "mean":
        weight = rest.float()
        value = (values * weight[..., None]).sum((1, 2)) / weight.sum((1, 2)).clamp(min=1)[:, None]
    else:  # wmean
        weight = torch.softmax(masked, dim=-1).nan_to_num(0).mean(dim=(1, 2))  # (kv_heads, n)
        value = torch.einsum("kn,knd->kd", weight, values.flatten(1, 2))
    return log_mass, value


def at_index(rope: Any, query: torch.Tensor, turn: torch.Tensor) -> torch.Tensor:
    """`query` (1, heads, n, dim) rotated by `turn` (1, 1, n), in float32."""
    cos, sin = rope.cos_sin(turn, query.device)
    return rope.apply(query.float(), cos, sin)


def write_rest(
    layer: int, column: int, query_at_index: torch.Tensor, store: Any, key: Any, value: Any
) -> None:
    """Put the rest into `column` of the layer's `key` and `value`; its bias waits for the layer's sdpa."""
    keys, values, rest = store
    kv_heads = keys.shape[0]
    heads, n = query_at_index.shape[1], query_at_index.shape[2]
    q = query_at_index[0].view(kv_heads, heads // kv_heads, n, -1)
    log_mass, rest_value = rest_column(q, keys.float(), values.float(), rest)
    key[:, :, column] = 0
    value[0, :, column] = rest_value.to(value.dtype)
    PENDING[layer] = (column, log_mass.reshape(1, heads, n))


def patch() -> None:
    original_recall = recall_module.RecallStore.recall

    def recall(self: Any, layer: int, query: torch.Tensor, query_index: Any = None, **kw: Any) -> Any:
        keys, values, chosen = original_recall(self, layer, query, query_index, **kw)
        CHOSEN[layer] = chosen
        return keys, values, chosen

    original_fill = recall_hook.RecallHook.fill

    def fill(self: Any, layer: int, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> None:
        original_fill(self, layer, query, key, value)
        PENDING.pop(layer, None)
        step, store = self.step, self.store
        if MODE["value"] == "none" or step is None or not store.serves(layer) or not store.table.rows[0]:
            return
        group, i = store._where[layer]
        ids = torch.tensor(store.table.rows[0])
        fills = torch.tensor([store.table.fill[b] for b in store.table.rows[0]])
        keys, values = group.keys[i][:, ids], group.values[i][:, ids]  # (kv_heads, blocks, block, dim)
        stored = torch.arange(keys.shape[2])[None, :] < fills[:, None]
        taken = (ids[None, :, None] == CHOSEN[layer][0].T[:, None, :]).any(-1)
        rest = stored[None] & ~taken[:, :, None]
        n = query.shape[2]
        q = at_index(self.rope[layer], query, step.shift[:, None, None].expand(-1, 1, n))
        write_rest(layer, step.start + step.columns - 1, q, (keys, values, rest), key, value)

    original_static = recall_static.StaticRecall.fill

    def static_fill(self: Any, layer: int, query: torch.Tensor, key: Any, value: Any, kv_store: Any) -> None:
        original_static(self, layer, query, key, value, kv_store)
        PENDING.pop(layer, None)
        if MODE["value"] == "none" or layer not in self._where:
            return
        group, i = self._where[layer]
        keys = self._floats(_layer(group.keys, i), as_stored=True)[0]  # (kv_heads, ring + 1, block, dim)
        values = self._floats(_layer(group.values, i), as_stored=True)[0]
        chosen = self._choose(group, i, query)[0]  # what fill took (recall_every = 1)
        taken = torch.zeros(keys.shape[:2], dtype=torch.bool).scatter_(1, chosen, True)
        rest = (self.present[0][None, :] & ~taken)[..., None].expand(-1, -1, keys.shape[2])
        q = at_index(group.rope, query, (self.query_index - self.query_positions)[:, None, None])
        write_rest(layer, self.start + self.slots - 1, q, (keys, values, rest), key, value)

    original_sdpa = ALL_ATTENTION_FUNCTIONS["sdpa"]

    def sdpa(
        module: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: Any, **kw: Any
    ) -> Any:
        layer = getattr(module, "layer_idx", None)
        if layer in PENDING:
            column, log_mass = PENDING.pop(layer)
            if mask is None:  # a decode step with nothing masked
                mask = torch.zeros(
                    (query.shape[0], 1, 1, key.shape[-2]), dtype=query.dtype, device=query.device
                )
            elif mask.dtype == torch.bool:
                mask = torch.zeros(mask.shape, dtype=query.dtype, device=mask.device).masked_fill(
                    ~mask, float("-inf")
                )
            mask = mask[..., : key.shape[-2]].expand(*query.shape[:3], -1).clone()
            mask[..., column] += log_mass.to(mask.dtype)  # a masked column (early chunks) stays masked
        return original_sdpa(module, query, key, value, mask, **kw)

    recall_module.RecallStore.recall = recall  # type: ignore[method-assign]
    recall_hook.RecallHook.fill = fill  # type: ignore[method-assign]
    recall_static.StaticRecall.fill = static_fill  # type: ignore[method-assign]
    ALL_ATTENTION_FUNCTIONS["sdpa"] = sdpa


def config_for(mode: str, context: int) -> kvlimit.LimitConfig | None:
    """The retrieval suite's configuration for a mode (`retrieval_suite.config_for`, a quarter of the
    context): the full cache, `sinks`, or recall R = L/4 scored by distance in the mode's placement."""
    value, _, place = mode.partition(":")
    if value in ("fullcache", "sinks"):
        return suite_config(value.replace("fullcache", "full"), context, 0.25)
    suffix = {"": "", "distance": "", "full": ":full", "packed": ":packed"}[place]
    return suite_config(f"recall:0.25:distance{suffix}", context, 0.25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "modes", help="comma-separated: none, zero, mean, wmean, fullcache, sinks [:PLACEMENT]"
    )
    parser.add_argument("--part", default="tune", choices=["tune", "held-out"])
    parser.add_argument("--tasks", default="lock-combination")
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    torch.set_num_threads(2)
    patch()
    loaded = load_model(None)
    if loaded.model.config._attn_implementation != "sdpa":
        raise SystemExit("this experiment patches sdpa attention")
    names = args.tasks.split(",")
    cases = [case for task in retrieval.tasks(args.part) if task.name in names
             for case in retrieval.cases(task, loaded.tokenizer, [args.context], [0.1, 0.5, 0.9], range(args.seeds))]  # fmt: skip
    out: dict[str, list[Any]] = {}
    for mode in args.modes.split(","):
        MODE["value"] = (
            mode.partition(":")[0] if mode.partition(":")[0] in ("zero", "mean", "wmean") else "none"
        )
        rows = []
        for case in cases:
            outcome = retrieval.run_case(loaded.model, loaded.tokenizer, case, config_for(mode, args.context))
            right = retrieval.correct(case, outcome.text)
            rows.append(
                [case.task, case.depth, case.answer, right, round(outcome.answer_logprob, 2), outcome.text]
            )
            print(mode, *rows[-1][:5], repr(outcome.text[:16]), flush=True)
        out[mode] = rows
        mean = sum(r[4] for r in rows) / len(rows)
        print(
            f"{mode}: {sum(r[3] for r in rows)}/{len(rows)} right, mean log p(answer) {mean:.2f}", flush=True
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=1)


if __name__ == "__main__":
    main()
