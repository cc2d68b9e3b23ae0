"""CCCF and DCF in bounded memory (issue 38): the fit without per-entry copies learns exactly
what the array-holding fit of commit 8c9ac4d learned, and its parts against numpy and scipy.

The expected codes, weights and objective histories in ``tests/data/cccf_8c9ac4d.json`` were
written by 8c9ac4d's code (the last before the change), from a checkout of it::

    PYTHONPATH=<checkout of 8c9ac4d> python tests/recsys/test_cccf_memory.py tests/data/cccf_8c9ac4d.json
"""

from __future__ import annotations

import hashlib
import json
import sys
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.recsys import CCCF, DCF

EXPECTED = Path(__file__).resolve().parents[1] / "data" / "cccf_8c9ac4d.json"

#: (name, model) of the compared fits: both models, both feedbacks, the three inits, both anchors.
CONFIGS: dict[str, Any] = {
    "cccf-kmeans": lambda fb: CCCF(4, 6, bandwidth=1.0, feedback=fb, random_state=0, max_iter=5, tol=0.0),
    "cccf-defaults": lambda fb: CCCF(feedback=fb, random_state=1, max_iter=4, tol=0.0),
    "cccf-relaxed-kmedoids": lambda fb: CCCF(
        3, 5, feedback=fb, init="relaxed", anchors="kmedoids", random_state=2, max_iter=3, tol=0.0
    ),
    "cccf-random": lambda fb: CCCF(
        3, 5, feedback=fb, init="random", random_state=3, max_iter=3, tol=0.0, confidence=2.5, unobserved_weight=0.5
    ),
    "dcf-relaxed": lambda fb: DCF(8, feedback=fb, random_state=0, max_iter=5, tol=0.0),
    "dcf-identical": lambda fb: DCF(6, feedback=fb, init="identical", random_state=4, max_iter=3, tol=0.0),
}
#: compared by SHA-256 of dtype, shape and bytes (the objective histories are stored as they are)
DIGESTED = ("codes_user_", "codes_item_", "weights_user_", "weights_item_")


def _digest(a: np.ndarray) -> str:
    a = np.ascontiguousarray(a)
    return hashlib.sha256(f"{a.dtype.str}{a.shape}".encode() + a.tobytes()).hexdigest()


def _data(feedback: str, m: int = 90, n: int = 50, density: float = 0.15) -> sp.csr_matrix:
    """Ratings 1–5 (or counts 1–3) on a random pattern, every user with at least one."""
    g = np.random.default_rng(m + (feedback == "implicit"))
    mask = g.random((m, n)) < density
    mask[np.arange(m), g.integers(0, n, m)] = True
    values = g.integers(1, 6, (m, n)) if feedback == "explicit" else g.integers(1, 4, (m, n))
    return sp.csr_matrix(np.where(mask, values, 0).astype(np.float64))


def _fits() -> dict[str, dict[str, Any]]:
    """Every config on both feedbacks: the fitted arrays' digests and the objective history."""
    out: dict[str, dict[str, Any]] = {}
    for feedback in ("explicit", "implicit"):
        for name, make in CONFIGS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = make(feedback).fit(_data(feedback))
            out[f"{name}-{feedback}"] = {a: _digest(getattr(model, a)) for a in DIGESTED}
            out[f"{name}-{feedback}"]["objective_history_"] = model.objective_history_.tolist()
    return out


@pytest.mark.parametrize("key", [f"{n}-{f}" for f in ("explicit", "implicit") for n in CONFIGS])
def test_the_fit_learns_exactly_what_the_array_holding_fit_learned(key):
    name, feedback = key.rsplit("-", 1)
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = CONFIGS[name](feedback).fit(_data(feedback))
    for attribute in DIGESTED:
        assert _digest(getattr(model, attribute)) == expected[attribute], attribute
    assert model.objective_history_.tolist() == expected["objective_history_"]  # floats round-trip in JSON


# -- the parts -------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 7, 8, 100, 129, 1000, 8193, 100_003])
@pytest.mark.parametrize("chunk", [128, 1000, 1 << 16])
def test_exact_sum_is_numpys_sum_of_the_whole_array(n, chunk):
    from ratkit.recsys._entries import exact_sum

    rng = np.random.default_rng(n)
    a = rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 6, n)  # rounding makes the order visible
    calls = []
    got = exact_sum(n, lambda part: calls.append(part.stop - part.start) or a[part], chunk=chunk)
    assert got == float(np.sum(a))
    assert max(calls, default=0) <= max(chunk, 128)


