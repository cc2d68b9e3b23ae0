"""LinearDCDSVC (Algorithm 3) against LIBLINEAR's optimum and the KKT conditions."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from ratkit.exceptions import NotFittedError, TrainingDataError
from ratkit.learners import LinearDCDSVC
from ratkit.plugins import get


def _problem(seed: int, n: int = 120, p: int = 40, density: float = 0.15):
    rng = np.random.RandomState(seed)
    X = sp.random(n, p, density=density, random_state=rng, format="csr", data_rvs=rng.randn)
    y = np.sign(X @ rng.randn(p) + 0.3 * rng.randn(n))
    y[y == 0] = 1
    return X, y


def _primal(w, b, X, y, C):
    """½(‖w‖² + b²) + C Σ max(0, 1 − y(wᵀx + b)): LIBLINEAR's objective with a regularised bias."""
    margins = y * (np.asarray(X @ w).ravel() + b)
    return 0.5 * (w @ w + b * b) + C * np.maximum(0.0, 1.0 - margins).sum()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("shrinking", [True, False])
def test_reaches_liblinear_optimum(seed, C, shrinking):
    X, y = _problem(seed)
    ref = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-10, max_iter=200_000).fit(X, y)
    ours = LinearDCDSVC(
        C=C, fit_intercept=False, tol=1e-8, max_iter=100_000, shrinking=shrinking, random_state=seed
    ).fit(X, y)
    p_ref = _primal(ref.coef_.ravel(), 0.0, X, y, C)
    p_ours = _primal(ours.coef_.ravel(), 0.0, X, y, C)
    assert abs(p_ours - p_ref) <= 1e-4 * p_ref


@pytest.mark.parametrize("seed", range(3))
def test_bias_by_augmentation_matches_liblinear(seed):
    X, y = _problem(seed + 10)
    kw = dict(C=1.0, intercept_scaling=2.0)
    ref = LinearSVC(loss="hinge", dual=True, tol=1e-10, max_iter=200_000, **kw).fit(X, y)
    ours = LinearDCDSVC(tol=1e-8, max_iter=100_000, random_state=0, **kw).fit(X, y)
    # both regularise b/s: w_aug = [w, b/s]
    p_ref = _primal(ref.coef_.ravel(), ref.intercept_[0] / 2.0, X * 1.0, y, 1.0)
    margins = lambda w, b: y * (np.asarray(X @ w).ravel() + b)  # noqa: E731
    obj = lambda w, b: 0.5 * (w @ w + (b / 2.0) ** 2) + np.maximum(0, 1 - margins(w, b)).sum()  # noqa: E731
    assert abs(obj(ours.coef_.ravel(), ours.intercept_[0]) - obj(ref.coef_.ravel(), ref.intercept_[0])) <= 1e-4 * p_ref


@pytest.mark.parametrize("seed", range(3))
def test_optimum_satisfies_kkt_and_closes_the_duality_gap(seed):
    X, y = _problem(seed + 20)
    C = 1.0
    m = LinearDCDSVC(C=C, fit_intercept=False, tol=1e-9, max_iter=100_000, shrinking=seed == 0, random_state=seed).fit(
        X, y
    )
    a = m.alpha_[0]
    w = m.coef_[0]
    assert np.all(a >= 0) and np.all(a <= C)
    # w = Σ α_i y_i x_i, recomputed here
    np.testing.assert_allclose(w, X.T @ (a * y), atol=1e-10)
    margin = y * (X @ w)
    eps = 1e-6
    assert np.all(margin[a <= 0] >= 1 - eps)
    inner = (a > 0) & (a < C)
    assert np.all(np.abs(margin[inner] - 1) <= eps)
    assert np.all(margin[a >= C] <= 1 + eps)
    primal = 0.5 * w @ w + C * np.maximum(0, 1 - margin).sum()
    dual = a.sum() - 0.5 * w @ w
    assert primal - dual <= 1e-6 * primal


def test_zero_sample_goes_to_C():
    """Q_ii = 0 (§V-A): the gradient is −1 forever, so α_i = C at the optimum."""
    X, y = _problem(3, n=30)
    X = X.tolil()
    X[5, :] = 0
    X[6, :] = 0
    y[6] = -y[5]
    for C in (0.5, 3.0):
        m = LinearDCDSVC(C=C, fit_intercept=False, tol=1e-8, random_state=0).fit(X.tocsr(), y)
        assert m.alpha_[0, 5] == C and m.alpha_[0, 6] == C


def test_dense_and_sparse_inputs_give_the_same_alpha():
    X, y = _problem(5)
    a = LinearDCDSVC(random_state=1, shrinking=False).fit(X, y).alpha_
    b = LinearDCDSVC(random_state=1, shrinking=False).fit(X.toarray(), y).alpha_
    np.testing.assert_allclose(a, b, atol=1e-12)


def test_permutation_seed_changes_the_path_not_the_optimum():
    X, y = _problem(6)
    objs = []
    for seed in range(3):
        m = LinearDCDSVC(fit_intercept=False, tol=1e-9, max_iter=100_000, random_state=seed).fit(X, y)
        objs.append(_primal(m.coef_[0], 0.0, X, y, 1.0))
    assert max(objs) - min(objs) <= 1e-6 * min(objs)


