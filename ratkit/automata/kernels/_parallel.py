"""Process-based parallel map with a progress bar (pynini holds the GIL: threads don't help)."""

from __future__ import annotations

import functools
import multiprocessing as mp
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

import joblib
import numpy as np
from tqdm.auto import tqdm

from ratkit.exceptions import ParameterError

__all__ = ["map_chunks", "pair_matrix"]

T = TypeVar("T")


def _processes(n_jobs: int | None) -> int:
    """:func:`joblib.effective_n_jobs`: None → 1 (or the ``n_jobs`` of an enclosing
    :func:`joblib.parallel_config`), −1 → all cores, −2 → all but one, k → k; 0 is refused."""
    if n_jobs == 0:  # joblib's own refusal is a bare ValueError that does not say what is expected
        raise ParameterError(
            "The 'n_jobs' parameter must be a number of processes: an int ≥ 1, -1 for one per core, "
            "-2 for all but one, ..., or None for 1. Got 0 instead."
        )
    return joblib.effective_n_jobs(n_jobs)


def _context() -> mp.context.BaseContext:
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def map_chunks(
    func: Callable[[Sequence[Any]], T],
    items: Sequence[Any],
    *,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
    show_progress: bool = False,
    desc: str = "",
) -> list[T]:
    """[func(chunk) for chunk in chunks(items)], in order, over ``n_jobs`` processes (joblib's convention)."""
    jobs = _processes(n_jobs)
    n = len(items)
    if chunk_size is None:
        chunk_size = max(1, min(256, -(-n // (jobs * 8)))) if jobs > 1 else max(1, min(256, n))
    chunks = [items[i : i + chunk_size] for i in range(0, n, chunk_size)]
    bar = tqdm(total=n, desc=desc, disable=not show_progress, unit="seq", leave=False)
    try:
        if jobs == 1 or len(chunks) <= 1:
            out = []
            for chunk in chunks:
                out.append(func(chunk))
                bar.update(len(chunk))
            return out
        with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=_context()) as pool:
            futures = [pool.submit(func, chunk) for chunk in chunks]
            out = []
            for chunk, fut in zip(chunks, futures):
                out.append(fut.result())
                bar.update(len(chunk))
            return out
    finally:
        bar.close()


def pair_matrix(
    value: Callable[[Any, Any], float],
    left: Sequence[Any],
    right: Sequence[Any],
    *,
    symmetric: bool,
    n_jobs: int | None = None,
    show_progress: bool = False,
    desc: str = "",
) -> np.ndarray:
    """[value(left_i, right_j)] by rows over ``n_jobs`` processes; with ``symmetric`` (``right``
    is ``left`` and value(a, b) = value(b, a)) only the upper triangle is computed and mirrored.
    ``value`` must be picklable (a module-level function, or a partial of one)."""
    work = functools.partial(_pair_rows, value=value, right=right, symmetric=symmetric)
    parts = map_chunks(work, list(enumerate(left)), n_jobs=n_jobs, show_progress=show_progress, desc=desc)
    out = np.vstack(parts) if parts else np.zeros((0, len(right)))
    return np.where(np.isnan(out), out.T, out) if symmetric else out


def _pair_rows(
    chunk: Sequence[tuple[int, Any]], value: Callable[[Any, Any], float], right: Sequence[Any], symmetric: bool
):
    """Rows of :func:`pair_matrix` for a chunk of (i, left_i); NaN below the diagonal when symmetric."""
    out = np.full((len(chunk), len(right)), np.nan)
    for r, (i, a) in enumerate(chunk):
        for j, b in enumerate(right):
            if symmetric and j < i:
                continue
            out[r, j] = value(a, b)
    return out
