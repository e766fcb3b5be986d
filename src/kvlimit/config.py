"""What a caller asks for: the cache limit, the eviction policy, how positions are handled and how
the cache is stored. `LimitConfig` is the one currency every consumer takes: `kvlimit.generate`,
`build_cache`, the command line's commands and the Ray workers.

Contract: `LimitConfig.create(...)` validates every argument and raises `ValueError` naming the
parameter and what is allowed; a `LimitConfig` that exists is valid. `LimitConfig.from_arguments`
does the same for generate's keyword arguments (None when there is no `cache_limit`). A byte budget
(`cache_limit="256MiB"`) stays a byte budget here; `kvlimit.sizing.token_limit` turns it into a
token limit once the model and batch are known.

Each setting is declared once: the cache's own options in `CACHE_OPTIONS` (here), a policy's in its
dataclass (`kvlimit.policies.base.setting`). `argument_names()` is every keyword argument that
configures a bounded cache; generate's signature, `enable`'s and the command line's options are
checked against it (tests/test_arguments.py).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass
from typing import Any

from .cache.quant import DEFAULT_KV_GROUP, KV_DTYPES, check_kv_group
from .checks import check_int
from .policies import RENAMED_SETTINGS, EvictionPolicy, declared_settings, make_policy

#: Where recalled tokens are attended (`recall_positions`): "distance" and "full" place each recalled token
#: at its own distance from the query ("full" the sinks too: every attended token where the full cache has
#: it), "packed" side by side before the recent window. Each value maps to the recall store's placement
#: (one of `kvlimit.cache.recall.RECALL_PLACES`) and whether the position keeper puts the sinks at their
#: own distance (`sinks_at_index`); `build_cache` reads both from here.
RECALL_POSITIONS: dict[str, tuple[str, bool]] = {
    "distance": ("distance", False),
    "full": ("distance", True),
    "packed": ("packed", False),
}

#: Ways the kept tokens of a learned-absolute-position model (GPT-2, OPT, GPT-BigCode) get positions.
ABSOLUTE_POSITION_MODES = ("reencode", "clamp")
#: Values of the `positions=` argument.
POSITION_MODES = ("auto", *ABSOLUTE_POSITION_MODES)

_BYTE_UNITS = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_BYTES_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$")


def parse_bytes(text: str, *, parameter: str = "cache_limit") -> int:
    """Parse a memory size such as ``"256MiB"``, ``"1.5GB"`` or ``"4096B"`` into bytes."""
    match = _BYTES_RE.match(text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _BYTE_UNITS:
        raise ValueError(
            f"{parameter}={text!r} is not a token count or a memory size; use a positive integer of "
            f"tokens (e.g. 1024) or a size with one of the units {', '.join(_unit_names())} (e.g. '256MiB')"
        )
    size = int(float(match.group(1)) * _BYTE_UNITS[unit])
    if size <= 0:
        raise ValueError(f"{parameter}={text!r} must be a positive memory size")
    return size


def _unit_names() -> list[str]:
    return ["B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"]


@dataclass(frozen=True)
class Option:
    """One of the cache's own settings: its keyword, what it does, how the command line shows it."""

    name: str
    help: str
    metavar: str
    default_text: str


#: With recall, a chunked prompt's last this many tokens are fed one per forward, so that each chooses
#: its recalled blocks by its own query (`kvlimit.forward.prefill_spans`); the chunks before choose by
#: the mean of their queries. Chosen on the retrieval suite's tune part (README, "A prompt's last
#: queries"): a question at a prompt's end chooses what it asks for, where a chunk's mean dilutes it.
RECALL_QUERIES = 16

