"""MFAUC's compiled SGD engine: the block steps, iterations and monitored objective in numba.

:func:`compiled_iteration` is :func:`ratkit.recsys._mfauc_sgd.numpy_iteration` compiled:
the samples come from :mod:`ratkit.recsys._mfauc_sampling`, drawn from the caller's
Generator by the same calls with the same sizes in the same order as the numpy reference
(``integers`` for the users of an item gradient), so the two engines see the same samples
and give the same iterates up to float round-off. The loops are single-threaded: one
thread keeps every sum in a fixed order, and the draws are one sequential stream anyway.
The averages x̄ are kept lazily (:func:`_catch_up`): a row's average is brought up to date
only when the row moves or the iteration ends.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ratkit._jit import njit
from ratkit.exceptions import ParameterError
from ratkit.recsys._mfauc_objective import (
    LOSS_CODES,
    loss_slope,
    loss_value,
    phi_slope,
    phi_value,
)
from ratkit.recsys._mfauc_sampling import _relevance, _sample_negative, _sample_positive

if TYPE_CHECKING:  # the driver imports this module; these are its types
    from ratkit.recsys._mfauc_sgd import Problem, SGDSettings

__all__ = ["AVERAGING_ETA", "compiled_iteration", "compiled_monitor_objective"]

#: η of the polynomial-decay averaging weight w_t = (η + 1)/(t + η) (Shamir & Zhang);
#: :func:`_decay`'s closed form needs 3.
AVERAGING_ETA = 3.0


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
    weight = (AVERAGING_ETA + 1.0) / (t + AVERAGING_ETA)
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
def _monitor_data_term(U, V, users, P, Q, code, beta, rho):
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
