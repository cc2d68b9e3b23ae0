"""cocoa.active_rows, rows_on_columns and finish: the active-set finish of a distributed fit,
against brute force and scikit-learn's LinearSVC (LIBLINEAR) on the same rows."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

from ratkit.exceptions import ParameterError
from ratkit.learners.dcd import primal_objective
from ratkit.learners.dcd.cocoa import active_rows, finish, local_rows, rows_on_columns


def problem(n: int = 300, d: int = 60, seed: int = 0) -> tuple[sp.csr_matrix, np.ndarray]:
    """Sparse rows on d columns, labels from a planted w with 5 % flipped."""
    rng = np.random.RandomState(seed)
    X = sp.random(n, d, density=0.15, random_state=rng, format="csr") + sp.eye(n, d, format="csr")
    y = np.sign(X @ rng.normal(size=d) + 0.05)
    y[rng.rand(n) < 0.05] *= -1
    return sp.csr_matrix(X), np.where(y > 0, 1.0, -1.0)


def test_active_rows_are_the_rows_with_alpha_or_a_small_margin():
    X, y = problem()
    rng = np.random.RandomState(1)
    alpha = rng.uniform(0, 1, X.shape[0]) * (rng.rand(X.shape[0]) < 0.2)
    w = rng.normal(scale=0.5, size=X.shape[1])
    rows = local_rows(X[50:200])
    got = active_rows(rows, y[50:200], alpha[50:200], w[rows.cols], margin=0.1)
    expected = [
        i for i in range(150) if alpha[50 + i] > 0 or y[50 + i] * float((X[50 + i].toarray() @ w)[0]) < 1.1
    ]  # brute force, row by row on the dense rows
    assert got.tolist() == expected
    assert 0 < len(expected) < 150
    with pytest.raises(ParameterError, match="margin"):
        active_rows(rows, y[50:200], alpha[50:200], w[rows.cols], margin=-1)


def test_rows_on_columns_are_the_partitions_rows_on_the_global_columns():
    X, _ = problem()
    part = X[100:180]
    rows = local_rows(part)  # renumbers the columns it uses
    index = np.array([0, 3, 4, 40, 79])
    got = rows_on_columns(rows, index, X.shape[1])
    assert got.shape == (5, X.shape[1]) and got.indices.dtype == np.int32
    np.testing.assert_array_equal(got.toarray(), part[index].toarray())


@pytest.mark.parametrize("C", [0.1, 1.0])
def test_finish_from_zero_reaches_liblinears_optimum_with_a_true_certificate(C):
    X, y = problem(seed=2)
    res = finish(
        X, y, np.zeros(X.shape[0]), np.zeros(X.shape[1]), C, 1e-6, rng=np.random.RandomState(0), max_passes=5000
    )
    assert res.converged and res.relative_gap <= 1e-6
    alpha = res.delta_alpha
    w = np.zeros(X.shape[1])
    w[res.cols] = res.delta_w
    np.testing.assert_allclose(w, X.T @ (alpha * y), atol=1e-10)  # w = w(α)
    assert np.all((alpha >= 0) & (alpha <= C))
    # the reported gap, recomputed here
    dual = alpha.sum() - 0.5 * w @ w
    assert (primal_objective(w, X, y, C) - dual) / dual == pytest.approx(res.relative_gap, rel=1e-6, abs=1e-12)
    # independent: LIBLINEAR's L1-loss dual solver on the same rows
    ref = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-10, max_iter=200_000).fit(X, y)
    p_ref = primal_objective(ref.coef_.ravel(), X, y, C)
    assert primal_objective(w, X, y, C) == pytest.approx(p_ref, rel=1e-5)


def test_finish_from_a_warm_start_of_some_rows_keeps_w_exact():
    """A finish starts where rounds left α (the rows outside it at α = 0): it only improves D,
    and its Δw is AΔα on its rows."""
    X, y = problem(seed=4)
    C = 0.5
    rng = np.random.RandomState(5)
    rows = np.sort(rng.choice(X.shape[0], 120, replace=False))
    alpha = np.zeros(X.shape[0])
    alpha[rows] = rng.uniform(0, C, rows.shape[0])
    w = X.T @ (alpha * y)
    res = finish(X[rows], y[rows], alpha[rows], w, C, 1e-4, rng=np.random.RandomState(0), max_passes=5000)
    new = alpha.copy()
    new[rows] += res.delta_alpha
    w_new = w.copy()
    w_new[res.cols] += res.delta_w
    np.testing.assert_allclose(w_new, X.T @ (new * y), atol=1e-10)
    assert new.sum() - 0.5 * w_new @ w_new > alpha.sum() - 0.5 * w @ w
    # the rows' own problem is solved: its certificate recomputed on those rows alone
    sub_dual = new[rows].sum() - 0.5 * w_new @ w_new
    sub_gap = primal_objective(w_new, X[rows], y[rows], C) - sub_dual
    assert 0 <= sub_gap <= 1e-4 * sub_dual


def test_finish_stops_at_max_passes_unconverged():
    X, y = problem(seed=6)
    res = finish(
        X, y, np.zeros(X.shape[0]), np.zeros(X.shape[1]), 1.0, 1e-12, rng=np.random.RandomState(0), max_passes=2
    )
    assert not res.converged and res.relative_gap > 1e-12
    assert res.visits <= 2 * X.shape[0]
