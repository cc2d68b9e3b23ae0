"""Resource bounds of ε-removal and determinisation, checked before OpenFst starts.

OpenFst's own state threshold (``nstate``) cannot bound these: determinize refuses it for
weights without the path property (log64), and for cyclic input it builds the whole
machine before pruning; rmepsilon applies it after the work. So the sizes are bounded
here, before OpenFst starts, and refused past ratkit.limits.max_states().

:func:`check_rmepsilon` bounds the arcs ε-removal would give the states;
:func:`check_determinize` counts the unweighted subsets of the subset construction (a lower
bound of the weighted determinisation's states) and, for weighted acceptors, refuses one
without the twins property, whose determinisation never ends.
"""

from __future__ import annotations

import numpy as np
import pynini
import pywrapfst
import scipy.sparse as sp
from scipy.sparse import csgraph

from ratkit._jit import njit
from ratkit.automata._checks import useful_states
from ratkit.automata.fst_arrays import FstArrays, fst_to_arrays
from ratkit.exceptions import OperationError
from ratkit.limits import check_bytes, check_states, max_bytes, max_states

__all__ = ["check_rmepsilon", "check_determinize"]

_HINT = "Shrink the operand (fewer states, fewer nondeterministic choices), or work on it without this operation."


@njit
def _eps_closure_arcs(n, eps_ptr, eps_dst, own, cap, kept):  # pragma: no cover - compiled
    """Σ_{q kept} min(cap, U(q)) with U(q) = own[q] + Σ_{ε-arc q→p} U(p): an upper bound on the
    arcs after ε-removal, where only the ``kept`` states remain (the start and the targets of
    non-ε arcs; a state entered by ε-arcs alone disappears) and each has the arcs of its
    ε-closure, at most ``cap`` distinct. Depth-first over the ε-DAG; a state met again while on
    the stack (an ε-cycle) gets ``cap``."""
    u = np.full(n, -1, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    for root in range(n):
        if u[root] >= 0:
            continue
        top = 0
        stack[0] = root
        pos[0] = eps_ptr[root]
        on_stack[root] = True
        while top >= 0:
            q = stack[top]
            k = pos[top]
            if k < eps_ptr[q + 1]:
                pos[top] = k + 1
                p = eps_dst[k]
                if u[p] < 0:
                    if on_stack[p]:
                        u[q] = cap  # an ε-cycle: no bound better than cap
                    else:
                        top += 1
                        stack[top] = p
                        pos[top] = eps_ptr[p]
                        on_stack[p] = True
                continue
            total = own[q]
            for j in range(eps_ptr[q], eps_ptr[q + 1]):
                total += max(u[eps_dst[j]], 0)
                if total >= cap:
                    break
            u[q] = min(cap, max(total, u[q]))
            on_stack[q] = False
            top -= 1
    bound = 0
    for q in range(n):
        if kept[q]:
            bound += u[q]
    return bound


def check_rmepsilon(f: pynini.Fst, what: str) -> None:
    """Refuse an ε-removal whose result would have more arcs than ratkit.limits.max_states()."""
    if f.properties(pywrapfst.EPSILONS, True) != pywrapfst.EPSILONS:
        return
    a = fst_to_arrays(f)
    keep = useful_states(a)
    live = keep[a.src] & keep[a.dst] & (a.weight != np.inf)
    eps = live & (a.ilabel == 0) & (a.olabel == 0)
    real = live & ~eps
    n = a.n_states
    # Distinct (ilabel, olabel, dst) keys: OpenFst merges parallel arcs with one key.
    keys = np.unique(np.stack([a.ilabel[real], a.olabel[real], a.dst[real]]), axis=1).shape[1]
    quick = int(real.sum()) + int(np.unique(a.src[eps]).size) * keys
    if quick <= max_states():
        return
    order = np.argsort(a.src[eps], kind="stable")
    eps_src, eps_dst = a.src[eps][order], a.dst[eps][order]
    eps_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(eps_src, minlength=n), out=eps_ptr[1:])
    own = np.bincount(a.src[real], minlength=n).astype(np.int64)
    kept = np.zeros(n, dtype=np.bool_)
    kept[a.dst[real]] = True
    if 0 <= a.start < n:
        kept[a.start] = True
    bound = _eps_closure_arcs(n, eps_ptr, eps_dst.astype(np.int64), own, max(keys, 1), kept)
    check_states(float(bound), f"{what} (removing the ε-transitions of a machine of {n} states)", _HINT)


