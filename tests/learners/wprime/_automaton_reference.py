"""The automaton W′'s previous implementations, kept as the tests' oracles (issue 22).

Training no longer uses them: the pattern-by-pattern intersection of every augmented row
with the DFA at every step (:func:`epoch_automaton`), and the walk of each Φ′_i's own trie
through the DFA at every step (:class:`WalkRows`, :func:`walk_row`,
:func:`epoch_automaton_walk`). ``AutomatonWPrime`` now finds the paths once
(``trie_paths``) and runs the trie's passes; these say what those paths and steps must be.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ratkit._jit import njit
from ratkit.learners.dcd.epochs import _advance, _row_step
from ratkit.learners.wprime._automaton_arrays import intersect_slots
from ratkit.learners.wprime._automaton_arrays import next_state as _next_state

__all__ = ["epoch_automaton", "walk_row", "epoch_automaton_walk", "WalkRows"]


@njit
def epoch_automaton(active, size, max_old, min_old, phi, dfa, scratch, y, qinv, C, alpha, w):
    """Algorithm 4 with W′ a deterministic automaton whose paths index a weight array.

    G = y_i D(Φ′_i ⋄ W′) − 1 (eq. (54)) is computed by intersecting Φ′_i with the
    automaton (see :func:`intersect_slots`); the update W′ += Δα_i y_i Φ′_i (eq. (53))
    writes the weights of the paths that intersection matched.
    """
    indptr, data = phi[0], phi[2]
    slots = scratch[2]
    pgmax = -np.inf
    pgmin = np.inf
    df = 0.0
    s = 0
    while s < size:
        i = active[s]
        intersect_slots(i, phi, dfa, scratch)
        lo, hi = indptr[i], indptr[i + 1]
        shrink, PG, change = _row_step(i, slots[: hi - lo], data[lo:hi], 0.0, y, qinv, C, alpha, w, max_old, min_old)
        df += change
        s, size, pgmax, pgmin = _advance(active, s, size, shrink, PG, pgmax, pgmin)
    return pgmax, pgmin, size, df


@njit
def walk_row(i, prog, dfa, st_state, st_slot, slots):
    """Walk the trie of Φ′_i's patterns through the deterministic automaton A.

    ``prog`` = (indptr, entry_node, node_ptr, node_parent, node_label): row i's trie has the
    nodes ``node_ptr[i]:node_ptr[i + 1]`` level by level, local node 0 the root, each with its
    parent's local number and the label into it; entry e of the row is the pattern of local
    node ``entry_node[e]`` (:class:`~ratkit.learners.wprime._automaton_arrays.WalkRows`).
    ``dfa`` as in :func:`intersect_slots`. Node k reaches state δ(state(parent), label) and
    path number (the sum of ``arc_inc`` along the path) that of its parent plus the arc's;
    the lookups of one level are independent, so their cache misses overlap. Writes the path
    number of the row's entries to ``slots`` (−1 if A rejects the pattern); returns their count.
    """
    indptr, entry_node, node_ptr, node_parent, node_label = prog
    start, table, arc_off, arc_lab, arc_dst, arc_inc, final = dfa
    base = node_ptr[i]
    st_state[0] = start
    st_slot[0] = 0
    for k in range(1, node_ptr[i + 1] - base):
        p = st_state[node_parent[base + k]]
        if p < 0:
            st_state[k] = -1
            continue
        q, inc = _next_state(table, arc_off, arc_lab, arc_dst, arc_inc, p, node_label[base + k])
        st_state[k] = q
        st_slot[k] = st_slot[node_parent[base + k]] + inc
    lo = indptr[i]
    for e in range(lo, indptr[i + 1]):
        v = entry_node[e]
        q = st_state[v]
        slots[e - lo] = st_slot[v] if q >= 0 and final[q] else -1
    return indptr[i + 1] - lo


@njit
def epoch_automaton_walk(active, size, max_old, min_old, prog, data, own, dfa, scratch, y, qinv, C, alpha, w):
    """Algorithm 4 with W′ the numbered minimal automaton, each Φ′_i a walk program.

    Each step walks Φ′_i through A (:func:`walk_row`) to the paths of its shared patterns,
    G = y_i Σ W′[path] Φ′_i(z) + α_i u_i − 1 (eq. (54); u_i as in :func:`_row_step`), and on a
    step W′[path] += Δα_i y_i Φ′_i(z) (eq. (53)) on the paths that walk reached.
    """
    indptr = prog[0]
    st_state, st_slot, slots = scratch
    pgmax = -np.inf
    pgmin = np.inf
    df = 0.0
    s = 0
    while s < size:
        i = active[s]
        k = walk_row(i, prog, dfa, st_state, st_slot, slots)
        lo = indptr[i]
        shrink, PG, change = _row_step(i, slots[:k], data[lo : lo + k], own[i], y, qinv, C, alpha, w, max_old, min_old)
        df += change
        s, size, pgmax, pgmin = _advance(active, s, size, shrink, PG, pgmax, pgmin)
    return pgmax, pgmin, size, df


@njit
def _digits(code, base, out):
    """Write the labels of pattern ``code`` to ``out``; return its length."""
    L = 0
    c = code
    while c > 0:
        L += 1
        c //= base
    c = code
    for k in range(L - 1, -1, -1):
        out[k] = c % base
        c //= base
    return L


@njit
def _walk_programs(indptr, cols, data, codes, base, df, bias, width):
    """Per row, the trie of the patterns several rows hold (and ε when ``bias`` > 0): its
    nodes level by level, each as (parent, label) with the root as local node 0, and the
    node of every walked entry; u_i over the other entries, and ‖Φ′_i‖²."""
    n = indptr.shape[0] - 1
    nnz = cols.shape[0]
    extra = n if bias > 0.0 else 0
    ent_ptr = np.empty(n + 1, dtype=np.int64)
    ent_node = np.empty(nnz + extra, dtype=np.int32)
    vals = np.empty(nnz + extra, dtype=np.float64)
    node_ptr = np.empty(n + 1, dtype=np.int64)
    own = np.zeros(n, dtype=np.float64)
    sq = np.zeros(n, dtype=np.float64)
    own_ent = np.empty(nnz, dtype=np.int64)
    cap = max(nnz, 16)
    par = np.empty(cap, dtype=np.int32)
    lab = np.empty(cap, dtype=np.int32)
    # one row's nodes in creation (depth-first) order, then sorted by depth
    row_par = np.empty(16, dtype=np.int64)
    row_lab = np.empty(16, dtype=np.int64)
    row_dep = np.empty(16, dtype=np.int64)
    prev = np.zeros(width + 1, dtype=np.int64)
    cur = np.zeros(width + 1, dtype=np.int64)
    path = np.zeros(width + 1, dtype=np.int64)  # local node of each depth of the last pattern
    count = np.zeros(width + 2, dtype=np.int64)
    q = 0
    t = 0
    r = 0
    for i in range(n):
        ent_ptr[i] = q
        node_ptr[i] = t
        total = bias * bias
        plen = 0
        k = 1  # local node 0 is the root
        first = q
        if bias > 0.0:
            ent_node[q] = 0
            vals[q] = bias
            q += 1
        for p in range(indptr[i], indptr[i + 1]):
            x = data[p]
            total += x * x
            c = cols[p]
            if df[c] < 2:
                own[i] += x * x
                own_ent[r] = p
                r += 1
                continue
            L = _digits(codes[c], base, cur)
            d = 0
            while d < L and d < plen and cur[d] == prev[d]:
                d += 1
            if k + L - d > row_par.shape[0]:
                m = 2 * row_par.shape[0] + L
                g1 = np.empty(m, dtype=np.int64)
                g2 = np.empty(m, dtype=np.int64)
                g3 = np.empty(m, dtype=np.int64)
                g1[:k] = row_par[:k]
                g2[:k] = row_lab[:k]
                g3[:k] = row_dep[:k]
                row_par, row_lab, row_dep = g1, g2, g3
            for j in range(d, L):
                row_par[k] = path[j]
                row_lab[k] = cur[j]
                row_dep[k] = j + 1
                path[j + 1] = k
                k += 1
            ent_node[q] = path[L]
            vals[q] = x
            q += 1
            for j in range(L):
                prev[j] = cur[j]
            plen = L
        sq[i] = total
        # counting sort of the row's nodes by depth (root first), parents remapped
        count[:] = 0
        for v in range(1, k):
            count[row_dep[v] + 1] += 1
        count[1] = 1
        for dd in range(1, width + 2):
            count[dd] += count[dd - 1]
        new = np.empty(k, dtype=np.int64)
        new[0] = 0
        for v in range(1, k):
            new[v] = count[row_dep[v]]
            count[row_dep[v]] += 1
        if t + k > cap:
            cap = 2 * cap + k
            g4 = np.empty(cap, dtype=np.int32)
            g5 = np.empty(cap, dtype=np.int32)
            g4[:t] = par[:t]
            g5[:t] = lab[:t]
            par, lab = g4, g5
        par[t] = 0
        lab[t] = 0
        for v in range(1, k):
            par[t + new[v]] = new[row_par[v]]
            lab[t + new[v]] = row_lab[v]
        for e in range(first, q):
            ent_node[e] = new[ent_node[e]]
        t += k
    ent_ptr[n] = q
    node_ptr[n] = t
    return ent_ptr, ent_node[:q].copy(), node_ptr, par[:t].copy(), lab[:t].copy(), vals[:q].copy(), own, sq, own_ent[:r]


@dataclass(frozen=True)
class WalkRows:
    """Φ′_i as walks through the DFA, its own patterns folded out (see the module docstring).

    Attributes
    ----------
    indptr
        Walked entries of row i are ``indptr[i]:indptr[i + 1]``.
    entry_node
        The local node (in row i's trie) of every walked entry.
    node_ptr, node_parent, node_label
        Row i's trie has the nodes ``node_ptr[i]:node_ptr[i + 1]``, level by level (the root,
        local node 0, first; every parent before its children), each with its parent's local
        number and the label of the arc into it: the lookups of one level do not depend on
        each other, so the walk's memory accesses overlap.
    data
        Φ′_i(z) of every walked entry.
    own
        u_i = Σ Φ′_i(z)² over the patterns only Φ′_i holds.
    sq_norms
        ‖Φ′_i‖², the intercept's ε included: Q_ii.
    own_rows, own_cols, own_vals
        The folded entries, to write their weights out.
    """

    indptr: np.ndarray
    entry_node: np.ndarray
    node_ptr: np.ndarray
    node_parent: np.ndarray
    node_label: np.ndarray
    data: np.ndarray
    own: np.ndarray
    sq_norms: np.ndarray
    own_rows: np.ndarray
    own_cols: np.ndarray
    own_vals: np.ndarray

    @classmethod
    def from_csr(
        cls,
        indptr: np.ndarray,
        cols: np.ndarray,
        data: np.ndarray,
        codes: np.ndarray,
        base: int,
        bias: float = 0.0,
        fold_own: bool = True,
    ) -> WalkRows:
        """The walks of the CSR rows (indptr, cols, data) of Φ′, whose column c is the pattern
        of code ``codes[c]``; ``bias`` > 0 adds ε of value ``bias`` to every row; with
        ``fold_own`` the patterns of one row are folded into ``own`` instead of walked. The
        row tries share prefixes when each row's columns are in lexicographic order of their
        patterns (the walks are correct in any order)."""
        codes = np.asarray(codes, dtype=np.int64)
        df = np.bincount(cols, minlength=codes.shape[0]) if fold_own else np.full(codes.shape[0], 2, dtype=np.int64)
        width = 0
        if codes.size and codes.max() > 0:
            width = int(np.floor(np.log(float(codes.max())) / np.log(float(base)))) + 2
        ptr, ent_node, node_ptr, par, lab, vals, own, sq, own_ent = _walk_programs(
            indptr, cols, data, codes, int(base), df, float(bias), width
        )
        n = indptr.shape[0] - 1
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        return cls(ptr, ent_node, node_ptr, par, lab, vals, own, sq, rows[own_ent], cols[own_ent], data[own_ent])

    def scratch(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(state per node, path number per node, slots of one row's entries): what a walk writes."""
        nodes = int(np.diff(self.node_ptr).max(initial=1))
        entries = int(np.diff(self.indptr).max(initial=1))
        return np.zeros(nodes, np.int64), np.zeros(nodes, np.int64), np.zeros(max(entries, 1), np.int64)

    def slots(self, dfa: tuple) -> np.ndarray:
        """The path number of every walked entry (−1 where the DFA rejects the pattern)."""
        out = np.empty(self.data.shape[0], dtype=np.int64)
        st_state, st_slot, slots = self.scratch()
        _all_slots(self.program, dfa, st_state, st_slot, slots, out)
        return out

    @property
    def program(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, entry_node, node_ptr, node_parent, node_label): what :func:`walk_row` reads."""
        return (self.indptr, self.entry_node, self.node_ptr, self.node_parent, self.node_label)


@njit
def _all_slots(prog, dfa, st_state, st_slot, slots, out):
    indptr = prog[0]
    for i in range(indptr.shape[0] - 1):
        k = walk_row(i, prog, dfa, st_state, st_slot, slots)
        for e in range(k):
            out[indptr[i] + e] = slots[e]
