"""Reference computations the tests compare kvlimit against (see DESIGN.md, "Oracles").

- `kept_indices`: which of a row's tokens a sinks/window cache holds when it consumes token j.
- `fresh_logits`: the logits of a fresh forward over given tokens at positions 0..n-1.
- `replay_logits`: feed a finished sequence back through a fresh BoundedCache, token by token.
- `LimitRecorder`: records, at every forward, how many keys each query may see and what is stored.
"""

from __future__ import annotations

import inspect

import torch

import kvlimit
import kvlimit.forward
from kvlimit.cache import BoundedCache, BoundedLayer

__all__ = [
    "LimitRecorder",
    "fresh_logits",
    "fresh_logits_many",
    "generate_limited",
    "kept_indices",
    "real_tokens",
    "replay_logits",
    "steps_to_admit",
    "takes_positions",
]


def takes_positions(model) -> bool:
    return "position_ids" in inspect.signature(model.forward).parameters


def kept_indices(j: int, limit: int, n_sink: int) -> list[int]:
    """Token indices a cache of `limit` with `n_sink` sinks holds right after storing token j."""
    if j < limit:
        return list(range(j + 1))
    return list(range(n_sink)) + list(range(j - (limit - n_sink) + 1, j + 1))


def fresh_logits(model, tokens: list[int]) -> torch.Tensor:
    """Last-position logits of a fresh forward over `tokens` at positions 0..n-1."""
    ids = torch.tensor([tokens])
    kwargs = {}
    if takes_positions(model):
        kwargs["position_ids"] = torch.arange(len(tokens))[None]
    with torch.no_grad():
        return model(input_ids=ids, **kwargs).logits[0, -1]


def fresh_logits_many(model, sequences: list[list[int]]) -> list[torch.Tensor]:
    """`fresh_logits` for many token lists, one forward per distinct length."""
    by_length: dict[int, list[int]] = {}
    for i, tokens in enumerate(sequences):
        by_length.setdefault(len(tokens), []).append(i)
    kwargs_positions = takes_positions(model)
    results: list[torch.Tensor | None] = [None] * len(sequences)
    for length, members in by_length.items():
        ids = torch.tensor([sequences[i] for i in members])
        kwargs = (
            {"position_ids": torch.arange(length)[None].expand(len(members), -1)} if kwargs_positions else {}
        )
        with torch.no_grad():
            logits = model(input_ids=ids, **kwargs).logits[:, -1]
        for row, i in enumerate(members):
            results[i] = logits[row]
    return results  # type: ignore[return-value]


def real_tokens(sequence: torch.Tensor, prompt_mask: torch.Tensor) -> list[int]:
    """A row's tokens without its left padding."""
    keep = torch.cat([prompt_mask.bool(), torch.ones(len(sequence) - len(prompt_mask), dtype=torch.bool)])
    return sequence[keep].tolist()


def replay_logits(
    model,
    cache: BoundedCache,
    prompt: torch.Tensor,
    prompt_mask: torch.Tensor,
    continuation: torch.Tensor,
    chunk: int | None = None,
) -> list[torch.Tensor]:
    """Teacher-forced replay through a fresh bounded cache.

    prompt / prompt_mask: (batch, P); continuation: (batch, T). Returns T tensors (batch, vocab): the
    logits after the prompt and after each continuation token but the last, as generation saw them.
    `chunk`: the prompt is fed as generate prefills it (`kvlimit.forward.prefill_spans`, with recall its
    last `prompt_tail` columns one by one, then its last column as a decode step); None: in one forward.
    """
    outputs = []

    def forward(ids, mask):
        # forward_step: the cache's plan, plus the column mask transformers' own sliding layers need
        return kvlimit.forward_step(model, cache, ids, mask).logits[:, -1]

    width = prompt.shape[1]
    if chunk is None:
        logits = forward(prompt, prompt_mask)
    else:
        for start, end in kvlimit.forward.prefill_spans(width, chunk, kvlimit.forward.prompt_tail(cache)):
            forward(prompt[:, start:end], prompt_mask[:, start:end])
        logits = forward(prompt[:, -1:], None if width > 1 else prompt_mask[:, -1:])
    outputs.append(logits)
    for t in range(continuation.shape[1] - 1):
        outputs.append(forward(continuation[:, t : t + 1], None))
    return outputs


class LimitRecorder:
    """Checks the limit at every forward, per row and layer.

    At each `prepare_step` it reads the attention mask the step plans: the last query of a row sees
    every unmasked key of that row (earlier queries of a chunk see fewer, by causality). A step that
    says every column is a kept token (the model may then get no 2D mask) must hold no zero. After each
    layer's update it checks what is stored: valid slots per row and the allocated tensor size.
    """

    def __init__(self, monkeypatch, limit: int):
        self.limit = limit
        self.steps = 0
        self.updates = 0
        self.max_visible = 0
        self.max_stored = 0
        self.all_kept_steps = 0
        self.cache = None
        recorder = self
        original_update = BoundedLayer.update
        original_prepare = BoundedCache.prepare_step

        def update(layer, key_states, value_states, *args, **kwargs):
            keys, values = original_update(layer, key_states, value_states, *args, **kwargs)
            recorder.after_update(layer, keys)
            return keys, values

        def prepare_step(cache, input_ids, attention_mask=None):
            step = original_prepare(cache, input_ids, attention_mask)
            recorder.cache = cache
            recorder.after_prepare(step)
            return step

        monkeypatch.setattr(BoundedLayer, "update", update)
        monkeypatch.setattr(BoundedCache, "prepare_step", prepare_step)

    def after_prepare(self, step) -> None:
        self.steps += 1
        visible = int(step.attention_mask.sum(dim=1).max())
        if step.mask_all_kept:
            assert bool(step.attention_mask.all()), "a step without a mask would attend to an empty slot"
            self.all_kept_steps += 1
        assert visible <= self.limit, f"a query sees {visible} > {self.limit} keys"
        self.max_visible = max(self.max_visible, visible)

    def after_update(self, layer: BoundedLayer, keys: torch.Tensor) -> None:
        cache = self.cache  # the cache whose step this layer is running
        self.updates += 1
        assert keys.shape[2] == layer.plan.kv_length
        assert layer.keys.shape[2] <= self.limit, (
            f"layer {layer.layer_idx} allocated {layer.keys.shape[2]} slots"
        )
        stored = cache.valid.sum(dim=1)
        assert int(stored.max()) <= self.limit, f"a row stores {int(stored.max())} > {self.limit} tokens"
        assert stored.tolist() == cache.rows.kept
        self.max_stored = max(self.max_stored, int(stored.max()))


def generate_limited(model, ids, mask, limit, **kwargs):
    return kvlimit.generate(model, input_ids=ids, attention_mask=mask, cache_limit=limit, **kwargs)


def steps_to_admit(engine, decoding, prompt) -> int:
    """Start the `decoding` request in `engine`, submit `prompt` and count the engine's steps until the
    prompt's first event (its prefill done), checking that `decoding` gets a token in every one of them."""
    engine.submit(decoding)
    while engine.active == 0:
        engine.step()
    engine.submit(prompt)
    steps = 0
    while True:
        events = engine.step()
        steps += 1
        assert decoding.id in [e.id for e in events if isinstance(e, kvlimit.Token)]
        if any(e.id == prompt.id for e in events):
            return steps
