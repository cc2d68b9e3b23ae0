"""The outer loop of dual coordinate descent and the objectives it optimises.

The L1-loss SVM primal (survey eq. (35)) and its dual (eq. (36)) are

    P(w) = ½‖w‖² + C Σ_i max(0, 1 − y_i wᵀx_i),
    f(α) = ½ αᵀQα − eᵀα,   0 ≤ α_i ≤ C,   Q_ij = y_i y_j K(x_i, x_j).

:func:`solve` runs outer iterations — one pass over a fresh random permutation of the
coordinates, done by a compiled ``epoch`` function of :mod:`ratkit.learners.dcd._epochs` —
until the projected gradients of a pass span at most ``tol`` (max ∇^P − min ∇^P ≤ tol,
the rule of Hsieh et al. 2008) or ``max_iter`` passes have run, optionally shrinking the
coordinates that sit at a bound (Hsieh et al. §3.2).

References
----------
A. Ghose, *Rational kernels: a survey*, §V-A eq. (35)–(44) and Algorithm 3.
C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi, S. Sundararajan, "A dual coordinate
descent method for large-scale linear SVM", ICML 2008, §2, §3.2 and eq. (15).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from tqdm.auto import tqdm

from ratkit.exceptions import SolverError

__all__ = ["DualResult", "solve", "primal_objective", "dual_objective"]

log = logging.getLogger(__name__)

Epoch = Callable[[np.ndarray, int, float, float], tuple[float, float, int]]

#: With shrinking, every coordinate is visited again once the passes over the shrunk active
#: set have done the work of this many full passes (so the safety passes cost at most about
#: 1/UNSHRINK_WORK of the run). A visit counts as one, or as the epoch's ``visit_cost`` when
#: it has one (the cost of its last pass's visits relative to a visit of a full pass).
#: LIBLINEAR only lets shrunk coordinates back in once the active ones meet the stopping
#: rule; on degenerate problems the active ones can stall just above a tight ``tol`` while a
#: shrunk coordinate has come to violate its optimality condition badly.
UNSHRINK_WORK = 5


@dataclass
class DualResult:
    """What one run of :func:`solve` reports.

    Attributes
    ----------
    n_iter
        Outer iterations (passes over the active coordinates) done.
    converged
        True when the stopping rule max ∇^P − min ∇^P ≤ tol held on all coordinates.
    gap
        max ∇^P − min ∇^P of the last pass.
    """

    n_iter: int
    converged: bool
    gap: float


def solve(
    epoch: Epoch,
    n: int,
    *,
    tol: float,
    max_iter: int,
    rng: np.random.RandomState,
    shrinking: bool = True,
    show_progress: bool = False,
    desc: str = "DCD",
    owner: str = "DCD",
) -> DualResult:
    """Outer loop of Algorithms 3 and 4: ``epoch(active, size, max_old, min_old)`` passes.

    Each pass visits the active coordinates ``active[:size]`` in a fresh random order;
    ``epoch`` updates α and W′ in place, moves the coordinates it shrinks behind the
    active ones and returns (max ∇^P, min ∇^P, new size). With ``shrinking`` the bounds
    of the next pass are the extreme projected gradients of this one (LIBLINEAR's rule);
    once the active coordinates meet the stopping rule, all coordinates are reactivated
    and the rule is checked on them, so a run only converges on the whole problem. They are
    also reactivated once the shrunk passes have done :data:`UNSHRINK_WORK` full passes'
    worth of work (coordinate visits, weighted by ``epoch.visit_cost`` if it exists); that
    pass keeps the shrinking bounds, so coordinates still beyond them drop out again at
    once. A run that stops at ``max_iter``
    warns with a :class:`~sklearn.exceptions.ConvergenceWarning`; a pass whose projected
    gradients are not finite raises :class:`~ratkit.exceptions.SolverError`.
    """
    gap = np.inf
    it = 0
    active = np.arange(n, dtype=np.int64)
    size = n
    max_old, min_old = np.inf, -np.inf
    shrunk_work = 0.0  # work of the shrunk passes since every coordinate was active, in visits
    bar = tqdm(total=max_iter, desc=desc, disable=not show_progress, unit="pass", leave=False)
    try:
        while it < max_iter:
            if size < n and shrunk_work >= UNSHRINK_WORK * n:  # let shrunk coordinates back in
                size = n
            if size == n:
                shrunk_work = 0.0
            active[:size] = active[:size][rng.permutation(size)]
            pgmax, pgmin, kept = epoch(active, size, max_old, min_old)
            if kept and not (np.isfinite(pgmax) and np.isfinite(pgmin)):
                raise SolverError(
                    f"{owner}: the projected gradients of pass {it + 1} are not finite (max {pgmax!r}, "
                    f"min {pgmin!r}), so the dual cannot be solved: a kernel or feature value, or a weight, "
                    "is NaN or infinite. Check the kernel's parameters and the inputs."
                )
            if size < n:
                shrunk_work += size * getattr(epoch, "visit_cost", 1.0)
            it += 1
            gap = float(pgmax - pgmin) if kept else 0.0
            bar.update(1)
            bar.set_postfix(gap=f"{gap:.2e}", active=kept, refresh=False)
            if gap <= tol:
                if kept == n:
                    log.debug("%s converged after %d passes (gap %.3g ≤ tol %.3g)", owner, it, gap, tol)
                    return DualResult(it, True, gap)
                size, max_old, min_old = n, np.inf, -np.inf  # check the rule on every coordinate
                continue
            size = kept
            if shrinking:
                max_old = pgmax if pgmax > 0 else np.inf
                min_old = pgmin if pgmin < 0 else -np.inf
    finally:
        bar.close()
    warnings.warn(
        f"{owner} did not converge in max_iter={max_iter} passes: the projected gradients still "
        f"span {gap:.3g} > tol={tol:g}. Increase max_iter, or raise tol.",
        ConvergenceWarning,
        stacklevel=3,
    )
    return DualResult(it, False, gap)


def primal_objective(w: np.ndarray, X: np.ndarray | sp.spmatrix, y: np.ndarray, C: float) -> float:
    """P(w) = ½‖w‖² + C Σ_i max(0, 1 − y_i wᵀx_i) (eq. (35)); y in {−1, +1}."""
    margins = 1.0 - np.asarray(y, dtype=np.float64) * np.asarray(X @ w).ravel()
    return 0.5 * float(np.dot(w, w)) + C * float(np.maximum(margins, 0.0).sum())


def dual_objective(alpha: np.ndarray, w: np.ndarray) -> float:
    """f(α) = ½ αᵀQα − Σ α_i = ½‖w‖² − Σ α_i, with w = Σ α_i y_i x_i (eq. (36), (42))."""
    return 0.5 * float(np.dot(w, w)) - float(np.sum(alpha))
