"""Reading a kernel spec: from a mapping, a JSON object string, or a TOML/JSON file.

:func:`load_spec` turns what a user gives into the spec mapping that
:func:`~ratkit.automata.kernels.spec.from_spec` builds, with errors that say which kind of
source was read and why it is not a spec.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ratkit._json import loads_strict
from ratkit.exceptions import MissingDataError, PathIsFolderError, SpecError, SpecTypeError
from ratkit.limits import MAX_SPEC_DEPTH

__all__ = ["load_spec"]


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
