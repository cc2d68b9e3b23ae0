"""Sparse feature assembly: the sort-based fast paths against scipy's COO summation."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.automata.kernels import ngram
from ratkit.automata.kernels._paths import TooManyPaths
from ratkit.automata.kernels._windows import encode, window_codes
from ratkit.automata.kernels.algebra import cosine
from ratkit.automata.kernels.features import (
    FeatureMap,
    row_sq_norms,
    sorted_unique,
    uniform_values,
    vocabulary_matrix,
)

triplets = st.integers(1, 12).flatmap(
    lambda n_rows: st.tuples(
        st.just(n_rows),
        st.lists(
            st.tuples(st.integers(0, n_rows - 1), st.integers(0, 10**12), st.sampled_from([1.0, 0.5, 2.0])), max_size=60
        ),
        st.booleans(),
    )
)


@settings(max_examples=200, deadline=None)
@given(triplets)
def test_vocabulary_matrix_sums_duplicates_like_scipy(case):
    n_rows, entries, uniform = case
    rows = np.array([r for r, _, _ in entries], dtype=np.int64)
    codes = np.array([c % 37 * 10**10 + c % 5 for _, c, _ in entries], dtype=np.int64)  # many repeats
    values = uniform_values(len(entries)) if uniform else np.array([v for _, _, v in entries])
    uniq, F = vocabulary_matrix(rows, codes, values, n_rows)
    # forming the keys in the codes' own memory gives the same matrix
    uniq2, F2 = vocabulary_matrix(rows, codes.copy(), values, n_rows, overwrite_codes=True)
    assert np.array_equal(uniq2, uniq) and np.array_equal(F2.toarray(), F.toarray())
    want_codes = np.array(sorted(set(codes.tolist())), dtype=np.int64)
    want = sp.coo_matrix(
        (values, (rows, np.searchsorted(want_codes, codes))), shape=(n_rows, want_codes.shape[0])
    ).toarray()
    assert np.array_equal(uniq, want_codes)
    assert F.shape == want.shape and isinstance(F, sp.csr_matrix)
    np.testing.assert_array_equal(F.toarray(), want)
    for i in range(n_rows):  # canonical CSR: strictly increasing columns in every row
        assert np.all(np.diff(F.indices[F.indptr[i] : F.indptr[i + 1]]) > 0)


def test_vocabulary_matrix_with_codes_too_large_for_the_combined_key():
    big = np.iinfo(np.int64).max // 2
    uniq, F = vocabulary_matrix(np.array([0, 3, 0]), np.array([big, 7, big]), np.ones(3), 4)
    assert uniq.tolist() == [7, big]
    assert F.toarray().tolist() == [[0, 2], [0, 0], [0, 0], [1, 0]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**62), 2**62), max_size=80))
def test_sorted_unique_equals_sorted_set(values):
    assert sorted_unique(np.array(values, dtype=np.int64)).tolist() == sorted(set(values))
    assert sorted_unique(np.sort(np.array(values, dtype=np.int64)), presorted=True).tolist() == sorted(set(values))


def test_feature_map_columns_of_known_and_unknown_codes():
    fmap = FeatureMap(("a", "b"), np.array([1, 4, 9]))
    assert fmap.columns(np.array([9, 2, 1, 1, 10, 4])).tolist() == [2, -1, 0, 0, -1, 1]
    assert fmap.columns(np.array([], dtype=np.int64)).tolist() == []
    assert FeatureMap(("a",), np.array([], dtype=np.int64)).columns(np.array([1, 2])).tolist() == [-1, -1]


def test_cosine_gram_is_the_normalised_gram_and_zero_for_empty_feature_vectors():
    X = ["abab", "ab", "a", "bbba"]  # "a" has no bigram: norm 0
    G = ngram(2).gram(X)
    d = np.sqrt(np.diag(G))
    want = np.zeros_like(G)
    for i in range(4):
        for j in range(4):
            if d[i] > 0 and d[j] > 0:
                want[i, j] = G[i, j] / (d[i] * d[j])
    np.testing.assert_allclose(cosine(ngram(2)).gram(X), want, rtol=1e-15)
    np.testing.assert_allclose(cosine(ngram(2)).gram(X, X[:2]), want[:, :2], rtol=1e-15)


def _windows_by_hand(seqs, index, n, base):
    out = []
    for d, s in enumerate(seqs):
        for i in range(len(s) - n + 1):
            w = s[i : i + n]
            if all(ch in index for ch in w):
                code = 0
                for ch in w:
                    code = code * base + index[ch]
                out.append((d, code))
    return out


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(alphabet="ab?é😀", max_size=14), min_size=1, max_size=6),
    st.integers(1, 5),
)
def test_window_codes_against_enumeration(seqs, n):
    index = {"a": 1, "b": 2, "é": 3, "😀": 4}  # '?' is unknown (label 0); 😀 is beyond the lookup table
    labels, offsets = encode(seqs, index)
    assert labels.tolist() == [index.get(ch, 0) for s in seqs for ch in s]
    rows, codes = window_codes(labels, offsets, n, 5)
    assert list(zip(rows.tolist(), codes.tolist())) == _windows_by_hand(seqs, index, n, 5)


def test_ngrams_too_long_for_int64_codes_fall_back_to_automata():
    import string
    from collections import Counter

    X = [string.ascii_letters[:30] * 2, string.ascii_letters[5:35] + string.ascii_letters[:30]]
    # 52 letters: base 53, and 53^12 > 2^62, so 12-gram codes do not fit in an int64
    with pytest.raises(TooManyPaths, match="beyond int64"):
        window_codes(*encode(X, {c: i + 1 for i, c in enumerate(string.ascii_letters)}), 12, 53)
    counts = [Counter(x[i : i + 12] for i in range(len(x) - 11)) for x in X]
    want = np.array([[sum(a[z] * b[z] for z in a) for b in counts] for a in counts])
    np.testing.assert_allclose(ngram(12).gram(X), want, rtol=1e-9)


def test_row_sq_norms_equal_dense_sums():
    rng = np.random.RandomState(0)
    F = sp.random(30, 12, density=0.2, random_state=rng, format="csr")
    F.data[F.indptr[5] : F.indptr[6]] = 0  # an empty row
    F.eliminate_zeros()
    np.testing.assert_allclose(row_sq_norms(F), (F.toarray() ** 2).sum(axis=1), rtol=1e-14)
    dup = sp.csr_matrix((np.array([1.0, 2.0]), np.array([0, 0]), np.array([0, 2, 2])), shape=(2, 3))
    assert row_sq_norms(dup).tolist() == [9.0, 0.0]  # duplicates are summed before squaring
    assert dup.nnz == 2 and dup.data.tolist() == [1.0, 2.0]  # the caller's matrix is left as it was


def test_codepoint_labels_table_and_search_agree():
    from ratkit.automata.alphabet import codepoint_labels

    keys = np.array([ord("a"), ord("é"), ord("😀")], dtype=np.int64)
    vals = np.array([1, 2, 3], dtype=np.int64)
    for text in ("a?é😀a", "aé" * 40, "zzz", "😀" * 3):
        want = [dict(zip("aé😀", (1, 2, 3))).get(ch, 0) for ch in text]
        assert codepoint_labels(text, keys, vals).tolist() == want
    ascii_keys = keys[:2]  # no astral key: long ASCII text takes the table path
    assert codepoint_labels("a?" * 50, ascii_keys, vals[:2]).tolist() == [1, 0] * 50


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec=None), max_size=40))
def test_distinct_characters_are_the_sorted_set(text):
    from ratkit.automata.alphabet import distinct_characters

    assert distinct_characters(text) == sorted(set(text))
    assert distinct_characters(text + chr(0x1F600)) == sorted(set(text) | {chr(0x1F600)})  # beyond the table


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec=None), max_size=40), st.integers(1, 7))
def test_distinct_characters_read_in_slices_are_the_sorted_set(text, size):
    """The text is read a slice at a time (to bound its arrays): slices of 1..7 characters,
    some beyond the dense table, give the same set."""
    from ratkit.automata import alphabet

    real = alphabet._SCAN_CHARS
    alphabet._SCAN_CHARS = size
    try:
        assert alphabet.distinct_characters(text) == sorted(set(text))
        assert alphabet.distinct_characters(chr(0x1F600) + text) == sorted(set(text) | {chr(0x1F600)})
    finally:
        alphabet._SCAN_CHARS = real


def test_inferred_alphabet_is_the_sorted_characters_of_strings_and_tokens():
    k = ngram(2)
    assert k.alphabet_for(["cab", "b\u20acz"]).symbols == ("a", "b", "c", "z", "\u20ac")
    assert k.alphabet_for([("to", "be"), "ab"]).symbols == ("a", "b", "be", "to")
