"""`kvlimit serve` under load, side by side with `transformers serve --continuous-batching`, in one run.

Both servers run the embedded SmolLM2-135M-Instruct (float32, CPU) in a subprocess of this script, with
the same bytes of keys and values: kvlimit's rows of `--cache-limit` tokens (and its prefill row),
transformers' `--cb-num-blocks` pages of `--cb-block-size` tokens. The same streamed chat requests go to
each over loopback (`kvlimit.bench.load`: at most `--concurrency` at once, nothing retried), then one
request whose prompt alone is longer than the model's context (8,192 tokens). Reported per server:
requests completed, rejected (429), failed, cut short; completion tokens/s; time to first token and
per-token latency p50 / p99; the server's peak RSS (VmHWM), and for kvlimit the peak `kvlimit plan`
predicted for its `--memory`; what became of the long request. Run it pinned to the cores the servers
may use (the script, its servers and the load share them)::

    taskset -c 1 python benchmarks/serve_load.py --requests 200 --concurrency 32 \
        --json benchmarks/results/serve/load.json --plot benchmarks/results/serve/load.png

The table goes to stdout (and `--table FILE`); each server's log to `--logs DIR`.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import httpx2 as httpx

from kvlimit.bench.load import load_lines, outcomes_from_json, outcomes_json, plot_load, run_load, summarize
from kvlimit.bench.workloads import TOPICS

CONTEXT = 8192  # SmolLM2-135M's max_position_embeddings


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--cache-limit", type=int, default=256)
    parser.add_argument(
        "--memory", default="1200MiB", help="kvlimit serve --memory (its rows: what the plan fits)"
    )
    parser.add_argument("--max-queue", type=int, default=64)
    parser.add_argument(
        "--stories",
        action="store_true",
        help="every request asks for a long story (else half ask for a word)",
    )
    parser.add_argument("--long-request", action=argparse.BooleanOptionalAction, default=True,
                        help="also send one prompt longer than the context")  # fmt: skip
    parser.add_argument("--servers", default="kvlimit,transformers")
    parser.add_argument("--overload-queue", type=int, default=None,
                        help="also run kvlimit with this --max-queue (429s expected)")  # fmt: skip
    parser.add_argument("--extra-limit", type=int, default=None,
                        help="also run kvlimit at this --cache-limit in the same --memory")  # fmt: skip
    parser.add_argument("--json", default=None)
    parser.add_argument("--plot", default=None)
    parser.add_argument("--table", default=None)
    parser.add_argument("--logs", default="benchmarks/results/serve")
    parser.add_argument(
        "--from-json", default=None, help="render the table and plot of a saved --json run again"
    )
    return parser.parse_args()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bodies(count: int, max_tokens: int, model: str, stories: bool = False) -> list[dict[str, Any]]:
    """Chat requests: every other one asks for a long story, the rest for one word (answers end at
    different lengths, end of sequence on); with `stories`, every one asks for a story."""
    out = []
    for i in range(count):
        topic = TOPICS[i % len(TOPICS)]
        text = (
            f"Write a long story about {topic}." if stories or i % 2 == 0 else f"Name one colour for {topic}."
        )
        out.append({"model": model, "messages": [{"role": "user", "content": text}], "max_tokens": max_tokens,
                    "temperature": 0.7, "top_p": 0.9})  # fmt: skip
    return out


def long_request(model: str) -> dict[str, Any]:
    """A prompt longer than the model's context by itself (about 9,000 tokens), then 32 new tokens."""
    paragraph = ("The lighthouse keeper wrote in his log every night: the weather, the ships that passed, "
                 "the colour of the sea at dusk and the names of the birds on the rocks. ")  # fmt: skip
    text = paragraph * 290 + "Summarise the log in one sentence."
    return {
        "model": model,
        "messages": [{"role": "user", "content": text}],
        "max_tokens": 32,
        "temperature": 0,
    }


def wait_ready(url: str, process: subprocess.Popen[bytes], path: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            if httpx.get(url + path, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise RuntimeError("the server did not come up")


def peak_rss(pid: int) -> int:
    """The peak resident memory so far (VmHWM) of the process and every process under it (transformers
    serve runs its model in a child process), added up, in bytes."""
    text = pathlib.Path(f"/proc/{pid}/status").read_text()
    total = int(re.search(r"VmHWM:\s+(\d+) kB", text).group(1)) * 1024
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            total += peak_rss(int(child))
    return total


def one_request(url: str, body: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    response = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=900)
    seconds = time.perf_counter() - start
    result: dict[str, Any] = {"status": response.status_code, "seconds": round(seconds, 2)}
    try:
        payload = response.json()
    except ValueError:
        return {**result, "body": response.text[:300]}
    if response.status_code == 200 and payload.get("choices"):
        choice = payload["choices"][0]
        return {**result, "usage": payload.get("usage"), "finish_reason": choice.get("finish_reason"),
                "text": (choice.get("message") or {}).get("content", "")[:200]}  # fmt: skip
    return {**result, "body": json.dumps(payload)[:400]}


def serve_kvlimit(
    args: argparse.Namespace, port: int, limit: int, max_queue: int, log: pathlib.Path
) -> tuple[Any, dict[str, Any]]:
    command = [sys.executable, "-m", "kvlimit", "serve", "--cache-limit", str(limit), "--memory",
               args.memory, "--max-queue", str(max_queue), "--port", str(port), "--threads", "1", "--seed", "0"]  # fmt: skip
    process = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT)
    wait_ready(f"http://127.0.0.1:{port}", process, "/health")
    text = log.read_text()
    rows = int(re.search(r"(\d+) rows of cache_limit", text).group(1))
    peak = re.search(r"predicted peak ([\d.]+) (MiB|GiB)", text)
    predicted = float(peak.group(1)) * (2**30 if peak.group(2) == "GiB" else 2**20) if peak else None
    return process, {"rows": rows, "predicted_peak_bytes": predicted, "command": " ".join(command[1:])}


def serve_transformers(
    args: argparse.Namespace, port: int, rows: int, folder: str, log: pathlib.Path
) -> tuple[Any, dict[str, Any]]:
    page = 32
    pages = (rows + 1) * args.cache_limit // page  # the same KV bytes as kvlimit's rows and prefill row
    binary = pathlib.Path(sys.executable).with_name("transformers")
    command = [str(binary), "serve", folder, "--continuous-batching", "--device", "cpu", "--dtype", "float32",
               "--host", "127.0.0.1", "--port", str(port), "--cb-block-size", str(page), "--cb-num-blocks", str(pages)]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env)
    wait_ready(f"http://127.0.0.1:{port}", process, "/v1/models")
    return process, {"pages": pages, "page_size": page, "command": " ".join(command[1:])}


