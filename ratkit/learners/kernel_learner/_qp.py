"""The kernel-learning QP (63) with cvxpy, and the kernel weights μ read off its multipliers.

For a count matrix X ∈ ℝ^{l×p} (X_ik = ``|x_i|_k``), labels y ∈ {−1, +1}^l, a box C > 0 and
a trace Λ > 0, the kernel K_μ = Σ_k μ_k X_k X_kᵀ (eq. (56)) of least SVM dual value

    min_{μ ∈ M} max_{α ∈ A} f(μ, α) = 2αᵀ1 − Σ_k μ_k (αᵀ Y X_k)²                    (59)
    M = {μ ≥ 0, Σ_k μ_k ‖X_k‖² = Λ},   A = {0 ≤ α ≤ C, αᵀy = 0}

is found through the equivalent QP in (α, t), with u′_k = Y X_k / ‖X_k‖,

    min −2αᵀ1 + Λ t²   s.t.  α ∈ A,  −t ≤ αᵀu′_k ≤ t  (k = 1..p).                     (63)

Let β′_k ≥ 0 and β_k ≥ 0 be the multipliers of αᵀu′_k ≤ t and −αᵀu′_k ≤ t (the
variables β′, β of the dual (67), which the solver returns with the primal) and
ν_k = β_k + β′_k. Stationarity in t gives Σ_k ν_k = 2Λt (eq. (65)); stationarity in α
(eq. (66)) with complementary slackness (β′_k − β_k = ν_k αᵀu′_k / t) is the KKT system
of the SVM dual (57) for the kernel with

    μ_k = ν_k / (2t ‖X_k‖²) = Λ ν_k / (‖X_k‖² Σ_j ν_j),

so (μ, α) is a saddle point of (59) and the value of (63) is −f(μ, α). When t = 0 at the
optimum every ν_k is 0; then f(μ, α) = 2αᵀ1 for every μ ∈ M and α is optimal for all of
them, so any μ ∈ M is a saddle point; the normalised formula above then returns one of them
(the uniform μ_k = Λ / Σ_j ‖X_j‖² if every ν_k is exactly 0).

References
----------
A. Ghose, *Rational kernels: a survey*, §VI eq. (55)–(67), Lemmas 12–15.
C. Cortes, M. Mohri, A. Rostamizadeh, "Learning sequence kernels", MLSP 2008.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ratkit._validation import check_real
from ratkit.exceptions import ParameterError, SolverError, TrainingDataError

__all__ = ["KernelQPResult", "solve_kernel_qp", "check_labels", "check_status", "QP_SOLVERS"]

log = logging.getLogger(__name__)

#: cvxpy solvers that can solve the QP (63) (the ones installed with cvxpy).
QP_SOLVERS: tuple[str, ...] = ("CLARABEL", "OSQP", "SCS", "HIGHS")


@dataclass
class KernelQPResult:
    """The solution of (63) and the kernel weights read from it.

    Attributes
    ----------
    mu
        μ ≥ 0 with Σ_k μ_k ‖X_k‖² = Λ: the learned kernel is Σ_k μ_k X_k X_kᵀ.
    alpha
        The optimal α of (63), also an SVM dual solution for the kernel K_μ.
    t
        The optimal t = max_k ``|αᵀu′_k|``.
    objective
        The optimal value −2αᵀ1 + Λt² of (63) (= −f(μ, α) of (57)).
    upper, lower
        Multipliers β′ of αᵀu′_k ≤ t and β of −αᵀu′_k ≤ t, as the solver returned them.
    trace
        Λ.
    status
        The cvxpy status (always ``"optimal"``: any other raises :class:`SolverError`).
    solver
        The cvxpy solver used.
    solve_time
        Wall-clock seconds for building and solving the problem.
    n_iter
        Solver iterations (None when the solver does not report them).
    """

    mu: np.ndarray
    alpha: np.ndarray
    t: float
    objective: float
    upper: np.ndarray
    lower: np.ndarray
    trace: float
    status: str
    solver: str
    solve_time: float
    n_iter: int | None


def check_labels(y: Any, n_samples: int, owner: str) -> np.ndarray:
    """y as a float array of ±1 of length ``n_samples``, holding both −1 and +1."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise TrainingDataError(f"{owner}: y must be a 1-d array of labels in {{−1, +1}}; got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise TrainingDataError(
            f"{owner}: X has {n_samples} samples but y has {y.shape[0]} labels; give one label per sample."
        )
    numeric = y.dtype.kind in "iuf"
    bad = ~np.isin(y, (-1, 1)) if numeric else np.ones(y.shape, bool)
    if bad.any():
        values = sorted({repr(v.item() if hasattr(v, "item") else v) for v in y[bad]})
        shown = ", ".join(values[:3]) + (", ..." if len(values) > 3 else "")
        raise TrainingDataError(
            f"{owner} needs labels in {{−1, +1}}; got {shown}. Map the two classes to −1 and +1, "
            "e.g. y = np.where(labels == 'acq', 1, -1)."
        )
    y = y.astype(np.float64)
    if np.unique(y).shape[0] < 2:
        raise TrainingDataError(
            f"{owner} needs samples of both classes −1 and +1; got only {int(y[0]):+d}. The SVM "
            "dual of (59) needs both (αᵀy = 0); add samples of the other class."
        )
    return y


