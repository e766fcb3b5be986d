"""The completion endpoints' work: a request body turned into an engine request, then answered whole
or streamed as server-sent events.

Contract:
- `prepare(body, kind, service)`: checks what pydantic cannot (the model's name, fields set to what
  the engine cannot do, `n` against the rows, the prompt's length against `max_prompt_tokens`, token
  ids against the vocabulary) and raises `APIError` naming the field; encodes the prompt (chat: the
  model's chat template, `kvlimit.frontend.encode_messages`; text: as is) and builds the engine's
  `Request` with the request's own decoding arguments (`kvlimit.frontend.decoding_arguments`;
  `temperature` 0 is greedy search, `max_tokens` null runs to the end of sequence however long) and
  its own seed (`seed`: the same text for the same seed, alone or among any others).
- `answer(prepared, service, http)`: submits, waits for every sequence, returns the whole answer; a
  client that goes away first cancels its request (its rows are free for the next step).
- `open_stream(prepared, service)`: submits (so that 429 and 503 are HTTP statuses), then returns the
  stream of events: OpenAI's chunks as tokens are made (text held back only where a stop string may
  begin or a character is incomplete), a closing chunk per choice with its finish reason (the last
  with `usage`), a usage-only chunk when `stream_options.include_usage`, and `data: [DONE]`. A request
  the worker ends (the drain ran out, a failed step) ends with one `{"error": ...}` event saying why,
  then `[DONE]`. A stream closed early (the client went away) cancels its request.
Each request's outcome is counted in the metrics once.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request as HTTPRequest

from ..engine import Finished, Request, Token
from ..frontend import decoding_arguments, encode_messages
from .errors import APIError
from .responses import DONE, FINISH_REASONS, Choice, Shape, sse, usage
from .schemas import ChatRequest, CompletionRequest, SamplingFields
from .text import TextStream, final_text
from .worker import Draining, Failed, QueueFull

#: Put in a request's queue when its client disconnects.
_GONE = object()


@dataclass
class Prepared:
    """A request body turned into what the engine runs."""

    request: Request
    shape: Shape
    stops: list[str]
    stream: bool
    include_usage: bool

    @property
    def id(self) -> str:
        return self.request.id

    @property
    def n(self) -> int:
        return self.request.sequences or 1


def prepare(body: SamplingFields, kind: str, service: Any) -> Prepared:
    """The engine request for `body` (see the module docstring)."""
    settings, tokenizer = service.settings, service.tokenizer
    if body.model is not None and body.model != settings.model_name:
        raise APIError(404, f"model {body.model!r} is not served here; this server serves "
                            f"{settings.model_name!r}", param="model", code="model_not_found")  # fmt: skip
    refused = body.unsupported()
    if refused is not None:
        raise APIError(400, refused[1], param=refused[0])
    ids, field = _prompt_ids(body, tokenizer)
    _check_prompt(ids, field, settings.max_prompt_tokens, len(tokenizer))
    if body.n > service.rows:
        raise APIError(
            400, f"n={body.n} exceeds the {service.rows} rows this server decodes at once", param="n"
        )
    if body.n > 1 and body.temperature == 0:
        raise APIError(
            400, "n > 1 needs sampling (temperature > 0): greedy search gives one answer", param="n"
        )
    logprobs = _logprobs(body)
    request_id = f"{'chatcmpl' if kind == 'chat' else 'cmpl'}-{uuid.uuid4().hex}"
    request = Request(
        request_id, ids, decoding=_decoding(body), seed=body.seed, sequences=body.n, logprobs=logprobs
    )
    shape = Shape(kind, request_id, int(time.time()), settings.model_name, tokenizer, logprobs is not None)
    include_usage = bool(body.stream_options and body.stream_options.include_usage)
    return Prepared(request, shape, body.stops(), body.stream, include_usage)


def _prompt_ids(body: SamplingFields, tokenizer: Any) -> tuple[list[int], str]:
    if isinstance(body, ChatRequest):
        messages = [{"role": m.role, "content": m.text()} for m in body.messages]
        try:
            return encode_messages(tokenizer, messages), "messages"
        except ValueError as exc:
            raise APIError(400, f"{exc} (POST /v1/completions)", param="messages") from exc
        except Exception as exc:  # a template that raises on these messages (e.g. roles it refuses)
            raise APIError(
                400, f"the model's chat template refused these messages: {exc}", param="messages"
            ) from exc
    assert isinstance(body, CompletionRequest)
    if isinstance(body.prompt, list):
        return list(body.prompt), "prompt"
    return [int(i) for i in tokenizer(body.prompt)["input_ids"]], "prompt"


def _check_prompt(ids: list[int], field: str, limit: int, vocab: int) -> None:
    if not ids:
        raise APIError(400, "the prompt encodes to no tokens; give some text", param=field)
    if len(ids) > limit:
        raise APIError(400, f"the prompt is {len(ids)} tokens; this server takes at most {limit} "
                            "(--max-prompt-tokens)", param=field, code="context_length_exceeded")  # fmt: skip
    bad = next((i for i in ids if i >= vocab), None)
    if bad is not None:
        raise APIError(400, f"token id {bad} is not in the vocabulary (0 .. {vocab - 1})", param=field)


def _logprobs(body: SamplingFields) -> int | None:
    """Top log-probabilities per token the request asks for (0: the chosen token's only), or None."""
    if isinstance(body, ChatRequest):
        return (body.top_logprobs or 0) if body.logprobs else None
    assert isinstance(body, CompletionRequest)
    return body.logprobs


def _decoding(body: SamplingFields) -> dict[str, Any]:
    """generate's decoding arguments for this request (see the module docstring)."""
    limit = (
        body.max_completion_tokens
        if isinstance(body, ChatRequest) and body.max_completion_tokens
        else body.max_tokens
    )
    if body.ignore_eos and limit is None:
        raise APIError(400, "ignore_eos needs max_tokens (it would never end)", param="ignore_eos")
    least = limit if body.ignore_eos else body.min_tokens
    if least and limit is not None and least > limit:
        raise APIError(400, f"min_tokens={least} exceeds max_tokens={limit}", param="min_tokens")
    decoding = decoding_arguments(
        max_new_tokens=limit, do_sample=body.temperature > 0, temperature=body.temperature, top_p=body.top_p,
        top_k=max(body.top_k, 0), min_p=body.min_p or None, repetition_penalty=body.repetition_penalty,
        stop=body.stops(), min_new_tokens=least or None,
    )  # fmt: skip
    return decoding.kwargs


def _submit(prepared: Prepared, service: Any) -> asyncio.Queue[Any]:
    """Hand the request to the worker; its events arrive in the queue returned."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    try:
        service.worker.submit(
            prepared.request, lambda event: loop.call_soon_threadsafe(queue.put_nowait, event)
        )
    except QueueFull as exc:
        service.metrics.outcome("rejected")
        raise APIError(429, str(exc), headers={"Retry-After": str(exc.retry_after)}) from exc
    except Draining as exc:
        service.metrics.outcome("unavailable")
        raise APIError(503, str(exc), headers={"Retry-After": "5"}) from exc
    return queue


async def _watch_disconnect(http: HTTPRequest, queue: asyncio.Queue[Any]) -> None:
    """Put `_GONE` in `queue` once the client disconnects (the body was read: the next message is that)."""
    while (await http.receive())["type"] != "http.disconnect":
        pass
    queue.put_nowait(_GONE)


async def answer(prepared: Prepared, service: Any, http: HTTPRequest) -> dict[str, Any]:
    """The whole answer (see the module docstring)."""
    queue = _submit(prepared, service)
    watcher = asyncio.create_task(_watch_disconnect(http, queue))
    tokens: dict[int, list[Token]] = {k: [] for k in range(prepared.n)}
    finished: dict[int, Finished] = {}
    try:
        while len(finished) < prepared.n:
            event = await queue.get()
            if event is _GONE:
                service.worker.cancel(prepared.id)
                service.metrics.outcome("cancelled")
                raise APIError(499, "the client closed the connection")
            if isinstance(event, Failed):
                service.metrics.outcome(_failure_outcome(event))
                raise APIError(event.status, event.message)
            if isinstance(event, Token):
                tokens[event.sequence].append(event)
            else:
                finished[event.sequence] = event
    finally:
        watcher.cancel()
    choices = [
        Choice(k, final_text(service.tokenizer, f.tokens, prepared.stops, f.stop_reason), f.stop_reason, tokens[k])
        for k, f in sorted(finished.items())
    ]  # fmt: skip
    service.metrics.outcome(_outcome(finished.values()))
    made = sum(len(f.tokens) for f in finished.values())
    return prepared.shape.answer(choices, usage(len(prepared.request.input_ids), made))


def open_stream(prepared: Prepared, service: Any) -> AsyncIterator[str]:
    """Submit now, stream later (see the module docstring)."""
    queue = _submit(prepared, service)
    return _stream(prepared, service, queue)


async def _stream(prepared: Prepared, service: Any, queue: asyncio.Queue[Any]) -> AsyncIterator[str]:
    shape, n = prepared.shape, prepared.n
    context = prepared.request.input_ids
    texts = {k: TextStream(service.tokenizer, prepared.stops, context) for k in range(n)}
    finished: dict[int, Finished] = {}
    ended = False
    try:
        if shape.kind == "chat":
            for k in range(n):
                yield sse(shape.chunk(k, "", role=True))
        while len(finished) < n:
            event = await queue.get()
            if isinstance(event, Failed):
                service.metrics.outcome(_failure_outcome(event))
                ended = True
                yield sse({"error": {"message": event.message, "type": "server_error" if event.status >= 500
                                     else "invalid_request_error", "param": None, "code": event.status}})  # fmt: skip
                yield DONE
                return
            if isinstance(event, Token):
                piece = texts[event.sequence].add(event.token)
                if piece or shape.logprobs:
                    yield sse(shape.chunk(event.sequence, piece, tokens=[event]))
                continue
            finished[event.sequence] = event
            used = None
            if len(finished) == n:
                used = usage(len(context), sum(len(f.tokens) for f in finished.values()))
            rest = texts[event.sequence].finish(event.stop_reason)
            yield sse(shape.chunk(event.sequence, rest, finish=event.stop_reason, used=used))
        ended = True
        service.metrics.outcome(_outcome(finished.values()))
        if prepared.include_usage:
            yield sse(shape.usage_chunk(usage(len(context), sum(len(f.tokens) for f in finished.values()))))
        yield DONE
    finally:
        if not ended:  # the client went away (or the server cancelled this stream): free the rows now
            service.worker.cancel(prepared.id)
            service.metrics.outcome("cancelled")


def _outcome(finished: Any) -> str:
    reasons = {FINISH_REASONS[f.stop_reason] for f in finished}
    return "length" if "length" in reasons else "stop"


def _failure_outcome(event: Failed) -> str:
    return {400: "invalid", 503: "shutdown"}.get(event.status, "error")
