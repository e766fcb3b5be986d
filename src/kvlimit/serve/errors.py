"""Errors in OpenAI's format: `{"error": {"message", "type", "param", "code"}}`.

Contract: an endpoint raises `APIError(status, message, param=...)`; `error_response` renders it (with
its headers: Retry-After for 429 and 503). `validation_error` turns pydantic's errors about a request
body (malformed JSON, an unknown field, a value out of range or of the wrong type, a missing field)
into one `APIError` 400 whose message names the field and what is allowed, and whose `param` is the
field's path (`messages[0].role`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from starlette.responses import JSONResponse

_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    500: "server_error",
    503: "server_unavailable",
}


class APIError(Exception):
    """An HTTP error with OpenAI's body."""

    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ):  # fmt: skip
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        kind = _TYPES.get(self.status, "invalid_request_error" if self.status < 500 else "server_error")
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}}


def error_response(error: APIError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)


#: Parts of pydantic's locations that name a type of a union, not a field.
_TYPE_PARTS = ("str", "int", "float", "bool", "dict", "list", "none")


def _path(loc: Sequence[Any]) -> str:
    """pydantic's location of a body field, as `messages[0].role`."""
    path = ""
    for part in loc:
        if part == "body" and not path:
            continue
        if isinstance(part, str) and (part in _TYPE_PARTS or "[" in part):
            continue
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _describe(error: Mapping[str, Any], fields: Sequence[str]) -> str:
    kind, path = error.get("type", ""), _path(error.get("loc", ()))
    if kind == "json_invalid":
        return f"the request body is not valid JSON: {error.get('ctx', {}).get('error', 'malformed')}"
    if not path:
        return "the request body must be a JSON object"
    if kind == "extra_forbidden":
        allowed = f"; this endpoint takes {', '.join(fields)}" if "." not in path and "[" not in path else ""
        return f"unknown field {path!r}{allowed}"
    if kind == "missing":
        return f"field {path!r} is required"
    message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
    got = repr(error.get("input"))
    got = got if len(got) <= 80 else got[:77] + "..."
    return f"{path}: {message[:1].lower()}{message[1:]}; got {got}"


def validation_error(errors: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> APIError:
    """One 400 for pydantic's `errors` about a body whose model has `fields` (see the module docstring)."""
    first = errors[0] if errors else {}
    messages = list(dict.fromkeys(_describe(e, fields) for e in errors[:3]))
    if len(errors) > 3:
        messages.append(f"and {len(errors) - 3} more")
    param = None if first.get("type") == "json_invalid" else _path(first.get("loc", ())) or None
    return APIError(400, "; ".join(messages) or "invalid request", param=param)
