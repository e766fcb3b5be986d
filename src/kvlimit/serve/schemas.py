"""The request bodies the server takes (pydantic), checked before anything runs.

Contract: `CompletionRequest` (POST /v1/completions) and `ChatRequest` (POST /v1/chat/completions)
take OpenAI's fields that the engine can honour, with OpenAI's ranges; an unknown field, a value out
of range or of the wrong type is a validation error naming the field (`kvlimit.serve.errors` turns it
into a 400 in OpenAI's error format). Fields OpenAI has but the engine cannot do are taken only at the
value that means "off", else a 400 says so (`unsupported`): `presence_penalty`, `frequency_penalty`,
`logit_bias`, `echo`, `suffix`, `best_of`. Extensions (as vLLM spells them): `top_k`, `min_p`,
`repetition_penalty`, `min_tokens`, `ignore_eos`. No field names a file, a model path or code: `model`
is only compared with the served model's name.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: The most stop strings a request may give (OpenAI's limit), and the longest (transformers' stop-string
#: criterion prepares a table over the vocabulary for each).
MAX_STOP = 4
MAX_STOP_CHARS = 200


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StreamOptions(_Strict):
    include_usage: bool = False


class SamplingFields(_Strict):
    """What both endpoints take."""

    model: str | None = None
    max_tokens: int | None = Field(None, ge=1)
    temperature: float = Field(1.0, ge=0, le=2)
    top_p: float = Field(1.0, gt=0, le=1)
    top_k: int = Field(0, ge=-1)
    min_p: float = Field(0.0, ge=0, le=1)
    repetition_penalty: float = Field(1.0, gt=0, le=10)
    presence_penalty: float = Field(0.0, ge=-2, le=2)
    frequency_penalty: float = Field(0.0, ge=-2, le=2)
    logit_bias: dict[str, float] | None = None
    stop: str | list[str] | None = None
    seed: int | None = Field(None, ge=0, le=2**63 - 1)
    n: int = Field(1, ge=1, le=128)
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = None
    min_tokens: int = Field(0, ge=0)
    ignore_eos: bool = False

    @field_validator("stop")
    @classmethod
    def _stop(cls, value: str | list[str] | None) -> list[str] | None:
        if value is None:
            return None
        stops = [value] if isinstance(value, str) else value
        if len(stops) > MAX_STOP:
            raise ValueError(f"at most {MAX_STOP} stop strings; got {len(stops)}")
        if any(not s or len(s) > MAX_STOP_CHARS for s in stops):
            raise ValueError(f"a stop string must have 1 to {MAX_STOP_CHARS} characters")
        return stops or None

    def unsupported(self) -> tuple[str, str] | None:
        """(field, why) for the first field set to something the engine cannot do, else None."""
        if self.presence_penalty or self.frequency_penalty:
            name = "presence_penalty" if self.presence_penalty else "frequency_penalty"
            return name, f"{name} is not supported (only 0); use repetition_penalty (> 1 discourages repeats)"
        if self.logit_bias:
            return "logit_bias", "logit_bias is not supported (only {} or null)"
        return None

    def stops(self) -> list[str]:
        return list(self.stop or [])


class CompletionRequest(SamplingFields):
    """POST /v1/completions: one prompt, as text or token ids."""

    prompt: str | list[Annotated[int, Field(ge=0)]]
    logprobs: int | None = Field(None, ge=0, le=20)
    echo: bool = False
    suffix: str | None = None
    best_of: int | None = Field(None, ge=1)

    @field_validator("prompt", mode="before")
    @classmethod
    def _one_prompt(cls, value: Any) -> Any:
        is_ids = isinstance(value, list) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        )
        if not (isinstance(value, str) or is_ids):
            raise ValueError("prompt must be one string or one list of token ids (one prompt per request)")
        return value

    def unsupported(self) -> tuple[str, str] | None:
        if self.echo:
            return "echo", "echo is not supported (only false)"
        if self.suffix:
            return "suffix", "suffix is not supported (only null)"
        if self.best_of not in (None, 1):
            return "best_of", "best_of is not supported (only 1 or null); use n"
        return super().unsupported()


class TextPart(_Strict):
    type: Literal["text"]
    text: str


class ChatMessage(_Strict):
    role: Literal["system", "developer", "user", "assistant"]
    content: str | list[TextPart]
    name: str | None = None

    def text(self) -> str:
        return self.content if isinstance(self.content, str) else "".join(p.text for p in self.content)


class ChatRequest(SamplingFields):
    """POST /v1/chat/completions: messages through the model's chat template."""

    messages: list[ChatMessage] = Field(min_length=1)
    logprobs: bool = False
    top_logprobs: int | None = Field(None, ge=0, le=20)
    max_completion_tokens: int | None = Field(None, ge=1)

    def unsupported(self) -> tuple[str, str] | None:
        if self.top_logprobs and not self.logprobs:
            return "top_logprobs", "top_logprobs needs logprobs: true"
        if self.max_completion_tokens is not None and self.max_tokens is not None:
            return "max_completion_tokens", "give max_completion_tokens or max_tokens, not both"
        return super().unsupported()


#: The request body of each endpoint, by path (for error messages that list a body's fields).
BODIES: dict[str, type[SamplingFields]] = {
    "/v1/completions": CompletionRequest,
    "/v1/chat/completions": ChatRequest,
}
