"""One-class fitting of compositional codes: bitwise DCD on every user–item pair, ALS's way.

With one-class data (a stored entry means interest) the codes minimise, over **all** pairs,

    L = Σ_{i,j} c_ij (p_ij − r̂_ij)² + α₁ Σ_k ‖B^(k) − X^(k)‖² + α₂ Σ_k ‖D^(k) − Y^(k)‖²,

p_ij the (scaled) target of an observed pair and 0 elsewhere, c_ij = 1 + a·v_ij on an observed
pair of stored value v_ij and c_ij = w₀ (``unobserved_weight``) elsewhere (Hu, Koren and
Volinsky 2008's confidence weights). The m × n matrix is never formed (the ALS trick): write
r̂_ij = u_iᵀv_j with u_i = (η_i^(1) b_i^(1), …, η_i^(G) b_i^(G)) and v_j likewise (d = G·r
reals), P = Σ_j v_j v_jᵀ the d × d Gram of the items (computed once per component update,
O(n·d²)). For user i and component k, with o_ij = r̂_ij − w_ij bᵀd_j the other components'
part (w_ij = η_i^(k) ξ_j^(k)), the user's loss in b = b_i^(k) is bᵀA b − 2 cᵀb + const with

    A = η² (w₀ P_kk + Σ_{j ∈ 𝒱_i} (c_ij − w₀) ξ_j² d_j d_jᵀ),
    c = −w₀ η Σ_{k′≠k} P_kk′ u_i^(k′) + Σ_{j ∈ 𝒱_i} w_ij (c_ij p_ij − (c_ij − w₀) o_ij) d_j + α₁ x_i

(η = η_i^(k), ξ_j = ξ_j^(k), P_kk′ the r × r block of P): the sum over all n items is w₀ times
the Gram's blocks, plus corrections on the user's observed items only. The bit updates are
the rating fit's (:func:`~ratkit.recsys._code_dcd.sweep_bits`, each flip lowers L), so a
component update costs O(|𝒱|·r² + m·d·r + n·d²) and an outer iteration over the G
components O(|𝒱|·d·r + (m + n)·G·d²), linear in the observed pairs. Items are the same
with users and items swapped. The loss itself is

    L = w₀ ⟨Σ_i u_i u_iᵀ, P⟩_F + Σ_{𝒱} (c_ij (p_ij − r̂_ij)² − w₀ r̂_ij²) + balance terms,

and ``pred`` (r̂ on the observed pairs) is kept current as in the rating fit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratkit._jit import njit
from ratkit.recsys._code_dcd import flip_row, solve_row
from ratkit.recsys._entries import EntryMap, at, entry, entry_values, exact_sum

__all__ = ["factor_rows", "gram", "GramRows", "one_class_loss", "update_codes_one_class", "relax_rows_one_class"]


def factor_rows(codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(N, G·r) rows (w^(1) c^(1), …, w^(G) c^(G)) of codes (G, N, r) and weights (N, G):
    r̂_ij is the inner product of a user's row and an item's. Written straight into the
    result (no float copy of the codes beside it)."""
    G, N, r = codes.shape
    out = np.empty((N, G * r))
    np.multiply(codes.transpose(1, 0, 2), weights[:, :, None], out=out.reshape(N, G, r))
    return out


