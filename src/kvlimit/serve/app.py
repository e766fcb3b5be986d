"""The server's HTTP surface: an OpenAI-compatible FastAPI app on one continuous engine.

Contract: `create_app(model, tokenizer, config, rows=R, settings=ServeSettings(...))` builds the
engine (`kvlimit.engine.ContinuousEngine`, R rows of `config`'s bounded cache, allocated once), its
worker thread (started and stopped with the app's lifespan) and the app:

- `POST /v1/completions`, `POST /v1/chat/completions` (`kvlimit.serve.completions`), `GET /v1/models`
  (the one served model), `GET /health` (200 `{"status": "ok"}`; 503 `draining` once shutting down),
  `GET /metrics` (Prometheus text, `kvlimit.serve.metrics`). No other route (no docs pages).
- Every error has OpenAI's body (`kvlimit.serve.errors`): a malformed or unknown field 400 naming it, an
  unknown model 404, a body over `max_body_bytes` 413, a full queue 429 with Retry-After, draining 503.
- With `settings.api_key`, every route but `/health` needs `Authorization: Bearer <key>` (compared in
  constant time), else 401. CORS is off unless `settings.cors_origins` names origins.

Nothing a request says is loaded: the model is the one given here.
"""

from __future__ import annotations

import dataclasses
import hmac
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request as HTTPRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..build import build_cache
from ..config import LimitConfig
from ..engine import ContinuousEngine
from ..forward import prefill_chunk as forward_prefill_chunk
from ..integrations import hf
from ..sizing import token_limit
from .completions import answer, open_stream, prepare
from .errors import APIError, error_response, validation_error
from .metrics import CONTENT_TYPE, Metrics
from .schemas import BODIES, ChatRequest, CompletionRequest, SamplingFields
from .worker import EngineWorker


@dataclass(frozen=True)
class ServeSettings:
    """What the server admits (see `kvlimit serve --help` for each)."""

    model_name: str
    max_queue: int = 64
    max_prompt_tokens: int = 32768
    max_body_bytes: int = 4 * 2**20
    drain_seconds: float = 30.0
    api_key: str | None = None
    cors_origins: tuple[str, ...] = ()


@dataclass
class Service:
    """What the routes share: the engine's worker, the tokenizer, the settings and the metrics."""

    worker: EngineWorker
    tokenizer: Any
    settings: ServeSettings
    metrics: Metrics

    @property
    def rows(self) -> int:
        return self.worker.engine.rows


def pad_token_id(model: Any, tokenizer: Any) -> int:
    """The tokenizer's padding id, else the model's, else its end-of-sequence id, else 0."""
    for pad in (tokenizer.pad_token_id, model.generation_config.pad_token_id,
                *sorted(hf.eos_token_ids(model.generation_config.eos_token_id))):  # fmt: skip
        if pad is not None:
            return int(pad)
    return 0


def serving_config(
    model: Any, config: LimitConfig, rows: int, prefill_chunk: int | None = None, prefill_rows: int = 1
) -> LimitConfig:
    """`config` for the server's `rows` (a byte budget holds them and the `prefill_rows` prefill rows) with
    its prefill chunk: `prefill_chunk`, else the config's, else the policy's chunk (a quarter of the limit),
    so that a prompt of any length is prefilled one chunk per decode step (`ValueError` if it exceeds the
    room; without a prefill row, every chunk in the step that admits it)."""
    config = config.with_tokens(token_limit(model, config, rows + prefill_rows))
    chosen = prefill_chunk if prefill_chunk is not None else config.prefill_chunk
    chunk = forward_prefill_chunk(build_cache(model, config, rows=1), 2**62, chosen)
    return dataclasses.replace(config, prefill_chunk=chunk)


