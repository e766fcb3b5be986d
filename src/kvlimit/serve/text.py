"""A sequence's text as its tokens arrive, and where a stop string cuts it.

Contract: `TextStream(tokenizer, stop, context)` takes a sequence's new tokens one by one (`add`) and
returns the text that became final with each: decoded over a short window of the tokens before it
(so a tokenizer that decodes a token's leading space from its neighbour gets it right), held back
while it ends in an incomplete character, and, with stop strings, held back by as many characters as
the longest of them less one, and never past where one begins. `finish(stop_reason)` returns the rest:
everything, or up to the first stop string when that is why the sequence ended (OpenAI's rule: the
returned text does not contain the stop string). The pieces add up to `final_text(...)` of the same
tokens, the text a non-streamed answer gets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Tokens of the prompt (or of the text before) decoded with each new one: enough for any tokenizer's
#: spacing rule, few enough to stay cheap however long the sequence runs.
CONTEXT_TOKENS = 6


def decode(tokenizer: Any, tokens: Sequence[int]) -> str:
    """Tokens as text, special tokens (an end-of-sequence token) left out."""
    return str(tokenizer.decode(list(tokens), skip_special_tokens=True, clean_up_tokenization_spaces=False))


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """`text` up to the first place where one of `stop` begins (all of it when none occurs)."""
    found = [i for i in (text.find(s) for s in stop) if i >= 0]
    return text[: min(found)] if found else text


def final_text(tokenizer: Any, tokens: Sequence[int], stop: Sequence[str], reason: str) -> str:
    """A finished sequence's text: its tokens decoded, cut at the first stop string when it stopped there."""
    text = decode(tokenizer, tokens)
    return cut_at_stop(text, stop) if reason == "stop_string" else text


class TextStream:
    """One sequence's text as it becomes final (see the module docstring)."""

    def __init__(self, tokenizer: Any, stop: Sequence[str] = (), context: Sequence[int] = ()):
        self.tokenizer = tokenizer
        self.stop = list(stop)
        self.tokens = list(context[-CONTEXT_TOKENS:])
        self._prefix = 0  # the window's first token
        self._read = len(self.tokens)  # tokens decoded into `text`
        self.text = ""  # decoded so far
        self._sent = 0  # characters of `text` handed out
        self._hold = max((len(s) for s in self.stop), default=1) - 1

    def add(self, token: int) -> str:
        """Take the next token; the text that became final with it (maybe "")."""
        self.tokens.append(token)
        before = decode(self.tokenizer, self.tokens[self._prefix : self._read])
        now = decode(self.tokenizer, self.tokens[self._prefix :])
        if len(now) > len(before) and not now.endswith("\ufffd"):
            self.text += now[len(before) :]
            self._prefix, self._read = max(self._read, len(self.tokens) - CONTEXT_TOKENS), len(self.tokens)
        end = len(self.text) - self._hold
        if self.stop:
            end = min(end, len(cut_at_stop(self.text, self.stop)))
        return self._hand_out(end)

    def finish(self, reason: str) -> str:
        """The rest of the text once the sequence ended with `reason` (cut at a stop string for "stop_string")."""
        before = decode(self.tokenizer, self.tokens[self._prefix : self._read])
        now = decode(self.tokenizer, self.tokens[self._prefix :])
        self.text += now[len(before) :]
        end = len(cut_at_stop(self.text, self.stop)) if reason == "stop_string" else len(self.text)
        return self._hand_out(end)

    def _hand_out(self, end: int) -> str:
        if end <= self._sent:
            return ""
        piece = self.text[self._sent : end]
        self._sent = end
        return piece
