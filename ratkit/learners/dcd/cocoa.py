"""The local solver of CoCoA+ (adding, γ = 1): DCD on one partition's subproblem.

The L1-loss SVM dual of :mod:`ratkit.learners.dcd` is split over K partitions of the rows,

    D(α) = Σ_i α_i − ½‖w(α)‖²,   w(α) = Σ_i α_i y_i x_i,   0 ≤ α_i ≤ C,

and each round every partition k improves its own block α_[k] against the shared w by
(approximately) maximising the CoCoA+ local subproblem (Ma et al. 2015, eq. (10))

    G_k(Δα_[k]) = Σ_{i∈k} Δα_i − wᵀ A_k Δα_[k] − (σ′/2)‖A_k Δα_[k]‖²,   0 ≤ α_i + Δα_i ≤ C,

where A_k Δα_[k] = Σ_{i∈k} Δα_i y_i x_i; then w += Σ_k A_k Δα_[k] and α += Δα. With
σ′ = K (the safe choice for adding) every round increases D; with σ′ = 1 and the partitions
one after another (each from the w the previous one left) a round is a DCD pass.

A coordinate step on G_k is the DCD step of
:func:`~ratkit.learners.dcd.epochs.epoch_indexed` in the variables α′ = σ′α: the gradient is
y_i x_iᵀv − 1 with v = w + σ′A_kΔα, the curvature σ′‖x_i‖², so the step on α′_i is the plain
Newton step −G/‖x_i‖² clipped to [0, σ′C], and v += Δα′_i y_i x_i. So the compiled pass runs
unchanged on the rows, from (α′, v) = (σ′α, w) with the bound σ′C, and
A_kΔα = (v − w)/σ′, Δα = Δα′/σ′.

The duality gap P(w) − D(α) = ‖w‖² + C Σ_i max(0, 1 − y_i wᵀx_i) − Σ_i α_i (for w = w(α))
bounds P(w) − P(w*); its pieces are sums over the partitions (:func:`hinge_sum`).

Rounds gain less than passes in the tail (a round of K blocks moves D less than a DCD pass
over the same rows), so a run can *finish on the active rows*: once the gap is small, the rows
that may still be support vectors — α_i > 0 or y_i x_iᵀw < 1 + :data:`ACTIVE_MARGIN`
(:func:`active_rows`) — are gathered (:func:`rows_on_columns`) and their problem, with every
other α_j = 0, is solved by DCD passes alone (:func:`finish`), the idea of the cascade SVM (Graf
et al. 2005). w = w(α) stays exact, since the other rows have α_j = 0; the gap of the whole
problem, computed on every partition afterwards, certifies the result or shows the rows that
were missed (their hinge), which the next finish includes.

References
----------
C. Ma, V. Smith, M. Jaggi, M. I. Jordan, P. Richtárik, M. Takáč, "Adding vs. averaging in
distributed primal-dual optimization", ICML 2015. V. Smith, S. Forte, C. Ma, M. Takáč,
M. I. Jordan, M. Jaggi, "CoCoA: a general framework for communication-efficient distributed
optimization", JMLR 18 (2018). H. P. Graf, E. Cosatto, L. Bottou, I. Durdanovic, V. Vapnik,
"Parallel support vector machines: the cascade SVM", NIPS 17 (2005).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ratkit._sparse import index_dtype
from ratkit.exceptions import ParameterError
from ratkit.learners.dcd._solver import UNSHRINK_WORK
from ratkit.learners.dcd.epochs import epoch_indexed, inverse_diagonal

#: The largest multiple of the CoCoA+ update a round takes (:func:`take_step`'s line search on D).
MAX_STEP = 10.0
#: :func:`active_rows` keeps a row with α_i = 0 while its margin y_i x_iᵀw is below 1 + this:
#: rows just past the margin may still become support vectors as w moves. With 0.1, finishing
#: from a relative gap of 3·10⁻² on the scale benchmark's Reuters windows (2 blocks) kept 23 %
#: of the rows at n = 10⁵ and 17 % at 2·10⁵, and certified the whole problem at once
#: (bench/learners/distributed_rounds.py, bench/RESULTS.md).
ACTIVE_MARGIN = 0.1
#: DCD passes of :func:`finish` between two computations of its duality gap.
FINISH_PASSES = 3

__all__ = [
    "LocalRows",
    "LocalResult",
    "local_rows",
    "local_round",
    "hinge_sum",
    "local_objective",
    "duality_gap",
    "take_step",
    "take_round",
    "active_rows",
    "rows_on_columns",
    "FinishResult",
    "finish",
    "MAX_STEP",
    "ACTIVE_MARGIN",
    "FINISH_PASSES",
]


@dataclass
class LocalRows:
    """One partition's rows x_i (CSR on its own columns).

    ``cols[j]`` is the global index of local column j; ``indptr``/``indices``/``data`` hold
    x_i on the local columns; ``qinv`` = 1 / ‖x_i‖² (+∞ for an empty row). ``state`` keeps
    the active set of each problem between rounds (shrinking), a heuristic only: a partition
    rebuilt from scratch starts again with every row active.
    """

    cols: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    qinv: np.ndarray
    state: dict[int, tuple[np.ndarray, int, int, float, float]] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        """The number of rows of the partition."""
        return int(self.indptr.shape[0] - 1)


@dataclass
class LocalResult:
    """What a round of one partition returns: Δα of its rows, A_kΔα on ``cols`` (its columns),
    and Σ hinge at the round's input w."""

    delta_alpha: np.ndarray
    delta_w: np.ndarray
    hinge: float
    visits: int


