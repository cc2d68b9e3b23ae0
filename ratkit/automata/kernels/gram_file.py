"""A Gram matrix file: the ``.npy`` file, its partial file and its block manifest.

``kernel.gram(X, out="gram.npy")`` (and :func:`~ratkit.automata.kernels.blocked.write_gram`)
writes the matrix block by block into ``gram.npy.partial`` and records each finished block in
``gram.npy.manifest.json``, which also holds the shape, the block size and fingerprints of the
kernel, its options and the data. Only when every block is in does the partial file become
``gram.npy`` (``os.replace``): an interrupted run never leaves a file that looks complete.
``resume=True`` checks the manifest against the request and computes only the blocks it does
not list. :class:`GramFile` is what a run returns, and what :meth:`GramFile.read` reads back
from a manifest: where the matrix is, its shape and blocks, whether it is complete.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import logging
import os
from pathlib import Path
from typing import Any

import joblib
import numpy as np

from ratkit._files import UNCHANGED, atomic_write, check_output_path, write_error
from ratkit._parallel import UNPICKLABLE
from ratkit.automata.kernels._npy_sink import _ITEMSIZE, _check_partial, _create_npy
from ratkit.exceptions import (
    DataFormatError,
    OutputPathError,
    ParameterError,
    ParameterTypeError,
    RatkitError,
    ResourceLimitError,
)
from ratkit.limits import format_bytes

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

__all__ = [
    "GramFile",
    "open_gram",
    "check_gram_output",
    "DEFAULT_BLOCK_BYTES",
    "manifest_path",
    "partial_path",
    "rows_per_block",
]

log = logging.getLogger(__name__)

#: Bytes per block when ``block_bytes`` is not given (at least one row).
DEFAULT_BLOCK_BYTES = 64 * 2**20
_MANIFEST_FORMAT = 1


@dataclasses.dataclass(frozen=True)
class GramFile:
    """A Gram matrix written to a ``.npy`` file block by block, as a run left it.

    Attributes
    ----------
    path
        The matrix file (``gram.npy``; until it is complete, the blocks are in
        :func:`partial_path`).
    shape
        (rows, columns) of the matrix.
    rows_per_block
        The rows of one block.
    done
        The blocks written, by index (row block b holds rows [b·rows_per_block, …)).
    complete
        Whether every block is in and ``path`` holds the matrix.
    resumed
        The blocks a resumed run found already written (0: none, or not resumed).
    """

    path: Path
    shape: tuple[int, int]
    rows_per_block: int
    done: tuple[int, ...]
    complete: bool
    resumed: int = 0

    @property
    def n_blocks(self) -> int:
        """The number of row blocks of the matrix."""
        return -(-self.shape[0] // self.rows_per_block)

    @property
    def manifest(self) -> Path:
        """The block manifest beside the matrix (:func:`manifest_path`)."""
        return manifest_path(self.path)

    def open(self) -> np.ndarray:
        """The complete matrix as a read-only memory map (:func:`open_gram`)."""
        if not self.complete:
            raise OutputPathError(
                f"The Gram matrix file {str(self.path)!r} is not complete: {len(self.done)} of {self.n_blocks} "
                "blocks are in. Run again with resume=True (ratkit gram --resume) to finish it."
            )
        return open_gram(self.path)

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> GramFile:
        """The Gram file at ``path`` as its manifest describes it (DataFormatError when there is
        no readable manifest beside it)."""
        target = Path(path)
        manifest = _read_manifest(manifest_path(target))
        return cls._of(target, manifest)

    @classmethod
    def _of(cls, target: Path, manifest: dict[str, Any], resumed: int = 0) -> GramFile:
        rows, cols = manifest["shape"]
        return cls(
            target,
            (int(rows), int(cols)),
            int(manifest["rows_per_block"]),
            tuple(sorted(int(b) for b in manifest["done"])),
            bool(manifest["complete"]),
            resumed,
        )


def partial_path(out: Path) -> Path:
    """Where the matrix is written until every block is in: ``gram.npy.partial``."""
    return out.with_name(out.name + ".partial")


def manifest_path(out: Path) -> Path:
    """The block manifest beside the output: ``gram.npy.manifest.json``."""
    return out.with_name(out.name + ".manifest.json")


def open_gram(path: str | os.PathLike[str]) -> np.ndarray:
    """The Gram matrix file ``path`` as a read-only memory map, or a ResourceLimitError naming
    the limit to raise when the process's address space cannot hold a map of the whole file."""
    try:
        return np.load(path, mmap_mode="r")
    except OSError as exc:
        if exc.errno != errno.ENOMEM:
            raise
        size = os.path.getsize(path)
        soft = resource.getrlimit(resource.RLIMIT_AS)[0] if resource is not None else -1
        cap = (
            f"its address space is capped at {format_bytes(soft)} (RLIMIT_AS, 'ulimit -v')"
            if soft not in (-1, getattr(resource, "RLIM_INFINITY", -1))
            else "it has no room for it"
        )
        raise ResourceLimitError(
            f"The Gram matrix file {os.fspath(path)!r} is complete, but this process cannot map its "
            f"{format_bytes(size)} into memory: {cap}. Raise that limit to open it whole, or read it in parts "
            "in a process that has the room (np.load(path, mmap_mode='r')[rows]); 'ratkit gram -o' writes it "
            "without opening it."
        ) from exc


