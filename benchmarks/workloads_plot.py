"""Merge the JSON of several `kvlimit throughput --workloads` runs (one budget) into one table and figure.

    python benchmarks/workloads_plot.py results/continuous/ab-64MiB.json results/continuous/c-64MiB.json \
        --plot results/continuous/workloads-64MiB.png
"""

from __future__ import annotations

import argparse
import json
import pathlib

from kvlimit.bench.workloads import plot_workloads, workload_lines


def merged(paths: list[str]) -> dict:
    results = [json.loads(pathlib.Path(p).read_text(encoding="utf-8")) for p in paths]
    out = dict(results[0])
    out["workloads"] = {k: v for r in results for k, v in r["workloads"].items()}
    out["runs"] = [run for r in results for run in r["runs"]]
    out["ratios"] = {k: v for r in results for k, v in r["ratios"].items()}
    out["wall_s"] = sum(r["wall_s"] for r in results)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("json", nargs="+", help="results of kvlimit throughput --workloads ... --json FILE")
    parser.add_argument("--plot", default=None, help="the merged figure (PNG)")
    args = parser.parse_args()
    result = merged(args.json)
    print("\n".join(workload_lines(result)))
    if args.plot:
        plot_workloads(result, args.plot)


if __name__ == "__main__":
    main()
