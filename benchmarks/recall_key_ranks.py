"""Why the recall tier loses a planted key: where the full cache looks for it, and where recall looks.

For each case of the retrieval suite (`kvlimit.eval.retrieval`; the tune part by default: use it to
study, not the held-out part) and the default recall configuration at a quarter of the context, at the
step that chooses the answer's first token:

- per layer and KV head, the full cache's attention on the key's tokens (the mean over the head's query
  heads, from a reference forward over the whole text) and how much of it the bounded cache attended;
- per layer and KV head, the rank of the key's best block among the stored blocks under the bounded
  run's own query (what recall chose by) and under the full cache's query of the same layer (over the
  same stored keys, scored as "distance" scores: the query at its token index, keys at theirs);
- with `--forced`, the greedy answers of `sinks`, recall as is, and recall with the key's blocks forced
  into every layer's recalled set (an oracle, not a method: it shows whether choosing the key's blocks
  would be enough).

Reads the recall store's scores through a wrapper around `RecallStore._block_scores` (a private method:
this is a diagnostic, not an API). Prints per case the (layer, head) pairs that give the key at least
`--mass` of their attention; `--json` writes everything.

    python benchmarks/recall_key_ranks.py --contexts 4096 --forced --json results/recall/key-ranks.json
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import torch
from retrieval_suite import config_for  # beside this script (run as `python benchmarks/...`)

from kvlimit.build import build_cache
from kvlimit.cache import recall as recall_module
from kvlimit.eval import retrieval
from kvlimit.eval.attention_recall import attended_sets, reference
from kvlimit.forward import forward_step, prefill, prefill_chunk
from kvlimit.integrations import hf
from kvlimit.models import load_model

SPEC = "recall:0.25:distance"
_SCORES = recall_module.RecallStore._block_scores


def key_positions(case: retrieval.Case, tokenizer: Any) -> list[int]:
    """Token positions of the planted value in the case's text (its tokens without a leading space)."""
    text = case.prompt + case.generated + case.question
    alone = tokenizer(case.answer, add_special_tokens=False)["input_ids"]
    after_space = tokenizer(" " + case.answer, add_special_tokens=False)["input_ids"][1:]
    for value in (alone, after_space):
        for start in range(len(text) - len(value) + 1):
            if text[start : start + len(value)] == value:
                return list(range(start, start + len(value)))
    raise SystemExit(f"{case.task}: the value {case.answer!r} is not found in its text")


def ranks(scores: torch.Tensor, holds_key: torch.Tensor) -> list[int]:
    """Per head, how many blocks score above the key's best block (0: the key's block is first)."""
    best = scores[:, holds_key].amax(dim=1, keepdim=True)
    return (scores > best).sum(dim=1).tolist()


def diagnose(model: Any, tokenizer: Any, case: retrieval.Case, mass: float) -> dict[str, Any]:
    text = case.prompt + case.generated + case.question
    ids = torch.tensor([text])
    key = key_positions(case, tokenizer)
    t = len(text) - 1  # the step whose logits choose the answer's first token
    ref = reference(model, ids)
    config = config_for(SPEC, case.context, 0.25)
    assert config is not None
    cache = build_cache(model, config, max_length=len(text))
    assert cache.recall_hook is not None and cache.recall is not None
    cache.recall_hook.record_recalled = True
    captured: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    def spy(
        self: Any, group: Any, i: int, ids_: torch.Tensor, grouped: torch.Tensor, query_index: Any
    ) -> Any:
        out = _SCORES(self, group, i, ids_, grouped, query_index)
        captured[group.members[i]] = (out[0].detach().clone(), ids_[0].clone())
        return out

    start = len(case.prompt)
    chunk = prefill_chunk(cache, start, config.prefill_chunk)
    extra = hf.last_logits_only(model)
    with torch.no_grad():
        prefill(model, cache, ids[:, :start], torch.ones_like(ids[:, :start]), chunk)
        for step in range(start - 1, t):
            forward_step(model, cache, ids[:, step : step + 1], **extra)
        recall_module.RecallStore._block_scores = spy  # type: ignore[method-assign]
        try:
            forward_step(model, cache, ids[:, t : t + 1], **extra)
        finally:
            recall_module.RecallStore._block_scores = _SCORES  # type: ignore[method-assign]
    store = cache.recall
    layers = [i for i in cache.bounded_indices if i in ref.queries and i in captured]
    sets = attended_sets(cache, layers, t)
    rows = []
    for layer in layers:
        p = ref.attention(layer, t)  # (kv_heads, t + 1)
        on_key = p[:, key].sum(dim=1)
        held = (p[:, key] * sets[layer][:, key]).sum(dim=1)
        scores, table = captured[layer]
        assert store.block_first is not None
        first = store.block_first[table]
        holds_key = torch.zeros(len(table), dtype=torch.bool)
        for offset in range(store.block):
            holds_key |= torch.isin(first + offset, torch.tensor(key))
        group, at = store._where[layer]
        keys = group.keys[at][:, table].float()  # (kv_heads, blocks, block, dim), rotated at their indices
        query = ref.queries[layer][:, t]
        grouped = query.view(keys.shape[0], -1, query.shape[-1])
        full_scores = torch.einsum("knjd,kgd->kngj", keys, grouped).amax(dim=(-1, -2))
        bounded_rank = ranks(scores.float(), holds_key) if holds_key.any() else []
        full_rank = ranks(full_scores, holds_key) if holds_key.any() else []
        for head in range(p.shape[0]):
            if float(on_key[head]) >= mass:
                rows.append({"layer": layer, "head": head, "on_key": round(float(on_key[head]), 3),
                             "held": round(float(held[head]), 3),
                             "bounded_rank": bounded_rank[head] if bounded_rank else None,
                             "full_rank": full_rank[head] if full_rank else None})  # fmt: skip
    return {"task": case.task, "depth": case.depth, "context": case.context, "key": key,
            "blocks": int(captured[layers[0]][1].numel()) if layers else 0, "heads": rows}  # fmt: skip


