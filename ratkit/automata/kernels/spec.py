"""Declarative kernel specs: build any kernel, and combinations, from a dict or a TOML/JSON file.

A spec is a mapping with a ``family`` key — the name the family is registered under in
the plugin registry (:func:`ratkit.plugins.register`, or an entry point of the group
``ratkit.kernels``) — and that family's parameters, its ``__init__`` arguments::

    {"family": "ngram", "n": 3}
    {"family": "gappy", "n": 2, "decay": 0.5}
    {"family": "mismatch", "k": 5, "m": 1, "alphabet": "ACGT"}
    {"family": "subsequence"}
    {"family": "edit-distance", "semiring": "tropical", "insertion": 1, "deletion": 1,
     "substitution": 1, "match": 0}
    {"family": "count-based", "patterns": ["ab", "ba"], "weights": [1.0, 0.5]}
    {"family": "transducer", "path": "my.fst", "pds": true}      # or "att": "<AT&T text>"

A parameter whose value is a mapping with a ``family`` key, or a list of such, is a
kernel again; so the combinators are families like the others::

    {"family": "cosine", "kernel": {...}}
    {"family": "sum", "kernels": [{...}, {...}], "weights": [1.0, 0.5]}
    {"family": "product", "kernels": [{...}, {...}]}
    {"family": "scale", "factor": 2.0, "kernel": {...}}
    {"family": "polynomial", "degree": 2, "coef0": 1.0, "scale": 1.0, "kernel": {...}}
    {"family": "exp", "t": 0.5, "kernel": {...}}
    {"family": "nds-to-pds", "x0": "", "kernel": {...}}

Family names are written with hyphens; the underscore spellings of earlier versions
(``edit_distance``, ``count_based``, ``nds_to_pds``) are read too. Third-party families
need no code here: :func:`from_spec` calls the registered class with the spec's other keys
(:meth:`~ratkit.automata.kernels.Kernel._from_spec_params`) and :func:`to_spec` writes its
``get_params`` (:meth:`~ratkit.automata.kernels.Kernel._spec_params`). Every error names
the offending key by its path in the spec (``spec.kernels[1].decay``) and what is accepted.
"""

from __future__ import annotations

import os
import typing
from collections.abc import Callable, Mapping
from typing import Any

from ratkit._json import plain
from ratkit.automata.kernels._spec_catalogue import (
    FamilyInfo,
    FamilyParameter,
    _families,
    _lookup,
    describe_families,
    describe_family,
)
from ratkit.automata.kernels._spec_kinds import _check_kinds, _check_shapes, _hints
from ratkit.automata.kernels._spec_load import load_spec
from ratkit.automata.kernels.base import Kernel
from ratkit.exceptions import ParameterError, RatkitError, SpecError, SpecTypeError
from ratkit.limits import MAX_SPEC_DEPTH

__all__ = [
    "SpecError",
    "SpecTypeError",
    "MAX_SPEC_DEPTH",
    "from_spec",
    "to_spec",
    "load_spec",
    "family_name",
    "FamilyParameter",
    "FamilyInfo",
    "describe_family",
    "describe_families",
    "spec_example",
]


def from_spec(spec: str | os.PathLike | Mapping[str, Any], *, files: bool = True) -> Kernel:
    """Build the kernel a spec describes (see the module docstring for the format).

    ``files=False`` builds a kernel that reads no file: ``spec`` must then be a mapping (not
    a file name), and a spec naming a file anywhere inside (a key of a family's
    ``_spec_file_keys``, such as a transducer's ``path``) or a family registered as a
    function (which cannot declare such keys) raises SpecError. A model file is
    read so: it never reaches outside itself (a transducer is kept in it as AT&T text).
    """
    if not files and not isinstance(spec, Mapping):
        raise SpecTypeError(
            f"The kernel spec must be a mapping here, where no file may be read; got {type(spec).__name__} "
            f"{spec!r:.60}."
        )
    return _build(load_spec(spec), "spec", 1, files=files)


def _keys(spec: Mapping[str, Any], where: str, name: str, cls: type[Kernel]) -> None:
    allowed = cls._spec_keys()
    if allowed is not None:
        for key in spec:
            if key != "family" and key not in allowed:
                accepted = ", ".join(["family", *allowed])
                raise SpecError(f"Unknown key {key!r} at {where} (a {name} kernel); accepted keys: {accepted}.")
    for key in cls._spec_required_keys():
        if key not in spec:
            raise SpecError(f"Missing key {key!r} at {where} (a {name} kernel).")


