"""Bitwise discrete coordinate descent for compositional codes (CCCF, and DCF as G = 1).

For component k and user i, with the residual r̃_ij = r_ij − Σ_{k′≠k} w_ij^(k′) ⟨b_i^(k′), d_j^(k′)⟩
that excludes component k and w_ij^(k) = η_i^(k) ξ_j^(k), the codes b = b_i^(k) minimise

    f_i(b) = Σ_{j ∈ 𝒱_i} (r̃_ij − w_ij^(k) bᵀd_j^(k))² − 2α₁ x_iᵀ b = bᵀA b − 2 cᵀb + const,
    A = Σ_j (w_ij^(k))² d_j d_jᵀ,   c = Σ_j w_ij^(k) r̃_ij d_j + α₁ x_i.

One bit q at a time (the others fixed): b_q ← sgn(K(b̂_q, b_q)) with
b̂_q = c_q − Σ_{p≠q} A_qp b_p and K(x, y) = x if x ≠ 0 else y (the bit is kept when b̂_q = 0).
Flipping b_q changes f_i by −4|b̂_q| (A_qq b_q² is constant), so no sweep increases f_i.
Forming A and c costs O(|𝒱_i| r²) per user and a sweep O(r²): O(|𝒱| r² + sweeps·(m + n) r²)
per component, linear in the number of ratings (survey of the rewrite: CCCF §3.4). Items
are the same with the roles of users and items swapped (α₂, y_j).

The relaxed initialisation solves the same problem over real vectors, (A + α I) u = c
(ridge towards x_i), for U^(k) and V^(k) in turn.

Ratings are kept on the observed entries only: ``target`` and ``pred`` are aligned with the
CSR data of the users × items matrix, and the item-major loops reach them through
``item_pos`` (the CSR position of each entry in CSC order; None for the users' own rows, the
identity). ``target`` is an array or an :class:`~ratkit.recsys._entries.EntryMap` of the
matrix's values, evaluated per entry (the fit holds no per-entry copy of the targets).
"""

from __future__ import annotations

import numpy as np

from ratkit._jit import njit
from ratkit.recsys._entries import at, entry

__all__ = ["sweep_bits", "update_codes", "relax_rows", "predictions", "bit_objective", "flip_row", "solve_row"]

#: Added to the relaxed problem's ridge so that a row without ratings (A = 0) with α = 0
#: still has a solution (u = 0, then the sign gives +1 bits).
_RIDGE_FLOOR = 1e-10


@njit
def sweep_bits(A: np.ndarray, c: np.ndarray, b: np.ndarray, n_sweeps: int) -> int:  # pragma: no cover - compiled
    """In place, up to ``n_sweeps`` passes of b_q ← sgn(K(c_q − Σ_{p≠q} A_qp b_p, b_q)) over
    q = 0 … r − 1; stops after a pass that changes no bit. Returns the passes made."""
    r = b.shape[0]
    for s in range(n_sweeps):
        changed = False
        for q in range(r):
            h = c[q]
            for p in range(r):
                if p != q:
                    h -= A[q, p] * b[p]
            new = b[q]
            if h > 0:
                new = 1
            elif h < 0:
                new = -1
            if new != b[q]:
                b[q] = new
                changed = True
        if not changed:
            return s + 1
    return n_sweeps


@njit
def bit_objective(A: np.ndarray, c: np.ndarray, b: np.ndarray) -> float:  # pragma: no cover - compiled
    """bᵀA b − 2 cᵀ b, the per-row objective up to a constant."""
    r = b.shape[0]
    total = 0.0
    for q in range(r):
        s = 0.0
        for p in range(r):
            s += A[q, p] * b[p]
        total += b[q] * s - 2.0 * c[q] * b[q]
    return total


@njit
def _row_system(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, target, pred, A, c):  # pragma: no cover
    """A = Σ w² v vᵀ and c = Σ w r̃ v over the entries of row i (component k)."""
    r = A.shape[0]
    A[:, :] = 0.0
    c[:] = 0.0
    wi = w_rows[i, k]
    if wi == 0.0:
        return
    for t in range(ptr[i], ptr[i + 1]):
        j = idx[t]
        w = wi * w_cols[j, k]
        if w == 0.0:
            continue
        pos = at(pos_map, t)
        inner = 0.0
        for q in range(r):
            inner += rows[k, i, q] * cols[k, j, q]
        resid = entry(target, pos) - pred[pos] + w * inner
        for q in range(r):
            c[q] += w * resid * cols[k, j, q]
            for p in range(r):
                A[q, p] += w * w * cols[k, j, q] * cols[k, j, p]