def _check_counts(counts: Any, owner: str, names: Sequence[Any] | None) -> sp.csc_matrix:
    X = sp.csc_matrix(counts, dtype=np.float64)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise TrainingDataError(f"{owner}: the count matrix is empty (shape {X.shape}); it needs samples and patterns.")
    if not np.all(np.isfinite(X.data)) or np.any(X.data < 0):
        raise TrainingDataError(f"{owner}: the count matrix must hold finite counts ≥ 0 (|x_i|_k).")
    sq = np.asarray(X.multiply(X).sum(axis=0)).ravel()
    zero = np.flatnonzero(sq == 0)
    if zero.size:
        k = int(zero[0])
        which = f"Pattern {names[k]!r} (column {k})" if names is not None else f"Column {k}"
        more = f" ({zero.size - 1} more never occur too)" if zero.size > 1 else ""
        raise TrainingDataError(
            f"{which} never occurs in the training sequences (‖X_k‖ = 0){more}, so "
            "u′_k = Y X_k / ‖X_k‖ of (62) is undefined. Remove such patterns, or choose patterns "
            "that occur in the data, e.g. most_frequent_patterns(X, n=2, p=...)."
        )
    return X


def _check_positive(value: Any, name: str, owner: str, meaning: str) -> float:
    """``value`` as a finite float > 0 (:func:`ratkit._validation.check_real`), the error saying what it means."""
    try:
        return check_real(value, name, owner, low=0.0, low_open=True)
    except ParameterError as exc:
        raise type(exc)(f"{exc} ({name} is {meaning}.)") from None


def _check_solver(solver: Any, owner: str) -> str:
    name = str(solver).upper() if isinstance(solver, str) else None
    installed = [s for s in QP_SOLVERS if s in cp.installed_solvers()]
    if name not in installed:
        raise ParameterError(
            f"The 'solver' parameter of {owner} must be a cvxpy QP solver that is installed, one "
            f"of {', '.join(map(repr, installed))}. Got {solver!r} instead."
        )
    return name


def check_status(status: str, solver: str) -> None:
    """Raise :class:`SolverError` unless cvxpy's ``status`` is ``"optimal"``.

    ``"optimal_inaccurate"`` is refused too: multipliers of a loosely solved QP can give
    weights μ far from the optimal ones, and nothing downstream would notice.
    """
    if status == cp.OPTIMAL:
        return
    hint = {
        cp.OPTIMAL_INACCURATE: "it stopped before reaching its tolerances, so μ would be "
        "unreliable; raise its iteration limit in solver_options",
        cp.USER_LIMIT: "it hit an iteration or time limit; raise the limit in solver_options",
        cp.INFEASIBLE: "(63) is always feasible (α = 0, t = 0), so this is a numerical failure",
        cp.UNBOUNDED: "(63) is bounded (α lies in a box), so this is a numerical failure",
    }
    reason = hint.get(status) or hint.get(status.replace("_inaccurate", ""), "the solver failed")
    raise SolverError(
        f"cvxpy solver {solver} returned status {status!r} on the kernel-learning QP (63): "
        f"{reason}. No kernel weights were computed; try another solver (solver='CLARABEL') or "
        "rescale the counts."
    )


