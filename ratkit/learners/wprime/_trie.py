"""The ``"trie"`` representation of W′: the weighted trie of Table II, as indexed rows.

In the survey, W′(z) is the weight of the trie node reached by spelling z from the root.
Looking up the s(Φ′_i) nodes of each of the n(Φ′_i) paths of Φ′_i is done once, when
training starts (Φ′_i is fixed), so every gradient D(Φ′_i ⋄ W′) and update W′ += Δ Φ′_i of
Algorithm 4 then costs O(n(Φ′_i)): the trie is an index of the features, and training runs
on that index alone — :class:`~ratkit.learners.dcd.rows.IndexedRows`, whose slots are the
pattern nodes — never on a trie object (the trie's size, for ``wprime_size_``, is counted
from the pattern codes: :meth:`~ratkit.learners.wprime.PatternTrie.count_states`). The
weights y_i α_i are signed, so they are kept outside OpenFst, in a float64 array. While
training, that array holds the pattern nodes several Φ′_i reach, most used first; the weight
of a node only Φ′_i reaches is α_i y_i Φ′_i(z) and is written out at the end
(:mod:`ratkit.learners.dcd.rows`).

References
----------
A. Ghose, *Rational kernels: a survey*, §V-B, Table II (trie row) and Table III.
C. Allauzen, C. Cortes, M. Mohri, "Large-scale training of SVMs with automata kernels",
CIAA 2010.
"""

from __future__ import annotations

from typing import Any

from ratkit.learners.dcd.active_gram import cache_capacity
from ratkit.learners.dcd.rows import IndexedRows, csr_own_arrays
from ratkit.learners.wprime._indexed import IndexedRowsWPrime
from ratkit.learners.wprime._patterns import PatternTrie
from ratkit.learners.wprime._protocol import TrainingSet, primal_inputs, register_representation

__all__ = ["TrieWPrime"]


@register_representation("trie")
class TrieWPrime(IndexedRowsWPrime):
    """The ``"trie"`` representation: W′ on the trie's nodes, looked up once, as indexed rows.

    Every Φ′_i is laid out by :class:`~ratkit.learners.dcd.rows.IndexedRows`
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
        indptr, cols, values = csr_own_arrays(inputs.F)  # F's int32 indices, not an int64 copy
        rows = IndexedRows.from_csr(indptr, cols, values, inputs.F.shape[1], data.bias)
        return cls(rows, inputs.vocabulary, states, cache_capacity(data.cache_size, data.n_samples))
