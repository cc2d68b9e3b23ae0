"""``njit``: numba's, compiling with ``cache=True, nogil=True``.

The dual coordinate-descent loops are sequential by nature (each coordinate update
reads the W′ written by the previous one), so they cannot be vectorised with numpy;
numba compiles them. ``cache=True`` keeps the machine code between runs (no compile
on every import); ``nogil=True`` lets the compiled loops release the GIL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from numba import njit as _numba_njit

__all__ = ["njit"]

F = TypeVar("F", bound=Callable[..., Any])


def njit(func: F | None = None, *, reassociate: bool = False) -> Any:
    """``numba.njit(cache=True, nogil=True)(func)``: ``func`` compiled to machine code on first call.

    ``@njit(reassociate=True)`` also lets the compiler reorder sums and fuse multiply-adds
    (numba's ``fastmath={"reassoc", "contract"}``): faster reductions whose results differ
    in round-off only; no other fast-math licence (NaN and ∞ keep their meaning)."""
    options: dict[str, Any] = {"cache": True, "nogil": True}
    if reassociate:
        options["fastmath"] = {"reassoc", "contract"}
    if func is None:
        return _numba_njit(**options)
    return _numba_njit(**options)(func)
