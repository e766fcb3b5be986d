"""A retrieval suite that is not one task: facts planted in long texts, asked for later, in two parts.

Contract: `SUITE` lists the tasks, each in one part: "tune" (what choices of the recall tier may be
made on) or "held-out" (what no choice looks at: other phrasings, other fillers, other values). A
task plants one fact (or several, and asks for one) at a depth of a filler text of a context length,
then asks for it:

- "single": one fact, asked at the end of the prompt;
- "multi": four facts of one kind (doors and their numbers, animals and their cages), one asked;
- "story": a fact at the start of a story, asked at its end;
- "mid-generation": the fact in the prompt, then a stretch of text the model is made to generate
  (teacher-forced, one decode step per token: what the recall tier chooses while decoding, not while
  reading a prompt), then the question, asked in the generated text.

`cases(task, tokenizer, contexts, depths, seeds)` builds a task's prompts (`Case`: prompt ids, the ids
generated before the question, the question, the answer); `run_case(model, tokenizer, case, config)`
runs one case through a bounded cache (`config`; None: a cache that holds everything, the full cache)
and returns an `Outcome`: the model's greedy answer (`correct` checks it) and the log-probability of
the answer's tokens teacher-forced after the question (on a copy of the cache), which says how near a
cache came where a pass/fail answer only flips; `answer` is the greedy text alone. The fillers are
texts the package ships or builds: the Botchan corpus (`kvlimit.eval.corpus`; two regions for the two
parts), sentences made from a small grammar, kvlimit's own source code (held-out) and the source of
a few modules of Python's standard library (tune).
"""

from __future__ import annotations

import copy
import importlib
import pathlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch

from ..build import build_cache
from ..config import LimitConfig
from ..forward import forward_step, prefill, prefill_chunk
from ..integrations import hf

Part = Literal["tune", "held-out"]

NAMES = ("Tomas", "Greta", "Oskar", "Marta", "Henrik", "Ingrid", "Lukas", "Sofia")
CITIES = ("Lisbon", "Vienna", "Dublin", "Prague", "Oslo", "Madrid", "Athens", "Warsaw")
COLORS = ("red", "green", "blue", "yellow")
ANIMALS = ("lion", "tiger", "bear", "wolf")


@dataclass(frozen=True)
class Task:
    """One task of the suite (see the module docstring).

    Attributes:
        name: the task's name, unique in the suite.
        part: "tune" or "held-out".
        kind: "single", "multi", "story" or "mid-generation".
        filler: "botchan-a", "botchan-b" (two regions of the corpus), "grammar", "source" (kvlimit's
            own code) or "stdlib" (code of Python's standard library).
        plant: the fact, a format string of `value` (and `item` for "multi").
        ask: the question and the answer's start, a format string of `item` for "multi".
        values: "number" (five digits), "name" or "city".
    """

    name: str
    part: Part
    kind: str
    filler: str
    plant: str
    ask: str
    values: str = "number"


SUITE: tuple[Task, ...] = (
    Task("secret-number", "tune", "single", "botchan-a", "The secret number is {value}.",
         "\n\nWhat is the secret number mentioned in the text above? The secret number is"),
    Task("favourite-number", "tune", "single", "grammar", "My favourite number is {value}.",
         "\n\nWhat is my favourite number? My favourite number is"),
    Task("doors", "tune", "multi", "botchan-a", "The number of the {item} door is {value}.",
         "\n\nWhat is the number of the {item} door? The number of the {item} door is"),
    Task("keeper", "tune", "story", "botchan-a", "The keeper of the lighthouse was a man named {value}.",
         "\n\nWhat was the name of the keeper of the lighthouse? His name was", "name"),
    Task("secret-while-writing", "tune", "mid-generation", "botchan-a", "The secret number is {value}.",
         "\n\nWhat is the secret number mentioned in the text above? The secret number is"),
    Task("lock-combination", "tune", "single", "stdlib", "The combination of the lock is {value}.",
         "\n\nWhat is the combination of the lock? The combination of the lock is"),
    Task("pass-key", "held-out", "single", "source", "The pass key is {value}. Remember it. {value} is the pass key.",
         "\n\nWhat is the pass key? The pass key is"),
    Task("safe-code", "held-out", "single", "botchan-b", "The code to open the safe is {value}.",
         "\n\nWhat is the code to open the safe? The code to open the safe is"),
    Task("cages", "held-out", "multi", "grammar", "The {item} sleeps in cage {value}.",
         "\n\nIn which cage does the {item} sleep? The {item} sleeps in cage"),
    Task("treasure", "held-out", "story", "botchan-b", "The old map said the treasure was buried in {value}.",
         "\n\nWhere was the treasure buried? The treasure was buried in", "city"),
    Task("pass-key-while-writing", "held-out", "mid-generation", "source",
         "The pass key is {value}. Remember it. {value} is the pass key.", "\n\nWhat is the pass key? The pass key is"),
)  # fmt: skip

