"""Parameter checks shared by every part of ratkit, with messages in scikit-learn's style."""

from __future__ import annotations

from numbers import Integral
from typing import Any

__all__ = ["check_int"]


def check_int(value: Any, name: str, owner: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in [low, high] (either bound optional; bools refused), else a
    ValueError naming the parameter, its owner, the accepted range and the value."""
    ok = isinstance(value, Integral) and not isinstance(value, bool)
    ok = ok and (low is None or value >= low) and (high is None or value <= high)
    if not ok:
        if low is not None and high is not None:
            bounds = f" in [{low}, {high}]"
        elif low is not None:
            bounds = f" ≥ {low}"
        elif high is not None:
            bounds = f" ≤ {high}"
        else:
            bounds = ""
        raise ValueError(f"The {name!r} parameter of {owner} must be an int{bounds}. Got {value!r} instead.")
    return int(value)
