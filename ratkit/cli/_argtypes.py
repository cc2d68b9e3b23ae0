"""argparse value types shared by the ``ratkit`` commands: bad values fail as usage errors.

Light to import (the library is imported inside the types that need it), since every
parser is built from these at start-up.

Each type runs while the command line is parsed, before any work, so a bad number or an
unwritable output path ends at once with ``ratkit <command>: error: argument …`` and
exit status 2 — never after a long training run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = [
    "parse_params",
    "positive",
    "fraction",
    "open_fraction",
    "non_negative_int",
    "n_jobs",
    "finite_float",
    "output_file",
    "key_value",
]


def _number(kind: type, text: str) -> float | None:
    try:
        value = kind(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def positive(kind: type) -> Callable[[str], float]:
    """An argparse type: ``kind(text)`` (int or float), finite and > 0."""

    def parse(text: str) -> float:
        value = _number(kind, text)
        if value is None or not value > 0:
            article = "an int" if kind is int else "a float"
            raise argparse.ArgumentTypeError(f"expected {article} > 0, got {text!r}")
        return value

    return parse


def non_negative_int(text: str) -> int:
    """An argparse type: an int ≥ 0 (seeds, counts that may be zero)."""
    value = _number(int, text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"expected an int ≥ 0, got {text!r}")
    return int(value)


def n_jobs(text: str) -> int:
    """An argparse type: a number of processes, joblib's way (k ≥ 1, or −1 for one per core,
    −2 for all but one, …); 0 is refused."""
    value = _number(int, text)
    if value is None or value == 0:
        raise argparse.ArgumentTypeError(
            f"expected a number of processes (an int ≥ 1, or -1 for all cores), got {text!r}"
        )
    return int(value)


def finite_float(text: str) -> float:
    """An argparse type: a finite float (NaN and ±inf refused)."""
    value = _number(float, text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def fraction(text: str) -> float:
    """An argparse type: a float in [0, 1)."""
    value = _number(float, text)
    if value is None or not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1), got {text!r}")
    return value


def open_fraction(text: str) -> float:
    """An argparse type: a float in (0, 1) (a held-out share that leaves both parts non-empty)."""
    value = _number(float, text)
    if value is None or not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1), got {text!r}")
    return value


def output_file(text: str) -> str:
    """An argparse type: a path a file can be written to (not a folder; its folder exists)."""
    from ratkit._files import check_output_path
    from ratkit.exceptions import OutputPathError

    try:
        check_output_path(text)
    except OutputPathError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def utf8_text(value: str) -> str:
    """An argparse type: an argument that is text (a sequence, symbols, an inline JSON spec),
    not a path. Text is UTF-8 whatever the locale: where Python decoded the command line with
    another encoding (a C locale with ``PYTHONUTF8=0``), the bytes it could not decode arrive
    as surrogate escapes ("é" as two symbols '\\udcc3\\udca9'), and are read as UTF-8 here,
    as ratkit reads files. Paths are left as they are: the file system takes them in its own
    encoding."""
    if not any("\udc80" <= c <= "\udcff" for c in value):
        return value
    try:
        return os.fsencode(value).decode("utf-8")
    except UnicodeError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not UTF-8 text; give the argument in UTF-8 (or set PYTHONUTF8=1)"
        ) from None


def spec_or_path(value: str) -> str:
    """An argparse type: a kernel spec given inline (JSON, read as :func:`utf8_text`) or a file path."""
    return utf8_text(value) if value.lstrip().startswith("{") else value


def key_value(text: str) -> tuple[str, Any]:
    """An argparse type: ``KEY=VALUE`` with a JSON value (a bare word is a string):
    ``loss=hinge`` → ("loss", "hinge"), ``n_factors=16`` → ("n_factors", 16)."""
    key, sep, raw = utf8_text(text).partition("=")
    if not sep or not key.strip() or not key.strip().isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a parameter name, got {text!r}")
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except json.JSONDecodeError:
        value = raw
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    if isinstance(value, (dict, list)):  # json.loads keeps the last of a duplicated key silently
        from ratkit._json import loads_strict
        from ratkit.exceptions import DataFormatError

        try:
            loads_strict(raw, f"--param {key.strip()}")
        except DataFormatError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return key.strip(), value


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid parameter value")


def parse_params(pairs: list[str | tuple[str, Any]], model_cls: type | None = None) -> dict[str, Any]:
    """``["loss=hinge", "n_factors=16"]`` → ``{"loss": "hinge", "n_factors": 16}`` (JSON values).

    With ``model_cls``, every key must be one of its constructor parameters; a key given
    twice is refused too (a :class:`~ratkit.exceptions.ParameterError` names the key and
    lists the valid ones).
    """
    from ratkit.exceptions import ParameterError

    params: dict[str, Any] = {}
    for pair in pairs:
        if isinstance(pair, str):
            try:
                pair = key_value(pair)
            except argparse.ArgumentTypeError as exc:
                raise ParameterError(f"--param {exc}") from None
        key, value = pair
        if key in params:
            raise ParameterError(f"--param {key} is given twice; give each parameter once.")
        params[key] = value
    if model_cls is not None:
        valid = _param_names(model_cls)
        unknown = [key for key in params if key not in valid]
        if unknown:
            choices = f"its parameters are {', '.join(valid)}" if valid else "it takes no parameters"
            raise ParameterError(
                f"--param {unknown[0]}: {model_cls.__name__} has no parameter {unknown[0]!r}; {choices}."
            )
    return params


def _param_names(model_cls: type[BaseEstimator]) -> list[str]:
    """The constructor parameters of an estimator class (what ``get_params`` returns), sorted."""
    return list(model_cls._get_param_names())