def create_app(
    model: Any, tokenizer: Any, config: LimitConfig, *, rows: int, settings: ServeSettings, seed: int | None = None,
    prefill_chunk: int | None = None, compile: bool = False, prefill_rows: int = 1,
) -> FastAPI:  # fmt: skip
    """The app (see the module docstring): `rows` rows of `serving_config(model, config, rows, prefill_chunk,
    prefill_rows)`; `seed` seeds the requests that bring none; `compile` compiles the decode step."""
    config = serving_config(model, config, rows, prefill_chunk, prefill_rows)
    # one prefill row (the default): the server feeds prompts a chunk per decode step, so that a burst of
    # requests costs the decoding rows at most one chunk's forward a step (its byte budget counts one row);
    # 0: prompts are prefilled in free rows, whole (`ContinuousEngine(prefill_rows=0)`), and the bytes are rows'
    engine = ContinuousEngine(model, config, rows=rows, seed=seed, tokenizer=tokenizer, compile=compile,
                              decoding={"pad_token_id": pad_token_id(model, tokenizer)}, prefill_rows=prefill_rows)  # fmt: skip
    metrics = Metrics(rows)
    service = Service(
        EngineWorker(engine, max_queue=settings.max_queue, metrics=metrics), tokenizer, settings, metrics
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.worker.start()
        try:
            yield
        finally:
            service.worker.close()

    app = FastAPI(title="kvlimit", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service
    _routes(app, service)
    _handlers(app, service)
    app.add_middleware(
        Gate, api_key=settings.api_key, max_body_bytes=settings.max_body_bytes, metrics=metrics
    )
    if settings.cors_origins:  # outside the gate: a browser's preflight carries no key
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins), allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])  # fmt: skip
    return app


def _routes(app: FastAPI, service: Service) -> None:
    async def run(body: SamplingFields, kind: str, http: HTTPRequest) -> Response:
        try:
            prepared = prepare(body, kind, service)
        except APIError:
            service.metrics.outcome("invalid")
            raise
        if prepared.stream:
            headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
            return StreamingResponse(
                open_stream(prepared, service), media_type="text/event-stream", headers=headers
            )
        return JSONResponse(await answer(prepared, service, http))

    @app.post("/v1/completions")
    async def completions(body: CompletionRequest, http: HTTPRequest) -> Response:
        return await run(body, "text", http)

    @app.post("/v1/chat/completions")
    async def chat_completions(body: ChatRequest, http: HTTPRequest) -> Response:
        return await run(body, "chat", http)

    started = int(time.time())

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        model = {
            "id": service.settings.model_name,
            "object": "model",
            "created": started,
            "owned_by": "kvlimit",
        }
        return {"object": "list", "data": [model]}

    @app.get("/health")
    async def health() -> Response:
        if service.worker.draining:
            return JSONResponse({"status": "draining"}, status_code=503)
        return JSONResponse({"status": "ok"})

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(service.metrics.render(), media_type=CONTENT_TYPE)


def _handlers(app: FastAPI, service: Service) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(http: HTTPRequest, exc: RequestValidationError) -> Response:
        service.metrics.outcome("invalid")
        body = BODIES.get(http.url.path)
        fields = sorted(body.model_fields) if body is not None else []
        return error_response(validation_error(list(exc.errors()), fields))

    @app.exception_handler(APIError)
    async def api_error(http: HTTPRequest, exc: APIError) -> Response:
        return error_response(exc)

    @app.exception_handler(HTTPException)
    async def http_error(http: HTTPRequest, exc: HTTPException) -> Response:
        message = (
            f"no route {http.method} {http.url.path}" if exc.status_code in (404, 405) else str(exc.detail)
        )
        return error_response(APIError(exc.status_code, message))

    @app.exception_handler(Exception)
    async def failed(http: HTTPRequest, exc: Exception) -> Response:
        service.metrics.outcome("error")
        return error_response(APIError(500, f"internal error: {type(exc).__name__}: {exc}"))


class Gate:
    """ASGI middleware: the API key (constant-time compare) and the body size limit."""

    def __init__(self, app: ASGIApp, *, api_key: str | None, max_body_bytes: int, metrics: Metrics):
        self.app = app
        self.expected = None if api_key is None else f"Bearer {api_key}".encode()
        self.max_body_bytes = max_body_bytes
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.expected is not None and scope["path"] != "/health" and not self._authorized(scope):
            self.metrics.outcome("unauthorized")
            error = APIError(401, "missing or wrong API key: send the header Authorization: Bearer <key>",
                             code="invalid_api_key", headers={"WWW-Authenticate": "Bearer"})  # fmt: skip
            await error_response(error)(scope, receive, send)
            return
        body = await self._body(scope, receive)
        if body is None:
            self.metrics.outcome("invalid")
            error = APIError(
                413, f"the request body is larger than {self.max_body_bytes} bytes (--max-body-bytes)"
            )
            await error_response(error)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    def _authorized(self, scope: Scope) -> bool:
        given = dict(scope["headers"]).get(b"authorization", b"")
        assert self.expected is not None
        return hmac.compare_digest(given, self.expected)

    async def _body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None when it is larger than the limit (read no further than that)."""
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            return None
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_body_bytes:
                return None
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives `body` first, then what the client sends (its disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
