"""cosine(K₀).transform_features from one extraction, against scikit-learn's counts and norms."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from ratkit.automata.kernels import CosineKernel, NgramKernel
from ratkit.automata.kernels.features import FeatureMap, recode_patterns, restrict_columns

TRAIN = ["abcabcab", "bcdbcd", "xyzab", "aaaa", "abab", "dcba"]
# symbols unseen in training (q, é), training symbols absent here (x, y), an empty and a short text
TEST = ["abcq", "qqq", "", "ab", "bcdxy", "zzab", "abcabc", "éabcé", "dcbabcd"]


def _sklearn_rows(n: int, vocabulary: FeatureMap, X: list[str]) -> np.ndarray:
    """Counts of X's n-grams in the vocabulary's columns, each row divided by the norm of all of
    its n-grams (seen or not): CountVectorizer on X alone gives those norms."""
    columns = ["".join(p) for p in vocabulary.patterns()]
    seen = CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False, vocabulary=columns)
    counts = seen.transform(X).toarray().astype(np.float64)
    norms = np.zeros(len(X))
    nonempty = [i for i, x in enumerate(X) if len(x) >= n]
    if nonempty:
        own = CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False)
        full = own.fit_transform([X[i] for i in nonempty]).toarray().astype(np.float64)
        norms[nonempty] = np.sqrt((full**2).sum(axis=1))
    return np.divide(counts, norms[:, None], out=np.zeros_like(counts), where=norms[:, None] > 0)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_cosine_transform_matches_countvectorizer_and_full_norms(n):
    k = CosineKernel(NgramKernel(n))
    vocabulary, _ = k.fit_features(TRAIN)
    got = k.transform_features(vocabulary, TEST)
    assert got.shape == (len(TEST), vocabulary.n_features)
    assert got.has_sorted_indices and np.all(got.data != 0)
    np.testing.assert_allclose(got.toarray(), _sklearn_rows(n, vocabulary, TEST), rtol=1e-15, atol=1e-15)


def test_cosine_transform_rows_give_the_kernel_against_training_rows():
    k = CosineKernel(NgramKernel(2))
    vocabulary, F = k.fit_features(TRAIN)
    G = k.transform_features(vocabulary, TEST)
    np.testing.assert_allclose((G @ F.T).toarray(), k.gram(TEST, TRAIN), atol=1e-15)


def test_recode_patterns_maps_digits_and_drops_unknown_symbols():
    # over ("a", "b", "c") codes are base 4: "ab" = 1·4 + 2 = 6, "ca" = 3·4 + 1 = 13, "c" = 3
    # over ("b", "c", "d") (base 4): "ab" has no code, "c" = 2, "cb" = 2·4 + 1 = 9
    codes = np.array([6, 13, 3, 3 * 4 + 2])  # "ab", "ca", "c", "cb"
    got = recode_patterns(codes, ("a", "b", "c"), ("b", "c", "d"))
    np.testing.assert_array_equal(got, [-1, -1, 2, 9])
    assert recode_patterns(np.array([4**31]), tuple("abc"), tuple("abc")) is not None  # same alphabet: a copy
    assert recode_patterns(np.array([4**30]), tuple("abc"), tuple("abcdefghijklmnopq")) is None  # beyond int64


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda p: st.tuples(
            st.lists(st.lists(st.integers(0, p - 1), max_size=p, unique=True), min_size=1, max_size=6),
            st.lists(st.integers(-1, 4), min_size=p, max_size=p),
        )
    )
)
def test_restrict_columns_against_dense_selection(case):
    rows, column_map = case
    p = len(column_map)
    dense = np.zeros((len(rows), p))
    for i, cols in enumerate(rows):
        dense[i, cols] = np.arange(1, len(cols) + 1)
    expected = np.zeros((len(rows), 5))
    for j, c in enumerate(column_map):
        if c >= 0:
            expected[:, c] += dense[:, j]
    distinct = [c for c in column_map if c >= 0]
    if len(set(distinct)) < len(distinct):
        return  # two columns onto one: not a restriction (the cosine never asks for it)
    got = restrict_columns(sp.csr_matrix(dense), np.array(column_map), 5)
    assert got.shape == (len(rows), 5) and got.has_sorted_indices
    got.has_sorted_indices = False
    got.sort_indices()
    np.testing.assert_array_equal(got.toarray(), expected)
    assert np.all(np.diff(got.indices[got.indptr[0] : got.indptr[1]]) > 0)


def test_restrict_columns_checks_its_map():
    F = sp.csr_matrix(np.eye(3))
    with pytest.raises(ValueError, match="one per column"):
        restrict_columns(F, np.array([0, 1]), 3)
    with pytest.raises(ValueError, match="beyond"):
        restrict_columns(F, np.array([0, 1, 3]), 3)
