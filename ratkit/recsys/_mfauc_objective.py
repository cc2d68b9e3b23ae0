"""The MFAUC objective (Optimisation 3 of Dhanjal et al.), its losses and exact gradients.

With scores ``s_ij = u_i · v_j``, the pair margin ``γ_ipq = s_ip − s_iq`` and per-user
normalised item weights ``g_i(p) = g(p) / Σ_{p'∈ω_i} g(p')`` on the relevant items ``ω_i``
and ``g'_i(q) = g'(q) / Σ_{q'∈ω̄_i} g'(q')`` on the others ``ω̄_i``::

    θ(U, V) = (1/m) Σ_i Σ_{p∈ω_i} g_i(p) φ( Σ_{q∈ω̄_i} g'_i(q) L(γ_ipq) ) + (λ/2)(‖U‖²_F + ‖V‖²_F)

Users with an empty ``ω_i`` or ``ω̄_i`` contribute 0. The functions here are exact (all
pairs, dense per user) and serve the tests, small problems and the square-loss fast
path; the sampled gradients that SGD uses live in :mod:`ratkit.recsys._mfauc_sgd`.

References
----------
C. Dhanjal, R. Gaudel and S. Clémençon. AUC Optimisation and Collaborative Filtering.
arXiv:1508.06091, 2015 — Optimisation 3, the loss table, the derivatives (Equations 4–9)
and the item distributions g, g′.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from ratkit._jit import njit

__all__ = [
    "LOSSES",
    "LOSS_CODES",
    "loss_value",
    "loss_slope",
    "phi_value",
    "phi_slope",
    "LossName",
    "loss_and_derivative",
    "phi_and_derivative",
    "item_weights",
    "exact_objective_and_gradient",
    "square_expectations",
    "square_user_gradient",
]

LossName = Literal["square", "squared_hinge", "hinge", "logistic", "sigmoid"]
LOSSES: tuple[str, ...] = ("square", "squared_hinge", "hinge", "logistic", "sigmoid")

Pair = tuple[np.ndarray, np.ndarray]

#: The integer that selects each loss in the compiled :func:`loss_value` / :func:`loss_slope`.
LOSS_CODES: dict[str, int] = {name: code for code, name in enumerate(LOSSES)}


def loss_and_derivative(name: str, beta: float) -> Callable[[np.ndarray], Pair]:
    """``γ ↦ (L(γ), L′(γ))`` for the surrogate of the indicator ``[γ ≤ 0]``.

    * square ``(1 − γ)²``; squared hinge ``max(0, 1 − γ)²``; hinge ``max(0, 1 − γ)``
      (sub-gradient ``−[γ < 1]``);
    * logistic ``log(1 + e^{−βγ})``, ``L′ = −β e^{−βγ}/(1 + e^{−βγ})``;
    * sigmoid ``1/(1 + e^{βγ})``, ``L′ = −β e^{−βγ}/(1 + e^{−βγ})²``. (The paper prints
      ``h(x) = 1/(1 + e^{−βx})²`` for this derivative; the factor ``e^{−βx}`` is needed for
      it to be the derivative, which the finite-difference tests confirm.)
    """

    def square(g: np.ndarray) -> Pair:
        h = 1.0 - g
        return h * h, -2.0 * h

    def squared_hinge(g: np.ndarray) -> Pair:
        h = np.maximum(0.0, 1.0 - g)
        return h * h, -2.0 * h

    def hinge(g: np.ndarray) -> Pair:
        h = 1.0 - g
        return np.maximum(0.0, h), -(h > 0).astype(np.float64)

    def logistic(g: np.ndarray) -> Pair:
        return np.logaddexp(0.0, -beta * g), -beta * expit(-beta * g)

    def sigmoid(g: np.ndarray) -> Pair:
        low = expit(-beta * g)
        return low, -beta * low * expit(beta * g)

    table = {"square": square, "squared_hinge": squared_hinge, "hinge": hinge, "logistic": logistic, "sigmoid": sigmoid}
    return table[name]


def phi_and_derivative(rho: float | None) -> Callable[[np.ndarray], Pair]:
    """The rank weighting ``φ(x) = x`` (``rho=None``) or ``φ(x) = tanh(ρx)``, with ``φ′``."""
    if rho is None:
        return lambda x: (x, np.ones_like(x))

    def tanh(x: np.ndarray) -> Pair:
        t = np.tanh(rho * x)
        return t, rho * (1.0 - t * t)

    return tanh


def item_weights(user_items: sp.csr_matrix, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Unnormalised item distributions ``g(y) = p̂(y)^τ′`` and ``g′(y) = (1 − p̂(y))^τ′``.

    ``p̂(y) = (n_y + 1)/(m + 1)`` is the smoothed empirical probability that a user has
    item ``y`` (``n_y`` users of ``m`` do). ``τ′ = 0`` gives the uniform distributions;
    ``τ′ > 0`` moves the weight of the irrelevant items towards the rarely seen ones and
    that of the relevant items towards the often seen ones, as in the authors' code.
    """
    m = user_items.shape[0]
    counts = np.bincount(user_items.indices, minlength=user_items.shape[1])
    p_hat = (counts + 1.0) / (m + 1.0)
    return p_hat**tau, (1.0 - p_hat) ** tau


