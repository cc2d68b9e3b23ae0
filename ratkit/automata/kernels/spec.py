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

import collections.abc
import inspect
import json
import numbers
import os
import re
import tomllib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ratkit._json import loads_strict, plain
from ratkit.automata.kernels.base import Kernel, _init_parameters
from ratkit.exceptions import (
    MissingDataError,
    ParameterError,
    PathIsFolderError,
    RatkitError,
    SpecError,
    SpecTypeError,
    UnknownPluginError,
)

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

#: The deepest nesting of kernel specs :func:`from_spec` builds (``{"family": "cosine",
#: "kernel": {...}}`` inside one another); a deeper spec is refused with a SpecError
#: instead of exhausting Python's recursion limit. Real combinations nest a few levels.
MAX_SPEC_DEPTH = 64


def load_spec(source: str | os.PathLike | Mapping[str, Any]) -> dict[str, Any]:
    """A spec mapping from a dict, a JSON object string, or a TOML/JSON file path.

    A string whose first non-blank character is ``{`` (or ``[``) is JSON text, never a file
    name (so a long spec is not mistaken for an over-long path); anything else names a file,
    read as TOML when its suffix is ``.toml`` and as JSON otherwise.

    Raises SpecTypeError for a source of another type (or text holding no JSON object),
    SpecError for text that is not valid JSON/TOML or nests deeper than the parser allows,
    :class:`~ratkit.exceptions.MissingDataError` (a FileNotFoundError) for a file that does
    not exist (a name with a ``.toml``/``.json`` suffix or a folder part; other text that names
    no file is a SpecError) and :class:`~ratkit.exceptions.PathIsFolderError` for a folder.
    """
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        return _parse(source, "JSON", "The kernel spec", "The kernel spec is not valid JSON")
    if isinstance(source, (bytes, bytearray)):
        raise SpecTypeError(
            "A kernel spec must be a mapping, a JSON object string or a file path; got bytes. Decode them first "
            "(data.decode('utf-8'))."
        )
    if not isinstance(source, (str, os.PathLike)):
        raise SpecTypeError(
            f"A kernel spec must be a mapping, a JSON object string or a file path; got {type(source).__name__} "
            f"{source!r:.40}."
        )
    if not str(source).strip():
        raise SpecError(
            "The kernel spec is an empty string; give a mapping, a JSON object string such as "
            '\'{"family": "ngram", "n": 3}\' or the path of a .toml/.json file.'
        )
    path = Path(source)
    try:
        is_file, is_dir = path.is_file(), path.is_dir()
    except OSError:  # e.g. a name longer than the system allows: it names no file
        is_file = is_dir = False
    if is_dir:
        raise PathIsFolderError(
            f"Kernel spec {str(source)!r} is a folder; give a .toml/.json file or a JSON object string."
        )
    if not is_file:
        # a name that looks like a file (a .toml/.json suffix, a folder part, a PathLike) is a
        # missing file; other text is a malformed spec
        text = str(source)
        looks_like_a_file = (
            isinstance(source, os.PathLike)
            or path.suffix.lower() in (".toml", ".json")
            or os.sep in text
            or "/" in text
        )
        error = MissingDataError if looks_like_a_file else SpecError
        raise error(
            f"Kernel spec {text!r:.200} is neither an existing .toml/.json file nor a JSON "
            'object string such as \'{"family": "ngram", "n": 3}\'.'
        )
    kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
    try:
        text = path.read_bytes().decode("utf-8-sig")  # a byte-order mark (Windows editors) is not content
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path}: not a UTF-8 text file ({exc}); a {kind} kernel spec is UTF-8 text.") from None
    except OSError as exc:
        raise SpecError(f"{path}: cannot read the kernel spec ({exc.strerror or exc}).") from None
    return _parse(text, kind, str(path), f"{path}: not valid {kind}")


def _overwritten_key(text: str, message: str) -> str:
    """The clause ``: the key 'n' is given twice`` for tomllib's "Cannot overwrite a value (at
    line 3, column 6)", which names no key (the key read from that line); else ""."""
    found = re.match(r"Cannot overwrite a value \(at line (\d+),", message)
    lines = text.splitlines()
    if not found or not 0 < int(found[1]) <= len(lines):
        return ""
    key = lines[int(found[1]) - 1].partition("=")[0].strip()
    return f": the key {key!r} is given twice" if key else ""


def _parse(text: str, kind: str, name: str, invalid: str) -> dict[str, Any]:
    """The mapping of a JSON or TOML text; SpecError when it is not valid, nested too deep
    for the parser, or not an object."""
    try:
        value = tomllib.loads(text) if kind == "TOML" else loads_strict(text, name, error=SpecError)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{invalid}: {exc}{_overwritten_key(text, str(exc))}") from exc
    except json.JSONDecodeError as exc:
        raise SpecError(f"{invalid}: {exc}") from exc
    except RecursionError as exc:
        raise SpecError(
            f"{name} nests too deep for the {kind} parser; a kernel spec nests at most {MAX_SPEC_DEPTH} kernels."
        ) from exc
    if not isinstance(value, dict):
        raise SpecTypeError(
            f"{name} must be a {kind} object (a mapping with a 'family' key); got {type(value).__name__}."
        )
    return value


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


