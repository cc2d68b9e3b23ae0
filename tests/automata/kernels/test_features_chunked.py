"""Feature matrices built in ranges of sequences within a working-memory bound (issue 19).

A Gram matrix written to a file (``out=``) builds its features with the working memory of
one block (``fit_features(work_bytes=)``): :func:`chunked_vocabulary_matrix` extracts ranges of
sequences twice, first for the vocabulary and the row sizes, then for the entries. The
oracles: scipy's COO sum of the triplets on the sorted set of their codes, and the one-pass
matrix of the same kernel.
"""

from __future__ import annotations

import numpy as np
import pynini
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.automata.kernels import count_based, features, gappy, mismatch, ngram
from ratkit.automata.kernels.features import chunked_vocabulary_matrix, vocabulary_matrix
from ratkit.exceptions import OperationError

_TRIPLET_BYTES = 24  # row, code, value: 8 bytes each


def _source(per_row: list[list[tuple[int, float]]]):
    """triplets(a, b) of rows given as lists of (code, value), rows renumbered from a."""

    def triplets(a: int, b: int):
        entries = [(r - a, c, v) for r in range(a, b) for c, v in per_row[r]]
        rows = np.array([e[0] for e in entries], dtype=np.int64)
        codes = np.array([e[1] for e in entries], dtype=np.int64)
        values = np.array([e[2] for e in entries], dtype=np.float64)
        return rows, codes, values

    return triplets


rows_of_triplets = st.lists(
    st.lists(st.tuples(st.integers(0, 40), st.sampled_from([1.0, 0.5, 2.0])), max_size=12), min_size=1, max_size=25
)


@settings(max_examples=150, deadline=None)
@given(rows_of_triplets, st.integers(1, 3000), st.booleans())
def test_chunked_matrix_is_scipys_sum_of_the_triplets_on_their_sorted_codes(per_row, work_bytes, counts):
    if counts:  # every value 1: the uniform fast path in every range
        per_row = [[(c, 1.0) for c, _ in row] for row in per_row]
    codes = sorted({c for row in per_row for c, _ in row})
    want = np.zeros((len(per_row), len(codes)))
    for r, row in enumerate(per_row):
        for c, v in row:
            want[r, codes.index(c)] += v
    uniq, F = chunked_vocabulary_matrix(_source(per_row), [len(row) for row in per_row], work_bytes)
    assert uniq.tolist() == codes
    assert isinstance(F, sp.csr_matrix) and F.shape == want.shape
    np.testing.assert_array_equal(F.toarray(), want)
    for i in range(F.shape[0]):  # canonical: strictly increasing columns in every row
        assert np.all(np.diff(F.indices[F.indptr[i] : F.indptr[i + 1]]) > 0)
    # and the same arrays as the one-pass matrix
    uniq1, F1 = vocabulary_matrix(*_source(per_row)(0, len(per_row)), len(per_row))
    assert np.array_equal(uniq, uniq1)
    for field in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(F, field), getattr(F1, field)), field