def local_rows(X: sp.csr_matrix) -> LocalRows:
    """The rows of the CSR matrix ``X`` (global columns) as a partition holds them: on the
    columns it uses."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sum_duplicates()
    used = np.zeros(X.shape[1], dtype=bool)
    used[X.indices] = True
    cols = np.flatnonzero(used)
    # int32 column ids while they fit (4 bytes an entry, not 8: the partition's largest array)
    position = np.zeros(X.shape[1], dtype=index_dtype(cols.shape[0]))
    position[cols] = np.arange(cols.shape[0])
    local = position[X.indices]  # the columns renumbered in order: O(nnz + width), no sort
    data = X.data
    sq = np.add.reduceat(data * data, X.indptr[:-1]) if data.size else np.zeros(X.shape[0])
    sq = np.where(np.diff(X.indptr) > 0, sq, 0.0)  # reduceat repeats a value at an empty row
    return LocalRows(
        cols=cols.astype(np.int64),
        indptr=X.indptr.astype(np.int64),
        indices=local,
        data=data,
        qinv=inverse_diagonal(sq),
    )


def _margins(rows: LocalRows, w_cols: np.ndarray) -> np.ndarray:
    """x_iᵀw for every row, ``w_cols`` = w on the partition's columns."""
    X = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(rows.n_rows, rows.cols.shape[0]))
    return np.asarray(X @ w_cols).ravel()


def hinge_sum(rows: LocalRows, y: np.ndarray, w_cols: np.ndarray) -> float:
    """Σ_i max(0, 1 − y_i x_iᵀw) over the partition, ``w_cols`` = w on its columns."""
    m = _margins(rows, np.asarray(w_cols, dtype=np.float64))
    return float(np.maximum(1.0 - np.asarray(y, dtype=np.float64) * m, 0.0).sum())


def local_objective(rows: LocalRows, y: np.ndarray, w_cols: np.ndarray, delta_alpha: np.ndarray, sigma: float) -> float:
    """G_k(Δα) = Σ Δα_i − wᵀA_kΔα − (σ′/2)‖A_kΔα‖² (the subproblem, up to its constant)."""
    X = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(rows.n_rows, rows.cols.shape[0]))
    v = np.asarray(X.T @ (np.asarray(delta_alpha) * np.asarray(y))).ravel()  # A_kΔα
    return float(np.sum(delta_alpha) - np.dot(w_cols, v) - 0.5 * sigma * np.dot(v, v))


def duality_gap(w_sq: float, hinge: float, alpha_sum: float, C: float) -> float:
    """P(w) − D(α) = ‖w‖² + C Σ hinge − Σ α, for w = w(α) (≥ 0; bounds P(w) − P(w*))."""
    return float(w_sq + C * hinge - alpha_sum)


