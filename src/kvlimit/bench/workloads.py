"""Workloads at one KV budget: continuous batching against static batches, stock generate and transformers'
`generate_batch`, side by side in one process.

Contract: `run_workloads(model, tokenizer, settings)` runs every workload of `settings.workloads`
(`WORKLOADS`: many chat prompts, sampling at temperature 0.7 / top-p 0.9, a number of new tokens,
end of sequence ignored or not) on every system, each given the same bytes of keys and values
(`settings.memory`):

- "continuous" (kvlimit continuous): `kvlimit.engine.ContinuousEngine` with `rows` = the most rows of
  `cache_limit` tokens that fit beside its `prefill_rows` prefill rows (at most the prompts; 0: prompts
  are prefilled in its free rows, and the rows have the whole budget);
- "static" (kvlimit static): the same rows as static batches of prompts sorted by length (`kvlimit.generate`),
  each batch running until its longest row ends;
- "stock" (stock generate): transformers' `generate` in static batches sorted by length, at the largest batch
  whose unbounded cache (longest prompt + new tokens per row) fits (1 when none does: flagged);
- "generate_batch": transformers' own continuous batching (a paged cache) given the same bytes:
  `num_blocks` pages of `page_size` tokens (`ContinuousBatchingConfig`).

Per run: new tokens, seconds to the last record, aggregate new tokens/s, the KV bytes the system held
at most (kvlimit: its caches; stock: the largest batch's cache at its end; generate_batch: its pages),
peak process memory (RSS, sampled), and the row-steps spent on rows that had already finished (static
batches). `workload_lines` renders the table, `plot_workloads` the figure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from transformers import DynamicCache

from ..build import build_cache
from ..config import LimitConfig
from ..engine import ContinuousEngine, Request
from ..frontend import decoding_arguments, encode_prompt, left_padded
from ..generation import generate
from ..integrations import hf
from ..jobs import through_eos
from ..sizing import kv_bytes_per_token, row_cost
from .memory import MemoryWatch
from .runner import machine_facts

logger = logging.getLogger(__name__)

SYSTEMS = ("continuous", "static", "stock", "generate_batch")
#: The continuous engine's prefill rows (`ContinuousEngine(prefill_rows=)`), held in the budget beside its rows:
#: none, prompts prefilled in its free rows (`benchmarks/free_rows.py`: 1.01x static on (a) at 48 MiB, 0.83x with 1)
PREFILL_ROWS_GIVEN = 0
#: How the report names each system.
LABELS = {"continuous": "kvlimit continuous", "static": "kvlimit static", "stock": "stock generate",
          "generate_batch": "generate_batch"}  # fmt: skip
TOPICS = [
    "a lighthouse keeper", "a lost robot", "a dragon who cannot fly", "two rival bakers", "a city under the sea",
    "a time-travelling cat", "the last tree on Mars", "a haunted library", "a chess prodigy", "a river pirate",
    "a clockmaker's apprentice", "an astronaut's daughter", "a village without music", "a talking violin",
    "the first snow", "a detective in Venice", "a forgotten king", "a garden on a train", "a shy giant",
    "a map that changes", "a storm chaser", "a museum at night", "a painter who lost colour", "an island radio",
    "a beekeeper's secret", "a bridge between worlds", "a kite festival", "a mountain monastery",
    "a submarine cook", "a desert caravan", "a midnight circus", "a quiet volcano",
]  # fmt: skip


@dataclass(frozen=True)
class Workload:
    """Prompts, new tokens per prompt and whether the end-of-sequence token stops a sequence."""

    name: str
    prompts: int
    new_tokens: int
    eos: bool
    description: str

    def texts(self) -> list[str]:
        """Long stories; with `eos`, every other prompt asks for one word instead, in as many tokens, so
        that a prompt's length does not tell how long its answer runs (static batches sort by it)."""
        out = []
        for i in range(self.prompts):
            topic = TOPICS[i % len(TOPICS)]
            out.append(
                f"Name one colour for {topic}."
                if self.eos and i % 2
                else f"Write a long story about {topic}."
            )
        return out


