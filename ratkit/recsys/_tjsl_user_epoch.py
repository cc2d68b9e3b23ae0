"""The per-user SGD epoch of TJSL and FISM (issue 38): O((|P| + |A| + Σ_u (|P_u| + |E_u|)) d) per epoch.

The model, the per-pair objective f_ui and its gradients are those of :mod:`ratkit.recsys._tjsl_sgd`
(Pan, Liu and Ming 2016, eq. (1)–(7)), whose :func:`~ratkit.recsys._tjsl_sgd.sgd_epoch` (the paper's
algorithm: one step per pair, each step writing every profile row, O((|P_u| + |E_u|) d) per pair)
is kept as the reference. Here an epoch visits users instead of pairs, and takes exactly the
reference's steps, in a user-grouped order, for O(d) per pair:

1. Users are visited in the order given (the fit draws a random permutation every epoch).
2. A visit of user u builds u's pairs: every i ∈ P_u (target 1) and ``neg_counts[u]`` items drawn
   uniformly, with replacement, from I∖P_u (target 0), shuffled (Fisher–Yates; the draws from
   a splitmix64 generator seeded per epoch). ``neg_counts``
   is multinomial over users with weights |I∖P_u| (:func:`negative_counts`), so the epoch's
   negatives are, as the reference's, ρ|P| pairs drawn uniformly from R∖P.
3. At the start of the visit the profile aggregates are computed ONCE:
   S_u = Σ_{k ∈ P_u} P_k and T_u = Σ_{j ∈ E_u} E_j (so Ũ_u = |E_u|^{−1/2} T_u).
4. The pairs are then taken one by one, each with the reference's step θ ← θ − γ∇f_ui(θ) for
   every θ at once (gradients at the values before the step; nothing is frozen):
   e = r − r̂_ui with Ū_u^{−i} = (S_u − [i ∈ P_u] P_i) |P_u∖{i}|^{−1/2};
   b_u, b_i and V_i are written at once;
   every k ∈ P_u∖{i} takes P_k ← (1 − γα_p) P_k + γ e |P_u∖{i}|^{−1/2} V_i and every
   j ∈ E_u takes E_j ← (1 − γα_e) E_j + γ e |E_u|^{−1/2} V_i (V_i before its step). Those
   steps are the same for every profile row, so they are ACCUMULATED, not written: the rows
   are held as P_k = a_P X_k + h_P (E_j = a_E Y_j + h_E) with one scale a and one vector h per
   visit, updated in O(d) (a ← (1 − γα) a, h ← (1 − γα) h + γ e c V_i); the target i ∈ P_u
   that a step leaves out keeps its value by rewriting its own X_i = (P_i − h)/a. S_u and
   T_u are updated in O(d) by the same step. (When a < 10⁻³ the rows are written out and a
   restarts at 1; when γα ≥ ½ every step writes every row, as the reference does.)
5. At the end of the visit every profile row is written once: P_k ← a_P X_k + h_P,
   E_j ← a_E Y_j + h_E.

So a visit costs O((|P_u| + |E_u| + #pairs of u) d) and an epoch O((|P| + |A|) d + Σ_u (|P_u| +
|E_u|) d); its result is the reference ``sgd_epoch`` run on the same pairs in the same order (up
to rounding). Only the order differs from the reference's epoch, which shuffles all pairs.
"""

from __future__ import annotations

import numpy as np

from ratkit._jit import njit

__all__ = ["user_epoch", "user_visit", "epoch_pairs", "negative_counts"]


#: When the shared scale a falls below this, the rows are written out and a restarts at 1
#: (dividing by a small a would lose precision); with γα = 10⁻⁴ that is every ~69 000 steps.
_FLUSH = 1e-3


@njit
def _flush(X, idx, lo, hi, a, h):  # pragma: no cover - compiled
    """X_k ← a X_k + h for the rows idx[lo:hi]; h ← 0. Returns the rows written."""
    for s in range(lo, hi):
        k = idx[s]
        for q in range(X.shape[1]):
            X[k, q] = a * X[k, q] + h[q]
    h[:] = 0.0
    return hi - lo


