"""W′ as a minimal automaton: the minimal deterministic automaton of its patterns.

The ``"automaton"`` representation of Table II. The minimal *weighted* automaton of W′
depends on the weights y_i α_i, which change at every step of Algorithm 4, so it cannot
be updated in place (Table II's "NA"). Training therefore keeps fixed the minimal
deterministic automaton A of the patterns of W′ (shared prefixes *and* shared suffixes
merged) and numbers its accepting paths 0 … n − 1 in lexicographic order: each arc
carries the number of accepted strings its path skips (a minimal perfect hash, Lucchesi
and Kowaltowski 1993), so the path of z sums to z's slot in a float64 array of signed
weights, kept outside OpenFst. Φ′_i ⋄ A matches the same slots at every step (both are
fixed), so they are found once, when training starts; a gradient D(Φ′_i ⋄ W′) then reads
the weights of those slots and the update W′ += Δ Φ′_i writes them back
(:class:`AutomatonWPrime`).

:func:`minimal_weighted_size` gives the size of the minimal weighted automaton of the
final W′ — the "min. aut." column of Table III — by weight pushing over the reals and
merging states with equal normalised futures (Revuz's bottom-up minimisation of acyclic
automata, Mohri's weighted minimisation).

References
----------
A. Ghose, *Rational kernels: a survey*, §V-B, Tables II and III.
M. Mohri, "Minimization algorithms for sequential transducers", TCS 234 (2000).
D. Revuz, "Minimisation of acyclic deterministic automata in linear time", TCS 92 (1992).
C. L. Lucchesi, T. Kowaltowski, "Applications of finite automata representing large
vocabularies", Software—Practice and Experience 23 (1993).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit._sparse import index_dtype
from ratkit.learners.dcd.active_gram import cache_capacity
from ratkit.learners.dcd.rows import IndexedRows, csr_arrays
from ratkit.learners.wprime._automaton_arrays import dense_arc_table, intersect_slots, minimal_dfa, trie_paths
from ratkit.learners.wprime._indexed import IndexedRowsWPrime
from ratkit.learners.wprime._patterns import PatternTrie, sorted_lcp
from ratkit.learners.wprime._protocol import TrainingSet, primal_inputs, register_representation

__all__ = ["PatternAutomaton", "AutomatonWPrime", "merge_equivalent", "minimal_weighted_size", "wprime_sizes"]


def _quantise(x: np.ndarray, bits: int = 36) -> np.ndarray:
    """x rounded to ``bits`` significant bits (so equal ratios compare equal); −0 → 0."""
    m, e = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(np.round(m * 2.0**bits) / 2.0**bits, e) + 0.0


def merge_equivalent(
    trie: PatternTrie, live: np.ndarray, final_value: np.ndarray, edge_value: np.ndarray
) -> tuple[np.ndarray, int, int]:
    """Classes of trie nodes with equal futures; (class per node (−1 if dead), #states, #arcs).

    Node v's future is ``final_value[v]`` and, for each live child c in label order,
    (label, ``edge_value[c]``, class of c). Nodes are processed by height (the longest
    path to a leaf over live children), so children are classified first; within a height
    and out-degree, equal signatures are found by ``np.unique`` over rows.
    """
    n = trie.n_states
    kids = trie.children
    live_kid = live[kids]
    par = trie.parent[kids]
    deg = np.bincount(par[live_kid], minlength=n)
    height = np.zeros(n, dtype=np.int64)
    for d in range(int(trie.depth.max()) if n else 0, 0, -1):
        at = np.flatnonzero((trie.depth == d) & live)
        np.maximum.at(height, trie.parent[at], height[at] + 1)
    # live children of each node, in label order, as a CSR over nodes
    kids_live = kids[live_kid]
    koff = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=koff[1:])
    cls = np.full(n, -1, dtype=np.int64)
    n_classes = n_arcs = 0
    for h in range(int(height[live].max()) + 1 if live.any() else 0):
        at_h = np.flatnonzero(live & (height == h))
        for g in np.unique(deg[at_h]):
            sel = at_h[deg[at_h] == g]
            rows = np.empty((sel.shape[0], 1 + 3 * g), dtype=np.float64)
            rows[:, 0] = final_value[sel]
            if g:
                ch = kids_live[koff[sel][:, None] + np.arange(g)]
                rows[:, 1::3] = trie.label[ch]
                rows[:, 2::3] = edge_value[ch]
                rows[:, 3::3] = cls[ch]
            _, inv = np.unique(rows, axis=0, return_inverse=True)
            k = int(inv.max()) + 1
            cls[sel] = n_classes + inv.ravel()
            n_classes += k
            n_arcs += k * int(g)
    return cls, n_classes, n_arcs


def minimal_weighted_size(trie: PatternTrie, weights: np.ndarray) -> tuple[int, int]:
    """(#states, #transitions) of the minimal deterministic weighted automaton of
    W′(z) = ``weights[node of z]`` over the reals (patterns of weight 0 are not in W′).

    Weights are pushed towards the root: λ_v is the first non-zero coefficient of v's
    future (its final weight, else λ of its first live child), and v's normalised future
    is compared up to 36 significant bits.
    """
    w = np.where(trie.final, np.asarray(weights, dtype=np.float64), 0.0)
    n = trie.n_states
    live = w != 0.0
    lam = w.copy()
    for d in range(int(trie.depth.max()) if n else 0, 0, -1):
        at = np.flatnonzero((trie.depth == d) & live)
        np.logical_or.at(live, trie.parent[at], True)
        # λ of a parent without a final weight: λ of its first live child (label order)
        par = trie.parent[at]
        order = np.lexsort((trie.label[at], par))
        first = np.ones(order.shape[0], dtype=bool)
        first[1:] = par[order][1:] != par[order][:-1]
        p_first, c_first = par[order][first], at[order][first]
        need = lam[p_first] == 0.0
        lam[p_first[need]] = lam[c_first[need]]
    if not live.any():
        return 0, 0
    safe = np.where(lam == 0.0, 1.0, lam)
    final_value = _quantise(w / safe)
    edge = np.ones(n)
    edge[1:] = lam[1:] / safe[trie.parent[1:]]
    _, states, arcs = merge_equivalent(trie, live, final_value, _quantise(edge))
    return states, arcs


def wprime_sizes(codes: np.ndarray, base: int, weights: np.ndarray) -> dict[str, int]:
    """Sizes of W′(z_j) = ``weights[j]`` (patterns of weight 0 left out) as a trie and as
    the minimal weighted automaton; ``*_size`` = states + transitions (Table III's |W′|)."""
    keep = np.asarray(weights) != 0
    trie = PatternTrie.from_codes(codes[keep], base)
    node_w = np.zeros(trie.n_states)
    node_w[trie.nodes_of(codes[keep])] = np.asarray(weights)[keep]
    states, arcs = minimal_weighted_size(trie, node_w)
    return {
        "patterns": int(keep.sum()),
        "trie_states": trie.n_states,
        "trie_arcs": trie.n_arcs,
        "trie_size": trie.size,
        "minimal_states": states,
        "minimal_arcs": arcs,
        "minimal_size": states + arcs,
    }


@dataclass(frozen=True)
class PatternAutomaton:
    """The minimal deterministic acceptor of a pattern set, its paths numbered.

    Arcs of state q are ``arc_off[q]:arc_off[q + 1]``, sorted by label; following z
    from ``start`` and summing ``arc_inc`` gives z's slot in 0 … ``n_paths`` − 1 (its
    lexicographic rank). ``table[q, label]`` is the arc of q with that label (−1 if none)
    when the automaton is small enough for a dense table (≤ 2²⁴ entries), else empty
    (binary search in the CSR then).
    """

    start: int
    arc_off: np.ndarray
    arc_lab: np.ndarray
    arc_dst: np.ndarray
    arc_inc: np.ndarray
    final: np.ndarray
    n_paths: int
    table: np.ndarray

    @classmethod
    def from_trie(cls, trie: PatternTrie) -> PatternAutomaton:
        """Minimise the trie (merge nodes with equal futures, compiled:
        :func:`~ratkit.learners.wprime._automaton_arrays.minimal_dfa`) and number the paths."""
        start, arc_off, arc_lab, arc_dst, arc_inc, final, n_paths = minimal_dfa(trie)
        return cls(start, arc_off, arc_lab, arc_dst, arc_inc, final, n_paths, dense_arc_table(arc_off, arc_lab))

    @property
    def arrays(self) -> tuple:
        """(start, table, arc_off, arc_lab, arc_dst, arc_inc, final): what the compiled walks take."""
        return (self.start, self.table, self.arc_off, self.arc_lab, self.arc_dst, self.arc_inc, self.final)

    @property
    def n_states(self) -> int:
        return int(self.final.shape[0])

    @property
    def n_arcs(self) -> int:
        return int(self.arc_lab.shape[0])

    @property
    def size(self) -> int:
        """|A| = states + transitions."""
        return self.n_states + self.n_arcs

    def slots(self, labels: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """The slot of each pattern (rows of ``labels`` of the given lengths); −1 if rejected."""
        m = labels.shape[0]
        order = np.lexsort(labels.T[::-1]) if m else np.zeros(0, dtype=np.int64)
        cols = order.astype(np.int64)
        indptr = np.array([0, m], dtype=np.int64)
        lcp = sorted_lcp(indptr, cols, labels)
        width = labels.shape[1] + 1
        out = np.empty(m, dtype=np.int64)
        phi = (indptr, cols, np.ones(m), lcp, labels, lengths)
        intersect_slots(0, phi, self.arrays, (np.zeros(width, np.int64), np.zeros(width, np.int64), out))
        slots = np.empty(m, dtype=np.int64)
        slots[order] = out
        return slots


@register_representation("automaton")
class AutomatonWPrime(IndexedRowsWPrime):
    """The ``"automaton"`` representation: W′ as signed weights on the numbered paths of the
    minimal automaton of the training patterns (its states and arcs, one weight per path).

    Φ′_i and the automaton never change during training, so neither do the paths Φ′_i
    reaches. The automaton is therefore walked once, when training starts: every training
    pattern is spelt through its arrays from the trie of the patterns, each trie node by one
    lookup from its parent's state (:func:`~ratkit.learners.wprime._automaton_arrays.trie_paths`),
    and every row Φ′_i keeps the path number of each of its patterns beside the value Φ′_i(z)
    (:class:`~ratkit.learners.dcd.rows.IndexedRows` on the automaton's numbering).
    The passes are then the trie's (:class:`~ratkit.learners.wprime._indexed.IndexedRowsWPrime`)
    on path numbers instead of node numbers: exact gradients read and written at W′[path]
    (:func:`~ratkit.learners.dcd.epochs.epoch_indexed`) while many coordinates are active,
    cached float32 inner products of the active rows within ``cache_size`` once shrinking has
    left few (:class:`~ratkit.learners.dcd.active_gram.ActiveGramEpoch`). The rows' entries
    are the trie's, in the same order, so both representations take the same steps, to the
    last bit. Those steps, their order and Δf are those of walking Φ′_i at every step
    (the previous implementation, ``epoch_automaton_walk``, kept as the tests' reference in
    tests/learners/wprime/_automaton_reference.py), which cost one dependent lookup
    state → arc → next state per transition of Φ′_i's trie, a pass far slower than the
    trie's indexed reads. Walking each Φ′_i once (``WalkRows.slots`` in that reference)
    still costs one such pass, more than the trie's whole fit; walking each distinct pattern
    once reads far fewer transitions, independently of one another
    (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)').
    As on the trie, the patterns of one Φ′_i only are folded into u_i and their
    weights written out at the end.
    """

    name: str
    fallback: str | None
    stage: str

    def __init__(
        self, F: sp.csr_matrix, patterns: np.ndarray, base: int, vocabulary: Any, bias: float, capacity: int = 0
    ) -> None:
        self.bias = bias
        indptr, cols, data = csr_arrays(F)
        trie = PatternTrie.from_codes(patterns, base)
        self.automaton = aut = PatternAutomaton.from_trie(trie)
        wprime_size = {
            "trie_states": trie.n_states,
            "trie_arcs": trie.n_arcs,
            "automaton_states": aut.n_states,
            "automaton_arcs": aut.n_arcs,
        }
        self.position = trie_paths(trie, aut.arrays, patterns)  # the path of every column of [s, Φ′]
        if self.position.size and self.position.min() < 0:  # pragma: no cover - A accepts every training pattern
            raise AssertionError("a training pattern is not a path of the automaton of the training patterns")
        shift = 1 if bias > 0 else 0  # ε (code 0) is pattern 0 of the augmented rows, its path 0
        rows = IndexedRows.from_csr(indptr, cols, data, F.shape[1], bias)
        shared = rows.col_slot >= 0
        slot_path = np.zeros(rows.n_slots, dtype=np.int64)
        slot_path[rows.col_slot[shared]] = self.position[shift:][shared]
        if bias > 0:
            slot_path[0] = self.position[0]
        slot_type = index_dtype(aut.n_paths)
        rows = replace(
            rows,
            slots=slot_path.astype(slot_type)[rows.slots],
            col_slot=np.where(shared, self.position[shift:], -1),
            n_slots=aut.n_paths,
        )
        super().__init__(rows, vocabulary, wprime_size, capacity)

    @classmethod
    def build(cls, data: TrainingSet) -> AutomatonWPrime | None:
        inputs = primal_inputs(data)
        if inputs is None:
            return None
        capacity = cache_capacity(data.cache_size, data.n_samples)
        return cls(inputs.F, inputs.patterns, inputs.base, inputs.vocabulary, data.bias, capacity)
