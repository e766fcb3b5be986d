"""Spend the memory: how many sequences fit a memory budget, with a bounded cache and without one.

Contract: `plan(model, memory=..., new_tokens=..., num_beams=...)` returns a `MemoryPlan`: for each
cache limit, how many sequences (each of `num_beams` rows) fit in `memory`, and how many the stock
unbounded cache fits for the same length, with the peak memory each batch is predicted to reach.
`memory` is what generation may use on top of what the process holds now (the model included): a
size such as "8GiB", or "auto" for what the device has free (CUDA: free device memory; CPU: the
memory the system has available). Measured, not guessed:

- the cache bytes of one token of one row, by a one-token forward (`kv_bytes_per_token`), so every
  layout kvlimit has is counted as allocated (a bounded cache holds `limit x that` per row, exactly;
  the stock cache `(prompt + new tokens) x that` at the end of the run);
- what generation at each cache limit adds to the process, by running it: `kvlimit.generate` on
  random prompts of `prompt_tokens` tokens (with `num_beams` beams), its cache sized as the run's
  (the limit, or the whole run when that is shorter), through the prefill and a few decode steps (`probe_growth`). Each probe's peak over its start
  (CUDA's allocator peak on a GPU; on a CPU the process's peak RSS, the kernel's VmHWM, from a heap
  whose free pages were first handed back) holds the cache, a forward's transients, the decoding's
  per-row state and, on a CPU, what the allocator keeps around them. A line `fixed + rows x per_row`
  is fitted to probes of 1 and 2 sequences, then refitted to the batch that line says fits and its
  half (up to `PROBE_ROWS` sequences), so the fit is taken where the plan lands. Its per-row bytes
  are never below the cache's own, and a quantized cache's add the dequantized layer's bytes of the
  tokens the run holds beyond the probe's (that layer grows with the tokens held);
- the stock cache's row: its cache at the end of the run plus a prefill forward's transient, by two
  probe forwards of the whole prompt (the stock cache prefills it at once) at 1 and 2 rows
  (`probe_transient`);
- the model's own bytes (parameters and buffers) and what the process holds after the probes, for
  the report and as the base of every prediction;
- with `kv_dtype` (a quantized bounded cache): the stored bytes per token (codes and scales,
  `kv_bytes_per_token(model, kv_dtype)`), the policy's sinks kept in the model's dtype per row, and
  the one layer at a time a forward dequantizes (the probes hold them, that layer for the probe's
  tokens; the tokens the run holds beyond those are added);
- with `recall` (a config's recall tier): the recall store of each row, computed (not probed) from
  its block (`build.recall_block`): every token evicted from the `limit - recall` kept slots by the
  end of the run, up to `recall_store`, in whole blocks. On the CPU it counts against the budget; on
  a GPU it lives in host memory and is reported apart.

A batch of `b` sequences is predicted to peak at `now + fixed + b x rows_per_sequence x per_row`
(plus the recall store); the largest `b` whose growth fits `memory` is the plan.
`kvlimit plan` prints it as a table.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import psutil
import torch

from .cache.quant import DEFAULT_KV_GROUP
from .checks import check_int
from .config import LimitConfig, parse_bytes
from .integrations import hf
from .memory import read_peak_rss, release_free_memory, reset_peak_rss
from .policies import make_policy
from .sizing import kv_bytes_per_token, largest_layer_bytes_per_token, row_cost

logger = logging.getLogger(__name__)

DEFAULT_LIMITS = (256, 1024, 4096)
#: decode steps each generation probe runs after its prefill
PROBE_STEPS = 4
#: the largest batch (in sequences) a generation probe runs; bigger batches are extrapolated
PROBE_ROWS = 16


@dataclass(frozen=True)
class GrowthModel:
    """What generating at one cache limit adds to the process, measured (module docstring):
    `fixed_bytes + rows x per_row_bytes`, the recall store apart, fitted to generation probes of
    `probed_sequences` sequences (their peak growths in `probed_bytes`, in the same order)."""

    cache_limit: int
    fixed_bytes: int
    per_row_bytes: int
    cache_row_bytes: int  # the part of per_row_bytes that is the cache itself (at the end of the run)
    probed_sequences: tuple[int, ...] = ()
    probed_bytes: tuple[int, ...] = ()


@dataclass(frozen=True)
class PlanRow:
    """One way to generate: a cache limit (None: the stock unbounded cache) and what fits.

    Attributes:
        cache_limit: tokens per row, or None for the unbounded cache.
        cache_bytes_per_sequence: the cache of one sequence (all its beams) at the end of the run.
        sequences: how many sequences fit the budget (0: not even one).
        predicted_peak_bytes: the process's predicted peak with that many sequences (None at 0).
    """

    cache_limit: int | None
    cache_bytes_per_sequence: int
    sequences: int
    predicted_peak_bytes: int | None
    recall_bytes_per_sequence: int = 0  # its recall store at the end of the run (apart from the cache)


@dataclass(frozen=True)
class MemoryPlan:
    """What `plan` measured and concluded (see the module docstring); sizes in bytes."""

    memory: int
    new_tokens: int
    prompt_tokens: int
    num_beams: int
    device: str
    model_bytes: int
    process_bytes: int
    kv_bytes_per_token: int
    transient_fixed_bytes: int
    transient_per_row_bytes: int
    kv_dtype: str | None = None
    stored_bytes_per_token: int = 0  # a quantized bounded cache's (0: as kv_bytes_per_token)
    sink_bytes_per_row: int = 0  # a quantized bounded cache's sinks, kept in the model's dtype
    dequantized_bytes_per_token: int = 0  # the largest layer's keys and values of one token, dequantized
    recall: int = 0  # recalled slots of each limit (0: no recall tier)
    recall_block_tokens: int = 0
    recall_block_bytes: int = 0  # one row's block over every bounded layer, key bounds included
    recall_store_tokens: int | None = None  # the store's bound per row in tokens (None: none)
    recall_store_total_bytes: int | None = None  # the store's bound for the whole batch in bytes
    growth: list[GrowthModel] = field(default_factory=list)  # one per bounded cache limit
    rows: list[PlanRow] = field(default_factory=list)
    stock: PlanRow | None = None

    def growth_model(self, cache_limit: int | None) -> tuple[int, int]:
        """(fixed, per row) bytes a generation at `cache_limit` adds: the probed line where there is
        one, else (the stock cache) the cache at the end of the run plus a forward's transient."""
        for model in self.growth:
            if model.cache_limit == cache_limit:
                return model.fixed_bytes, model.per_row_bytes
        per_row = self.cache_bytes_per_row(cache_limit) + self.transient_bytes_per_row(cache_limit)
        return self.transient_fixed_bytes, per_row

    def recall_bytes_per_row(self, cache_limit: int | None) -> int:
        """One row's recall store at the end of the run: every token evicted from its kept slots
        (`cache_limit - recall`), up to `recall_store` tokens, in whole blocks (0 without recall).
        The cache is fed the prompt and every new token but the last."""
        if not self.recall or cache_limit is None:
            return 0
        fed = self.prompt_tokens + self.new_tokens - 1
        evicted = max(0, fed - (cache_limit - self.recall))
        if self.recall_store_tokens is not None:
            evicted = min(evicted, self.recall_store_tokens)
        blocks = -(-evicted // self.recall_block_tokens)
        return blocks * self.recall_block_bytes

    def _store_counted(self) -> bool:
        """The recall store shares the budget's memory (CPU); on a GPU it lives in host memory."""
        return not self.device.startswith("cuda")

    def cache_bytes_per_row(self, cache_limit: int | None) -> int:
        """One row's cache bytes at the end of the run (the unbounded cache: prompt + new tokens)."""
        total = self.prompt_tokens + self.new_tokens
        if cache_limit is None:
            return total * self.kv_bytes_per_token
        tokens = min(cache_limit, total)
        if self.kv_dtype is None:
            return tokens * self.kv_bytes_per_token
        return tokens * self.stored_bytes_per_token + self.sink_bytes_per_row

    def transient_bytes_per_row(self, cache_limit: int | None) -> int:
        """A forward's transient per row: measured, plus one dequantized layer in a quantized cache."""
        if cache_limit is None or self.kv_dtype is None:
            return self.transient_per_row_bytes
        tokens = min(cache_limit, self.prompt_tokens + self.new_tokens)
        return self.transient_per_row_bytes + tokens * self.dequantized_bytes_per_token

    def predicted_peak(self, sequences: int, cache_limit: int | None) -> int:
        """The process's predicted peak when generating `sequences` sequences with `cache_limit`."""
        rows = sequences * self.num_beams
        fixed, per_row = self.growth_model(cache_limit)
        return self.process_bytes + fixed + rows * per_row + self._store_bytes(rows, cache_limit)

    def _store_bytes(self, rows: int, cache_limit: int | None) -> int:
        """The recall store of `rows` rows, as far as it shares the budget's memory."""
        if not self._store_counted():
            return 0
        total = rows * self.recall_bytes_per_row(cache_limit)
        return total if self.recall_store_total_bytes is None else min(total, self.recall_store_total_bytes)

    def fits(self, cache_limit: int | None) -> int:
        """The most sequences whose predicted growth fits `memory` (0 when one does not)."""
        fixed, per_row = self.growth_model(cache_limit)
        room = self.memory - fixed
        store_bound = self.recall_store_total_bytes
        if self._store_counted() and store_bound is None:
            per_row += self.recall_bytes_per_row(cache_limit)
        elif self._store_counted() and store_bound is not None and self.recall_bytes_per_row(cache_limit):
            room -= store_bound  # a store bounded in bytes takes at most its bound
        per_sequence = self.num_beams * per_row
        return max(0, room // per_sequence) if per_sequence > 0 else 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def plan(
    model: Any,
    *,
    memory: int | str,
    new_tokens: int,
    num_beams: int = 1,
    prompt_tokens: int = 64,
    limits: Sequence[int] = DEFAULT_LIMITS,
    policy: str | Any = "sinks",
    kv_dtype: str | None = None,
    kv_group: int = DEFAULT_KV_GROUP,
    config: LimitConfig | None = None,
) -> MemoryPlan:
    """How many sequences fit `memory` at each of `limits` and with the stock cache (module docstring).

    `kv_dtype` ("int8", "int4", "fp8", "k8v4"): the bounded rows store keys and values quantized in blocks of
    `kv_group` dims; the stock row stays in the model's dtype. `config`: a `LimitConfig` whose policy
    and storage are planned instead of `policy`, `kv_dtype` and `kv_group` (its own limit is not used:
    `limits` are).
    """
    _check(new_tokens, num_beams, prompt_tokens, limits)
    hf.inspect_model(model)
    device = next(model.parameters()).device
    budget = free_memory(device) if memory == "auto" else _budget(memory)
    per_token = kv_bytes_per_token(model)
    if config is None:
        policy_obj = make_policy(policy) if isinstance(policy, str) else policy
        config = LimitConfig.create(min(limits), policy_obj, kv_dtype=kv_dtype, kv_group=kv_group)
    kv_dtype = config.kv_dtype
    cost = row_cost(model, config)
    stored, sinks = cost.per_token, cost.per_row
    fixed, per_row = probe_transient(model, prompt_tokens)  # the stock row: its prompt in one forward
    partial = MemoryPlan(
        memory=budget,
        new_tokens=new_tokens,
        prompt_tokens=prompt_tokens,
        num_beams=num_beams,
        device=str(device),
        model_bytes=model_bytes(model),
        process_bytes=0,  # read after the probes, below
        kv_bytes_per_token=per_token,
        transient_fixed_bytes=fixed,
        transient_per_row_bytes=per_row,
        kv_dtype=kv_dtype,
        stored_bytes_per_token=stored,
        sink_bytes_per_row=sinks,
        dequantized_bytes_per_token=largest_layer_bytes_per_token(model) if kv_dtype else 0,
        **_recall_facts(model, config, min(limits)),
    )
    growth = _monotone(
        [probe_growth(model, config.with_tokens(limit), partial) for limit in sorted(set(limits))]
    )
    release_free_memory()
    partial = replace(partial, growth=growth, process_bytes=process_bytes(device))
    plan_ = replace(partial, rows=[_row(partial, limit) for limit in limits], stock=_row(partial, None))
    logger.info("plan: %s", plan_)
    return plan_


def _recall_facts(model: Any, config: LimitConfig, limit: int) -> dict[str, Any]:
    """MemoryPlan's recall fields for `config` (its block measured at `limit`)."""
    if not config.recall:
        return {}
    from .build import recall_block

    block, block_bytes = recall_block(model, config, limit)
    return {
        "recall": config.recall,
        "recall_block_tokens": block,
        "recall_block_bytes": block_bytes,
        "recall_store_tokens": config.recall_store_tokens,
        "recall_store_total_bytes": config.recall_store_bytes,
    }


def _row(plan_: MemoryPlan, cache_limit: int | None) -> PlanRow:
    sequences = int(plan_.fits(cache_limit))
    return PlanRow(
        cache_limit=cache_limit,
        cache_bytes_per_sequence=plan_.num_beams * plan_.cache_bytes_per_row(cache_limit),
        sequences=sequences,
        predicted_peak_bytes=plan_.predicted_peak(sequences, cache_limit) if sequences else None,
        recall_bytes_per_sequence=plan_.num_beams * plan_.recall_bytes_per_row(cache_limit),
    )


def model_bytes(model: Any) -> int:
    """Bytes of the model's parameters and buffers."""
    tensors = [*model.parameters(), *model.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors)


def process_bytes(device: torch.device) -> int:
    """What the process holds now: CUDA's allocated bytes on `device`, else the process's RSS."""
    if device.type == "cuda":
        return int(torch.cuda.memory_allocated(device))
    return int(psutil.Process(os.getpid()).memory_info().rss)


def free_memory(device: torch.device) -> int:
    """What the device has free: CUDA's free device memory, else the memory the system has available."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free)
    return int(psutil.virtual_memory().available)


def probe_transient(model: Any, tokens: int) -> tuple[int, int]:
    """(fixed, per row) bytes a prefill forward of `tokens` tokens needs beyond what it keeps.

    Two forwards, of 1 and 2 rows, through a stock cache (whose own bytes are subtracted); the peak
    over the baseline is CUDA's allocator peak on a GPU, the process's peak RSS on a CPU.
    """
    device = next(model.parameters()).device
    vocab = int(hf.text_config(model).vocab_size)
    extra = hf.last_logits_only(model)
    peaks = []
    for rows in (1, 2):
        ids = torch.randint(3, vocab, (rows, tokens), generator=torch.Generator().manual_seed(rows)).to(
            device
        )
        cache = hf.DynamicCache(config=hf.text_config(model))
        with torch.no_grad():
            base = _peak_start(device)
            model(input_ids=ids, **hf.cache_argument(cache), use_cache=True, **extra)
            peak = _peak_end(device, base)
        peaks.append(max(0, peak - hf.kv_bytes(cache)))
        del cache
    per_row = max(0, peaks[1] - peaks[0])
    return max(0, peaks[0] - per_row), per_row


def probe_growth(model: Any, config: LimitConfig, plan_: MemoryPlan) -> GrowthModel:
    """The line `fixed + rows x per_row` through the peak growths of real generations at `config`'s
    limit: of 1 and 2 sequences, then, when that line fits more than 3 in `plan_.memory`, of the
    batch it fits (at most `PROBE_ROWS`) and its half. Per-row bytes are at least the cache's own."""
    limit = int(config.cache_limit_tokens or 0)

    def peak(sequences: int) -> int:
        return generation_peak(
            model, config, plan_.prompt_tokens, plan_.new_tokens, sequences, plan_.num_beams
        )

    peaks = {n: peak(n) for n in (1, 2)}
    line = _fit(plan_, limit, peaks, 1, 2)
    fits = min(PROBE_ROWS, replace(plan_, growth=[line]).fits(limit))
    if fits > 3:
        peaks.update({n: peak(n) for n in (fits // 2, fits)})
        line = _fit(plan_, limit, peaks, fits // 2, fits)
    probed = sorted(peaks)
    return replace(line, probed_sequences=tuple(probed), probed_bytes=tuple(peaks[n] for n in probed))


def _monotone(lines: list[GrowthModel]) -> list[GrowthModel]:
    """Lines in increasing limits, each one's fixed bytes and per-row bytes beyond its cache at least
    the previous one's: a longer cache needs no less of anything else (the probes' noise aside)."""
    out: list[GrowthModel] = []
    for line in lines:
        if out:
            before = out[-1]
            beside_cache = line.per_row_bytes - line.cache_row_bytes
            floor = before.per_row_bytes - before.cache_row_bytes
            line = replace(line, fixed_bytes=max(line.fixed_bytes, before.fixed_bytes),
                           per_row_bytes=line.cache_row_bytes + max(beside_cache, floor))  # fmt: skip
        out.append(line)
    return out


def _fit(plan_: MemoryPlan, limit: int, peaks: dict[int, int], low: int, high: int) -> GrowthModel:
    rows = plan_.num_beams
    cache = plan_.cache_bytes_per_row(limit)
    per_row = max(cache, (peaks[high] - peaks[low]) // ((high - low) * rows))
    fixed = max(0, peaks[high] - high * rows * per_row)
    return GrowthModel(limit, fixed, per_row + _unprobed_dequantized(plan_, limit), cache)


def _unprobed_dequantized(plan_: MemoryPlan, limit: int) -> int:
    """A quantized cache's one dequantized layer grows with the tokens held, which a probe's few decode
    steps leave short of the run's: the bytes per row of the tokens the run holds and the probe did not."""
    if plan_.kv_dtype is None:
        return 0
    run = min(limit, plan_.prompt_tokens + plan_.new_tokens)
    probe = min(limit, plan_.prompt_tokens + PROBE_STEPS)
    return max(0, run - probe) * plan_.dequantized_bytes_per_token


def generation_peak(
    model: Any, config: LimitConfig, prompt_tokens: int, new_tokens: int, sequences: int, num_beams: int
) -> int:
    """Bytes the process grows by, at its peak, while `kvlimit.generate` runs `sequences` random prompts
    of `prompt_tokens` tokens greedily (`num_beams` beams each) with `config` and `max_new_tokens`
    `new_tokens` (so its cache is sized as the run's: the limit, or the whole run when that is
    shorter), through the prefill and `PROBE_STEPS` decode steps."""
    from .generation import generate

    device = next(model.parameters()).device
    vocab = int(hf.text_config(model).vocab_size)
    generator = torch.Generator().manual_seed(sequences)
    ids = torch.randint(3, vocab, (sequences, prompt_tokens), generator=generator).to(device)
    release_free_memory()
    with torch.no_grad():
        base = _peak_start(device)
        generate(
            model, input_ids=ids, attention_mask=torch.ones_like(ids), cache_limit=config,
            max_new_tokens=max(PROBE_STEPS, new_tokens), min_new_tokens=PROBE_STEPS, num_beams=num_beams,
            do_sample=False, pad_token_id=0, stopping_criteria=hf.stop_at_length(prompt_tokens + PROBE_STEPS),
        )  # fmt: skip
        return max(0, _peak_end(device, base))


def _peak_start(device: torch.device) -> int:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        return int(torch.cuda.memory_allocated(device))
    reset_peak_rss()
    return int(psutil.Process(os.getpid()).memory_info().rss)


def _peak_end(device: torch.device, base: int) -> int:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        return int(torch.cuda.max_memory_allocated(device)) - base
    peak = read_peak_rss()
    return (peak if peak is not None else int(psutil.Process(os.getpid()).memory_info().rss)) - base


def _budget(memory: int | str) -> int:
    if isinstance(memory, bool) or not isinstance(memory, int | str):
        raise ValueError(f"memory must be a size such as '8GiB', a number of bytes or 'auto'; got {memory!r}")
    if isinstance(memory, int):
        if memory <= 0:
            raise ValueError(f"memory must be a positive number of bytes; got {memory}")
        return memory
    return parse_bytes(memory, parameter="memory")


def _check(new_tokens: int, num_beams: int, prompt_tokens: int, limits: Sequence[int]) -> None:
    for name, value in (
        ("new_tokens", new_tokens),
        ("num_beams", num_beams),
        ("prompt_tokens", prompt_tokens),
    ):
        check_int(name, value, at_least=1)
    if not limits or any(isinstance(v, bool) or not isinstance(v, int) or v < 2 for v in limits):
        raise ValueError(f"limits must be cache limits in tokens (ints >= 2); got {list(limits)}")
