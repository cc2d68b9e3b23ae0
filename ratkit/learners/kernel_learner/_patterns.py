"""The patterns of a count-based kernel and their count matrix X_ik = ``|x_i|_k`` (survey eq. (56)).

References
----------
A. Ghose, *Rational kernels: a survey*, §VI-1, eq. (55)–(56).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit._validation import check_int
from ratkit.automata.kernels import count_based, ngram
from ratkit.automata.kernels.inputs import as_collection

__all__ = ["pattern_counts", "most_frequent_patterns"]


def pattern_counts(patterns: Sequence[Any], sequences: Any) -> sp.csr_matrix:
    """X ∈ ℝ^{l×p} with X_ik = ``|x_i|_k``, the overlapping occurrences of pattern k in x_i.

    Columns follow the order of ``patterns`` (strings, one symbol per character, or
    tuples of tokens); a pattern that never occurs gets a zero column.

    References
    ----------
    A. Ghose, *Rational kernels: a survey*, §VI-1 (the matrix X below eq. (55)).
    """
    kernel = count_based(patterns)  # unit weights: the features are the raw counts
    pats = kernel.pattern_tuples()
    fmap, F = kernel.fit_features(as_collection(sequences))
    column = {z: j for j, z in enumerate(fmap.patterns())}
    src = np.array([column.get(z, -1) for z in pats], dtype=np.int64)
    # Select F's columns in pattern order; absent patterns map to an all-zero column.
    pick = sp.csr_matrix(
        (np.ones(int((src >= 0).sum())), (src[src >= 0], np.flatnonzero(src >= 0))),
        shape=(F.shape[1], len(pats)),
    )
    return sp.csr_matrix(F @ pick)


def most_frequent_patterns(sequences: Any, n: int = 2, p: int = 1000) -> list[tuple[str, ...]]:
    """The ``p`` n-grams z of largest total count Σ_i ``|x_i|_z`` (ties: smallest z first).

    Fewer than ``p`` are returned when the sequences hold fewer distinct n-grams.
    """
    n = check_int(n, "n", "most_frequent_patterns", low=1)
    p = check_int(p, "p", "most_frequent_patterns", low=1)
    fmap, F = ngram(n).fit_features(as_collection(sequences))
    totals = np.asarray(F.sum(axis=0)).ravel()
    pats = fmap.patterns()
    order = sorted(range(len(pats)), key=lambda j: (-totals[j], pats[j]))
    return [pats[j] for j in order[:p]]
