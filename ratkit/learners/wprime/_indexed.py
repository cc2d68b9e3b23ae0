"""W′ as a float64 array on the slots of indexed rows: what the ``"trie"`` and ``"automaton"``
representations share once every Φ′_i has been looked up in their structure.

Both representations turn the training set into :class:`~ratkit.learners.dcd.rows.IndexedRows`
(each entry of Φ′_i the slot of its pattern in W′: a trie node for the trie, a path number
for the automaton) and then train the same way, on the rows: :class:`IndexedRowsWPrime`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratkit.learners.dcd.active_gram import ActiveGramEpoch
from ratkit.learners.dcd.rows import IndexedRows
from ratkit.learners.wprime._protocol import Epoch

__all__ = ["IndexedRowsWPrime"]


class IndexedRowsWPrime:
    """W′ as a float64 array indexed by the slots of :class:`~ratkit.learners.dcd.rows.IndexedRows`:
    what the trie and the automaton representations share once each Φ′_i has been looked up.

    ``rows.slots`` number W′'s entries (the trie's pattern nodes, the automaton's paths), and
    ``rows.n_slots`` is the length of W′'s array. A pass is
    :class:`~ratkit.learners.dcd.active_gram.ActiveGramEpoch`: G_i = y_i ⟨W′, Φ′_i⟩ + α_i u_i − 1
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
