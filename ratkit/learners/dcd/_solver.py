"""The outer loop of dual coordinate descent and the objectives it optimises.

The L1-loss SVM primal (survey eq. (35)) and its dual (eq. (36)) are

    P(w) = ½‖w‖² + C Σ_i max(0, 1 − y_i wᵀx_i),
    f(α) = ½ αᵀQα − eᵀα,   0 ≤ α_i ≤ C,   Q_ij = y_i y_j K(x_i, x_j).

:func:`solve` runs outer iterations — one pass over a fresh random permutation of the
coordinates, done by a compiled ``epoch`` function of :mod:`ratkit.learners.dcd.epochs` —
until the projected gradients of a pass span at most ``tol`` (max ∇^P − min ∇^P ≤ tol,
the rule of Hsieh et al. 2008) or ``max_iter`` passes have run, optionally shrinking the
coordinates that sit at a bound (Hsieh et al. §3.2). Every pass is recorded: f(α) after it
and the span of its projected gradients (:class:`DualResult`), which
:func:`convergence_record` turns into a fitted learner's ``convergence_``.

References
----------
A. Ghose, *Rational kernels: a survey*, §V-A eq. (35)–(44) and Algorithm 3.
C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi, S. Sundararajan, "A dual coordinate
descent method for large-scale linear SVM", ICML 2008, §2, §3.2 and eq. (15).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from ratkit._convergence import warn_not_converged
from ratkit.exceptions import SolverError

__all__ = ["DualResult", "solve", "primal_objective", "dual_objective", "convergence_record"]

log = logging.getLogger(__name__)

#: ``epoch(active, size, max_old, min_old) -> (max ∇^P, min ∇^P, new size[, Δf])``: Δf, the
#: change of f(α) over the pass, is optional (every epoch of ratkit gives it; a pass without
#: it records f as NaN).
Epoch = Callable[[np.ndarray, int, float, float], tuple[float, float, int] | tuple[float, float, int, float]]

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
    dual_objective
        f(α) = ½αᵀQα − eᵀα after each pass (``n_iter`` entries; the solver minimises f, so
        they do not increase): the f of the starting point plus the changes the passes
        report (NaN from a pass of an epoch that reports none).
    pg_gap
        max ∇^P − min ∇^P of each pass, what the stopping rule compares with ``tol``; over
        the active coordinates only on a shrunk pass, 0 on a pass that shrank them all.
    """

    n_iter: int
    converged: bool
    gap: float
    dual_objective: list[float] = field(default_factory=list)
    pg_gap: list[float] = field(default_factory=list)


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
    dual_start: float = 0.0,
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

    Each pass records f(α) (``dual_start`` = f at the starting α, 0 at α = 0, plus the
    change each pass reports) and its gap max ∇^P − min ∇^P. With ``show_progress`` a bar
    counts the passes (no total: the run stops on ``tol``, rarely at ``max_iter``) and shows
    the current gap against ``tol``, the active coordinates and f; it stays on screen.
    """
    gap = np.inf
    it = 0
    active = np.arange(n, dtype=np.int64)
    size = n
    max_old, min_old = np.inf, -np.inf
    shrunk_work = 0.0  # work of the shrunk passes since every coordinate was active, in visits
    dual = float(dual_start)
    duals: list[float] = []
    gaps: list[float] = []
    bar = tqdm(total=None, desc=desc, disable=not show_progress, unit=" passes", leave=True)
    try:
        while it < max_iter:
            if size < n and shrunk_work >= UNSHRINK_WORK * n:  # let shrunk coordinates back in
                size = n
            if size == n:
                shrunk_work = 0.0
            active[:size] = active[:size][rng.permutation(size)]
            pgmax, pgmin, kept, *change = epoch(active, size, max_old, min_old)
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
            dual += float(change[0]) if change else math.nan
            duals.append(dual)
            gaps.append(gap)
            bar.set_postfix(
                {"gap": f"{gap:.2e}", "tol": f"{tol:.1e}", "active": kept, "f": f"{dual:.6g}"}, refresh=False
            )
            bar.update(1)
            if gap <= tol:
                if kept == n:
                    log.debug("%s converged after %d passes (gap %.3g ≤ tol %.3g)", owner, it, gap, tol)
                    return DualResult(it, True, gap, duals, gaps)
                size, max_old, min_old = n, np.inf, -np.inf  # check the rule on every coordinate
                continue
            size = kept
            if shrinking:
                max_old = pgmax if pgmax > 0 else np.inf
                min_old = pgmin if pgmin < 0 else -np.inf
    finally:
        bar.close()
    warn_not_converged(
        owner,
        max_iter,
        "passes",
        f"the projected gradients still span {gap:.3g} > tol={tol:g}",
        "Increase max_iter, or raise tol.",
    )
    return DualResult(it, False, gap, duals, gaps)


def convergence_record(results: Sequence[DualResult], tol: float) -> dict[str, Any]:
    """The ``convergence_`` of a fit that solved the independent duals ``results`` (one per
    binary problem): per pass t, ``dual_objective`` Σ_c f_c(α_c) and ``pg_gap`` max_c gap_c,
    a problem that stopped before pass t counting with its last pass (so there are
    max_c n_iter_c entries, and the last gap is ≤ ``tol`` when every problem converged);
    ``tol``; and ``problems``, each problem's own ``dual_objective`` and ``pg_gap``."""
    length = max((r.n_iter for r in results), default=0)

    def padded(values: list[float]) -> np.ndarray:
        return np.asarray(values + values[-1:] * (length - len(values)), dtype=np.float64)

    duals = sum((padded(r.dual_objective) for r in results), np.zeros(length))
    gaps = np.max([padded(r.pg_gap) for r in results], axis=0) if results and length else np.zeros(0)
    return {
        "dual_objective": [float(v) for v in duals],
        "pg_gap": [float(v) for v in gaps],
        "tol": float(tol),
        "problems": [{"dual_objective": list(r.dual_objective), "pg_gap": list(r.pg_gap)} for r in results],
    }


def primal_objective(w: np.ndarray, X: np.ndarray | sp.spmatrix, y: np.ndarray, C: float) -> float:
    """P(w) = ½‖w‖² + C Σ_i max(0, 1 − y_i wᵀx_i) (eq. (35)); y in {−1, +1}."""
    margins = 1.0 - np.asarray(y, dtype=np.float64) * np.asarray(X @ w).ravel()
    return 0.5 * float(np.dot(w, w)) + C * float(np.maximum(margins, 0.0).sum())


def dual_objective(alpha: np.ndarray, w: np.ndarray) -> float:
    """f(α) = ½ αᵀQα − Σ α_i = ½‖w‖² − Σ α_i, with w = Σ α_i y_i x_i (eq. (36), (42))."""
    return 0.5 * float(np.dot(w, w)) - float(np.sum(alpha))