def _gram_write_error(exc: OSError, target: Path, manifest: dict[str, Any] | None) -> OutputPathError:
    """:func:`write_error` of a Gram file: what is kept for a resumed run, or, when no block was
    written, the partial file and manifest removed."""
    raw = exc.__cause__ if isinstance(exc, RatkitError) and isinstance(exc.__cause__, OSError) else exc
    if manifest is not None and manifest["done"] and partial_path(target).exists():
        done = manifest["done"]
        n_blocks = -(-manifest["shape"][0] // manifest["rows_per_block"])
        kept = (
            f"The {len(done)} of {n_blocks} blocks written so far are kept in {partial_path(target).name!r} with "
            f"its manifest {manifest_path(target).name!r}: make room, then run again with resume=True (ratkit "
            f"gram --resume) to continue. {UNCHANGED}"
        )
    else:
        for leftover in (partial_path(target), manifest_path(target)):
            with contextlib.suppress(OSError):
                leftover.unlink()
        kept = UNCHANGED
    return write_error(raw, target, "Gram matrix file", kept)


def rows_per_block(block_bytes: Any, n_cols: int) -> int:
    """The rows of one block of ``block_bytes`` bytes (default :data:`DEFAULT_BLOCK_BYTES`) of a
    Gram matrix of ``n_cols`` columns; a ParameterError when one row does not fit."""
    row = max(n_cols, 1) * _ITEMSIZE
    if block_bytes is None:
        return max(1, DEFAULT_BLOCK_BYTES // row)
    if isinstance(block_bytes, bool) or not isinstance(block_bytes, (int, np.integer)):
        raise ParameterTypeError(
            f"The 'block_bytes' parameter of gram must be an int (bytes per block). Got {block_bytes!r} instead."
        )
    if block_bytes < row:
        raise ParameterError(
            f"The 'block_bytes' parameter of gram must hold at least one row of the Gram matrix: {n_cols} columns × "
            f"{_ITEMSIZE} bytes = {row} bytes. Got {block_bytes} instead."
        )
    return int(block_bytes) // row


def check_gram_output(out: Any, *, resume: bool, overwrite: bool) -> Path:
    """``out`` as the Path of a Gram matrix file that may be written: a ``.npy`` path in a
    writable folder, not already there (nor its partial file) unless ``resume`` or ``overwrite``."""
    target = _gram_target(out)
    _refuse_existing(target, resume=resume, overwrite=overwrite)
    return target


def _gram_target(out: Any) -> Path:
    if not isinstance(out, (str, os.PathLike)):
        raise ParameterTypeError(f"The 'out' parameter of gram must be a path ending in .npy. Got {out!r} instead.")
    target = check_output_path(out, "Gram matrix file")
    if target.suffix != ".npy":
        raise ParameterError(
            f"The 'out' parameter of gram must be a path ending in .npy (a NumPy array file). Got {str(out)!r} instead."
        )
    return target


def _refuse_existing(target: Path, *, resume: bool, overwrite: bool) -> None:
    exists = target.exists() or partial_path(target).exists()
    if exists and not (resume or overwrite):
        raise OutputPathError(
            f"The Gram matrix file {str(target)!r} (or its partial file) already exists. Pass resume=True to continue "
            "or reuse it, or overwrite=True to replace it; it is never overwritten silently."
        )


def _fingerprint(kernel: Any, rows: list[Any], cols: list[Any] | None, options: dict[str, Any]) -> dict[str, str]:
    """Digests that tell whether a manifest was written for this kernel, these options and data
    (the data as the list of inputs: a list of str and an array of the same strings agree)."""
    try:
        return {
            "kernel": joblib.hash(kernel._value_state()),
            "options": joblib.hash(sorted(options.items())),
            "rows": joblib.hash([_plain(x) for x in rows]),
            "columns": "rows" if cols is None else joblib.hash([_plain(y) for y in cols]),
        }
    except UNPICKLABLE as exc:
        raise ParameterError(
            f"A Gram written to a file needs a kernel and inputs that can be fingerprinted (pickled) so that a "
            f"resumed run can be checked; {kernel!r} cannot ({exc}). Define functions such as psi at module level."
        ) from exc


def _plain(x: Any) -> Any:
    """numpy string scalars as str, so that equal data hash equally."""
    return str(x) if isinstance(x, np.str_) else x


def _open(
    target: Path,
    shape: tuple[int, int],
    symmetric: bool,
    per_block: int,
    block_given: bool,
    fingerprint: dict[str, str],
    resume: bool,
) -> dict[str, Any]:
    """The manifest to continue from (resume) or a fresh one with an empty partial file."""
    manifest_file = manifest_path(target)
    if resume and manifest_file.exists():
        manifest = _read_manifest(manifest_file)
        expected = {"shape": list(shape), "symmetric": symmetric, "fingerprint": fingerprint}
        for key, value in expected.items():
            if manifest.get(key) != value:
                raise DataFormatError(
                    f"The manifest {str(manifest_file)!r} was written for another Gram matrix: its {key} is "
                    f"{manifest.get(key)!r}, this request's is {value!r}. Use the same kernel, options and data to "
                    "resume, or overwrite=True to start again."
                )
        if block_given and manifest["rows_per_block"] != per_block:
            raise DataFormatError(
                f"The manifest {str(manifest_file)!r} was written with {manifest['rows_per_block']} rows per block; "
                f"block_bytes now gives {per_block}. Resume with the same block_bytes (or none), or overwrite=True."
            )
        n_blocks = -(-shape[0] // manifest["rows_per_block"])
        every_block = sorted(manifest["done"]) == list(range(n_blocks))
        if partial_path(target).exists():
            _check_partial(partial_path(target), shape)
            return manifest
        if target.exists() and (manifest["complete"] or every_block):
            # complete, or interrupted between the rename and marking the manifest complete:
            # the partial file disappears only by becoming gram.npy
            manifest["complete"] = True
            _write_manifest(target, manifest)
            return manifest
        log.warning("%s lists blocks but their file is gone; computing every block again", manifest_file)
        per_block = manifest["rows_per_block"]
    elif resume and target.exists():
        raise OutputPathError(
            f"{str(target)!r} exists but has no manifest {manifest_file.name!r}, so it cannot be checked against this "
            "request. Pass overwrite=True (on the command line, --overwrite) to recompute it."
        )
    manifest = {
        "format": _MANIFEST_FORMAT,
        "shape": list(shape),
        "symmetric": symmetric,
        "rows_per_block": per_block,
        "fingerprint": fingerprint,
        "done": [],
        "complete": False,
    }
    _create_npy(partial_path(target), shape)
    _write_manifest(target, manifest)
    return manifest


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataFormatError(f"The Gram manifest {str(path)!r} cannot be read ({exc}); use overwrite=True.") from exc
    keys = {"format", "shape", "symmetric", "rows_per_block", "fingerprint", "done", "complete"}
    if not isinstance(manifest, dict) or not keys <= set(manifest) or manifest["format"] != _MANIFEST_FORMAT:
        raise DataFormatError(f"{str(path)!r} is not a ratkit Gram manifest (format {_MANIFEST_FORMAT}).")
    return manifest


def _write_manifest(target: Path, manifest: dict[str, Any]) -> None:
    with atomic_write(manifest_path(target), what="Gram manifest") as fh:
        json.dump(manifest, fh)
