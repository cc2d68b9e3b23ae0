"""The one way ratkit validates parameters: scikit-learn's :func:`~sklearn.utils.check_scalar`
for type and range, with messages in scikit-learn's parameter style.

Every check raises :class:`~ratkit.exceptions.ParameterError` (a ``ValueError``) for a value
out of range or not among the choices, and :class:`~ratkit.exceptions.ParameterTypeError`
(also a ``TypeError``) for a value of the wrong type; the message names the parameter, its
owner, what is accepted and the value given::

    The 'decay' parameter of gappy must be a float in (0, 1]. Got -0.5 instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils import check_scalar

from ratkit.exceptions import ParameterError, ParameterTypeError

__all__ = ["check_int", "check_real", "check_bool", "check_choice", "check_random_state"]


def _check(value: Any, kind: type, low: float | None, high: float | None, low_open: bool, high_open: bool) -> None:
    """scikit-learn's check of type and bounds (bools are not numbers here: ``True`` as a
    count or a weight is a mistake); raises TypeError or ValueError."""
    if isinstance(value, bool):
        raise TypeError("bool")
    # which bounds belong to the interval; a missing bound is not one (check_scalar's rule)
    ends = (low is not None and not low_open, high is not None and not high_open)
    boundaries = {(True, True): "both", (True, False): "left", (False, True): "right", (False, False): "neither"}
    check_scalar(value, "value", kind, min_val=low, max_val=high, include_boundaries=boundaries[ends])


def _refuse(value: Any, name: str, owner: str, expected: str, wrong_type: bool) -> None:
    error = ParameterTypeError if wrong_type else ParameterError
    raise error(f"The {name!r} parameter of {owner} must be {expected}. Got {value!r} instead.")


def check_int(value: Any, name: str, owner: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in [low, high] (either bound optional; bools refused)."""
    try:
        _check(value, Integral, low, high, False, False)
    except (TypeError, ValueError) as exc:
        _refuse(value, name, owner, f"an int{_bounds(low, high)}", isinstance(exc, TypeError))
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
    optional, each closed unless ``*_open``). NaN and ±∞ are always refused: a non-finite
    parameter would make every value computed from it NaN or ∞."""
    bounds = _bounds(low, high, low_open, high_open)
    try:
        _check(value, Real, low, high, low_open, high_open)
    except (TypeError, ValueError) as exc:
        wrong_type = isinstance(exc, TypeError)
        finite = wrong_type or math.isfinite(float(value))
        _refuse(value, name, owner, f"a {'' if finite else 'finite '}float{bounds}", wrong_type)
    if not math.isfinite(float(value)):  # check_scalar lets NaN through (every comparison is False)
        _refuse(value, name, owner, f"a finite float{bounds}", False)
    return float(value)


def check_bool(value: Any, name: str, owner: str) -> bool:
    """``value`` as a bool: True, False (or a numpy bool); anything else (``"no"``, 1, None) is
    refused, since its truth value would be a silent guess."""
    if not isinstance(value, (bool, np.bool_)):
        _refuse(value, name, owner, "a bool (True or False)", True)
    return bool(value)


def check_choice(value: Any, name: str, owner: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of the string ``choices``; the error quotes the bad value."""
    if not isinstance(value, str) or value not in choices:
        _refuse(value, name, owner, f"one of {', '.join(map(repr, choices))}", False)
    return value


def check_random_state(random_state: Any) -> np.random.Generator:
    """A NumPy ``Generator`` from ``None``, an int seed or an existing Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, Integral) and not isinstance(random_state, bool) and int(random_state) >= 0:
        return np.random.default_rng(int(random_state))
    wrong_type = not isinstance(random_state, Integral) or isinstance(random_state, bool)
    raise (ParameterTypeError if wrong_type else ParameterError)(
        f"random_state must be None, a non-negative int seed or a numpy Generator. Got {random_state!r} instead."
    )


def _bounds(low: float | None, high: float | None, low_open: bool = False, high_open: bool = False) -> str:
    """The accepted range as the messages state it: " in [0, 1)", " > 0", " ≤ 5" or ""."""
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '≥'} {low:g}"
    if high is not None:
        return f" {'<' if high_open else '≤'} {high:g}"
    return ""
