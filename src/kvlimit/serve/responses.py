"""The bodies the server answers with, in OpenAI's shapes: whole answers, stream chunks, usage,
log-probabilities.

Contract: `Shape(kind, id, created, model, tokenizer)` makes one request's objects, `kind` "text"
(`text_completion`, `/v1/completions`) or "chat" (`chat.completion` and `chat.completion.chunk`):
`answer(choices, usage)` the whole answer, `chunk(index, ...)` one server-sent event's object,
`usage_chunk(usage)` the closing chunk with no choice (`stream_options.include_usage`). `sse(obj)` is
one event, written whole; `DONE` the last. Finish reasons: an end of sequence and a stop string are
"stop", `max_tokens` is "length" (`FINISH_REASONS`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..engine import Token

FINISH_REASONS = {"eos": "stop", "stop_string": "stop", "max_new_tokens": "length"}

DONE = "data: [DONE]\n\n"


def sse(obj: dict[str, Any]) -> str:
    """One server-sent event carrying `obj` as JSON."""
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


@dataclass
class Choice:
    """One finished sequence of an answer."""

    index: int
    text: str
    finish_reason: str
    tokens: list[Token] = field(default_factory=list)


class Shape:
    """One request's response objects (see the module docstring)."""

    def __init__(self, kind: str, request_id: str, created: int, model: str, tokenizer: Any, logprobs: bool):
        self.kind = kind
        self.head = {"id": request_id, "created": created, "model": model}
        self.tokenizer = tokenizer
        self.logprobs = logprobs
        self.offset: dict[int, int] = {}  # text_offset of the next token, per choice (completions)

    def answer(self, choices: list[Choice], used: dict[str, int]) -> dict[str, Any]:
        items = []
        for choice in choices:
            item: dict[str, Any] = {"index": choice.index}
            if self.kind == "chat":
                item["message"] = {"role": "assistant", "content": choice.text}
            else:
                item["text"] = choice.text
            item["logprobs"] = self.token_logprobs(choice.index, choice.tokens)
            item["finish_reason"] = FINISH_REASONS[choice.finish_reason]
            items.append(item)
        kind = "chat.completion" if self.kind == "chat" else "text_completion"
        return {**self.head, "object": kind, "choices": items, "usage": used}

    def chunk(
        self, index: int, text: str, *, tokens: list[Token] | None = None, finish: str | None = None,
        role: bool = False, used: dict[str, int] | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        item: dict[str, Any] = {"index": index}
        if self.kind == "chat":
            item["delta"] = {"role": "assistant", "content": text} if role else {"content": text}
        else:
            item["text"] = text
        item["logprobs"] = self.token_logprobs(index, tokens or [])
        item["finish_reason"] = None if finish is None else FINISH_REASONS[finish]
        kind = "chat.completion.chunk" if self.kind == "chat" else "text_completion"
        out = {**self.head, "object": kind, "choices": [item]}
        if used is not None:
            out["usage"] = used
        return out

    def usage_chunk(self, used: dict[str, int]) -> dict[str, Any]:
        kind = "chat.completion.chunk" if self.kind == "chat" else "text_completion"
        return {**self.head, "object": kind, "choices": [], "usage": used}

    def token_logprobs(self, index: int, tokens: list[Token]) -> dict[str, Any] | None:
        """OpenAI's `logprobs` of a choice's `tokens` (None unless the request asked)."""
        if not self.logprobs:
            return None
        if self.kind == "chat":
            return {"content": [self._chat_entry(t) for t in tokens]}
        texts = [self._text(t.token) for t in tokens]
        offsets = []
        for text in texts:
            offsets.append(self.offset.get(index, 0))
            self.offset[index] = offsets[-1] + len(text)
        return {
            "tokens": texts,
            "token_logprobs": [t.logprob for t in tokens],
            "top_logprobs": [{self._text(i): lp for i, lp in t.top_logprobs or []} for t in tokens],
            "text_offset": offsets,
        }

    def _text(self, token: int) -> str:
        return str(self.tokenizer.decode([token], clean_up_tokenization_spaces=False))

    def _chat_entry(self, token: Token) -> dict[str, Any]:
        def entry(token_id: int, logprob: float | None) -> dict[str, Any]:
            text = self._text(token_id)
            return {"token": text, "logprob": logprob, "bytes": list(text.encode("utf-8"))}

        return {
            **entry(token.token, token.logprob),
            "top_logprobs": [entry(i, lp) for i, lp in token.top_logprobs or []],
        }
