"""Gram matrices computed block by block: in parallel, into a ``.npy`` file, resumable.

``kernel.gram(X, Y, out="gram.npy", block_bytes=B)`` splits the rows of K = [k(x_i, y_j)]
into blocks of at most B bytes each and computes them as :func:`ratkit._parallel.parallel_map`
tasks — local processes, or the Dask cluster of an enclosing
``joblib.parallel_config(backend="dask")``. A symmetric Gram (Y = None) computes only the
blocks on and above the diagonal: the task of rows I = [a, b) computes K(X_I, X_{[a, n)}),
symmetrises its diagonal square from its upper triangle (so the matrix is exactly
symmetric) and writes it both at (I, [a, n)) and, transposed, at ([a, n), I).

The tasks write their blocks themselves into an ``.npy`` file: with ``out``,
``gram.npy.partial``, by positioned writes (``os.pwrite``: no memory map, whose touched pages
would count in the resident set); in memory with worker processes, a temporary file that
this process reads once at the end (the tiles neither travel back nor are placed by this
process). That file lives in shared memory (``/dev/shm``) when it has the room, and the
tasks write it through a shared map: positioned writes of two processes into one file queue
on the file's lock (1.0 s per worker for a 7 063² matrix, against 0.6 s through maps).

A worker may not see this process's file system (a Dask cluster on other machines), so
each run writes a random stamp into the file's header padding; a task writes only into a
file whose header holds that stamp, and otherwise returns its tile, which this process then
writes. A block counts as done only when this process has read it back from its own file
and found the checksum the task reported (else it computes the block again). A block a
task wrote through a map of the shared-memory file is not read back: that file is on this
machine, only this run's file holds its stamp, and the map's pages are this process's.

Each finished block is recorded in ``gram.npy.manifest.json``, which also holds the shape,
the block size and fingerprints of the kernel, its options and the data. Only when every
block is in does the partial file become ``gram.npy`` (``os.replace``, the stamp blanked
first): an interrupted run never leaves a file that looks complete. ``resume=True`` checks
the manifest against the request and computes only the blocks it does not list.

One run writes a given file at a time: :func:`write_gram` holds the lock of
:func:`ratkit._files.locked` on ``gram.npy`` from its check that the file may be written to
the final rename, and a second run meanwhile raises OutputPathError naming the file and the
first run's pid. A failed write (a full disk) raises :func:`ratkit._files.write_error`'s
message; the blocks already in stay in the partial file for ``resume=True``. The finished
file is never mapped by the writer: :func:`open_gram` maps it for ``gram(out=)``'s return
value, and says which limit to raise when the address space cannot hold the map.

When the kernel has an explicit feature map (:meth:`Kernel.gram_features`), the features
are computed once, shipped to the workers once, and a block is a sparse product F_I G_Jᵀ;
otherwise a block is ``kernel.gram(X_I, Y_J, **options)``, the in-memory call on fewer rows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import json
import logging
import mmap
import os
import secrets
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import scipy.sparse as sp

from ratkit._files import UNCHANGED, atomic_write, check_output_path, locked, write_error
from ratkit._memory import trim_heap
from ratkit._parallel import UNPICKLABLE, Shared, parallel_map, runs_in_this_process, sequential
from ratkit.automata.kernels._features import feature_memory
from ratkit.automata.kernels._float_range import feature_sq_norms
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
    "blocked_gram",
    "write_gram",
    "open_gram",
    "check_gram_output",
    "DEFAULT_BLOCK_BYTES",
    "manifest_path",
    "partial_path",
]

log = logging.getLogger(__name__)

#: Bytes per block when ``block_bytes`` is not given (at least one row).
DEFAULT_BLOCK_BYTES = 64 * 2**20
_ITEMSIZE = 8  # float64
_MANIFEST_FORMAT = 1


def partial_path(out: Path) -> Path:
    """Where the matrix is written until every block is in: ``gram.npy.partial``."""
    return out.with_name(out.name + ".partial")


def manifest_path(out: Path) -> Path:
    """The block manifest beside the output: ``gram.npy.manifest.json``."""
    return out.with_name(out.name + ".manifest.json")


def blocked_gram(
    kernel: Any,
    X: list,
    Y: list | None = None,
    *,
    n_jobs: int | None = None,
    out: str | os.PathLike | None = None,
    block_bytes: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    show_progress: bool | None = None,
    **options: Any,
) -> np.ndarray:
    """K = [kernel(x_i, y_j)] (Y None: X against itself) computed in row blocks of at most
    ``block_bytes`` bytes over ``n_jobs`` processes or the active joblib backend.

    With ``out`` (a path ending in ``.npy``) the matrix is written there (:func:`write_gram`)
    and returned as a read-only memory map (:func:`open_gram`); otherwise it is returned in
    memory. ``resume=True`` continues an interrupted run (or returns a finished one) when its
    manifest matches this request; ``overwrite=True`` recomputes and replaces an existing
    file, which stays intact until the new one is complete. ``options`` go to the family's
    ``gram`` for every block.
    """
    if out is not None:
        written = write_gram(
            kernel,
            X,
            Y,
            out=out,
            n_jobs=n_jobs,
            block_bytes=block_bytes,
            resume=resume,
            overwrite=overwrite,
            show_progress=show_progress,
            **options,
        )
        return open_gram(written)
    rows, cols, per_block = _request(kernel, X, Y, block_bytes, resume, overwrite, out)
    matrix = _compute(kernel, rows, cols, Y is None, per_block, n_jobs, bool(show_progress), options, None, None)
    assert matrix is not None  # without a target, the matrix is in memory
    return matrix


def write_gram(
    kernel: Any,
    X: list,
    Y: list | None = None,
    *,
    out: str | os.PathLike,
    n_jobs: int | None = None,
    block_bytes: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    show_progress: bool | None = None,
    **options: Any,
) -> Path:
    """Write K = [kernel(x_i, y_j)] to the ``.npy`` file ``out`` block by block and return its
    path, without mapping it: the file may be larger than the process's address space.

    The target is locked (:func:`ratkit._files.locked`) from the check that it may be written
    to the final rename: a second run on the same file meanwhile raises OutputPathError naming
    it. A failed write (a full disk) raises OutputPathError naming the file; the blocks
    written so far stay in the partial file, with their manifest, for ``resume=True``.
    """
    target = _gram_target(out)
    rows, cols, per_block = _request(kernel, X, Y, block_bytes, resume, overwrite, out)
    symmetric = Y is None
    shape = (len(rows), len(cols))
    show = True if show_progress is None else bool(show_progress)
    with locked(target, "Gram matrix file"):
        _refuse_existing(target, resume=resume, overwrite=overwrite)
        fingerprint = _fingerprint(kernel, rows, None if symmetric else cols, options)
        manifest: dict[str, Any] | None = None
        try:
            manifest = _open(target, shape, symmetric, per_block, block_bytes is not None, fingerprint, resume)
            if manifest["complete"]:
                return target
            _compute(kernel, rows, cols, symmetric, manifest["rows_per_block"], n_jobs, show, options, target, manifest)
            # the rename first: a manifest marked complete always means gram.npy is the new matrix
            os.replace(partial_path(target), target)
        except OSError as exc:
            if isinstance(exc, RatkitError) and exc.errno is None:  # not a failed write: a refusal
                raise
            raise _gram_write_error(exc, target, manifest) from exc
        manifest["complete"] = True
        _write_manifest(target, manifest)
    return target


def open_gram(path: str | os.PathLike) -> np.ndarray:
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


def _request(
    kernel: Any, X: Any, Y: Any, block_bytes: Any, resume: Any, overwrite: Any, out: Any
) -> tuple[list, list, int]:
    """(rows, columns, rows per block) of a checked request, the kernel having learned what it
    infers from all the data."""
    from ratkit.automata.kernels.base import as_collection

    rows = as_collection(X, "X")
    cols = rows if Y is None else as_collection(Y, "Y")
    per_block = _rows_per_block(block_bytes, len(cols))
    for name, flag in (("resume", resume), ("overwrite", overwrite)):
        if not isinstance(flag, (bool, np.bool_)):
            raise ParameterTypeError(f"The {name!r} parameter of gram must be True or False. Got {flag!r} instead.")
    if resume and overwrite:
        raise ParameterError("gram takes resume=True or overwrite=True, not both: continue the file or replace it.")
    if (resume or overwrite) and out is None:
        raise ParameterError(
            f"gram's {'resume' if resume else 'overwrite'}=True applies to a file: give out='gram.npy' as well."
        )
    # what the kernel infers from data (an alphabet) is fixed from all of it, here, before
    # the blocks (each of which sees a part) and before the fingerprint (which records it)
    kernel.learn(rows if Y is None else rows + cols)
    return rows, cols, per_block


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


def _compute(
    kernel: Any,
    rows: list,
    cols: list,
    symmetric: bool,
    per_block: int,
    n_jobs: int | None,
    show: bool,
    options: dict[str, Any],
    target: Path | None,
    manifest: dict[str, Any] | None,
) -> np.ndarray | None:
    """The blocks of K not yet listed in ``manifest``: written into ``target``'s partial file
    (each recorded in the manifest as it is in; returns None), or, without a target, the
    matrix in memory."""
    shape = (len(rows), len(cols))
    blocks = [(a, min(a + per_block, shape[0])) for a in range(0, shape[0], per_block)]
    done = set(manifest["done"]) if manifest is not None else set()
    todo = [b for b in range(len(blocks)) if b not in done]
    memory = None
    with _destination(target, shape, in_process=runs_in_this_process(n_jobs)) as (sink, fd):
        if sink is None:  # in memory, placed by this process
            memory = np.empty(shape)
        if todo:
            work, shared, mirror = _block_work(
                kernel,
                rows,
                cols,
                symmetric,
                n_jobs,
                show,
                options,
                # into a file (larger than memory): the features too stay within one block's bytes;
                # in memory, the matrix outweighs the one-pass transients (24 bytes a character)
                None if target is None else per_block * shape[1] * _ITEMSIZE,
            )
            tasks = [(blocks[b][0], blocks[b][1], blocks[b][0] if mirror else 0) for b in todo]
            results = parallel_map(
                functools.partial(_block_task, work=work, sink=sink, mirror=mirror),
                tasks,
                shared=shared,
                n_jobs=n_jobs,
                ordered=False,
                show_progress=show,
                desc="Gram blocks",
                unit="block",
            )
            returned = 0
            for position, result in results:
                start, stop, first = tasks[position]
                if sink is None:
                    _place(memory, result, start, stop, first, mirror)
                    continue
                if isinstance(result, np.ndarray):
                    returned += 1
                elif not sink.mapped and not _confirmed(fd, sink, result, start, stop, first):
                    log.warning(
                        "The Gram block of rows [%d, %d) read back from %s does not hold what its task reported "
                        "writing; computing it again in this process.",
                        start,
                        stop,
                        sink.path,
                    )
                    with sequential():
                        result = _block_task(*(s.value for s in shared), start, stop, first, work=work, mirror=mirror)
                if isinstance(result, np.ndarray):  # this process writes it
                    _write_tile(fd, sink, result, start, first, mirror)
                    if sink.durable:
                        _sync(fd)
                if target is not None:
                    manifest["done"].append(todo[position])
                    _write_manifest(target, manifest)
            if returned and sink.stamp:
                log.info(
                    "%d of %d Gram blocks came back to be written by this process: their workers do not see %s.",
                    returned,
                    len(tasks),
                    sink.path,
                )
        if sink is not None and target is None:
            memory = _read_matrix(fd, sink)
        elif sink is not None:
            _blank_stamp(fd, sink)
    return memory


def _rows_per_block(block_bytes: Any, n_cols: int) -> int:
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


#: Parameters that say how a Gram is computed, not what it holds: a resumed run may change them.
_EXECUTION_PARAMS = ("n_jobs", "show_progress")


def _kernel_state(value: Any) -> Any:
    """What determines a kernel's values: its class, its parameters other than the execution
    options (kernel-valued ones in turn), what it learned (:meth:`Kernel.learned_params`) and
    the content its parameters name (:meth:`Kernel.content_params`), without its caches."""
    from ratkit.automata.kernels.base import Kernel

    if isinstance(value, Kernel):
        params = {k: v for k, v in value.get_params(deep=False).items() if k not in _EXECUTION_PARAMS}
        params.update(value.learned_params())
        params.update(value.content_params())
        kind = type(value)
        return (f"{kind.__module__}.{kind.__qualname__}", {k: _kernel_state(v) for k, v in sorted(params.items())})
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_kernel_state(v) for v in value]
    return value


def _fingerprint(kernel: Any, rows: list, cols: list | None, options: dict[str, Any]) -> dict[str, str]:
    """Digests that tell whether a manifest was written for this kernel, these options and data
    (the data as the list of inputs: a list of str and an array of the same strings agree)."""
    try:
        return {
            "kernel": joblib.hash(_kernel_state(kernel)),
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


def _check_partial(path: Path, shape: tuple[int, int]) -> None:
    """Refuse a partial file that is not a float64 C-order ``.npy`` of ``shape`` and its full
    size, from its header alone (a map of the whole file may exceed the address space)."""
    try:
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
            if version not in read_header:
                raise ValueError(f"unexpected .npy format version {version}")
            header = read_header[version](fh)  # (shape, fortran_order, dtype)
            offset = fh.tell()
        size = os.path.getsize(path)
    except (OSError, ValueError) as exc:
        raise DataFormatError(
            f"The partial Gram file {str(path)!r} cannot be read ({exc}); use overwrite=True."
        ) from exc
    found, fortran, dtype = header
    if tuple(found) != shape or dtype != np.float64 or fortran:
        raise DataFormatError(
            f"The partial Gram file {str(path)!r} holds a {dtype} array of shape {tuple(found)}, not the "
            f"float64 {shape} its manifest describes; use overwrite=True."
        )
    if size < offset + shape[0] * shape[1] * _ITEMSIZE:
        raise DataFormatError(
            f"The partial Gram file {str(path)!r} is {size} bytes, shorter than its header's {shape} float64 "
            "matrix: it was truncated; use overwrite=True."
        )


def _write_manifest(target: Path, manifest: dict[str, Any]) -> None:
    with atomic_write(manifest_path(target), what="Gram manifest") as fh:
        json.dump(manifest, fh)


def _place(matrix: np.ndarray, tile: np.ndarray, start: int, stop: int, first: int, mirror: bool) -> None:
    """Write the block K(rows [start, stop), columns [first, …)) and, with ``mirror``, its transpose."""
    matrix[start:stop, first:] = tile
    if mirror:
        matrix[first:, start:stop] = tile.T


def _symmetrise(tile: np.ndarray, size: int) -> None:
    """Make the diagonal square tile[:, :size] exactly symmetric, from its upper triangle."""
    square = np.triu(tile[:, :size])
    tile[:, :size] = square + np.triu(square, 1).T


def _block_task(*args: Any, work: Any, mirror: bool, sink: _Sink | None = None) -> np.ndarray | int | None:
    """One block, ``work(*args)`` (args end with start, stop, first), its diagonal square
    symmetrised when it is ``mirror``-ed; written into ``sink`` when this process sees that
    file, and then the CRC-32 of the tile is returned instead of the tile — or None for the
    shared-memory file written through a map, which the calling process does not read back."""
    start, stop, first = args[-3:]
    tile = np.ascontiguousarray(work(*args), dtype=np.float64)
    if mirror:
        _symmetrise(tile, stop - start)
    fd = None if sink is None else _open_sink(sink)
    if fd is None:
        return tile
    try:
        (_map_tile if sink.mapped else _write_tile)(fd, sink, tile, start, first, mirror)
        if sink.durable:
            _sync(fd)
    finally:
        os.close(fd)
    if sink.mapped:
        # an in-memory Gram: no checksum to confirm, and a heap of one tile kept for the next
        # block, whose pages the allocator would otherwise fault in again (per 32 blocks of a
        # 7 063² matrix, the CRC and the trim cost 0.2–0.3 CPU-s of the block loop's 5.3)
        return None
    crc = zlib.crc32(tile)
    del tile
    trim_heap()  # the tile and its transients, which the allocator would keep, go back to the system
    return crc


# -- the file the blocks are written into ---------------------------------------------------

#: What marks a run's file in its header padding (a comment to the header's dict), then hex digits.
_STAMP_PREFIX = b"#ratkit-run:"
_STAMP_DIGITS = 24  # 96 random bits


@dataclasses.dataclass(frozen=True)
class _Sink:
    """A float64 C-order ``.npy`` file that a block's task may write into itself: ``path`` as
    the calling process sees it, its ``size`` in bytes, the data ``offset``, ``n_cols``, and
    the run's ``stamp`` at byte ``stamp_at`` (empty: the header has no room, tasks return
    their tiles). ``durable``: flushed to disk before a block is reported written.
    ``mapped``: in shared memory, written through a shared map."""

    path: str
    size: int
    offset: int
    n_cols: int
    stamp_at: int
    stamp: bytes
    durable: bool
    mapped: bool = False


def _create_npy(path: Path, shape: tuple[int, int]) -> None:
    """A new (zero-filled, sparse) float64 ``.npy`` file at ``path`` whose header padding has
    room for a stamp; a file already there is unlinked first, so that a task of an earlier run
    that still holds it open writes into that file, not into this one."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    header = repr({"descr": "<f8", "fortran_order": False, "shape": tuple(shape)}).encode("latin1")
    header += b" " * (2 + len(_STAMP_PREFIX) + _STAMP_DIGITS)
    magic = np.lib.format.magic(1, 0)
    length = len(magic) + 2 + len(header) + 1
    header += b" " * (-length % 64) + b"\n"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        _pwrite_all(fd, magic + len(header).to_bytes(2, "little") + header, 0)
        os.ftruncate(fd, len(magic) + 2 + len(header) + shape[0] * shape[1] * _ITEMSIZE)
    finally:
        os.close(fd)


