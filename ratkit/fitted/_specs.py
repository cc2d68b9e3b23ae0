"""What one fitted attribute may hold: the :class:`Spec` kinds (arrays, sparse matrices, labels,
numbers, text, instances, sequences, samples, JSON records) and the generic check of values no
description covers."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral
from numbers import Real as _RealNumber
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ratkit.fitted._context import (
    _JSON_SCALARS,
    _KIND_NAMES,
    _PLAIN_KINDS,
    Dim,
    Fitted,
    Spec,
    _Context,
    _describe,
    _Invalid,
    _scalar,
)

__all__ = [
    "Array",
    "Sparse",
    "Labels",
    "Int",
    "Real",
    "Bool",
    "Text",
    "Instance",
    "Sequences",
    "Samples",
    "Numbers",
    "Json",
]


def _kinds_text(kinds: str) -> str:
    names = [_KIND_NAMES[k] for k in kinds if k in _KIND_NAMES]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _check_array_values(
    value: np.ndarray, ctx: _Context, *, finite: bool, low: float | None, below: Dim, unique: bool
) -> None:
    """The value checks of :class:`Array` and :class:`Sparse` (skipped in a cheap check)."""
    if not ctx.values or value.size == 0:
        return
    if finite and value.dtype.kind in "fc":
        bad = ~np.isfinite(value)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            at = where[0] if len(where) == 1 else list(where)
            raise _Invalid(f"holds NaN or infinite values ({_scalar(value[where])!r} at index {at})")
    if value.dtype.kind not in "biuf":
        return
    if low is not None and value.min() < low:
        raise _Invalid(f"holds {_scalar(value.min())!r}, below {low!r}")
    top = ctx.size(below)
    if top is not None and value.max() >= top:
        raise _Invalid(f"holds the index {_scalar(value.max())!r}, past {below} = {top}")
    if unique and np.unique(value).size != value.size:
        raise _Invalid("holds a value twice")


def _check_object_items(value: np.ndarray) -> None:
    for item in value.ravel():
        if not isinstance(item, _JSON_SCALARS):
            raise _Invalid(f"is an object array holding a {type(item).__name__} ({item!r:.40})")


@dataclass(frozen=True)
class Array(Spec):
    """A numpy array: dtype kinds (numpy's one-letter codes: ``"f"`` floats, ``"iu"`` ints,
    ``"b"`` booleans, ``"U"`` strings, ``"O"`` an object array of JSON scalars), or one exact
    ``dtype``; one dimension per axis; with ``finite`` (floats), no NaN or ±∞; values ≥ ``low``,
    below the dimension ``below`` (an index array), distinct (``unique``)."""

    kinds: str = "f"
    shape: tuple[Dim, ...] = (None,)
    finite: bool = True
    low: float | None = None
    below: Dim = None
    unique: bool = False
    dtype: str | None = None

    def expected(self, ctx: _Context) -> str:
        what = f"dtype {self.dtype}" if self.dtype else _kinds_text(self.kinds)
        finite = "finite " if self.finite and not self.dtype and set(self.kinds) <= set("fc") else ""
        text = f"a {len(self.shape)}-D array of {finite}{what} of shape {ctx.render(self.shape)}"
        if self.low is not None:
            text += f", ≥ {self.low:g}"
        if self.below is not None:
            text += f", below {self.below}"
        return self._or_none(text)

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not isinstance(value, np.ndarray):
            raise _Invalid(f"is {_describe(value)}")
        wrong = value.dtype != np.dtype(self.dtype) if self.dtype else value.dtype.kind not in self.kinds
        if wrong:
            raise _Invalid(f"is an array of dtype {value.dtype}")
        if value.dtype.kind == "O" and ctx.values:
            _check_object_items(value)
        ctx.axes(value.shape, self.shape, name)
        _check_array_values(value, ctx, finite=self.finite, low=self.low, below=self.below, unique=self.unique)


@dataclass(frozen=True)
class Sparse(Spec):
    """A scipy sparse matrix (well-formed: indices in range, sorted pointers), its stored
    values of the dtype kinds ``kinds``, finite when ``finite``, ≥ ``low``."""

    kinds: str = "f"
    shape: tuple[Dim, Dim] = (None, None)
    finite: bool = True
    low: float | None = None

    def expected(self, ctx: _Context) -> str:
        return self._or_none(f"a sparse matrix of {_kinds_text(self.kinds)} of shape {ctx.render(self.shape)}")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not sp.issparse(value):
            raise _Invalid(f"is {_describe(value)}")
        if value.dtype.kind not in self.kinds:
            raise _Invalid(f"is a sparse matrix of dtype {value.dtype}")
        ctx.axes(tuple(value.shape), self.shape, name)
        _check_sparse_format(value, ctx)
        data = value.tocsr().data if ctx.values else np.empty(0)
        _check_array_values(data, ctx, finite=self.finite, low=self.low, below=None, unique=False)


def _check_sparse_format(value: Any, ctx: _Context) -> None:
    if not ctx.values or not hasattr(value, "check_format"):
        return
    try:
        value.check_format(full_check=True)
    except (ValueError, TypeError, IndexError) as exc:
        raise _Invalid(f"is a malformed sparse matrix ({exc})") from None


@dataclass(frozen=True)
class Labels(Spec):
    """Class labels as ``np.unique`` gives them: a 1-D array of at least ``at_least`` distinct
    labels (numbers, booleans, strings, or JSON scalars) in sorted order."""

    at_least: int = 2

    def expected(self, ctx: _Context) -> str:
        return self._or_none(f"a 1-D array of at least {self.at_least} distinct class labels in sorted order")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not isinstance(value, np.ndarray) or value.ndim != 1:
            raise _Invalid(f"is {_describe(value)}")
        if value.dtype.kind not in "biufUSO":
            raise _Invalid(f"is an array of dtype {value.dtype}")
        if value.dtype.kind == "O" and ctx.values:
            _check_object_items(value)
        if value.shape[0] < self.at_least:
            raise _Invalid(f"holds {value.shape[0]} label{'s' * (value.shape[0] != 1)}")
        if not ctx.values:
            return
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise _Invalid(f"holds the label {_scalar(value[~np.isfinite(value)][0])!r}")
        try:
            distinct = np.unique(value)
        except TypeError:
            raise _Invalid(f"holds labels of types that cannot be sorted together ({value.tolist()!r:.60})") from None
        if distinct.shape[0] != value.shape[0]:
            _, counts = np.unique(value, return_counts=True)
            twice = _scalar(distinct[np.argmax(counts > 1)])
            raise _Invalid(f"holds the label {twice!r} twice ({value.tolist()!r:.60})")
        if not np.array_equal(distinct, value):
            raise _Invalid(f"is not in sorted order ({value.tolist()!r:.60})")


def _is_int(value: Any) -> bool:
    return isinstance(value, (Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" in [{low:g}, {high:g}]"
    if low is not None:
        return f" ≥ {low:g}"
    return "" if high is None else f" ≤ {high:g}"


@dataclass(frozen=True)
class Int(Spec):
    """An int (a Python or numpy integer, not a bool) in [``low``, ``high``]; it may name a
    dimension of the arrays."""

    low: int | None = 0
    high: int | None = None
    names_a_dimension: ClassVar[bool] = True

    def expected(self, ctx: _Context) -> str:
        return self._or_none(f"an int{_bounds(self.low, self.high)}")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not _is_int(value):
            raise _Invalid(f"is {_describe(value)}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise _Invalid(f"is {int(value)}")


@dataclass(frozen=True)
class Real(Spec):
    """A real number (an int or a float, numpy's too, not a bool), finite when ``finite``,
    ≥ ``low`` (> ``low`` with ``low_open``)."""

    finite: bool = True
    low: float | None = None
    low_open: bool = False

    def expected(self, ctx: _Context) -> str:
        bound = f" > {self.low:g}" if self.low_open and self.low is not None else _bounds(self.low, None)
        return self._or_none(f"a {'finite ' if self.finite else ''}real number{bound}")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not isinstance(value, (_RealNumber, np.integer, np.floating)) or isinstance(value, (bool, np.bool_)):
            raise _Invalid(f"is {_describe(value)}")
        low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        if (self.finite and not math.isfinite(value)) or low:
            raise _Invalid(f"is {float(value)!r}")


@dataclass(frozen=True)
class Bool(Spec):
    """True or False (a Python or numpy bool)."""

    def expected(self, ctx: _Context) -> str:
        return self._or_none("a bool")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise _Invalid(f"is {_describe(value)}")


@dataclass(frozen=True)
class Text(Spec):
    """A str, one of ``choices`` when given."""

    choices: tuple[str, ...] = ()

    def expected(self, ctx: _Context) -> str:
        return self._or_none(f"one of {', '.join(map(repr, self.choices))}" if self.choices else "a str")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not isinstance(value, str) or (self.choices and value not in self.choices):
            raise _Invalid(f"is {_describe(value)}")


@dataclass(frozen=True)
class Instance(Spec):
    """An instance of one of ``types`` (a kernel, a vocabulary), or one of the constants
    ``values`` (e.g. ``"linear"``); ``what`` says it in words."""

    types: tuple[type, ...] = ()
    what: str = ""
    values: tuple[str, ...] = ()

    def expected(self, ctx: _Context) -> str:
        return self._or_none(self.what or " or ".join(t.__name__ for t in self.types))

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if isinstance(value, str) and value in self.values:
            return
        if isinstance(value, str) or not isinstance(value, self.types):
            raise _Invalid(f"is {_describe(value)}")


def _count(ctx: _Context, dim: Dim) -> str:
    """How many items the dimension ``dim`` stands for, in words ("any number of" when free)."""
    known = ctx.size(dim) if dim is not None else None
    if known is not None:
        return str(known) if isinstance(dim, int) else f"{dim} = {known}"
    return "any number of" if dim is None else str(dim)


def _length(value: Any) -> int | None:
    if sp.issparse(value) or isinstance(value, np.ndarray):
        return int(value.shape[0]) if value.ndim else None
    return len(value) if isinstance(value, (list, tuple)) else None


@dataclass(frozen=True)
class Sequences(Spec):
    """A list (or tuple) of ``length`` sequences: each a str or a tuple of str tokens."""

    length: Dim = None

    def expected(self, ctx: _Context) -> str:
        return self._or_none(f"a list of {_count(ctx, self.length)} sequences (str or tuples of str)")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not isinstance(value, (list, tuple)):
            raise _Invalid(f"is {_describe(value)}")
        ctx.axes((len(value),), (self.length,), name)
        for i, item in enumerate(value):
            if not (isinstance(item, str) or (isinstance(item, tuple) and all(isinstance(t, str) for t in item))):
                raise _Invalid(f"holds {_describe(item)} at index {i}")


@dataclass(frozen=True)
class Samples(Spec):
    """``length`` training samples, of any form the estimator takes: a list (of sequences,
    graphs, …), an array or a sparse matrix (one row each); checked generically."""

    length: Dim = None

    def expected(self, ctx: _Context) -> str:
        return self._or_none(f"{_count(ctx, self.length)} samples (a list, an array or a sparse matrix)")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        n = _length(value)
        if n is None:
            raise _Invalid(f"is {_describe(value)}")
        ctx.axes((n,), (self.length,), name)
        _plain(value, ctx)


@dataclass(frozen=True)
class Numbers(Spec):
    """A list (or tuple) of ``length`` real numbers, finite when ``finite``."""

    length: Dim = None
    finite: bool = True

    def expected(self, ctx: _Context) -> str:
        count = _count(ctx, self.length)
        return self._or_none(f"a list of {count} {'finite ' if self.finite else ''}real numbers")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        if not isinstance(value, (list, tuple)):
            raise _Invalid(f"is {_describe(value)}")
        ctx.axes((len(value),), (self.length,), name)
        spec = Real(finite=self.finite)
        for i, item in enumerate(value):
            try:
                spec.validate(item, ctx, name)
            except _Invalid as exc:
                raise _Invalid(f"holds an item that {exc} (index {i})") from None


@dataclass(frozen=True)
class Json(Spec):
    """A JSON-like record (a diagnostic such as ``convergence_``): anything, checked generically."""

    def expected(self, ctx: _Context) -> str:
        return self._or_none("a JSON value (numbers, strings, lists, mappings) or arrays of numbers")

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        _plain(value, ctx)


def _plain(value: Any, ctx: _Context | None = None) -> None:
    """The generic check of a value no description covers: arrays of plain dtypes (an object
    array only of JSON scalars), well-formed sparse matrices, and the same inside lists,
    tuples and mappings. Raises _Invalid."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            if ctx is None or ctx.values:
                _check_object_items(value)
        elif value.dtype.kind not in _PLAIN_KINDS:
            raise _Invalid(f"is an array of dtype {value.dtype}")
    elif sp.issparse(value):
        if value.dtype.kind not in "biufc":
            raise _Invalid(f"is a sparse matrix of dtype {value.dtype}")
        _check_sparse_format(value, ctx or _GENERIC)
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, (np.ndarray, list, tuple, Mapping)) or sp.issparse(item):
                _plain(item, ctx)
    elif isinstance(value, Mapping):
        for item in value.values():
            _plain(item, ctx)


_GENERIC = _Context(None, Fitted(), True)
