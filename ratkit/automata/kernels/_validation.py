"""Parameter checks with messages in scikit-learn's style."""

from __future__ import annotations

from numbers import Real
from typing import Any

from ratkit._validation import check_int

__all__ = ["check_int", "check_real"]


def check_real(
    value: Any, name: str, owner: str, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> float:
    ok = isinstance(value, Real) and not isinstance(value, bool)
    if ok:
        v = float(value)
        ok = (v > low if low_open else v >= low) and (v < high if high_open else v <= high)
    if not ok:
        lo, hi = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(
            f"The {name!r} parameter of {owner} must be a float in {lo}{low:g}, {high:g}{hi}. Got {value!r} instead."
        )
    return float(value)
