"""Gram matrices computed block by block: in parallel, into a memory-mapped ``.npy`` file, resumable.

``kernel.gram(X, Y, out="gram.npy", block_bytes=B)`` splits the rows of K = [k(x_i, y_j)]
into blocks of at most B bytes each and computes them as :func:`ratkit._parallel.parallel_map`
tasks — local processes, or the Dask cluster of an enclosing
``joblib.parallel_config(backend="dask")``. A symmetric Gram (Y = None) computes only the
blocks on and above the diagonal: the task of rows I = [a, b) computes K(X_I, X_{[a, n)})
and writes it both at (I, [a, n)) and, transposed, at ([a, n), I); the diagonal square is
symmetrised from its upper triangle, so the matrix is exactly symmetric.

Each finished block is written into ``gram.npy.partial`` (an ``.npy`` file opened as a
memory map for that block only, then closed, so the process never holds more than a few
blocks in memory) and recorded in ``gram.npy.manifest.json``, which also holds the shape,
the block size and fingerprints of the kernel, its options and the data. Only when every
block is in does the partial file become ``gram.npy`` (``os.replace``): an interrupted run
never leaves a file that looks complete. ``resume=True`` checks the manifest against the
request and computes only the blocks it does not list.

When the kernel has an explicit feature map (:meth:`Kernel.gram_features`), the features
are computed once, shipped to the workers once, and a block is a sparse product F_I G_Jᵀ;
otherwise a block is ``kernel.gram(X_I, Y_J, **options)``, the in-memory call on fewer rows.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import scipy.sparse as sp

from ratkit._files import atomic_write, check_output_path
from ratkit._parallel import Shared, parallel_map
from ratkit.exceptions import DataFormatError, OutputPathError, ParameterError, ParameterTypeError

__all__ = ["blocked_gram", "check_gram_output", "DEFAULT_BLOCK_BYTES", "manifest_path", "partial_path"]

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

    With ``out`` (a path ending in ``.npy``) the matrix is written there and returned as a
    read-only memory map; otherwise it is returned in memory. ``resume=True`` continues an
    interrupted run (or returns a finished one) when its manifest matches this request;
    ``overwrite=True`` recomputes and replaces an existing file, which stays intact until
    the new one is complete. ``options`` go to the family's ``gram`` for every block.
    """
    from ratkit.automata.kernels.base import as_collection

    rows = as_collection(X, "X")
    cols = rows if Y is None else as_collection(Y, "Y")
    symmetric = Y is None
    shape = (len(rows), len(cols))
    per_block = _rows_per_block(block_bytes, shape[1])
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
    kernel.learn(rows if symmetric else rows + cols)
    show = bool(out is not None if show_progress is None else show_progress)
    target = None if out is None else check_gram_output(out, resume=resume, overwrite=overwrite)
    if target is not None:
        fingerprint = _fingerprint(kernel, rows, None if symmetric else cols, options)
        manifest = _open(target, shape, symmetric, per_block, block_bytes is not None, fingerprint, resume)
        if manifest["complete"]:
            return np.load(target, mmap_mode="r")
        per_block = manifest["rows_per_block"]
    blocks = [(a, min(a + per_block, shape[0])) for a in range(0, shape[0], per_block)]
    done = set(manifest["done"]) if target is not None else set()
    todo = [b for b in range(len(blocks)) if b not in done]
    memory = None if target is not None else np.empty(shape)
    if todo:
        work, shared, mirror = _block_work(kernel, rows, cols, symmetric, n_jobs, show, options)
        tasks = [(blocks[b][0], blocks[b][1], blocks[b][0] if mirror else 0) for b in todo]
        results = parallel_map(
            work,
            tasks,
            shared=shared,
            n_jobs=n_jobs,
            ordered=False,
            show_progress=show,
            desc="Gram blocks",
            unit="block",
        )
        for position, tile in results:
            start, stop, first = tasks[position]
            if target is None:
                _place(memory, tile, start, stop, first, mirror)
                continue
            matrix = np.load(partial_path(target), mmap_mode="r+")
            _place(matrix, tile, start, stop, first, mirror)
            matrix.flush()
            del matrix
            manifest["done"].append(todo[position])
            _write_manifest(target, manifest)
    if target is None:
        return memory
    # the rename first: a manifest marked complete always means gram.npy is the new matrix
    os.replace(partial_path(target), target)
    manifest["complete"] = True
    _write_manifest(target, manifest)
    return np.load(target, mmap_mode="r")


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
    if not isinstance(out, (str, os.PathLike)):
        raise ParameterTypeError(f"The 'out' parameter of gram must be a path ending in .npy. Got {out!r} instead.")
    target = check_output_path(out, "Gram matrix file")
    if target.suffix != ".npy":
        raise ParameterError(
            f"The 'out' parameter of gram must be a path ending in .npy (a NumPy array file). Got {str(out)!r} instead."
        )
    exists = target.exists() or partial_path(target).exists()
    if exists and not (resume or overwrite):
        raise OutputPathError(
            f"The Gram matrix file {str(target)!r} (or its partial file) already exists. Pass resume=True to continue "
            "or reuse it, or overwrite=True to replace it; it is never overwritten silently."
        )
    return target