def _call(where: str, make: Callable[[], Any]) -> Any:
    """``make()``, its errors prefixed by where in the spec they arose: a bad value (a
    ParameterError, or a plain ValueError, LookupError or ArithmeticError) becomes a
    SpecError, a value of the wrong type (a TypeError) a SpecTypeError; ratkit's other errors
    (a missing or unregulated transducer file, say) keep their type."""
    try:
        return make()
    except (SpecError, ParameterError) as exc:
        error = SpecTypeError if isinstance(exc, TypeError) else SpecError
        raise error(f"{where}: {exc}") from exc
    except RatkitError as exc:
        try:
            again = type(exc)(f"{where}: {exc}")
        except Exception:  # an error class that takes other arguments: keep it as it is
            raise exc from None
        raise again from exc
    except TypeError as exc:
        raise SpecTypeError(f"{where}: {exc}") from exc
    except (ValueError, LookupError, ArithmeticError) as exc:
        raise SpecError(f"{where}: {exc}") from exc
    except RecursionError as exc:
        raise SpecError(f"{where}: the kernel nests too deep to build ({exc}).") from exc


def _is_spec(value: Any) -> bool:
    return isinstance(value, Mapping) and "family" in value


def _value(value: Any, where: str, depth: int, files: bool) -> Any:
    """A spec value as a parameter: a kernel spec (a mapping with 'family') built, a list
    holding one built item by item (each must then be a kernel spec), anything else as is."""
    if _is_spec(value):
        return _build(value, where, depth + 1, files=files)
    if isinstance(value, list) and any(_is_spec(v) for v in value):
        return [
            _build(v, f"{where}[{i}]", depth + 1, files=files) if _is_spec(v) else _bad_item(v, f"{where}[{i}]")
            for i, v in enumerate(value)
        ]
    return value


def _bad_item(value: Any, where: str) -> Kernel:
    raise SpecTypeError(
        f"{where} must be a kernel spec (a mapping with a 'family' key); got {type(value).__name__} {value!r:.40}."
    )


def _build(spec: Mapping[str, Any], where: str, depth: int = 1, *, files: bool = True) -> Kernel:
    if not isinstance(spec, Mapping):
        raise SpecTypeError(f"{where} must be a mapping with a 'family' key; got {type(spec).__name__}.")
    if depth > MAX_SPEC_DEPTH:
        raise SpecError(
            f"{where}: the spec nests kernels more than {MAX_SPEC_DEPTH} deep (ratkit.limits."
            "MAX_SPEC_DEPTH); flatten it (a sum takes a list of kernels)."
        )
    if "family" not in spec:
        raise SpecError(f"Missing key 'family' at {where}; accepted families: {', '.join(_families())}.")
    name, family = _lookup(spec["family"], where)
    is_class = isinstance(family, type) and issubclass(family, Kernel)
    if is_class:
        _keys(spec, where, name, family)
        _check_shapes(spec, where, name, family)
        if not files:
            _refuse_files(spec, where, name, family)
    _check_kinds(spec, where, name, family)
    if not is_class and not files:  # a function declares no _spec_file_keys: it might read any of its arguments
        raise SpecError(
            f"{where}.family: {name!r} is registered as a function, which a kernel spec may name only where files "
            "may be read (a function cannot declare which of its keys name files). A model file names kernel "
            "classes only; the file was edited or tampered with."
        )
    params = {key: _value(value, f"{where}.{key}", depth, files) for key, value in spec.items() if key != "family"}
    if not is_class:  # a registered factory function: its keywords as given
        return _call(where, lambda: family(**params))
    kernel = _call(where, lambda: family._from_spec_params(params))
    _call(where, kernel._validate_params)
    _call(where, kernel._validate_options)
    return kernel


def _refuse_files(spec: Mapping[str, Any], where: str, name: str, cls: type[Kernel]) -> None:
    """Refuse a spec key naming a file (the family's ``_spec_file_keys``) where no file may be read."""
    for key in cls._spec_file_keys:
        if key in spec:
            shown = repr(spec[key])  # a path whole (a cut one reads as another file); a huge value cut, marked
            shown = shown if len(shown) <= 1000 else f"{shown[:1000]}… ({len(shown)} characters)"
            raise SpecError(
                f"{where}.{key} names the file {shown}, which a {name} kernel built here may not read: "
                "a kernel spec inside a model file never reaches outside the file (a transducer is saved in it "
                "as AT&T text, the key 'att'). The file was edited or tampered with; save the model again."
            )


def family_name(kernel: Kernel) -> str:
    """The name the class of ``kernel`` is registered under (its spec family).

    Raises SpecError when the class is not registered: a spec could not be read back.
    """
    from ratkit.plugins import get

    cls = type(kernel)
    for name in _families():
        if get("kernel", name) is cls:
            return name
    raise SpecError(
        f"{cls.__name__} has no spec form: it is not registered as a kernel family. Register the class with "
        "@ratkit.plugins.register('kernel', NAME) or an entry point of the group 'ratkit.kernels'."
    )


