"""The process's peak resident memory, from the kernel (Linux): reset it, read it.

`reset_peak_rss()` sets the kernel's high-water mark of this process's RSS (`VmHWM`) back to its
current RSS (writing 5 to /proc/self/clear_refs, Linux >= 4.0) and says whether that worked;
`read_peak_rss()` reads it in bytes (None where it cannot be read); `release_free_memory()` hands the
heap's free pages back first, so a probe starts from what the process holds. The planner and the
benchmark measure peaks with them.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter of this process (Linux >= 4.0); False where impossible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        return read_peak_rss() is not None
    except OSError:
        return False


def read_peak_rss() -> int | None:
    """The kernel's peak RSS of this process in bytes (`VmHWM`), None where it cannot be read."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


def release_free_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's `malloc_trim`; nothing elsewhere), so
    that the RSS read next is what the process holds, not what earlier work left free for reuse."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    """glibc's `malloc_trim`, looked up once (None where the C library is not glibc)."""
    try:
        return getattr(ctypes.CDLL("libc.so.6"), "malloc_trim", None)
    except OSError:
        return None
