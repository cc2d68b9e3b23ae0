"""What a fitted estimator holds: one declarative description per class, and its check.

An estimator class describes its fitted state once, as the class attribute
``_fitted_schema``: a :class:`Fitted` naming each attribute ``fit`` sets and what it holds
(an :class:`Array` of some dtype kinds with a shape written in named dimensions, an
:class:`Int`, a :class:`Labels` array, an :class:`Instance` of a class, …), the dimensions
derived from other attributes (:class:`Derived`) and the rules tying attributes together.
A subclass inherits the description, and extends it with :meth:`Fitted.extend`::

    class MyModel(Recommender):
        _fitted_schema = Recommender._fitted_schema.extend(
            scores_=Array("f", ("n_items_",)),               # finite floats, one per item
            factors_=Array("f", ("n_items_", "d")),          # "d": the same wherever it appears
        )
        _fitted_attributes = _fitted_schema.required

:func:`check_fitted` checks a model against its class's description: :func:`ratkit.load_model`
runs it on every model it reads (a file that passes its checksums may still have been
written by hand), and the recommenders run its cheap part (types, dtypes and shapes, no pass
over the values) before every use. ``fit`` produces what the description says; the contract
tests of :mod:`ratkit.testing` check it. Attributes a class does not describe (all of them,
for a class without a description) are checked generically: arrays of numbers, booleans or
strings (or of JSON scalars), well-formed sparse matrices.

A dimension in a shape is an int (that size), None (any size), the name of an :class:`Int`
attribute (its value: ``"n_items_"``), the name of a :class:`Derived` dimension of the
description (``"n_problems"``), or any other name, bound by the first axis that has it and
the same on every other axis that names it (``"d"``, the number of factors).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral
from numbers import Real as _RealNumber
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit.exceptions import ModelFormatError, RatkitError

__all__ = [
    "Fitted",
    "Spec",
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
    "Derived",
    "check_fitted",
    "schema_of",
]

Dim = int | str | None
Rule = Callable[[Any], str | None]

#: What a derived dimension or a rule may raise on values its checked inputs still allow: reported
#: as a mismatch of the file, never as a raw error.
_ERRORS = (TypeError, ValueError, LookupError, AttributeError, ArithmeticError)
#: Element types an object array (read from a model file's JSON) may hold.
_JSON_SCALARS = (str, int, float, bool, type(None))
#: numpy dtype kinds an array of unknown meaning may have: bool, ints, floats, complex, str, bytes.
_PLAIN_KINDS = "biufcUS"
_KIND_NAMES = {
    "b": "booleans",
    "i": "ints",
    "u": "unsigned ints",
    "f": "floats",
    "c": "complex numbers",
    "U": "strings",
    "S": "bytes",
    "O": "JSON scalars",
}


class _Invalid(Exception):
    """One attribute does not match its description: what it holds instead."""


# -- the context of one check: the model, its description, the dimensions bound so far ------------


class _Context:
    def __init__(self, model: Any, schema: Fitted, values: bool) -> None:
        self.model = model
        self.schema = schema
        self.values = values
        self.sizes: dict[str, int | None] = {}
        self.bound_by: dict[str, str] = {}
        self.done: set[str] = set()

    def value(self, name: str) -> Any:
        return getattr(self.model, name, None)

    def check(self, name: str) -> None:
        """Check attribute ``name`` (once), raising _Failure naming it."""
        if name in self.done:
            return
        self.done.add(name)
        spec = self.schema.attributes[name]
        if name not in vars(self.model):
            if spec.optional:
                return
            raise _Failure(name, "is missing", spec.expected(self))
        value = getattr(self.model, name)
        if value is None:
            if spec.nullable:
                return
            raise _Failure(name, "is None", spec.expected(self))
        try:
            spec.validate(value, self, name)
        except _Invalid as exc:
            raise _Failure(name, str(exc), spec.expected(self)) from None

    def size(self, dim: Dim) -> int | None:
        """The size ``dim`` stands for, or None when any size (or one not bound yet) fits."""
        if dim is None or isinstance(dim, int):
            return dim
        if dim in self.sizes:
            return self.sizes[dim]
        derived = self.schema.dims.get(dim)
        if derived is not None:
            for need in derived.needs:
                self.check(need)
            try:
                got = derived.size(*(self.value(need) for need in derived.needs))
            except _ERRORS as exc:  # values the checked needs still allow but the size cannot use
                raise _Invalid(
                    f"has a shape in {dim}, which {', '.join(derived.needs)} do not define ({exc})"
                ) from None
            self.sizes[dim] = None if got is None else int(got)
            return self.sizes[dim]
        if isinstance(self.schema.attributes.get(dim), Int):
            self.check(dim)
            value = self.value(dim)
            self.sizes[dim] = None if value is None else int(value)
            return self.sizes[dim]
        return None

    def axes(self, shape: tuple[int, ...], dims: tuple[Dim, ...], name: str) -> None:
        """Raise _Invalid unless ``shape`` has one axis per dimension, of its size; bind the
        free names on their first axis."""
        if len(shape) != len(dims):
            raise _Invalid(f"has shape {shape}")
        for axis, (got, dim) in enumerate(zip(shape, dims, strict=True)):
            want = self.size(dim)
            if want is None:
                if isinstance(dim, str) and dim not in self.schema.dims and dim not in self.schema.attributes:
                    self.sizes[dim], self.bound_by[dim] = int(got), name
                continue
            if got != want:
                origin = ""
                if isinstance(dim, str) and dim in self.bound_by:
                    origin = f", as in {self.bound_by[dim]}"
                elif isinstance(dim, str) and dim in self.schema.dims:
                    origin = f", from {', '.join(self.schema.dims[dim].needs)}"
                meaning = f" ({dim}{origin})" if isinstance(dim, str) else ""
                raise _Invalid(f"has shape {shape}, but axis {axis} should have {want}{meaning}")

    def render(self, dims: tuple[Dim, ...]) -> str:
        """A shape for a message: each named dimension with its size when known."""
        parts = []
        for dim in dims:
            if dim is None:
                parts.append("any")
            elif isinstance(dim, int):
                parts.append(str(dim))
            else:
                try:
                    known = self.size(dim)
                except (_Failure, _Invalid):  # a dimension from an attribute that is itself wrong
                    known = None
                parts.append(dim if known is None else f"{dim} = {known}")
        return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"


class _Failure(Exception):
    def __init__(self, name: str, complaint: str, expected: str) -> None:
        super().__init__(name)
        self.name, self.complaint, self.expected = name, complaint, expected


# -- what one attribute holds -----------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """What one fitted attribute holds. ``optional``: ``fit`` may leave it unset (e.g. an
    attribute older files lack); ``nullable``: None is a value it may hold."""

    optional: bool = field(default=False, kw_only=True)
    nullable: bool = field(default=False, kw_only=True)

    def expected(self, ctx: _Context) -> str:
        """The value expected, in words (for messages)."""
        raise NotImplementedError

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        """Raise _Invalid (saying what ``value`` holds instead) unless it fits."""
        raise NotImplementedError

    def _or_none(self, text: str) -> str:
        return f"{text}, or None" if self.nullable else text


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


@dataclass(frozen=True)
class Derived:
    """A dimension computed from attributes: ``size(*values of needs)`` (None: any size).
    The attributes in ``needs`` are checked first."""

    needs: tuple[str, ...]
    size: Callable[..., int | None]


# -- the description of a class --------------------------------------------------------------------


class Fitted:
    """The fitted state of an estimator class: its attributes in order (an attribute may
    name, as a dimension, only attributes before it), its derived dimensions, and rules
    ``rule(model) -> complaint or None`` run once every attribute has passed."""

    def __init__(
        self, *, dims: Mapping[str, Derived] | None = None, rules: tuple[Rule, ...] = (), **attributes: Spec
    ) -> None:
        for name, spec in attributes.items():
            if not isinstance(spec, Spec):
                raise TypeError(f"Fitted: {name}={spec!r} is not a Spec (Array, Int, Labels, ...)")
        self.attributes: dict[str, Spec] = dict(attributes)
        self.dims: dict[str, Derived] = dict(dims or {})
        self.rules: tuple[Rule, ...] = tuple(rules)

    def extend(
        self, *, dims: Mapping[str, Derived] | None = None, rules: tuple[Rule, ...] = (), **attributes: Spec
    ) -> Fitted:
        """This description with more (or redescribed) attributes, dimensions and rules."""
        return Fitted(
            dims={**self.dims, **(dims or {})}, rules=(*self.rules, *rules), **{**self.attributes, **attributes}
        )

    @property
    def required(self) -> tuple[str, ...]:
        """The attributes a fitted model must have (the class's ``_fitted_attributes``)."""
        return tuple(name for name, spec in self.attributes.items() if not spec.optional)

    def __repr__(self) -> str:
        return f"Fitted({', '.join(self.attributes)})"


def schema_of(cls: type) -> Fitted | None:
    """The class's ``_fitted_schema`` (a declaration, read as data; None for a class without one)."""
    schema = getattr(cls, "_fitted_schema", None)
    return schema if isinstance(schema, Fitted) else None


_GENERIC = _Context(None, Fitted(), True)


def check_fitted(
    model: Any, *, values: bool = True, error: type[RatkitError] = ModelFormatError, advice: str = ""
) -> None:
    """Raise ``error`` naming the first fitted attribute of ``model`` that does not match its
    class's description (what it holds and what was expected), or the rule it breaks.

    Attributes the description does not cover (every one, for a class without a description)
    are checked generically (:func:`_plain`). ``values=False`` is the cheap check, run before
    every use: types, dtypes and shapes, no pass over the values (finiteness, bounds,
    uniqueness), no rule and no generic check. ``advice`` ends the message.
    """
    schema = schema_of(type(model)) or Fitted()
    ctx = _Context(model, schema, values)
    owner = type(model).__name__
    tail = f". {advice}" if advice else ""
    try:
        for name in schema.attributes:
            ctx.check(name)
    except _Failure as failure:
        raise error(f"{owner}'s fitted {failure.name} {failure.complaint}; expected {failure.expected}{tail}") from None
    if values:
        for name, value in vars(model).items():
            if name in schema.attributes or not name.endswith("_") or name.startswith("_"):
                continue
            try:
                _plain(value, ctx)
            except _Invalid as exc:
                raise error(
                    f"{owner}'s fitted {name} {exc}; expected arrays of numbers, booleans or strings (or of JSON "
                    f"scalars) and well-formed sparse matrices{tail}"
                ) from None
    for rule in schema.rules if values else ():
        try:
            complaint = rule(model)
        except _ERRORS as exc:
            complaint = f"{getattr(rule, '__name__', 'a rule').strip('_<>')} cannot be checked ({exc})"
        if complaint:
            raise error(f"{owner}'s fitted state is inconsistent: {complaint}{tail}")


def _scalar(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``nan``, not ``np.float64(nan)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _describe(value: Any) -> str:
    """A value in a few words, for messages: ``the str '2'``, ``a complex128 array of shape (1, 2)``."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} array of shape {value.shape}"
    if sp.issparse(value):
        return f"a sparse {value.dtype} matrix of shape {value.shape}"
    if isinstance(value, (str, bool, int, float, np.generic)):
        return f"the {type(value).__name__} {_scalar(value)!r:.60}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__}"