def test_the_item_major_view_is_scipys_csc_order_in_int32():
    from ratkit.recsys._entries import item_major

    R = sp.random(300, 70, density=0.1, format="csr", random_state=3)
    R.data[:] = np.arange(R.nnz) + 1.0  # each value names its CSR position
    C = R.tocsc()
    C.sort_indices()
    ptr, users, pos = item_major(R)
    np.testing.assert_array_equal(ptr, C.indptr)
    np.testing.assert_array_equal(users, C.indices)
    np.testing.assert_array_equal(R.data[pos], C.data)
    assert users.dtype == np.int32 and pos.dtype == np.int32


def test_an_entry_map_gives_the_floats_of_the_numpy_expressions_it_replaces():
    from ratkit._jit import njit
    from ratkit.recsys._entries import EntryMap, at, entry, entry_values

    @njit
    def read(values, pos, n):
        out = np.empty(n)
        for t in range(n):
            out[t] = entry(values, at(pos, t))
        return out

    rng = np.random.default_rng(0)
    v = rng.integers(1, 6, 5000) + rng.random(5000)
    lo, hi, r, mass, a = 1.0, 6.0, 7, 0.123456789, 2.5
    ratings = EntryMap(v, 2.0 * r, lo, hi - lo, -float(r), mass)
    expected = (2.0 * r * (v - lo) / (hi - lo) - r) * mass  # the fit's former target array
    confidence = EntryMap(v, a, 0.0, 1.0, 1.0, 1.0)
    one_class = EntryMap(v, 0.0, 0.0, 1.0, float(r), mass)
    for values, oracle in ((ratings, expected), (confidence, 1.0 + a * v), (one_class, np.full(5000, float(r)) * mass)):
        np.testing.assert_array_equal(read(values, None, v.size), oracle)
        np.testing.assert_array_equal(entry_values(values), oracle)
        order = rng.permutation(v.size).astype(np.int32)
        np.testing.assert_array_equal(read(values, order, v.size), oracle[order])
    np.testing.assert_array_equal(read(v, None, v.size), v)  # a plain array is read as it is


def test_the_gram_built_in_row_chunks_is_the_gram_and_refreshes_its_blocks():
    from ratkit.recsys._code_oneclass import GramRows, factor_rows, gram

    rng = np.random.default_rng(1)
    G, N, r = 3, 50, 4
    codes = rng.choice(np.array([-1, 1], dtype=np.int8), (G, N, r))
    weights = rng.random((N, G))
    F = codes.transpose(1, 0, 2).astype(float) * weights[:, :, None]
    np.testing.assert_array_equal(factor_rows(codes, weights), F.reshape(N, G * r))
    whole = GramRows(codes, weights)  # one chunk: numpy's FᵀF itself
    np.testing.assert_array_equal(whole.current(), gram(codes, weights))
    chunked = GramRows(codes, weights)
    chunked.ROWS = 7
    chunked.__init__(codes, weights)
    np.testing.assert_allclose(chunked.current(), F.reshape(N, -1).T @ F.reshape(N, -1), rtol=1e-13, atol=1e-13)
    codes[1] = -codes[1]
    codes[2, :5] = 1
    for g in (whole, chunked):
        g.stale.update({1, 2})
        np.testing.assert_allclose(g.current(), gram(codes, weights), rtol=1e-13, atol=1e-13)
        assert not g.stale