#: The cache's own settings (a policy's settings are declared in its dataclass).
CACHE_OPTIONS = (
    Option(
        "cache_limit",
        "the most tokens the cache holds per sequence, or a memory budget for the whole cache such as "
        "64MiB or 1.5GB (all layers, rows and beams)",
        "N|SIZE",
        "none: the stock unbounded cache",
    ),
    Option("policy", "what to evict once the cache is full", "NAME", "sinks"),
    Option(
        "positions",
        "learned absolute positions (gpt2, opt, gpt_bigcode): reencode the kept window when positions "
        "would leave the table, or clamp them at its last row",
        "MODE",
        "reencode",
    ),
    Option(
        "prefill_chunk",
        "tokens per forward when the prompt is longer than the limit",
        "N",
        "a quarter of the limit, at most the limit minus the protected tokens",
    ),
    Option(
        "kv_dtype",
        "store the cache quantized: int8, int4 or fp8 (the sinks stay in float)",
        "D",
        "the model's dtype",
    ),
    Option(
        "kv_group",
        "with kv_dtype: dims per quantization block, one scale each (even)",
        "N",
        str(DEFAULT_KV_GROUP),
    ),
    Option(
        "recall",
        "slots of the limit given to recalled tokens: what the policy evicts is kept in blocks and the blocks "
        "the current queries need come back (sinks and window, RoPE models)",
        "R",
        "0: off",
    ),
    Option(
        "recall_store",
        "with recall: the most evicted tokens each sequence keeps, or a memory size for the whole store such as "
        "256MiB (the oldest blocks go first)",
        "N|SIZE",
        "no bound",
    ),
    Option(
        "recall_dtype",
        "with recall: store the evicted keys and values as int8 or int4 codes, or bfloat16 or float16",
        "D",
        "the model's dtype",
    ),
    Option(
        "recall_score",
        "with recall: how blocks are chosen, distance (each block's best key for the queries, each key seen "
        "at its distance from the query, as the full cache sees it), keys (the same, every block at one distance) "
        "or bounds (Quest's per-channel key bounds: cheaper, looser)",
        "S",
        "distance",
    ),
    Option(
        "recall_block",
        "with recall: tokens per block of the recall store, the unit recall scores and brings back; a divisor "
        "of recall (smaller blocks hold more of the full cache's attention in the same slots; larger ones keep "
        "more of a phrase together)",
        "N",
        "4, or the largest of 2 and 1 that divides recall",
    ),
    Option(
        "recall_every",
        "with recall: a decode step chooses a row's blocks afresh every N steps (and whenever what it can "
        "recall changes); between, the row attends the blocks it chose last, and the step skips scoring "
        "(faster; a little less of the full cache's attention held)",
        "N",
        "1, every step",
    ),
    Option(
        "recall_queries",
        "with recall: a prompt longer than the limit feeds its last N tokens one per forward, so that each "
        "chooses its recalled blocks by its own query, as a decode step does (a question at a prompt's end "
        "chooses what it asks for; the chunks before choose by the mean of their queries); 0: none, the "
        "prompt's last chunk chooses by its mean",
        "N",
        str(RECALL_QUERIES),
    ),
    Option(
        "recall_positions",
        "with recall: where recalled tokens are attended, distance (each at its own distance from the query, "
        "as the full cache holds it, at most the model's trained context; the sinks just before the recent "
        "window), full (the sinks at their own distance too) or packed (side by side right after the sinks, "
        "before the recent window, each at most a limit away)",
        "P",
        "distance",
    ),
)

#: Dtypes the recall store keeps besides the model's: quantized codes, or 16-bit floats.
RECALL_DTYPES = ("int8", "int4", "bfloat16", "float16")
#: How the recall tier scores its blocks (`kvlimit.cache.recall`).
RECALL_SCORES = ("keys", "bounds", "distance")


def argument_names() -> tuple[str, ...]:
    """Every keyword argument that configures a bounded cache: the cache's options, every policy's
    settings, and the old names of renamed settings."""
    return (*(o.name for o in CACHE_OPTIONS), *declared_settings(), *RENAMED_SETTINGS)


