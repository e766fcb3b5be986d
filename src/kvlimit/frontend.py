"""What every front end shares: the command line, the batch job, the benchmarks and the server.

Contract:
- `encode_prompt(tokenizer, prompt, chat=...)` and `encode_messages(tokenizer, messages)`: a prompt's
  token ids, as a user message through the tokenizer's chat template with the assistant turn opened
  (`chat=True`, where the tokenizer has a template: `has_chat_template`), or as plain text. The one
  place kvlimit applies a chat template.
- `stop_reason(tokens, eos=..., max_new_tokens=..., stop_string=...)`: why a sequence ended, the same
  rule everywhere: "eos" when its last token is an end-of-sequence id (even the last one allowed), else
  "stop_string" when a stop string ends its text, else "max_new_tokens" when it reached its length.
  `ends_with_stop_string` tells the second as transformers' `StopStringCriteria` does.
- `decoding_arguments(...)`: generate's decoding keyword arguments (and a description of them) from
  decoding options (the command line's, a server request's): explicit sampling values, so that a
  model's own generation config cannot change them silently; `max_new_tokens=None` runs until the end
  of sequence, however long (`UNBOUNDED_NEW_TOKENS`).
- `left_padded(prompts, pad, device)`: a batch of prompts left-padded to the longest, with its mask
  (static batches, the engine's prompts prefilled together).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import StopStringCriteria

#: The reasons `stop_reason` gives (a cut-short sequence is also "cancelled" or "interrupted" where it can be).
STOP_REASONS = ("eos", "stop_string", "max_new_tokens")

#: `max_new_tokens` for a sequence that runs until its end-of-sequence token, however long.
UNBOUNDED_NEW_TOKENS = 2**62


def has_chat_template(tokenizer: Any) -> bool:
    """Whether the tokenizer carries a chat template (an instruct model's)."""
    return bool(getattr(tokenizer, "chat_template", None))


def encode_messages(tokenizer: Any, messages: Sequence[dict[str, Any]]) -> list[int]:
    """Chat messages (`role`, `content`) through the tokenizer's chat template, the assistant turn opened.

    Raises ValueError when the tokenizer has no chat template."""
    if not has_chat_template(tokenizer):
        raise ValueError("this model's tokenizer has no chat template: send plain text instead")
    encoded: Any = tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, return_dict=True)
    return [int(i) for i in encoded["input_ids"]]


def encode_prompt(tokenizer: Any, prompt: str, *, chat: bool) -> list[int]:
    """The prompt's token ids: as a user message through the chat template when `chat` and the tokenizer
    has one, else as plain text."""
    if chat and has_chat_template(tokenizer):
        return encode_messages(tokenizer, [{"role": "user", "content": prompt}])
    encoded: Any = tokenizer(prompt)
    return [int(i) for i in encoded["input_ids"]]


def ends_with_stop_string(ids: torch.Tensor, stop_strings: Sequence[str], tokenizer: Any) -> bool:
    """Whether the tokens `ids` (1, length) end with one of `stop_strings`, as transformers'
    `StopStringCriteria` (the criterion generate stops at) decides it."""
    if not stop_strings:
        return False
    criterion = StopStringCriteria(tokenizer=tokenizer, stop_strings=list(stop_strings))
    return bool(criterion(ids, torch.empty(0))[0])


def stop_reason(tokens: Sequence[int], *, eos: set[int], max_new_tokens: int, stop_string: bool) -> str:
    """Why a sequence whose new tokens are `tokens` ended (see the module docstring): "eos", "stop_string"
    or "max_new_tokens"."""
    if tokens and tokens[-1] in eos:
        return "eos"
    if stop_string:
        return "stop_string"
    if len(tokens) >= max_new_tokens:
        return "max_new_tokens"
    raise ValueError(
        f"a sequence of {len(tokens)} new tokens (at most {max_new_tokens}) that ends with no end-of-sequence "
        "token and no stop string has not ended"
    )


@dataclass
class Decoding:
    """The generate keyword arguments decoding options turn into, and how to describe them."""

    kwargs: dict[str, Any]
    description: str


def decoding_arguments(
    *,
    max_new_tokens: int | None,
    do_sample: bool,
    temperature: float = 1.0,
    top_p: float = 1.0,
    top_k: int = 0,
    min_p: float | None = None,
    repetition_penalty: float = 1.0,
    num_beams: int = 1,
    stop: Sequence[str] | None = None,
    min_new_tokens: int | None = None,
) -> Decoding:
    """generate's decoding arguments from (validated) options; `top_k=0` and `min_p=None` are off.

    Sampling values are explicit even at their defaults, so that a model's generation config cannot
    change them; greedy search takes none (transformers warns about sampling values without sampling)."""
    kwargs: dict[str, Any] = {
        "max_new_tokens": UNBOUNDED_NEW_TOKENS if max_new_tokens is None else max_new_tokens,
        "num_beams": num_beams,
        "do_sample": do_sample,
        "repetition_penalty": repetition_penalty,
    }
    if min_new_tokens:
        kwargs["min_new_tokens"] = min_new_tokens
    if do_sample:
        kwargs.update(temperature=temperature, top_p=top_p, top_k=top_k)
        parts = [f"temperature {temperature:g}", f"top-p {top_p:g}"]
        if top_k:
            parts.append(f"top-k {top_k}")
        if min_p:
            kwargs["min_p"] = min_p
            parts.append(f"min-p {min_p:g}")
        description = f"{'beam sampling' if num_beams > 1 else 'sampling'} ({', '.join(parts)})"
    else:
        description = "beam search" if num_beams > 1 else "greedy"
    if num_beams > 1:
        description += f", {num_beams} beams"
    if repetition_penalty != 1.0:
        description += f", repetition penalty {repetition_penalty:g}"
    if stop:
        kwargs["stop_strings"] = list(stop)
        description += ", stop at " + " or ".join(repr(text) for text in stop)
    return Decoding(kwargs, description)


def left_padded(
    prompts: list[list[int]], pad: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids (batch, longest) left-padded with `pad`, and their attention mask (1 = real token)."""
    width = max(len(ids) for ids in prompts)
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=device)
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=device)
    return ids, mask
