"""Process-based parallel map with a progress bar (pynini holds the GIL: threads don't help)."""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from tqdm.auto import tqdm

__all__ = ["effective_n_jobs", "map_chunks"]

T = TypeVar("T")


def effective_n_jobs(n_jobs: int | None) -> int:
    """joblib's convention: None → 1, −1 → all cores, −2 → all but one, k → k."""
    cores = os.cpu_count() or 1
    if n_jobs is None or n_jobs == 0:
        return 1
    if n_jobs < 0:
        return max(1, cores + 1 + n_jobs)
    return int(n_jobs)


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
    """[func(chunk) for chunk in chunks(items)], in order, over ``n_jobs`` processes."""
    jobs = effective_n_jobs(n_jobs)
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