def _spec_value(value: Any, where: str, inline: bool, depth: int) -> Any:
    """A parameter as plain JSON: kernels (alone or in a list) as specs, numpy scalars of a
    parameter grid as numbers."""
    if isinstance(value, Kernel):
        return _to_spec(value, inline, depth + 1)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Kernel) for v in value):
        return [_to_spec(v, inline, depth + 1) for v in value]
    try:
        return plain(value, where)
    except TypeError as exc:
        raise SpecError(f"{exc} A spec holds JSON values only.") from None


def to_spec(kernel: Kernel, *, inline: bool = False) -> dict[str, Any]:
    """The spec of a kernel of any registered family (inverse of :func:`from_spec`).

    ``{"family": its registered name, **its parameters}``, kernel-valued parameters written
    as specs in turn. A transducer kernel read from a file is written as its ``path``, or
    with ``inline=True`` as its AT&T text (``att``), so that the spec no longer depends on
    the file. What a kernel learned from data (:meth:`Kernel.learned_params`, e.g. an
    inferred alphabet) is written as the parameters that reproduce it. Values are plain
    JSON types.
    """
    if not isinstance(kernel, Kernel):
        raise SpecTypeError(f"to_spec writes ratkit kernels; got {type(kernel).__name__} {kernel!r:.40}.")
    return _to_spec(kernel, inline, 1)


def _to_spec(kernel: Kernel, inline: bool, depth: int) -> dict[str, Any]:
    if depth > MAX_SPEC_DEPTH:
        raise SpecError(
            f"The kernel nests other kernels more than {MAX_SPEC_DEPTH} deep (ratkit.limits."
            "MAX_SPEC_DEPTH): from_spec could not read its spec back."
        )
    name = family_name(kernel)
    out: dict[str, Any] = {"family": name}
    for key, value in kernel._spec_params(inline=inline).items():
        out[key] = _spec_value(value, f"the {key!r} parameter of {name}", inline, depth)
    return out


#: The kernel a spec example puts inside a combinator.
_EXAMPLE_PART: dict[str, Any] = {"family": "ngram", "n": 2}
#: Examples of the built-in families :func:`spec_example` cannot derive: the patterns of a
#: count-based kernel; a transducer given as AT&T text (its spec keys are not its
#: ``__init__`` parameters), here the unigram counter T over {a, b}, whose T ∘ T⁻¹ counts
#: shared symbols.
_EXAMPLES: dict[str, dict[str, Any]] = {
    "count-based": {"family": "count-based", "patterns": ["ab", "ba"], "weights": [1.0, 0.5]},
    "transducer": {
        "family": "transducer",
        "att": "0 0 a <eps> 1\n0 0 b <eps> 1\n0 1 a a 1\n0 1 b b 1\n1 1 a <eps> 1\n1 1 b <eps> 1\n1 1\n",
        "semiring": "probability",
    },
}


def _placeholder(hint: Any, text: str) -> Any:
    """A value of a required parameter's type for an example: the first choice of a Literal,
    0.5 for a float, 2 for an int, True for a bool, "a" for a string."""
    if typing.get_origin(hint) is typing.Literal:
        return typing.get_args(hint)[0]
    for kind, value in ((bool, True), (float, 0.5), (int, 2), (str, "a")):
        if hint is kind or text == kind.__name__:
            return value
    raise SpecError(f"No example value for a parameter annotated {text or hint!r}.")


def spec_example(name: str) -> dict[str, Any]:
    """A spec of family ``name`` that :func:`from_spec` accepts, as :func:`to_spec` writes it.

    The family's own parameters at their defaults; a parameter taking kernels gets
    ``{"family": "ngram", "n": 2}`` (two of them for a list); a parameter without default a
    value of its type (the first choice of a ``Literal``). Raises SpecError when no example can be
    derived (a required parameter of another type).
    """
    family = describe_family(name)
    if family.name in _EXAMPLES:
        spec = dict(_EXAMPLES[family.name])
    else:
        hints = _hints(family.obj)
        obj = family.obj
        required = set(obj._spec_required_keys()) if isinstance(obj, type) and issubclass(obj, Kernel) else set()
        spec = {"family": family.name}
        for p in family.parameters:
            if p.takes_kernels:
                many = p.name.endswith("s") or "Sequence" in p.annotation or "list" in p.annotation
                spec[p.name] = [dict(_EXAMPLE_PART), {"family": "ngram", "n": 1}] if many else dict(_EXAMPLE_PART)
            elif p.required:
                spec[p.name] = _placeholder(hints.get(p.name), p.annotation)
            elif p.name in required:  # a spec must state it: its default, stated
                spec[p.name] = p.default
    return to_spec(from_spec(spec), inline=True)


def __getattr__(name: str) -> Any:
    if name == "FAMILIES":  # the registered family names, read from the plugin registry
        return tuple(_families())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
