"""``njit``: numba's, compiling with ``cache=True, nogil=True``; ``popcount`` for compiled code.

The dual coordinate-descent loops are sequential by nature (each coordinate update
reads the W′ written by the previous one), so they cannot be vectorised with numpy;
numba compiles them. ``cache=True`` keeps the machine code between runs (no compile
on every import); ``nogil=True`` lets the compiled loops release the GIL.

Compiling takes seconds, far longer than loading the cached code
(measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)'),
so the first time in a process that numba really compiles one of these
functions (not when it loads it from the cache) the logger ``ratkit._jit`` says so once,
at INFO level: :data:`COMPILING`. The ``ratkit`` command shows it on standard error;
in library use it is silent unless logging is configured to show INFO records.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from numba import njit as _numba_njit
from numba.core import event, types
from numba.extending import intrinsic

__all__ = ["njit", "popcount", "COMPILING"]

F = TypeVar("F", bound=Callable[..., Any])

log = logging.getLogger(__name__)

#: What ``ratkit._jit`` logs (INFO), once per process, when numba first compiles a ratkit function.
COMPILING = "compiling numba kernels on first use (once; cached afterwards)"

#: The dispatchers made by :func:`njit`: their compilation is announced, other numba code's is not.
_DISPATCHERS: weakref.WeakSet[Any] = weakref.WeakSet()


class _CompileNotice(event.Listener):
    """Logs :data:`COMPILING` at the first compilation of a ratkit function in this process.

    numba raises the ``numba:compile`` event only when it compiles, after a cache miss,
    so a warm cache announces nothing."""

    def __init__(self) -> None:
        self.announced = False

    def on_start(self, ev: event.Event) -> None:
        if not self.announced and ev.data["dispatcher"] in _DISPATCHERS:
            self.announced = True
            log.info(COMPILING)

    def on_end(self, ev: event.Event) -> None:
        pass


_NOTICE = _CompileNotice()
event.register("numba:compile", _NOTICE)


def _tracked(dispatcher: Any) -> Any:
    _DISPATCHERS.add(dispatcher)
    return dispatcher


def njit(func: F | None = None, *, reassociate: bool = False) -> Any:
    """``numba.njit(cache=True, nogil=True)(func)``: ``func`` compiled to machine code on first call.

    ``@njit(reassociate=True)`` also lets the compiler reorder sums and fuse multiply-adds
    (numba's ``fastmath={"reassoc", "contract"}``): faster reductions whose results differ
    in round-off only; no other fast-math licence (NaN and ∞ keep their meaning)."""
    options: dict[str, Any] = {"cache": True, "nogil": True}
    if reassociate:
        options["fastmath"] = {"reassoc", "contract"}
    if func is None:
        return lambda f: _tracked(_numba_njit(**options)(f))
    return _tracked(_numba_njit(**options)(func))


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
