"""IndexedRows: one-row features folded into a diagonal, shared ones hot-first — checked
against the dense products w = Xᵀ(α∘y) and X w that the layout must reproduce."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.learners.dcd.epochs import epoch_indexed
from ratkit.learners.dcd.rows import IndexedRows, csr_arrays

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