def forced_answers(model: Any, tokenizer: Any, case: retrieval.Case, key: list[int]) -> dict[str, bool]:
    """Greedy answers of sinks, recall as is, and recall with the key's blocks forced in (the oracle)."""
    wanted = torch.tensor(key)

    def forced(
        self: Any, group: Any, i: int, ids_: torch.Tensor, grouped: torch.Tensor, query_index: Any
    ) -> Any:
        out = _SCORES(self, group, i, ids_, grouped, query_index)
        first = self.block_first[ids_[0]]
        holds = torch.zeros(first.shape, dtype=torch.bool)
        for offset in range(self.block):
            holds |= torch.isin(first + offset, wanted)
        return out.masked_fill(holds, 1e4)

    found = {}
    for name, spec in (("sinks", "sinks"), ("recall", SPEC), ("recall, key forced", SPEC)):
        if name.endswith("forced"):
            recall_module.RecallStore._block_scores = forced  # type: ignore[method-assign]
        try:
            text = retrieval.answer(model, tokenizer, case, config_for(spec, case.context, 0.25))
        finally:
            recall_module.RecallStore._block_scores = _SCORES  # type: ignore[method-assign]
        found[name] = retrieval.correct(case, text)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", default="tune", choices=["tune", "held-out"])
    parser.add_argument("--kind", default="single", help="task kind: single, multi, story or mid-generation")
    parser.add_argument(
        "--tasks", default=None, help="only these tasks, comma-separated (default: every one)"
    )
    parser.add_argument("--contexts", default="4096")
    parser.add_argument("--depths", default="0.1,0.5,0.9")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--mass", type=float, default=0.03, help="print heads giving the key at least this")
    parser.add_argument(
        "--forced", action="store_true", help="also the answers with the key's blocks forced in"
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    try:
        chosen = retrieval.tasks(args.part, args.tasks.split(",") if args.tasks else None)
    except ValueError as exc:
        raise SystemExit(f"--tasks: {exc}") from exc
    torch.set_num_threads(2)
    loaded = load_model(None)
    contexts = [int(c) for c in args.contexts.split(",")]
    depths = [float(d) for d in args.depths.split(",")]
    results = []
    for task in chosen:
        if task.kind != args.kind:
            continue
        for case in retrieval.cases(task, loaded.tokenizer, contexts, depths, range(args.seeds)):
            found = diagnose(loaded.model, loaded.tokenizer, case, args.mass)
            if args.forced:
                found["answers"] = forced_answers(loaded.model, loaded.tokenizer, case, found["key"])
            results.append(found)
            print(f"{case.task} at {case.depth} of {case.context} ({found['blocks']} stored blocks)"
                  + (f": {found['answers']}" if args.forced else ""))  # fmt: skip
            for row in found["heads"]:
                print(f"  layer {row['layer']:>2} head {row['head']}: key {row['on_key']:.2f} of the full cache's "
                      f"attention, {row['held']:.2f} attended; key's block ranked {row['bounded_rank']} by the "
                      f"bounded query, {row['full_rank']} by the full cache's")  # fmt: skip
            sys.stdout.flush()
    if args.forced:
        for name in ("sinks", "recall", "recall, key forced"):
            print(f"{name}: {sum(r['answers'][name] for r in results)}/{len(results)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
