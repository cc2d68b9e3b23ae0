"""The compiled backward pass of the evaluator: the table β(i, q) of one sequence.

β(i, q) is the total weight of the suffixes from (position i, state q) that output nothing
and end in a final state. :func:`_reachable` first lists the states each position can reach
(for large T), :func:`_backward` then fills β over them from the last position down.
"""

from __future__ import annotations

import numpy as np

from ratkit._jit import njit


@njit
def _first_arc(arc_ilabel, lo, hi, label):  # pragma: no cover - compiled
    """The first index in [lo, hi) whose input label is ≥ label (labels ascending)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arc_ilabel[mid] < label:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit
def _grow(a, n):  # pragma: no cover - compiled
    """A copy of ``a`` with room for at least n entries (twice its size or more)."""
    b = np.empty(max(n, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def _reachable(
    x, start, arc_off, arc_ilabel, arc_dst, n_in, lab_lo, lab_hi, clo_off, clo_dst, stamp, rstates, roff
):  # pragma: no cover
    """R_i, the states reachable from the start reading x[:i] (ε-closed), as
    ``rstates[roff[i]:roff[i + 1]]``; returns their total, or −1 when ``rstates`` is too small.
    ``stamp`` holds −1 for every state on entry and on return."""
    m = x.shape[0]
    cap = rstates.shape[0]
    n = 0
    full = False
    roff[0] = 0
    for e in range(clo_off[start], clo_off[start + 1]):
        s = clo_dst[e]
        if stamp[s] != 0:
            if n == cap:
                full = True
                break
            stamp[s] = 0
            rstates[n] = s
            n += 1
    roff[1] = n
    for i in range(m):
        if full:
            break
        a = x[i]
        for idx in range(roff[i], roff[i + 1]):
            q = rstates[idx]
            if n_in >= 0:
                j, hi = (lab_lo[q * (n_in + 1) + a], lab_hi[q * (n_in + 1) + a]) if a <= n_in else (0, 0)
            else:
                hi = arc_off[q + 1]
                j = _first_arc(arc_ilabel, arc_off[q], hi, a)
            while j < hi and arc_ilabel[j] == a:
                r = arc_dst[j]
                if stamp[r] != i + 1:  # r itself (a bad state has an empty closure)
                    if n == cap:
                        full = True
                        break
                    stamp[r] = i + 1
                    rstates[n] = r
                    n += 1
                for e in range(clo_off[r], clo_off[r + 1]):
                    s = clo_dst[e]
                    if stamp[s] != i + 1:
                        if n == cap:
                            full = True
                            break
                        stamp[s] = i + 1
                        rstates[n] = s
                        n += 1
                if full:
                    break
                j += 1
            if full:
                break
        roff[i + 2] = n
    for idx in range(n):
        stamp[rstates[idx]] = -1
    return -1 if full else n


@njit
def _backward(
    x,
    where,
    final,
    arc_off,
    arc_ilabel,
    arc_olabel,
    arc_weight,
    arc_dst,
    n_in,
    lab_lo,
    lab_hi,
    clo_off,
    clo_dst,
    clo_len,
    clo_all,
    rstates,
    roff,
    beta,
    gamma,
):  # pragma: no cover - compiled
    """beta[idx] = β(i, q) for q = rstates[idx] ∈ R_i (:func:`_reachable`): the total weight
    of the paths from state q at position i that read x[i:], output nothing and end in a
    final state (with its final weight). ``where`` maps the states of R_{i+1} to their index."""
    m = x.shape[0]
    for idx in range(roff[m], roff[m + 1]):
        q = rstates[idx]
        b = 0.0
        for e in range(clo_off[q], clo_off[q + 1]):
            if clo_len[e] == 0:
                b += clo_all[e] * final[clo_dst[e]]
        beta[idx] = b
    for i in range(m - 1, -1, -1):
        a = x[i]
        for idx in range(roff[i + 1], roff[i + 2]):
            where[rstates[idx]] = idx
        for idx in range(roff[i], roff[i + 1]):
            s = rstates[idx]
            g = 0.0
            if n_in >= 0:
                j, hi = (lab_lo[s * (n_in + 1) + a], lab_hi[s * (n_in + 1) + a]) if a <= n_in else (0, 0)
            else:
                hi = arc_off[s + 1]
                j = _first_arc(arc_ilabel, arc_off[s], hi, a)
            while j < hi and arc_ilabel[j] == a:
                if arc_olabel[j] == 0:
                    g += arc_weight[j] * beta[where[arc_dst[j]]]
                j += 1
            gamma[s] = g
        for idx in range(roff[i], roff[i + 1]):
            q = rstates[idx]
            b = 0.0
            for e in range(clo_off[q], clo_off[q + 1]):
                if clo_len[e] == 0:
                    b += clo_all[e] * gamma[clo_dst[e]]
            beta[idx] = b
