"""Checking a kernel spec's values against the annotations of the family they go to.

Before a family is called, each spec value is compared with the JSON kind its ``__init__``
annotation asks for (a number, a string, a list of numbers, one of some strings, ...), and a
single kernel spec where the family takes a list of them is refused; the errors name the
value by its path in the spec (``spec.kernels[1].decay``), which a family's own conversion
could not. Ranges and choices stay the family's to check.
"""

from __future__ import annotations

import collections.abc
import numbers
import types
import typing
from collections.abc import Mapping
from typing import Any

import numpy as np

from ratkit.automata.kernels.base import Kernel
from ratkit.exceptions import SpecTypeError


def _takes_kernel_list(hint: Any) -> bool:
    """Whether an annotation is a list or sequence of kernels (``Sequence[Kernel]``)."""
    origin = typing.get_origin(hint)
    if origin in (list, tuple, collections.abc.Sequence):
        return any(isinstance(a, type) and issubclass(a, Kernel) for a in typing.get_args(hint))
    return any(_takes_kernel_list(a) for a in typing.get_args(hint)) if origin is not None else False


def _check_shapes(spec: Mapping[str, Any], where: str, name: str, cls: type[Kernel]) -> None:
    """Refuse one kernel spec (a mapping) where the family takes a list of kernels, before the
    spec inside is built (whose own errors would hide that the list is missing)."""
    hints = _hints(cls)
    for key, value in spec.items():
        if isinstance(value, Mapping) and _takes_kernel_list(hints.get(key)):
            raise SpecTypeError(
                f"{where}.{key} must be a list of kernel specs (a {name} kernel combines several); got one "
                f"mapping. Write [{{...}}, {{...}}], or [{{...}}] for a single kernel."
            )


class _Mismatch(Exception):
    """A spec value whose kind (number, string, list, ...) is not the one its annotation
    asks for: ``path`` names it (``spec.weights[0]``), ``expected`` says what belongs there."""

    def __init__(self, path: str, expected: str, value: Any) -> None:
        super().__init__(path)
        self.path, self.expected, self.value = path, expected, value


#: Values :func:`_check_kind` judges: JSON's kinds (and numpy's numbers and arrays, which
#: Python callers pass). Any other object (a callable, a semiring) is the family's to judge.
_JSON_KINDS = (type(None), bool, np.bool_, numbers.Number, str, list, tuple, np.ndarray, Mapping)


_SEQUENCES = (list, tuple, collections.abc.Sequence)


_UNIONS = (typing.Union, types.UnionType)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _describe(hint: Any) -> str | None:
    """What an annotation asks for, in JSON's words; None when it is not checked here (Any,
    kernels, callables, classes of the family's own)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is type(None):
        return "null"
    if hint is bool:
        return "true or false"
    if hint is int:
        return "a number (an int)"
    if hint is float:
        return "a number (a float)"
    if hint is str:
        return "a string"
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in args)
    if origin in _SEQUENCES:
        if not args or args[0] is Any:
            return "a list"
        item = _describe(args[0])
        return f"a list of {_plural(item)}" if item else None
    if origin in _UNIONS:
        parts = [_describe(a) for a in args]
        described = [p for p in parts if p is not None]
        return None if len(described) < len(parts) else ", or ".join(described)
    return None


def _plural(what: str | None) -> str:
    """'a number (a float)' → 'numbers (floats)', for a list's items."""
    table = {
        "a number (a float)": "numbers (floats)",
        "a number (an int)": "numbers (ints)",
        "a string": "strings",
        "true or false": "true/false values",
    }
    return table.get(what or "", f"items that are {what}")


def _check_kind(value: Any, hint: Any, path: str) -> None:
    """Raise _Mismatch unless ``value`` has the JSON kind ``hint`` asks for (numbers for
    int and float, strings for str and Literal, lists for sequences, item by item). Ranges
    and choices are left to the family, whose messages name them; so are values of kinds
    that JSON has not (a callable start vector) and annotations not described here."""
    expected = _describe(hint)
    if expected is None or not isinstance(value, _JSON_KINDS):
        return
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in _UNIONS:
        deepest: _Mismatch | None = None
        for member in args:
            try:
                _check_kind(value, member, path)
                return
            except _Mismatch as exc:
                if exc.path != path and (deepest is None or len(exc.path) > len(deepest.path)):
                    deepest = exc  # a list of the right kind with a bad item: name the item
        raise deepest or _Mismatch(path, expected, value)
    if hint is type(None):
        ok = value is None
    elif hint is bool:
        ok = isinstance(value, (bool, np.bool_))
    elif hint in (int, float):
        ok = _is_number(value)
    elif hint is str:
        ok = isinstance(value, str)
    elif origin is typing.Literal:
        ok = any(type(value) is type(a) for a in args)
    else:  # a sequence: a list (a tuple or 1-d array from Python), then item by item
        items: list[Any] | tuple[Any, ...] | None = None
        if isinstance(value, (list, tuple)):
            items = value
        elif isinstance(value, np.ndarray) and value.ndim == 1:
            items = value.tolist()
        ok = items is not None
        if items is not None and args and args[0] is not Any:
            for i, item in enumerate(items):
                _check_kind(item, args[0], f"{path}[{i}]")
    if not ok:
        raise _Mismatch(path, expected, value)


def _check_kinds(spec: Mapping[str, Any], where: str, name: str, obj: Any) -> None:
    """Refuse a spec value of the wrong JSON kind (a string where a number belongs, a number
    where a list belongs) before the family sees it, naming it by its path: a family's own
    conversion (``float('a')``) would report the value without saying which key holds it."""
    hints = _hints(obj)
    for key, value in spec.items():
        hint = hints.get(key)
        if key == "family" or hint is None or _takes_kernels(hint, ""):
            continue
        try:
            _check_kind(value, hint, f"{where}.{key}")
        except _Mismatch as exc:
            got = "null" if exc.value is None else f"{type(exc.value).__name__} {exc.value!r:.60}"
            hint_text = ""
            if isinstance(exc.value, str) and exc.path == f"{where}.{key}" and exc.expected.startswith("a list"):
                hint_text = f" Write [{exc.value!r:.40}] for a list of that one value."
            inside = "" if exc.path == f"{where}.{key}" else f" ({where}.{key} of a {name} kernel is {_describe(hint)})"
            raise SpecTypeError(f"{exc.path} must be {exc.expected}; got {got}{inside}.{hint_text}") from None


def _hints(obj: Any) -> dict[str, Any]:
    """The resolved annotations of a family's ``__init__`` (or function); {} when they do not resolve."""
    try:
        init = typing.cast(Any, obj).__init__ if isinstance(obj, type) else obj  # a class: its __init__
        return typing.get_type_hints(init)
    except Exception:  # an annotation naming something its module does not define: show the text only
        return {}


def _takes_kernels(hint: Any, text: str) -> bool:
    """Whether an annotation admits a Kernel or a sequence of them."""
    if isinstance(hint, type) and issubclass(hint, Kernel):
        return True
    args = typing.get_args(hint)
    if args:
        return any(_takes_kernels(a, "") for a in args)
    return bool(text) and "Kernel" in text.replace("Kernels", "Kernel")
