"""Resource limits: the sizes past which ratkit refuses an operation before it starts.

Operations whose size can blow up (a Gram matrix, the Kronecker product of two graphs, a
dynamic-programming table, ε-removal or determinisation of an automaton) estimate what they
would allocate first and raise :class:`~ratkit.exceptions.ResourceLimitError`, naming the
estimate and the limit, instead of being killed by the operating system halfway.

Two limits, process-wide:

* ``max_bytes``: the most memory one operation may plan to allocate. Default: half the
  machine's physical memory (4 GiB where that cannot be read); the environment variable
  ``RATKIT_MAX_BYTES`` (bytes, read at import) overrides it.
* ``max_states``: the most states (or arcs) an automaton operation may produce. Default
  10⁷; ``RATKIT_MAX_STATES`` overrides it.

Raise or lower them for a block of code with :func:`limits`, or for the rest of the process
with :func:`set_limits`::

    import ratkit.limits
    with ratkit.limits.limits(max_bytes=16 * 2**30):
        K = kernel.gram(X)          # up to 16 GiB
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator

from ratkit.exceptions import ParameterError, ParameterTypeError, ResourceLimitError

__all__ = ["max_bytes", "max_states", "limits", "set_limits", "check_bytes", "check_states", "format_bytes"]

_FALLBACK_BYTES = 4 * 2**30
_DEFAULT_STATES = 10**7
_lock = threading.Lock()


def _physical_half() -> int:
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) // 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return _FALLBACK_BYTES


def _from_environment(name: str, default: int) -> int:
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = int(float(text))
    except ValueError:
        raise ParameterError(f"The environment variable {name} must be a positive integer. Got {text!r}.") from None
    if value < 1:
        raise ParameterError(f"The environment variable {name} must be a positive integer. Got {text!r}.")
    return value


_limits = {
    "max_bytes": _from_environment("RATKIT_MAX_BYTES", _physical_half()),
    "max_states": _from_environment("RATKIT_MAX_STATES", _DEFAULT_STATES),
}


def max_bytes() -> int:
    """The most bytes one operation may plan to allocate."""
    return _limits["max_bytes"]


def max_states() -> int:
    """The most states (or arcs) one automaton operation may produce."""
    return _limits["max_states"]


def _checked(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ParameterTypeError(f"The {name!r} limit must be a positive integer. Got {value!r} instead.")
    if value < 1 or value == float("inf"):
        raise ParameterError(f"The {name!r} limit must be a positive integer. Got {value!r} instead.")
    return int(value)


def set_limits(*, max_bytes: int | None = None, max_states: int | None = None) -> None:
    """Set the limits for the rest of the process (``None`` leaves one unchanged)."""
    updates = {k: _checked(k, v) for k, v in (("max_bytes", max_bytes), ("max_states", max_states)) if v is not None}
    with _lock:
        _limits.update(updates)


@contextlib.contextmanager
def limits(*, max_bytes: int | None = None, max_states: int | None = None) -> Iterator[None]:
    """The limits changed inside a ``with`` block, restored after it."""
    with _lock:
        saved = dict(_limits)
    set_limits(max_bytes=max_bytes, max_states=max_states)
    try:
        yield
    finally:
        with _lock:
            _limits.update(saved)


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit that keeps it ≥ 1 (``"8.6 GiB"``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0
    raise AssertionError("unreachable")  # pragma: no cover


def check_bytes(n_bytes: float, what: str | Callable[[], str], hint: str = "") -> None:
    """Refuse ``what`` when its estimated allocation ``n_bytes`` exceeds :func:`max_bytes`.

    Raises :class:`~ratkit.exceptions.ResourceLimitError` naming the estimate, the limit,
    how to raise it and ``hint`` (what the user can do instead). ``what`` may be a function
    giving the text, called only to refuse (for checks on a hot path whose text is costly)."""
    limit = max_bytes()
    if n_bytes > limit:
        text = what() if callable(what) else what
        _refuse(f"would allocate about {format_bytes(n_bytes)}", format_bytes(limit), "max_bytes", text, hint)


def check_states(n_states: float, what: str, hint: str = "") -> None:
    """Refuse ``what`` when it would produce more than :func:`max_states` states or arcs."""
    limit = max_states()
    if n_states > limit:
        _refuse(f"would produce about {n_states:.3g} states or arcs", f"{limit:,}", "max_states", what, hint)


def _refuse(estimate: str, limit: str, name: str, what: str, hint: str) -> None:
    advice = f" {hint}" if hint else ""
    raise ResourceLimitError(
        f"{what} {estimate}, more than the limit of {limit} (ratkit.limits.{name}).{advice} To allow it, raise "
        f"the limit: ratkit.limits.set_limits({name}=...) or the RATKIT_{name.upper()} environment variable."
    )
