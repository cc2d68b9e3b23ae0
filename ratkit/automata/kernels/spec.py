"""Declarative kernel specs: build any kernel, and combinations, from a dict or a TOML/JSON file.

A spec is a mapping with a ``family`` key and that family's parameters::

    {"family": "ngram", "n": 3}
    {"family": "gappy", "n": 2, "decay": 0.5}
    {"family": "mismatch", "k": 5, "m": 1, "alphabet": "ACGT"}
    {"family": "subsequence"}
    {"family": "edit_distance", "semiring": "tropical", "insertion": 1, "deletion": 1,
     "substitution": 1, "match": 0}
    {"family": "count_based", "patterns": ["ab", "ba"], "weights": [1.0, 0.5]}
    {"family": "transducer", "path": "my.fst", "pds": true}      # or "att": "<AT&T text>"

and the combinators, whose ``kernel``/``kernels`` keys hold specs again::

    {"family": "cosine", "kernel": {...}}
    {"family": "sum", "kernels": [{...}, {...}], "weights": [1.0, 0.5]}
    {"family": "product", "kernels": [{...}, {...}]}
    {"family": "scale", "factor": 2.0, "kernel": {...}}
    {"family": "polynomial", "degree": 2, "coef0": 1.0, "scale": 1.0, "kernel": {...}}
    {"family": "exp", "t": 0.5, "kernel": {...}}
    {"family": "nds_to_pds", "x0": "", "kernel": {...}}

Kernels registered by third-party plugins (entry-point group ``ratkit.kernels``) are
families too: their other keys are passed as keyword arguments. Every error names the
offending key by its path in the spec (``spec.kernels[1].decay``) and what is accepted.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ratkit._json import plain
from ratkit.automata.kernels.algebra import (
    CenteredNDSKernel,
    CosineKernel,
    ExpKernel,
    PolynomialKernel,
    ProductKernel,
    ScaledKernel,
    SumKernel,
)
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.count_based import CountBasedKernel
from ratkit.automata.kernels.edit_distance import EditDistanceKernel
from ratkit.automata.kernels.gappy import GappyKernel
from ratkit.automata.kernels.mismatch import MismatchKernel
from ratkit.automata.kernels.ngram import NgramKernel
from ratkit.automata.kernels.subsequence import SubsequenceKernel
from ratkit.automata.kernels.user import TransducerKernel
from ratkit.exceptions import RatkitError

__all__ = ["SpecError", "from_spec", "to_spec", "load_spec", "FAMILIES"]


class SpecError(RatkitError, ValueError):
    """A kernel spec is malformed: unknown family or key, missing key, bad value."""


# family → (class, {key: required?}) for leaf kernels
_LEAVES: dict[str, tuple[type, dict[str, bool]]] = {
    "ngram": (NgramKernel, {"n": True}),
    "gappy": (GappyKernel, {"n": True, "decay": True}),
    "mismatch": (MismatchKernel, {"k": True, "m": True, "alphabet": False}),
    "subsequence": (SubsequenceKernel, {}),
    "edit_distance": (
        EditDistanceKernel,
        {"semiring": False, "match": False, "substitution": False, "insertion": False, "deletion": False},
    ),
    "count_based": (CountBasedKernel, {"patterns": True, "weights": False}),
}
_COMBINATORS = ("cosine", "sum", "product", "scale", "polynomial", "exp", "nds_to_pds")
FAMILIES: tuple[str, ...] = (*_LEAVES, "transducer", *_COMBINATORS)


def load_spec(source: str | os.PathLike | Mapping[str, Any]) -> dict[str, Any]:
    """A spec mapping from a dict, a JSON object string, or a TOML/JSON file path.

    A string whose first non-blank character is ``{`` is JSON text, never a file name (so a
    long spec is not mistaken for an over-long path); anything else names a file, read as
    TOML when its suffix is ``.toml`` and as JSON otherwise.
    """
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, str) and source.lstrip().startswith("{"):
        try:
            return json.loads(source)
        except json.JSONDecodeError as exc:
            raise SpecError(f"The kernel spec is not valid JSON: {exc}") from None
    if not isinstance(source, (str, os.PathLike)):
        raise SpecError(f"A kernel spec must be a mapping or a file path; got {type(source).__name__}.")
    path = Path(source)
    try:
        is_file, is_dir = path.is_file(), path.is_dir()
    except OSError:  # e.g. a name longer than the system allows: it names no file
        is_file = is_dir = False
    if is_dir:
        raise SpecError(f"Kernel spec {str(source)!r} is a folder; give a .toml/.json file or a JSON object string.")
    if not is_file:
        raise SpecError(
            f"Kernel spec {str(source)!r} is neither an existing .toml/.json file nor a JSON "
            'object string such as \'{"family": "ngram", "n": 3}\'.'
        )
    kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
    try:
        text = path.read_bytes().decode("utf-8-sig")  # a byte-order mark (Windows editors) is not content
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path}: not a UTF-8 text file ({exc}); a {kind} kernel spec is UTF-8 text.") from None
    except OSError as exc:
        raise SpecError(f"{path}: cannot read the kernel spec ({exc.strerror or exc}).") from None
    try:
        return tomllib.loads(text) if kind == "TOML" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise SpecError(f"{path}: not valid {kind}: {exc}") from None


def from_spec(spec: str | os.PathLike | Mapping[str, Any]) -> Kernel:
    """Build the kernel a spec describes (see the module docstring for the format)."""
    return _build(load_spec(spec), "spec")


def _keys(spec: Mapping[str, Any], where: str, family: str, allowed: dict[str, bool]) -> None:
    for key in spec:
        if key != "family" and key not in allowed:
            accepted = ", ".join(["family", *allowed]) if allowed else "family"
            raise SpecError(f"Unknown key {key!r} at {where} (a {family} kernel); accepted keys: {accepted}.")
    for key, required in allowed.items():
        if required and key not in spec:
            raise SpecError(f"Missing key {key!r} at {where} (a {family} kernel).")


def _call(where: str, make: Callable[[], Kernel]) -> Kernel:
    try:
        return make()
    except SpecError:
        raise
    except RatkitError as exc:
        raise type(exc)(f"{where}: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise SpecError(f"{where}: {exc}") from None


def _sub(spec: Mapping[str, Any], key: str, where: str) -> Kernel:
    value = spec[key]
    if not isinstance(value, Mapping):
        raise SpecError(
            f"{where}.{key} must be a kernel spec (a mapping with a 'family' key); got {type(value).__name__}."
        )
    return _build(value, f"{where}.{key}")


def _subs(spec: Mapping[str, Any], where: str) -> list[Kernel]:
    value = spec["kernels"]
    if not isinstance(value, list) or not value:
        raise SpecError(f"{where}.kernels must be a non-empty list of kernel specs.")
    return [
        _build(v, f"{where}.kernels[{i}]") if isinstance(v, Mapping) else _bad_item(v, f"{where}.kernels[{i}]")
        for i, v in enumerate(value)
    ]


def _bad_item(value: Any, where: str) -> Kernel:
    raise SpecError(f"{where} must be a kernel spec (a mapping with a 'family' key); got {type(value).__name__}.")


def _build(spec: Mapping[str, Any], where: str) -> Kernel:
    if not isinstance(spec, Mapping):
        raise SpecError(f"{where} must be a mapping with a 'family' key; got {type(spec).__name__}.")
    if "family" not in spec:
        raise SpecError(f"Missing key 'family' at {where}; accepted families: {', '.join(_all_families())}.")
    family = spec["family"]
    if family in _LEAVES:
        cls, allowed = _LEAVES[family]
        _keys(spec, where, family, allowed)
        params = {k: v for k, v in spec.items() if k != "family"}
        kernel = _call(where, lambda: cls(**params))
        _call(where, lambda: _validate(kernel))
        return kernel
    if family == "transducer":
        _keys(spec, where, family, {"path": False, "att": False, "pds": False, "semiring": False})
        if ("path" in spec) == ("att" in spec):
            raise SpecError(f"{where} (a transducer kernel) needs exactly one of the keys 'path' or 'att'.")
        source = spec["path"] if "path" in spec else spec["att"]
        if "att" in spec:
            from ratkit.automata.io import read_att

            return _call(
                where,
                lambda: TransducerKernel(
                    read_att(str(source), spec.get("semiring", "probability")), pds=spec.get("pds", True)
                ),
            )
        kernel = _call(
            where, lambda: TransducerKernel(source, pds=spec.get("pds", True), semiring=spec.get("semiring"))
        )
        _call(f"{where}.path ({source})", kernel.user_transducer)
        return kernel
    if family == "cosine":
        _keys(spec, where, family, {"kernel": True})
        return CosineKernel(_sub(spec, "kernel", where))
    if family == "sum":
        _keys(spec, where, family, {"kernels": True, "weights": False})
        k = SumKernel(_subs(spec, where), spec.get("weights"))
        _call(where, k._parts)
        return k
    if family == "product":
        _keys(spec, where, family, {"kernels": True})
        return ProductKernel(_subs(spec, where))
    if family == "scale":
        _keys(spec, where, family, {"kernel": True, "factor": True})
        k = ScaledKernel(_sub(spec, "kernel", where), spec["factor"])
        _call(where, k._c)
        return k
    if family == "polynomial":
        _keys(spec, where, family, {"kernel": True, "degree": False, "coef0": False, "scale": False})
        k = PolynomialKernel(
            _sub(spec, "kernel", where), spec.get("degree", 2), spec.get("coef0", 1.0), spec.get("scale", 1.0)
        )
        _call(where, k._check)
        return k
    if family == "exp":
        _keys(spec, where, family, {"kernel": True, "t": False})
        k = ExpKernel(_sub(spec, "kernel", where), spec.get("t", 1.0))
        _call(where, k._t)
        return k
    if family == "nds_to_pds":
        _keys(spec, where, family, {"kernel": True, "x0": False})
        return CenteredNDSKernel(_sub(spec, "kernel", where), spec.get("x0", ""))
    return _plugin(family, spec, where)


def _validate(kernel: Kernel) -> None:
    for name in ("_validate", "costs", "weight_array"):
        check = getattr(kernel, name, None)
        if check is not None:
            check()


def _all_families() -> list[str]:
    from ratkit.plugins import available

    return sorted(set(FAMILIES) | set(available("kernel")))


def _plugin(family: Any, spec: Mapping[str, Any], where: str) -> Kernel:
    from ratkit.exceptions import UnknownPluginError
    from ratkit.plugins import get

    if isinstance(family, str):
        try:
            factory = get("kernel", family)
        except UnknownPluginError:
            factory = None
        if factory is not None:
            params = {k: v for k, v in spec.items() if k != "family"}
            return _call(where, lambda: factory(**params))
    raise SpecError(
        f"Unknown kernel family {family!r} at {where}.family; accepted families: {', '.join(_all_families())}."
    )


def _spec_value(value: Any, family: str, key: str) -> Any:
    """A parameter as plain JSON (numpy scalars of a parameter grid become numbers)."""
    try:
        return plain(value, f"the {key!r} parameter of {family}")
    except TypeError as exc:
        raise SpecError(f"{exc} A spec holds JSON values only.") from None


def to_spec(kernel: Kernel, *, inline: bool = False) -> dict[str, Any]:
    """The spec of a kernel built from ratkit's families and combinators (inverse of from_spec).

    A transducer kernel read from a file is written as its ``path``, or with
    ``inline=True`` as its AT&T text (``att``), so that the spec no longer depends on the file.
    What a kernel learned from data (:meth:`Kernel.learned_params`, e.g. an inferred
    alphabet) is written as the parameters that reproduce it. Values are plain JSON types.
    """
    for family, (cls, allowed) in _LEAVES.items():
        if type(kernel) is cls:
            params = {**kernel.get_params(), **kernel.learned_params()}
            out = {"family": family}
            for key in allowed:
                value = params.get(key)
                if value is not None:
                    out[key] = _spec_value(value, family, key)
            if family == "count_based":
                out["patterns"] = [
                    "".join(p) if all(len(s) == 1 for s in p) else list(p) for p in kernel.pattern_tuples()
                ]
                if kernel.weights is not None:
                    out["weights"] = [float(w) for w in kernel.weight_array()]
            return out
    if isinstance(kernel, TransducerKernel):
        if kernel.psi is not None:
            raise SpecError("A kernel with a custom Python psi cannot be written as a spec.")
        src = kernel.transducer_source
        out = {"family": "transducer", "pds": bool(kernel.pds)}
        if isinstance(src, (str, os.PathLike)) and not inline:
            out["path"] = str(src)
        else:
            out["att"] = kernel.att()
        out["semiring"] = kernel.semiring.name
        return out
    if isinstance(kernel, CosineKernel):
        return {"family": "cosine", "kernel": to_spec(kernel.kernel, inline=inline)}
    if isinstance(kernel, SumKernel):
        out = {"family": "sum", "kernels": [to_spec(k, inline=inline) for k in kernel.kernels]}
        if kernel.weights is not None:
            out["weights"] = [float(w) for w in kernel.weights]
        return out
    if isinstance(kernel, ProductKernel):
        return {"family": "product", "kernels": [to_spec(k, inline=inline) for k in kernel.kernels]}
    if isinstance(kernel, ScaledKernel):
        return {"family": "scale", "factor": float(kernel.factor), "kernel": to_spec(kernel.kernel, inline=inline)}
    if isinstance(kernel, PolynomialKernel):
        return {
            "family": "polynomial",
            "degree": int(kernel.degree),
            "coef0": float(kernel.coef0),
            "scale": float(kernel.scale),
            "kernel": to_spec(kernel.kernel, inline=inline),
        }
    if isinstance(kernel, ExpKernel):
        return {"family": "exp", "t": float(kernel.t), "kernel": to_spec(kernel.kernel, inline=inline)}
    if isinstance(kernel, CenteredNDSKernel):
        return {"family": "nds_to_pds", "x0": kernel.x0, "kernel": to_spec(kernel.kernel, inline=inline)}
    raise SpecError(f"{type(kernel).__name__} has no spec form; only ratkit's kernel families and combinators do.")