def solve_kernel_qp(
    counts: Any,
    y: Any,
    *,
    C: float = 1.0,
    trace: float | None = None,
    solver: str = "CLARABEL",
    solver_options: Mapping[str, Any] | None = None,
    names: Sequence[Any] | None = None,
    owner: str = "solve_kernel_qp",
) -> KernelQPResult:
    """μ = argmin_{μ ∈ M} max_{α ∈ A} 2αᵀ1 − Σ_k μ_k (αᵀYX_k)², by the QP (63)'s multipliers.

    Parameters
    ----------
    counts
        X ∈ ℝ^{l×p}, X_ik = ``|x_i|_k`` (dense or sparse); every column must be non-zero.
    y
        Labels in {−1, +1}, both present.
    C
        The SVM box 0 ≤ α ≤ C, > 0.
    trace
        Λ > 0, the trace Σ_k μ_k ‖X_k‖² of the learned kernel matrix; None: Σ_k ‖X_k‖²,
        the trace of the uniform kernel (μ = 1).
    solver
        A cvxpy solver installed with cvxpy: ``"CLARABEL"`` (default), ``"OSQP"``,
        ``"SCS"`` or ``"HIGHS"``.
    solver_options
        Keyword arguments passed on to the solver.
    names
        Names of the columns (patterns), for error messages.

    Returns
    -------
    KernelQPResult

    Raises
    ------
    TrainingDataError
        Labels not ±1, a single class, a pattern that never occurs.
    SolverError
        The solver failed or returned a status other than optimal.

    References
    ----------
    A. Ghose, *Rational kernels: a survey*, §VI, eq. (59), (62)–(67).
    """
    X = _check_counts(counts, owner, names)
    n, p = X.shape
    y = check_labels(y, n, owner)
    C = _check_positive(C, "C", owner, "the SVM box 0 ≤ α ≤ C")
    sq = np.asarray(X.multiply(X).sum(axis=0)).ravel()
    if trace is None:
        trace = float(sq.sum())
    Lam = _check_positive(
        trace,
        "trace",
        owner,
        "Λ, the trace of the learned kernel matrix, or None for that of the uniform kernel",
    )
    solver = _check_solver(solver, owner)
    # U′ᵀ (p × l): row k is (Y X_k / ‖X_k‖)ᵀ.
    Ut = sp.csr_matrix(sp.diags(1.0 / np.sqrt(sq)) @ X.T @ sp.diags(y))

    start = time.perf_counter()
    alpha, t = cp.Variable(n), cp.Variable()
    margin = Ut @ alpha
    upper, lower = margin <= t, -margin <= t
    problem = cp.Problem(
        cp.Minimize(-2 * cp.sum(alpha) + Lam * cp.square(t)),
        [alpha >= 0, alpha <= C, y @ alpha == 0, upper, lower],
    )
    try:
        with warnings.catch_warnings():  # an inaccurate status raises below, with a clearer message
            warnings.filterwarnings("ignore", message="Solution may be inaccurate", category=UserWarning)
            problem.solve(solver=solver, **dict(solver_options or {}))
    except cp.error.SolverError as exc:
        raise SolverError(
            f"cvxpy solver {solver} failed on the kernel-learning QP (63) ({n} samples, {p} "
            f"patterns): {exc} Try another solver, e.g. solver='CLARABEL'."
        ) from None
    except TypeError as exc:
        raise ParameterError(f"The 'solver_options' parameter of {owner} was refused by {solver}: {exc}") from None
    elapsed = time.perf_counter() - start
    check_status(problem.status, solver)

    a = np.asarray(alpha.value, dtype=np.float64)
    tv = np.nan if t.value is None else float(t.value)
    beta_up = np.asarray(upper.dual_value, dtype=np.float64)
    beta_lo = np.asarray(lower.dual_value, dtype=np.float64)
    nu = np.maximum(beta_up, 0.0) + np.maximum(beta_lo, 0.0)
    if (
        nu.shape != (p,)
        or a.shape != (n,)
        or not np.isfinite(tv)
        or not np.all(np.isfinite(nu))
        or not np.all(np.isfinite(a))
    ):
        raise SolverError(
            f"cvxpy solver {solver} reported status {problem.status!r} on the kernel-learning QP "
            "(63) but returned no finite α or multipliers, so μ cannot be recovered; try "
            "solver='CLARABEL'."
        )
    if nu.sum() <= 0:
        # Σν = 2Λt = 0: every μ in M is a saddle point with α (module docstring).
        log.info(
            "t = %.3g and no active multiplier: every μ in M is optimal; returning the uniform one",
            tv,
        )
        mu = np.full(p, Lam / sq.sum())
    else:
        mu = Lam * nu / (sq * nu.sum())
    stats = problem.solver_stats
    n_iter = None if stats is None or stats.num_iters is None else int(stats.num_iters)
    log.info(
        "kernel QP (63): %d samples, %d patterns, %s status %s in %.2f s; %d patterns with μ > 0",
        n,
        p,
        solver,
        problem.status,
        elapsed,
        int(np.count_nonzero(mu)),
    )
    return KernelQPResult(
        mu=mu,
        alpha=a,
        t=tv,
        objective=float(problem.value),
        upper=beta_up,
        lower=beta_lo,
        trace=Lam,
        status=str(problem.status),
        solver=solver,
        solve_time=elapsed,
        n_iter=n_iter,
    )