def _families() -> list[str]:
    from ratkit.plugins import available

    return available("kernel")


def _lookup(family: Any, where: str) -> tuple[str, Any]:
    """(registered name, registered object) of a spec's family; ``_`` reads as ``-``."""
    from ratkit.plugins import available, get

    if isinstance(family, str):
        # the registered name itself first (a family may be registered with a '_'), then the
        # '-' spelling of a former '_' name, then former names (aliases, which warn)
        registered = set(available("kernel"))
        hyphenated = family.replace("_", "-")
        name = family if family in registered else hyphenated if hyphenated in registered else family
        try:
            return name, get("kernel", name)
        except UnknownPluginError:
            pass
    if not isinstance(family, str):
        raise SpecTypeError(
            f"The kernel family at {where}.family must be a str, the name of a family; got {type(family).__name__} "
            f"{family!r:.60}. Accepted families: {', '.join(_families())}."
        )
    raise SpecError(f"Unknown kernel family {family!r} at {where}.family; accepted families: {', '.join(_families())}.")


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
        return None if any(p is None for p in parts) else ", or ".join(parts)
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
        ok = isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)
        if ok and args and args[0] is not Any:
            for i, item in enumerate(value.tolist() if isinstance(value, np.ndarray) else value):
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


def _build(spec: Mapping[str, Any], where: str, depth: int = 1, *, files: bool = True) -> Kernel:
    if not isinstance(spec, Mapping):
        raise SpecTypeError(f"{where} must be a mapping with a 'family' key; got {type(spec).__name__}.")
    if depth > MAX_SPEC_DEPTH:
        raise SpecError(
            f"{where}: the spec nests kernels more than {MAX_SPEC_DEPTH} deep (ratkit.automata.kernels.spec."
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
            raise SpecError(
                f"{where}.{key} names the file {spec[key]!r:.80}, which a {name} kernel built here may not read: "
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
            f"The kernel nests other kernels more than {MAX_SPEC_DEPTH} deep (ratkit.automata.kernels.spec."
            "MAX_SPEC_DEPTH): from_spec could not read its spec back."
        )
    name = family_name(kernel)
    out: dict[str, Any] = {"family": name}
    for key, value in kernel._spec_params(inline=inline).items():
        out[key] = _spec_value(value, f"the {key!r} parameter of {name}", inline, depth)
    return out


# -- the catalogue ------------------------------------------------------------------------
@dataclass(frozen=True)
class FamilyParameter:
    """One ``__init__`` parameter of a kernel family: its name, its annotation as written,
    its default (``inspect.Parameter.empty`` when a spec must give it), keyword-only or not,
    and whether it takes kernels (``kernel`` or ``kernels``: the family is a combinator)."""

    name: str
    annotation: str
    default: Any
    keyword_only: bool
    takes_kernels: bool

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


@dataclass(frozen=True)
class FamilyInfo:
    """A registered kernel family (what ``ratkit kernels list`` and ``show`` print): its spec
    name, the registered object, where it comes from, the first paragraph of its docstring
    (``summary``, which states K(x, y)), the whole docstring and its parameters."""

    name: str
    obj: Any
    distribution: str | None
    summary: str
    doc: str
    parameters: tuple[FamilyParameter, ...]

    @property
    def is_combinator(self) -> bool:
        """True when the family builds a kernel from other kernels (a parameter takes kernels)."""
        return any(p.takes_kernels for p in self.parameters)


def _annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return ""
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _hints(obj: Any) -> dict[str, Any]:
    """The resolved annotations of a family's ``__init__`` (or function); {} when they do not resolve."""
    try:
        return typing.get_type_hints(obj.__init__ if isinstance(obj, type) else obj)
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


def describe_family(name: str) -> FamilyInfo:
    """The :class:`FamilyInfo` of the kernel family registered as ``name`` (``_`` reads as ``-``).

    Raises SpecError naming the accepted families when there is no such family.
    """
    from ratkit.plugins import describe

    registered, obj = _lookup(name, "spec")
    info = describe("kernel", registered)
    if isinstance(obj, type):
        params = list(_init_parameters(obj).values())
    else:
        params = [
            p
            for p in inspect.signature(obj).parameters.values()
            if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        ]
    hints = _hints(obj)
    parameters = tuple(
        FamilyParameter(
            name=p.name,
            annotation=_annotation_text(p.annotation),
            default=p.default,
            keyword_only=p.kind is inspect.Parameter.KEYWORD_ONLY,
            takes_kernels=_takes_kernels(hints.get(p.name), _annotation_text(p.annotation)),
        )
        for p in params
    )
    doc = inspect.cleandoc(obj.__doc__) if isinstance(getattr(obj, "__doc__", None), str) else ""
    return FamilyInfo(registered, obj, info.distribution, info.summary, doc, parameters)


def describe_families() -> list[FamilyInfo]:
    """A :class:`FamilyInfo` for every registered kernel family and combinator, built-in and
    plugin, by name."""
    return [describe_family(name) for name in _families()]


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
