"""The process's heap: giving freed memory back to the system."""

from __future__ import annotations

import ctypes
import functools
import sys
from typing import Any

__all__ = ["trim_heap"]


def trim_heap() -> None:
    """Give back to the system the memory freed since (a stage's transients, a block's
    tile), which glibc's allocator otherwise keeps in the process: ``malloc_trim(0)``;
    a no-op where there is no such function."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim`` from the symbols already loaded in the process (looking the
    library up by name would run ``ldconfig`` in a child process), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
