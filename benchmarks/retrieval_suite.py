"""The retrieval suite (`kvlimit.eval.retrieval`) on the embedded model: every task of a part, every context,
through the full cache and bounded caches of a fraction of the context, side by side (a table, JSON, a plot).

Configurations (`--configs`, comma-separated): `full`; `sinks`; `recall:F:SCORE[:BLOCK][:eN][:qN][:packed|:own|:full]`
(sinks with a recall tier of F of the limit, blocks chosen by SCORE: keys, distance or bounds; blocks of BLOCK
tokens, default `kvlimit.cache.recall.BLOCK`; `eN`: chosen every N decode steps, `recall_every`; `qN`: a
prompt's last N tokens choose their blocks one by one, `recall_queries`, 0 for none; `packed` / `own` / `full`:
recalled tokens attended side by side after the sinks, each at its own distance, or so and the sinks too,
`recall_positions="packed"` / `"distance"` / `"full"`; without any, the default). Every bounded configuration's limit
is `--fraction` of the case's context. Beside whether each greedy answer is right, each case's answer
is teacher-forced after the question and its log-probability recorded (`retrieval.run_case`): a
pass/fail answer of a small model flips on small changes, the likelihood shows how near each cache came.

    python benchmarks/retrieval_suite.py --part tune --contexts 1024,2048 --configs full,sinks,recall:0.25:keys:16
    python benchmarks/retrieval_suite.py --part held-out --contexts 1024,2048,4096 --json held-out.json --plot held-out.png
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from typing import Any

import torch
from tqdm import tqdm

import kvlimit
from kvlimit.eval import retrieval
from kvlimit.models import load_model


def config_for(spec: str, context: int, fraction: float) -> kvlimit.LimitConfig | None:
    """The bounded cache of a configuration at a context (None: the full cache)."""
    if spec == "full":
        return None
    limit = max(16, round(fraction * context))
    if spec == "sinks":
        return kvlimit.LimitConfig.create(limit)
    kind, share, score, *rest = spec.split(":")
    named = {"packed": "packed", "own": "distance", "full": "full"}
    places = [named[r] for r in rest if r in named]
    rest = [r for r in rest if r not in named]
    every = [int(r[1:]) for r in rest if r.startswith("e")]
    queries = [int(r[1:]) for r in rest if r.startswith("q")]
    block = [int(r) for r in rest if not r.startswith(("e", "q"))]
    if kind != "recall" or len(block) > 1 or len(every) > 1 or len(queries) > 1 or len(places) > 1:
        raise SystemExit(
            f"--configs: {spec!r} is not full, sinks or recall:F:SCORE[:BLOCK][:eN][:qN][:packed|:own|:full]"
        )
    recall = max(16, round(float(share) * limit) // 16 * 16)
    return kvlimit.LimitConfig.create(limit, recall=recall, recall_score=score, recall_block=block[0] if block else None,
                                      recall_every=every[0] if every else None,
                                      recall_queries=queries[0] if queries else None,
                                      recall_positions=places[0] if places else None)  # fmt: skip


def run(args: argparse.Namespace) -> dict[str, Any]:
    try:
        chosen = retrieval.tasks(args.part, args.tasks.split(",") if args.tasks else None)
    except ValueError as exc:
        raise SystemExit(f"--tasks: {exc}") from exc
    loaded = load_model(None)
    torch.set_num_threads(args.threads)
    contexts = [int(c) for c in args.contexts.split(",")]
    depths = [float(d) for d in args.depths.split(",")]
    seeds = list(range(args.seeds))
    specs = args.configs.split(",")
    work = [(task, case) for task in chosen
            for case in retrieval.cases(task, loaded.tokenizer, contexts, depths, seeds)]  # fmt: skip
    results: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    records = []
    started = time.perf_counter()
    with tqdm(total=len(work) * len(specs), desc="retrieval", file=sys.stderr) as bar:
        for task, case in work:
            for spec in specs:
                config = config_for(spec, case.context, args.fraction)
                outcome = retrieval.run_case(loaded.model, loaded.tokenizer, case, config)
                ok = retrieval.correct(case, outcome.text)
                results[spec][f"{case.part}/{case.context}"].append(ok)
                records.append(dict(task=task.name, part=case.part, kind=task.kind, context=case.context,
                                    depth=case.depth, config=spec, answer=outcome.text, expected=case.answer,
                                    correct=ok, answer_logprob=round(outcome.answer_logprob, 4)))  # fmt: skip
                bar.update()
    return {
        "part": args.part, "tasks": [t.name for t in chosen], "contexts": contexts, "depths": depths, "seeds": args.seeds, "fraction": args.fraction,
        "configs": specs, "seconds": round(time.perf_counter() - started, 1), "records": records,
        "summary": {spec: {key: [sum(v), len(v)] for key, v in cells.items()} for spec, cells in results.items()},
    }  # fmt: skip


def cell_order(key: str) -> tuple[str, int]:
    """Sort key of a cell "part/context": by part, then by context as a number."""
    part, context = key.split("/")
    return part, int(context)


def table(result: dict[str, Any]) -> str:
    keys = sorted({key for cells in result["summary"].values() for key in cells},
                  key=cell_order)  # fmt: skip
    rows = [["config", *keys, "all"]]
    for spec, cells in result["summary"].items():
        total = [sum(cells[k][0] for k in keys), sum(cells[k][1] for k in keys)]
        rows.append([spec, *(f"{cells[k][0]}/{cells[k][1]}" for k in keys), f"{total[0]}/{total[1]}"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    by_kind = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for r in result["records"]:
        cell = by_kind[r["config"]][r["kind"]]
        cell[0] += r["correct"]
        cell[1] += 1
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    lines.extend(likelihood_lines(result))
    lines.append("by kind: " + "; ".join(f"{spec}: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in kinds.items())
                                          for spec, kinds in by_kind.items()))  # fmt: skip
    return "\n".join(lines)


def likelihood_lines(result: dict[str, Any]) -> list[str]:
    """Mean log p(answer) per configuration and cell (teacher-forced, nats: 0 is certain), and how much
    of the gap between `sinks` and the full cache each configuration closes (1: all of it)."""
    by_cell: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in result["records"]:
        if "answer_logprob" in r:
            by_cell[r["config"]][f"{r['part']}/{r['context']}"].append(r["answer_logprob"])
    if not by_cell:
        return []
    keys = sorted(
        {k for cells in by_cell.values() for k in cells},
        key=cell_order,
    )
    mean = {spec: {k: sum(v) / len(v) for k, v in cells.items()} for spec, cells in by_cell.items()}
    lines = ["mean log p(answer), teacher-forced (nats; 0 is certain):"]
    for spec, cells in mean.items():
        line = f"  {spec}: " + ", ".join(f"{k} {cells[k]:.2f}" for k in keys if k in cells)
        if spec not in ("full", "sinks") and "full" in mean and "sinks" in mean:
            shares = [f"{k} {(cells[k] - mean['sinks'][k]) / (mean['full'][k] - mean['sinks'][k]):.2f}" for k in keys
                      if k in cells and k in mean["full"] and k in mean["sinks"]
                      and mean["full"][k] != mean["sinks"][k]]  # fmt: skip
            line += " | share of the sinks-to-full gap closed: " + ", ".join(shares)
        lines.append(line)
    return lines


def plot(result: dict[str, Any], path: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9, 4.5), dpi=110)
    FigureCanvasAgg(figure)
    axis = figure.subplots()
    keys = sorted({k for cells in result["summary"].values() for k in cells},
                  key=cell_order)  # fmt: skip
    width = 0.8 / max(1, len(result["summary"]))
    for n, (spec, cells) in enumerate(result["summary"].items()):
        values = [cells[k][0] / cells[k][1] if k in cells else 0 for k in keys]
        axis.bar([i + n * width for i in range(len(keys))], values, width=width, label=spec)
    axis.set_xticks([i + 0.4 - width / 2 for i in range(len(keys))], keys)
    axis.set_ylabel("retrieved")
    axis.set_ylim(0, 1)
    axis.legend(fontsize=7)
    axis.set_title(f"retrieval suite, bounded caches at {result['fraction']} of the context")
    figure.tight_layout()
    figure.savefig(path, format="png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="tune", help="tune, held-out or both")
    parser.add_argument("--tasks", default=None, help="only these tasks of the part, comma-separated")
    parser.add_argument("--contexts", default="1024,2048")
    parser.add_argument("--depths", default="0.1,0.5,0.9")
    parser.add_argument("--seeds", type=int, default=2, help="cases per task, context and depth")
    parser.add_argument(
        "--fraction", type=float, default=0.25, help="the bounded caches' limit, of the context"
    )
    parser.add_argument("--configs", default="full,sinks,recall:0.25:keys:16,recall:0.25:distance")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", default=None)
    parser.add_argument("--plot", default=None)
    args = parser.parse_args()
    result = run(args)
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.plot:
        plot(result, args.plot)


if __name__ == "__main__":
    main()
