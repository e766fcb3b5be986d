"""The eviction policy interface: which stored tokens a full cache gives up.

Contract: a policy scores every slot of a cache row; the cache keeps the highest scores and evicts
the lowest when it needs room. The base class owns the shared work (invalid slots score -inf,
validation, description), so a subclass writes one method, `score`. Policies are small frozen
dataclasses; their fields are the settings a user can pass (``policy="sinks", n_sink=2``), each
declared once with `setting(...)`: its default, a help line and a metavar, from which `kvlimit
generate`'s keyword arguments (checked by a test) and the command line's options are made.

`protected_tokens` counts tokens a policy never evicts (scored +inf); the cache relies on them being
the first tokens of each row, so they sit in the first slots. `WithSinks` is the one place that
declares `n_sink` and marks a row's first tokens (`SlotView.first_tokens`).

Two kinds of policy, told apart by the `per_layer` flag:

- positional (`per_layer = False`): one decision per step for every layer, from what `SlotView`
  says about each slot (its token's index and id). Kept tokens take in-cache positions 0..n-1.
- per layer (`per_layer = True`): each attention layer keeps its own tokens, scored from a
  statistic of that layer's keys (`token_statistic`, computed once when the key is stored and kept
  beside the slot as `SlotView.statistic`) or from the attention its keys receive
  (`attention_mode(phase)`, an `AttentionMode` the cache's recorder implements; the parameters a
  mode needs, such as SnapKV's observation window, travel in the mode). Nothing in the cache is
  specific to one policy: a new key-statistic or attention policy is one file.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from ..checks import check_int


def default_chunk(cache_limit: int, protected: int = 0) -> int:
    """Tokens per forward when a text is longer than the limit (prefill, streaming perplexity).

    A quarter of the limit, at least 1 and at most the unprotected room and 1024 tokens: a prediction
    in a chunk then sees between 3/4 of the limit and all of it.
    """
    return max(1, min(cache_limit // 4, cache_limit - protected, 1024))


def check_count(name: str, value: object, *, none_means: str | None = None) -> None:
    """Raise ValueError unless the setting `name` is an int >= 0 (or None, when `none_means` says what None does)."""
    if none_means is None:
        check_int(name, value, at_least=0)
    else:
        check_int(name, value, at_least=0, none_means=none_means)


def setting(default: Any, help: str, *, metavar: str = "N", default_text: str | None = None) -> Any:
    """Declare a policy setting: a dataclass field with its default and how to explain it.

    `help` says what the setting does, without its default; `default_text` words the default where
    `repr(default)` would not ("a quarter of the cache"). `kvlimit generate`'s keyword arguments and
    the command line's `--n-sink`-style options are made from these declarations.
    """
    meta = {"help": help, "metavar": metavar, "default_text": default_text}
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True)
class SettingInfo:
    """One declared setting of one policy (see `setting`)."""

    name: str
    policy: str
    default: Any
    help: str
    metavar: str
    default_text: str

    @property
    def kind(self) -> type:
        return str if self.metavar == "P" else int


class AttentionKind(enum.Enum):
    """How the attention a stored key receives is kept (see `kvlimit.cache.attention`)."""

    LAST = "last"  # the newest query's attention replaces every score
    RECENT = "recent"  # the step's queries' attention, each key's averaged over those that saw it
    MEAN = "mean"  # summed over every query ever to see the key, divided by their number
    WINDOW = "window"  # a prompt chunk's last `queries` queries, pooled over `pool` neighbouring keys


@dataclass(frozen=True)
class AttentionMode:
    """What a policy asks the cache to record, with the parameters the kind needs."""

    kind: AttentionKind
    queries: int = 0  # WINDOW: how many of a chunk's last queries observe
    pool: int = 1  # WINDOW: scores averaged over this many neighbouring keys (odd)

    @property
    def tracks_newest(self) -> bool:
        """The newest query's attention is what a decode step evicts by (kept apart; see SlotView)."""
        return self.kind in (AttentionKind.RECENT, AttentionKind.LAST)


LAST = AttentionMode(AttentionKind.LAST)
RECENT = AttentionMode(AttentionKind.RECENT)
MEAN = AttentionMode(AttentionKind.MEAN)


