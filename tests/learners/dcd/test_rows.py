"""IndexedRows: one-row features folded into a diagonal, shared ones hot-first — checked
against the dense products w = Xᵀ(α∘y) and X w that the layout must reproduce."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.learners.dcd.epochs import epoch_indexed
from ratkit.learners.dcd.rows import IndexedRows, csr_arrays, csr_own_arrays

problems = st.tuples(
    st.integers(1, 9),  # rows
    st.integers(1, 12),  # columns
    st.floats(0.05, 0.9),  # density
    st.sampled_from([0.0, 1.0, 2.5]),  # bias
    st.integers(0, 2**31 - 1),  # seed
)


def _problem(n, p, density, seed):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=density, format="csr", random_state=rng, data_rvs=lambda k: rng.normal(size=k))
    alpha = rng.uniform(0.0, 2.0, size=n)
    y = rng.choice([-1.0, 1.0], size=n)
    return X, alpha, y


@settings(max_examples=200, deadline=None)
@given(problems)
def test_gradients_and_weights_match_the_dense_products(args):
    n, p, density, bias, seed = args
    X, alpha, y = _problem(n, p, density, seed)
    rows = IndexedRows.from_csr(*csr_arrays(X), p, bias)
    Xb = np.hstack([np.full((n, 1), bias), X.toarray()]) if bias else X.toarray()
    w_dense = Xb.T @ (alpha * y)
    # the shared weights, accumulated from the layout alone
    w = np.zeros(rows.n_slots)
    for i in range(n):
        sl = slice(rows.indptr[i], rows.indptr[i + 1])
        np.add.at(w, rows.slots[sl], alpha[i] * y[i] * rows.data[sl])
    grads = np.array(
        [
            y[i] * w[rows.slots[rows.indptr[i] : rows.indptr[i + 1]]] @ rows.data[rows.indptr[i] : rows.indptr[i + 1]]
            + alpha[i] * rows.own[i]
            for i in range(n)
        ]
    )
    np.testing.assert_allclose(grads, y * (Xb @ w_dense), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rows.sq_norms, (Xb**2).sum(axis=1), rtol=1e-12, atol=1e-12)
    coef = rows.column_weights(w, alpha, y)
    np.testing.assert_allclose(coef, w_dense[1:] if bias else w_dense, rtol=1e-12, atol=1e-12)
    if bias:
        assert np.isclose(w[0] * bias, w_dense[0] * bias)


def test_slots_go_to_shared_columns_by_decreasing_frequency():
    # column document frequencies: 0 → 3, 1 → 1, 2 → 2, 3 → 3, 4 → 0
    X = sp.csr_matrix(
        np.array(
            [
                [1.0, 0.0, 1.0, 1.0, 0.0],
                [1.0, 2.0, 0.0, 1.0, 0.0],
                [1.0, 0.0, 3.0, 1.0, 0.0],
            ]
        )
    )
    rows = IndexedRows.from_csr(*csr_arrays(X), 5, 1.0)
    np.testing.assert_array_equal(rows.col_slot, [1, -1, 3, 2, -1])  # slot 0 is the bias
    assert rows.n_slots == 4
    np.testing.assert_allclose(rows.own, [0.0, 4.0, 0.0])
    np.testing.assert_array_equal(rows.own_rows, [1])
    np.testing.assert_array_equal(rows.own_cols, [1])


def test_an_epoch_on_the_layout_takes_the_steps_of_plain_algorithm_3():
    rng = np.random.default_rng(3)
    X = sp.random(40, 60, density=0.08, format="csr", random_state=rng)
    y = rng.choice([-1.0, 1.0], size=40)
    qinv = 1.0 / (np.asarray(X.multiply(X).sum(axis=1)).ravel() + 1.0)
    order = rng.permutation(40)
    plain = IndexedRows.from_csr(*csr_arrays(X), 60, 1.0)
    assert plain.own.any() and (plain.col_slot >= 0).any()  # both kinds of column occur
    alpha = np.zeros(40)
    w = np.zeros(plain.n_slots)
    for _ in range(5):
        epoch_indexed(
            order.copy(), 40, np.inf, -np.inf, plain.indptr, plain.slots, plain.data, plain.own, y, qinv, 1.0, alpha, w
        )
    # the same passes on rows that keep every column in w (no folding)
    Xb = sp.hstack([np.ones((40, 1)), X], format="csr")
    indptr, idx, data = csr_arrays(Xb)
    alpha_ref, w_ref = np.zeros(40), np.zeros(61)
    for _ in range(5):
        epoch_indexed(
            order.copy(), 40, np.inf, -np.inf, indptr, idx, data, np.zeros(40), y, qinv, 1.0, alpha_ref, w_ref
        )
    np.testing.assert_allclose(alpha, alpha_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(plain.column_weights(w, alpha, y), w_ref[1:], rtol=1e-10, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(problems)
def test_int32_indices_give_the_layout_of_int64_ones(args):
    """A scipy matrix's own int32 indptr/indices (csr_own_arrays, what the trie route hands
    over since issue 37) lay out the same rows as csr_arrays' int64 copies."""
    n, p, density, bias, seed = args
    X, _, _ = _problem(n, p, density, seed)
    indptr, cols, data = csr_own_arrays(X)
    assert indptr.dtype == np.int32 and cols.dtype == np.int32
    if X.nnz and X.has_canonical_format:  # no copy
        assert np.shares_memory(cols, X.indices) and np.shares_memory(data, X.data)
    narrow = IndexedRows.from_csr(indptr, cols, data, p, bias)
    wide = IndexedRows.from_csr(*csr_arrays(X), p, bias)
    assert narrow.n_slots == wide.n_slots
    for name in ("indptr", "slots", "data", "own", "sq_norms", "col_slot", "own_rows", "own_cols", "own_vals"):
        a, b = getattr(narrow, name), getattr(wide, name)
        assert a.shape == b.shape, name
        assert np.array_equal(a, b), name
    alpha = np.random.default_rng(seed).uniform(0.0, 2.0, size=n)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    w = np.random.default_rng(seed + 1).normal(size=wide.n_slots)
    assert np.array_equal(narrow.column_weights(w, alpha, y), wide.column_weights(w, alpha, y))


def test_csr_own_arrays_canonicalises_a_copy():
    X = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 1]), np.array([0, 2])), shape=(1, 3))
    indptr, cols, data = csr_own_arrays(X)
    np.testing.assert_array_equal(cols, [1])
    np.testing.assert_array_equal(data, [3.0])
    np.testing.assert_array_equal(X.data, [1.0, 2.0])  # the input as it was
