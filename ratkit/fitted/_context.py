"""The machinery of one check of a fitted state: the context (the model, its description, the
dimensions bound so far), what a failure says, the base :class:`Spec`, :class:`Derived`
dimensions and the :class:`Fitted` description of a class."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

__all__ = ["Dim", "Rule", "Spec", "Derived", "Fitted", "schema_of"]

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
        spec = self.schema.attributes.get(dim)
        if spec is not None and spec.names_a_dimension:
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


# -- what one attribute holds, the base -----------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """What one fitted attribute holds. ``optional``: ``fit`` may leave it unset (e.g. an
    attribute older files lack); ``nullable``: None is a value it may hold."""

    optional: bool = field(default=False, kw_only=True)
    nullable: bool = field(default=False, kw_only=True)
    #: Whether an attribute of this kind (an int) may name a dimension of the arrays.
    names_a_dimension: ClassVar[bool] = False

    def expected(self, ctx: _Context) -> str:
        """The value expected, in words (for messages)."""
        raise NotImplementedError

    def validate(self, value: Any, ctx: _Context, name: str) -> None:
        """Raise _Invalid (saying what ``value`` holds instead) unless it fits."""
        raise NotImplementedError

    def _or_none(self, text: str) -> str:
        return f"{text}, or None" if self.nullable else text


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
