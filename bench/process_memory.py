"""This process's resident memory as the benchmarks measure it (Linux ``/proc``).

``status("VmRSS")`` is the resident set now, ``status("VmHWM")`` its high-water mark, both in
bytes; :func:`reset_peak` sets the high-water mark back to the current resident set (writing 5
to ``/proc/self/clear_refs``), so that a stage's peak is read after it alone.
"""

from __future__ import annotations

__all__ = ["status", "reset_peak"]


def status(field: str) -> int:
    """A ``/proc/self/status`` field in bytes (VmRSS, VmHWM)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def reset_peak() -> None:
    """VmHWM ← VmRSS."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")
