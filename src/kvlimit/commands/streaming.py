"""What `kvlimit generate` shows while it runs: the text as it is decoded, and a progress line.

Contract: `TextSink` is a transformers streamer that writes decoded text to its writers as soon as
it is complete (never a broken multi-byte character, never the prompt); `StepWatch` is a stopping
criterion that never stops anything: it counts and times the generated tokens and draws the
progress line (tokens, tokens/s, cache fill) through a `kvlimit.clitools.Progress`.
"""

from __future__ import annotations

import time
from typing import Any, TextIO

import torch
from transformers import StoppingCriteria
from transformers.generation.streamers import BaseStreamer

from ..cache import BoundedCache
from ..clitools import Progress

#: Tokens the streamer waits for an incomplete UTF-8 character before writing it as U+FFFD.
_MAX_HELD_BACK = 8


def held_tokens(cache: BoundedCache) -> int:
    """The most tokens any row of the cache holds now."""
    return max(cache.stored_tokens(), default=0)


class TextSink(BaseStreamer):
    """A transformers streamer that decodes tokens incrementally and writes the text as it comes.

    Decoding every token alone breaks multi-byte characters and (for SentencePiece vocabularies)
    the spaces that belong to a token, while re-decoding everything since the start each step is
    quadratic. So, as text-generation-inference does, each step decodes a short window twice --
    from `prefix` to `read` and from `prefix` to the end -- and writes what the second adds,
    unless it ends in an incomplete character (U+FFFD), which later tokens complete.
    """

    def __init__(self, tokenizer: Any, writers: list[TextIO], *, keep_text: bool):
        self.tokenizer = tokenizer
        self.writers = writers
        self.keep_text = keep_text
        self.parts: list[str] = []
        self.ids: list[int] = []
        self.prefix = 0
        self.read = 0
        self.prompt_skipped = False
        self.wrote_any = False
        self.last_char = ""

    def put(self, value: torch.Tensor) -> None:
        if not self.prompt_skipped:  # generate's first call carries the prompt
            self.prompt_skipped = True
            return
        self.ids.extend(int(t) for t in value.reshape(-1).tolist())
        self._emit(final=False)

    def end(self) -> None:
        self._emit(final=True)

    def _decode(self, ids: list[int]) -> str:
        return str(self.tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False))

    def _emit(self, *, final: bool) -> None:
        if self.read >= len(self.ids):
            return
        before = self._decode(self.ids[self.prefix : self.read])
        after = self._decode(self.ids[self.prefix :])
        held_back = len(self.ids) - self.read
        # A character split over tokens decodes to U+FFFD until its last byte arrives; wait for it,
        # but not forever (a model can emit invalid byte sequences, and the window must stay short).
        if len(after) <= len(before) or (
            after.endswith("\ufffd") and not final and held_back < _MAX_HELD_BACK
        ):
            return
        self.write(after[len(before) :])
        # Keep only the window still needed, so a run of any length holds a few ids.
        del self.ids[: self.read]
        self.prefix, self.read = 0, len(self.ids)

    def write(self, text: str) -> None:
        if not text:
            return
        for stream in self.writers:
            stream.write(text)
            stream.flush()
        if self.keep_text:
            self.parts.append(text)
        self.wrote_any = True
        self.last_char = text[-1]

    def finish_line(self) -> None:
        """End the output with a newline (the shell prompt must not follow the text on its line)."""
        if self.wrote_any and self.last_char != "\n":
            for stream in self.writers:
                stream.write("\n")
                stream.flush()

    @property
    def text(self) -> str:
        return "".join(self.parts)


class StepWatch(StoppingCriteria):
    """Called by generate after every step (beam search too): counts tokens, times them, draws progress.

    It never stops generation.
    """

    def __init__(self, prompt_length: int, cache: BoundedCache, progress: Progress):
        self.prompt_length = prompt_length
        self.cache = cache
        self.progress = progress
        self.generated = 0
        self.start = time.perf_counter()
        self.first_token_at: float | None = None

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        self.generated = int(input_ids.shape[-1]) - self.prompt_length
        now = time.perf_counter()
        if self.first_token_at is None and self.generated > 0:
            self.first_token_at = now
        elapsed = now - self.start
        rate = self.generated / elapsed if elapsed > 0 else 0.0
        self.progress.update(
            f"{self.generated} tokens, {rate:.1f} tokens/s, cache {held_tokens(self.cache)}/{self.cache.cache_limit}"
        )
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