@njit
def _visit(
    u, items, targets, start, stop, p_ptr, p_idx, e_ptr, e_idx, bu, bi, V, P, E, lr, av, ap, ae, bu_reg, bv_reg,
    mark, vectors,
):  # pragma: no cover - compiled  # fmt: skip
    """One visit of user u over the pairs items/targets[start:stop] (module docstring), in place;
    ``vectors`` is 7 × d scratch. Returns (Σ_t ½ e_t², the number of length-d vector operations)."""
    d = V.shape[1]
    sum_p, sum_e, h_p, h_e, z, vi, pi_old = (
        vectors[0], vectors[1], vectors[2], vectors[3], vectors[4], vectors[5], vectors[6]
    )  # fmt: skip
    n_p = p_ptr[u + 1] - p_ptr[u]
    n_e = e_ptr[u + 1] - e_ptr[u]
    vectors[:4] = 0.0
    for s in range(p_ptr[u], p_ptr[u + 1]):
        k = p_idx[s]
        mark[k] = u
        for q in range(d):
            sum_p[q] += P[k, q]
    for s in range(e_ptr[u], e_ptr[u + 1]):
        for q in range(d):
            sum_e[q] += E[e_idx[s], q]
    ops = 2 * (n_p + n_e) + (stop - start)  # the sums, the write-back, one step per pair
    shrink_p, shrink_e = 1.0 - lr * ap, 1.0 - lr * ae
    lazy_p, lazy_e = shrink_p > 0.5, shrink_e > 0.5  # else (γα ≥ ½) each step writes every row
    a_p, a_e = 1.0, 1.0
    inv_e = 1.0 / np.sqrt(n_e) if n_e > 0 else 0.0
    loss = 0.0
    for t in range(start, stop):
        i = items[t]
        own = mark[i] == u
        m_p = n_p - 1 if own else n_p
        inv_p = 1.0 / np.sqrt(m_p) if m_p > 0 else 0.0
        pred = bu[u] + bi[i]
        for q in range(d):
            pi_old[q] = a_p * P[i, q] + h_p[q] if own else 0.0
        for q in range(d):
            z[q] = (sum_p[q] - pi_old[q]) * inv_p + sum_e[q] * inv_e  # Ū_u^{−i} + Ũ_u
            pred += z[q] * V[i, q]
        e = targets[t] - pred
        loss += 0.5 * e * e
        bu[u] -= lr * (-e + bu_reg * bu[u])
        bi[i] -= lr * (-e + bv_reg * bi[i])
        # P_k ← (1 − γα_p) P_k + γ e |P_u∖{i}|^{−1/2} V_i for k ∈ P_u∖{i} (none when m_p = 0, then
        # g_p = 0 and the scale 1 leave everything as it is), E_j likewise for j ∈ E_u; V_i's step and
        # the sums' and (lazy) shared vectors' in one pass
        g_p, g_e = lr * e * inv_p, lr * e * inv_e
        s_p = shrink_p if m_p > 0 else 1.0
        s_e = shrink_e if n_e > 0 else 1.0
        hs_p, hg_p = (s_p, g_p) if lazy_p else (1.0, 0.0)
        hs_e, hg_e = (s_e, g_e) if lazy_e else (1.0, 0.0)
        for q in range(d):
            v = V[i, q]
            vi[q] = v
            V[i, q] = v - lr * (-e * z[q] + av * v)
            sum_p[q] = s_p * (sum_p[q] - pi_old[q]) + m_p * g_p * v + pi_old[q]
            h_p[q] = hs_p * h_p[q] + hg_p * v
            sum_e[q] = s_e * sum_e[q] + n_e * g_e * v
            h_e[q] = hs_e * h_e[q] + hg_e * v
        if m_p > 0:
            if lazy_p:
                a_p *= shrink_p
                if own:  # P_i keeps its value: its stored row absorbs this step's (a, h)
                    for q in range(d):
                        P[i, q] = (pi_old[q] - h_p[q]) / a_p
                if a_p < _FLUSH:
                    ops += _flush(P, p_idx, p_ptr[u], p_ptr[u + 1], a_p, h_p)
                    a_p = 1.0
            else:
                for s in range(p_ptr[u], p_ptr[u + 1]):
                    k = p_idx[s]
                    if k != i:
                        for q in range(d):
                            P[k, q] = shrink_p * P[k, q] + g_p * vi[q]
                ops += n_p
        if n_e > 0:
            if lazy_e:
                a_e *= shrink_e
                if a_e < _FLUSH:
                    ops += _flush(E, e_idx, e_ptr[u], e_ptr[u + 1], a_e, h_e)
                    a_e = 1.0
            else:
                for s in range(e_ptr[u], e_ptr[u + 1]):
                    for q in range(d):
                        E[e_idx[s], q] = shrink_e * E[e_idx[s], q] + g_e * vi[q]
                ops += n_e
    _flush(P, p_idx, p_ptr[u], p_ptr[u + 1], a_p, h_p)
    _flush(E, e_idx, e_ptr[u], e_ptr[u + 1], a_e, h_e)
    return loss, ops


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@njit
def _below(state, n):  # pragma: no cover - compiled
    """A uniform integer in [0, n), n < 2³², from the splitmix64 generator ``state`` (one uint64,
    advanced): numba's np.random took 70–130 ns a draw here, as much as a step at d = 32."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return np.int64(((z >> _S32) * np.uint64(n)) >> _S32)


@njit
def _user_pairs(u, n_neg, p_ptr, p_idx, n_items, mark, items, targets, state):  # pragma: no cover - compiled
    """u's positives and ``n_neg`` uniform draws from I∖P_u into items/targets[:k], shuffled; returns k."""
    k = 0
    for s in range(p_ptr[u], p_ptr[u + 1]):
        mark[p_idx[s]] = u
        items[k] = p_idx[s]
        targets[k] = 1.0
        k += 1
    for _ in range(n_neg):
        j = _below(state, n_items)
        while mark[j] == u:
            j = _below(state, n_items)
        items[k] = j
        targets[k] = 0.0
        k += 1
    for a in range(k - 1, 0, -1):
        b = _below(state, a + 1)
        items[a], items[b] = items[b], items[a]
        targets[a], targets[b] = targets[b], targets[a]
    return k


