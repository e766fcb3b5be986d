"""Argument checks shared by the library: one integer validator, one error shape.

Contract: `check_int(name, value, at_least=...)` returns the value when it is an int (not a bool) of
at least `at_least`, or None when None is allowed (`none_means` says what None does); otherwise it
raises `ValueError` naming the parameter, what is allowed and what was given:
``limit must be an int >= 1; got 0``.
"""

from __future__ import annotations

from typing import overload


@overload
def check_int(
    name: str, value: object, *, at_least: int, none_means: None = None, allowed: str | None = None
) -> int: ...


@overload
def check_int(
    name: str, value: object, *, at_least: int, none_means: str, allowed: str | None = None
) -> int | None: ...


def check_int(
    name: str, value: object, *, at_least: int, none_means: str | None = None, allowed: str | None = None
) -> int | None:
    """`value` if it is an int >= `at_least` (or None where `none_means` says what None does).

    `allowed` words the rule differently in the message ("a positive int"); the default is
    "an int >= N".
    """
    if value is None and none_means is not None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < at_least:
        rule = allowed or f"an int >= {at_least}"
        if none_means is not None:
            rule += f" or None ({none_means})"
        raise ValueError(f"{name} must be {rule}; got {value!r}")
    return value
