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

from ratkit._jit import njit
from ratkit.automata.kernels._features import row_sq_norms
from ratkit.learners.dcd._epochs import epoch_automaton, intersect_slots
from ratkit.learners.wprime._indexed_rows import csr_arrays
from ratkit.learners.wprime._patterns import code_labels, sorted_lcp
from ratkit.learners.wprime._protocol import Epoch, EpochResult, TrainingSet, primal_inputs, register_representation
from ratkit.learners.wprime._trie import PatternTrie

__all__ = ["PatternAutomaton", "AutomatonWPrime", "merge_equivalent", "minimal_weighted_size", "wprime_sizes"]


_TABLE_LIMIT = 2**24


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


@njit
def _number_paths(arc_off, arc_dst, final):
    """count(q) = [q final] + Σ count(dst) and each arc's skip; states are numbered so that
    every arc goes to a smaller number (children are classified before parents)."""
    n = final.shape[0]
    count = np.zeros(n, dtype=np.int64)
    inc = np.zeros(arc_dst.shape[0], dtype=np.int64)
    for q in range(n):
        c = 1 if final[q] else 0
        for a in range(arc_off[q], arc_off[q + 1]):
            inc[a] = c
            c += count[arc_dst[a]]
        count[q] = c
    return count, inc


@dataclass(frozen=True)
class PatternAutomaton:
    """The minimal deterministic acceptor of a pattern set, its paths numbered.

    Arcs of state q are ``arc_off[q]:arc_off[q + 1]``, sorted by label; following z
    from ``start`` and summing ``arc_inc`` gives z's slot in 0 … ``n_paths`` − 1.
    ``table[q, label]`` is the arc of q with that label (−1 if none) when the automaton
    is small enough for a dense table (≤ 2²⁴ entries), else empty (binary search then).
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
        """Minimise the trie (merge nodes with equal futures) and number the paths."""
        live = np.ones(trie.n_states, dtype=bool)
        node_cls, n_states, _ = merge_equivalent(trie, live, trie.final.astype(np.float64), np.ones(trie.n_states))
        rep = np.full(n_states, -1, dtype=np.int64)
        rep[node_cls[::-1]] = np.arange(trie.n_states)[::-1]  # a representative node per state
        deg = trie.n_children[rep]
        arc_off = np.zeros(n_states + 1, dtype=np.int64)
        np.cumsum(deg, out=arc_off[1:])
        kids = trie.children[
            np.repeat(trie.child_offsets[rep], deg) + (np.arange(arc_off[-1]) - np.repeat(arc_off[:-1], deg))
        ]
        arc_lab = trie.label[kids]
        arc_dst = node_cls[kids]
        final = trie.final[rep]
        count, arc_inc = _number_paths(arc_off, arc_dst, final)
        start = int(node_cls[0])
        width = int(arc_lab.max()) + 1 if arc_lab.size else 1
        if n_states * width <= _TABLE_LIMIT:  # dense [state, label] → arc lookups
            table = np.full((n_states, width), -1, dtype=np.int32)
            table[np.repeat(np.arange(n_states), deg), arc_lab] = np.arange(arc_lab.shape[0], dtype=np.int32)
        else:
            table = np.zeros((0, 0), dtype=np.int32)
        return cls(start, arc_off, arc_lab, arc_dst, arc_inc, final, int(count[start]), table)

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
    minimal automaton of the training patterns; each gradient intersects Φ′_i (the trie of
    its patterns, with their common prefixes) with it (:func:`~ratkit.learners.dcd._epochs.epoch_automaton`).
    """

    name: str
    fallback: str | None
    stage: str

    def __init__(self, F: sp.csr_matrix, patterns: np.ndarray, base: int, vocabulary: Any, bias: float) -> None:
        n = F.shape[0]
        self.vocabulary, self.bias = vocabulary, bias
        self.diagonal = row_sq_norms(F) + bias**2
        if bias > 0:  # ε, of value s, is column 0 of every augmented row
            F = sp.hstack([sp.csr_matrix(np.full((n, 1), bias)), F], format="csr")
        indptr, cols, data = csr_arrays(F)
        trie = PatternTrie.from_codes(patterns, base)
        self.automaton = aut = PatternAutomaton.from_trie(trie)
        self.wprime_size = {
            "trie_states": trie.n_states,
            "trie_arcs": trie.n_arcs,
            "automaton_states": aut.n_states,
            "automaton_arcs": aut.n_arcs,
        }
        vlab, vlen = code_labels(patterns, base)  # the pattern of every column of F
        self.position = aut.slots(vlab, vlen)
        self.phi = (indptr, cols, data, sorted_lcp(indptr, cols, vlab), vlab, vlen)
        width = vlab.shape[1] + 1
        slots = np.zeros(max(int(np.diff(indptr).max(initial=0)), 1), np.int64)
        self.scratch = (np.zeros(width, np.int64), np.zeros(width, np.int64), slots)
        self._w: dict[int, np.ndarray] = {}

    @classmethod
    def build(cls, data: TrainingSet) -> AutomatonWPrime | None:
        inputs = primal_inputs(data)
        if inputs is None:
            return None
        return cls(inputs.F, inputs.patterns, inputs.base, inputs.vocabulary, data.bias)

    def epoch(self, c: int, y: np.ndarray, qinv: np.ndarray, C: float, alpha: np.ndarray) -> Epoch:
        w = self._w[c] = np.zeros(self.automaton.n_paths)
        phi, dfa, scratch = self.phi, self.automaton.arrays, self.scratch

        def run(active: np.ndarray, size: int, max_old: float, min_old: float) -> EpochResult:
            return epoch_automaton(active, size, max_old, min_old, phi, dfa, scratch, y, qinv, C, alpha, w)

        return run

    def finish(self, c: int) -> None:
        """Nothing to do: every step wrote W′."""

    def solution(self, alphas: np.ndarray, Y: np.ndarray) -> dict[str, Any]:
        W = np.stack([self._w[c][self.position] for c in range(Y.shape[0])])
        coef = W[:, 1:] if self.bias > 0 else W
        return {"coef_": coef, "feature_map_": self.vocabulary, "wprime_size_": dict(self.wprime_size)}
