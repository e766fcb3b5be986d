"""The process's peak resident memory, from the kernel (Linux): reset it, read it.

`reset_peak_rss()` sets the kernel's high-water mark of this process's RSS (`VmHWM`) back to its
current RSS (writing 5 to /proc/self/clear_refs, Linux >= 4.0) and says whether that worked;
`read_peak_rss()` reads it in bytes (None where it cannot be read). The planner and the benchmark
measure peaks with them.
"""

from __future__ import annotations


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
