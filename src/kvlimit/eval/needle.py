"""Needle in a haystack: can a bounded cache still retrieve one fact planted far back in its prompt?

Contract: `needle_in_haystack(model, tokenizer, filler_ids, ...)` plants a short fact ("The secret
number is 48193.") at each of several depths (fractions of the context) in a filler text of each
context length, asks for it at the end ("... What is the secret number? The secret number is"),
generates greedily, and scores exact match: the first number the model writes must be the planted
one. It runs the stock unbounded cache ("full") and every (policy, cache limit); the prompts of one
context length go through `generate` as one batch (they have the same length: no padding). Each
cell (run, context, depth) holds `numbers` needles with different secret numbers, so its accuracy is
a fraction. The prompt is longer than the limit, so a bounded run prefills it in chunks and evicts
as it goes: recency-only policies (sinks, window) keep the needle only when it is among the newest
tokens, by design; policies that choose by attention keep it if the model attended to it before
the question came. With a recall tier (`recalls`), evicted tokens are kept in blocks and the blocks
the current queries need come back: the needle can return after it left the window.

`plot_needle(result, path)` draws the accuracies as a heat map (rows: runs, columns: context and
depth). Library code: it logs and never prints; bad arguments raise `ValueError` naming them.
"""

from __future__ import annotations

import logging
import pathlib
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from ..checks import check_int
from ..config import recall_slots
from ..generation import generate
from ..policies import make_policy

logger = logging.getLogger(__name__)

NEEDLE = "The secret number is {number}."
QUESTION = "\n\nWhat is the secret number mentioned in the text above? The secret number is"
DEPTHS = (0.1, 0.3, 0.5, 0.7, 0.9)


@dataclass(frozen=True)
class NeedleCell:
    """One run at one context length and depth: how many of its needles came back exactly."""

    run: str  # "full" or "<policy>@<limit>"
    context_tokens: int
    depth: float
    correct: int
    total: int
    answers: list[str]

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


@dataclass
class NeedleResult:
    """Every cell of one evaluation, in run order."""

    runs: list[str]
    contexts: list[int]
    depths: list[float]
    cells: list[NeedleCell] = field(default_factory=list)
    seconds: float = 0.0

    def accuracy(self, run: str) -> float:
        """The run's accuracy over all its needles."""
        cells = [c for c in self.cells if c.run == run]
        total = sum(c.total for c in cells)
        return sum(c.correct for c in cells) / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "contexts": self.contexts,
            "depths": self.depths,
            "seconds": round(self.seconds, 1),
            "accuracy": {run: self.accuracy(run) for run in self.runs},
            "cells": [{**asdict(c), "accuracy": c.accuracy} for c in self.cells],
        }


def secret_numbers(count: int, seed: int) -> list[str]:
    """`count` distinct five-digit numbers (the needles' secrets)."""
    rng = random.Random(seed)
    return [str(n) for n in rng.sample(range(10_000, 100_000), count)]


def build_prompt(
    tokenizer: Any, filler_ids: Sequence[int], context_tokens: int, depth: float, number: str
) -> list[int]:
    """Filler ids with the needle at `depth` of `context_tokens` tokens, then the question."""
    needle = tokenizer(" " + NEEDLE.format(number=number) + " ", add_special_tokens=False)["input_ids"]
    question = tokenizer(QUESTION, add_special_tokens=False)["input_ids"]
    room = context_tokens - len(needle) - len(question)
    if room < 1 or len(filler_ids) < room:
        raise ValueError(
            f"context_tokens={context_tokens} needs {room} filler tokens; the filler has {len(filler_ids)}"
        )
    at = round(depth * room)
    return [*filler_ids[:at], *needle, *filler_ids[at:room], *question]


def first_number(text: str) -> str | None:
    found = re.search(r"\d+", text)
    return found.group(0) if found else None


