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

from typing import Any

from ratkit.exceptions import ModelFormatError, RatkitError
from ratkit.fitted._context import _ERRORS, Derived, Fitted, Spec, _Context, _Failure, _Invalid, schema_of
from ratkit.fitted._specs import (
    Array,
    Bool,
    Instance,
    Int,
    Json,
    Labels,
    Numbers,
    Real,
    Samples,
    Sequences,
    Sparse,
    Text,
    _plain,
)

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
