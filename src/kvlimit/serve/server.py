"""Running the app: uvicorn, and the drain on SIGTERM.

Contract: `serve(app, host, port)` runs `app` (from `kvlimit.serve.app.create_app`) until SIGTERM or
SIGINT, then drains: uvicorn stops accepting connections and closes idle ones, the engine's worker
admits nothing more and lets what is in flight run for the settings' `drain_seconds`, then ends the
rest with a final event saying why (`kvlimit.serve.worker`); every response is written whole before
`serve` returns (the signal is not raised again: the command exits 0).
`running(app)` is the same server in a thread of this process on a free loopback
port (tests, benchmarks): it yields the base URL and drains when the block ends.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

logger = logging.getLogger(__name__)


class DrainingServer(uvicorn.Server):
    """uvicorn's server, draining the engine's requests as it shuts down (see the module docstring)."""

    def __init__(self, config: uvicorn.Config, service: Any):
        super().__init__(config)
        self.service = service

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.service.worker.drain(self.service.settings.drain_seconds)
        await super().shutdown(sockets)
        # uvicorn raises the signal it caught again once it is done, so that the process dies of it; the
        # drain is this server's answer to SIGTERM, and the command exits 0 after it
        getattr(self, "_captured_signals", []).clear()


def _config(app: Any, **kwargs: Any) -> uvicorn.Config:
    drain = app.state.service.settings.drain_seconds
    # uvicorn cancels what still runs this long after the drain began: past the worker's own deadline
    return uvicorn.Config(app, timeout_graceful_shutdown=int(drain) + 10, access_log=False, **kwargs)


def serve(app: Any, host: str, port: int, *, log_level: str = "info") -> None:
    """Run `app` on `host`:`port` until SIGTERM or SIGINT, then drain (see the module docstring)."""
    DrainingServer(_config(app, host=host, port=port, log_level=log_level), app.state.service).run()


@contextlib.contextmanager
def running(app: Any, host: str = "127.0.0.1", timeout: float = 60.0) -> Iterator[str]:
    """`app` served from a thread on a free port of `host`; yields its base URL ("http://host:port")."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = DrainingServer(_config(app, log_config=None, log_level="warning"), app.state.service)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="kvlimit-serve", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
        sock.close()