@dataclass(frozen=True)
class SlotView:
    """What a policy may look at, per row and slot.

    Attributes:
        token_index: (batch, slots) long, index of the stored token in its row's sequence
            (0 = the row's first real token), -1 for empty slots.
        valid: (batch, slots) bool, True where a slot holds a token.
        token_ids: (batch, slots) long, the stored token's id, -1 for empty slots.
        statistic: (batch, slots) float32, per-layer policies only: `token_statistic` of the
            stored key (undefined for empty slots); None for positional policies.
        attention: (batch, slots) float32, policies that read attention only: the attention the
            layer's queries gave each stored key, as the policy's `attention_mode` keeps it (the
            last query's, or the mean over every query that could see the key); None otherwise.
        phase: "decode" (one new token per row) or "chunk" (a prompt chunk evicts).
    """

    token_index: torch.Tensor
    valid: torch.Tensor
    token_ids: torch.Tensor | None = None
    statistic: torch.Tensor | None = None
    attention: torch.Tensor | None = None
    phase: str = "decode"

    @property
    def slots(self) -> int:
        """Slots per row (the cache's allocated size)."""
        return int(self.valid.shape[1])

    def first_tokens(self, n: int) -> torch.Tensor:
        """(batch, slots) bool: the slots holding one of their row's first `n` tokens (its sinks)."""
        return (self.token_index >= 0) & (self.token_index < n)


@dataclass(frozen=True)
class EvictionPolicy:
    """Base class. Subclasses set `name` and implement `score`."""

    name: ClassVar[str] = "base"
    #: One line for help texts: what the policy keeps (the CLI lists every registered policy with it).
    summary: ClassVar[str] = ""
    #: Policies that decide per layer from the layer's keys set this; the cache then keeps one set
    #: of tokens per layer and fills `SlotView.statistic` from `token_statistic`. Positional
    #: policies decide once per step for all layers.
    per_layer: ClassVar[bool] = False
    #: Policies that choose by attention say how the cache keeps the attention each key receives
    #: (`SlotView.attention`); None: no attention is recorded. `attention_mode(phase)` may differ
    #: by phase.
    attention: ClassVar[AttentionMode | None] = None

    def score(self, slots: SlotView) -> torch.Tensor:
        """(batch, slots) float keep-scores for the valid slots: higher is kept longer."""
        raise NotImplementedError

    def token_statistic(self, keys: torch.Tensor) -> torch.Tensor:
        """Per-layer policies: one float per new token from its key, stored beside its slot.

        keys: (batch, kv_heads, q, head_dim), as the layer stores them (RoPE already applied).
        Returns (batch, q). Computed once per token and layer, so it must not depend on the key's
        position if positions move later (RoPE rotations keep norms, for example).
        """
        raise NotImplementedError(f"{self.describe()} is per-layer but defines no token_statistic")

    def attention_mode(self, phase: str) -> AttentionMode | None:
        """How attention is recorded in a "decode" or "chunk" step (default: `attention` in both)."""
        return self.attention

    @property
    def reads_attention(self) -> bool:
        """The cache must record attention scores for this policy (in some phase)."""
        return self.attention_mode("decode") is not None or self.attention_mode("chunk") is not None

    @property
    def keeps_key_statistic(self) -> bool:
        """A per-layer policy that defines `token_statistic` (the cache keeps it beside each slot)."""
        return self.per_layer and type(self).token_statistic is not EvictionPolicy.token_statistic

    @property
    def protected_tokens(self) -> int:
        """How many of each row's first tokens are never evicted."""
        return 0

    def max_chunk(self, cache_limit: int) -> int:
        """The most new tokens one forward may bring to a full cache of `cache_limit` tokens.

        A chunk of q tokens first evicts down to `cache_limit - q`; protected tokens cannot go, so q
        is at most the limit minus them.
        """
        return cache_limit - self.protected_tokens

    def default_chunk(self, cache_limit: int) -> int:
        """Tokens per forward when a prompt is longer than the limit (`default_chunk` of the module)."""
        return default_chunk(cache_limit, self.protected_tokens)

    def keep_scores(self, slots: SlotView) -> torch.Tensor:
        """`score` with empty slots at -inf, so they are reused first."""
        scores = self.score(slots).float()
        return scores.masked_fill(~slots.valid, float("-inf"))

    def check_limit(self, cache_limit: int) -> None:
        """Raise ValueError if this policy cannot work with `cache_limit` tokens."""
        if self.protected_tokens >= cache_limit:
            raise ValueError(
                f"{self.describe()} protects {self.protected_tokens} tokens, which leaves no room in "
                f"cache_limit={cache_limit}; the protected count must be smaller than cache_limit"
            )

    @classmethod
    def settings(cls) -> tuple[str, ...]:
        """Names of the settings this policy accepts."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def setting_info(cls) -> list[SettingInfo]:
        """The declared settings of this policy (see `setting`)."""
        out = []
        for f in dataclasses.fields(cls):
            meta = f.metadata
            text = meta.get("default_text") or repr(f.default)
            out.append(
                SettingInfo(f.name, cls.name, f.default, meta.get("help", ""), meta.get("metavar", "N"), text)
            )
        return out

    def describe(self) -> str:
        values = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        return f"{self.name}({values})" if values else self.name


@dataclass(frozen=True)
class WithSinks(EvictionPolicy):
    """A policy that never evicts a row's first `n_sink` tokens (StreamingLLM's attention sinks)."""

    n_sink: int = setting(4, "the first tokens of each row, never evicted (attention sinks)")

    def __post_init__(self) -> None:
        check_count("n_sink", self.n_sink)

    @property
    def protected_tokens(self) -> int:
        return self.n_sink

    def protect_sinks(self, slots: SlotView, scores: torch.Tensor) -> torch.Tensor:
        """`scores` with each row's first `n_sink` tokens at +inf (never evicted)."""
        return scores.masked_fill(slots.first_tokens(self.n_sink), float("inf"))