def test_ranges_cover_every_row_once_in_order_and_keep_to_the_bound():
    per_row = [[(7 * r + k, 1.0) for k in range(10)] for r in range(400)]  # 10 entries a row
    calls: list[tuple[int, int]] = []
    source = _source(per_row)

    def spy(a: int, b: int):
        calls.append((a, b))
        return source(a, b)

    work_bytes = 20 * 10 * (_TRIPLET_BYTES + 12)  # about 20 rows' triplets and CSR entries
    uniq, F = chunked_vocabulary_matrix(spy, [10] * 400, work_bytes)
    first = calls[: len(calls) // 2]
    assert calls[len(calls) // 2 :] == first  # the second pass recomputes the same ranges
    assert first[0][0] == 0 and first[-1][1] == 400
    assert all(b0 == a1 for (_, b0), (a1, _) in zip(first, first[1:]))  # contiguous, in order
    assert len(first) >= 15  # 400 rows at about 20 a range
    assert max(b - a for a, b in first) * 10 * _TRIPLET_BYTES <= work_bytes
    np.testing.assert_array_equal(F.toarray(), vocabulary_matrix(*source(0, 400), 400)[1].toarray())


def test_one_range_is_the_one_pass():
    per_row = [[(1, 1.0), (2, 1.0)], [(2, 1.0)]]
    calls = []
    source = _source(per_row)

    def spy(a: int, b: int):
        calls.append((a, b))
        return source(a, b)

    _, F = chunked_vocabulary_matrix(spy, [2, 1], 10**6)
    assert calls == [(0, 2)]  # no second extraction
    assert F.toarray().tolist() == [[1.0, 1.0], [0.0, 1.0]]


def test_an_extraction_that_changes_between_the_passes_is_refused():
    seen = {"calls": 0}

    def drifting(a: int, b: int):
        seen["calls"] += 1
        extra = seen["calls"] > 2  # the second pass finds one more entry in a row
        rows = np.array([0, 0] + ([1] if extra else []), dtype=np.int64)
        codes = np.array([a, a + 100] + ([a + 200] if extra else []), dtype=np.int64)
        return rows, codes, np.ones(rows.shape[0])

    with pytest.raises(OperationError, match=r"changed between two extractions.*without out="):
        chunked_vocabulary_matrix(drifting, [1] * 4, 1)


RNG = np.random.default_rng(11)
DNA = ["".join(RNG.choice(list("acgt"), size=int(RNG.integers(0, 80)))) for _ in range(120)]
TOKENS = [tuple(RNG.choice(["the", "a", "cat", "sat", "mat"], size=int(RNG.integers(1, 20)))) for _ in range(60)]


@pytest.mark.parametrize(
    "kernel, X",
    [
        (ngram(3), DNA),
        (ngram(5), DNA),
        (gappy(3, 0.5), DNA),
        (mismatch(3, 1), DNA),
        (count_based(["ac", "gt", "acg"], weights=[1.0, 0.5, 2.0]), DNA),
        (ngram(2), TOKENS),
    ],
    ids=["ngram3", "ngram5", "gappy", "mismatch", "count_based", "tokens"],
)
@pytest.mark.parametrize("work_bytes", [1, 500, 20_000])
def test_fit_features_within_a_bound_equals_the_one_pass(kernel, X, work_bytes):
    vocabulary, F = kernel.fit_features(X)
    vocabulary2, F2 = kernel.fit_features(X, work_bytes=work_bytes)
    assert np.array_equal(vocabulary2.codes, vocabulary.codes)
    assert F2.shape == F.shape
    np.testing.assert_allclose(F2.toarray(), F.toarray(), rtol=1e-15, atol=0)
    assert np.array_equal(F2.indptr, F.indptr) and np.array_equal(F2.indices, F.indices)


def _lattice(*words: str) -> pynini.Fst:
    return pynini.union(*(pynini.accep(w, arc_type="log") for w in words)).optimize()


@pytest.mark.parametrize("with_lattices", [False, True])
def test_feature_automata_within_a_bound_equal_the_one_pass(with_lattices):
    k = ngram(2)
    X = DNA[:30] + ([_lattice("acgt", "aacc"), _lattice("ttt")] if with_lattices else [])
    vocabulary, F = k.fit_features(X, strategy="features")
    vocabulary2, F2 = k.fit_features(X, strategy="features", work_bytes=200)
    assert np.array_equal(vocabulary2.codes, vocabulary.codes)
    np.testing.assert_array_equal(F2.toarray(), F.toarray())


def test_a_gram_into_a_file_builds_its_features_within_one_block(tmp_path, monkeypatch):
    calls: list[int] = []
    real = features.chunked_vocabulary_matrix

    def spy(triplets, sizes, work_bytes, **kwargs):
        calls.append(work_bytes)
        return real(triplets, sizes, work_bytes, **kwargs)

    monkeypatch.setattr("ratkit.automata.kernels.rational.chunked_vocabulary_matrix", spy)
    k = ngram(3)
    n = len(DNA)
    block_bytes = 10 * n * 8  # 10 rows a block
    G = k.gram(DNA, out=tmp_path / "g.npy", block_bytes=block_bytes, n_jobs=1)
    assert calls == [block_bytes]
    np.testing.assert_array_equal(np.asarray(G), k.gram(DNA))
    calls.clear()
    np.testing.assert_array_equal(k.gram(DNA, block_bytes=block_bytes, n_jobs=1), k.gram(DNA))
    assert calls == []  # in memory: the one pass
    assert not hasattr(features, "feature_memory_bound")  # no hidden channel: the budget is an argument


class _Bar:
    """A stand-in for tqdm that records what a progress bar was told."""

    made: list[_Bar] = []

    def __init__(self, **kwargs):
        self.kwargs, self.count = kwargs, 0
        _Bar.made.append(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        self.count += n


def test_one_progress_bar_counts_both_passes(monkeypatch):
    monkeypatch.setattr(features, "tqdm", _Bar)
    _Bar.made.clear()
    per_row = [[(7 * r + k, 1.0) for k in range(10)] for r in range(100)]
    chunked_vocabulary_matrix(_source(per_row), [10] * 100, 20 * 10 * 36, show_progress=True)
    (bar,) = _Bar.made
    assert bar.kwargs["total"] == 2000 and bar.count == 2000  # 100 rows of size 10, twice
    assert bar.kwargs["disable"] is False


def test_a_gram_into_a_file_shows_one_feature_bar_not_one_per_range(tmp_path, monkeypatch):
    shown = []
    real = features.chunked_vocabulary_matrix

    def spy(triplets, sizes, work_bytes, *, show_progress=False):
        shown.append(show_progress)
        return real(triplets, sizes, work_bytes, show_progress=show_progress)

    monkeypatch.setattr("ratkit.automata.kernels.rational.chunked_vocabulary_matrix", spy)
    raw = []
    real_raw = type(ngram(2))._raw_features

    def raw_spy(self, sequences, symbols, strategy, n_jobs, show_progress):
        raw.append(show_progress)
        return real_raw(self, sequences, symbols, strategy, n_jobs, show_progress)

    monkeypatch.setattr(type(ngram(2)), "_raw_features", raw_spy)
    ngram(2).gram(DNA, out=tmp_path / "g.npy", block_bytes=10 * len(DNA) * 8, n_jobs=1, show_progress=True)
    assert shown == [True]
    assert len(raw) > 2 and not any(raw)  # several ranges, twice, none with a bar of its own
