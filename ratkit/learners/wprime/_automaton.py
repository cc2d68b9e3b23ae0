"""W′ as a minimal automaton: the minimal deterministic automaton of its patterns.

The ``"automaton"`` representation of Table II. The minimal *weighted* automaton of W′
depends on the weights y_i α_i, which change at every step of Algorithm 4, so it cannot
be updated in place (Table II's "NA"). Training therefore keeps fixed the minimal
deterministic automaton A of the patterns of W′ (shared prefixes *and* shared suffixes
merged) and numbers its accepting paths 0 … n − 1 in lexicographic order: each arc
carries the number of accepted strings its path skips (a minimal perfect hash, Lucchesi
and Kowaltowski 1993), so the path of z sums to z's slot in a float64 array of signed
weights, kept outside OpenFst. A gradient D(Φ′_i ⋄ W′) intersects Φ′_i (as the trie of
its patterns) with A and reads the weights of the matched slots; the update W′ += Δ Φ′_i
writes them back.

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

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit.automata.kernels._features import row_sq_norms
from ratkit.learners.dcd._epochs import epoch_automaton_walk, intersect_slots
from ratkit.learners.wprime._automaton_arrays import WalkRows, dense_arc_table, minimal_dfa
from ratkit.learners.wprime._indexed_rows import csr_arrays
from ratkit.learners.wprime._patterns import sorted_lcp
from ratkit.learners.wprime._protocol import Epoch, EpochResult, TrainingSet, primal_inputs, register_representation
from ratkit.learners.wprime._trie import PatternTrie

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
class AutomatonWPrime:
    """The ``"automaton"`` representation: W′ as signed weights on the numbered paths of the
    minimal automaton of the training patterns; each step walks Φ′_i (a walk program over
    its sorted patterns, :class:`~ratkit.learners.wprime._automaton_arrays.WalkRows`) through
    its arrays to the paths it reads and writes
    (:func:`~ratkit.learners.dcd._epochs.epoch_automaton_walk`). As on the trie, the patterns
    of one Φ′_i only are folded into u_i and their weights written out at the end.
    """

    name: str
    fallback: str | None
    stage: str

    def __init__(self, F: sp.csr_matrix, patterns: np.ndarray, base: int, vocabulary: Any, bias: float) -> None:
        self.vocabulary, self.bias = vocabulary, bias
        self.diagonal = row_sq_norms(F) + bias**2
        indptr, cols, data = csr_arrays(F)
        trie = PatternTrie.from_codes(patterns, base)
        self.automaton = aut = PatternAutomaton.from_trie(trie)
        self.wprime_size = {
            "trie_states": trie.n_states,
            "trie_arcs": trie.n_arcs,
            "automaton_states": aut.n_states,
            "automaton_arcs": aut.n_arcs,
        }
        shift = 1 if bias > 0 else 0  # ε (code 0) is pattern 0 of the augmented rows
        self.rows = WalkRows.from_csr(indptr, cols + shift, data, patterns, base, bias)
        m = patterns.shape[0]
        everything = WalkRows.from_csr(
            np.array([0, m], dtype=np.int64), np.arange(m, dtype=np.int64), np.ones(m), patterns, base, fold_own=False
        )
        self.position = everything.slots(aut.arrays)  # the path of every pattern (column of [s, Φ′])
        self.scratch = self.rows.scratch()
        self._w: dict[int, np.ndarray] = {}

    @classmethod
    def build(cls, data: TrainingSet) -> AutomatonWPrime | None:
        inputs = primal_inputs(data)
        if inputs is None:
            return None
        return cls(inputs.F, inputs.patterns, inputs.base, inputs.vocabulary, data.bias)

    def epoch(self, c: int, y: np.ndarray, qinv: np.ndarray, C: float, alpha: np.ndarray) -> Epoch:
        w = self._w[c] = np.zeros(self.automaton.n_paths)
        r, dfa, scratch = self.rows, self.automaton.arrays, self.scratch
        prog = r.program

        def run(active: np.ndarray, size: int, max_old: float, min_old: float) -> EpochResult:
            return epoch_automaton_walk(
                active, size, max_old, min_old, prog, r.data, r.own, dfa, scratch, y, qinv, C, alpha, w
            )

        return run

    def finish(self, c: int) -> None:
        """Nothing to do: every step wrote W′ (the folded weights are written by :meth:`solution`)."""

    def solution(self, alphas: np.ndarray, Y: np.ndarray) -> dict[str, Any]:
        r = self.rows
        W = np.stack([self._w[c][self.position] for c in range(Y.shape[0])])
        W[:, r.own_cols] = alphas[:, r.own_rows] * Y[:, r.own_rows] * r.own_vals
        coef = W[:, 1:] if self.bias > 0 else W
        return {"coef_": coef, "feature_map_": self.vocabulary, "wprime_size_": dict(self.wprime_size)}
