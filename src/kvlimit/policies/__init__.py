"""Eviction policies, one per module, and the registry that names them.

The registry (`POLICIES`) is the one source of policy names and settings: the library, the command
line (`--policy`, `--n-sink`, ...), `kvlimit ppl`, `kvlimit bench` and their plots ask it, so a new
policy is one module plus one entry here.

`make_policy("sinks", n_sink=2)` builds a policy by name; an `EvictionPolicy` object passes through.
Unknown names and settings raise `ValueError` naming what is allowed (with the closest match).
`settings_for(name, **values)` keeps just the settings a named policy takes, `policies_taking(setting)`
names the policies that take one, `policy_help()` describes them all in one line, and
`declared_settings()` gives every setting's declaration (`base.setting`), from which generate's
keyword arguments and the command line's options are made. A renamed setting's old name
(`RENAMED_SETTINGS`) is still accepted, with a `FutureWarning`.
"""

from __future__ import annotations

import difflib
import warnings
from typing import Any

from .base import (
    LAST,
    MEAN,
    RECENT,
    AttentionKind,
    AttentionMode,
    EvictionPolicy,
    SettingInfo,
    SlotView,
    WithSinks,
    default_chunk,
    setting,
)
from .h2o import HeavyHitters
from .knorm import KeyNorm
from .sinks import Sinks
from .snapkv import SnapKV
from .tova import Tova
from .window import Window

#: Policy name -> class. The default policy is the first one.
POLICIES: dict[str, type[EvictionPolicy]] = {
    "sinks": Sinks,
    "window": Window,
    "knorm": KeyNorm,
    "tova": Tova,
    "h2o": HeavyHitters,
    "snapkv": SnapKV,
}
DEFAULT_POLICY = "sinks"
#: Old setting name -> new one (the old name is still accepted, with a FutureWarning).
RENAMED_SETTINGS = {"window": "observation_window"}


def policy_names() -> list[str]:
    """Every registered policy name, the default first."""
    return list(POLICIES)


def policies_taking(setting: str) -> list[str]:
    """The registered policies that accept `setting` (e.g. "n_sink")."""
    return [name for name, cls in POLICIES.items() if setting in cls.settings()]


def declared_settings() -> dict[str, list[SettingInfo]]:
    """Every policy setting, by name, with each registered policy's declaration of it (registry order)."""
    out: dict[str, list[SettingInfo]] = {}
    for cls in POLICIES.values():
        for info in cls.setting_info():
            out.setdefault(info.name, []).append(info)
    return out


def renamed(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` with old setting names (`RENAMED_SETTINGS`) replaced by the new ones, warning once each."""
    out = dict(settings)
    for old, new in RENAMED_SETTINGS.items():
        if out.get(old) is None:
            out.pop(old, None)
            continue
        if out.get(new) is not None:
            raise ValueError(f"{old} is the old name of {new}; give one of them")
        warnings.warn(f"the setting {old}= is now called {new}=", FutureWarning, stacklevel=3)
        out[new] = out.pop(old)
    return out


def settings_for(name: str, **values: Any) -> dict[str, Any]:
    """Of `values`, the settings the policy `name` takes (None values dropped); {} for an unknown name."""
    cls = POLICIES.get(name.strip().lower())
    allowed = cls.settings() if cls is not None else ()
    return {key: value for key, value in values.items() if key in allowed and value is not None}


def policy_help() -> str:
    """One line per policy joined by '; ': `name = summary`."""
    return "; ".join(f"{name} = {cls.summary}" for name, cls in POLICIES.items())


def make_policy(policy: str | EvictionPolicy | None = None, **settings: Any) -> EvictionPolicy:
    """Build a policy from a name (and settings) or pass an `EvictionPolicy` object through.

    Settings whose value is None are ignored, so callers can forward optional arguments.
    """
    given = {key: value for key, value in renamed(settings).items() if value is not None}
    if isinstance(policy, EvictionPolicy):
        if given:
            raise ValueError(
                f"policy settings {sorted(given)} apply to a policy named by string; "
                f"set them on the {type(policy).__name__} object instead"
            )
        return policy
    name = DEFAULT_POLICY if policy is None else policy
    if not isinstance(name, str):
        raise ValueError(
            f"policy must be a policy name ({', '.join(POLICIES)}) or an EvictionPolicy object; got {policy!r}"
        )
    key = name.strip().lower()
    if key not in POLICIES:
        close = difflib.get_close_matches(key, list(POLICIES), n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(
            f"policy={name!r} is not a known policy{hint}; known policies: {', '.join(POLICIES)}"
        )
    cls = POLICIES[key]
    allowed = cls.settings()
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        allowed_text = ", ".join(allowed) if allowed else "none"
        raise ValueError(f"policy {key!r} does not take the setting(s) {unknown}; it takes: {allowed_text}")
    return cls(**given)


__all__ = [
    "DEFAULT_POLICY",
    "LAST",
    "MEAN",
    "POLICIES",
    "RECENT",
    "RENAMED_SETTINGS",
    "AttentionKind",
    "AttentionMode",
    "EvictionPolicy",
    "HeavyHitters",
    "KeyNorm",
    "SettingInfo",
    "Sinks",
    "SlotView",
    "SnapKV",
    "Tova",
    "Window",
    "WithSinks",
    "declared_settings",
    "default_chunk",
    "make_policy",
    "policies_taking",
    "policy_help",
    "policy_names",
    "renamed",
    "setting",
    "settings_for",
]
