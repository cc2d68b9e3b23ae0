"""Plain JSON values from what parameters hold: numpy scalars, arrays, tuples.

A numpy parameter grid hands estimators ``np.int64(2)`` and ``np.float32(0.5)``, which
``json`` refuses. Everything ratkit writes as JSON (model manifests, recommender
parameters, kernel specs) goes through :func:`plain` first, before any file is opened.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ratkit.exceptions import ParameterTypeError

__all__ = ["plain"]


def plain(value: Any, where: str = "value") -> Any:
    """``value`` with numpy scalars as Python numbers and tuples/arrays as lists (recursively).

    Raises :class:`~ratkit.exceptions.ParameterTypeError` (a TypeError) naming ``where``
    (e.g. ``params.random_state``) for anything JSON cannot hold, and for NaN/±∞ floats,
    which strict JSON has no literal for.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ParameterTypeError(f"{where} is {value!r}, which JSON cannot hold.")
        return value
    if isinstance(value, Mapping):
        out = {}
        for key, v in value.items():
            if not isinstance(key, str):
                raise ParameterTypeError(f"{where} has the key {key!r}; JSON keys are strings.")
            out[key] = plain(v, f"{where}.{key}")
        return out
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise ParameterTypeError(f"{where} is a {type(value).__name__} ({value!r:.80}), which cannot be written as JSON.")
