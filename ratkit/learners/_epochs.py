"""One outer iteration of dual coordinate descent (Algorithms 3 and 4), compiled.

Every function here sweeps the coordinates in the order ``perm`` and, for each i,
computes the gradient G = ∇_i f(α) = (Qα)_i − 1 (eq. (41)) from the representation of
W′ it is given, projects it (∇^P, §V-A), takes the clipped Newton step of eq. (40) and
updates W′ (eq. (44) / (53)). They return the largest and smallest projected gradient
seen, for the stopping rule max ∇^P − min ∇^P ≤ tol.

``qinv[i]`` is 1 / Q_ii, and +∞ when Q_ii = 0 (a zero feature vector): then G = −1 and
the step sends α_i to C, the boundary case of §V-A.

References
----------
A. Ghose, *Rational kernels: a survey*, §V-A eq. (38)–(44), Algorithm 3; §V-B eq. (53)–(54),
Algorithm 4. C.-J. Hsieh et al., "A dual coordinate descent method for large-scale linear
SVM", ICML 2008 (the stopping rule).
"""

from __future__ import annotations

import numpy as np

from ratkit.learners._jit import njit

__all__ = [
    "epoch_indexed",
    "epoch_automaton",
    "epoch_gram",
    "projected_gradient",
    "newton_step",
    "PG_ZERO",
]

#: |∇^P| below this counts as zero: no step is taken (LIBLINEAR's 1e-12).
PG_ZERO = 1e-12


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
def epoch_indexed(perm, indptr, indices, data, y, qinv, C, alpha, w):
    """Algorithm 3 on rows x_i stored as CSR: G = y_i ⟨w, x_i⟩ − 1; w += Δα_i y_i x_i.

    With ``indices`` the trie nodes of Φ′_i's patterns, this is Algorithm 4 with W′ a
    weighted trie indexed once (``w`` holds the node weights).
    """
    pgmax = -np.inf
    pgmin = np.inf
    for t in range(perm.shape[0]):
        i = perm[t]
        g = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            g += w[indices[p]] * data[p]
        G = y[i] * g - 1.0
        a = alpha[i]
        PG = projected_gradient(G, a, C)
        pgmax = max(pgmax, PG)
        pgmin = min(pgmin, PG)
        if abs(PG) > PG_ZERO:
            new = newton_step(G, a, qinv[i], C)
            alpha[i] = new
            d = (new - a) * y[i]
            if d != 0.0:
                for p in range(indptr[i], indptr[i + 1]):
                    w[indices[p]] += d * data[p]
    return pgmax, pgmin


@njit
def _find_arc(arc_off, arc_lab, q, label):
    """The arc of state q labelled ``label`` (binary search), or −1."""
    lo = arc_off[q]
    hi = arc_off[q + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if arc_lab[mid] < label:
            lo = mid + 1
        else:
            hi = mid
    if lo < arc_off[q + 1] and arc_lab[lo] == label:
        return lo
    return -1


@njit
def _intersect_slots(
    i,
    indptr,
    cols,
    lcp,
    vlab,
    vlen,
    start,
    arc_off,
    arc_lab,
    arc_dst,
    arc_inc,
    final,
    st_state,
    st_slot,
    slots,
):
    """Φ′_i ⋄ A: walk Φ′_i's patterns through the deterministic automaton A.

    Φ′_i's patterns are visited in sorted order as the leaves of its trie: pattern p
    shares ``lcp[p]`` symbols with the previous one, so only its remaining symbols are
    walked (the stacks keep the states and path numbers of the shared prefix). The
    number of a pattern's path (the sum of the ``arc_inc`` along it) is its slot in the
    weight array; −1 when A does not accept the pattern.
    """
    valid = 0  # the stacks hold states for depths 0..valid
    st_state[0] = start
    st_slot[0] = 0
    for p in range(indptr[i], indptr[i + 1]):
        c = cols[p]
        L = vlen[c]
        d = min(lcp[p], valid)
        ok = True
        while d < L:
            arc = _find_arc(arc_off, arc_lab, st_state[d], vlab[c, d])
            if arc < 0:
                ok = False
                break
            st_state[d + 1] = arc_dst[arc]
            st_slot[d + 1] = st_slot[d] + arc_inc[arc]
            d += 1
        valid = d
        if ok and final[st_state[L]]:
            slots[p - indptr[i]] = st_slot[L]
        else:
            slots[p - indptr[i]] = -1


@njit
def epoch_automaton(
    perm,
    indptr,
    cols,
    data,
    lcp,
    vlab,
    vlen,
    y,
    qinv,
    C,
    alpha,
    w,
    start,
    arc_off,
    arc_lab,
    arc_dst,
    arc_inc,
    final,
    st_state,
    st_slot,
    slots,
):
    """Algorithm 4 with W′ a deterministic automaton whose paths index a weight array.

    G = y_i D(Φ′_i ⋄ W′) − 1 (eq. (54)) is computed by intersecting Φ′_i with the
    automaton (see :func:`_intersect_slots`); the update W′ += Δα_i y_i Φ′_i (eq. (53))
    writes the weights of the paths that intersection matched.
    """
    pgmax = -np.inf
    pgmin = np.inf
    for t in range(perm.shape[0]):
        i = perm[t]
        _intersect_slots(
            i,
            indptr,
            cols,
            lcp,
            vlab,
            vlen,
            start,
            arc_off,
            arc_lab,
            arc_dst,
            arc_inc,
            final,
            st_state,
            st_slot,
            slots,
        )
        base = indptr[i]
        g = 0.0
        for p in range(base, indptr[i + 1]):
            s = slots[p - base]
            if s >= 0:
                g += w[s] * data[p]
        G = y[i] * g - 1.0
        a = alpha[i]
        PG = projected_gradient(G, a, C)
        pgmax = max(pgmax, PG)
        pgmin = min(pgmin, PG)
        if abs(PG) > PG_ZERO:
            new = newton_step(G, a, qinv[i], C)
            alpha[i] = new
            d = (new - a) * y[i]
            if d != 0.0:
                for p in range(base, indptr[i + 1]):
                    s = slots[p - base]
                    if s >= 0:
                        w[s] += d * data[p]
    return pgmax, pgmin


@njit
def epoch_gram(perm, K, y, qinv, C, alpha, grad):
    """DCD on a kernel matrix: ``grad`` = Qα − 1 kept up to date, one row of K per step.

    G_i is read from ``grad``; a step on α_i adds Δα_i y_i y_j K_ij to every grad_j.
    """
    pgmax = -np.inf
    pgmin = np.inf
    n = K.shape[0]
    for t in range(perm.shape[0]):
        i = perm[t]
        G = grad[i]
        a = alpha[i]
        PG = projected_gradient(G, a, C)
        pgmax = max(pgmax, PG)
        pgmin = min(pgmin, PG)
        if abs(PG) > PG_ZERO:
            new = newton_step(G, a, qinv[i], C)
            alpha[i] = new
            d = (new - a) * y[i]
            if d != 0.0:
                for j in range(n):
                    grad[j] += d * y[j] * K[i, j]
    return pgmax, pgmin