def _stamped(path: Path, fd: int, shape: tuple[int, int], durable: bool, mapped: bool = False) -> _Sink:
    """The sink of the ``.npy`` file open at ``fd``, with a fresh stamp written into its header
    (after the dict, where only spaces or an earlier stamp may be) when there is room."""
    start = _pread_all(fd, 12, 0)
    width = 2 if start[6] == 1 else 4  # the header length: 2 bytes in format 1.0, 4 in 2.0 and 3.0
    offset = 8 + width + int.from_bytes(start[8 : 8 + width], "little")
    head = _pread_all(fd, offset, 0)
    at = head.rindex(b"}") + 2
    padding = head[at - 1 : offset - 1]
    stamp = _STAMP_PREFIX + secrets.token_hex(_STAMP_DIGITS // 2).encode("ascii")
    rest = padding.strip(b" ")
    if offset - 1 - at < len(stamp) or (rest and not rest.startswith(_STAMP_PREFIX)):
        stamp = b""
    else:
        _pwrite_all(fd, stamp.ljust(offset - 1 - at), at)
    size = offset + shape[0] * shape[1] * _ITEMSIZE
    return _Sink(str(path.resolve()), size, offset, shape[1], at, stamp, durable, mapped)


def _blank_stamp(fd: int, sink: _Sink) -> None:
    """Spaces over the stamp: the finished file has a plain ``.npy`` header."""
    if sink.stamp:
        _pwrite_all(fd, b" " * len(sink.stamp), sink.stamp_at)


def _open_sink(sink: _Sink) -> int | None:
    """A descriptor open for writing on the sink's file when the file at its path, as this
    process sees it, is that file (its size and stamp), else None."""
    if not sink.stamp:
        return None
    try:
        fd = os.open(sink.path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        if os.fstat(fd).st_size == sink.size and _pread_all(fd, len(sink.stamp), sink.stamp_at) == sink.stamp:
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


@contextlib.contextmanager
def _destination(
    target: Path | None, shape: tuple[int, int], *, in_process: bool
) -> Iterator[tuple[_Sink | None, int | None]]:
    """(sink, this process's descriptor of it) for a run's blocks: ``target``'s partial file;
    without a target, (None, None) — blocks placed in memory — when the tasks run in this
    process, else a temporary file (removed on exit): in shared memory, written through
    maps, when it has the room, else in the temporary folder, unless that lacks the room
    too."""
    if target is not None:
        with _opened(partial_path(target), shape, durable=True) as opened:
            yield opened
        return
    if in_process:
        yield None, None
        return
    with _scratch_file(shape) as (path, mapped):
        if path is None:
            yield None, None
            return
        with _opened(path, shape, durable=False, mapped=mapped) as opened:
            yield opened


#: Where an in-memory Gram's temporary file goes first when worker processes write it (as
#: joblib's memory maps do); then :func:`tempfile.gettempdir`.
SHARED_MEMORY_FOLDER = "/dev/shm"


@contextlib.contextmanager
def _scratch_file(shape: tuple[int, int]) -> Iterator[tuple[Path | None, bool]]:
    """(a new ``.npy`` file for a ``shape`` float64 matrix in a temporary folder removed on
    exit, whether it is in shared memory), or (None, False) when neither place has the room.

    The file is sparse. Allocating its pages first (``posix_fallocate``) would turn a write
    into a shared memory that another process filled meanwhile from a SIGBUS, which kills
    the worker (a :class:`~ratkit.exceptions.DistributedError` here), into an error, but it
    doubled the cost of the writes (0.6 → 1.2–1.5 s per worker for a 7 063² matrix)."""
    need = 1.1 * shape[0] * shape[1] * _ITEMSIZE + 2**20
    for where, mapped in ((SHARED_MEMORY_FOLDER, True), (tempfile.gettempdir(), False)):
        folder = None
        try:
            if not os.path.isdir(where) or shutil.disk_usage(where).free <= need:
                continue
            folder = tempfile.mkdtemp(prefix="ratkit-gram-", dir=where)
            path = Path(folder) / "gram.npy"
            _create_npy(path, shape)
        except OSError:  # no such folder, or no room after all: the next place
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            continue
        try:
            yield path, mapped
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    yield None, False


@contextlib.contextmanager
def _opened(path: Path, shape: tuple[int, int], *, durable: bool, mapped: bool = False) -> Iterator[tuple[_Sink, int]]:
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    try:
        yield _stamped(path, fd, shape, durable, mapped), fd
    finally:
        os.close(fd)


def _write_tile(fd: int, sink: _Sink, tile: np.ndarray, start: int, first: int, mirror: bool) -> None:
    """Positioned writes of the block at rows [start, …), columns [first, …) and, with
    ``mirror``, of its part right of the diagonal square, transposed, below it."""
    rows, width = tile.shape
    if rows == 0 or width == 0:
        return
    n, at = sink.n_cols, sink.offset
    if width == n:
        _pwrite_all(fd, tile, at + start * n * _ITEMSIZE)
    else:
        for i in range(rows):
            _pwrite_all(fd, tile[i], at + ((start + i) * n + first) * _ITEMSIZE)
    if mirror:
        for a in range(rows, width, _CHUNK_ROWS):
            lower = np.ascontiguousarray(tile[:, a : a + _CHUNK_ROWS].T)
            for j in range(lower.shape[0]):
                _pwrite_all(fd, lower[j], at + ((start + a + j) * n + start) * _ITEMSIZE)


def _map_tile(fd: int, sink: _Sink, tile: np.ndarray, start: int, first: int, mirror: bool) -> None:
    """:func:`_write_tile` through a shared map of the sink's file."""
    rows, width = tile.shape
    if rows == 0 or width == 0:
        return
    pages = mmap.mmap(fd, sink.size)
    try:
        matrix = np.frombuffer(pages, dtype=np.float64, offset=sink.offset).reshape(-1, sink.n_cols)
        matrix[start : start + rows, first:] = tile
        if mirror:  # in strips of columns, so that what the transpose reads stays in cache
            for a in range(rows, width, _CHUNK_ROWS):
                matrix[start + a : start + a + _CHUNK_ROWS, start : start + rows] = tile[:, a : a + _CHUNK_ROWS].T
        del matrix
    finally:
        pages.close()


def _confirmed(fd: int, sink: _Sink, crc: int, start: int, stop: int, first: int) -> bool:
    """Whether this process's file holds, at rows [start, stop) and columns [first, …), a
    block whose CRC-32 is ``crc`` (what its task reported writing)."""
    width = (sink.n_cols - first) * _ITEMSIZE
    found = 0
    for r in range(start, stop):
        found = zlib.crc32(_pread_all(fd, width, sink.offset + (r * sink.n_cols + first) * _ITEMSIZE), found)
    return found == crc


def _read_matrix(fd: int, sink: _Sink) -> np.ndarray:
    """The matrix of the sink's (temporary) file as an array in memory: on POSIX a private
    copy-on-write map of the file, which outlives its removal (no copy: the pages the tasks
    wrote become the array's); elsewhere read into a new array."""
    shape = ((sink.size - sink.offset) // (_ITEMSIZE * max(sink.n_cols, 1)), sink.n_cols)
    if os.name != "posix" or sink.size == sink.offset:
        return np.fromfile(sink.path, dtype=np.float64, offset=sink.offset).reshape(shape)
    pages = mmap.mmap(fd, sink.size, access=mmap.ACCESS_COPY)
    return np.frombuffer(pages, dtype=np.float64, offset=sink.offset).reshape(shape)


def _pwrite_all(fd: int, buf: Any, offset: int) -> None:
    """All of ``buf`` (bytes, or a C-contiguous array) at byte ``offset`` of ``fd``."""
    if hasattr(os, "pwrite"):  # the common case in one call: a block writes thousands of rows
        written = os.pwrite(fd, buf, offset)
        if written == (buf.nbytes if isinstance(buf, np.ndarray) else len(buf)):
            return
        buf, offset = memoryview(buf).cast("B")[written:], offset + written
    view = memoryview(buf).cast("B")
    while view:
        if hasattr(os, "pwrite"):
            n = os.pwrite(fd, view, offset)
        else:  # pragma: no cover - Windows
            os.lseek(fd, offset, os.SEEK_SET)
            n = os.write(fd, view)
        view, offset = view[n:], offset + n


def _pread_all(fd: int, size: int, offset: int) -> bytes:
    parts = []
    while size > 0:
        if hasattr(os, "pread"):
            chunk = os.pread(fd, size, offset)
        else:  # pragma: no cover - Windows
            os.lseek(fd, offset, os.SEEK_SET)
            chunk = os.read(fd, size)
        if not chunk:
            raise DataFormatError(f"The Gram file ends before byte {offset + size}: it was truncated.")
        parts.append(chunk)
        size, offset = size - len(chunk), offset + len(chunk)
    return b"".join(parts)


def _sync(fd: int) -> None:
    (os.fdatasync if hasattr(os, "fdatasync") else os.fsync)(fd)


def _block_work(
    kernel: Any,
    rows: list,
    cols: list,
    symmetric: bool,
    n_jobs: int | None,
    show: bool,
    options: dict[str, Any],
    feature_bytes: int | None,
) -> tuple[Any, tuple[Shared, ...], bool]:
    """The block function, the data every block reads (sent to each worker once), and whether
    a block of a symmetric Gram computes only its upper part and mirrors it: for inner
    products of features, and for kernels known PDS (hence symmetric). Another kernel may
    have K(x, y) ≠ K(y, x) (an edit distance with different insertion and deletion costs),
    so every entry is computed. Features are built with about ``feature_bytes`` of working
    memory beyond their matrix (:func:`feature_memory`; None: in one pass)."""
    # options (strategy=, a plugin's own keywords) are the family's gram's to interpret: with
    # any, every block calls gram with them, exactly as the in-memory call would
    with feature_memory(feature_bytes):
        features = (
            None
            if options
            else kernel.gram_features(rows, None if symmetric else cols, n_jobs=n_jobs, show_progress=show)
        )
    if features is not None:
        trim_heap()
        F, G = features
        # every ‖F_i‖², ‖G_j‖² finite: then no inner product of a block overflows (Cauchy–Schwarz)
        for part in (F,) if G is F else (F, G):
            feature_sq_norms(part, kernel)
        rows_shared = Shared(sp.csr_matrix(F))
        # one object when G is F: pickled (and scattered) once per task, not twice
        cols_shared = rows_shared if G is F else Shared(sp.csr_matrix(G))
        return _feature_block, (rows_shared, cols_shared), symmetric
    mirror = symmetric and kernel.is_pds is True
    return _kernel_block, (Shared(kernel), Shared(rows), Shared(cols), Shared(options)), mirror


#: Rows of G_J per sparse product in :func:`_feature_block`, and per transposed copy in
#: :func:`_write_tile`: what bounds a block's transients beyond its tile.
_CHUNK_ROWS = 128


def _feature_block(F: sp.csr_matrix, G: sp.csr_matrix, start: int, stop: int, first: int) -> np.ndarray:
    """F_I · G_Jᵀ for rows I = [start, stop) and columns J = [first, n), as (G_J · F_Iᵀ)ᵀ on
    chunks of rows of G_J: a chunk is a view of G's arrays (no copy), only the small F_I is
    transposed, and the sparse product of one chunk at a time (12 bytes an entry) is held
    beside the tile; slicing G_J and transposing it would copy about nnz(G) per block."""
    transposed = F[start:stop].T.tocsr()
    tile = np.empty((stop - start, G.shape[0] - first))
    for a in range(first, G.shape[0], _CHUNK_ROWS):
        b = min(a + _CHUNK_ROWS, G.shape[0])
        tile[:, a - first : b - first] = (_rows_view(G, a, b) @ transposed).toarray().T
    return tile


def _rows_view(G: sp.csr_matrix, a: int, b: int) -> sp.csr_matrix:
    """Rows [a, b) of G on views of its arrays. Not through scipy's constructor, which copies
    a view of a much larger array (``_prune_array``): about nnz(G_J) bytes per chunk."""
    lo, hi = G.indptr[a], G.indptr[b]
    view = sp.csr_matrix((b - a, G.shape[1]), dtype=G.dtype)
    view.data, view.indices, view.indptr = G.data[lo:hi], G.indices[lo:hi], G.indptr[a : b + 1] - lo
    return view


def _kernel_block(
    kernel: Any, rows: list, cols: list, options: dict[str, Any], start: int, stop: int, first: int
) -> np.ndarray:
    tile = np.asarray(kernel.gram(rows[start:stop], cols[first:], **options), dtype=np.float64)
    expected = (stop - start, len(cols) - first)
    if tile.shape != expected:
        raise DataFormatError(
            f"{type(kernel).__name__}.gram returned a {tile.shape} block for {expected[0]} × {expected[1]} inputs."
        )
    return tile