#: The issue's workloads: (a) every row long, (b) lengths vary, (c) very long rows.
WORKLOADS = {
    "a": Workload("a", 32, 512, False, "32 prompts x 512 new tokens, end of sequence ignored"),
    "b": Workload("b", 32, 1024, True, "32 prompts, end of sequence on, at most 1,024 new tokens"),
    "c": Workload("c", 32, 2048, False, "32 prompts x 2,048 new tokens, end of sequence ignored"),
}


@dataclass
class WorkloadSettings:
    """What to run: workloads (scaled by `prompts` / `new_tokens` when given), the budget, the limit."""

    memory: int
    workloads: tuple[str, ...] = ("a", "b", "c")
    cache_limit: int = 128
    prompts: int | None = None
    new_tokens: int | None = None
    systems: tuple[str, ...] = SYSTEMS
    page_size: int = 32
    seed: int = 0
    kv_dtype: str | None = None
    prefill_rows: int = PREFILL_ROWS_GIVEN

    def resolved(self) -> list[Workload]:
        unknown = [w for w in self.workloads if w not in WORKLOADS]
        if unknown or not self.workloads:
            raise ValueError(f"workloads {unknown} are not among {', '.join(WORKLOADS)}")
        bad = [s for s in self.systems if s not in SYSTEMS]
        if bad:
            raise ValueError(f"systems {bad} are not among {', '.join(SYSTEMS)}")
        return [
            Workload(w.name, self.prompts or w.prompts, self.new_tokens or w.new_tokens, w.eos,
                     w.description if self.prompts is None and self.new_tokens is None else
                     f"{self.prompts or w.prompts} prompts, {'at most ' if w.eos else ''}"
                     f"{self.new_tokens or w.new_tokens} new tokens, end of sequence {'on' if w.eos else 'ignored'}")
            for w in (WORKLOADS[name] for name in self.workloads)
        ]  # fmt: skip


@dataclass
class WorkloadRun:
    """One system on one workload."""

    workload: str
    system: str
    batch: int
    fits: bool
    new_tokens: int
    seconds: float
    tokens_per_s: float
    kv_bytes: int
    idle_row_steps: float = 0.0  # static batches: the share of row-steps spent on finished rows
    memory: dict[str, Any] = field(default_factory=dict)
    #: what the system was given beyond the budget (generate_batch: its options, and the sweep that chose them)
    given: dict[str, Any] = field(default_factory=dict)