#: Parameters that say how a Gram is computed, not what it holds: a resumed run may change them.
_EXECUTION_PARAMS = ("n_jobs", "show_progress")


def _kernel_state(value: Any) -> Any:
    """What determines a kernel's values: its class, its parameters other than the execution
    options (kernel-valued ones in turn) and what it learned (:meth:`Kernel.learned_params`),
    without the caches it keeps."""
    from ratkit.automata.kernels.base import Kernel

    if isinstance(value, Kernel):
        params = {k: v for k, v in value.get_params(deep=False).items() if k not in _EXECUTION_PARAMS}
        params.update(value.learned_params())
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
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
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
            "request. Pass overwrite=True to recompute it."
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
    matrix = np.lib.format.open_memmap(partial_path(target), mode="w+", dtype=np.float64, shape=shape)
    del matrix
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
    try:
        matrix = np.load(path, mmap_mode="r")
    except (OSError, ValueError) as exc:
        raise DataFormatError(
            f"The partial Gram file {str(path)!r} cannot be read ({exc}); use overwrite=True."
        ) from exc
    if matrix.shape != shape or matrix.dtype != np.float64:
        raise DataFormatError(
            f"The partial Gram file {str(path)!r} holds a {matrix.dtype} array of shape {matrix.shape}, not the "
            f"float64 {shape} its manifest describes; use overwrite=True."
        )


def _write_manifest(target: Path, manifest: dict[str, Any]) -> None:
    with atomic_write(manifest_path(target), what="Gram manifest") as fh:
        json.dump(manifest, fh)


def _place(matrix: np.ndarray, tile: np.ndarray, start: int, stop: int, first: int, mirror: bool) -> None:
    """Write the block K(rows [start, stop), columns [first, …)) and, with ``mirror``, its transpose."""
    if not mirror:
        matrix[start:stop, first:] = tile
        return
    size = stop - start
    square = np.triu(tile[:, :size])
    tile[:, :size] = square + np.triu(square, 1).T  # exactly symmetric
    matrix[start:stop, first:] = tile
    matrix[first:, start:stop] = tile.T


def _block_work(
    kernel: Any, rows: list, cols: list, symmetric: bool, n_jobs: int | None, show: bool, options: dict[str, Any]
) -> tuple[Any, tuple[Shared, ...], bool]:
    """The block function, the data every block reads (sent to each worker once), and whether
    a block of a symmetric Gram computes only its upper part and mirrors it: for inner
    products of features, and for kernels known PDS (hence symmetric). Another kernel may
    have K(x, y) ≠ K(y, x) (an edit distance with different insertion and deletion costs),
    so every entry is computed."""
    # options (strategy=, a plugin's own keywords) are the family's gram's to interpret: with
    # any, every block calls gram with them, exactly as the in-memory call would
    features = (
        None if options else kernel.gram_features(rows, None if symmetric else cols, n_jobs=n_jobs, show_progress=show)
    )
    if features is not None:
        F, G = features
        return _feature_block, (Shared(sp.csr_matrix(F)), Shared(sp.csr_matrix(G))), symmetric
    mirror = symmetric and kernel.is_pds is True
    return _kernel_block, (Shared(kernel), Shared(rows), Shared(cols), Shared(options)), mirror


def _feature_block(F: sp.csr_matrix, G: sp.csr_matrix, start: int, stop: int, first: int) -> np.ndarray:
    """F_I · G_Jᵀ for rows I = [start, stop) and columns J = [first, n), as (G_J · F_Iᵀ)ᵀ: G_J is
    a view of G's arrays (no copy), and only the small F_I is transposed; slicing G_J and
    transposing it would copy about nnz(G) per block."""
    offset = G.indptr[first]
    view = sp.csr_matrix(
        (G.data[offset:], G.indices[offset:], G.indptr[first:] - offset), shape=(G.shape[0] - first, G.shape[1])
    )
    return np.ascontiguousarray((view @ F[start:stop].T).toarray().T, dtype=np.float64)


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
