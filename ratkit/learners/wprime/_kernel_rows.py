"""The fallback for kernels without a feature automaton: DCD on kernel rows, cached.

When K is not of the form T ∘ T⁻¹ with enumerable features (e.g. exp(−t·edit
distance)), W′ has no finite representation; the gradient is then read from a vector
∇f = Qα − e kept up to date with one kernel row per step that changes α (as LIBSVM
does). The whole kernel matrix is computed at once when it fits in ``cache_size``
megabytes; otherwise rows are computed on demand and the most recently used are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from ratkit.learners.dcd.epochs import epoch_gram, epoch_python
from ratkit.learners.wprime import kernel_view as view
from ratkit.learners.wprime._protocol import Epoch, EpochResult, TrainingSet, dual_solution, register_representation

__all__ = ["KernelRows", "KernelRowsWPrime", "epoch_rows"]


class KernelRows:
    """Rows of the kernel matrix [K(x_i, x_j) + shift] of the training set.

    Parameters
    ----------
    gram
        ``gram(rows)`` returns the block K[rows, :] for a list of row indices.
    full
        ``full()`` returns the whole matrix K (used when it fits in the cache).
    diag
        ``diag()`` returns K(x_i, x_i) for every i.
    n
        The number of training sequences.
    cache_size
        Megabytes for the matrix (all of it when it fits) or the row cache.
    shift
        A constant added to every entry (s² when a bias is learned by augmentation).
    """

    def __init__(
        self,
        gram: Callable[[list[int]], np.ndarray],
        full: Callable[[], np.ndarray],
        diag: Callable[[], np.ndarray],
        n: int,
        cache_size: float,
        shift: float = 0.0,
    ) -> None:
        self._gram = gram
        self.shift = shift
        self.n = n
        budget_rows = int(cache_size * 2**20 // max(8 * n, 1))
        self.full: np.ndarray | None = None
        if budget_rows >= n:
            self.full = np.ascontiguousarray(full(), dtype=np.float64) + shift
            self.diag = np.diag(self.full).copy()
        else:
            self.diag = np.asarray(diag(), dtype=np.float64) + shift
        self.capacity = max(budget_rows, 1)
        self._cache: OrderedDict[int, np.ndarray] = OrderedDict()

    def row(self, i: int) -> np.ndarray:
        if self.full is not None:
            return self.full[i]
        hit = self._cache.get(i)
        if hit is not None:
            self._cache.move_to_end(i)
            return hit
        r = np.asarray(self._gram([i]), dtype=np.float64)[0] + self.shift
        self._cache[i] = r
        if len(self._cache) > self.capacity:
            self._cache.popitem(last=False)
        return r


def epoch_rows(
    active: np.ndarray,
    size: int,
    max_old: float,
    min_old: float,
    rows: KernelRows,
    y: np.ndarray,
    qinv: np.ndarray,
    C: float,
    alpha: np.ndarray,
    grad: np.ndarray,
) -> EpochResult:
    """One pass of DCD with ∇f kept up to date; a step on α_i reads row i of K."""
    if rows.full is not None:
        return epoch_gram(active, size, max_old, min_old, rows.full, y, qinv, C, alpha, grad)

    def update(i: int, d: float, new: float) -> None:
        grad[:] += d * y * rows.row(i)

    return epoch_python(active, size, max_old, min_old, y, qinv, C, alpha, grad.__getitem__, update)


@register_representation("rows", fallback=None, stage="kernel")
class KernelRowsWPrime:
    """The ``"rows"`` representation, which every kernel has: no W′ at all, the gradient
    ∇f = Qα − e kept up to date from rows of the kernel matrix (:class:`KernelRows`); the
    model is the kernel expansion Σ_j α_j y_j K(x_j, ·)."""

    name: str
    fallback: str | None
    stage: str

    def __init__(self, data: TrainingSet, rows: KernelRows) -> None:
        self.data, self.rows = data, rows
        self.diagonal = rows.diag

    @classmethod
    def build(cls, data: TrainingSet) -> KernelRowsWPrime:
        rows_fn, full_fn, diag_fn = view.gram_function(data.kernel, data.X, data.n_jobs, data.show_progress)
        return cls(data, KernelRows(rows_fn, full_fn, diag_fn, data.n_samples, data.cache_size, data.shift))

    def epoch(self, c: int, y: np.ndarray, qinv: np.ndarray, C: float, alpha: np.ndarray) -> Epoch:
        rows, grad = self.rows, -np.ones(y.shape[0])

        def run(active: np.ndarray, size: int, max_old: float, min_old: float) -> EpochResult:
            return epoch_rows(active, size, max_old, min_old, rows, y, qinv, C, alpha, grad)

        return run

    def finish(self, c: int) -> None:
        """Nothing to do: the gradient goes with the epoch."""

    def solution(self, alphas: np.ndarray, Y: np.ndarray) -> dict[str, Any]:
        return {**dual_solution(self.data, alphas, Y), "wprime_size_": {}}