def test_one_vs_rest_matches_liblinear_per_class():
    rng = np.random.RandomState(0)
    X = rng.randn(150, 5)
    y = np.argmax(X[:, :3] + 0.3 * rng.randn(150, 3), axis=1).astype(str)
    ref = LinearSVC(loss="hinge", dual=True, fit_intercept=False, tol=1e-10, max_iter=200_000).fit(X, y)
    m = LinearDCDSVC(fit_intercept=False, tol=1e-8, max_iter=100_000, random_state=0).fit(X, y)
    assert list(m.classes_) == ["0", "1", "2"] and m.alpha_.shape == (3, 150)
    for c in range(3):
        yc = np.where(y == m.classes_[c], 1.0, -1.0)
        p_ref, p_ours = _primal(ref.coef_[c], 0, X, yc, 1.0), _primal(m.coef_[c], 0, X, yc, 1.0)
        assert abs(p_ours - p_ref) <= 1e-4 * p_ref
    assert (m.predict(X) == ref.predict(X)).mean() >= 0.98


def test_convergence_is_reported():
    X, y = _problem(7)
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=1 passes"):
        m = LinearDCDSVC(max_iter=1, random_state=0).fit(X, y)
    assert m.n_iter_ == 1 and not m.converged_
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = LinearDCDSVC(random_state=0).fit(X, y)
    assert m.converged_ and 1 <= m.n_iter_ < 1000


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C": 0}, r"The 'C' parameter of LinearDCDSVC must be a float > 0. Got 0 instead"),
        ({"C": "big"}, r"'C' parameter .* Got 'big' instead"),
        ({"tol": -1.0}, r"The 'tol' parameter of LinearDCDSVC must be a float > 0"),
        ({"max_iter": 0}, r"The 'max_iter' parameter of LinearDCDSVC must be an int ≥ 1. Got 0"),
        (
            {"intercept_scaling": 0.0},
            r"'intercept_scaling' parameter of LinearDCDSVC must be a float > 0",
        ),
    ],
)
def test_bad_parameters(params, match):
    X, y = _problem(0, n=10)
    with pytest.raises(ValueError, match=match):
        LinearDCDSVC(**params).fit(X, y)


def test_bad_data():
    X, y = _problem(0, n=10)
    with pytest.raises(TrainingDataError, match=r"at least two classes; got one class only \(1.0\)"):
        LinearDCDSVC().fit(X, np.ones(10))
    with pytest.raises(TrainingDataError, match="X has 10 samples but y has 9 labels"):
        LinearDCDSVC().fit(X, y[:9])
    with pytest.raises(NotFittedError, match="not fitted yet. Call 'fit'"):
        LinearDCDSVC().predict(X)


def test_registered_as_plugin():
    assert get("learner", "linear-dcd") is LinearDCDSVC


def _degenerate_counts(seed: int):
    """Weighted pattern counts of short strings: duplicated rows, rank-deficient Q."""
    rng = random.Random(seed)
    seqs = ["".join(rng.choice("ab") for _ in range(rng.randint(2, 6))) for _ in range(24)]
    pats = ["a", "b", "ab", "ba", "aa", "bb", "aba"]
    X = np.array([[sum(s[i : i + len(p)] == p for i in range(len(s))) for p in pats] for s in seqs], float)
    r = np.random.RandomState(seed)
    mu = r.uniform(0, 3, 7)
    mu[r.choice(7, 2, replace=False)] = 0
    y = np.array([1 if s.count("ab") >= s.count("ba") else -1 for s in seqs])
    return X * np.sqrt(mu), y


@pytest.mark.parametrize("data_seed", [17, 3, 5])
@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_shrinking_does_not_stall_on_degenerate_problems(data_seed, random_state):
    """A shrunk coordinate can come to violate its condition while the active ones stall
    above a tight tol; shrinking must still converge about as fast as plain DCD (without
    the periodic visits of shrunk coordinates, seeds 17 and 2 take 29× the passes)."""
    X, y = _degenerate_counts(data_seed)
    kw = dict(C=1.0, fit_intercept=False, tol=1e-8, max_iter=40_000, random_state=random_state)
    plain = LinearDCDSVC(shrinking=False, **kw).fit(X, y)
    shrunk = LinearDCDSVC(shrinking=True, **kw).fit(X, y)
    assert plain.converged_ and shrunk.converged_
    assert shrunk.n_iter_ <= 1.5 * plain.n_iter_
    w, a = shrunk.coef_[0], shrunk.alpha_[0]
    primal = 0.5 * w @ w + np.maximum(0, 1 - y * (X @ w)).sum()
    assert primal - (a.sum() - 0.5 * w @ w) <= 1e-6 * primal


def test_fit_never_rewrites_the_callers_sparse_matrix():
    """A CSR matrix with duplicate entries (not canonical) is summed on a copy; before, fit
    summed the duplicates in the caller's own arrays."""
    data, indices, indptr = (
        np.array([1.0, 2.0, 3.0, 1.0, 0.5, 0.5]),
        np.array([1, 1, 0, 2, 0, 0]),
        np.array([0, 2, 3, 4, 6]),
    )
    X = sp.csr_matrix((data.copy(), indices.copy(), indptr.copy()), shape=(4, 3))
    m = LinearDCDSVC(random_state=0).fit(X, [0, 1, 0, 1])
    assert not X.has_canonical_format
    np.testing.assert_array_equal(X.data, data)
    np.testing.assert_array_equal(X.indices, indices)
    ref = LinearDCDSVC(random_state=0).fit(X.toarray(), [0, 1, 0, 1])  # the duplicates add up
    np.testing.assert_allclose(m.coef_, ref.coef_, atol=1e-12)
