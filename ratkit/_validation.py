"""Parameter checks shared by every part of ratkit, with messages in scikit-learn's style."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

__all__ = ["check_int", "check_real"]


def check_int(value: Any, name: str, owner: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in [low, high] (either bound optional; bools refused), else a
    ValueError naming the parameter, its owner, the accepted range and the value."""
    ok = isinstance(value, Integral) and not isinstance(value, bool)
    ok = ok and (low is None or value >= low) and (high is None or value <= high)
    if not ok:
        raise ValueError(
            f"The {name!r} parameter of {owner} must be an int{_bounds(low, high)}. Got {value!r} instead."
        )
    return int(value)


def check_real(
    value: Any,
    name: str,
    owner: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float in the interval from ``low`` to ``high`` (either bound
    optional, each closed unless ``*_open``), else a ValueError naming the parameter, its
    owner, the accepted range and the value. NaN and ±∞ are always refused: a non-finite
    parameter would make every value computed from it NaN or ∞."""
    ok = isinstance(value, Real) and not isinstance(value, bool)
    finite = ok and math.isfinite(float(value))
    if finite:
        v = float(value)
        ok = (low is None or (v > low if low_open else v >= low)) and (
            high is None or (v < high if high_open else v <= high)
        )
    if not (ok and finite):
        kind = "a finite float" if isinstance(value, Real) and not finite else "a float"
        raise ValueError(
            f"The {name!r} parameter of {owner} must be {kind}{_bounds(low, high, low_open, high_open)}. "
            f"Got {value!r} instead."
        )
    return float(value)


def _bounds(low: float | None, high: float | None, low_open: bool = False, high_open: bool = False) -> str:
    """The accepted range as the messages state it: " in [0, 1)", " > 0", " ≤ 5" or ""."""
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '≥'} {low:g}"
    if high is not None:
        return f" {'<' if high_open else '≤'} {high:g}"
    return ""
