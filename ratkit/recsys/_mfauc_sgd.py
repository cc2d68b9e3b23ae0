"""Sub-sampled gradients and averaged SGD for MFAUC (Algorithm 1 of Dhanjal et al.).

The stochastic gradients estimate those of ``F = m·θ`` (θ as in
:mod:`ratkit.recsys._mfauc_objective`), so one user's term has unit weight:

* for ``u_i``: ``κ_Y`` relevant items ``p ~ g_i`` and ``κ_Y`` others ``q ~ g'_i`` give
  ``∂θ_i/∂u_i ≈ (1/κ_Y) Σ_p φ′(ẑ_ip) (1/κ_Y) Σ_q L′(γ_ipq)(v_p − v_q)`` with
  ``ẑ_ip = (1/κ_Y) Σ_q L(γ_ipq)``;
* for ``v_j``: ``κ_W`` users ``i``, each contributing ``g_i(j) φ′(ẑ_ij) L̄′ u_i`` when
  ``j ∈ ω_i`` and ``−g'_i(j) (1/κ_Y) Σ_p φ′(ẑ_ip) L′(γ_ipj) u_i`` otherwise, scaled by
  ``m_active/κ_W``: cost ``O(κ_W κ_Y²)`` per item as in the paper.

For the square loss with ``φ(x) = x`` the inner expectations are exact (the fast path
through ``v̇, v̈, ẇ, ẅ``). Rows are updated in blocks of ``batch_size`` distinct users
and items; one iteration is ``max(m, n)`` row steps over fresh permutations, wrapping
around the shorter one.

Two engines run those iterations (:data:`ENGINES`): ``numpy_iteration`` here, the vectorised
reference, and :func:`~ratkit.recsys._mfauc_compiled.compiled_iteration`, the same steps in
numba (single-threaded; samplers in :mod:`ratkit.recsys._mfauc_sampling`) drawing
the same random numbers from the same Generator, so both give the same iterates up to
float round-off. When ``φ(x) = x`` the compiled steps skip ``ẑ`` (``φ′ = 1`` whatever its
value) and, for an irrelevant item, the scores of the unused irrelevant samples; they are
still drawn, so the Generator advances as in the reference.

References
----------
C. Dhanjal, R. Gaudel and S. Clémençon. AUC Optimisation and Collaborative Filtering.
arXiv:1508.06091, 2015 — Section 3 (sub-sampled derivatives, Algorithm 1).
B. T. Polyak and A. B. Juditsky. Acceleration of stochastic approximation by
averaging. SIAM J. Control Optim. 30(4), 1992. O. Shamir and T. Zhang. Stochastic
gradient descent for non-smooth optimization. ICML 2013 (polynomial-decay averaging).
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ratkit._jit import njit
from ratkit.recsys._mfauc_compiled import AVERAGING_ETA, compiled_iteration, compiled_monitor_objective
from ratkit.recsys._mfauc_objective import (
    Pair,
    item_weights,
    square_expectations,
    square_user_gradient,
)

__all__ = ["ENGINES", "Problem", "SGDSettings", "user_gradients", "item_gradients", "run_sgd"]

#: ``"compiled"``: the numba block steps (the default); ``"numpy"``: the vectorised reference.
ENGINES: tuple[str, ...] = ("compiled", "numpy")

log = logging.getLogger(__name__)

_BITMAP_MAX_BITS = 1 << 28  # 32 MB: above this the compiled lookups binary-search the CSR rows


def _liked_bits(positives: sp.csr_matrix) -> np.ndarray:
    """``bits[i, j >> 6] >> (j & 63) & 1`` = whether user ``i`` has item ``j``; an empty
    array when the matrix has more than ``_BITMAP_MAX_BITS`` cells."""
    m, n = positives.shape
    if m * n > _BITMAP_MAX_BITS:
        return np.zeros((0, 0), dtype=np.uint64)
    bits = np.zeros((m, (n + 63) // 64), dtype=np.uint64)
    _set_bits(positives.indptr, positives.indices, bits)  # compiled: no per-positive temporaries
    return bits


@njit
def _row_weights(indptr, indices, g, g_prime, cum_g, norm_g, g_prime_pos):  # pragma: no cover - compiled
    """``cum_g`` = cumsum of g over the positives in CSR order; per user, Σ g and Σ g′ over
    its positives (in CSR order, as np.cumsum and np.add.at sum: the same floats)."""
    total = 0.0
    for i in range(len(indptr) - 1):
        row_g = 0.0
        row_g_prime = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            total += g[j]
            cum_g[p] = total
            row_g += g[j]
            row_g_prime += g_prime[j]
        norm_g[i] = row_g
        g_prime_pos[i] = row_g_prime


@njit
def _set_bits(indptr, indices, bits):  # pragma: no cover - compiled
    one = np.uint64(1)
    for i in range(len(indptr) - 1):
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            bits[i, j >> 6] |= one << np.uint64(j & 63)


class Problem:
    """The one-class data prepared for sampling: positives, item weights, lookup keys.

    Also the item → users (CSC) view of the normalised weights ``g_i(j)``, which the
    compiled square-loss step uses to keep ``v̇_i`` and ``v̈_i`` current as items move.
    What only the square loss or the numpy engine reads (the normalised weight matrices,
    their CSC view, the sorted lookup keys: 36 bytes a positive) is built on first use, so
    the default compiled sampled losses hold about 20 bytes a positive beside the matrix.
    """

    def __init__(self, liked: sp.csr_matrix, tau: float) -> None:
        """``liked``: users × items CSR with sorted indices whose stored entries (all > 0) are
        the positives; only its structure is read (values of 1: :attr:`positives`)."""
        self._liked = liked
        self.m, self.n = liked.shape
        self.indptr, self.indices = liked.indptr, liked.indices
        self.g, self.g_prime = item_weights(liked, tau)
        self.cum_g = np.empty(len(self.indices))
        self.norm_g = np.empty(self.m)
        g_prime_pos = np.empty(self.m)
        _row_weights(self.indptr, self.indices, self.g, self.g_prime, self.cum_g, self.norm_g, g_prime_pos)
        self.norm_g_prime = self.g_prime.sum() - g_prime_pos
        self.cum_g_prime = np.cumsum(self.g_prime)
        degree = np.diff(self.indptr)
        self.active = np.flatnonzero((degree > 0) & (degree < self.n) & (self.norm_g_prime > 0))
        self.liked_bits = _liked_bits(liked)

    @functools.cached_property
    def positives(self) -> sp.csr_matrix:
        """The positives as a binary float64 CSR matrix (the given one when its values are all 1)."""
        liked = self._liked
        if liked.dtype == np.float64 and bool(np.all(liked.data == 1.0)):
            return liked
        return sp.csr_matrix((np.ones(len(self.indices)), self.indices, self.indptr), shape=liked.shape)

    @functools.cached_property
    def keys(self) -> np.ndarray:
        """``user · n + item`` of every positive, sorted (CSR is sorted): the numpy engine's lookups."""
        rows = np.repeat(np.arange(self.m, dtype=np.int64), np.diff(self.indptr))
        return rows * self.n + self.indices

    @functools.cached_property
    def weights_g(self) -> sp.csr_matrix:
        """``g_i(j) = g(j) / Σ_{y∈ω_i} g(y)`` on the positives (the square loss's ``v̇_i`` weights)."""
        degree = np.diff(self.indptr)
        return sp.csr_matrix(
            (
                self.g[self.indices] / np.repeat(np.where(self.norm_g > 0, self.norm_g, 1.0), degree),
                self.indices,
                self.indptr,
            ),
            shape=(self.m, self.n),
        )

    @functools.cached_property
    def weights_g_prime(self) -> sp.csr_matrix:
        """``g′(j)`` on the positives (subtracted from the item moment for ``v̈_i``)."""
        return sp.csr_matrix((self.g_prime[self.indices], self.indices, self.indptr), shape=(self.m, self.n))

    @functools.cached_property
    def _by_item(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        by_item = self.weights_g.tocsc()
        by_item.sort_indices()
        return by_item.indptr, by_item.indices, by_item.data

    @property
    def col_indptr(self) -> np.ndarray:
        """CSC ``indptr`` of :attr:`weights_g` (item → users)."""
        return self._by_item[0]

    @property
    def col_users(self) -> np.ndarray:
        """CSC row indices of :attr:`weights_g`: the users of each item."""
        return self._by_item[1]

    @property
    def col_weights(self) -> np.ndarray:
        """CSC values of :attr:`weights_g`."""
        return self._by_item[2]

    def moment(self, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(Σ_y g′(y) v_y, Σ_y g′(y) v_y v_yᵀ)``, shared by every user's ``ω̄_i`` sums."""
        return self.g_prime @ V, (V * self.g_prime[:, None]).T @ V

    def mean_factors(
        self, V: np.ndarray, moment: tuple[np.ndarray, np.ndarray] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``v̇_i`` and ``v̈_i`` (the square loss's empirical expectations) for every user."""
        moment = self.moment(V) if moment is None else moment
        norm = np.where(self.norm_g_prime > 0, self.norm_g_prime, 1.0)[:, None]
        return self.weights_g @ V, (moment[0][None, :] - self.weights_g_prime @ V) / norm

    def is_positive(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        keys = users.astype(np.int64) * self.n + items
        where = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return self.keys[where] == keys

    def sample_positive(self, users: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` relevant items per user, drawn from ``g`` restricted to ``ω_i``."""
        start = self.indptr[users][..., None]
        end = self.indptr[users + 1][..., None]
        base = np.where(start > 0, self.cum_g[np.maximum(start - 1, 0)], 0.0)
        target = base + rng.random(users.shape + (size,)) * self.norm_g[users][..., None]
        where = np.clip(np.searchsorted(self.cum_g, target, side="right"), start, end - 1)
        return self.indices[where]

    def sample_negative(self, users: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` items per user outside ``ω_i``, drawn from ``g′`` (by rejection)."""
        users = np.broadcast_to(users[..., None], users.shape + (size,))
        total = self.cum_g_prime[-1]
        out = np.empty(users.shape, dtype=np.int64)
        todo = np.ones(users.shape, dtype=bool)
        for _ in range(200):
            draw = np.minimum(
                np.searchsorted(self.cum_g_prime, rng.random(int(todo.sum())) * total, side="right"),
                self.n - 1,
            )
            out[todo] = draw
            todo[todo] = self.is_positive(users[todo], draw)
            if not todo.any():
                return out
        for index in zip(*np.nonzero(todo)):  # users who like nearly everything
            i = users[index]
            liked = self.indices[self.indptr[i] : self.indptr[i + 1]]
            others = np.setdiff1d(np.arange(self.n), liked)
            weights = self.g_prime[others]
            out[index] = rng.choice(others, p=weights / weights.sum())
        return out


@dataclass
class SGDSettings:
    loss_fn: Callable[[np.ndarray], Pair]
    phi_fn: Callable[[np.ndarray], Pair]
    square_fast: bool
    lam: float
    learning_rate: float
    kappa_users: int
    kappa_items: int
    batch_size: int
    max_grad_norm: float | None = None
    loss: str | None = None  # the name behind loss_fn, beta and rho: what the compiled engine reads
    beta: float = 1.0
    rho: float | None = None


def _dots(rows: np.ndarray, V: np.ndarray, items: np.ndarray) -> np.ndarray:
    """``rows[..., :] · V[items[..., s]]`` for every sample ``s``: shape ``items.shape``."""
    return np.einsum("...k,...sk->...s", rows, V[items])


def user_gradients(
    prob: Problem,
    U: np.ndarray,
    V: np.ndarray,
    users: np.ndarray,
    rng: np.random.Generator,
    s: SGDSettings,
    moment: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Stochastic ``∂F/∂u_i`` for each user in ``users`` (penalty ``mλu_i`` included)."""
    u = U[users]
    if s.square_fast:
        _, grad = square_user_gradient(
            u, square_expectations(u, V, prob.positives, users, prob.g, prob.g_prime, moment)
        )
    else:
        P = prob.sample_positive(users, s.kappa_items, rng)
        Q = prob.sample_negative(users, s.kappa_items, rng)
        gamma = _dots(u, V, P)[:, :, None] - _dots(u, V, Q)[:, None, :]
        values, slopes = s.loss_fn(gamma)
        _, dphi = s.phi_fn(values.mean(axis=2))
        pair = dphi[:, :, None] * slopes / s.kappa_items**2
        grad = np.einsum("bp,bpk->bk", pair.sum(axis=2), V[P]) - np.einsum("bq,bqk->bk", pair.sum(axis=1), V[Q])
    return grad + prob.m * s.lam * u


def item_gradients(
    prob: Problem,
    U: np.ndarray,
    V: np.ndarray,
    items: np.ndarray,
    rng: np.random.Generator,
    s: SGDSettings,
    moment: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Stochastic ``∂F/∂v_j`` for each item in ``items`` from ``κ_W`` sampled users each."""
    users = prob.active[rng.integers(len(prob.active), size=(len(items), s.kappa_users))]
    u = U[users]  # (B, κ_W, k)
    s_j = np.einsum("bwk,bk->bw", u, V[items])
    positive = prob.is_positive(users, items[:, None])
    g_ij = prob.g[items][:, None] / np.where(positive, prob.norm_g[users], 1.0)
    g_prime_ij = prob.g_prime[items][:, None] / prob.norm_g_prime[users]
    if s.square_fast:
        v_dot, v_ddot = prob.mean_factors(V, moment)
        a = np.einsum("bwk,bwk->bw", u, v_dot[users])
        b = np.einsum("bwk,bwk->bw", u, v_ddot[users])
        coef = np.where(positive, -2.0 * g_ij * (1 - s_j + b), 2.0 * g_prime_ij * (1 - a + s_j))
    else:
        Q = prob.sample_negative(users, s.kappa_items, rng)
        s_q = _dots(u, V, Q)  # (B, κ_W, κ_Y)
        values, slopes = s.loss_fn(s_j[..., None] - s_q)  # j as the relevant item
        _, dphi = s.phi_fn(values.mean(axis=-1))
        coef_pos = g_ij * dphi * slopes.mean(axis=-1)
        P = prob.sample_positive(users, s.kappa_items, rng)
        s_p = _dots(u, V, P)
        values_pq, _ = s.loss_fn(s_p[..., :, None] - s_q[..., None, :])
        _, dphi_p = s.phi_fn(values_pq.mean(axis=-1))  # (B, κ_W, κ_Y)
        _, slopes_pj = s.loss_fn(s_p - s_j[..., None])  # j as the irrelevant item
        coef_neg = -g_prime_ij * (dphi_p * slopes_pj).mean(axis=-1)
        coef = np.where(positive, coef_pos, coef_neg)
    scale = len(prob.active) / s.kappa_users
    return scale * np.einsum("bw,bwk->bk", coef, u) + prob.m * s.lam * V[items]


def _clip(grad: np.ndarray, s: SGDSettings) -> np.ndarray:
    """Rescale the rows whose norm exceeds ``s.max_grad_norm`` to that norm."""
    if s.max_grad_norm is None:
        return grad
    norms = np.linalg.norm(grad, axis=1, keepdims=True)
    return grad * np.minimum(1.0, s.max_grad_norm / np.maximum(norms, 1e-300))


def monitor_objective(
    prob: Problem, U: np.ndarray, V: np.ndarray, sample: tuple[np.ndarray, ...], s: SGDSettings
) -> float:
    """θ estimated at ``(U, V)`` on a fixed sample of users and item pairs."""
    users, P, Q = sample
    u = U[users]
    values, _ = s.loss_fn(_dots(u, V, P)[:, :, None] - _dots(u, V, Q)[:, None, :])
    phi, _ = s.phi_fn(values.mean(axis=2))
    data_term = phi.mean() * len(prob.active) / prob.m
    return float(data_term + 0.5 * s.lam * (np.sum(U * U) + np.sum(V * V)))


def _block_slices(
    prob: Problem, s: SGDSettings, user_order: np.ndarray, item_order: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The ``(users, items)`` of each block of one iteration: ``max(m, n)`` row steps."""
    n_users = len(prob.active)
    steps = max(n_users, prob.n)
    block = max(1, min(s.batch_size, n_users, prob.n))
    for start in range(0, steps, block):
        positions = np.arange(start, min(start + block, steps))
        yield user_order[positions % n_users], item_order[positions % prob.n]


def _averaging_weight(t: int) -> float:
    """Weight of step ``t`` in the polynomial-decay average ``x̄_t = x̄_{t−1} + w_t (x_t − x̄_{t−1})``."""
    return (AVERAGING_ETA + 1.0) / (t + AVERAGING_ETA)


def numpy_iteration(
    prob: Problem,
    U: np.ndarray,
    V: np.ndarray,
    U_avg: np.ndarray,
    V_avg: np.ndarray,
    s: SGDSettings,
    rng: np.random.Generator,
    t: int,
    user_order: np.ndarray,
    item_order: np.ndarray,
) -> int:
    """One iteration of block steps in vectorised numpy (the reference); updates in place, returns ``t``."""
    for users, items in _block_slices(prob, s, user_order, item_order):
        moment = prob.moment(V) if s.square_fast else None
        grad = user_gradients(prob, U, V, users, rng, s, moment)
        U[users] -= s.learning_rate * _clip(grad, s)
        grad = item_gradients(prob, U, V, items, rng, s, moment)
        V[items] -= s.learning_rate * _clip(grad, s)
        t += 1
        weight = _averaging_weight(t)
        U_avg += weight * (U - U_avg)
        V_avg += weight * (V - V_avg)
    return t


_ITERATIONS = {"compiled": compiled_iteration, "numpy": numpy_iteration}
_MONITORS = {"compiled": compiled_monitor_objective, "numpy": monitor_objective}


def run_sgd(
    prob: Problem,
    U: np.ndarray,
    V: np.ndarray,
    s: SGDSettings,
    rng: np.random.Generator,
    *,
    max_iter: int,
    tol: float,
    progress: Callable[[int, float, float], None] | None = None,
    engine: str = "compiled",
    overwrite: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[float], int, bool]:
    """Averaged SGD from ``(U, V)``; returns ``(Ū, V̄, objectives, n_iter, converged)``.

    Stops after ``max_iter`` iterations, or when the monitored objective at ``(Ū, V̄)``
    changes by at most ``tol`` relative to its previous value. After every iteration
    ``progress(n_iter, objective, change)`` is called, ``change`` = |θ_t − θ_{t−1}| / |θ_{t−1}|
    (what the rule compares with ``tol``; NaN after the first iteration). ``engine`` picks
    the block steps (:data:`ENGINES`); both draw the same numbers from ``rng`` and give the
    same iterates up to float round-off. ``overwrite=True`` lets the SGD iterate overwrite
    ``U`` and ``V`` when they are C-ordered float64 (no copy of them: the caller discards them).
    """
    iteration, monitor = _ITERATIONS[engine], _MONITORS[engine]
    U, V = (np.array(A, dtype=np.float64, order="C", copy=None if overwrite else True) for A in (U, V))
    U_avg, V_avg = U.copy(), V.copy()
    n_users = len(prob.active)
    monitor_users = rng.choice(prob.active, size=min(n_users, 500), replace=False)
    sample = (
        monitor_users,
        prob.sample_positive(monitor_users, s.kappa_items, rng),
        prob.sample_negative(monitor_users, s.kappa_items, rng),
    )
    objectives: list[float] = []
    t = 0
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        user_order = rng.permutation(prob.active)
        item_order = rng.permutation(prob.n)
        t = iteration(prob, U, V, U_avg, V_avg, s, rng, t, user_order, item_order)
        if not (np.isfinite(U).all() and np.isfinite(V).all()):
            break
        objectives.append(monitor(prob, U_avg, V_avg, sample, s))
        log.debug("MFAUC iteration %d: monitored objective %.6g", n_iter, objectives[-1])
        stop, change = False, math.nan
        if len(objectives) >= 2:
            previous = objectives[-2]
            stop = abs(objectives[-1] - previous) <= tol * max(abs(previous), 1e-12)
            change = abs(objectives[-1] - previous) / max(abs(previous), 1e-12)
        if progress is not None:
            progress(n_iter, objectives[-1], change)
        if stop:
            converged = True
            break
    return U_avg, V_avg, objectives, n_iter, converged