def exact_objective_and_gradient(
    U: np.ndarray,
    V: np.ndarray,
    positives: sp.csr_matrix,
    g: np.ndarray,
    g_prime: np.ndarray,
    loss: str,
    beta: float,
    rho: float | None,
    lam: float,
) -> tuple[float, np.ndarray, np.ndarray]:
    """``θ(U, V)`` and its exact gradients ``(∂θ/∂U, ∂θ/∂V)`` over all pairs.

    Cost ``O(Σ_i |ω_i| |ω̄_i|)``: for tests and small problems. Through the scores,
    ``∂θ_i/∂s_ip = g_i(p) φ′(z_ip) Σ_q g'_i(q) L′(γ_ipq)`` and
    ``∂θ_i/∂s_iq = −g'_i(q) Σ_p g_i(p) φ′(z_ip) L′(γ_ipq)`` with
    ``z_ip = Σ_q g'_i(q) L(γ_ipq)``; then ``∂θ/∂U = (∂θ/∂S) V / m + λU`` and
    ``∂θ/∂V = (∂θ/∂S)ᵀ U / m + λV``.
    """
    m, n = positives.shape
    loss_fn = loss_and_derivative(loss, beta)
    phi_fn = phi_and_derivative(rho)
    scores = U @ V.T
    d_scores = np.zeros((m, n))
    total = 0.0
    for i in range(m):
        pos = positives.indices[positives.indptr[i] : positives.indptr[i + 1]]
        neg = np.setdiff1d(np.arange(n), pos, assume_unique=True)
        if len(pos) == 0 or len(neg) == 0:
            continue
        wp = g[pos] / g[pos].sum()
        wq = g_prime[neg] / g_prime[neg].sum()
        gamma = scores[i, pos][:, None] - scores[i, neg][None, :]
        values, slopes = loss_fn(gamma)
        z = values @ wq
        phi, dphi = phi_fn(z)
        total += float(wp @ phi)
        pair = (wp * dphi)[:, None] * slopes * wq[None, :]
        d_scores[i, pos] = pair.sum(axis=1)
        d_scores[i, neg] = -pair.sum(axis=0)
    penalty = 0.5 * lam * (float(np.sum(U * U)) + float(np.sum(V * V)))
    return total / m + penalty, d_scores @ V / m + lam * U, d_scores.T @ U / m + lam * V


def _weight_rows(positives: sp.csr_matrix, users: np.ndarray, weights: np.ndarray) -> sp.csr_matrix:
    rows = positives[users]
    return sp.csr_matrix((weights[rows.indices], rows.indices, rows.indptr), shape=rows.shape)