#: Scores of tokens kept by rule (a recent window) sit above every criterion score (attention
#: scores are at most 1; key norms are far smaller than this).
RECENT_BONUS = 1.0e6


@dataclass(frozen=True)
class SinksAndRecent(WithSinks):
    """A per-layer policy that never evicts a row's first `n_sink` tokens, keeps its `n_recent` newest
    by recency, and chooses among the rest by its own criterion: a subclass's `score` computes the
    criterion (higher is kept longer) and returns `self.guarded(slots, criterion)`.

    `n_recent=None` keeps `slots // recent_share` newest tokens (`recent_default` says so in errors).
    """

    #: The criterion's name in errors ("heavy hitters", "the norm criterion").
    criterion: ClassVar[str] = "the criterion"
    recent_share: ClassVar[int] = 4
    recent_default: ClassVar[str] = "a quarter of the cache"
    n_recent: int | None = setting(
        None,
        "the newest tokens kept by recency, whatever the criterion says",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        check_count("n_recent", self.n_recent, none_means=self.recent_default)

    @classmethod
    def setting_info(cls) -> list[SettingInfo]:
        return [
            dataclasses.replace(info, default_text=cls.recent_default) if info.name == "n_recent" else info
            for info in super().setting_info()
        ]

    def check_limit(self, cache_limit: int) -> None:
        super().check_limit(cache_limit)
        if self.n_recent is not None and self.n_sink + self.n_recent >= cache_limit:
            raise ValueError(
                f"{self.describe()} keeps n_sink + n_recent = {self.n_sink + self.n_recent} tokens by rule: "
                f"n_sink={self.n_sink} + n_recent={self.n_recent} leaves no room for {self.criterion} in "
                f"cache_limit={cache_limit}; n_sink + n_recent must be smaller than cache_limit"
            )

    def recent_window(self, slots: int) -> int:
        """How many of the newest tokens are kept by recency in a cache of `slots` slots."""
        return slots // self.recent_share if self.n_recent is None else self.n_recent

    def guarded(self, slots: SlotView, criterion: torch.Tensor) -> torch.Tensor:
        """`criterion` (batch, slots), with the recent window above it (the oldest of it lowest, should
        a chunk need its room) and the sinks never evicted."""
        index = slots.token_index
        newest = index.max(dim=1, keepdim=True).values
        recent = index > newest - self.recent_window(slots.slots)
        return self.protect_sinks(slots, torch.where(recent, RECENT_BONUS + index.float(), criterion))
