"""Editing genuine model files as an attacker would: members, .npy headers and the manifest,
with the checksums recomputed so that the edits get past the SHA-256 checks.

A model file's manifest.json lists the SHA-256 of every array member (``arrays``), and
manifest.sha256 holds the SHA-256 of manifest.json: :func:`write_model` recomputes both.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import format as npy_format


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def manifest_of(path: Path) -> dict[str, Any]:
    return json.loads(members(path)["manifest.json"])


def sealed(manifest: dict[str, Any] | str, arrays: dict[str, bytes]) -> dict[str, bytes]:
    """The members of a model file holding ``manifest`` (a dict, or its JSON text as is) and
    ``arrays``, with the arrays' checksums (for a dict) and manifest.sha256 recomputed."""
    if isinstance(manifest, dict):
        manifest = dict(manifest)
        manifest["arrays"] = {name: hashlib.sha256(data).hexdigest() for name, data in arrays.items()}
        manifest = json.dumps(manifest, indent=1, sort_keys=True)
    raw = manifest.encode("utf-8")
    return {"manifest.json": raw, "manifest.sha256": hashlib.sha256(raw).hexdigest().encode(), **arrays}


def write_zip(path: Path, entries: list[tuple[str, bytes]]) -> Path:
    """A zip holding ``entries`` in order (a name may repeat)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile's "Duplicate name"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return path


def write_model(path: Path, manifest: dict[str, Any] | str, arrays: dict[str, bytes]) -> Path:
    """A model file of ``manifest`` and ``arrays`` whose checksums all match."""
    return write_zip(path, list(sealed(manifest, arrays).items()))


def arrays_of(path: Path) -> dict[str, bytes]:
    return {name: data for name, data in members(path).items() if name.startswith("arrays/")}


def npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def npy_with_header(header: dict[str, Any], body: bytes, version: tuple[int, int] = (1, 0)) -> bytes:
    """A .npy member whose header says ``header`` (descr, fortran_order, shape) over the bytes ``body``."""
    buf = io.BytesIO()
    write = npy_format.write_array_header_1_0 if version == (1, 0) else npy_format.write_array_header_2_0
    write(buf, header)
    return buf.getvalue() + body


def npy_parts(data: bytes) -> tuple[dict[str, Any], bytes]:
    """(header, body) of a .npy member."""
    fh = io.BytesIO(data)
    version = npy_format.read_magic(fh)
    reader = npy_format.read_array_header_1_0 if version == (1, 0) else npy_format.read_array_header_2_0
    shape, fortran, dtype = reader(fh)
    return {"descr": npy_format.dtype_to_descr(dtype), "fortran_order": fortran, "shape": shape}, data[fh.tell() :]


_recorders: list[set[str]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _recorders and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        for paths in _recorders:
            paths.add(path)


_installed = False


@contextlib.contextmanager
def recording_opens() -> Iterator[set[str]]:
    """The set of paths opened (an 'open' audit event: builtins.open, io.open, os.open) while
    the block runs. One audit hook is installed for the process (a hook cannot be removed)."""
    global _installed
    if not _installed:
        sys.addaudithook(_audit)
        _installed = True
    paths: set[str] = set()
    _recorders.append(paths)
    try:
        yield paths
    finally:
        _recorders.remove(paths)