@njit
def _count_subsets(start, arc_ptr, arc_key, n_states, limit, member_budget):  # pragma: no cover - compiled
    """The number of subsets the subset construction of an ε-free machine reaches from {start}
    (arcs of state q: arc_key[arc_ptr[q]:arc_ptr[q + 1]], key = label · n_states + dst), stopping
    as soon as it passes ``limit`` or its subsets hold more than ``member_budget`` states in all.
    Returns (count, members); subsets are found again through a 64-bit hash of their members."""
    members = np.empty(1024, dtype=np.int64)
    offsets = np.zeros(1024, dtype=np.int64)
    offsets[1] = 1
    members[0] = start
    count = 1
    size = 1024
    table = np.full(size, -1, dtype=np.int64)
    hashes = np.zeros(1024, dtype=np.uint64)
    h0 = (np.uint64(1) ^ np.uint64(start)) * np.uint64(0x100000001B3) + np.uint64(0x9E3779B97F4A7C15)
    hashes[0] = h0
    table[np.int64(h0 & np.uint64(size - 1))] = 0
    buf = np.empty(16, dtype=np.int64)
    i = 0
    while i < count:
        lo, hi = offsets[i], offsets[i + 1]
        m = 0
        for j in range(lo, hi):
            q = members[j]
            m += arc_ptr[q + 1] - arc_ptr[q]
        if m > buf.shape[0]:
            buf = np.empty(2 * m, dtype=np.int64)
        m = 0
        for j in range(lo, hi):
            q = members[j]
            for k in range(arc_ptr[q], arc_ptr[q + 1]):
                buf[m] = arc_key[k]
                m += 1
        if m <= 48:  # insertion sort: no allocation for the small arc sets of most subsets
            for x in range(1, m):
                v = buf[x]
                y = x - 1
                while y >= 0 and buf[y] > v:
                    buf[y + 1] = buf[y]
                    y -= 1
                buf[y + 1] = v
            keys = buf
        else:
            keys = np.sort(buf[:m])
        g = 0
        while g < m:
            label = keys[g] // n_states
            e = g
            while e < m and keys[e] // n_states == label:
                e += 1
            # the subset: distinct destinations of keys[g:e] (sorted)
            need = offsets[count] + (e - g)
            if need > members.shape[0]:
                grown = np.empty(max(2 * members.shape[0], need), dtype=np.int64)
                grown[: offsets[count]] = members[: offsets[count]]
                members = grown
            base = offsets[count]
            c = 0
            h = np.uint64(1)
            last = -1
            for t in range(g, e):
                d = keys[t] - label * n_states
                if d != last:
                    members[base + c] = d
                    c += 1
                    h = (h ^ np.uint64(d)) * np.uint64(0x100000001B3) + np.uint64(0x9E3779B97F4A7C15)
                    last = d
            slot = np.int64(h & np.uint64(size - 1))
            found = False
            while table[slot] >= 0:
                s = table[slot]
                if hashes[s] == h and offsets[s + 1] - offsets[s] == c:
                    found = True
                    break
                slot = (slot + 1) & (size - 1)
            if not found:
                if count + 1 >= offsets.shape[0]:
                    grown_o = np.zeros(2 * offsets.shape[0], dtype=np.int64)
                    grown_o[: count + 1] = offsets[: count + 1]
                    offsets = grown_o
                    grown_h = np.zeros(2 * hashes.shape[0], dtype=np.uint64)
                    grown_h[:count] = hashes[:count]
                    hashes = grown_h
                table[slot] = count
                hashes[count] = h
                offsets[count + 1] = base + c
                count += 1
                if count > limit or offsets[count] > member_budget:
                    return count, offsets[count]
                if 2 * count > size:  # rehash into a table twice as large
                    size *= 2
                    table = np.full(size, -1, dtype=np.int64)
                    for s in range(count):
                        slot = np.int64(hashes[s] & np.uint64(size - 1))
                        while table[slot] >= 0:
                            slot = (slot + 1) & (size - 1)
                        table[slot] = s
            g = e
        i += 1
    return count, offsets[count]