def suggest(name: str, choices: list[str] | tuple[str, ...]) -> str:
    """A ' (did you mean X?)' suffix for an unknown name, or '' when nothing is close."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


@dataclass(frozen=True)
class LimitConfig:
    """A validated request for a bounded cache.

    Attributes:
        cache_limit_tokens: the most tokens the cache may hold per sequence, or None when the
            limit was given in bytes (see `cache_limit_bytes`).
        cache_limit_bytes: a byte budget for the whole cache (all layers, all rows), or None.
        policy: the eviction policy object.
        positions: "auto", or for learned-absolute-position models "reencode" / "clamp".
        prefill_chunk: tokens per forward when a prompt is longer than the limit (None: automatic).
        kv_dtype: quantized storage "int8", "int4", "fp8" or "k8v4" (int8 keys, int4 values:
            `kvlimit.cache.quant`), or None (the model's dtype).
        kv_group: dims per quantization block, one scale each.
        recall: slots of the limit for recalled tokens (0: no recall tier; `kvlimit.cache.recall`).
        recall_store_tokens / recall_store_bytes: the recall store's bound, per sequence in tokens or
            for the whole store in bytes (both None: no bound).
        recall_dtype: "int8" / "int4" codes in the recall store, "bfloat16" / "float16" floats, or None
            (the model's dtype).
        recall_score: "distance", "keys" or "bounds", how the recall tier scores its blocks.
        recall_block: tokens per block of the recall store (None: `kvlimit.cache.recall.block_for`).
        recall_every: decode steps between a row's block choices (`kvlimit.cache.recall`, "Choosing every
            N steps"); 1 chooses every step.
        recall_queries: a prompt fed in chunks feeds its last this many tokens one per forward, each
            choosing its recalled blocks by its own query (`kvlimit.forward.prefill_spans`); 0: none.
        recall_positions: "distance" (each recalled token at its own distance from the query, at most
            the model's trained context; the sinks just before the recent window), "full" (the sinks at
            their own distance too) or "packed" (side by side before the recent window, the sinks just
            before them).
    """

    cache_limit_tokens: int | None
    cache_limit_bytes: int | None
    policy: EvictionPolicy
    positions: str = "auto"
    prefill_chunk: int | None = None
    kv_dtype: str | None = None
    kv_group: int = DEFAULT_KV_GROUP
    recall: int = 0
    recall_store_tokens: int | None = None
    recall_store_bytes: int | None = None
    recall_dtype: str | None = None
    recall_score: str = "distance"
    recall_block: int | None = None
    recall_every: int = 1
    recall_queries: int = RECALL_QUERIES
    recall_positions: str = "distance"

    @classmethod
    def create(
        cls,
        cache_limit: int | str,
        policy: str | EvictionPolicy | None = None,
        *,
        positions: str | None = None,
        prefill_chunk: int | None = None,
        kv_dtype: str | None = None,
        kv_group: int | None = None,
        recall: int | None = None,
        recall_store: int | str | None = None,
        recall_dtype: str | None = None,
        recall_score: str | None = None,
        recall_block: int | None = None,
        recall_every: int | None = None,
        recall_queries: int | None = None,
        recall_positions: str | None = None,
        **policy_settings: Any,
    ) -> LimitConfig:
        """Validate user arguments. `policy_settings` (e.g. ``n_sink=2``) configure a policy named by string."""
        tokens: int | None = None
        budget: int | None = None
        if isinstance(cache_limit, bool) or not isinstance(cache_limit, int | str):
            raise ValueError(
                f"cache_limit must be a positive int (tokens) or a memory size string such as '256MiB'; "
                f"got {cache_limit!r} of type {type(cache_limit).__name__}"
            )
        if isinstance(cache_limit, str):
            if cache_limit.strip().isdigit():
                tokens = int(cache_limit)
            else:
                budget = parse_bytes(cache_limit)
        else:
            tokens = cache_limit
        if tokens is not None and tokens <= 0:
            raise ValueError(f"cache_limit must be a positive number of tokens; got {cache_limit!r}")

        policy_obj = make_policy(policy, **policy_settings)
        recall_slots = _check_recall(
            recall,
            recall_store,
            recall_dtype,
            recall_score,
            recall_block,
            recall_every,
            recall_queries,
            recall_positions,
            policy_obj,
            tokens,
        )
        if tokens is not None:
            policy_obj.check_limit(tokens - recall_slots)

        mode = "auto" if positions is None else positions
        if mode not in POSITION_MODES:
            raise ValueError(
                f"positions={positions!r} is not one of {', '.join(map(repr, POSITION_MODES))}{suggest(str(positions), POSITION_MODES)}"
            )
        if prefill_chunk is not None:
            check_int("prefill_chunk", prefill_chunk, at_least=1, allowed="a positive int or None")
            if tokens is not None:
                room = policy_obj.max_chunk(tokens - recall_slots)
                if prefill_chunk > room:
                    recalled = f" - recall {recall_slots}" if recall_slots else ""
                    raise ValueError(
                        f"prefill_chunk={prefill_chunk} is larger than the room the policy leaves in the cache "
                        f"(cache_limit {tokens}{recalled} - {policy_obj.protected_tokens} protected tokens = "
                        f"{room}); use prefill_chunk <= {room}"
                    )
        if kv_dtype is not None and kv_dtype not in KV_DTYPES:
            raise ValueError(
                f"kv_dtype={kv_dtype!r} is not one of {', '.join(map(repr, KV_DTYPES))} or None (the model's dtype)"
                f"{suggest(str(kv_dtype), tuple(KV_DTYPES))}"
            )
        group = DEFAULT_KV_GROUP if kv_group is None else check_kv_group(kv_group)
        store_tokens, store_bytes = _recall_store(recall_store)
        return cls(tokens, budget, policy_obj, mode, prefill_chunk, kv_dtype, group, recall_slots, store_tokens,
                   store_bytes, recall_dtype, recall_score or "distance", recall_block,
                   1 if recall_every is None else recall_every,
                   RECALL_QUERIES if recall_queries is None else recall_queries,
                   recall_positions or "distance")  # fmt: skip

    @classmethod
    def from_arguments(cls, arguments: dict[str, Any]) -> LimitConfig | None:
        """The config of generate's keyword arguments (`argument_names()`; absent or None: not given).

        None without `cache_limit` (stock generate); then any other cache option is an error.
        """
        given = {name: arguments.get(name) for name in argument_names()}
        cache_limit = given.pop("cache_limit")
        if cache_limit is None:
            named = [name for name, value in given.items() if value is not None]
            if named:
                verb = "needs" if len(named) == 1 else "need"
                raise ValueError(
                    f"{' and '.join(named)} {verb} cache_limit: policy, observation_window, pool, decode_policy, "
                    "n_sink, n_recent, positions, prefill_chunk, kv_dtype and kv_group need cache_limit; "
                    "pass cache_limit=N"
                )
            return None
        if isinstance(cache_limit, LimitConfig):
            named = [name for name, value in given.items() if value is not None]
            if named:
                raise ValueError(
                    f"cache_limit is a LimitConfig, which already holds {', '.join(named)}; pass one of them"
                )
            return cache_limit
        return cls.create(
            cache_limit,
            given.pop("policy"),
            positions=given.pop("positions"),
            prefill_chunk=given.pop("prefill_chunk"),
            kv_dtype=given.pop("kv_dtype"),
            kv_group=given.pop("kv_group"),
            recall=given.pop("recall"),
            recall_store=given.pop("recall_store"),
            recall_dtype=given.pop("recall_dtype"),
            recall_score=given.pop("recall_score"),
            recall_block=given.pop("recall_block"),
            recall_every=given.pop("recall_every"),
            recall_queries=given.pop("recall_queries"),
            recall_positions=given.pop("recall_positions"),
            **given,
        )

    def with_tokens(self, tokens: int) -> LimitConfig:
        """This config with its limit resolved to `tokens` per row (a byte budget, once a model and rows are known)."""
        check_int("limit", tokens, at_least=1)
        if self.recall and tokens <= self.recall + self.policy.protected_tokens:
            raise ValueError(
                f"cache_limit={tokens} tokens leaves no recent tokens beside recall={self.recall} and "
                f"{self.policy.protected_tokens} protected"
            )
        self.policy.check_limit(tokens - self.recall)
        return dataclasses.replace(self, cache_limit_tokens=tokens, cache_limit_bytes=None)

    def tokens_for(self, bytes_per_token_per_row: int, rows: int, bytes_per_row: int = 0) -> int:
        """The token limit per row: the given one, or the largest that fits the byte budget.

        A row costs `bytes_per_row + tokens x bytes_per_token_per_row` (quantized caches keep their
        sinks in float too: `bytes_per_row`).
        """
        if self.cache_limit_tokens is not None:
            return self.cache_limit_tokens
        assert self.cache_limit_bytes is not None
        room = self.cache_limit_bytes // max(1, rows) - bytes_per_row
        tokens = max(0, room) // max(1, bytes_per_token_per_row)
        if tokens <= self.policy.protected_tokens:
            need = ((self.policy.protected_tokens + 1) * bytes_per_token_per_row + bytes_per_row) * rows
            raise ValueError(
                f"cache_limit={self.cache_limit_bytes} bytes holds only {tokens} tokens per sequence for this "
                f"model and batch ({rows} rows x {bytes_per_token_per_row} bytes per token); "
                f"it needs at least {need} bytes"
            )
        self.policy.check_limit(tokens)
        return tokens

    def describe(self) -> str:
        limit = (
            f"{self.cache_limit_tokens} tokens"
            if self.cache_limit_tokens is not None
            else f"{self.cache_limit_bytes} bytes"
        )
        stored = "" if self.kv_dtype is None else f", kv_dtype={self.kv_dtype} (blocks of {self.kv_group})"
        recalled = ""
        if self.recall:
            bound = self.recall_store_tokens or self.recall_store_bytes
            recalled = f", recall={self.recall}" + (f" (store bound {bound})" if bound else "")
            recalled += f", recall_dtype={self.recall_dtype}" if self.recall_dtype else ""
            recalled += f", recall_score={self.recall_score}" if self.recall_score != "distance" else ""
            recalled += f", recall_block={self.recall_block}" if self.recall_block is not None else ""
            recalled += f", recall_every={self.recall_every}" if self.recall_every != 1 else ""
            recalled += (
                f", recall_queries={self.recall_queries}" if self.recall_queries != RECALL_QUERIES else ""
            )
            recalled += (
                f", recall_positions={self.recall_positions}" if self.recall_positions != "distance" else ""
            )
        return f"cache_limit={limit}, policy={self.policy.describe()}, positions={self.positions}{stored}{recalled}"


def recall_slots(value: int | float, limit: int) -> int:
    """Recalled slots of `value` at `limit`: an int as is, a fraction below 1 of the limit (comparison
    runs give recall tiers as fractions: `0.25` is 64 slots at a limit of 256)."""
    if isinstance(value, float) and 0 < value < 1:
        return int(value * limit)
    return int(value)


def _check_recall(
    recall: object,
    store: object,
    dtype: object,
    score: object,
    block: object,
    every: object,
    queries: object,
    places: object,
    policy: EvictionPolicy,
    tokens: int | None,
) -> int:
    """The recalled slots (0 for None), with the recall options checked against each other and the limit."""
    slots = check_int("recall", recall, at_least=0, none_means="no recall tier") or 0
    tokens_per_block = check_int("recall_block", block, at_least=1, none_means="the default block")
    check_int("recall_every", every, at_least=1, none_means="every step")
    check_int("recall_queries", queries, at_least=0, none_means=f"the last {RECALL_QUERIES}")
    if not slots:
        named = [
            f"{name}={value!r}"
            for name, value in (
                ("recall_store", store),
                ("recall_dtype", dtype),
                ("recall_score", score),
                ("recall_block", block),
                ("recall_every", every),
                ("recall_queries", queries),
                ("recall_positions", places),
            )
            if value is not None
        ]
        if named:
            verb = "goes" if len(named) == 1 else "go"
            raise ValueError(f"{' and '.join(named)} {verb} with recall=R (R > 0 recalled slots)")
        return 0
    if policy.per_layer:
        raise ValueError(
            f"recall works with the positional policies sinks and window; {policy.describe()} keeps its tokens "
            "per layer, scattered in time, and the recalled tokens' positions are defined between the sinks "
            "and one recent window"
        )
    if score is not None and score not in RECALL_SCORES:
        raise ValueError(f"recall_score={score!r} is not one of {', '.join(map(repr, RECALL_SCORES))}")
    if places is not None and places not in RECALL_POSITIONS:
        raise ValueError(
            f"recall_positions={places!r} is not one of {', '.join(map(repr, RECALL_POSITIONS))} or None "
            f"(distance){suggest(str(places), list(RECALL_POSITIONS))}"
        )
    if tokens_per_block is not None and slots % tokens_per_block:
        divisors = [d for d in range(1, slots + 1) if slots % d == 0]
        raise ValueError(
            f"recall_block={block} must divide recall={slots}: one of {', '.join(map(str, divisors))}"
        )
    if dtype is not None and dtype not in RECALL_DTYPES:
        raise ValueError(
            f"recall_dtype={dtype!r} is not one of {', '.join(map(repr, RECALL_DTYPES))} or None (the model's dtype)"
        )
    if tokens is not None and slots >= tokens - policy.protected_tokens:
        raise ValueError(
            f"recall={slots} leaves no recent tokens in cache_limit={tokens} beside {policy.protected_tokens} "
            f"protected; recall must be smaller than cache_limit - {policy.protected_tokens}"
        )
    return slots


def _recall_store(store: object) -> tuple[int | None, int | None]:
    """(tokens per sequence, bytes for the whole store) of `recall_store` (None: no bound)."""
    if store is None:
        return None, None
    if isinstance(store, str) and not store.strip().isdigit():
        return None, parse_bytes(store, parameter="recall_store")
    if isinstance(store, str):
        store = int(store)
    return check_int(
        "recall_store", store, at_least=1, allowed="a positive int (tokens) or a memory size"
    ), None