def measure(
    name: str, url: str, model: str, args: argparse.Namespace, pid: int
) -> tuple[Any, dict[str, Any]]:
    one_request(url, bodies(1, 8, model)[0])  # warm up
    requests = bodies(args.requests, args.max_tokens, model, args.stories)
    outcomes, wall = run_load(url, requests, concurrency=args.concurrency, label=name)
    summary = summarize(outcomes, wall)
    summary["peak_rss_bytes"] = peak_rss(pid)
    if args.long_request:
        summary["longer_than_context"] = one_request(url, long_request(model))
    return outcomes, summary


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()


def report(runs: dict[str, Any], settings: dict[str, Any], facts: dict[str, Any]) -> None:
    """Print the table; write it, the JSON (`facts` and every run's outcomes) and the plot where asked."""
    summaries = {name: summary for name, (_, summary) in runs.items()}
    lines = load_lines(summaries)
    for name, summary in summaries.items():
        lines.append(f"{name}: peak RSS {summary['peak_rss_bytes'] / 2**20:.0f} MiB"
                     + (f" (plan predicted {summary['predicted_peak_bytes'] / 2**20:.0f} MiB)" if summary.get("predicted_peak_bytes") else "")
                     + f"; finish reasons {summary['finish_reasons']}")  # fmt: skip
        if "longer_than_context" in summary:
            lines.append(f"  longer than the context: {json.dumps(summary['longer_than_context'])[:400]}")
    print("\n".join(lines))
    if settings["table"]:
        pathlib.Path(settings["table"]).write_text("\n".join(lines) + "\n")
    if settings["json"]:
        data = {**facts, "runs": {n: {**s, "outcomes": outcomes_json(o)} for n, (o, s) in runs.items()}}
        pathlib.Path(settings["json"]).write_text(json.dumps(data, indent=1))
    if settings["plot"]:
        title = (f"{settings['requests']} streamed chat requests{' (stories)' if settings['stories'] else ''} at concurrency "
                 f"{settings['concurrency']}, max_tokens {settings['max_tokens']}, SmolLM2-135M float32, one CPU core")  # fmt: skip
        plot_load(runs, settings["plot"], title)


def rerender(args: argparse.Namespace) -> int:
    """The table (and plot) of a saved run, from its outcomes."""
    data = json.loads(pathlib.Path(args.from_json).read_text())
    runs = {}
    for name, run in data["runs"].items():
        outcomes = outcomes_from_json(run.pop("outcomes"))
        runs[name] = (outcomes, {**run, **summarize(outcomes, run["wall_s"])})
    report(
        runs, data["settings"] | {k: v for k, v in vars(args).items() if k in ("table", "plot", "json")}, {}
    )
    return 0


def main() -> int:
    args = arguments()
    if args.from_json:
        return rerender(args)
    logs = pathlib.Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    servers = args.servers.split(",")
    runs: dict[str, Any] = {}
    facts: dict[str, Any] = {"settings": vars(args)}
    rows = None
    plans = [("kvlimit", args.cache_limit, args.max_queue)]
    if args.overload_queue is not None:
        plans.append(("kvlimit-overload", args.cache_limit, args.overload_queue))
    if args.extra_limit is not None:
        plans.append((f"kvlimit-{args.extra_limit}", args.extra_limit, args.max_queue))
    for name, limit, queue in plans if "kvlimit" in servers else []:
        port = free_port()
        process, info = serve_kvlimit(args, port, limit, queue, logs / f"{name}.log")
        rows = info["rows"] if rows is None else rows  # transformers gets the bytes of the first run's rows
        url = f"http://127.0.0.1:{port}"
        try:
            outcomes, summary = measure(
                f"{name} ({info['rows']} rows)", url, "SmolLM2-135M-Instruct", args, process.pid
            )
            summary["metrics_after"] = httpx.get(f"{url}/metrics").text
        finally:
            stop(process)
        summary["exit_code"] = process.returncode
        runs[f"kvlimit serve, {info['rows']} rows x {limit}, queue {queue}"] = (outcomes, {**summary, **info})
    if "transformers" in servers:
        folder = subprocess.run([sys.executable, "-c", "import kvlimit; print(kvlimit.model_folder())"],
                                capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]  # fmt: skip
        port = free_port()
        process, info = serve_transformers(args, port, rows or 8, folder, logs / "transformers.log")
        try:
            outcomes, summary = measure("transformers", f"http://127.0.0.1:{port}", folder, args, process.pid)
        finally:
            stop(process)
        runs[f"transformers serve --cb, {info['pages']} pages x {info['page_size']}"] = (
            outcomes,
            {**summary, **info},
        )
    report(runs, vars(args), facts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