@njit
def user_epoch(
    visit, neg_counts, seed, p_ptr, p_idx, e_ptr, e_idx, bu, bi, V, P, E, lr, av, ap, ae, bu_reg, bv_reg
):  # pragma: no cover - compiled
    """One epoch visiting the users ``visit`` in that order (module docstring), in place; the
    pairs' order and negatives come from numba's generator seeded with ``seed``. Returns
    (Σ_pairs ½ e², the number of length-d vector operations done)."""
    state = np.full(1, seed, dtype=np.uint64)
    n, d = V.shape
    mark = np.full(n, -1, dtype=np.int64)
    vectors = np.zeros((7, d))
    longest = 0
    for u in visit:
        longest = max(longest, p_ptr[u + 1] - p_ptr[u] + neg_counts[u])
    items = np.empty(longest, dtype=np.int64)
    targets = np.empty(longest)
    loss = 0.0
    ops = 0
    for u in visit:
        k = _user_pairs(u, neg_counts[u], p_ptr, p_idx, n, mark, items, targets, state)
        if k == 0:
            continue
        f, c = _visit(
            u, items, targets, 0, k, p_ptr, p_idx, e_ptr, e_idx, bu, bi, V, P, E, lr, av, ap, ae, bu_reg, bv_reg,
            mark, vectors,
        )  # fmt: skip
        loss += f
        ops += c
    return loss, ops


@njit
def epoch_pairs(visit, neg_counts, seed, p_ptr, p_idx, n_items):  # pragma: no cover - compiled
    """The pairs :func:`user_epoch` visits with these arguments: (ptr, items, targets), user
    ``visit[v]``'s pairs at ``ptr[v]:ptr[v + 1]``, in the order they are taken."""
    state = np.full(1, seed, dtype=np.uint64)
    mark = np.full(n_items, -1, dtype=np.int64)
    total = 0
    for u in visit:
        total += p_ptr[u + 1] - p_ptr[u] + neg_counts[u]
    ptr = np.zeros(visit.shape[0] + 1, dtype=np.int64)
    items = np.empty(total, dtype=np.int64)
    targets = np.empty(total)
    for v in range(visit.shape[0]):
        u = visit[v]
        k = _user_pairs(u, neg_counts[u], p_ptr, p_idx, n_items, mark, items[ptr[v] :], targets[ptr[v] :], state)
        ptr[v + 1] = ptr[v] + k
    return ptr, items, targets


def user_visit(
    u: int,
    items: np.ndarray,
    targets: np.ndarray,
    p_ptr: np.ndarray,
    p_idx: np.ndarray,
    e_ptr: np.ndarray,
    e_idx: np.ndarray,
    bu: np.ndarray,
    bi: np.ndarray,
    V: np.ndarray,
    P: np.ndarray,
    E: np.ndarray,
    lr: float,
    av: float,
    ap: float,
    ae: float,
    bu_reg: float,
    bv_reg: float,
) -> float:
    """One visit of user u over the pairs (u, items[t], targets[t]) in that order (module
    docstring, steps 3–5), in place; returns Σ_t ½ e_t²."""
    n, d = V.shape
    loss, _ = _visit(
        u, np.asarray(items, dtype=np.int64), np.asarray(targets, dtype=float), 0, len(items), p_ptr, p_idx,
        e_ptr, e_idx, bu, bi, V, P, E, lr, av, ap, ae, bu_reg, bv_reg, np.full(n, -1, dtype=np.int64),
        np.zeros((7, d)),
    )  # fmt: skip
    return float(loss)


def negative_counts(rng: np.random.Generator, p_ptr: np.ndarray, n_items: int, size: int) -> np.ndarray:
    """How many of ``size`` uniform draws from R∖P fall on each user: multinomial with weights
    |I∖P_u| (R∖P's pairs are equally likely, so a user's share is its number of unpreferred items)."""
    free = n_items - np.diff(p_ptr).astype(np.float64)
    return rng.multinomial(size, free / free.sum()).astype(np.int64)
