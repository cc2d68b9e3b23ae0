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

Two engines run those iterations (:data:`ENGINES`): ``numpy_iteration``, the vectorised
reference, and ``compiled_iteration``, the same steps in numba (single-threaded) drawing
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

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ratkit._jit import njit
from ratkit.exceptions import ParameterError
from ratkit.recsys._mfauc_objective import (
    LOSS_CODES,
    Pair,
    item_weights,
    loss_slope,
    loss_value,
    phi_slope,
    phi_value,
    square_expectations,
    square_user_gradient,
)

__all__ = ["ENGINES", "Problem", "SGDSettings", "user_gradients", "item_gradients", "run_sgd"]

#: ``"compiled"``: the numba block steps (the default); ``"numpy"``: the vectorised reference.
ENGINES: tuple[str, ...] = ("compiled", "numpy")

log = logging.getLogger(__name__)

_AVERAGING_ETA = 3.0  # polynomial-decay averaging weight (η of Shamir & Zhang); _decay's closed form needs 3


_BITMAP_MAX_BITS = 1 << 28  # 32 MB: above this the compiled lookups binary-search the CSR rows


def _liked_bits(positives: sp.csr_matrix) -> np.ndarray:
    """``bits[i, j >> 6] >> (j & 63) & 1`` = whether user ``i`` has item ``j``; an empty
    array when the matrix has more than ``_BITMAP_MAX_BITS`` cells."""
    m, n = positives.shape
    if m * n > _BITMAP_MAX_BITS:
        return np.zeros((0, 0), dtype=np.uint64)
    bits = np.zeros((m, (n + 63) // 64), dtype=np.uint64)
    rows = np.repeat(np.arange(m), np.diff(positives.indptr))
    cols = positives.indices.astype(np.int64)
    np.bitwise_or.at(bits, (rows, cols >> 6), np.left_shift(np.uint64(1), (cols & 63).astype(np.uint64)))
    return bits


class Problem:
    """The one-class data prepared for sampling: positives, item weights, lookup keys.

    Also the item → users (CSC) view of the normalised weights ``g_i(j)``, which the
    compiled square-loss step uses to keep ``v̇_i`` and ``v̈_i`` current as items move.
    """

    def __init__(self, positives: sp.csr_matrix, tau: float) -> None:
        self.positives = positives
        self.m, self.n = positives.shape
        self.indptr, self.indices = positives.indptr, positives.indices
        self.g, self.g_prime = item_weights(positives, tau)
        degree = np.diff(self.indptr)
        rows = np.repeat(np.arange(self.m), degree)
        self.keys = rows.astype(np.int64) * self.n + self.indices  # sorted: CSR is sorted
        self.cum_g = np.cumsum(self.g[self.indices])
        self.norm_g = np.zeros(self.m)
        np.add.at(self.norm_g, rows, self.g[self.indices])
        g_prime_pos = np.zeros(self.m)
        np.add.at(g_prime_pos, rows, self.g_prime[self.indices])
        self.norm_g_prime = self.g_prime.sum() - g_prime_pos
        self.cum_g_prime = np.cumsum(self.g_prime)
        self.weights_g = sp.csr_matrix(
            (
                self.g[self.indices] / np.repeat(np.where(self.norm_g > 0, self.norm_g, 1.0), degree),
                self.indices,
                self.indptr,
            ),
            shape=positives.shape,
        )
        self.weights_g_prime = sp.csr_matrix(
            (self.g_prime[self.indices], self.indices, self.indptr), shape=positives.shape
        )
        self.active = np.flatnonzero((degree > 0) & (degree < self.n) & (self.norm_g_prime > 0))
        by_item = self.weights_g.tocsc()
        by_item.sort_indices()
        self.col_indptr, self.col_users, self.col_weights = by_item.indptr, by_item.indices, by_item.data
        self.liked_bits = _liked_bits(positives)

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


def _block_slices(prob: Problem, s: SGDSettings, user_order: np.ndarray, item_order: np.ndarray):
    """The ``(users, items)`` of each block of one iteration: ``max(m, n)`` row steps."""
    n_users = len(prob.active)
    steps = max(n_users, prob.n)
    block = max(1, min(s.batch_size, n_users, prob.n))
    for start in range(0, steps, block):
        positions = np.arange(start, min(start + block, steps))
        yield user_order[positions % n_users], item_order[positions % prob.n]


def _averaging_weight(t: int) -> float:
    """Weight of step ``t`` in the polynomial-decay average ``x̄_t = x̄_{t−1} + w_t (x_t − x̄_{t−1})``."""
    return (_AVERAGING_ETA + 1.0) / (t + _AVERAGING_ETA)


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


# ---------------------------------------------------------------------------------------------
# The compiled engine. Every random number comes from the caller's Generator (numba draws
# through its bit generator, the stream numpy's own methods read), by the same calls with the
# same sizes in the same order as the numpy reference: ``random`` for the item draws and each
# rejection round, ``integers`` for the users of an item gradient. Compiled code turns those
# uniforms into items by the same searches and rejections as ``Problem.sample_*`` and runs the
# block steps, so the two engines see the same samples and give the same iterates up to float
# round-off (and leave the Generator in the same state). The loops are single-threaded: one
# thread keeps every sum in a fixed order, and the draws are one sequential stream anyway.


@njit
def _search_right(values: np.ndarray, x: float, lo: int, hi: int) -> int:
    """``lo + searchsorted(values[lo:hi], x, side="right")`` for sorted ``values``."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit
def _find_right(values: np.ndarray, x: float, lo: int, hi: int, guess: int) -> int:
    """``_search_right(values, x, lo, hi)`` started from a guess: a few steps from ``guess``
    (exact at once when the weights are uniform), then bisection of what is left."""
    at = min(max(guess, lo), hi)
    for _ in range(4):
        if at > lo and values[at - 1] > x:
            at -= 1
        elif at < hi and values[at] <= x:
            at += 1
        else:
            return at
    if at > lo and values[at - 1] > x:
        return _search_right(values, x, lo, at)
    return _search_right(values, x, at, hi)


@njit
def _in_row(indptr: np.ndarray, indices: np.ndarray, user: int, item: int) -> bool:
    """Whether ``item`` is in ``user``'s sorted CSR row (bisection)."""
    lo = np.int64(indptr[user])
    end = np.int64(indptr[user + 1])
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < item:
            lo = mid + 1
        else:
            hi = mid
    found = False
    if lo < end:
        found = indices[lo] == item
    return found


@njit
def _in_bits(bits: np.ndarray, user: int, item: int) -> bool:
    """Whether bit ``item`` of ``user``'s row of the bitmap is set."""
    return (bits[user, item >> 6] >> np.uint64(item & 63)) & np.uint64(1) == np.uint64(1)


@njit
def _relevance(
    W: np.ndarray, items: np.ndarray, indptr: np.ndarray, indices: np.ndarray, bits: np.ndarray
) -> np.ndarray:
    """``out[b, w]`` = whether ``items[b]`` is relevant for user ``W[b, w]``."""
    out = np.empty(W.shape, dtype=np.bool_)
    if bits.shape[0] > 0:  # two loops, so that each compiles to its own tight code
        for b in range(W.shape[0]):
            for w in range(W.shape[1]):
                out[b, w] = _in_bits(bits, W[b, w], items[b])
    else:
        for b in range(W.shape[0]):
            for w in range(W.shape[1]):
                out[b, w] = _in_row(indptr, indices, W[b, w], items[b])
    return out


@njit
def _positive_draws(
    users: np.ndarray, uniform: np.ndarray, indptr: np.ndarray, indices: np.ndarray, cum_g: np.ndarray,
    norm_g: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """``Problem.sample_positive`` given its uniforms (one row of ``uniform`` per user)."""
    rows, size = uniform.shape
    out = np.empty((rows, size), dtype=np.int64)
    for r in range(rows):
        i = users[r]
        start, end = indptr[i], indptr[i + 1]
        base = cum_g[start - 1] if start > 0 else 0.0
        scale = (end - start) / norm_g[i]
        for c in range(size):
            target = base + uniform[r, c] * norm_g[i]
            where = _find_right(cum_g, target, start, end, start + int((target - base) * scale))
            out[r, c] = indices[min(max(where, start), end - 1)]
    return out


@njit
def _negative_round(
    out: np.ndarray, todo: np.ndarray, users: np.ndarray, uniform: np.ndarray, cum_g_prime: np.ndarray,
    indptr: np.ndarray, indices: np.ndarray, bits: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """One rejection round of ``Problem.sample_negative``: draw for the flat positions
    ``todo``, return those that hit a relevant item (to draw again)."""
    n = len(cum_g_prime)
    total = cum_g_prime[n - 1]
    per_unit = n / total
    for r in range(len(todo)):
        x = uniform[r] * total
        out[todo[r]] = min(_find_right(cum_g_prime, x, 0, n, int(x * per_unit)), n - 1)
    again = np.empty(len(todo), dtype=np.int64)
    count = 0
    if bits.shape[0] > 0:  # two loops, so that each compiles to its own tight code
        for r in range(len(todo)):
            position = todo[r]
            if _in_bits(bits, users[position], out[position]):
                again[count] = position
                count += 1
    else:
        for r in range(len(todo)):
            position = todo[r]
            if _in_row(indptr, indices, users[position], out[position]):
                again[count] = position
                count += 1
    return again[:count]


@njit
def _sample_positive(rng, users, size, indptr, indices, cum_g, norm_g):  # type: ignore[no-untyped-def]
    """``Problem.sample_positive(users, size, rng)`` (1-D ``users``): the same uniforms from
    the same Generator (numba draws them through its bit generator), the same items."""
    uniform = rng.random(len(users) * size).reshape((len(users), size))
    return _positive_draws(users, uniform, indptr, indices, cum_g, norm_g)


@njit
def _sample_negative(rng, users, size, cum_g_prime, g_prime, indptr, indices, bits):  # type: ignore[no-untyped-def]
    """``Problem.sample_negative(users, size, rng)`` (1-D ``users``): the same rejection
    rounds on the same uniforms and, for users who like nearly everything, the same
    ``rng.choice(others, p=g′/Σg′)`` (a uniform searched in the normalised cumulative sum)."""
    flat_users = np.repeat(users, size)
    out = np.empty(len(flat_users), dtype=np.int64)
    todo = np.arange(len(flat_users))
    for _ in range(200):
        todo = _negative_round(out, todo, flat_users, rng.random(len(todo)), cum_g_prime, indptr, indices, bits)
        if len(todo) == 0:
            break
    n = len(g_prime)
    for position in todo:
        i = flat_users[position]
        liked = np.zeros(n, dtype=np.bool_)
        liked[indices[indptr[i] : indptr[i + 1]]] = True
        others = np.flatnonzero(~liked)
        weights = g_prime[others]
        cdf = np.cumsum(weights / weights.sum())
        cdf /= cdf[-1]
        out[position] = others[np.searchsorted(cdf, rng.random(), side="right")]
    return out.reshape((len(users), size))


@njit(reassociate=True)
def _dot(A: np.ndarray, i: int, B: np.ndarray, j: int) -> float:
    """``A[i] · B[j]``. Reassociation lets the compiler vectorise the sum (a different
    summation order from numpy's, which only moves the round-off)."""
    acc = 0.0
    for d in range(A.shape[1]):
        acc += A[i, d] * B[j, d]
    return acc


@njit
def _step_rows(X: np.ndarray, rows: np.ndarray, grad: np.ndarray, learning_rate: float, max_norm: float) -> None:
    """``X[rows] -= α · clip(grad)``, each row's gradient rescaled to norm ≤ ``max_norm`` (0: none)."""
    k = X.shape[1]
    for b in range(len(rows)):
        factor = 1.0
        if max_norm > 0.0:
            norm = 0.0
            for d in range(k):
                norm += grad[b, d] * grad[b, d]
            factor = min(1.0, max_norm / max(math.sqrt(norm), 1e-300))
        r = rows[b]
        for d in range(k):
            X[r, d] -= learning_rate * (grad[b, d] * factor)


@njit
def _decay(tau: int, t: int) -> float:
    """``Π_{s=τ+1..t} (1 − w_s)`` for ``w_s = (η+1)/(s+η)``, η = 3: ``(s−1)/(s+3)`` telescopes
    to ``τ(τ+1)(τ+2)(τ+3) / (t(t+1)(t+2)(t+3))``."""
    return (tau / t) * ((tau + 1.0) / (t + 1.0)) * ((tau + 2.0) / (t + 2.0)) * ((tau + 3.0) / (t + 3.0))


@njit
def _catch_up(X: np.ndarray, X_avg: np.ndarray, rows: np.ndarray, synced: np.ndarray, t: int) -> None:
    """Bring ``x̄`` of ``rows`` to step ``t``. A row unchanged since step ``τ = synced[r]`` has
    ``x̄_t − x = Π(1 − w_s)(x̄_τ − x)``: the average of every row at every step, paid only
    when a row moves or the iteration ends."""
    for r in rows:
        tau = synced[r]
        if tau < t:
            p = _decay(tau, t)
            for d in range(X.shape[1]):
                X_avg[r, d] = X[r, d] + p * (X_avg[r, d] - X[r, d])
            synced[r] = t


@njit
def _average_rows(X: np.ndarray, X_avg: np.ndarray, rows: np.ndarray, synced: np.ndarray, t: int) -> None:
    """Step ``t`` of the average for ``rows`` (just moved, caught up to ``t − 1`` before)."""
    weight = (_AVERAGING_ETA + 1.0) / (t + _AVERAGING_ETA)
    for r in rows:
        for d in range(X.shape[1]):
            X_avg[r, d] += weight * (X[r, d] - X_avg[r, d])
        synced[r] = t


@njit
def _sampled_block(
    U, V, U_avg, V_avg, users, P, Q, items, W, Q_items, P_items, indptr, indices, bits, g, g_prime, norm_g,
    norm_g_prime, code, beta, rho, m_lam, item_scale, learning_rate, max_norm, t, u_synced, v_synced,
):  # fmt: skip
    """One block of the sampled-gradient step (any loss, any φ): the users' step, then the
    items' step on the updated ``U``, then the averages of the moved rows (the others catch
    up lazily, :func:`_catch_up`). Same sums as ``user_gradients`` and ``item_gradients`` on
    the same samples."""
    k = U.shape[1]
    B, K = P.shape
    KW = W.shape[1]
    s_p = np.empty(K)
    s_q = np.empty(K)
    row = np.empty(K)
    col = np.empty(K)
    grad = np.zeros((B, k))
    minus = np.empty(k)
    kk = float(K * K)
    for b in range(B):
        i = users[b]
        for a in range(K):
            s_p[a] = _dot(U, i, V, P[b, a])
            s_q[a] = _dot(U, i, V, Q[b, a])
        col[:] = 0.0
        for a in range(K):
            dphi = 1.0  # φ(x) = x: φ′ = 1 whatever ẑ, so ẑ is not computed
            if rho > 0.0:
                z = 0.0
                for c in range(K):
                    z += loss_value(code, beta, s_p[a] - s_q[c])
                dphi = phi_slope(rho, z / K)
            total = 0.0
            for c in range(K):
                pair = dphi * loss_slope(code, beta, s_p[a] - s_q[c]) / kk
                total += pair
                col[c] += pair
            row[a] = total
        minus[:] = 0.0
        for a in range(K):
            p, q = P[b, a], Q[b, a]
            for d in range(k):
                grad[b, d] += row[a] * V[p, d]
                minus[d] += col[a] * V[q, d]
        for d in range(k):
            grad[b, d] = grad[b, d] - minus[d] + m_lam * U[i, d]
    _catch_up(U, U_avg, users, u_synced, t - 1)
    _step_rows(U, users, grad, learning_rate, max_norm)
    grad[:, :] = 0.0
    relevance = _relevance(W, items, indptr, indices, bits)
    for b in range(len(items)):
        j = items[b]
        for w in range(KW):
            i = W[b, w]
            s_j = _dot(U, i, V, j)
            relevant = relevance[b, w]
            if relevant or rho > 0.0:  # the scores of the irrelevant samples are needed
                for c in range(K):
                    s_q[c] = _dot(U, i, V, Q_items[b, w, c])
            if relevant:  # j as the relevant item
                z = 0.0
                slope = 0.0
                for c in range(K):
                    if rho > 0.0:
                        z += loss_value(code, beta, s_j - s_q[c])
                    slope += loss_slope(code, beta, s_j - s_q[c])
                coef = g[j] / norm_g[i] * phi_slope(rho, z / K) * (slope / K)
            else:  # j as an irrelevant item
                total = 0.0
                for a in range(K):
                    s_a = _dot(U, i, V, P_items[b, w, a])
                    dphi = 1.0
                    if rho > 0.0:
                        z = 0.0
                        for c in range(K):
                            z += loss_value(code, beta, s_a - s_q[c])
                        dphi = phi_slope(rho, z / K)
                    total += dphi * loss_slope(code, beta, s_a - s_j)
                coef = -(g_prime[j] / norm_g_prime[i]) * (total / K)
            for d in range(k):
                grad[b, d] += coef * U[i, d]
        for d in range(k):
            grad[b, d] = item_scale * grad[b, d] + m_lam * V[j, d]
    _catch_up(V, V_avg, items, v_synced, t - 1)
    _step_rows(V, items, grad, learning_rate, max_norm)
    _average_rows(U, U_avg, users, u_synced, t)
    _average_rows(V, V_avg, items, v_synced, t)


@njit(reassociate=True)
def _square_block(
    U, V, U_avg, V_avg, users, items, W, indptr, indices, bits, col_indptr, col_users, col_weights, g, g_prime,
    norm_g, norm_g_prime, g_prime_total, v_dot, g_prime_rows, first, second, m_lam, item_scale, learning_rate,
    max_norm, t, u_synced, v_synced,
):  # fmt: skip
    """One block of the square-loss fast path (``φ(x) = x``): exact user gradients through
    ``v̇, v̈, ẇ, ẅ`` and item gradients from ``κ_W`` sampled users, as ``user_gradients`` /
    ``item_gradients`` with ``square_fast``. ``v_dot`` (``Σ_p g_i(p) v_p`` per user),
    ``g_prime_rows`` (``Σ_{p∈ω_i} g′(p) v_p``) and the moments ``first = Σ_y g′(y) v_y``,
    ``second = Σ_y g′(y) v_y v_yᵀ`` are kept current here as the items move."""
    k = U.shape[1]
    B = len(users)
    grad = np.zeros((B, k))
    vd = np.empty(k)
    vdd = np.empty(k)
    wd = np.empty(k)
    wdd = np.empty(k)
    u_second = np.empty(k)
    for b in range(B):
        i = users[b]
        start, end = indptr[i], indptr[i + 1]
        norm_p = 0.0
        sum_q = 0.0
        vd[:] = 0.0
        vdd[:] = 0.0
        wd[:] = 0.0
        wdd[:] = 0.0
        for e in range(start, end):
            p = indices[e]
            wp, wq = g[p], g_prime[p]
            norm_p += wp
            sum_q += wq
            proj = _dot(V, p, U, i)
            for d in range(k):
                vd[d] += wp * V[p, d]
                vdd[d] += wq * V[p, d]
                wd[d] += wp * proj * V[p, d]
                wdd[d] += wq * proj * V[p, d]
        norm_q = g_prime_total - sum_q
        u_second[:] = 0.0
        for c in range(k):  # u_i @ second, row by row (contiguous)
            u_c = U[i, c]
            for d in range(k):
                u_second[d] += u_c * second[c, d]
        a = 0.0
        bb = 0.0
        for d in range(k):
            vd[d] = vd[d] / norm_p
            vdd[d] = (first[d] - vdd[d]) / norm_q
            wd[d] = wd[d] / norm_p
            wdd[d] = (u_second[d] - wdd[d]) / norm_q
            a += U[i, d] * vd[d]
            bb += U[i, d] * vdd[d]
        for d in range(k):
            grad[b, d] = 2 * ((1 - a) * vdd[d] - (1 + bb) * vd[d] + wd[d] + wdd[d]) + m_lam * U[i, d]
    _catch_up(U, U_avg, users, u_synced, t - 1)
    _step_rows(U, users, grad, learning_rate, max_norm)
    grad[:, :] = 0.0
    relevance = _relevance(W, items, indptr, indices, bits)
    for b in range(len(items)):
        j = items[b]
        for w in range(W.shape[1]):
            i = W[b, w]
            s_j = _dot(U, i, V, j)
            norm = norm_g_prime[i] if norm_g_prime[i] > 0 else 1.0
            if relevance[b, w]:
                bb = 0.0
                for d in range(k):
                    bb += U[i, d] * ((first[d] - g_prime_rows[i, d]) / norm)
                coef = -2.0 * (g[j] / norm_g[i]) * (1 - s_j + bb)
            else:
                a = _dot(U, i, v_dot, i)
                coef = 2.0 * (g_prime[j] / norm_g_prime[i]) * (1 - a + s_j)
            for d in range(k):
                grad[b, d] += coef * U[i, d]
        for d in range(k):
            grad[b, d] = item_scale * grad[b, d] + m_lam * V[j, d]
    old = np.empty((len(items), k))
    for b in range(len(items)):
        old[b, :] = V[items[b], :]
    _catch_up(V, V_avg, items, v_synced, t - 1)
    _step_rows(V, items, grad, learning_rate, max_norm)
    delta = np.empty(k)
    for b in range(len(items)):  # keep the expectations current: only the moved items changed
        j = items[b]
        gj = g_prime[j]
        for c in range(k):
            delta[c] = V[j, c] - old[b, c]
            first[c] += gj * delta[c]
            v_c, old_c = V[j, c], old[b, c]
            for d in range(k):
                second[c, d] += gj * (v_c * V[j, d] - old_c * old[b, d])
        for e in range(col_indptr[j], col_indptr[j + 1]):
            u = col_users[e]
            w = col_weights[e]
            for c in range(k):
                v_dot[u, c] += w * delta[c]
                g_prime_rows[u, c] += gj * delta[c]
    _average_rows(U, U_avg, users, u_synced, t)
    _average_rows(V, V_avg, items, v_synced, t)


@njit
def _sampled_iteration(
    rng, U, V, U_avg, V_avg, user_order, item_order, t, block, active, kappa_users, kappa_items, indptr, indices,
    bits, cum_g, norm_g, cum_g_prime, g, g_prime, norm_g_prime, code, beta, rho, m_lam, item_scale, learning_rate,
    max_norm,
):  # fmt: skip
    """The blocks of one iteration, drawing from ``rng`` exactly as ``numpy_iteration`` does."""
    n_users, n = len(user_order), V.shape[0]
    steps = max(n_users, n)
    u_synced = np.full(U.shape[0], t, dtype=np.int64)  # the step each row's average is at
    v_synced = np.full(n, t, dtype=np.int64)
    for start in range(0, steps, block):
        positions = np.arange(start, min(start + block, steps))
        users, items = user_order[positions % n_users], item_order[positions % n]
        B = len(items)
        P = _sample_positive(rng, users, kappa_items, indptr, indices, cum_g, norm_g)
        Q = _sample_negative(rng, users, kappa_items, cum_g_prime, g_prime, indptr, indices, bits)
        W = active[rng.integers(0, len(active), size=B * kappa_users)]
        Q_items = _sample_negative(rng, W, kappa_items, cum_g_prime, g_prime, indptr, indices, bits)
        P_items = _sample_positive(rng, W, kappa_items, indptr, indices, cum_g, norm_g)
        t += 1
        _sampled_block(
            U, V, U_avg, V_avg, users, P, Q, items, W.reshape((B, kappa_users)),
            Q_items.reshape((B, kappa_users, kappa_items)), P_items.reshape((B, kappa_users, kappa_items)), indptr,
            indices, bits, g, g_prime, norm_g, norm_g_prime, code, beta, rho, m_lam, item_scale, learning_rate,
            max_norm, t, u_synced, v_synced,
        )  # fmt: skip
    _catch_up(U, U_avg, np.arange(U.shape[0]), u_synced, t)
    _catch_up(V, V_avg, np.arange(n), v_synced, t)
    return t


@njit
def _square_iteration(
    rng, U, V, U_avg, V_avg, user_order, item_order, t, block, active, kappa_users, indptr, indices, bits,
    col_indptr, col_users, col_weights, g, g_prime, norm_g, norm_g_prime, g_prime_total, v_dot, g_prime_rows, first,
    second, m_lam, item_scale, learning_rate, max_norm,
):  # fmt: skip
    """The blocks of one square-loss iteration, drawing from ``rng`` as ``numpy_iteration`` does."""
    n_users, n = len(user_order), V.shape[0]
    steps = max(n_users, n)
    u_synced = np.full(U.shape[0], t, dtype=np.int64)  # the step each row's average is at
    v_synced = np.full(n, t, dtype=np.int64)
    for start in range(0, steps, block):
        positions = np.arange(start, min(start + block, steps))
        users, items = user_order[positions % n_users], item_order[positions % n]
        B = len(items)
        W = active[rng.integers(0, len(active), size=B * kappa_users)].reshape((B, kappa_users))
        t += 1
        _square_block(
            U, V, U_avg, V_avg, users, items, W, indptr, indices, bits, col_indptr, col_users, col_weights, g,
            g_prime, norm_g, norm_g_prime, g_prime_total, v_dot, g_prime_rows, first, second, m_lam, item_scale,
            learning_rate, max_norm, t, u_synced, v_synced,
        )  # fmt: skip
    _catch_up(U, U_avg, np.arange(U.shape[0]), u_synced, t)
    _catch_up(V, V_avg, np.arange(n), v_synced, t)
    return t


def compiled_iteration(
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
    """:func:`numpy_iteration` compiled: the same draws from ``rng``, the same iterates up to round-off."""
    if s.loss is None:
        raise ParameterError("the compiled MFAUC engine needs SGDSettings.loss (the name behind loss_fn)")
    n_active = len(prob.active)
    block = max(1, min(s.batch_size, n_active, prob.n))
    m_lam = prob.m * s.lam
    item_scale = n_active / s.kappa_users
    max_norm = 0.0 if s.max_grad_norm is None else float(s.max_grad_norm)
    user_order, item_order = user_order.astype(np.int64), item_order.astype(np.int64)
    active = prob.active.astype(np.int64)
    if s.square_fast:
        first, second = (np.ascontiguousarray(x) for x in prob.moment(V))
        return _square_iteration(
            rng, U, V, U_avg, V_avg, user_order, item_order, t, block, active, s.kappa_users, prob.indptr,
            prob.indices, prob.liked_bits, prob.col_indptr, prob.col_users, prob.col_weights, prob.g, prob.g_prime,
            prob.norm_g, prob.norm_g_prime, float(prob.g_prime.sum()), np.ascontiguousarray(prob.weights_g @ V),
            np.ascontiguousarray(prob.weights_g_prime @ V), first, second, m_lam, item_scale, s.learning_rate,
            max_norm,
        )  # fmt: skip
    return _sampled_iteration(
        rng, U, V, U_avg, V_avg, user_order, item_order, t, block, active, s.kappa_users, s.kappa_items, prob.indptr,
        prob.indices, prob.liked_bits, prob.cum_g, prob.norm_g, prob.cum_g_prime, prob.g, prob.g_prime,
        prob.norm_g_prime, LOSS_CODES[s.loss], float(s.beta), 0.0 if s.rho is None else float(s.rho), m_lam,
        item_scale, s.learning_rate, max_norm,
    )  # fmt: skip


@njit
def _monitor_data_term(U, V, users, P, Q, code, beta, rho):  # type: ignore[no-untyped-def]
    """``mean_i mean_p φ(mean_q L(s_ip − s_iq))`` on the monitor sample (compiled)."""
    K = P.shape[1]
    s_q = np.empty(Q.shape[1])
    total = 0.0
    for r in range(len(users)):
        i = users[r]
        for c in range(Q.shape[1]):
            s_q[c] = _dot(U, i, V, Q[r, c])
        for a in range(K):
            s_p = _dot(U, i, V, P[r, a])
            z = 0.0
            for c in range(Q.shape[1]):
                z += loss_value(code, beta, s_p - s_q[c])
            total += phi_value(rho, z / Q.shape[1])
    return total / (len(users) * K)


def compiled_monitor_objective(
    prob: Problem, U: np.ndarray, V: np.ndarray, sample: tuple[np.ndarray, ...], s: SGDSettings
) -> float:
    """:func:`monitor_objective` compiled (the same θ estimate up to round-off)."""
    users, P, Q = sample
    assert s.loss is not None
    data = _monitor_data_term(
        U, V, users, P, Q, LOSS_CODES[s.loss], float(s.beta), 0.0 if s.rho is None else float(s.rho)
    )
    return float(data * len(prob.active) / prob.m + 0.5 * s.lam * (np.sum(U * U) + np.sum(V * V)))


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
) -> tuple[np.ndarray, np.ndarray, list[float], int, bool]:
    """Averaged SGD from ``(U, V)``; returns ``(Ū, V̄, objectives, n_iter, converged)``.

    Stops after ``max_iter`` iterations, or when the monitored objective at ``(Ū, V̄)``
    changes by at most ``tol`` relative to its previous value. After every iteration
    ``progress(n_iter, objective, change)`` is called, ``change`` = |θ_t − θ_{t−1}| / |θ_{t−1}|
    (what the rule compares with ``tol``; NaN after the first iteration). ``engine`` picks
    the block steps (:data:`ENGINES`); both draw the same numbers from ``rng`` and give the
    same iterates up to float round-off.
    """
    iteration, monitor = _ITERATIONS[engine], _MONITORS[engine]
    U, V = np.array(U, dtype=np.float64, order="C"), np.array(V, dtype=np.float64, order="C")
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
