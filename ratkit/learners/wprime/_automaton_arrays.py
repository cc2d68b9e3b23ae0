"""The arrays the automaton W′ trains on: the minimal DFA of the patterns and their paths.

Compiled builders for :mod:`ratkit.learners.wprime._automaton`:

* :func:`minimal_dfa` — the minimal deterministic acceptor of a trie's patterns, by Revuz's
  bottom-up merge of the nodes with equal futures (final flag and (label, class) of every
  child), found with an open-addressing hash table and checked for exact equality: linear
  in the trie. Its arcs are stored CSR by state, labels sorted, and every arc carries the
  number of accepted strings its path skips (the path of z sums to z's lexicographic rank,
  a minimal perfect hash — Lucchesi and Kowaltowski 1993).
* :func:`trie_paths` — the path number of every pattern of a trie, one DFA lookup per trie
  node from its parent's state.
* :func:`next_state` and :func:`intersect_slots` — the compiled walks of those arrays: one
  transition, and Φ′_i ⋄ A (the slot of every pattern of a row of Φ′ in the DFA A).

References
----------
D. Revuz, "Minimisation of acyclic deterministic automata in linear time", TCS 92 (1992).
C. L. Lucchesi, T. Kowaltowski, "Applications of finite automata representing large
vocabularies", Software—Practice and Experience 23 (1993).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratkit._jit import njit
from ratkit.learners.wprime._patterns import PatternTrie

__all__ = ["minimal_dfa", "dense_arc_table", "trie_paths", "next_state", "intersect_slots"]

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


def minimal_dfa(trie: PatternTrie) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
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
def next_state(table, arc_off, arc_lab, arc_dst, arc_inc, q, label):
    """(state, path-number increment) after reading ``label`` in q; (−1, 0) if no arc.

    A dense table [state, label] → arc is used when the automaton has one; otherwise a
    binary search among the state's label-sorted arcs.
    """
    if table.shape[0]:
        arc = table[q, label] if label < table.shape[1] else -1
    else:
        lo = arc_off[q]
        hi = arc_off[q + 1]
        while lo < hi:
            mid = (lo + hi) // 2
            if arc_lab[mid] < label:
                lo = mid + 1
            else:
                hi = mid
        arc = lo if lo < arc_off[q + 1] and arc_lab[lo] == label else -1
    if arc < 0:
        return -1, 0
    return arc_dst[arc], arc_inc[arc]


@njit
def intersect_slots(i, phi, dfa, scratch):
    """Φ′_i ⋄ A: walk Φ′_i's patterns through the deterministic automaton A.

    ``phi`` = (indptr, cols, data, lcp, labels, lengths): the rows of Φ′ over a
    vocabulary whose pattern ``c`` is ``labels[c, :lengths[c]]``, each row sorted, with
    ``lcp[p]`` the prefix entry p shares with the previous entry of its row.
    ``dfa`` = (start, table, arc_off, arc_lab, arc_dst, arc_inc, final) (see
    :class:`~ratkit.learners.wprime._automaton.PatternAutomaton`); ``scratch`` = (state stack,
    path-number stack, output slots).

    Φ′_i's patterns are visited in sorted order as the leaves of its trie: only the
    symbols after the shared prefix are walked (the stacks keep the states and path
    numbers of the prefix). The number of a pattern's path (the sum of the ``arc_inc``
    along it) is its slot in the weight array, written to ``slots``; −1 when A does not
    accept the pattern.
    """
    indptr, cols, _, lcp, vlab, vlen = phi
    start, table, arc_off, arc_lab, arc_dst, arc_inc, final = dfa
    st_state, st_slot, slots = scratch
    valid = 0  # the stacks hold states for depths 0..valid
    st_state[0] = start
    st_slot[0] = 0
    for p in range(indptr[i], indptr[i + 1]):
        c = cols[p]
        L = vlen[c]
        d = min(lcp[p], valid)
        ok = True
        while d < L:
            q, inc = next_state(table, arc_off, arc_lab, arc_dst, arc_inc, st_state[d], vlab[c, d])
            if q < 0:
                ok = False
                break
            st_state[d + 1] = q
            st_slot[d + 1] = st_slot[d] + inc
            d += 1
        valid = d
        if ok and final[st_state[L]]:
            slots[p - indptr[i]] = st_slot[L]
        else:
            slots[p - indptr[i]] = -1


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
        q, inc = next_state(table, arc_off, arc_lab, arc_dst, arc_inc, p, label[v])
        state[v] = q
        number[v] = number[parent[v]] + inc
    for v in range(parent.shape[0]):
        if state[v] >= 0 and not final[state[v]]:
            state[v] = -1


def trie_paths(trie: PatternTrie, dfa: tuple[Any, ...], codes: np.ndarray) -> np.ndarray:
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