#: the part of the context a mid-generation case generates between the prompt and the question
GENERATED = 0.25


@dataclass(frozen=True)
class Case:
    """One prompt of a task: token ids of the prompt, of the text generated before the question (empty
    unless "mid-generation") and of the question; the answer and where the fact sits."""

    task: str
    part: Part
    context: int
    depth: float
    prompt: list[int]
    generated: list[int]
    question: list[int]
    answer: str


def tasks(part: str = "both", names: Sequence[str] | None = None) -> list[Task]:
    """The tasks of one part ("tune", "held-out") or of both, in the suite's order; with `names`, only
    those (each must be a task of the part; one name may be given as a string)."""
    if part not in ("tune", "held-out", "both"):
        raise ValueError(f"part must be 'tune', 'held-out' or 'both'; got {part!r}")
    chosen = [t for t in SUITE if part in ("both", t.part)]
    if names is None:
        return chosen
    if isinstance(names, str):
        names = [names]
    unknown = sorted(set(names) - {t.name for t in chosen})
    if unknown:
        raise ValueError(
            f"not in part {part!r}: {', '.join(unknown)}; its tasks: {', '.join(t.name for t in chosen)}"
        )
    return [t for t in chosen if t.name in names]


def filler_text(name: str) -> str:
    """A filler of the suite (see the module docstring)."""
    if name.startswith("botchan"):
        from .corpus import ensure_corpus

        text = ensure_corpus().read_text(encoding="utf-8")
        half = len(text) // 2
        return text[:half] if name == "botchan-a" else text[half:]
    if name == "grammar":
        return _grammar_text()
    if name == "source":
        root = pathlib.Path(__file__).resolve().parents[1]
        return "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py")))
    if name == "stdlib":
        return "\n\n".join(_module_source(module) for module in STDLIB_FILLER)
    raise ValueError(f"unknown filler {name!r}; fillers: botchan-a, botchan-b, grammar, source, stdlib")


#: pure-Python modules of the standard library whose source is the "stdlib" filler (code that is not
#: kvlimit's, so a tune task on code shares no filler with the held-out pass keys)
STDLIB_FILLER = ("argparse", "textwrap", "difflib", "calendar", "fractions", "shlex", "configparser")


def _module_source(name: str) -> str:
    module = importlib.import_module(name)
    return pathlib.Path(str(module.__file__)).read_text(encoding="utf-8")


def _grammar_text(sentences: int = 6000, seed: int = 11) -> str:
    """Plain sentences from a small grammar: the classic pass-key filler, varied."""
    rng = random.Random(seed)
    subjects = [
        "The grass",
        "The sky",
        "The sea",
        "The road",
        "A bird",
        "The old house",
        "The river",
        "My neighbour",
    ]
    verbs = ["is", "looks", "seems", "was", "stays"]
    adjectives = ["green", "blue", "quiet", "long", "warm", "grey", "bright", "calm", "far away", "empty"]
    tails = ["today", "in the morning", "after the rain", "as always", "again", "this year", ""]
    out = []
    for _ in range(sentences):
        tail = rng.choice(tails)
        out.append(
            f"{rng.choice(subjects)} {rng.choice(verbs)} {rng.choice(adjectives)}{' ' + tail if tail else ''}."
        )
    return " ".join(out)


def _value(kind: str, rng: random.Random) -> str:
    if kind == "number":
        return str(rng.randrange(10_000, 100_000))
    return rng.choice(NAMES if kind == "name" else CITIES)


def cases(
    task: Task, tokenizer: Any, contexts: Sequence[int], depths: Sequence[float], seeds: Sequence[int]
) -> list[Case]:
    """The task's prompts: one per context, depth and seed (a story's fact always opens it)."""
    filler = tokenizer(filler_text(task.filler), add_special_tokens=False)["input_ids"]
    out = []
    for context in contexts:
        for depth in [0.0] if task.kind == "story" else depths:
            for seed in seeds:
                out.append(
                    _case(
                        task,
                        tokenizer,
                        filler,
                        context,
                        depth,
                        random.Random(f"{task.name}/{context}/{depth}/{seed}"),
                    )
                )
    return out


