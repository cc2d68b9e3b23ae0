"""JSON in and out: plain values from what parameters hold, and strict reading.

A numpy parameter grid hands estimators ``np.int64(2)`` and ``np.float32(0.5)``, which
``json`` refuses. Everything ratkit writes as JSON (model manifests, recommender
parameters, kernel specs) goes through :func:`plain` first, before any file is opened.

Everything ratkit reads as JSON from a user or a file (model manifests, kernel specs) goes
through :func:`loads_strict`, which refuses an object with a duplicated key (``json.loads``
keeps the last value silently; TOML refuses the same), naming the key and where it is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ratkit.exceptions import DataFormatError, ParameterTypeError, RatkitError

__all__ = ["plain", "loads_strict"]


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


class _Pairs(dict):
    """A JSON object as parsed by :func:`loads_strict`: a dict that remembers the first key
    it held twice (found after parsing, when its place in the document is known)."""

    duplicate: str | None = None


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = _Pairs()
    for key, value in pairs:
        if key in obj and obj.duplicate is None:
            obj.duplicate = key
        obj[key] = value
    return obj


def loads_strict(text: str | bytes, what: str, *, error: type[RatkitError] = DataFormatError) -> Any:
    """``json.loads(text)``, refusing any object that holds a key twice.

    ``json.loads`` keeps the last of duplicated keys silently, so ``{"n": 2, "n": 3}`` would
    read as ``{"n": 3}`` while a reader of the text may see 2. Raises ``error`` (a ratkit error,
    :class:`~ratkit.exceptions.DataFormatError` by default) naming ``what`` (e.g. ``"model.zip:
    manifest.json"``), the key and its place, e.g. ``the key 'n' appears twice in the object
    at kernels[1]``. Invalid JSON raises :class:`json.JSONDecodeError` as ``json.loads`` does;
    a document nested deeper than the parser can go, RecursionError: the caller words both.
    The values are plain dicts, lists, str, int, float, bool and None.
    """
    value = json.loads(text, object_pairs_hook=_pairs)
    # find the first duplicated key in document order, with its path; rebuild plain dicts
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, _Pairs):
            if node.duplicate is not None:
                place = f"the object at {where}" if where else "the top-level object"
                raise error(
                    f"{what}: the key {node.duplicate!r} appears twice in {place}; each key may appear once "
                    "(JSON readers disagree on which value wins). Remove one of them."
                )
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(node))))
    return _plain_dicts(value)


def _plain_dicts(value: Any) -> Any:
    """``value`` with every :class:`_Pairs` replaced by a dict (iteratively: no recursion limit)."""
    if not isinstance(value, (dict, list)):
        return value
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        node, parent, key = stack.pop()
        if isinstance(node, dict):
            copy: Any = dict.fromkeys(node)  # the keys in the document's order
            stack.extend((v, copy, k) for k, v in node.items())
        elif isinstance(node, list):
            copy = [None] * len(node)
            stack.extend((v, copy, i) for i, v in enumerate(node))
        else:
            copy = node
        parent[key] = copy
    return root[0]
