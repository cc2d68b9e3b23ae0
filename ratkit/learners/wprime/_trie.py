"""W′ as a weighted trie: one node per prefix of a pattern, the weights on the nodes.

This is the ``"trie"`` representation of Table II: W′(z) is the weight of the node
reached by spelling z from the root. Looking up the s(Φ′_i) nodes of each of the
n(Φ′_i) paths of Φ′_i is done once, when training starts (Φ′_i is fixed), so every
gradient D(Φ′_i ⋄ W′) and update W′ += Δ Φ′_i of Algorithm 4 then costs O(n(Φ′_i)):
the trie is an index of the features. The weights y_i α_i are signed, so they are
kept outside OpenFst, in a float64 array. While training, that array holds the pattern
nodes several Φ′_i reach, most used first; the weight of a node only Φ′_i reaches is
α_i y_i Φ′_i(z) and is written out at the end (:mod:`ratkit.learners.wprime._indexed_rows`).

References
----------
A. Ghose, *Rational kernels: a survey*, §V-B, Table II (trie row) and Table III.
C. Allauzen, C. Cortes, M. Mohri, "Large-scale training of SVMs with automata kernels",
CIAA 2010.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ratkit.automata.kernels._features import sorted_unique
from ratkit.learners.dcd._active_gram import ActiveGramEpoch, cache_capacity
from ratkit.learners.wprime._indexed_rows import IndexedRows, csr_arrays
from ratkit.learners.wprime._patterns import code_lengths
from ratkit.learners.wprime._protocol import Epoch, TrainingSet, primal_inputs, register_representation

__all__ = ["PatternTrie", "IndexedRowsWPrime", "TrieWPrime"]


@dataclass(frozen=True)
class PatternTrie:
    """The trie of a set of patterns given by their codes (base ``base``, digits 1..base−1).

    Node k spells the pattern of code ``node_codes[k]``; nodes are sorted by code, so
    the root (the empty string, code 0) is node 0 and parents come before children.
    Training on the trie needs only the nodes; the structure below is derived from
    them when first asked for.

    Attributes
    ----------
    base
        L + 1 for an alphabet numbered 1..L.
    node_codes
        The code of every node, ascending.
    final
        True for the nodes that spell one of the patterns.
    parent, label, depth
        Per node: its parent (−1 for the root), the label of the arc into it (0 for the
        root) and its depth.
    child_offsets, children
        Children of node k are ``children[child_offsets[k]:child_offsets[k + 1]]``,
        sorted by label.
    """

    base: int
    node_codes: np.ndarray
    final: np.ndarray

    @classmethod
    def from_codes(cls, codes: np.ndarray, base: int) -> PatternTrie:
        """The trie of the patterns ``codes`` (vectorised: prefixes are integer quotients)."""
        codes = sorted_unique(np.asarray(codes, dtype=np.int64))
        prefixes = [np.zeros(1, dtype=np.int64), codes]
        cur = codes
        while cur.size:
            cur = sorted_unique(cur // base, presorted=True)  # quotients of sorted codes stay sorted
            cur = cur[cur > 0]
            prefixes.append(cur)
        nodes = sorted_unique(np.concatenate(prefixes))
        final = np.zeros(nodes.shape[0], dtype=bool)
        final[np.searchsorted(nodes, codes)] = True
        return cls(base, nodes, final)

    @staticmethod
    def count_states(codes: np.ndarray, base: int) -> int:
        """The number of nodes of the trie of ``codes``, without building it.

        When the patterns all have one length (a code's length grows with its value, so
        the smallest and largest code tell), depth d holds the distinct quotients of the
        sorted codes by base^(n−d), and no two depths share a node; otherwise the trie
        is built.
        """
        codes = sorted_unique(np.asarray(codes, dtype=np.int64))
        codes = codes[codes > 0]  # the empty pattern is the root
        if not codes.size:
            return 1
        first, last = code_lengths(codes[[0, -1]], base)
        if first != last:
            return PatternTrie.from_codes(codes, base).n_states
        total, cur = 1, codes
        while cur[0] > 0:
            total += cur.shape[0]
            cur = sorted_unique(cur // base, presorted=True)
        return total

    @cached_property
    def parent(self) -> np.ndarray:
        parent = np.searchsorted(self.node_codes, self.node_codes // self.base)
        parent[0] = -1
        return parent

    @cached_property
    def label(self) -> np.ndarray:
        label = self.node_codes % self.base
        label[0] = 0
        return label

    @cached_property
    def depth(self) -> np.ndarray:
        return code_lengths(self.node_codes, self.base)

    @cached_property
    def child_offsets(self) -> np.ndarray:
        counts = np.bincount(self.parent[1:], minlength=self.n_states)
        offsets = np.zeros(self.n_states + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return offsets

    @cached_property
    def children(self) -> np.ndarray:
        return np.argsort(self.parent[1:], kind="stable") + 1  # grouped by parent, by label

    @property
    def n_states(self) -> int:
        return int(self.node_codes.shape[0])

    @property
    def n_arcs(self) -> int:
        return self.n_states - 1

    @property
    def size(self) -> int:
        """|W′_t| = states + transitions."""
        return self.n_states + self.n_arcs

    @property
    def n_children(self) -> np.ndarray:
        return np.diff(self.child_offsets)

    def nodes_of(self, codes: np.ndarray) -> np.ndarray:
        """The node of each pattern code; −1 for codes that are not nodes of the trie."""
        codes = np.asarray(codes, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.node_codes, codes), self.n_states - 1)
        return np.where(self.node_codes[pos] == codes, pos, -1)


class IndexedRowsWPrime:
    """W′ as a float64 array indexed by the slots of :class:`~ratkit.learners.wprime._indexed_rows.IndexedRows`:
    what the trie and the automaton representations share once each Φ′_i has been looked up.

    ``rows.slots`` number W′'s entries (the trie's pattern nodes, the automaton's paths), and
    ``rows.n_slots`` is the length of W′'s array. A pass is
    :class:`~ratkit.learners.dcd._active_gram.ActiveGramEpoch`: G_i = y_i ⟨W′, Φ′_i⟩ + α_i u_i − 1
    read on the rows, switching to cached float32 inner products of the active rows
    (within ``capacity`` rows) once shrinking has left few. Only the slots' names differ
    between the representations, so the steps, and the cache, are the same.
    """

    def __init__(self, rows: IndexedRows, vocabulary: Any, wprime_size: dict[str, int], capacity: int) -> None:
        self.rows, self.vocabulary, self.capacity = rows, vocabulary, capacity
        self.diagonal = rows.sq_norms
        self.wprime_size = wprime_size
        self._w: dict[int, np.ndarray] = {}
        self._epochs: dict[int, ActiveGramEpoch] = {}

    def epoch(self, c: int, y: np.ndarray, qinv: np.ndarray, C: float, alpha: np.ndarray) -> Epoch:
        self._w[c] = np.zeros(self.rows.n_slots)
        self._epochs[c] = ActiveGramEpoch(self.rows, y, qinv, C, alpha, self._w[c], self.capacity)
        return self._epochs[c]

    def finish(self, c: int) -> None:
        self._epochs.pop(c).finish()  # W′ up to date, the cache freed before the next problem

    def solution(self, alphas: np.ndarray, Y: np.ndarray) -> dict[str, Any]:
        coef = np.zeros((Y.shape[0], self.rows.col_slot.shape[0]))
        for c in range(Y.shape[0]):
            coef[c] = self.rows.column_weights(self._w[c], alphas[c], Y[c])
        return {"coef_": coef, "feature_map_": self.vocabulary, "wprime_size_": dict(self.wprime_size)}


@register_representation("trie")
class TrieWPrime(IndexedRowsWPrime):
    """The ``"trie"`` representation: W′ on the trie's nodes, looked up once, as indexed rows.

    Every Φ′_i is laid out by :class:`~ratkit.learners.wprime._indexed_rows.IndexedRows`
    (the pattern nodes it reaches, the intercept's ε as slot 0); the passes are those of
    :class:`IndexedRowsWPrime`, with cached inner products of the active rows within
    ``cache_size``.
    """

    name: str
    fallback: str | None
    stage: str

    def __init__(self, rows: IndexedRows, vocabulary: Any, n_states: int, capacity: int) -> None:
        super().__init__(rows, vocabulary, {"trie_states": n_states, "trie_arcs": n_states - 1}, capacity)

    @classmethod
    def build(cls, data: TrainingSet) -> TrieWPrime | None:
        inputs = primal_inputs(data)
        if inputs is None:
            return None
        states = PatternTrie.count_states(inputs.patterns, inputs.base)
        indptr, cols, values = csr_arrays(inputs.F)
        rows = IndexedRows.from_csr(indptr, cols, values, inputs.F.shape[1], data.bias)
        return cls(rows, inputs.vocabulary, states, cache_capacity(data.cache_size, data.n_samples))