@njit
def _move_predictions(k, i, ptr, idx, pos_map, old, rows, cols, w_rows, w_cols, pred):  # pragma: no cover
    """pred += w (⟨new, v⟩ − ⟨old, v⟩) on the entries of row i after its codes changed."""
    r = old.shape[0]
    wi = w_rows[i, k]
    for t in range(ptr[i], ptr[i + 1]):
        j = idx[t]
        w = wi * w_cols[j, k]
        if w == 0.0:
            continue
        delta = 0.0
        for q in range(r):
            delta += (rows[k, i, q] - old[q]) * cols[k, j, q]
        pred[at(pos_map, t)] += w * delta


@njit
def flip_row(
    k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, pred, A, c, old, n_sweeps
):  # pragma: no cover - compiled
    """Row i of ``rows[k]`` from its system (A, c without the balance term): adds α x_i to c,
    sweeps the bits (:func:`sweep_bits`) and moves ``pred`` on the row's entries; returns the
    bits flipped. Shared by the rating fit and the one-class fit, which build A and c apart."""
    r = rows.shape[2]
    for q in range(r):
        c[q] += alpha * aux[k, i, q]
        old[q] = rows[k, i, q]
    sweep_bits(A, c, rows[k, i], n_sweeps)
    changed = 0
    for q in range(r):
        if rows[k, i, q] != old[q]:
            changed += 1
    if changed:
        _move_predictions(k, i, ptr, idx, pos_map, old, rows, cols, w_rows, w_cols, pred)
    return changed


@njit
def solve_row(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, pred, A, c, old):  # pragma: no cover
    """The relaxed counterpart of :func:`flip_row`: row i of the real ``rows[k]`` ←
    (A + (α + 10⁻¹⁰) I)⁻¹ (c + α x_i), then ``pred`` moved on the row's entries."""
    r = rows.shape[2]
    for q in range(r):
        c[q] += alpha * aux[k, i, q]
        A[q, q] += alpha + _RIDGE_FLOOR
        old[q] = rows[k, i, q]
    rows[k, i, :] = np.linalg.solve(A, c)
    _move_predictions(k, i, ptr, idx, pos_map, old, rows, cols, w_rows, w_cols, pred)


@njit
def update_codes(
    k, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, target, pred, n_sweeps
):  # pragma: no cover - compiled
    """Bitwise DCD of the codes ``rows[k]`` (users or items) against ``cols[k]``, in place,
    keeping ``pred`` equal to the model's predictions. Returns the total bit flips."""
    n_rows, r = rows.shape[1], rows.shape[2]
    A = np.empty((r, r))
    c = np.empty(r)
    old = np.empty(r, dtype=rows.dtype)
    flips = 0
    for i in range(n_rows):
        _row_system(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, target, pred, A, c)
        flips += flip_row(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, pred, A, c, old, n_sweeps)
    return flips


@njit
def relax_rows(k, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, target, pred):  # pragma: no cover
    """The relaxed update: each row of ``rows[k]`` (real) ← (A + (α + 10⁻¹⁰) I)⁻¹ c, in place, keeping
    ``pred`` equal to the predictions."""
    n_rows, r = rows.shape[1], rows.shape[2]
    A = np.empty((r, r))
    c = np.empty(r)
    old = np.empty(r)
    for i in range(n_rows):
        _row_system(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, target, pred, A, c)
        solve_row(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, pred, A, c, old)


@njit
def predictions(indptr, indices, B, D, eta, xi):  # pragma: no cover - compiled
    """r̂_ij = Σ_k η_i^(k) ξ_j^(k) ⟨b_i^(k), d_j^(k)⟩ on the stored entries of a CSR pattern."""
    G, m, r = B.shape
    out = np.zeros(indices.shape[0])
    for i in range(m):
        for t in range(indptr[i], indptr[i + 1]):
            j = indices[t]
            s = 0.0
            for k in range(G):
                w = eta[i, k] * xi[j, k]
                if w == 0.0:
                    continue
                inner = 0.0
                for q in range(r):
                    inner += B[k, i, q] * D[k, j, q]
                s += w * inner
            out[t] = s
    return out
