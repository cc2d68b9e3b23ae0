"""The arrays the automaton W′ trains on: the minimal DFA of the patterns, and Φ′_i as walks.

Two compiled builders for :mod:`ratkit.learners.wprime._automaton`:

* :func:`minimal_dfa` — the minimal deterministic acceptor of a trie's patterns, by Revuz's
  bottom-up merge of the nodes with equal futures (final flag and (label, class) of every
  child), found with an open-addressing hash table and checked for exact equality: linear
  in the trie. Its arcs are stored CSR by state, labels sorted, and every arc carries the
  number of accepted strings its path skips (the path of z sums to z's lexicographic rank,
  a minimal perfect hash — Lucchesi and Kowaltowski 1993).
* :class:`WalkRows` — every Φ′_i as the program its walk through the DFA runs: its patterns
  in sorted order, each as the length it shares with the previous one (the depth to resume
  from) and the labels after it, laid out contiguously. As on the trie
  (:mod:`ratkit.learners.wprime._indexed_rows`), a pattern only Φ′_i holds has W′(z) =
  α_i y_i Φ′_i(z) at every moment, so it is folded into u_i = Σ Φ′_i(z)² and not walked.

References
----------
D. Revuz, "Minimisation of acyclic deterministic automata in linear time", TCS 92 (1992).
C. L. Lucchesi, T. Kowaltowski, "Applications of finite automata representing large
vocabularies", Software—Practice and Experience 23 (1993).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ratkit._jit import njit
from ratkit.learners.dcd._epochs import _next_state, walk_row

__all__ = ["minimal_dfa", "WalkRows", "dense_arc_table", "trie_paths"]

#: A dense [state, label] → arc table is kept when it has at most this many entries.
TABLE_LIMIT = 2**24


@njit
def _future_hash(v, final, child_offsets, children, label, cls):
    h = np.uint64(1469598103934665603) ^ np.uint64(final[v])
    for k in range(child_offsets[v], child_offsets[v + 1]):
        c = children[k]
        h = (h ^ np.uint64(label[c])) * np.uint64(1099511628211)
        h = (h ^ np.uint64(cls[c])) * np.uint64(1099511628211)
    return h ^ (h >> np.uint64(29))


@njit
def _same_future(u, v, final, child_offsets, children, label, cls):
    if final[u] != final[v]:
        return False
    du = child_offsets[u + 1] - child_offsets[u]
    if du != child_offsets[v + 1] - child_offsets[v]:
        return False
    for k in range(du):
        a = children[child_offsets[u] + k]
        b = children[child_offsets[v] + k]
        if label[a] != label[b] or cls[a] != cls[b]:
            return False
    return True


@njit
def _merge_nodes(final, child_offsets, children, label):
    """Class of every trie node (nodes in an order where children follow their parent);
    classes are numbered as they are created, children first, so every arc goes to a
    smaller class. Returns (class per node, representative node per class)."""
    n = final.shape[0]
    cls = np.empty(n, dtype=np.int64)
    rep = np.empty(n, dtype=np.int64)
    size = 1
    while size < 2 * n:
        size *= 2
    table = np.full(size, -1, dtype=np.int64)
    mask = np.uint64(size - 1)
    k = 0
    for v in range(n - 1, -1, -1):
        slot = _future_hash(v, final, child_offsets, children, label, cls) & mask
        while True:
            c = table[slot]
            if c < 0:
                table[slot] = k
                rep[k] = v
                cls[v] = k
                k += 1
                break
            if _same_future(rep[c], v, final, child_offsets, children, label, cls):
                cls[v] = c
                break
            slot = (slot + np.uint64(1)) & mask
    return cls, rep[:k].copy()


@njit
def _dfa_arcs(cls, rep, child_offsets, children, label, final):
    """CSR arcs of the classes (labels sorted, as the trie's children are), their final
    flags, and the number of paths each arc skips (lexicographic numbering)."""
    m = rep.shape[0]
    arc_off = np.zeros(m + 1, dtype=np.int64)
    for q in range(m):
        v = rep[q]
        arc_off[q + 1] = arc_off[q] + child_offsets[v + 1] - child_offsets[v]
    n_arcs = arc_off[m]
    arc_lab = np.empty(n_arcs, dtype=np.int64)
    arc_dst = np.empty(n_arcs, dtype=np.int64)
    arc_inc = np.empty(n_arcs, dtype=np.int64)
    fin = np.empty(m, dtype=np.bool_)
    count = np.zeros(m, dtype=np.int64)
    for q in range(m):  # every arc goes to a smaller class: counts are ready when needed
        v = rep[q]
        fin[q] = final[v]
        c = 1 if final[v] else 0
        a = arc_off[q]
        for k in range(child_offsets[v], child_offsets[v + 1]):
            ch = children[k]
            arc_lab[a] = label[ch]
            arc_dst[a] = cls[ch]
            arc_inc[a] = c
            c += count[cls[ch]]
            a += 1
        count[q] = c
    return arc_off, arc_lab, arc_dst, arc_inc, fin, count


def minimal_dfa(trie) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The minimal DFA of the trie's patterns: (start, arc_off, arc_lab, arc_dst, arc_inc,
    final, number of paths). Arcs of state q are ``arc_off[q]:arc_off[q + 1]``, labels
    ascending; summing ``arc_inc`` along the path of z gives z's lexicographic rank."""
    final = np.ascontiguousarray(trie.final, dtype=np.bool_)
    offsets = np.ascontiguousarray(trie.child_offsets, dtype=np.int64)
    children = np.ascontiguousarray(trie.children, dtype=np.int64)
    label = np.ascontiguousarray(trie.label, dtype=np.int64)
    cls, rep = _merge_nodes(final, offsets, children, label)
    arc_off, arc_lab, arc_dst, arc_inc, fin, count = _dfa_arcs(cls, rep, offsets, children, label, final)
    start = int(cls[0])
    return start, arc_off, arc_lab, arc_dst, arc_inc, fin, int(count[start])


def dense_arc_table(arc_off: np.ndarray, arc_lab: np.ndarray) -> np.ndarray:
    """``table[q, label]`` = the arc of q with that label (−1 if none), or an empty array
    when the table would exceed :data:`TABLE_LIMIT` entries (lookups then search the CSR)."""
    n_states = arc_off.shape[0] - 1
    width = int(arc_lab.max()) + 1 if arc_lab.size else 1
    if n_states * width > TABLE_LIMIT:
        return np.zeros((0, 0), dtype=np.int32)
    table = np.full((n_states, width), -1, dtype=np.int32)
    table[np.repeat(np.arange(n_states), np.diff(arc_off)), arc_lab] = np.arange(arc_lab.shape[0], dtype=np.int32)
    return table


@njit
def _walk_trie(parent, label, dfa, state, number):
    start, table, arc_off, arc_lab, arc_dst, arc_inc, final = dfa
    state[0] = start
    number[0] = 0
    for v in range(1, parent.shape[0]):  # parents come before their children
        p = state[parent[v]]
        if p < 0:
            state[v] = -1
            continue
        q, inc = _next_state(table, arc_off, arc_lab, arc_dst, arc_inc, p, label[v])
        state[v] = q
        number[v] = number[parent[v]] + inc
    for v in range(parent.shape[0]):
        if state[v] >= 0 and not final[state[v]]:
            state[v] = -1


def trie_paths(trie, dfa: tuple, codes: np.ndarray) -> np.ndarray:
    """The path number in the DFA ``dfa`` (the arrays of
    :class:`~ratkit.learners.wprime._automaton.PatternAutomaton`) of each pattern ``codes``
    (a node of ``trie``), −1 where the DFA rejects it. The trie's nodes are walked once, each
    from its parent's state by one lookup: every prefix of the patterns is read once, however
    many rows hold it."""
    parent = np.ascontiguousarray(trie.parent, dtype=np.int64)
    label = np.ascontiguousarray(trie.label, dtype=np.int64)
    state = np.empty(parent.shape[0], dtype=np.int64)
    number = np.zeros(parent.shape[0], dtype=np.int64)
    _walk_trie(parent, label, dfa, state, number)
    nodes = trie.nodes_of(codes)
    ok = nodes >= 0
    ok[ok] = state[nodes[ok]] >= 0
    return np.where(ok, number[np.maximum(nodes, 0)], -1)


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
