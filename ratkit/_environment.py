"""The ``RATKIT_*`` environment variables, each read strictly by :func:`environment_value`.

One reader for every variable, so that each is parsed the same way and a bad value is
refused by name (the variable, its value and what it accepts) instead of being read as
something else: ``RATKIT_TRACEBACK=0`` used to switch tracebacks *on* (any non-empty value
did), ``RATKIT_MAX_BYTES=2.9`` was read as 2 bytes and ``RATKIT_MAX_BYTES=inf`` raised a raw
OverflowError at import. An unset or blank variable means "not given".

The variables:

* ``RATKIT_MAX_BYTES``: bytes (:func:`parse_bytes`), e.g. ``4000000000``, ``4e9``, ``4G``;
* ``RATKIT_MAX_STATES``: a count (:func:`parse_count`), e.g. ``10000000`` or ``1e7``;
* ``RATKIT_TRACEBACK``: a flag (:func:`parse_flag`), ``1/0``, ``true/false``, ``yes/no``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import TypeVar

__all__ = [
    "VARIABLES",
    "environment_value",
    "environment_flag",
    "check_environment",
    "parse_bytes",
    "parse_count",
    "parse_flag",
    "BYTES_ACCEPTED",
    "COUNT_ACCEPTED",
    "FLAG_ACCEPTED",
]

T = TypeVar("T")

#: The largest byte count or count accepted (2⁶³ − 1): past it a value means no machine.
_LARGEST = 2**63 - 1
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}
_NUMBER = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]*)?(?:[eE]\+?[0-9]+)?)\s*(?P<unit>[KMGTP](?:iB)?)?", re.IGNORECASE)
_FLAGS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}

BYTES_ACCEPTED = (
    "a whole positive number of bytes, e.g. 4000000000 or 4e9, or with a binary unit K, M, G, T or P "
    "(KiB … PiB; 512M, 4G, 1.5GiB)"
)
COUNT_ACCEPTED = "a whole positive number, e.g. 10000000 or 1e7"
FLAG_ACCEPTED = "one of 1, 0, true, false, yes, no (any case)"


def _whole(text: str, units: bool) -> int:
    """``text`` as a whole number in [1, 2⁶³ − 1] (ValueError otherwise)."""
    match = _NUMBER.fullmatch(text)
    if match is None or (match["unit"] and not units):
        raise ValueError(text)
    try:
        value = Decimal(match["number"]) * _UNITS[(match["unit"] or "")[:1].upper()]
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimal numbers
        raise ValueError(text) from None
    if value != value.to_integral_value() or not 1 <= value <= _LARGEST:
        raise ValueError(text)
    return int(value)


def parse_bytes(text: str) -> int:
    """A number of bytes: a whole positive number (digits, or a decimal or scientific notation
    whose value is whole), optionally followed by a binary unit ``K``, ``M``, ``G``, ``T`` or
    ``P`` (×2¹⁰ … ×2⁵⁰, also spelt ``KiB`` … ``PiB``); at most 2⁶³ − 1. ValueError otherwise
    (``2.9``, ``0``, ``-5``, ``inf``, ``1e999``, ``4GB``)."""
    return _whole(text.strip(), units=True)


def parse_count(text: str) -> int:
    """A whole positive number (``10000000``, ``1e7``), at most 2⁶³ − 1; ValueError otherwise."""
    return _whole(text.strip(), units=False)


def parse_flag(text: str) -> bool:
    """``1``, ``true``, ``yes`` → True; ``0``, ``false``, ``no`` → False (any case); ValueError otherwise."""
    try:
        return _FLAGS[text.strip().lower()]
    except KeyError:
        raise ValueError(text) from None


#: Each variable ratkit reads: (parser, what it accepts).
VARIABLES: dict[str, tuple[Callable[[str], object], str]] = {
    "RATKIT_MAX_BYTES": (parse_bytes, BYTES_ACCEPTED),
    "RATKIT_MAX_STATES": (parse_count, COUNT_ACCEPTED),
    "RATKIT_TRACEBACK": (parse_flag, FLAG_ACCEPTED),
}

_parsed: dict[tuple[str, str], object] = {}  # (name, text) → value: the limits are read on hot paths


def environment_value(name: str, parse: Callable[[str], T], accepted: str) -> T | None:
    """The environment variable ``name`` read by ``parse``; None when it is unset or blank.

    Raises :class:`~ratkit.exceptions.ParameterError` (a ValueError) naming the variable, its
    value and ``accepted`` when ``parse`` raises ValueError. Read at each call (a parsed value
    is remembered for its text), so a change of ``os.environ`` takes effect at once."""
    text = os.environ.get(name)
    if text is None or not text.strip():
        return None
    key = (name, text)
    if key not in _parsed:
        try:
            _parsed[key] = parse(text)
        except ValueError:
            from ratkit.exceptions import ParameterError

            raise ParameterError(
                f"The environment variable {name} is {text!r}; it must be {accepted}. Correct it, or unset it "
                "for the default."
            ) from None
    return _parsed[key]  # type: ignore[return-value]


def environment_flag(name: str) -> bool:
    """The boolean environment variable ``name`` (:func:`parse_flag`); False when unset or blank."""
    return bool(environment_value(name, parse_flag, FLAG_ACCEPTED))


def check_environment() -> None:
    """Read every variable of :data:`VARIABLES` that is set: a bad one raises its
    :class:`~ratkit.exceptions.ParameterError` now (the command line calls this before any
    work, rather than failing when a limit is first read)."""
    for name, (parse, accepted) in VARIABLES.items():
        environment_value(name, parse, accepted)
