"""kvlimit's own decode loop, for greedy search and sampling on a compiled (or captured) decode step.

Contract: `run_loop(model, cache, input_ids, rules, step)` returns what transformers' `_sample`
returns for the same prepared inputs (`LoopRules`: the logits processors, stopping criteria and
generation config transformers' generate prepared; the streamer), token for token: the same
processors see the same ids and scores, sampling draws `torch.multinomial` from the same generator,
finished rows are padded as transformers pads them, and `return_dict_in_generate` gives the same
output with the bounded cache in it. What differs is the loop itself:

- the prompt is fed eagerly, through the cache's own planning (`forward_step`: the columns the cache
  has not seen; a longer prompt was prefilled in chunks before, as `kvlimit.generate` plans it);
- every later token is one `step(token)`: the cache's static decode step (its host part, then its
  device part and the forward, compiled as one graph: `kvlimit.integrations.hf.CompiledDecodeStep`);
- tokens go into a buffer allocated once for the prompt and every new token; processors and stopping
  criteria read views of it, so no step copies the text (transformers' loop concatenates the ids and
  the attention mask every step, whose cost grows with the text);
- stopping is read once per step, the step's one host synchronisation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from .cache import BoundedCache
from .forward import forward_step
from .integrations import hf

logger = logging.getLogger(__name__)

#: One decode step: the new tokens (batch, 1) -> the next logits (batch, vocab) float32.
DecodeStepFn = Callable[[torch.Tensor], torch.Tensor]


@dataclass
class LoopRules:
    """What transformers' generate prepared for the call (as `_sample` takes it)."""

    logits_processor: Any
    stopping_criteria: Any
    generation_config: Any
    streamer: Any = None


def loop_refusal(generation_config: Any, model_kwargs: dict[str, Any]) -> str | None:
    """Why kvlimit's loop cannot stand in for transformers' `_sample` on this call, or None."""
    if generation_config.output_attentions or generation_config.output_hidden_states:
        return "output_attentions / output_hidden_states are collected by transformers' own loop"
    unknown = sorted(set(model_kwargs) - hf.LOOP_MODEL_KWARGS)
    if unknown:
        return f"the model takes inputs kvlimit's loop does not pass on: {unknown}"
    return None


def run_loop(
    model: Any, cache: BoundedCache, input_ids: torch.Tensor, attention_mask: torch.Tensor, rules: LoopRules,
    step: DecodeStepFn,
) -> Any:  # fmt: skip
    """Generate from `input_ids` (batch, prompt) with `attention_mask` (see the module docstring)."""
    config = rules.generation_config
    batch, prompt = input_ids.shape
    ids = input_ids.new_empty((batch, max(int(config.max_length), prompt + 1)))
    ids[:, :prompt] = input_ids
    length = prompt
    recorder = _Recorder(config)
    pad = config._pad_token_tensor
    pads = any(hasattr(criteria, "eos_token_id") for criteria in rules.stopping_criteria)
    unfinished = torch.ones(batch, dtype=torch.long, device=input_ids.device)
    token = torch.zeros((batch, 1), dtype=torch.long, device=input_ids.device)  # the step's input, in place
    logits = _prefill(model, cache, input_ids, attention_mask)
    while True:
        scores = rules.logits_processor(ids[:, :length], logits)
        recorder.add(scores, logits)
        if config.do_sample:
            next_tokens = torch.multinomial(torch.nn.functional.softmax(scores, dim=-1), num_samples=1)[:, 0]
        else:
            next_tokens = torch.argmax(scores, dim=-1)
        if pads:  # finished rows take padding, as in transformers' loop
            next_tokens = next_tokens * unfinished + pad.to(next_tokens.device) * (1 - unfinished)
        ids[:, length] = next_tokens
        length += 1
        if rules.streamer is not None:
            rules.streamer.put(next_tokens.cpu())
        unfinished = unfinished & ~rules.stopping_criteria(ids[:, :length], recorder.scores)
        if length >= ids.shape[1] or int(unfinished.max()) == 0:
            break
        token.copy_(next_tokens[:, None])
        logits = step(token)
    if rules.streamer is not None:
        rules.streamer.end()
    sequences = ids[:, :length]
    return recorder.output(sequences, cache) if config.return_dict_in_generate else sequences


def _prefill(
    model: Any, cache: BoundedCache, input_ids: torch.Tensor, attention_mask: torch.Tensor
) -> torch.Tensor:
    """The prompt's columns the cache has not seen, through the cache as transformers' loop would feed
    them (one real column after a chunked prefill is a decode step); the last position's logits."""
    seen = cache.columns_seen
    new = input_ids[:, seen:]
    columns = None if (new.shape[1] == 1 and seen > 0) else attention_mask[:, seen:]
    out = forward_step(model, cache, new, columns, **hf.last_logits_only(model))
    logits: torch.Tensor = out.logits[:, -1].to(copy=True, dtype=torch.float32)
    return logits


class _Recorder:
    """The scores and logits `return_dict_in_generate` asks for, kept as transformers' loop keeps them."""

    def __init__(self, config: Any):
        wanted = bool(config.return_dict_in_generate)
        self.scores: tuple[torch.Tensor, ...] | None = () if wanted and config.output_scores else None
        self.logits: tuple[torch.Tensor, ...] | None = () if wanted and config.output_logits else None

    def add(self, scores: torch.Tensor, logits: torch.Tensor) -> None:
        # copies: a captured step's output is overwritten by the next replay
        if self.scores is not None:
            self.scores += (scores.clone(),)
        if self.logits is not None:
            self.logits += (logits.clone(),)

    def output(self, sequences: torch.Tensor, cache: BoundedCache) -> Any:
        return hf.decoder_only_output(sequences, self.scores, self.logits, cache)
