"""exp(−t·d_e) is not PDS (survey, Proposition 3 (2) and Theorem 3; Fig. 8): flagged, and refused by SVMs.

Regression: ``exp_kernel(edit_distance()).is_pds`` was None, so RationalSVC trained on it
silently. The oracle is a hand-written Levenshtein distance over all strings of length 4
on {a, b}, whose exp(−0.5·d) matrix has a negative eigenvalue.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ratkit.automata.kernels import edit_distance, exp_kernel, nds_to_pds, ngram
from ratkit.exceptions import NotPDSKernelError
from ratkit.learners import RationalSVC


def _levenshtein(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


def test_exp_of_the_edit_distance_really_has_a_negative_eigenvalue():
    strings = ["".join(p) for p in itertools.product("ab", repeat=4)]
    d = np.array([[_levenshtein(a, b) for b in strings] for a in strings], dtype=float)
    assert np.linalg.eigvalsh(np.exp(-0.5 * d))[0] < -0.05
    np.testing.assert_allclose(exp_kernel(edit_distance(), 0.5).gram(strings), np.exp(-0.5 * d), rtol=1e-12)


def test_it_is_flagged_non_pds_and_refused_by_the_svm():
    k = exp_kernel(edit_distance(), 0.5)
    assert edit_distance().is_nds is False and k.is_pds is False
    assert nds_to_pds(edit_distance()).is_pds is False
    X, y = ["ab", "ba", "aab", "bba", "abab", "baba"], [0, 1, 0, 1, 0, 1]
    with pytest.raises(NotPDSKernelError, match="non-PDS"):
        RationalSVC(k).fit(X, y)


def test_an_asymmetric_edit_distance_is_not_nds_and_other_costs_are_unknown():
    assert edit_distance(insertion=0.3, deletion=0.7).is_nds is False
    assert edit_distance(substitution=2.0).is_nds is None
    assert edit_distance("probability").is_nds is None
    assert exp_kernel(edit_distance(substitution=2.0)).is_pds is None
    assert exp_kernel(ngram(2)).is_pds is None  # a PDS K says nothing about exp(−tK)