@njit
def _pair_product(start, arc_ptr, lab, w, dst, n, budget):  # pragma: no cover - compiled
    """The pairs (p, q) of states reached by one string from (start, start), with an arc
    (p, q) → (p', q') of weight difference w(p→p') − w(q→q') for every two arcs of one label
    (arcs of a state sorted by label). Returns (n_pairs, src, dst, diff), n_pairs = −1 when the
    pairs or their arcs pass ``budget``."""
    index = {start * n + start: 0}
    pp = np.empty(64, dtype=np.int64)
    qq = np.empty(64, dtype=np.int64)
    pp[0] = start
    qq[0] = start
    n_pairs = 1
    a_src = np.empty(64, dtype=np.int64)
    a_dst = np.empty(64, dtype=np.int64)
    a_diff = np.empty(64, dtype=np.float64)
    n_arcs = 0
    i = 0
    while i < n_pairs:
        p, q = pp[i], qq[i]
        j, k = arc_ptr[p], arc_ptr[q]
        while j < arc_ptr[p + 1] and k < arc_ptr[q + 1]:
            if lab[j] < lab[k]:
                j += 1
            elif lab[j] > lab[k]:
                k += 1
            else:
                label = lab[j]
                k0 = k
                while j < arc_ptr[p + 1] and lab[j] == label:
                    k = k0
                    while k < arc_ptr[q + 1] and lab[k] == label:
                        key = dst[j] * n + dst[k]
                        target = index.get(key, -1)
                        if target < 0:
                            if n_pairs >= budget:
                                return -1, a_src[:0], a_dst[:0], a_diff[:0]
                            if n_pairs == pp.shape[0]:
                                pp = np.concatenate((pp, np.empty(n_pairs, dtype=np.int64)))
                                qq = np.concatenate((qq, np.empty(n_pairs, dtype=np.int64)))
                            target = n_pairs
                            index[key] = target
                            pp[target] = dst[j]
                            qq[target] = dst[k]
                            n_pairs += 1
                        if n_arcs >= budget:
                            return -1, a_src[:0], a_dst[:0], a_diff[:0]
                        if n_arcs == a_src.shape[0]:
                            a_src = np.concatenate((a_src, np.empty(n_arcs, dtype=np.int64)))
                            a_dst = np.concatenate((a_dst, np.empty(n_arcs, dtype=np.int64)))
                            a_diff = np.concatenate((a_diff, np.empty(n_arcs, dtype=np.float64)))
                        a_src[n_arcs] = i
                        a_dst[n_arcs] = target
                        a_diff[n_arcs] = w[j] - w[k]
                        n_arcs += 1
                        k += 1
                    j += 1
        i += 1
    return n_pairs, a_src[:n_arcs], a_dst[:n_arcs], a_diff[:n_arcs]


@njit
def _cycle_with_weight(n_pairs, ptr, adj_dst, adj_diff, comp, tol):  # pragma: no cover - compiled
    """A pair on a cycle of non-zero total difference (−1 if none): within each strongly connected
    component, every cycle sums to 0 iff potentials φ with φ(v) = φ(u) + d on its arcs exist."""
    phi = np.full(n_pairs, np.nan)
    queue = np.empty(n_pairs, dtype=np.int64)
    for root in range(n_pairs):
        if not np.isnan(phi[root]):
            continue
        phi[root] = 0.0
        head, tail = 0, 1
        queue[0] = root
        while head < tail:
            u = queue[head]
            head += 1
            for e in range(ptr[u], ptr[u + 1]):
                v = adj_dst[e]
                if comp[v] != comp[u]:
                    continue
                target = phi[u] + adj_diff[e]
                if np.isnan(phi[v]):
                    phi[v] = target
                    queue[tail] = v
                    tail += 1
                elif abs(phi[v] - target) > tol * (1.0 + abs(phi[v]) + abs(target)):
                    return u
    return -1