def _case(
    task: Task, tokenizer: Any, filler: list[int], context: int, depth: float, rng: random.Random
) -> Case:
    def encode(text: str) -> list[int]:
        ids: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
        return ids

    if task.kind == "multi":
        items = list(COLORS if "door" in task.plant else ANIMALS)
        values = [_value(task.values, rng) for _ in items]
        facts = " ".join(task.plant.format(item=i, value=v) for i, v in zip(items, values, strict=True))
        asked = rng.randrange(len(items))
        fact, question, answer = facts, task.ask.format(item=items[asked]), values[asked]
    else:
        answer = _value(task.values, rng)
        fact, question = task.plant.format(value=answer), task.ask
    planted, asked_ids = encode(" " + fact + " "), encode(question)
    generated_length = round(GENERATED * context) if task.kind == "mid-generation" else 0
    room = context - len(planted) - len(asked_ids) - generated_length
    start = rng.randrange(0, max(1, len(filler) - room - generated_length))
    text = filler[start : start + room + generated_length]
    if len(text) < room + generated_length:
        raise ValueError(f"filler {task.filler!r} is too short for a context of {context} tokens")
    at = round(depth * room)
    prompt = [*text[:at], *planted, *text[at:room]]
    generated = text[room:]
    question_ids = asked_ids if generated else []
    if not generated:
        prompt += asked_ids
    return Case(task.name, task.part, context, depth, prompt, list(generated), question_ids, answer)


def correct(case: Case, text: str) -> bool:
    """The answer's first number (or word) is the fact's value."""
    found = re.search(r"\d+" if case.answer.isdigit() else r"[A-Za-z]+", text)
    return found is not None and found.group(0) == case.answer


def answer_ids(tokenizer: Any, case: Case) -> list[int]:
    """The answer's token ids as the question's last words lead into it: a space, then the value."""
    ids: list[int] = tokenizer(" " + case.answer, add_special_tokens=False)["input_ids"]
    return ids


@dataclass(frozen=True)
class Outcome:
    """What a case gives through one cache.

    Attributes:
        text: the greedy answer (`correct` checks it).
        answer_logprob: the log-probability (natural log) of the answer's tokens (`answer_ids`),
            teacher-forced after the question: 0 is certain, more negative is less likely. A
            pass/fail answer flips on a small change; this measures how close each cache came.
    """

    text: str
    answer_logprob: float


def run_case(
    model: Any, tokenizer: Any, case: Case, config: LimitConfig | None, *, new_tokens: int = 8
) -> Outcome:
    """`case` through a bounded cache of `config` (None: one that holds the whole case, which is the full
    cache): the prompt fed as `kvlimit.generate` feeds it (in chunks when longer than the limit), the
    generated text and the question token by token (decode steps), then the answer greedily, up to
    `new_tokens` tokens or an end of sequence, and, on a copy of the cache taken after the question,
    the answer's own tokens teacher-forced for their log-probability."""
    ids = torch.tensor([case.prompt + case.generated + case.question], device=next(model.parameters()).device)
    forced = answer_ids(tokenizer, case)
    total = ids.shape[1] + max(new_tokens, len(forced))
    cache = build_cache(model, config or LimitConfig.create(total), max_length=total)
    prompt = len(case.prompt)
    chunk = prefill_chunk(cache, prompt, None if config is None else config.prefill_chunk)
    extra = hf.last_logits_only(model)
    with torch.no_grad():
        if chunk is not None:
            prefill(model, cache, ids[:, :prompt], torch.ones_like(ids[:, :prompt]), chunk)
        else:
            forward_step(model, cache, ids[:, : prompt - 1], torch.ones_like(ids[:, : prompt - 1]), **extra)
        for t in range(prompt - 1, ids.shape[1]):
            logits = forward_step(model, cache, ids[:, t : t + 1], **extra).logits[:, -1]
        logprob = _teacher_forced(model, copy.deepcopy(cache), logits, forced, extra)
        out: list[int] = []
        eos = set(hf.eos_token_ids(model.generation_config.eos_token_id))
        while len(out) < new_tokens and not (out and out[-1] in eos):
            token = logits.argmax(dim=-1, keepdim=True)
            out.append(int(token))
            if len(out) < new_tokens and out[-1] not in eos:
                logits = forward_step(model, cache, token, **extra).logits[:, -1]
    return Outcome(str(tokenizer.decode(out, skip_special_tokens=True)), logprob)


def _teacher_forced(
    model: Any, cache: Any, logits: torch.Tensor, tokens: list[int], extra: dict[str, Any]
) -> float:
    """Sum of log p(token) over `tokens`, the first under `logits` (1, vocab), each next after feeding
    the one before through `cache` (which it advances: pass a copy)."""
    total = 0.0
    for n, token in enumerate(tokens):
        total += float(torch.log_softmax(logits.float(), dim=-1)[0, token])
        if n + 1 < len(tokens):
            step = torch.tensor([[token]], device=logits.device)
            logits = forward_step(model, cache, step, **extra).logits[:, -1]
    return total


def answer(model: Any, tokenizer: Any, case: Case, config: LimitConfig | None, *, new_tokens: int = 8) -> str:
    """The model's greedy answer to `case` through a bounded cache of `config` (`run_case`'s text)."""
    return run_case(model, tokenizer, case, config, new_tokens=new_tokens).text
