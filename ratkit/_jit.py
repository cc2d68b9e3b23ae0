"""``njit`` from numba (a dependency); the identity if numba cannot be imported (same results, slower).

The dual coordinate-descent loops are sequential by nature (each coordinate update
reads the W′ written by the previous one), so they cannot be vectorised with numpy;
numba compiles them. Without numba the very same functions run as plain Python, which
is correct but about two orders of magnitude slower.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["njit", "HAVE_NUMBA"]

F = TypeVar("F", bound=Callable[..., Any])

try:  # pragma: no cover - depends on the environment
    from numba import njit as _numba_njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the environment
    _numba_njit = None
    HAVE_NUMBA = False


def njit(func: F) -> F:
    """Compile ``func`` with ``numba.njit(cache=True, nogil=True)`` when numba is available."""
    if _numba_njit is None:  # pragma: no cover - depends on the environment
        return func
    return _numba_njit(cache=True, nogil=True)(func)
