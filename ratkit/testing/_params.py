"""Comparing ``get_params()`` mappings in the public contracts: by value, not by identity."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

__all__ = ["same_params", "numeric_changes", "GENERATORS"]

#: Random generators: not data, so a model file keeps None for them (a refit draws anew).
GENERATORS = (np.random.Generator, np.random.RandomState)


def same_params(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two ``get_params()`` mappings hold equal values: arrays element by element,
    random generators by their state, estimators by type and parameters."""
    return a.keys() == b.keys() and all(_same_value(a[key], b[key]) for key in a)


def _same_value(x: Any, y: Any) -> bool:
    if isinstance(x, np.random.Generator) and isinstance(y, np.random.Generator):
        return _same_value(x.bit_generator.state, y.bit_generator.state)
    if isinstance(x, np.random.RandomState) and isinstance(y, np.random.RandomState):
        return all(_same_value(p, q) for p, q in zip(x.get_state(), y.get_state()))
    if isinstance(x, BaseEstimator) and not isinstance(x, type):
        return type(x) is type(y) and same_params(x.get_params(deep=False), y.get_params(deep=False))
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.asarray(x).shape == np.asarray(y).shape and bool(np.array_equal(x, y))
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        return same_params(x, y)
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return type(x) is type(y) and len(x) == len(y) and all(map(_same_value, x, y))
    return type(x) is type(y) and bool(x == y)


def numeric_changes(estimator: Any) -> dict[str, Any]:
    """Other valid-looking values for an estimator's numeric parameters, to ``set_params``
    after ``fit``: every int one plus 1 and every non-zero float one times 1.5 (booleans,
    strings, None, zeros and estimators left alone)."""
    changed: dict[str, Any] = {}
    for key, value in estimator.get_params(deep=False).items():
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            continue
        if isinstance(value, numbers.Integral):
            changed[key] = int(value) + 1
        elif value != 0:
            changed[key] = float(value) * 1.5
    return changed