def local_round(
    rows: LocalRows,
    y: np.ndarray,
    alpha: np.ndarray,
    w_cols: np.ndarray,
    C: float,
    sigma: float,
    *,
    passes: int = 1,
    rng: np.random.RandomState,
    shrinking: bool = False,
    key: int = 0,
    with_hinge: bool = True,
) -> LocalResult:
    """``passes`` DCD passes on the partition's subproblem G_k (with σ′ = ``sigma`` > 0) from
    Δα = 0 (α is not changed).

    ``w_cols`` is the shared w on the partition's columns. With ``shrinking``, a pass skips the
    rows LIBLINEAR's rule shrank in the previous passes of this round and of the earlier
    rounds of problem ``key`` (the active set, the rule's bounds and the shrunk passes' work
    kept in ``rows.state``); all rows are visited again once the shrunk passes have done
    the work of ``UNSHRINK_WORK`` (5) full passes, the single process's rule. (A full pass
    every 4 rounds, the rule before, was half of the local work on the scale benchmark's
    windows.) Returns Δα, A_kΔα on the columns and, with ``with_hinge``, Σ hinge at w.
    """
    if not sigma > 0:
        raise ParameterError(f"sigma (σ′ of CoCoA+) must be > 0; got {sigma!r}.")
    y = np.asarray(y, dtype=np.float64)
    w_cols = np.asarray(w_cols, dtype=np.float64)
    hinge = float(np.maximum(1.0 - y * _margins(rows, w_cols), 0.0).sum()) if with_hinge else float("nan")
    start = np.asarray(alpha, dtype=np.float64) * sigma
    a = start.copy()
    v = w_cols.copy()
    n = rows.n_rows
    own = np.zeros(n)
    active, size, work, max_old, min_old = rows.state.get(key, (np.arange(n, dtype=np.int64), n, 0, np.inf, -np.inf))
    if not shrinking or work >= UNSHRINK_WORK * n:
        size, work, max_old, min_old = n, 0, np.inf, -np.inf
    visits = 0
    for _ in range(passes):
        active[:size] = active[:size][rng.permutation(size)]
        visits += size
        if size < n:
            work += size
        pgmax, pgmin, kept, _ = epoch_indexed(
            active, size, max_old, min_old, rows.indptr, rows.indices, rows.data, own, y, rows.qinv, sigma * C, a, v
        )
        if shrinking and kept:
            size = kept
            max_old = pgmax if pgmax > 0 else np.inf
            min_old = pgmin if pgmin < 0 else -np.inf
    if shrinking:
        rows.state[key] = (active, size, work, max_old, min_old)
    return LocalResult((a - start) / sigma, (v - w_cols) / sigma, hinge, visits)


def take_step(
    alpha: np.ndarray, w: np.ndarray, delta_alpha: np.ndarray, delta_w: np.ndarray, C: float, max_step: float = MAX_STEP
) -> float:
    """α += γΔα, w += γΔw in place (Δw = Σ_k A_kΔα_[k] = A Δα), with the γ ∈ [0, max_step]
    that maximises the dual D(α + γΔα) = Σ(α + γΔα) − ½‖w + γΔw‖² inside the box 0 ≤ α ≤ C:
    γ = (ΣΔα − wᵀΔw) / ‖Δw‖², clipped. D is a concave quadratic along the line, so the
    step never lowers D, and at least matches γ = 1 (CoCoA+'s step, feasible) and every
    other feasible γ ≤ 1. Returns γ."""
    norm = float(np.dot(delta_w, delta_w))
    gamma = 1.0
    if norm > 0:
        gamma = (float(delta_alpha.sum()) - float(np.dot(w, delta_w))) / norm
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(
                delta_alpha > 0, (C - alpha) / delta_alpha, np.where(delta_alpha < 0, -alpha / delta_alpha, np.inf)
            )
        gamma = min(max(gamma, 0.0), float(room.min(initial=np.inf)), max_step)
    alpha += gamma * delta_alpha
    np.clip(alpha, 0.0, C, out=alpha)
    w += gamma * delta_w
    return gamma


