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
on the file's lock, so maps are faster
(measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)').

A worker may not see this process's file system (a Dask cluster on other machines), so
each run writes a random stamp into the file's header padding; a task writes only into a
file whose header holds that stamp, and otherwise returns its tile, which this process then
writes. A block counts as done only when this process has read it back from its own file
and found the checksum the task reported (else it computes the block again). A block a
task wrote through a map of the shared-memory file is not read back: that file is on this
machine, only this run's file holds its stamp, and the map's pages are this process's.

Each finished block is recorded in ``gram.npy.manifest.json`` (:mod:`ratkit.automata.kernels.gram_file`).
Only when every block is in does the partial file become ``gram.npy`` (``os.replace``, the
stamp blanked first): an interrupted run never leaves a file that looks complete.
``resume=True`` checks the manifest against the request and computes only the blocks it does
not list; :func:`write_gram` returns the :class:`~ratkit.automata.kernels.gram_file.GramFile`.

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
import functools
import logging
import os
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit._files import locked
from ratkit._memory import trim_heap
from ratkit._parallel import Shared, parallel_map, runs_in_this_process, sequential
from ratkit.automata.kernels._float_range import feature_sq_norms
from ratkit.automata.kernels._npy_sink import (
    _CHUNK_ROWS,
    _ITEMSIZE,
    _blank_stamp,
    _confirmed,
    _create_npy,
    _map_tile,
    _open_sink,
    _read_matrix,
    _Sink,
    _stamped,
    _sync,
    _write_tile,
)
from ratkit.automata.kernels.gram_file import (
    GramFile,
    _fingerprint,
    _gram_target,
    _gram_write_error,
    _open,
    _refuse_existing,
    _write_manifest,
    partial_path,
    rows_per_block,
)
from ratkit.automata.kernels.inputs import as_collection
from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError, RatkitError

__all__ = ["blocked_gram", "write_gram"]

log = logging.getLogger(__name__)


def blocked_gram(
    kernel: Any,
    X: Any,
    Y: Any = None,
    *,
    n_jobs: int | None = None,
    out: str | os.PathLike[str] | None = None,
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
    ``gram`` for every block. What :meth:`Kernel.gram <ratkit.automata.kernels.Kernel.gram>`
    calls for ``out=``, ``block_bytes=``, ``resume=``, ``overwrite=``, and for ``n_jobs=``
    when the family does not take it.
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
        return written.open()
    rows, cols, per_block = _request(kernel, X, Y, block_bytes, resume, overwrite, out)
    matrix = _compute(kernel, rows, cols, Y is None, per_block, n_jobs, bool(show_progress), options, None, None)
    assert matrix is not None  # without a target, the matrix is in memory
    return matrix


def write_gram(
    kernel: Any,
    X: Any,
    Y: Any = None,
    *,
    out: str | os.PathLike[str],
    n_jobs: int | None = None,
    block_bytes: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    show_progress: bool | None = None,
    **options: Any,
) -> GramFile:
    """Write K = [kernel(x_i, y_j)] to the ``.npy`` file ``out`` block by block and return the
    :class:`~ratkit.automata.kernels.gram_file.GramFile`, without mapping the matrix: the file
    may be larger than the process's address space (:meth:`GramFile.open
    <ratkit.automata.kernels.gram_file.GramFile.open>` maps it).

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
            resumed = len(manifest["done"])
            if manifest["complete"]:
                return GramFile._of(target, manifest, resumed)
            _compute(kernel, rows, cols, symmetric, manifest["rows_per_block"], n_jobs, show, options, target, manifest)
            # the rename first: a manifest marked complete always means gram.npy is the new matrix
            os.replace(partial_path(target), target)
        except OSError as exc:
            if isinstance(exc, RatkitError) and exc.errno is None:  # not a failed write: a refusal
                raise
            raise _gram_write_error(exc, target, manifest) from exc
        manifest["complete"] = True
        _write_manifest(target, manifest)
    return GramFile._of(target, manifest, resumed)


def _request(
    kernel: Any, X: Any, Y: Any, block_bytes: Any, resume: Any, overwrite: Any, out: Any
) -> tuple[list[Any], list[Any], int]:
    """(rows, columns, rows per block) of a checked request, the kernel having learned what it
    infers from all the data."""
    rows = as_collection(X, "X")
    cols = rows if Y is None else as_collection(Y, "Y")
    per_block = rows_per_block(block_bytes, len(cols))
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


def _compute(
    kernel: Any,
    rows: list[Any],
    cols: list[Any],
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
    memory: np.ndarray | None = None
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
                if sink is None or fd is None:
                    assert memory is not None
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
                if target is not None and manifest is not None:
                    manifest["done"].append(todo[position])
                    _write_manifest(target, manifest)
            if returned and sink is not None and sink.stamp:
                log.info(
                    "%d of %d Gram blocks came back to be written by this process: their workers do not see %s.",
                    returned,
                    len(tasks),
                    sink.path,
                )
        if sink is not None and fd is not None and target is None:
            memory = _read_matrix(fd, sink)
        elif sink is not None and fd is not None:
            _blank_stamp(fd, sink)
    return memory


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
    if sink is None:
        return tile
    fd = _open_sink(sink)
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
    crc = zlib.crc32(tile.data)
    del tile
    trim_heap()  # the tile and its transients, which the allocator would keep, go back to the system
    return crc


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
    about doubled the cost of the writes
    (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)')."""
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


def _block_work(
    kernel: Any,
    rows: list[Any],
    cols: list[Any],
    symmetric: bool,
    n_jobs: int | None,
    show: bool,
    options: dict[str, Any],
    work_bytes: int | None,
) -> tuple[Any, tuple[Shared, ...], bool]:
    """The block function, the data every block reads (sent to each worker once), and whether
    a block of a symmetric Gram computes only its upper part and mirrors it: for inner
    products of features, and for kernels known PDS (hence symmetric). Another kernel may
    have K(x, y) ≠ K(y, x) (an edit distance with different insertion and deletion costs),
    so every entry is computed. Features are built with about ``work_bytes`` of working
    memory beyond their matrix (``gram_features(work_bytes=)``; None: in one pass)."""
    # options (strategy=, a plugin's own keywords) are the family's gram's to interpret: with
    # any, every block calls gram with them, exactly as the in-memory call would
    budget = {} if work_bytes is None else {"work_bytes": max(int(work_bytes), 1)}
    features = (
        None
        if options
        else kernel.gram_features(rows, None if symmetric else cols, n_jobs=n_jobs, show_progress=show, **budget)
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