def test_pretraining_reads_a_canonical_matrix_without_copying_or_changing_it():
    from ratkit.recsys._component_weights import pretrain_factors, pretrain_one_class

    R = _data("explicit", 60, 40)
    assert R.has_canonical_format
    before = (R.data.copy(), R.indices.copy(), R.indptr.copy())
    for pretrain in (pretrain_factors, pretrain_one_class):
        direct = pretrain(R, 3, np.random.default_rng(0), n_iter=3)
        copied = pretrain(sp.coo_matrix(R), 3, np.random.default_rng(0), n_iter=3)  # the converting path
        for a, b in zip(direct, copied, strict=True):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(before, (R.data, R.indices, R.indptr), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_csr_or_csc_rating_matrix_with_a_pair_stored_twice_is_still_refused():
    """The duplicate scan is skipped for a matrix in scipy's canonical form only."""
    from ratkit.exceptions import DataFormatError

    data, indices, indptr = np.array([4.0, 5.0, 3.0]), np.array([1, 1, 0]), np.array([0, 2, 3])
    twice = sp.csr_matrix((data, indices, indptr), shape=(2, 3))
    assert not twice.has_canonical_format
    for matrix in (twice, sp.csc_matrix((data, indices, indptr), shape=(3, 2))):
        for model in (CCCF(1, 1, random_state=0), DCF(1, random_state=0)):
            with pytest.raises(DataFormatError, match="more than once"):
                model.fit(matrix)
    unsorted = sp.csr_matrix((np.array([4.0, 5.0, 3.0]), np.array([2, 0, 1]), np.array([0, 2, 3])), shape=(2, 3))
    from ratkit.recsys._validation import check_user_items

    checked = check_user_items(unsorted, ratings=True)  # unsorted but duplicate-free: accepted, sorted
    np.testing.assert_array_equal(checked.toarray(), [[5.0, 0.0, 4.0], [0.0, 3.0, 0.0]])


def test_balanced_orthogonal_into_out_is_the_same_matrix_and_refuses_an_overlap():
    from ratkit.exceptions import ParameterError
    from ratkit.recsys._balanced import balanced_orthogonal

    rng = np.random.default_rng(2)
    for B in (rng.choice(np.array([-1, 1], dtype=np.int8), (200, 9)), np.ones((40, 5), dtype=np.int8)):
        out = np.full(B.shape, np.nan)
        got = balanced_orthogonal(B, np.random.default_rng(1), out=out)
        assert got is out
        np.testing.assert_array_equal(out, balanced_orthogonal(B, np.random.default_rng(1)))
    X = rng.standard_normal((30, 4))
    with pytest.raises(ParameterError, match="share memory"):
        balanced_orthogonal(X, rng, out=X)
    with pytest.raises(ParameterError, match="C-contiguous float64"):
        balanced_orthogonal(X, rng, out=np.empty((4, 30)).T)


@pytest.mark.parametrize("feedback", ["explicit", "implicit"])
def test_the_fit_holds_no_per_entry_float_copies(feedback, monkeypatch):
    """numpy's traced allocations during a fit stay below 4× the rating matrix on a problem
    shaped like the issue's 10⁷ one (80 interactions a user), its chunks scaled down with it:
    the checked copy of the matrix (1×), the item-major view (⅔×), the predictions (⅔×), the
    codes' balance matrices X and Y. The array-holding fit of 8c9ac4d traced 4.5× (explicit:
    the duplicate check of the checked CSR matrix alone 4.7×)."""
    from ratkit.recsys import _entries
    from ratkit.recsys._code_oneclass import GramRows

    monkeypatch.setattr(_entries, "CHUNK", 2048)
    monkeypatch.setattr(GramRows, "ROWS", 256)
    rng = np.random.default_rng(7)
    m, n, nnz = 1500, 400, 120_000
    rows = np.repeat(np.arange(m), nnz // m)
    cols = np.concatenate([rng.choice(n, nnz // m, replace=False) for _ in range(m)])
    values = rng.integers(1, 6, nnz).astype(np.float64) if feedback == "explicit" else np.ones(nnz)
    R = sp.csr_matrix((values, (rows, cols)), shape=(m, n))
    matrix = R.data.nbytes + R.indices.nbytes + R.indptr.nbytes
    CCCF(feedback=feedback, max_iter=1, random_state=0).fit(R[:300])  # compile before measuring
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            CCCF(feedback=feedback, max_iter=2, tol=0.0, random_state=0).fit(R)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4.0 * matrix, f"traced peak {peak / matrix:.2f}× the matrix"


if __name__ == "__main__":  # write the expected fits with the ratkit on the path (see the docstring)
    Path(sys.argv[1]).write_text(json.dumps(_fits(), indent=None) + "\n", encoding="utf-8")