def take_round(
    alpha: np.ndarray,
    w: np.ndarray,
    cols: Sequence[np.ndarray],
    delta_alphas: Sequence[np.ndarray],
    delta_ws: Sequence[np.ndarray],
    C: float,
) -> float:
    """A round's update from its blocks, taken by :func:`take_step`: Δα the blocks' Δα_[k]
    one after another (the blocks hold consecutive rows), Δw = Σ_k A_kΔα_[k], block k's part
    given on its columns ``cols[k]``. Returns γ."""
    delta_w = np.zeros_like(w)
    for c, part in zip(cols, delta_ws, strict=True):
        delta_w[c] += part
    delta_alpha = np.concatenate(list(delta_alphas)) if len(delta_alphas) else np.zeros(0)
    return take_step(alpha, w, delta_alpha, delta_w, C)


def active_rows(
    rows: LocalRows, y: np.ndarray, alpha: np.ndarray, w_cols: np.ndarray, margin: float = ACTIVE_MARGIN
) -> np.ndarray:
    """The rows i (ascending) with α_i > 0 or y_i x_iᵀw < 1 + ``margin``: those that may be
    support vectors of the optimum near w (``w_cols`` = w on the partition's columns)."""
    if not margin >= 0:
        raise ParameterError(f"margin must be ≥ 0; got {margin!r}.")
    m = np.asarray(y, dtype=np.float64) * _margins(rows, np.asarray(w_cols, dtype=np.float64))
    return np.flatnonzero((np.asarray(alpha) > 0) | (m < 1.0 + margin)).astype(np.int64)


def rows_on_columns(rows: LocalRows, index: np.ndarray, width: int) -> sp.csr_matrix:
    """Rows ``index`` of the partition as a CSR matrix on the global columns (``width`` of them),
    int32 column ids when they fit: what a partition sends for :func:`finish`."""
    X = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(rows.n_rows, rows.cols.shape[0]))
    sub = X[np.asarray(index, dtype=np.int64)]
    ids = rows.cols.astype(index_dtype(width))[sub.indices]
    return sp.csr_matrix((sub.data, ids, sub.indptr), shape=(sub.shape[0], width))


@dataclass
class FinishResult:
    """What :func:`finish` returns: Δα of the rows, A Δα on their columns ``cols`` (global
    ids), the relative duality gap of the rows' problem at the returned point, the passes'
    row visits and whether the gap reached the tolerance."""

    delta_alpha: np.ndarray
    cols: np.ndarray
    delta_w: np.ndarray
    relative_gap: float
    visits: int
    converged: bool


def finish(
    X: sp.csr_matrix,
    y: np.ndarray,
    alpha: np.ndarray,
    w: np.ndarray,
    C: float,
    tol: float,
    *,
    rng: np.random.RandomState,
    max_passes: int,
    passes: int = FINISH_PASSES,
) -> FinishResult:
    """Solve the dual restricted to the rows of ``X`` (global columns), from α (theirs) and
    w = Σ_i α_i y_i x_i over these rows (every other row has α = 0), by DCD passes with
    shrinking (:func:`local_round` with σ′ = 1, one partition), until the relative duality gap
    (P_X(w) − D_X(α)) / D_X(α) of the rows' problem is ≤ ``tol`` (checked every ``passes``
    passes) or ``max_passes`` passes have run. The whole problem's gap is this one plus
    C Σ hinge of the other rows at the new w."""
    rows = local_rows(X)
    y = np.asarray(y, dtype=np.float64)
    start = np.asarray(alpha, dtype=np.float64)
    a = start.copy()
    v0 = np.asarray(w, dtype=np.float64)[rows.cols]
    v = v0.copy()
    visits, done, rel = 0, 0, math.inf
    while done < max_passes:
        step = min(passes, max_passes - done)
        res = local_round(rows, y, a, v, C, 1.0, passes=step, rng=rng, shrinking=True, with_hinge=False)
        a += res.delta_alpha
        np.clip(a, 0.0, C, out=a)
        v += res.delta_w
        visits += res.visits
        done += step
        vv, total = float(np.dot(v, v)), float(a.sum())
        dual = total - 0.5 * vv
        gap = duality_gap(vv, hinge_sum(rows, y, v), total, C)
        rel = gap / dual if dual > 0 else math.inf
        if rel <= tol:
            break
    return FinishResult(a - start, rows.cols, v - v0, float(rel), visits, bool(rel <= tol))