def needle_in_haystack(
    model: Any,
    tokenizer: Any,
    filler_ids: Sequence[int],
    *,
    contexts: Sequence[int],
    limits: Sequence[int],
    policies: Sequence[str | Any],
    depths: Sequence[float] = DEPTHS,
    numbers: int = 3,
    seed: int = 0,
    full: bool = True,
    recalls: Sequence[int | float] = (0,),
    progress: Callable[[str], None] | None = None,
) -> NeedleResult:
    """Run every (run, context, depth) cell; see the module docstring. `policies`: names or objects.

    `recalls`: recall tiers each positional policy runs with at each limit (0: none; an int is slots,
    a float below 1 a fraction of the limit), labelled `sinks+recall64@256`; policies that keep
    tokens per layer run without."""
    _check(contexts, limits, depths, numbers)
    started = time.perf_counter()
    secrets = secret_numbers(numbers, seed)
    labels: list[tuple[Any, int | None, int, str]] = [(None, None, 0, "full")] if full else []
    for limit in limits:
        for policy in policies:
            name = policy if isinstance(policy, str) else policy.name
            for recall in sorted({recall_slots(r, limit) for r in recalls}):
                if recall and (make_policy(policy) if isinstance(policy, str) else policy).per_layer:
                    continue
                tier = f"+recall{recall}" if recall else ""
                labels.append((policy, limit, recall, f"{name}{tier}@{limit}"))
    result = NeedleResult(runs=[label for *_, label in labels], contexts=list(contexts), depths=list(depths))
    device = next(model.parameters()).device
    for context in contexts:
        prompts = [build_prompt(tokenizer, filler_ids, context, d, n) for d in depths for n in secrets]
        ids = torch.tensor(prompts, device=device)
        for run_policy, run_limit, recall, label in labels:
            if progress is not None:
                progress(f"{label}, context {context}")
            texts = _answers(model, tokenizer, ids, run_policy, run_limit, recall)
            for i, depth in enumerate(depths):
                answers = texts[i * numbers : (i + 1) * numbers]
                correct = sum(first_number(a) == n for a, n in zip(answers, secrets, strict=True))
                result.cells.append(NeedleCell(label, context, depth, correct, numbers, answers))
            logger.info("%s at %d tokens: %.2f", label, context, result.accuracy(label))
    result.seconds = time.perf_counter() - started
    return result


def _answers(
    model: Any, tokenizer: Any, ids: torch.Tensor, policy: Any, limit: int | None, recall: int = 0
) -> list[str]:
    kwargs: dict[str, Any] = {
        "input_ids": ids,
        "attention_mask": torch.ones_like(ids),
        "max_new_tokens": 8,
        "do_sample": False,
        "pad_token_id": tokenizer.pad_token_id
        if tokenizer.pad_token_id is not None
        else tokenizer.eos_token_id,
    }
    with torch.no_grad():
        out = (
            model.generate(**kwargs)
            if limit is None
            else generate(model, cache_limit=limit, policy=policy, recall=recall or None, **kwargs)
        )
    return [str(t) for t in tokenizer.batch_decode(out[:, ids.shape[1] :], skip_special_tokens=True)]


def _check(contexts: Sequence[int], limits: Sequence[int], depths: Sequence[float], numbers: int) -> None:
    for name, values in (("contexts", contexts), ("limits", limits)):
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
            raise ValueError(f"{name} must be positive ints; got {list(values)}")
    if not contexts:
        raise ValueError("contexts needs at least one context length")
    if not depths or any(not 0.0 <= d <= 1.0 for d in depths):
        raise ValueError(f"depths must be fractions between 0 and 1; got {list(depths)}")
    check_int("numbers", numbers, at_least=1, allowed="a positive int (needles per cell)")


def plot_needle(result: NeedleResult, path: str | pathlib.Path, *, title: str | None = None) -> pathlib.Path:
    """A heat map of the accuracies: one row per run, one column per (context, depth)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = [(c, d) for c in result.contexts for d in result.depths]
    grid = [[0.0] * len(columns) for _ in result.runs]
    for cell in result.cells:
        grid[result.runs.index(cell.run)][columns.index((cell.context_tokens, cell.depth))] = cell.accuracy
    figure = Figure(figsize=(1.2 + 0.55 * len(columns), 1.0 + 0.38 * len(result.runs)), dpi=110)
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdYlGn", aspect="auto")
    ax.set_yticks(
        range(len(result.runs)), [f"{r} ({result.accuracy(r):.0%})" for r in result.runs], fontsize=8
    )
    ax.set_xticks(range(len(columns)), [f"{c}\n{d:.0%}" for c, d in columns], fontsize=7)
    ax.set_xlabel("context tokens / needle depth")
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            ax.text(j, i, f"{value:.2f}".rstrip("0").rstrip("."), ha="center", va="center", fontsize=6)
    figure.colorbar(image, ax=ax, fraction=0.03, label="exact match")
    ax.set_title(title or "needle in a haystack: exact-match accuracy", fontsize=10)
    figure.tight_layout()
    out = pathlib.Path(path)
    figure.savefig(out, format="png")
    return out