def square_expectations(
    U_rows: np.ndarray,
    V: np.ndarray,
    positives: sp.csr_matrix,
    users: np.ndarray,
    g: np.ndarray,
    g_prime: np.ndarray,
    g_prime_moment: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The empirical expectations ``(v̇_i, v̈_i, ẇ_i, ẅ_i)`` of the square-loss fast path.

    ``v̇_i = Σ_{p∈ω_i} g_i(p) v_p``, ``v̈_i = Σ_{q∈ω̄_i} g'_i(q) v_q``,
    ``ẇ_i = Σ_{p∈ω_i} g_i(p) v_p v_pᵀ u_i``, ``ẅ_i = Σ_{q∈ω̄_i} g'_i(q) v_q v_qᵀ u_i``.
    The sums over ``ω̄_i`` are the sum over all items minus the one over ``ω_i``, so the
    cost is ``O(|ω_i| k)`` per user plus ``O(n k²)`` once (``g_prime_moment`` caches
    ``(Σ_y g′(y) v_y, Σ_y g′(y) v_y v_yᵀ)``).
    """
    if g_prime_moment is None:
        g_prime_moment = (g_prime @ V, (V * g_prime[:, None]).T @ V)
    first_all, second_all = g_prime_moment
    wp = _weight_rows(positives, users, g)
    wq = _weight_rows(positives, users, g_prime)
    norm_p = np.asarray(wp.sum(axis=1)).ravel()
    norm_q = g_prime.sum() - np.asarray(wq.sum(axis=1)).ravel()
    v_dot = (wp @ V) / norm_p[:, None]
    v_ddot = (first_all[None, :] - wq @ V) / norm_q[:, None]
    rows = np.repeat(np.arange(len(users)), np.diff(wp.indptr))
    proj = np.einsum("ij,ij->i", V[wp.indices], U_rows[rows])  # v_p · u_i per entry
    w_dot = (_with_data(wp, wp.data * proj) @ V) / norm_p[:, None]
    w_ddot = (U_rows @ second_all - _with_data(wq, wq.data * proj) @ V) / norm_q[:, None]
    return v_dot, v_ddot, w_dot, w_ddot


def _with_data(matrix: sp.csr_matrix, data: np.ndarray) -> sp.csr_matrix:
    return sp.csr_matrix((data, matrix.indices, matrix.indptr), shape=matrix.shape)


def square_user_gradient(U_rows: np.ndarray, expectations: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``θ_i`` and ``∂θ_i/∂u_i`` for the square loss with ``φ(x) = x``, per user.

    With ``ā = u·v̇``, ``b̄ = u·v̈``:
    ``θ_i = (1 − ā + b̄)² + (u·ẇ − ā²) + (u·ẅ − b̄²)`` and
    ``∂θ_i/∂u_i = 2[(1 − ā) v̈ − (1 + b̄) v̇ + ẇ + ẅ]``.
    """
    v_dot, v_ddot, w_dot, w_ddot = expectations
    a = np.einsum("ij,ij->i", U_rows, v_dot)
    b = np.einsum("ij,ij->i", U_rows, v_ddot)
    value = (
        (1 - a + b) ** 2
        + (np.einsum("ij,ij->i", U_rows, w_dot) - a * a)
        + (np.einsum("ij,ij->i", U_rows, w_ddot) - b * b)
    )
    grad = 2 * ((1 - a)[:, None] * v_ddot - (1 + b)[:, None] * v_dot + w_dot + w_ddot)
    return value, grad


# Compiled scalar forms of the same losses, for the numba SGD loops of ``_mfauc_sgd``.
# Each follows the operations of its numpy twin above (numpy's logaddexp, scipy's expit),
# so both give the same number up to round-off.


@njit
def _expit(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@njit
def loss_value(code: int, beta: float, g: float) -> float:
    """``L(γ)`` of the loss numbered ``code`` in :data:`LOSS_CODES` (compiled, scalar)."""
    if code == 0:
        h = 1.0 - g
        return h * h
    if code == 1:
        h = max(0.0, 1.0 - g)
        return h * h
    if code == 2:
        return max(0.0, 1.0 - g)
    if code == 3:
        y = -beta * g  # logaddexp(0, y)
        if y == 0.0:
            return math.log(2.0)
        if y < 0.0:
            return math.log1p(math.exp(y))
        return y + math.log1p(math.exp(-y))
    return _expit(-beta * g)


@njit
def loss_slope(code: int, beta: float, g: float) -> float:
    """``L′(γ)`` of the loss numbered ``code`` in :data:`LOSS_CODES` (compiled, scalar)."""
    if code == 0:
        return -2.0 * (1.0 - g)
    if code == 1:
        return -2.0 * max(0.0, 1.0 - g)
    if code == 2:
        return -1.0 if 1.0 - g > 0.0 else 0.0
    if code == 3:
        return -beta * _expit(-beta * g)
    return -beta * _expit(-beta * g) * _expit(beta * g)


@njit
def phi_value(rho: float, x: float) -> float:
    """``φ(x)``: ``x`` (``rho ≤ 0`` stands for ``rho=None``), else ``tanh(ρx)``."""
    if rho <= 0.0:
        return x
    return math.tanh(rho * x)


@njit
def phi_slope(rho: float, x: float) -> float:
    """``φ′(x)``: 1 for ``φ(x) = x`` (``rho ≤ 0`` stands for ``rho=None``), else ``ρ(1 − tanh²(ρx))``."""
    if rho <= 0.0:
        return 1.0
    t = math.tanh(rho * x)
    return rho * (1.0 - t * t)
