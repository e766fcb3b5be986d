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
- `hwmean`: one column per query head (the last g columns of a KV head, g its query heads), each with
  its head's bias (the other heads masked off) and its head's weighted mean (averaged over a chunk's
  queries only);
- `none`: the library as it is (no rest column); `fullcache`: the full cache; `sinks`: no recall.

A mode may name the placement, `wmean:full` (`recall_positions`; default "distance"). Limit = a quarter
of the context, R = L/4, as the retrieval suite. Batch 1 only. It patches private methods
(`RecallStore.recall`, `RecallHook.fill`, `StaticRecall.fill`) and transformers' sdpa entry for the
run: a diagnostic, not an API.

    python benchmarks/recall_rest_mass.py none,zero,mean,wmean,wmean:full --tasks lock-combination --seeds 3

`--perplexity TOKENS` streams the corpus' first TOKENS tokens through each mode instead, at `--limits`
(chunks of a quarter of the limit): what the rest column does to running text.

    python benchmarks/recall_rest_mass.py sinks,none,wmean,hwmean --perplexity 10000 --limits 256,1024
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
from kvlimit.eval.corpus import ensure_corpus
from kvlimit.eval.perplexity import streaming_perplexity
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
    elif MODE["value"] == "hwmean":  # one column per query head: (kv_heads, g, dim)
        weight = torch.softmax(masked, dim=-1).nan_to_num(0).mean(dim=2)  # (kv_heads, g, n)
        value = torch.einsum("kgn,knd->kgd", weight, values.flatten(1, 2))
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
    per_head = rest_value.dim() == 3  # hwmean: the last g columns, column j for query head j of each KV head
    first = column - rest_value.shape[1] + 1 if per_head else column
    key[:, :, first : column + 1] = 0
    value[0, :, first : column + 1] = (rest_value if per_head else rest_value[:, None]).to(value.dtype)
    PENDING[layer] = (first, column + 1 - first, log_mass.reshape(1, heads, n))


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
            first, width, log_mass = PENDING.pop(layer)
            if mask is None:  # a decode step with nothing masked
                mask = torch.zeros(
                    (query.shape[0], 1, 1, key.shape[-2]), dtype=query.dtype, device=query.device
                )
            elif mask.dtype == torch.bool:
                mask = torch.zeros(mask.shape, dtype=query.dtype, device=mask.device).masked_fill(
                    ~mask, float("-inf")
                )
            mask = mask[..., : key.shape[-2]].expand(*query.shape[:3], -1).clone()
            own = torch.arange(query.shape[1], device=query.device) % width  # query head h's column
            for j in range(width):  # a masked column (early chunks) stays masked
                bias = log_mass.masked_fill((own != j)[None, :, None], float("-inf"))
                mask[..., first + j] += bias.to(mask.dtype)
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


def set_mode(mode: str) -> None:
    value = mode.partition(":")[0]
    MODE["value"] = value if value in ("zero", "mean", "wmean", "hwmean") else "none"


def perplexity(loaded: Any, modes: list[str], tokens: int, limits: list[int]) -> None:
    """Streaming perplexity of the corpus' first `tokens` tokens for each mode at each limit, in chunks of
    a quarter of the limit (`streaming_perplexity`'s default): the rest column in running text."""
    text = ensure_corpus().read_text(encoding="utf-8")
    ids = loaded.tokenizer(text, return_attention_mask=False)["input_ids"][:tokens]
    for limit in limits:
        for mode in modes:
            set_mode(mode)
            config = config_for(mode, 4 * limit)
            if config is None:
                raise SystemExit("--perplexity: fullcache streams nothing (kvlimit ppl --baseline full)")
            result = streaming_perplexity(loaded.model, ids, cache_limit=config)
            print(f"limit {limit} {mode}: perplexity {result.ppl:.3f} ({result.seconds:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "modes", help="comma-separated: none, zero, mean, wmean, hwmean, fullcache, sinks [:PLACEMENT]"
    )
    parser.add_argument("--part", default="tune", choices=["tune", "held-out"])
    parser.add_argument("--tasks", default="lock-combination")
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--perplexity", type=int, default=None, metavar="TOKENS",
        help="instead of retrieval: streaming perplexity of the corpus' first TOKENS tokens at --limits",
    )  # fmt: skip
    parser.add_argument("--limits", default="256,1024", help="cache limits of --perplexity (R = L/4)")
    args = parser.parse_args()
    try:
        chosen = retrieval.tasks(args.part, args.tasks.split(","))
    except ValueError as exc:
        raise SystemExit(f"--tasks: {exc}") from exc
    torch.set_num_threads(2)
    patch()
    loaded = load_model(None)
    if loaded.model.config._attn_implementation != "sdpa":
        raise SystemExit("this experiment patches sdpa attention")
    if args.perplexity is not None:
        perplexity(loaded, args.modes.split(","), args.perplexity, [int(n) for n in args.limits.split(",")])
        return
    cases = [case for task in chosen
             for case in retrieval.cases(task, loaded.tokenizer, [args.context], [0.1, 0.5, 0.9], range(args.seeds))]  # fmt: skip
    out: dict[str, list[Any]] = {}
    for mode in args.modes.split(","):
        set_mode(mode)
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