def _check_twins(a: FstArrays, what: str) -> None:
    """Refuse (OperationError) an ε-free weighted acceptor without the twins property: two states
    p ≠ q reached by one string u, with cycles of one label v but different weights, make the
    residual weights of u vᵏ drift apart for ever, so determinisation would never end
    (Mohri 1997, Theorem 12; Allauzen & Mohri 2003 test it on the self-product, as here).
    Skipped when the self-product passes ratkit.limits.max_states()."""
    live = a.weight != np.inf
    src, lab, dst, w = a.src[live], a.ilabel[live], a.dst[live], a.weight[live]
    if src.size == 0 or np.ptp(w) == 0:
        return  # equal weights everywhere: every cycle difference is 0
    # Parallel arcs (same source, label, destination) are one arc of weight their ⊕-sum.
    n = max(a.n_states, 1)
    key = (src * (int(lab.max()) + 1) + lab) * n + dst
    order = np.argsort(key, kind="stable")
    key, w = key[order], w[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    if a.arc_type == "standard":
        w = np.minimum.reduceat(w, first)
    else:
        w = -np.logaddexp.reduceat(-w, first)
    src, lab, dst = src[order][first], lab[order][first], dst[order][first]
    arc_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=arc_ptr[1:])
    n_pairs, p_src, p_dst, p_diff = _pair_product(a.start, arc_ptr, lab, w.astype(np.float64), dst, n, max_states())
    if n_pairs < 0:
        return
    n_comp, comp = csgraph.connected_components(
        sp.csr_matrix((np.ones(p_src.size), (p_src, p_dst)), shape=(n_pairs, n_pairs)),
        directed=True,
        connection="strong",
    )
    if n_comp == n_pairs and not (p_src == p_dst).any():
        return  # the product is acyclic
    order = np.argsort(p_src, kind="stable")
    ptr = np.zeros(n_pairs + 1, dtype=np.int64)
    np.cumsum(np.bincount(p_src, minlength=n_pairs), out=ptr[1:])
    bad = _cycle_with_weight(n_pairs, ptr, p_dst[order], p_diff[order], comp.astype(np.int64), 1e-9)
    if bad >= 0:
        raise OperationError(
            f"{what}: this weighted acceptor has no finite deterministic equivalent (it lacks the twins "
            "property): two of its states are reached by one string and carry cycles of one label but "
            "different weights, so the subset construction would never end. Determinize its support "
            "(an unweighted copy) instead, or make the cycle weights agree."
        )


def check_determinize(f: pynini.Fst, what: str) -> None:
    """Refuse a determinisation whose subset construction passes ratkit.limits.max_states().

    The unweighted subsets reachable from the start state are a lower bound on the states of
    the weighted determinisation (two strings reaching different sets of states reach
    different weighted subsets), so a refusal is never wrong; they are counted, by a compiled
    subset construction that stops at the limit, only when ``f`` is not deterministic already."""
    if f.properties(pywrapfst.I_DETERMINISTIC, True) == pywrapfst.I_DETERMINISTIC or f.start() < 0:
        return
    a: FstArrays = fst_to_arrays(f)
    live = a.weight != np.inf
    n = max(a.n_states, 1)
    key = (a.ilabel[live] * n + a.dst[live]).astype(np.int64)
    order = np.lexsort((key, a.src[live]))
    arc_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(a.src[live], minlength=n), out=arc_ptr[1:])
    limit = max_states()
    member_budget = max_bytes() // 16  # OpenFst keeps ≥ 16 bytes (state, weight) per member of a subset
    count, members = _count_subsets(a.start, arc_ptr, key[order], n, limit, member_budget)
    what = f"{what} (the subset construction of a machine of {a.n_states} states)"
    check_states(float(count), what, _HINT)
    check_bytes(16.0 * members, what, _HINT)
    if (a.ilabel == a.olabel).all():
        _check_twins(a, what.split(" (")[0])