def run_workloads(
    model: Any, tokenizer: Any, settings: WorkloadSettings, *, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Every workload on every system (module docstring); a JSON-ready dict with `runs` and `ratios`."""
    workloads = settings.resolved()
    started = time.perf_counter()
    device = next(model.parameters()).device
    per_token = kv_bytes_per_token(model)
    runs: list[WorkloadRun] = []
    with MemoryWatch(device, 0.01) as watch:
        for workload in workloads:
            prompts = [encode_prompt(tokenizer, text, chat=True) for text in workload.texts()]
            for system in settings.systems:
                if progress is not None:
                    progress(f"workload {workload.name}: {system}")
                measured: dict[str, Any] = {}
                with watch.phase(measured), torch.no_grad():
                    run = _RUNNERS[system](model, tokenizer, prompts, workload, settings, per_token)
                run.memory = measured
                logger.info("workload %s %s: %.1f tokens/s", workload.name, system, run.tokens_per_s)
                runs.append(run)
    return {
        "schema": "kvlimit-workloads/1",
        "settings": asdict(settings),
        "workloads": {w.name: asdict(w) for w in workloads},
        "kv_bytes_per_token": per_token,
        "machine": machine_facts(device),
        "runs": [asdict(r) for r in runs],
        "ratios": _ratios(runs),
        "wall_s": time.perf_counter() - started,
    }


def _ratios(runs: list[WorkloadRun]) -> dict[str, dict[str, float]]:
    """Per workload, kvlimit continuous's tokens/s over each other system's."""
    out: dict[str, dict[str, float]] = {}
    for run in runs:
        ours = next((r for r in runs if r.workload == run.workload and r.system == "continuous"), None)
        if ours is not None and run is not ours and run.tokens_per_s > 0:
            out.setdefault(run.workload, {})[run.system] = ours.tokens_per_s / run.tokens_per_s
    return out


def _decoding(model: Any, tokenizer: Any, workload: Workload) -> dict[str, Any]:
    decoding = decoding_arguments(max_new_tokens=workload.new_tokens, do_sample=True, temperature=0.7, top_p=0.9,
                                  min_new_tokens=None if workload.eos else workload.new_tokens)  # fmt: skip
    return {**decoding.kwargs, "pad_token_id": _pad(model, tokenizer)}


def _config(settings: WorkloadSettings) -> LimitConfig:
    return LimitConfig.create(settings.cache_limit, kv_dtype=settings.kv_dtype)


def _rows(model: Any, settings: WorkloadSettings, count: int, *, scratch: int = 0) -> tuple[int, bool]:
    """Rows of `cache_limit` tokens (stored as `kv_dtype` says) in the budget, less `scratch` rows (the
    continuous engine's prefill cache), at most `count`; and whether one fits."""
    fits = settings.memory // row_cost(model, _config(settings)).bytes_for(settings.cache_limit) - scratch
    return (max(1, min(int(fits), count)), fits >= 1)


def _continuous(model: Any, tokenizer: Any, prompts: list[list[int]], workload: Workload,
                settings: WorkloadSettings, per_token: int) -> WorkloadRun:  # fmt: skip
    rows, fits = _rows(model, settings, len(prompts), scratch=settings.prefill_rows)
    # at a byte budget every prefill row is a decoding row less (the rows are few here)
    engine = ContinuousEngine(model, _config(settings), rows=rows, prefill_rows=settings.prefill_rows,
                              decoding=_decoding(model, tokenizer, workload), seed=settings.seed)  # fmt: skip
    start = time.perf_counter()
    made = sum(len(f.tokens) for f in engine.run(Request(str(i), p) for i, p in enumerate(prompts)))
    seconds = time.perf_counter() - start
    return WorkloadRun(
        workload.name,
        "continuous",
        rows,
        fits,
        made,
        seconds,
        made / seconds,
        engine.kv_bytes,
        given={"prefill_rows": settings.prefill_rows},
    )


def _static(model: Any, tokenizer: Any, prompts: list[list[int]], workload: Workload,
            settings: WorkloadSettings, per_token: int) -> WorkloadRun:  # fmt: skip
    rows, fits = _rows(model, settings, len(prompts))
    return _batched(model, tokenizer, prompts, workload, settings, rows, fits, "static")


def _stock(model: Any, tokenizer: Any, prompts: list[list[int]], workload: Workload,
           settings: WorkloadSettings, per_token: int) -> WorkloadRun:  # fmt: skip
    longest = max(len(p) for p in prompts) + workload.new_tokens
    fits = settings.memory // (longest * per_token)
    batch = max(1, min(int(fits), len(prompts)))
    return _batched(model, tokenizer, prompts, workload, settings, batch, fits >= 1, "stock")


def _batched(model: Any, tokenizer: Any, prompts: list[list[int]], workload: Workload, settings: WorkloadSettings,
             batch: int, fits: bool, system: str) -> WorkloadRun:  # fmt: skip
    """Static batches of `batch` prompts sorted by length, through kvlimit (`kvlimit static`) or stock."""
    torch.manual_seed(settings.seed)
    device = next(model.parameters()).device
    ordered = sorted(prompts, key=len)
    eos = hf.eos_token_ids(model.generation_config.eos_token_id)
    decoding = _decoding(model, tokenizer, workload)
    made, kv_bytes, steps, useful = 0, 0, 0, 0
    start = time.perf_counter()
    for first in range(0, len(ordered), batch):
        group = ordered[first : first + batch]
        ids, mask = left_padded(group, decoding["pad_token_id"], device)
        width = ids.shape[1]
        if system == "stock":
            cache: Any = DynamicCache(config=hf.text_config(model))
            out = model.generate(input_ids=ids, attention_mask=mask, **hf.cache_argument(cache), **decoding)
        else:
            cache = build_cache(
                model, _config(settings), rows=len(group), max_length=width + workload.new_tokens
            )
            out = generate(model, input_ids=ids, attention_mask=mask, **hf.cache_argument(cache), **decoding)
        kv_bytes = max(kv_bytes, hf.kv_bytes(cache))
        new = out[:, width:].tolist()
        lengths = [through_eos(row, eos) for row in new]
        made += sum(lengths)
        steps += len(group) * max(lengths)
        useful += sum(lengths)
    seconds = time.perf_counter() - start
    idle = 1 - useful / steps if steps else 0.0
    return WorkloadRun(workload.name, system, batch, fits, made, seconds, made / seconds, kv_bytes, idle)


#: generate_batch's `max_batch_tokens` tried on a short run before the timed one (None: its own default)
BATCH_TOKENS = (None, 256, 512, 1024)


def _generate_batch(model: Any, tokenizer: Any, prompts: list[list[int]], workload: Workload,
                    settings: WorkloadSettings, per_token: int) -> WorkloadRun:  # fmt: skip
    """transformers' own continuous batching, its paged cache given the same bytes, in the configuration its
    users would give it: `max_batch_tokens` chosen by a short sweep (every prompt, 32 new tokens), on a GPU
    its CUDA graphs, and no switch to flash-attention kernels from the Hub (these machines are offline)."""
    pages = max(1, settings.memory // (settings.page_size * per_token))
    device = next(model.parameters()).device
    options: dict[str, Any] = {"auto_switch_to_flash": False}
    if device.type == "cuda":
        options["use_cuda_graph"] = True

    def timed(new_tokens: int, batch_tokens: int | None) -> tuple[float, int]:
        eos = model.generation_config.eos_token_id if workload.eos else None
        config = hf.generation_config(max_new_tokens=new_tokens, do_sample=True, temperature=0.7, top_p=0.9, top_k=0,
                                      eos_token_id=eos, pad_token_id=_pad(model, tokenizer))  # fmt: skip
        torch.manual_seed(settings.seed)
        start = time.perf_counter()
        outputs = hf.generate_batch(model, prompts, config, num_blocks=pages, page_size=settings.page_size,
                                    max_batch_tokens=batch_tokens, **options)  # fmt: skip
        made = sum(len(o.generated_tokens) for o in outputs.values())
        return time.perf_counter() - start, made

    swept = {}
    for batch_tokens in BATCH_TOKENS:
        seconds, made = timed(min(32, workload.new_tokens), batch_tokens)
        swept["default" if batch_tokens is None else str(batch_tokens)] = round(made / seconds, 2)
    best = max(BATCH_TOKENS, key=lambda b: swept["default" if b is None else str(b)])
    seconds, made = timed(workload.new_tokens, best)
    kv_bytes = pages * settings.page_size * per_token
    given = {**options, "max_batch_tokens": best, "swept_tokens_per_s": swept}
    return WorkloadRun(workload.name, "generate_batch", pages, True, made, seconds, made / seconds, kv_bytes,
                       given=given)  # fmt: skip


def _pad(model: Any, tokenizer: Any) -> int:
    """The tokenizer's padding id, else the model's, else its end-of-sequence id."""
    for pad in (
        tokenizer.pad_token_id,
        model.generation_config.pad_token_id,
        *sorted(hf.eos_token_ids(model.generation_config.eos_token_id)),
    ):
        if pad is not None:
            return int(pad)
    return 0


_RUNNERS = {
    "continuous": _continuous,
    "static": _static,
    "stock": _stock,
    "generate_batch": _generate_batch,
}


def workload_lines(result: dict[str, Any]) -> list[str]:
    """The text report: per workload, one row per system."""
    s = result["settings"]
    lines = [
        f"budget {s['memory'] / 2**20:.0f} MiB of KV cache ({result['kv_bytes_per_token']} bytes per token), "
        f"kvlimit at cache_limit {s['cache_limit']}, generate_batch pages of {s['page_size']} tokens",
    ]
    header = (
        f"  {'system':<20}{'batch':>6}{'new tokens':>11}{'s to last':>10}{'tokens/s':>10}{'kvlimit x':>10}"
        f"{'KV MiB':>8}{'peak RSS MiB':>13}{'idle rows':>10}"
    )
    for name, workload in result["workloads"].items():
        lines += [f"workload {name}: {workload['description']}", header]
        for run in (r for r in result["runs"] if r["workload"] == name):
            ratio = result["ratios"].get(name, {}).get(run["system"])
            peak = run["memory"].get("cuda_peak_allocated") or run["memory"].get("rss_peak") or 0
            batch = f"{run['batch']}" + ("" if run["fits"] else "!")
            label = "pages" if run["system"] == "generate_batch" else ""
            lines.append(
                f"  {LABELS[run['system']]:<20}{batch + label:>6}{run['new_tokens']:>11}{run['seconds']:>10.1f}"
                f"{run['tokens_per_s']:>10.1f}{'' if ratio is None else f'{ratio:.2f}x':>10}"
                f"{run['kv_bytes'] / 2**20:>8.1f}{peak / 2**20:>13.0f}{run['idle_row_steps']:>9.0%}"
            )
    lines.append("batch: rows (generate_batch: pages); ! = not even one sequence fits the budget; kvlimit x = "
                 "kvlimit continuous's tokens/s over the row's; idle rows: row-steps spent on finished rows")  # fmt: skip
    for run in (r for r in result["runs"] if r.get("given")):
        given = ", ".join(f"{k} {v}" for k, v in run["given"].items())
        lines.append(f"workload {run['workload']}: {LABELS[run['system']]} given {given}")
    lines.append(f"wall time: {result['wall_s']:.0f} s")
    return lines


def plot_workloads(result: dict[str, Any], path: str) -> None:
    """Per workload: tokens/s, seconds to the last record, KV bytes and peak RSS of every system."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(result["workloads"])
    systems = [s for s in SYSTEMS if any(r["system"] == s for r in result["runs"])]
    figure = Figure(figsize=(13, 3.6), dpi=110)
    FigureCanvasAgg(figure)
    panels = figure.subplots(1, 4)
    metrics = [
        ("aggregate new tokens/s", lambda r: r["tokens_per_s"]),
        ("seconds to the last record", lambda r: r["seconds"]),
        ("KV cache MiB", lambda r: r["kv_bytes"] / 2**20),
        ("peak RSS MiB", lambda r: (r["memory"].get("cuda_peak_allocated") or r["memory"].get("rss_peak") or 0) / 2**20),
    ]  # fmt: skip
    width = 0.8 / len(systems)
    colors = {"continuous": "#1f77b4", "static": "#9ecae1", "stock": "#555555",
              "generate_batch": "#ff7f0e"}  # fmt: skip
    for panel, (label, value) in zip(panels, metrics, strict=True):
        for k, system in enumerate(systems):
            values = [
                next((value(r) for r in result["runs"] if r["workload"] == n and r["system"] == system), 0.0)
                for n in names
            ]
            panel.bar(
                [i + k * width for i in range(len(names))],
                values,
                width,
                label=LABELS[system],
                color=colors[system],
            )
        panel.set_xticks(
            [i + width * (len(systems) - 1) / 2 for i in range(len(names))], [f"({n})" for n in names]
        )
        panel.set_title(label, fontsize=9)
    handles, labels = panels[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(systems), fontsize=8, frameon=False)
    s = result["settings"]
    figure.suptitle(
        f"workloads in {s['memory'] / 2**20:.0f} MiB of KV cache (kvlimit at cache_limit {s['cache_limit']})"
    )
    figure.tight_layout(rect=(0, 0.07, 1, 1))
    figure.savefig(path, format="png")