def gram(codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ_rows f fᵀ over the :func:`factor_rows` f, (G·r, G·r)."""
    rows = factor_rows(codes, weights)
    return rows.T @ rows


class GramRows:
    """The Gram P = FᵀF (d × d) of the :func:`factor_rows` F of ``codes`` and ``weights``, kept
    current block by block: once the components in ``stale`` changed, :meth:`current`
    recomputes P's block rows and columns of those components only, O(N·r·d) each.

    F (N × d floats: 64 MB for 125 000 users at d = 64) is never held: it is built ``ROWS``
    rows at a time and each block is the sum of the chunks' products, in row order. With
    N ≤ ``ROWS`` that is one product of the whole F, as numpy computes FᵀF; above, the sums over
    the rows are grouped by chunk (rounding differs from one product in the last bits)."""

    ROWS = 1 << 15

    def __init__(self, codes: np.ndarray, weights: np.ndarray) -> None:
        self.codes, self.weights = codes, weights
        self.stale: set[int] = set()
        P: np.ndarray | None = None
        for F in self._chunks():
            P = F.T @ F if P is None else P + F.T @ F
        self.P = P if P is not None else np.zeros((codes.shape[0] * codes.shape[2],) * 2)

    def _chunks(self) -> Any:
        N = self.codes.shape[1]
        for lo in range(0, N, self.ROWS):
            yield factor_rows(self.codes[:, lo : lo + self.ROWS], self.weights[lo : lo + self.ROWS])

    def current(self) -> np.ndarray:
        """P for the codes as they are now (the stale blocks recomputed, in the set's order)."""
        if not self.stale:
            return self.P
        r = self.codes.shape[2]
        blocks: dict[int, np.ndarray] = {}
        for F in self._chunks():
            for k in self.stale:
                part = F[:, k * r : (k + 1) * r].T @ F
                blocks[k] = part if k not in blocks else blocks[k] + part
        for k in self.stale:
            self.P[k * r : (k + 1) * r, :] = blocks[k]
            self.P[:, k * r : (k + 1) * r] = blocks[k].T
        self.stale.clear()
        return self.P


def one_class_loss(
    target: np.ndarray | EntryMap,
    confidence: np.ndarray | EntryMap,
    pred: np.ndarray,
    unobserved_weight: float,
    P: np.ndarray,
    Q: np.ndarray,
) -> float:
    """Σ_{all i,j} c_ij (p_ij − r̂_ij)² from the Grams P (items) and Q (users) and the observed
    pairs' targets, confidences and predictions: w₀⟨Q, P⟩_F + Σ_𝒱 (c (p − r̂)² − w₀ r̂²), the
    last sum numpy's on the whole array of terms, a chunk of terms at a time."""
    w0 = unobserved_weight

    def terms(part: slice) -> np.ndarray:
        return entry_values(confidence, part) * (entry_values(target, part) - pred[part]) ** 2 - w0 * pred[part] ** 2

    return w0 * float(np.sum(Q * P)) + exact_sum(pred.shape[0], terms)


@njit
def _system(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, target, conf, w0, P, pred, A, c):  # pragma: no cover
    """A and c (without the balance term) of row i, component k, over every column: the Gram
    part w₀·P then the corrections on the row's observed entries (see the module docstring)."""
    G, r = rows.shape[0], rows.shape[2]
    A[:, :] = 0.0
    c[:] = 0.0
    wi = w_rows[i, k]
    if wi == 0.0:
        return
    base = k * r
    for q in range(r):
        h = 0.0
        for kk in range(G):
            wk = w_rows[i, kk]
            if kk == k or wk == 0.0:
                continue
            for p in range(r):
                h += P[base + q, kk * r + p] * wk * rows[kk, i, p]
        c[q] = -w0 * wi * h
        for p in range(r):
            A[q, p] = w0 * wi * wi * P[base + q, base + p]
    for t in range(ptr[i], ptr[i + 1]):
        j = idx[t]
        w = wi * w_cols[j, k]
        if w == 0.0:
            continue
        pos = at(pos_map, t)
        inner = 0.0
        for q in range(r):
            inner += rows[k, i, q] * cols[k, j, q]
        other = pred[pos] - w * inner
        confidence = entry(conf, pos)
        extra = confidence - w0
        coef = w * (confidence * entry(target, pos) - extra * other)
        for q in range(r):
            c[q] += coef * cols[k, j, q]
            for p in range(r):
                A[q, p] += extra * w * w * cols[k, j, q] * cols[k, j, p]


@njit
def update_codes_one_class(
    k, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, target, conf, w0, P, pred, n_sweeps
):  # pragma: no cover - compiled
    """Bitwise DCD of the codes ``rows[k]`` against ``cols`` over every pair (P: the Gram of
    ``cols``' factor rows), in place, keeping ``pred`` current. Returns the bits flipped."""
    n_rows, r = rows.shape[1], rows.shape[2]
    A = np.empty((r, r))
    c = np.empty(r)
    old = np.empty(r, dtype=rows.dtype)
    flips = 0
    for i in range(n_rows):
        _system(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, target, conf, w0, P, pred, A, c)
        flips += flip_row(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, pred, A, c, old, n_sweeps)
    return flips


@njit
def relax_rows_one_class(
    k, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, target, conf, w0, P, pred
):  # pragma: no cover - compiled
    """The relaxed update over every pair: each real row of ``rows[k]`` ← (A + (α + 10⁻¹⁰) I)⁻¹ c."""
    n_rows, r = rows.shape[1], rows.shape[2]
    A = np.empty((r, r))
    c = np.empty(r)
    old = np.empty(r)
    for i in range(n_rows):
        _system(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, target, conf, w0, P, pred, A, c)
        solve_row(k, i, ptr, idx, pos_map, rows, cols, w_rows, w_cols, aux, alpha, pred, A, c, old)
