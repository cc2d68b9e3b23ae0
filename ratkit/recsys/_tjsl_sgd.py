"""The SGD epoch of TJSL (and FISM, its case E = ∅): Pan, Liu and Ming, "Transfer learning for
heterogeneous one-class collaborative filtering", IEEE Intelligent Systems 2016, eq. (1)–(7).

For a pair (u, i) with target r_ui ∈ {1, 0} (preferred, or sampled from R∖P):

    r̂_ui = b_u + b_i + Ū_u^{−i} V_iᵀ + Ũ_u V_iᵀ,
    Ū_u^{−i} = |P_u∖{i}|^{−1/2} Σ_{i′ ∈ P_u∖{i}} P_{i′},   Ũ_u = |E_u|^{−1/2} Σ_{j ∈ E_u} E_j,

(an empty set gives a zero profile), and the per-pair objective

    f_ui = ½ (r_ui − r̂_ui)² + α_v/2 ‖V_i‖² + α_p/2 Σ_{i′ ∈ P_u∖{i}} ‖P_{i′}‖² + α_e/2 Σ_{j ∈ E_u} ‖E_j‖²
           + β_u/2 b_u² + β_v/2 b_i²

has, with e = r_ui − r̂_ui, ∇b_u = −e + β_u b_u, ∇b_i = −e + β_v b_i, ∇V_i = −e (Ū + Ũ) + α_v V_i,
∇P_{i′} = −e |P_u∖{i}|^{−1/2} V_i + α_p P_{i′}, ∇E_j = −e |E_u|^{−1/2} V_i + α_e E_j. Every
gradient of a step is taken at the parameters before the step (θ ← θ − γ∇θ for all θ at once).
A step costs O((|P_u| + |E_u|) d): an epoch over P ∪ A costs O(|P ∪ A| (avg |P_u| + avg |E_u|) d).
"""

from __future__ import annotations

import numpy as np

from ratkit._jit import njit

__all__ = ["sgd_epoch", "pair_loss", "pair_gradients", "sample_negatives"]


@njit
def _profiles(u, i, p_ptr, p_idx, e_ptr, e_idx, P, E, bar, tilde):  # pragma: no cover - compiled
    """Ū_u^{−i} into ``bar`` and Ũ_u into ``tilde``; returns (|P_u∖{i}|, |E_u|)."""
    d = bar.shape[0]
    bar[:] = 0.0
    tilde[:] = 0.0
    n_p = 0
    for t in range(p_ptr[u], p_ptr[u + 1]):
        k = p_idx[t]
        if k == i:
            continue
        n_p += 1
        for q in range(d):
            bar[q] += P[k, q]
    n_e = e_ptr[u + 1] - e_ptr[u]
    for t in range(e_ptr[u], e_ptr[u + 1]):
        k = e_idx[t]
        for q in range(d):
            tilde[q] += E[k, q]
    if n_p > 0:
        s = 1.0 / np.sqrt(n_p)
        for q in range(d):
            bar[q] *= s
    if n_e > 0:
        s = 1.0 / np.sqrt(n_e)
        for q in range(d):
            tilde[q] *= s
    return n_p, n_e


@njit
def _predict(u, i, bu, bi, V, bar, tilde):  # pragma: no cover - compiled
    s = bu[u] + bi[i]
    for q in range(V.shape[1]):
        s += (bar[q] + tilde[q]) * V[i, q]
    return s


@njit
def sgd_epoch(
    users, items, targets, p_ptr, p_idx, e_ptr, e_idx, bu, bi, V, P, E, lr, av, ap, ae, bu_reg, bv_reg
):  # pragma: no cover - compiled
    """One pass of θ ← θ − γ∇θ over the pairs (users[t], items[t], targets[t]) in that order,
    in place; returns Σ_t ½ e_t² (before each step)."""
    d = V.shape[1]
    bar = np.empty(d)
    tilde = np.empty(d)
    vi = np.empty(d)
    loss = 0.0
    for t in range(users.shape[0]):
        u, i, r = users[t], items[t], targets[t]
        n_p, n_e = _profiles(u, i, p_ptr, p_idx, e_ptr, e_idx, P, E, bar, tilde)
        e = r - _predict(u, i, bu, bi, V, bar, tilde)
        loss += 0.5 * e * e
        for q in range(d):
            vi[q] = V[i, q]
        bu[u] -= lr * (-e + bu_reg * bu[u])
        bi[i] -= lr * (-e + bv_reg * bi[i])
        for q in range(d):
            V[i, q] -= lr * (-e * (bar[q] + tilde[q]) + av * vi[q])
        if n_p > 0:
            g = e / np.sqrt(n_p)
            for s in range(p_ptr[u], p_ptr[u + 1]):
                k = p_idx[s]
                if k == i:
                    continue
                for q in range(d):
                    P[k, q] -= lr * (-g * vi[q] + ap * P[k, q])
        if n_e > 0:
            g = e / np.sqrt(n_e)
            for s in range(e_ptr[u], e_ptr[u + 1]):
                k = e_idx[s]
                for q in range(d):
                    E[k, q] -= lr * (-g * vi[q] + ae * E[k, q])
    return loss


