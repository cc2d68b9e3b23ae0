"""A recommender's model file at a path or in a binary file object (implicit's ``save``/``load``
take both): the file object's bytes go through a temporary file, since
:func:`ratkit.save_model` writes and :func:`ratkit.load_model` reads by path (a write is
renamed into place, a read checks the archive's size first)."""

from __future__ import annotations

import os
import tempfile
from typing import Any, BinaryIO

from ratkit.exceptions import MissingDataError, ParameterTypeError

__all__ = ["write_model", "read_model"]


def _refuse(what: Any, owner: str, mode: str) -> ParameterTypeError:
    return ParameterTypeError(
        f"{owner} needs the path of a model file (a str or os.PathLike) or a binary file object opened for "
        f"{mode}; got {type(what).__name__}."
    )


def write_model(model: Any, target: str | os.PathLike[str] | BinaryIO, owner: str) -> str | None:
    """Write ``model``'s file to the path ``target`` (returned as a str) or into the binary file
    object ``target`` at its position (None returned)."""
    from ratkit.persistence import save_model

    if isinstance(target, (str, os.PathLike)):
        return os.fspath(save_model(model, target))
    if not callable(getattr(target, "write", None)):
        raise _refuse(target, owner, "writing")
    with tempfile.TemporaryDirectory() as folder:
        written = save_model(model, os.path.join(folder, "model.ratkit"))
        with open(written, "rb") as source:
            target.write(source.read())
    return None


def read_model(source: str | os.PathLike[str] | BinaryIO, owner: str) -> tuple[Any, str]:
    """The model a file holds, read from the path ``source`` or the binary file object ``source``
    (from its position), and how to name the source in a message."""
    from ratkit.persistence import load_model

    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise MissingDataError(f"Model file {path!r} does not exist; pass the path that save() returned.")
        return load_model(path), repr(path)
    if not callable(getattr(source, "read", None)):
        raise _refuse(source, owner, "reading")
    with tempfile.TemporaryDirectory() as folder:
        copy = os.path.join(folder, "model.ratkit")
        with open(copy, "wb") as target:
            target.write(source.read())
        return load_model(copy), "the file object"
