"""``njit``: numba's, compiling with ``cache=True, nogil=True``; ``popcount`` for compiled code.

The dual coordinate-descent loops are sequential by nature (each coordinate update
reads the W′ written by the previous one), so they cannot be vectorised with numpy;
numba compiles them. ``cache=True`` keeps the machine code between runs (no compile
on every import); ``nogil=True`` lets the compiled loops release the GIL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from numba import njit as _numba_njit
from numba.core import types
from numba.extending import intrinsic

__all__ = ["njit", "popcount"]

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


@intrinsic
def popcount(typingctx: Any, x: Any) -> Any:
    """The number of set bits of an integer, in its own type (LLVM's ``ctpop``); compiled code only.

    One instruction where the CPU has one (x86 POPCNT), and a loop over an array of them
    vectorises (AVX-512 VPOPCNTB/VPOPCNTD where available, else LLVM's bit tricks). Signed
    integers count the bits of their two's complement."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return x(x), codegen
