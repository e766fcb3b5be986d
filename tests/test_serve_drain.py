"""`kvlimit serve` stops on SIGTERM by draining: the command line in a subprocess on a tiny model folder.

After SIGTERM the server accepts no connection; a request that finishes within `--drain-seconds` ends as
usual (its finish reason, usage, `[DONE]`); one still running then ends with a final event saying why,
then `[DONE]`; every event is whole JSON; the process exits 0.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx2 as httpx

from .helpers import build_tiny

DRAIN = 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stream(url: str, body: dict, into: list) -> None:
    with httpx.stream(
        "POST", f"{url}/v1/completions", json={**body, "stream": True}, timeout=120
    ) as response:
        into.append(response.read().decode())


def events(raw: str) -> list:
    parts = raw.split("\n\n")
    assert parts[-2:] == ["data: [DONE]", ""], raw[-300:]
    return [json.loads(p.removeprefix("data: ")) for p in parts[:-2]]


def metric(url: str, name: str) -> float:
    text = httpx.get(f"{url}/metrics").text
    return float(re.search(rf"^{name} (\S+)$", text, re.M).group(1))


def wait_for(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if condition():
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_sigterm_drains_then_exits(tmp_path):
    tiny = build_tiny(tmp_path)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "kvlimit", "serve", "--model", str(tiny.folder), "--cache-limit", "24",
               "--batch-size", "2", "--port", str(port), "--drain-seconds", str(DRAIN), "--threads", "1"]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ)
    )
    try:
        wait_for(lambda: httpx.get(f"{url}/health").status_code == 200, timeout=90)
        endless, short = [], []
        threads = [threading.Thread(target=stream, args=(url, {"prompt": "hello", "max_tokens": 10**6,
                                                                "ignore_eos": True}, endless))]  # fmt: skip
        threads[0].start()
        wait_for(lambda: metric(url, "kvlimit_rows_active") == 1, timeout=30)
        threads.append(threading.Thread(target=stream, args=(url, {"prompt": "the end", "max_tokens": 150,
                                                                    "ignore_eos": True}, short)))  # fmt: skip
        threads[1].start()
        wait_for(lambda: metric(url, "kvlimit_rows_active") == 2, timeout=30)
        process.send_signal(signal.SIGTERM)
        wait_for(lambda: _refused(port), timeout=10)  # admits no connection once draining
        for thread in threads:
            thread.join(60)
        assert process.wait(DRAIN + 30) == 0
    finally:
        if process.poll() is None:
            process.kill()
    (finished,) = [c for c in events(short[0]) if c.get("choices") and c["choices"][0]["finish_reason"]]
    assert (
        finished["choices"][0]["finish_reason"] == "length" and finished["usage"]["completion_tokens"] == 150
    )
    cut = events(endless[0])
    assert "error" in cut[-1] and "shutting down" in cut[-1]["error"]["message"]
    assert f"--drain-seconds {DRAIN}" in cut[-1]["error"]["message"]
    assert all(c["choices"][0]["finish_reason"] is None for c in cut[:-1])


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False
