# Copyright 2026 The HuggingFace Team. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""
Handler for the /v1/chat/completions endpoint.

Supports streaming (SSE) and non-streaming (JSON) responses.
"""

import json
import time
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from ...utils.import_utils import is_serve_available


if is_serve_available():
    from fastapi.responses import JSONResponse, StreamingResponse
    from openai.types.chat import (
        ChatCompletion,
        ChatCompletionMessage,
        ChatCompletionMessageToolCall,
    )
    from openai.types.chat.chat_completion import Choice
    from openai.types.chat.chat_completion_chunk import (
        ChatCompletionChunk,
        ChoiceDelta,
        ChoiceDeltaToolCall,
    )
    from openai.types.chat.chat_completion_chunk import Choice as ChoiceChunk
    from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming
    from openai.types.completion_usage import CompletionUsage


from .utils import (
    BaseHandler,
    EventStream,
    ReasoningText,
    ToolCall,
    _StreamError,
    build_response_parser,
    parse_assistant_message,
    prompt_length,
)


if TYPE_CHECKING:
    from transformers import GenerationConfig

    from .model_manager import EngineClient


class TransformersCompletionCreateParamsStreaming(CompletionCreateParamsStreaming, total=False):
    generation_config: str
    seed: int
    chat_template_kwargs: dict


# Fields of the OpenAI schema that are ignored, with a warning
UNUSED_CHAT_COMPLETION_FIELDS = {
    "audio",
    "function_call",
    "functions",
    "logprobs",
    "metadata",
    "modalities",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "reasoning_effort",
    "response_format",
    "service_tier",
    "store",
    "tool_choice",
    "top_logprobs",
    "user",
    "web_search_options",
}


class ChatCompletionHandler(BaseHandler):
    """Handler for the `/v1/chat/completions` endpoint.

    Supports both streaming (SSE) and non-streaming (JSON) responses.
    """

    _valid_params_class = TransformersCompletionCreateParamsStreaming
    _unused_fields = UNUSED_CHAT_COMPLETION_FIELDS

    async def handle_request(self, body: dict, request_id: str) -> StreamingResponse | JSONResponse:
        """Validate the request, load the model, and dispatch to streaming or non-streaming.

        Args:
            body (`dict`): The raw JSON request body (OpenAI chat completion format).
            request_id (`str`): Unique request identifier (from header or auto-generated).

        Returns:
            `StreamingResponse | JSONResponse`: SSE stream or JSON depending on ``body["stream"]``.
        """
        self._validate_request(body)

        engine = self.model_manager.get_engine(body.get("model"))
        inputs = await self.run_in_thread(self.render_messages, engine, body["messages"], body)
        generation_kwargs = self._build_generation_kwargs(body, engine.generation_config)

        streaming = body.get("stream")
        self._check_prompt_length(engine, inputs)
        self._log_request(request_id, engine, inputs, generation_kwargs, streaming, body)
        if streaming:
            tools, stream_options = body.get("tools"), body.get("stream_options")
            return self._streaming(request_id, engine, inputs, generation_kwargs, tools, stream_options)
        else:
            return await self._non_streaming(request_id, engine, inputs, generation_kwargs, tools=body.get("tools"))

    # ----- streaming -----

    def _streaming(
        self,
        request_id: str,
        engine: "EngineClient",
        inputs: dict,
        generation_kwargs: dict,
        tools=None,
        stream_options: dict | None = None,
    ) -> StreamingResponse:
        """Stream tokens as SSE, decoded by a `Detokenizer`. With ``stream_options={"include_usage": True}``, a last
        chunk has the usage."""
        include_usage = bool(stream_options and stream_options.get("include_usage"))
        processor, model_id = engine.processor, engine.model_id
        response_parser = build_response_parser(processor, engine.model_config, inputs["input_ids"], tools=tools)
        queue, streamer = engine.generate_streaming(inputs, generation_kwargs, response_parser=response_parser)
        input_len = prompt_length(inputs)
        created = int(time.time())
        content_template = self.sse_template(
            self._build_chunk_sse(request_id, model=model_id, created=created, content="<text>"), content="<text>"
        )
        reasoning_template = self.sse_template(
            self._build_chunk_sse(request_id, model=model_id, created=created, reasoning_content="<text>"),
            reasoning_content="<text>",
        )

        async def sse_gen() -> AsyncGenerator[str, None]:
            try:
                yield self._build_chunk_sse(request_id, role="assistant", model=model_id, created=created)

                tool_call_index = 0
                has_tool_calls = False
                done = False
                while not done:
                    new_outputs = await self.read_queue_outputs(queue)
                    sse_parts: list[str] = []
                    for item in new_outputs:
                        if item is None:
                            done = True
                            break
                        if isinstance(item, _StreamError):
                            sse_parts.append(f"data: {json.dumps({'error': item.msg})}\n\n")
                            yield "".join(sse_parts)
                            return
                        if isinstance(item, ToolCall):
                            has_tool_calls = True
                            sse_parts.append(
                                self._build_chunk_sse(
                                    request_id,
                                    model=model_id,
                                    tool_calls=[
                                        ChoiceDeltaToolCall(
                                            index=tool_call_index,
                                            type="function",
                                            id=f"{request_id}_tool_call_{tool_call_index}",
                                            function={"name": item.name, "arguments": item.arguments},
                                        )
                                    ],
                                    created=created,
                                )
                            )
                            tool_call_index += 1
                        elif isinstance(item, ReasoningText):
                            text = json.dumps(item, ensure_ascii=False)
                            sse_parts.append(reasoning_template.format(reasoning_content=text))
                        else:
                            text = json.dumps(item, ensure_ascii=False)
                            sse_parts.append(content_template.format(content=text))

                    if sse_parts:
                        yield "".join(sse_parts)

                finish_reason = self._get_finish_reason(generation_kwargs, streamer.total_tokens, has_tool_calls)
                yield self._build_chunk_sse(request_id, finish_reason=finish_reason, model=model_id, created=created)
                if include_usage:
                    usage = CompletionUsage(
                        prompt_tokens=input_len,
                        completion_tokens=streamer.total_tokens,
                        total_tokens=input_len + streamer.total_tokens,
                    )
                    yield self._build_chunk_sse(request_id, model=model_id, usage=usage, created=created)
            finally:  # stops the generation if the client left
                streamer.cancel()

        return EventStream(sse_gen(), media_type="text/event-stream")

    # ----- non-streaming -----

    async def _non_streaming(
        self,
        request_id: str,
        engine: "EngineClient",
        inputs: dict,
        generation_kwargs: dict,
        tools=None,
    ) -> JSONResponse:
        """Run generation and return a JSONResponse."""
        processor, model_id = engine.processor, engine.model_id
        content, input_len, generated_ids = await engine.generate_non_streaming(inputs, generation_kwargs)

        completion_tokens = len(generated_ids)
        usage = CompletionUsage(
            prompt_tokens=input_len,
            completion_tokens=completion_tokens,
            total_tokens=input_len + completion_tokens,
        )

        content, reasoning_content, parsed_tool_calls = parse_assistant_message(
            processor,
            engine.model_config,
            generated_ids,
            input_ids=inputs["input_ids"],
            cleaned_content=content,
            tools=tools,
        )
        tool_calls = None
        if parsed_tool_calls:
            tool_calls = [
                ChatCompletionMessageToolCall(
                    id=f"{request_id}_tool_call_{i}",
                    type="function",
                    function={"name": tc.name, "arguments": tc.arguments},
                )
                for i, tc in enumerate(parsed_tool_calls)
            ]

        finish_reason = self._get_finish_reason(generation_kwargs, completion_tokens, tool_calls is not None)

        return JSONResponse(
            self._build_completion(
                request_id,
                content,
                model_id,
                finish_reason=finish_reason,
                usage=usage,
                tool_calls=tool_calls,
                reasoning_content=reasoning_content,
            ),
            media_type="application/json",
        )

    # ----- helpers -----

    def _build_generation_kwargs(self, body: dict, model_generation_config: "GenerationConfig") -> dict:
        """Adds the Chat Completions params (``max_completion_tokens``, ``max_tokens``, ``frequency_penalty``,
        ``logit_bias``, ``stop``) to the shared ones."""
        generation_kwargs = super()._build_generation_kwargs(body, model_generation_config)

        if body.get("max_completion_tokens") is not None:
            generation_kwargs["max_new_tokens"] = int(body["max_completion_tokens"])
        elif body.get("max_tokens") is not None:
            generation_kwargs["max_new_tokens"] = int(body["max_tokens"])
        if body.get("frequency_penalty") is not None:
            generation_kwargs["repetition_penalty"] = 1.0 + float(body["frequency_penalty"])
        if body.get("logit_bias") is not None:
            generation_kwargs["sequence_bias"] = {(int(k),): v for k, v in body["logit_bias"].items()}
        if body.get("stop") is not None:
            generation_kwargs["stop_strings"] = body["stop"]

        return generation_kwargs

    # ----- response builders -----

    def _build_completion(
        self,
        request_id: str,
        content: str,
        model_id: str,
        finish_reason: str,
        usage: CompletionUsage | None = None,
        tool_calls: list[dict] | None = None,
        reasoning_content: str | None = None,
    ) -> dict:
        """Build a non-streaming ChatCompletion response dict.

        Args:
            request_id (`str`): Unique request identifier.
            content (`str`): The generated text.
            model_id (`str`): Model ID to include in the response.
            finish_reason (`str`): Why generation stopped (``"stop"``, ``"length"``, ``"tool_calls"``).
            usage (`CompletionUsage`, *optional*): Token usage statistics.
            tool_calls (`list[dict]`, *optional*): Parsed tool calls, if any.
            reasoning_content (`str`, *optional*): Chain-of-thought content extracted from the response.

        Returns:
            `dict`: Serialized ``ChatCompletion`` ready for JSON response.
        """
        # reasoning_content is added as an extra field (base types set extra="allow")
        # we use model_validate rather than __init__ to avoid ty raising errors for the extra field
        message = ChatCompletionMessage.model_validate(
            {"content": content, "role": "assistant", "tool_calls": tool_calls, "reasoning_content": reasoning_content}
        )
        result = ChatCompletion(
            id=request_id,
            created=int(time.time()),
            object="chat.completion",
            model=model_id,
            choices=[Choice(index=0, message=message, finish_reason=finish_reason)],
            usage=usage,
        )
        return result.model_dump(exclude_none=True)

    def _build_chunk_sse(
        self,
        request_id: str = "",
        content: str | None = None,
        model: str | None = None,
        role: str | None = None,
        finish_reason: str | None = None,
        tool_calls: list | None = None,
        usage: CompletionUsage | None = None,
        reasoning_content: str | None = None,
        created: int | None = None,
    ) -> str:
        """Build a streaming ``ChatCompletionChunk`` and format it as an SSE ``data:`` line.

        Args:
            request_id (`str`): Unique request identifier.
            content (`str`, *optional*): Text content delta.
            model (`str`, *optional*): Model ID.
            role (`str`, *optional*): Role (only sent in the first chunk).
            finish_reason (`str`, *optional*): Set on the final chunk.
            tool_calls (`list`, *optional*): Tool call deltas.
            usage (`CompletionUsage`, *optional*): Token usage: the chunk is then the usage chunk, the last one, with no
                choices (``stream_options.include_usage``).
            reasoning_content (`str`, *optional*): Reasoning/thinking delta (OpenAI-compatible extension).
            created (`int`, *optional*): When the stream started, in seconds since the epoch: the same for all its
                chunks. Defaults to now.

        Returns:
            `str`: A formatted SSE event string.
        """
        # reasoning_content is added as an extra field (base types set extra="allow")
        # we use model_validate rather than __init__ to avoid ty raising errors for the extra field
        delta = ChoiceDelta.model_validate(
            {"content": content, "role": role, "tool_calls": tool_calls, "reasoning_content": reasoning_content}
        )
        chunk = ChatCompletionChunk(
            id=request_id,
            created=int(time.time()) if created is None else created,
            model=model,
            choices=[] if usage is not None else [ChoiceChunk(delta=delta, index=0, finish_reason=finish_reason)],
            usage=usage,
            system_fingerprint="",
            object="chat.completion.chunk",
        )
        return self.chunk_to_sse(chunk)
