"""One outer iteration of dual coordinate descent (Algorithms 3 and 4), compiled.

Every ``epoch_*`` function sweeps the active coordinates ``active[:size]`` in their
(already shuffled) order and, for each i, computes the gradient G = ∇_i f(α) =
(Qα)_i − 1 (eq. (41)) from the representation of W′ it is given, projects it (∇^P,
§V-A), takes the clipped Newton step of eq. (40) and updates W′ (eq. (44) / (53)).

Shrinking (Hsieh et al. 2008, §3.2, as in LIBLINEAR): a coordinate at a bound whose
gradient points outwards by more than the previous pass's extreme projected gradients
(α_i = 0 with G > ``max_old``, α_i = C with G < ``min_old``) is moved behind the active
ones and skipped until the solver checks the stopping rule on all coordinates again.
With ``max_old = +∞`` and ``min_old = −∞`` nothing is shrunk: plain Algorithm 3/4.

They return (max ∇^P, min ∇^P, new size of the active set, Δf): Δf is the change of the
dual objective f(α) = ½αᵀQα − eᵀα over the pass, summed step by step — a step δ on α_i
with gradient G_i changes f by exactly G_i δ + ½ Q_ii δ² (f is quadratic), which the clipped
Newton step makes ≤ 0 (:func:`dual_change`) — so the solver can record f after every pass
without a product by Q.

``qinv[i]`` is 1 / Q_ii, and +∞ when Q_ii = 0 (a zero feature vector): then G = −1 and
the step sends α_i to C, the boundary case of §V-A.

References
----------
A. Ghose, *Rational kernels: a survey*, §V-A eq. (38)–(44), Algorithm 3; §V-B eq. (53)–(54),
Algorithm 4. C.-J. Hsieh et al., "A dual coordinate descent method for large-scale linear
SVM", ICML 2008 (§3.2 shrinking, eq. (15) the stopping rule).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ratkit._jit import njit

__all__ = [
    "epoch_indexed",
    "epoch_gram",
    "epoch_python",
    "inverse_diagonal",
    "coordinate",
    "projected_gradient",
    "newton_step",
    "dual_change",
    "PG_ZERO",
]

#: |∇^P| below this counts as zero: no step is taken (LIBLINEAR's 1e-12).
PG_ZERO = 1e-12


def inverse_diagonal(q: np.ndarray) -> np.ndarray:
    """1 / Q_ii, with +∞ where Q_ii ≤ 0 (the boundary case of §V-A: the step goes to a bound)."""
    q = np.asarray(q, dtype=np.float64)
    out = np.full(q.shape, np.inf)
    np.divide(1.0, q, out=out, where=q > 0)
    return out


@njit
def projected_gradient(G: float, a: float, C: float) -> float:
    """∇^P_i f: G inside the box, min(0, G) at α_i = 0, max(0, G) at α_i = C."""
    if a <= 0.0:
        return min(G, 0.0)
    if a >= C:
        return max(G, 0.0)
    return G


@njit
def newton_step(G: float, a: float, qinv: float, C: float) -> float:
    """α_i ← min(max(α_i − G / Q_ii, 0), C) (eq. (40)); 1/Q_ii = +∞ when Q_ii = 0."""
    if np.isinf(qinv):
        return C if G < 0.0 else 0.0
    return min(max(a - G * qinv, 0.0), C)


@njit
def dual_change(G: float, old: float, new: float, qinv: float) -> float:
    """f(α + δ e_i) − f(α) = G δ + ½ Q_ii δ², δ = new − old, for f = ½αᵀQα − eᵀα and
    G = ∇_i f(α); Q_ii = 1 / ``qinv`` (0 when ``qinv`` = +∞)."""
    d = new - old
    if d == 0.0:
        return 0.0
    q = 0.0 if np.isinf(qinv) else 1.0 / qinv
    return d * (G + 0.5 * q * d)


@njit
def coordinate(G: float, a: float, qinv: float, C: float, max_old: float, min_old: float) -> tuple[bool, float, float]:
    """(shrink?, ∇^P, new α_i) for one coordinate with gradient G."""
    if a <= 0.0 and G > max_old:
        return True, 0.0, a
    if a >= C and G < min_old:
        return True, 0.0, a
    PG = projected_gradient(G, a, C)
    if abs(PG) > PG_ZERO:
        return False, PG, newton_step(G, a, qinv, C)
    return False, PG, a


@njit
def _advance(active, s, size, shrink, PG, pgmax, pgmin):
    """Move past coordinate ``active[s]``: a shrunk one is swapped behind the active set
    (which loses it), any other records its ∇^P. Returns (s, size, pgmax, pgmin)."""
    if shrink:
        size -= 1
        active[s], active[size] = active[size], active[s]
        return s, size, pgmax, pgmin
    return s + 1, size, max(pgmax, PG), min(pgmin, PG)


@njit
def _row_step(i, idx, vals, own, y, qinv, C, alpha, w, max_old, min_old):
    """Coordinate i with Φ′_i stored as (positions in W′, values); negative positions are
    patterns W′ does not hold, and ``own`` = Σ Φ′_i(z)² over patterns kept out of W′'s
    array because only Φ′_i has them (their weight is α_i y_i Φ′_i(z)).
    G = y_i ⟨W′, Φ′_i⟩ + α_i·own − 1; on a step W′ += Δα_i y_i Φ′_i. Returns (shrink?, ∇^P, Δf)."""
    g = 0.0
    for p in range(idx.shape[0]):
        if idx[p] >= 0:
            g += w[idx[p]] * vals[p]
    G = y[i] * g + alpha[i] * own - 1.0
    shrink, PG, new = coordinate(G, alpha[i], qinv[i], C, max_old, min_old)
    change = 0.0
    if not shrink:
        change = dual_change(G, alpha[i], new, qinv[i])
        d = (new - alpha[i]) * y[i]
        alpha[i] = new
        if d != 0.0:
            for p in range(idx.shape[0]):
                if idx[p] >= 0:
                    w[idx[p]] += d * vals[p]
    return shrink, PG, change


@njit
def epoch_indexed(active, size, max_old, min_old, indptr, indices, data, own, y, qinv, C, alpha, w):
    """Algorithm 3 on rows x_i stored as CSR: G = y_i ⟨w, x_i⟩ + α_i own_i − 1;
    w += Δα_i y_i x_i.

    The rows are those of :class:`~ratkit.learners.dcd.rows.IndexedRows`: ``w``
    holds the weights of the features several rows share, ``own_i`` = ‖x_i‖² over the
    features only x_i has. With the features the patterns of the trie of W′, this is
    Algorithm 4 with W′ a weighted trie indexed once.
    """
    pgmax = -np.inf
    pgmin = np.inf
    df = 0.0
    s = 0
    while s < size:
        i = active[s]
        lo, hi = indptr[i], indptr[i + 1]
        shrink, PG, change = _row_step(i, indices[lo:hi], data[lo:hi], own[i], y, qinv, C, alpha, w, max_old, min_old)
        df += change
        s, size, pgmax, pgmin = _advance(active, s, size, shrink, PG, pgmax, pgmin)
    return pgmax, pgmin, size, df


@njit
def epoch_gram(active, size, max_old, min_old, K, y, qinv, C, alpha, grad):
    """DCD on a kernel matrix: ``grad`` = Qα − 1 kept up to date, one row of K per step.

    G_i is read from ``grad``; a step on α_i adds Δα_i y_i y_j K_ij to every grad_j.
    """
    pgmax = -np.inf
    pgmin = np.inf
    df = 0.0
    n = K.shape[0]
    s = 0
    while s < size:
        i = active[s]
        shrink, PG, new = coordinate(grad[i], alpha[i], qinv[i], C, max_old, min_old)
        if not shrink:
            df += dual_change(grad[i], alpha[i], new, qinv[i])
            d = (new - alpha[i]) * y[i]
            alpha[i] = new
            if d != 0.0:
                for j in range(n):
                    grad[j] += d * y[j] * K[i, j]
        s, size, pgmax, pgmin = _advance(active, s, size, shrink, PG, pgmax, pgmin)
    return pgmax, pgmin, size, df


def epoch_python(
    active: np.ndarray,
    size: int,
    max_old: float,
    min_old: float,
    y: np.ndarray,
    qinv: np.ndarray,
    C: float,
    alpha: np.ndarray,
    gradient: Callable[[int], float],
    update: Callable[[int, float, float], None],
) -> tuple[float, float, int, float]:
    """The same pass for representations driven from Python (OpenFst calls, row caches):
    ``gradient(i)`` returns G_i, ``update(i, d, new)`` applies W′ += d Φ′_i after α_i ← new."""
    pgmax, pgmin, df = -np.inf, np.inf, 0.0
    s = 0
    while s < size:
        i = int(active[s])
        G = gradient(i)
        shrink, PG, new = coordinate(G, alpha[i], qinv[i], C, max_old, min_old)
        if not shrink:
            df += dual_change(G, alpha[i], new, qinv[i])
            d = (new - alpha[i]) * y[i]
            alpha[i] = new
            if d != 0.0:
                update(i, d, new)
        s, size, pgmax, pgmin = _advance(active, s, size, shrink, PG, pgmax, pgmin)
    return pgmax, pgmin, size, df
