"""Parameter checks with messages in scikit-learn's style (the package-wide ones of
:mod:`ratkit._validation`, with the interval given positionally)."""

from __future__ import annotations

from typing import Any

from ratkit._validation import check_int
from ratkit._validation import check_real as _check_real

__all__ = ["check_int", "check_real"]


def check_real(
    value: Any, name: str, owner: str, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> float:
    """``value`` as a finite float in [low, high] (ends open as asked; ``high`` = ∞ means no
    upper bound), else the ValueError of :func:`ratkit._validation.check_real`."""
    return _check_real(
        value,
        name,
        owner,
        low=low,
        high=None if high == float("inf") else high,
        low_open=low_open,
        high_open=high_open,
    )
