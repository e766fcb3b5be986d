"""`kvlimit generate`: text from a prompt with a bounded KV cache, streamed to stdout.

Contract: stdout carries only the generated text, streamed as it is decoded (with `--json`: nothing
but one JSON object at the end). Everything else -- the load message, the progress line, the
summary -- goes to stderr, and `--quiet` silences it. The progress line is drawn only when stderr is
a terminal and the text is not streaming into a terminal (there it would overwrite the text; the
text itself then shows the progress). Ctrl-C stops generation, prints the summary of what was
generated and exits with 130. Options are checked before the model loads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

import torch
import transformers
from transformers import StoppingCriteriaList

from ..build import build_cache
from ..cache import BoundedCache
from ..clitools import (
    EXIT_INTERRUPTED,
    PROG,
    CLIError,
    ParagraphFormatter,
    Progress,
    add_kv_storage_arguments,
    add_model_arguments,
    add_policy_settings,
    add_recall_arguments,
    check_number,
    cli_names,
    declared,
    format_bytes,
    kv_storage_from_args,
    load_with_status,
    option_name,
    parse_limit,
    policy_settings_from_args,
    recall_from_args,
)
from ..config import LimitConfig, parse_bytes
from ..frontend import Decoding, decoding_arguments, ends_with_stop_string, stop_reason
from ..frontend import encode_prompt as encode_prompt_ids
from ..generation import generate as bounded_generate
from ..integrations import hf
from ..jobs import BATCHING, JOB_PREFILL_ROWS
from ..models import LoadedModel
from ..policies import POLICIES, declared_settings, policy_help, policy_names
from ..sizing import kv_bytes_per_token, row_cost
from .batch import read_prompts, run_batch
from .streaming import StepWatch, TextSink, held_tokens

DEFAULT_CACHE_LIMIT = "1024"
DEFAULT_MAX_NEW_TOKENS = 1000
# Sampling defaults: greedy decoding of small models falls into loops within a few hundred tokens,
# which defeats the point of generating long text; these are the usual chat-model settings.
DEFAULT_TEMPERATURE = 0.7
DEFAULT_TOP_P = 0.9


def _as_options(text: str) -> str:
    """Policy summaries name their settings as in Python (n_sink); the command line spells them --n-sink."""
    for setting in (s for s in declared_settings() if "_" in s):
        text = text.replace(setting, option_name(setting))
    return text


def register(subparsers: Any) -> None:
    """Add the `generate` subcommand to `subparsers`."""
    parser = subparsers.add_parser(
        "generate",
        help="generate text with a bounded KV cache, streaming it to stdout",
        description="Generate text from PROMPT with a KV cache bounded to --cache-limit tokens per sequence. "
        "The text streams to stdout as it is generated; the load message, a progress line (on a terminal) "
        "and a final summary -- tokens, tokens/s, the cache's size and what an unbounded cache would "
        "have needed -- go to stderr. Ctrl-C stops generation, prints the summary and exits with 130.",
        epilog="decoding: by default tokens are sampled with temperature 0.7 and top-p 0.9 (no top-k, no "
        "repetition penalty); --temperature/--top-p/--top-k/--repetition-penalty change one setting "
        "and keep the other defaults. --greedy always takes the most likely token. --num-beams N "
        "runs beam search, deterministic unless --temperature, --top-p or --top-k is given (then beam "
        "sampling); transformers cannot stream beam search, so its text is printed when it ends (and "
        "Ctrl-C leaves none).\n\n"
        "prompt: a model whose tokenizer has a chat template (an instruct model, such as the embedded "
        "SmolLM2-135M-Instruct) gets PROMPT as a user message with the assistant turn opened; --raw "
        "feeds PROMPT as plain text.\n\n"
        "exit status: 0 done, 2 usage or model error, 130 interrupted (Ctrl-C).",
        formatter_class=ParagraphFormatter,
    )
    parser.add_argument(
        "prompt", metavar="PROMPT", nargs="?", default=None, help="the prompt text; - reads it from stdin"
    )
    parser.add_argument(
        "--compile",
        action="store_true",
        help="compile the decode step (torch.compile, one graph, on any device; the first steps wait for the "
        "compile); every policy, --kv-dtype and --recall (not with --recall-score bounds; "
        "kvlimit info says whether a model compiles)",
    )
    parser.add_argument(
        "--raw",
        action="store_true",
        help="send PROMPT as is, without the model's chat template (models without one always get it as is)",
    )
    add_cache_arguments(parser)
    _add_decoding_arguments(parser)
    _add_batch_arguments(parser)
    add_model_arguments(parser)
    _add_output_arguments(parser)
    parser.set_defaults(handler=run_generate)


def add_cache_arguments(parser: argparse.ArgumentParser) -> None:
    cache = parser.add_argument_group("cache")
    cache.add_argument(
        "--cache-limit",
        metavar="N|SIZE",
        default=DEFAULT_CACHE_LIMIT,
        help=f"{declared('cache_limit')} (default: {DEFAULT_CACHE_LIMIT} tokens)",
    )
    cache.add_argument(
        "--policy",
        default="sinks",
        metavar="|".join(policy_names()),
        help=f"{declared('policy')}: {_as_options(policy_help())} (default: sinks)",
    )
    add_kv_storage_arguments(cache)
    add_recall_arguments(cache)
    add_policy_settings(cache)


def _add_decoding_arguments(parser: argparse.ArgumentParser) -> None:
    decoding = parser.add_argument_group("decoding")
    decoding.add_argument(
        "--max-new-tokens",
        type=int,
        metavar="N",
        default=DEFAULT_MAX_NEW_TOKENS,
        help=f"the most new tokens to generate; generation also stops at the end-of-sequence token "
        f"unless --ignore-eos (default: {DEFAULT_MAX_NEW_TOKENS})",
    )
    decoding.add_argument(
        "--ignore-eos",
        action="store_true",
        help="never stop at the end-of-sequence token: generate exactly --max-new-tokens tokens",
    )
    decoding.add_argument(
        "--greedy", action="store_true", help="always take the most likely token (no sampling)"
    )
    decoding.add_argument(
        "--temperature",
        type=float,
        metavar="T",
        default=None,
        help=f"sampling temperature, > 0 (default: {DEFAULT_TEMPERATURE})",
    )
    decoding.add_argument(
        "--top-p",
        type=float,
        metavar="P",
        default=None,
        help=f"nucleus sampling: sample from the most likely tokens whose probabilities add up to P, "
        f"0 < P <= 1 (default: {DEFAULT_TOP_P})",
    )
    decoding.add_argument(
        "--top-k",
        type=int,
        metavar="K",
        default=None,
        help="sample from the K most likely tokens only, K >= 1 (default: no top-k)",
    )
    decoding.add_argument(
        "--repetition-penalty",
        type=float,
        metavar="R",
        default=None,
        help="penalise tokens already in the prompt or the text by the factor R > 0; above 1 discourages "
        "repeats (default: 1, off)",
    )
    decoding.add_argument(
        "--num-beams",
        type=int,
        metavar="N",
        default=1,
        help="beam search with N beams (default: 1, no beams)",
    )
    decoding.add_argument(
        "--stop",
        action="append",
        metavar="TEXT",
        default=None,
        help="stop a sequence once its text ends with TEXT (kept in the text); may be given several times",
    )
    decoding.add_argument(
        "--seed",
        type=int,
        metavar="N",
        default=None,
        help="random seed, for repeatable sampling (with --prompts, each prompt's text is a function of the "
        "seed and its id alone: see --batching)",
    )


def _add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    batch = parser.add_argument_group("many prompts (kvlimit.commands.batch)")
    batch.add_argument(
        "--prompts",
        metavar="FILE",
        default=None,
        help="generate for every prompt of FILE instead of PROMPT: one per line, or JSON Lines with id and "
        "prompt; records go to --output FILE.jsonl (appended batch by batch; a rerun skips the ids done)",
    )
    batch.add_argument(
        "--num-return-sequences", type=int, metavar="N", default=1, help="sequences per prompt (default: 1)"
    )
    batch.add_argument(
        "--batch-size",
        metavar="N|auto",
        default="8",
        help="prompts decoded at once (x --num-return-sequences rows), or auto: the most that fit --memory "
        "(kvlimit plan) (default: 8)",
    )
    batch.add_argument(
        "--batching",
        choices=BATCHING,
        default="auto",
        help="continuous: a sequence that ends frees its row for the next prompt at once (prompts in file "
        "order, records written as they finish; with --seed a prompt's text is the same whatever its "
        "batch, the file's order, --batch-size, a resume or the Ray shard, and equals the prompt "
        "generated alone); static: batches of prompts sorted by length, each running until its longest "
        "row ends (a sampled text then depends on its batch); auto (default): continuous, but static "
        "for beam search (--num-beams) and for a model that keeps its own sliding-window layers at "
        "this --cache-limit",
    )
    batch.add_argument(
        "--prefill-rows",
        type=int,
        metavar="N",
        default=JOB_PREFILL_ROWS,
        help="continuous batching: waiting prompts prefilled together in one forward at most; more admits "
        "a burst of prompts in fewer steps and holds more bytes beside the rows; 0: no bytes beside the "
        "rows (prompts are prefilled whole in the batch's free rows, a long one holding the decoding rows "
        f"for its prefill) (default: {JOB_PREFILL_ROWS})",
    )
    batch.add_argument(
        "--ray",
        metavar="ADDRESS",
        nargs="?",
        const="local",
        default=None,
        help="run --prompts on a Ray cluster (pip install 'kvlimit[ray]'): --output is then a folder of "
        "shards; ADDRESS of an existing cluster (e.g. ray://head:10001 or auto), none: a local one",
    )
    batch.add_argument("--workers", type=int, metavar="N", default=2, help="with --ray: workers (default: 2)")
    batch.add_argument(
        "--worker-cpus", type=float, metavar="N", default=1.0, help="with --ray: CPUs per worker (default: 1)"
    )
    batch.add_argument(
        "--worker-gpus", type=float, metavar="N", default=0.0, help="with --ray: GPUs per worker (default: 0)"
    )
    batch.add_argument(
        "--memory",
        metavar="SIZE|auto",
        default=None,
        help="with --batch-size auto: the memory generation may use, such as 4GiB (default: auto, what is free)",
    )


def _add_output_arguments(parser: argparse.ArgumentParser) -> None:
    output = parser.add_argument_group("output")
    output.add_argument(
        "--output", metavar="FILE", default=None, help="also write the generated text to FILE"
    )
    output.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (the text and the summary's numbers) on stdout at the end "
        "instead of streaming the text",
    )
    output.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing on stderr but errors (no progress, no summary)",
    )
    output.add_argument(
        "--debug", action="store_true", help="show full tracebacks and kvlimit's log messages on stderr"
    )


def decoding_from_args(args: argparse.Namespace) -> Decoding:
    """Validate the decoding options (`CLIError` naming the option) and build generate's arguments
    (`kvlimit.frontend.decoding_arguments`, with this command's defaults)."""
    check_number(args.max_new_tokens, "--max-new-tokens", at_least=1)
    check_number(args.num_beams, "--num-beams", at_least=1)
    check_number(args.temperature, "--temperature", above=0)
    check_number(args.top_p, "--top-p", above=0, at_most=1)
    check_number(args.top_k, "--top-k", at_least=1)
    check_number(args.repetition_penalty, "--repetition-penalty", above=0)
    check_number(args.seed, "--seed", at_least=0)
    sampling_given = [
        name
        for name, value in (
            ("--temperature", args.temperature),
            ("--top-p", args.top_p),
            ("--top-k", args.top_k),
        )
        if value is not None
    ]
    if args.greedy and sampling_given:
        raise CLIError(f"--greedy takes no sampling options; drop {', '.join(sampling_given)} or --greedy")
    if args.stop and any(not text for text in args.stop):
        raise CLIError("--stop takes a non-empty TEXT")
    decoding = decoding_arguments(
        max_new_tokens=args.max_new_tokens,
        do_sample=not args.greedy and (args.num_beams == 1 or bool(sampling_given)),
        temperature=DEFAULT_TEMPERATURE if args.temperature is None else args.temperature,
        top_p=DEFAULT_TOP_P if args.top_p is None else args.top_p,
        top_k=0 if args.top_k is None else args.top_k,  # 0: no top-k filter
        repetition_penalty=1.0 if args.repetition_penalty is None else args.repetition_penalty,
        num_beams=args.num_beams,
        stop=args.stop,
        # --ignore-eos suppresses every end-of-sequence id of the generation config until max_new_tokens
        min_new_tokens=args.max_new_tokens if args.ignore_eos else None,
    )
    if args.seed is not None:
        decoding.description += f", seed {args.seed}"
    return decoding


def limit_config_from_args(args: argparse.Namespace) -> LimitConfig:
    """The validated `--cache-limit`, `--policy` and its settings (errors name what is allowed)."""
    limit = parse_limit(args.cache_limit)
    policy = args.policy.strip().lower()
    settings = policy_settings_from_args(args, [policy]) if policy in POLICIES else {}
    try:
        return LimitConfig.create(
            limit, policy, **settings, **kv_storage_from_args(args), **recall_from_args(args)
        )
    except ValueError as exc:
        raise CLIError(cli_names(str(exc))) from exc


def _tokens(count: int) -> str:
    return f"{count} token" if count == 1 else f"{count} tokens"


@dataclass
class RunReport:
    """What one `generate` run did: the summary on stderr and the fields of the --json object."""

    model: str
    model_type: str
    prompt_tokens: int
    generated_tokens: int
    stop_reason: str  # "max_new_tokens", "eos", "stop_string" or "interrupted"
    seconds: float
    first_token_seconds: float | None
    load_seconds: float
    rows: int
    cache_limit: int
    policy: str
    decoding: str
    cache_bytes: int
    cache_tokens_held: int
    kv_bytes_per_token: int
    kv_dtype: str | None = None
    stored_bytes_per_token: int = 0
    cache_stats: dict[str, int] = field(default_factory=dict)
    recall: int = 0
    recall_bytes: int = 0  # the recall store's blocks, apart from the attended cache_bytes
    recall_tokens: int = 0  # evicted tokens the store holds (all rows)
    text: str | None = None

    @property
    def tokens_per_second(self) -> float:
        return self.generated_tokens / self.seconds if self.seconds > 0 else 0.0

    @property
    def unbounded_cache_bytes(self) -> int:
        """What a cache keeping every token would hold at this length."""
        return self.kv_bytes_per_token * (self.prompt_tokens + self.generated_tokens) * self.rows

    def summary_lines(self) -> list[str]:
        stop = {
            "max_new_tokens": "stopped at --max-new-tokens",
            "stop_string": "stopped at a --stop text",
            "eos": "stopped at the end-of-sequence token",
            "interrupted": "interrupted",
        }[self.stop_reason]
        first = (
            f", first token after {self.first_token_seconds:.2f} s"
            if self.first_token_seconds is not None
            else ""
        )
        total = self.prompt_tokens + self.generated_tokens
        ratio = self.unbounded_cache_bytes / self.cache_bytes if self.cache_bytes else 0.0
        rows = f" x {self.rows} beams" if self.rows > 1 else ""
        stored = (
            f" ({self.stored_bytes_per_token} stored as {self.kv_dtype}, sinks in float)"
            if self.kv_dtype
            else ""
        )
        return [
            f"generated  {_tokens(self.generated_tokens)} in {self.seconds:.1f} s "
            f"({self.tokens_per_second:.1f} tokens/s{first}); prompt {_tokens(self.prompt_tokens)}; {stop}",
            f"decoding   {self.decoding}; policy {self.policy}",
            f"KV cache   {format_bytes(self.cache_bytes)} ({self.cache_bytes} bytes): limit {self.cache_limit} "
            f"tokens{rows}, {self.cache_tokens_held} held, {self.kv_bytes_per_token} bytes per token{stored}",
            f"unbounded  {format_bytes(self.unbounded_cache_bytes)} ({self.unbounded_cache_bytes} bytes) "
            f"for {total} tokens{rows}: {ratio:.1f}x the bounded cache",
            *(
                [
                    f"recall     {self.recall} of the {self.cache_limit} slots recalled; store "
                    f"{format_bytes(self.recall_bytes)} ({self.recall_bytes} bytes) holding "
                    f"{self.recall_tokens} evicted tokens, apart from the KV cache"
                ]
                if self.recall
                else []
            ),
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "model": self.model,
            "model_type": self.model_type,
            "prompt_tokens": self.prompt_tokens,
            "generated_tokens": self.generated_tokens,
            "stop_reason": self.stop_reason,
            "seconds": round(self.seconds, 4),
            "tokens_per_second": round(self.tokens_per_second, 3),
            "first_token_seconds": None
            if self.first_token_seconds is None
            else round(self.first_token_seconds, 4),
            "load_seconds": round(self.load_seconds, 4),
            "decoding": self.decoding,
            "policy": self.policy,
            "rows": self.rows,
            "cache_limit": self.cache_limit,
            "cache_bytes": self.cache_bytes,
            "cache_tokens_held": self.cache_tokens_held,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "kv_dtype": self.kv_dtype,
            "stored_bytes_per_token": self.stored_bytes_per_token,
            "unbounded_cache_bytes": self.unbounded_cache_bytes,
            "cache_stats": dict(self.cache_stats),
            "recall": self.recall,
            "recall_bytes": self.recall_bytes,
            "recall_tokens": self.recall_tokens,
        }


def _check_batch_options(args: argparse.Namespace) -> None:
    """--prompts and the options it goes with (before any model loads)."""
    if args.prompt is not None:
        raise CLIError("give a PROMPT or --prompts FILE, not both")
    if args.json:
        raise CLIError("--json is for one prompt; with --prompts the records are JSON Lines already")
    check_number(args.num_return_sequences, "--num-return-sequences", at_least=1)
    if args.num_beams > 1 and args.num_return_sequences > args.num_beams:
        raise CLIError(
            f"--num-return-sequences {args.num_return_sequences} exceeds --num-beams {args.num_beams}"
        )
    if args.num_beams == 1 and args.greedy and args.num_return_sequences > 1:
        raise CLIError("--num-return-sequences above 1 needs sampling or --num-beams (greedy returns one)")
    if args.batching == "continuous" and args.num_beams > 1:
        raise CLIError(
            "--num-beams above 1 runs on static batches: drop --batching continuous (auto picks static)"
        )
    check_number(args.prefill_rows, "--prefill-rows", at_least=0)
    if args.batching == "static" and args.prefill_rows != JOB_PREFILL_ROWS:
        raise CLIError("--prefill-rows is for continuous batching: drop it or --batching static")
    if args.batch_size != "auto" and (not str(args.batch_size).isdigit() or int(args.batch_size) < 1):
        raise CLIError(f"--batch-size must be a positive int or auto; got {args.batch_size!r}")
    if args.memory is not None and args.batch_size != "auto":
        raise CLIError("--memory sizes --batch-size auto; give --batch-size auto with it")
    if args.memory not in (None, "auto"):
        try:
            parse_bytes(args.memory, parameter="--memory")
        except ValueError as exc:
            raise CLIError(str(exc)) from exc
    if args.ray is not None:
        check_number(args.workers, "--workers", at_least=1)
        check_number(args.worker_cpus, "--worker-cpus", at_least=0)
        check_number(args.worker_gpus, "--worker-gpus", at_least=0)
    elif (args.workers, args.worker_cpus, args.worker_gpus) != (2, 1.0, 0.0):
        raise CLIError("--workers, --worker-cpus and --worker-gpus go with --ray")
    read_prompts(args.prompts)  # a malformed line is an error before any model loads


_BATCH_ONLY = {  # option: (attribute, default); each is refused without --prompts
    "--num-return-sequences": ("num_return_sequences", 1),
    "--batch-size": ("batch_size", "8"),
    "--ray": ("ray", None),
    "--workers": ("workers", 2),
    "--worker-cpus": ("worker_cpus", 1.0),
    "--worker-gpus": ("worker_gpus", 0.0),
    "--memory": ("memory", None),
    "--batching": ("batching", "auto"),
    "--prefill-rows": ("prefill_rows", JOB_PREFILL_ROWS),
}


def _check_single_options(args: argparse.Namespace) -> None:
    """One PROMPT: the batch options would be ignored, so a given one is an error (before any load)."""
    for option, (attribute, default) in _BATCH_ONLY.items():
        if getattr(args, attribute) != default:
            value = getattr(args, attribute)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                check_number(value, option, at_least=1 if isinstance(value, int) else 0)
            raise CLIError(f"{option} goes with --prompts FILE (many prompts); one PROMPT takes none")


def read_prompt(args: argparse.Namespace) -> str:
    prompt: str = sys.stdin.read() if args.prompt == "-" else args.prompt
    if not prompt.strip() and args.raw:
        raise CLIError("the prompt is empty; with --raw there is nothing to continue")
    return prompt


def encode_prompt(loaded: LoadedModel, prompt: str, *, raw: bool) -> dict[str, torch.Tensor]:
    """Token ids and attention mask (batch of 1) on the model's device (`kvlimit.frontend.encode_prompt`)."""
    ids = encode_prompt_ids(loaded.tokenizer, prompt, chat=not raw)
    if not ids:
        raise CLIError("the prompt encodes to no tokens; give some text")
    device = next(loaded.model.parameters()).device
    input_ids = torch.tensor([ids], dtype=torch.long, device=device)
    return {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}


def _open_output(path: str | None) -> TextIO | None:
    # Opened before the model loads: a typo in the path should not cost a model load.
    if path is None:
        return None
    try:
        return open(path, "w", encoding="utf-8")  # closed by run_generate
    except OSError as exc:
        raise CLIError(f"cannot write --output {path}: {exc.strerror or exc}") from exc


def run_generate(args: argparse.Namespace) -> int:
    """`kvlimit generate`: see the parser's help and the module docstring."""
    decoding = decoding_from_args(args)
    config = limit_config_from_args(args)
    if args.prompts is not None:
        _check_batch_options(args)
        return run_batch(args, decoding, config)
    if args.prompt is None:
        raise CLIError("give a PROMPT, or --prompts FILE for many")
    _check_single_options(args)
    prompt = read_prompt(args)
    output = _open_output(args.output)
    try:
        return _generate(args, decoding, config, prompt, output)
    finally:
        if output is not None:
            output.close()


@dataclass
class _Run:
    """One generation's moving parts, kept so that the summary can be written after Ctrl-C too."""

    loaded: LoadedModel
    model_type: str
    inputs: dict[str, torch.Tensor]
    bytes_per_token: int  # in the model's dtype
    stored_bytes_per_token: int  # as the cache stores them (--kv-dtype)
    cache: BoundedCache
    sink: TextSink
    watch: StepWatch
    progress: Progress
    streaming: bool

    @property
    def prompt_length(self) -> int:
        return int(self.inputs["input_ids"].shape[-1])


def _generate(
    args: argparse.Namespace, decoding: Decoding, config: LimitConfig, prompt: str, output: TextIO | None
) -> int:
    run = _prepare(args, load_with_status(args), config, prompt, output)
    out, seconds = _decode(args, run, decoding, config)
    generated = _finish_text(args, run, out)
    stop_reason = "interrupted" if out is None else _stop_reason(args, run, out)
    report = _report(args, run, decoding, config, generated, stop_reason, seconds)
    if not args.quiet:
        for line in report.summary_lines():
            print(f"{PROG}: {line}", file=sys.stderr)
        sys.stderr.flush()
    if args.json:
        print(json.dumps(report.as_json(), ensure_ascii=False))
        sys.stdout.flush()
    return EXIT_INTERRUPTED if out is None else 0


def _stop_reason(args: argparse.Namespace, run: _Run, out: torch.Tensor) -> str:
    """Why generation ended (`kvlimit.frontend.stop_reason`, the rule every front end shares)."""
    new = out[0, run.prompt_length :].tolist()
    eos = hf.eos_token_ids(run.loaded.model.generation_config.eos_token_id)
    stopped = bool(args.stop) and ends_with_stop_string(out[:1], args.stop, run.loaded.tokenizer)
    return stop_reason(new, eos=eos, max_new_tokens=args.max_new_tokens, stop_string=stopped)


def _prepare(
    args: argparse.Namespace, loaded: LoadedModel, config: LimitConfig, prompt: str, output: TextIO | None
) -> _Run:
    """Encode the prompt, build the cache and the streamer and progress line that watch it."""
    model = loaded.model
    spec = hf.inspect_model(model)
    inputs = encode_prompt(loaded, prompt, raw=args.raw)
    prompt_length = int(inputs["input_ids"].shape[-1])
    bytes_per_token = kv_bytes_per_token(model)  # in the model's dtype: what an unbounded cache takes
    stored_per_token = row_cost(model, config).per_token
    try:
        # Built here rather than inside kvlimit.generate so that the summary can read it after Ctrl-C.
        cache = build_cache(
            model, config, rows=args.num_beams, max_length=prompt_length + args.max_new_tokens
        )
    except ValueError as exc:
        raise CLIError(cli_names(str(exc))) from exc
    streaming = args.num_beams == 1  # transformers refuses a streamer with beam search
    writers: list[TextIO] = []
    if streaming and not args.json:
        writers.append(sys.stdout)
    if output is not None:
        writers.append(output)
    sink = TextSink(loaded.tokenizer, writers, keep_text=args.json)
    text_on_terminal = bool(streaming and not args.json and sys.stdout.isatty())
    progress = Progress(sys.stderr, enabled=not args.quiet and sys.stderr.isatty() and not text_on_terminal)
    watch = StepWatch(prompt_length, cache, progress)
    return _Run(
        loaded,
        spec.model_type,
        inputs,
        bytes_per_token,
        stored_per_token,
        cache,
        sink,
        watch,
        progress,
        streaming,
    )


def _decode(
    args: argparse.Namespace, run: _Run, decoding: Decoding, config: LimitConfig
) -> tuple[torch.Tensor | None, float]:
    """Generate; returns the sequences (None after Ctrl-C) and the seconds it took."""
    if args.seed is not None:
        transformers.set_seed(args.seed)
    run.watch.start = time.perf_counter()
    try:
        out = bounded_generate(
            run.loaded.model,
            input_ids=run.inputs["input_ids"],
            attention_mask=run.inputs["attention_mask"],
            **hf.cache_argument(run.cache),  # the cache carries its LimitConfig
            streamer=run.sink if run.streaming else None,
            stopping_criteria=StoppingCriteriaList([run.watch]),
            pad_token_id=run.loaded.tokenizer.pad_token_id,
            **decoding.kwargs,
            **_stop_tokenizer(args, run),
            compile=True if getattr(args, "compile", False) else None,
        )
    except KeyboardInterrupt:
        out = None
    seconds = time.perf_counter() - run.watch.start
    run.progress.clear()
    return out, seconds


def _stop_tokenizer(args: argparse.Namespace, run: _Run) -> dict[str, Any]:
    """`tokenizer=` for generate when --stop gives stop strings (they are matched on the text)."""
    return {"tokenizer": run.loaded.tokenizer} if args.stop else {}


def _finish_text(args: argparse.Namespace, run: _Run, out: torch.Tensor | None) -> int:
    """Write what the streamer has not written (beam search: all of it); returns the tokens generated."""
    sink = run.sink
    if out is not None:
        generated = int(out.shape[-1]) - run.prompt_length
        if not run.streaming:
            text = run.loaded.tokenizer.decode(
                out[0, run.prompt_length :], skip_special_tokens=True, clean_up_tokenization_spaces=False
            )
            if not args.json:
                sink.writers = [sys.stdout, *sink.writers]
            sink.write(str(text))
    else:
        generated = run.watch.generated
        sink.end()  # whatever the streamer still held back
    sink.finish_line()
    return generated


def _report(
    args: argparse.Namespace,
    run: _Run,
    decoding: Decoding,
    config: LimitConfig,
    generated: int,
    stop_reason: str,
    seconds: float,
) -> RunReport:
    watch, cache = run.watch, run.cache
    return RunReport(
        model=run.loaded.source,
        model_type=run.model_type,
        prompt_tokens=run.prompt_length,
        generated_tokens=generated,
        stop_reason=stop_reason,
        seconds=seconds,
        first_token_seconds=None if watch.first_token_at is None else watch.first_token_at - watch.start,
        load_seconds=run.loaded.load_seconds,
        rows=args.num_beams,
        cache_limit=cache.cache_limit,
        policy=config.policy.describe(),
        decoding=decoding.description,
        cache_bytes=cache.nbytes(),
        cache_tokens_held=held_tokens(cache),
        kv_bytes_per_token=run.bytes_per_token,
        kv_dtype=config.kv_dtype,
        stored_bytes_per_token=run.stored_bytes_per_token,
        cache_stats=dict(cache.stats),
        recall=config.recall,
        recall_bytes=cache.recall_nbytes(),
        recall_tokens=cache.recall.tokens() if cache.recall is not None else 0,
        text=run.sink.text if args.json else None,
    )