@njit
def pair_loss(u, i, r, p_ptr, p_idx, e_ptr, e_idx, bu, bi, V, P, E, av, ap, ae, bu_reg, bv_reg):  # pragma: no cover
    """f_ui, the per-pair objective of eq. (3)/(5) (see the module docstring)."""
    d = V.shape[1]
    bar = np.empty(d)
    tilde = np.empty(d)
    _profiles(u, i, p_ptr, p_idx, e_ptr, e_idx, P, E, bar, tilde)
    e = r - _predict(u, i, bu, bi, V, bar, tilde)
    f = 0.5 * e * e + 0.5 * av * np.sum(V[i] ** 2) + 0.5 * bu_reg * bu[u] ** 2 + 0.5 * bv_reg * bi[i] ** 2
    for s in range(p_ptr[u], p_ptr[u + 1]):
        if p_idx[s] != i:
            f += 0.5 * ap * np.sum(P[p_idx[s]] ** 2)
    for s in range(e_ptr[u], e_ptr[u + 1]):
        f += 0.5 * ae * np.sum(E[e_idx[s]] ** 2)
    return f


def pair_gradients(
    u: int,
    i: int,
    r: float,
    p_ptr: np.ndarray,
    p_idx: np.ndarray,
    e_ptr: np.ndarray,
    e_idx: np.ndarray,
    bu: np.ndarray,
    bi: np.ndarray,
    V: np.ndarray,
    P: np.ndarray,
    E: np.ndarray,
    av: float,
    ap: float,
    ae: float,
    bu_reg: float,
    bv_reg: float,
) -> dict[str, np.ndarray]:
    """The analytic gradients of f_ui (module docstring) as full arrays shaped like
    (bu, bi, V, P, E): what one step of :func:`sgd_epoch` subtracts, divided by γ."""
    grads = {"bu": np.zeros_like(bu), "bi": np.zeros_like(bi), "V": np.zeros_like(V)}
    grads["P"], grads["E"] = np.zeros_like(P), np.zeros_like(E)
    copies = [a.copy() for a in (bu, bi, V, P, E)]
    sgd_epoch(
        np.array([u], dtype=np.int64), np.array([i], dtype=np.int64), np.array([float(r)]),
        p_ptr, p_idx, e_ptr, e_idx, *copies, 1.0, av, ap, ae, bu_reg, bv_reg,
    )  # fmt: skip
    for name, before, after in zip(("bu", "bi", "V", "P", "E"), (bu, bi, V, P, E), copies, strict=True):
        grads[name] = before - after  # θ − (θ − 1·∇θ)
    return grads


def sample_negatives(
    rng: np.random.Generator, preferred_keys: np.ndarray, n_users: int, n_items: int, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """``size`` pairs drawn uniformly from R∖P (all user–item pairs but the preferred ones;
    ``preferred_keys`` the sorted keys u·n_items + i of P), with replacement."""
    users = np.empty(0, dtype=np.int64)
    items = np.empty(0, dtype=np.int64)
    while users.size < size:
        need = size - users.size
        u = rng.integers(0, n_users, int(need * 1.2) + 8)
        i = rng.integers(0, n_items, u.size)
        keys = u * n_items + i
        pos = np.searchsorted(preferred_keys, keys)
        free = (pos >= preferred_keys.size) | (preferred_keys[np.minimum(pos, preferred_keys.size - 1)] != keys)
        users = np.concatenate([users, u[free]])
        items = np.concatenate([items, i[free]])
    return users[:size], items[:size]
