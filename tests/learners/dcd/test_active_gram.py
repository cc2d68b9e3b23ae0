"""Cached inner products of the active rows: Q against the dense product y_a y_b x_aᵀx_b,
and runs that switch to the cache against runs that never do (the same steps)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from ratkit.learners import LinearDCDSVC
from ratkit.learners.dcd import active_gram as ag
from ratkit.learners.dcd._solver import solve
from ratkit.learners.dcd.epochs import epoch_indexed, inverse_diagonal
from ratkit.learners.dcd.rows import IndexedRows, csr_arrays


def _dense_q(X: sp.csr_matrix, bias: float, y: np.ndarray, members: np.ndarray) -> np.ndarray:
    Xb = X.toarray()
    if bias:
        Xb = np.hstack([np.full((X.shape[0], 1), bias), Xb])
    Xm = Xb[members]
    return (y[members, None] * y[None, members]) * (Xm @ Xm.T)


problems = st.tuples(
    st.integers(2, 30),  # rows
    st.integers(1, 15),  # columns
    st.floats(0.05, 0.9),  # density
    st.sampled_from([0.0, 1.0]),  # bias
    st.integers(0, 2**31 - 1),  # seed
)


@settings(max_examples=150, deadline=None)
@given(problems)
def test_active_gram_is_the_dense_product_and_newcomers_extend_it(args):
    n, p, density, bias, seed = args
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=density, format="csr", random_state=rng, data_rvs=lambda k: rng.normal(size=k))
    y = rng.choice([-1.0, 1.0], size=n)
    rows = IndexedRows.from_csr(*csr_arrays(X), p, bias)
    members = rng.permutation(n)[: rng.integers(1, n + 1)]
    expected = _dense_q(X, bias, y, members)
    scale = max(1.0, np.abs(expected).max())
    np.testing.assert_allclose(ag.active_gram(rows, members, y), expected, rtol=1e-6, atol=1e-6 * scale)
    # the first k rows built at once, the others added as newcomers
    m, k = members.shape[0], int(rng.integers(1, members.shape[0] + 1))
    Q = np.full((m + 3, m + 3), np.nan, dtype=np.float32)  # a cache larger than its rows
    df = ag._slot_counts(members, k, rows.indptr, rows.slots, rows.n_slots)
    ag._gram_rows(0, members, k, rows.indptr, rows.slots, rows.data, rows.sq_norms, y, df, Q)
    df = ag._slot_counts(members, m, rows.indptr, rows.slots, rows.n_slots)
    ag._gram_rows(k, members, m, rows.indptr, rows.slots, rows.data, rows.sq_norms, y, df, Q)
    np.testing.assert_allclose(Q[:m, :m], expected, rtol=1e-6, atol=1e-6 * scale)


def _problem(seed: int, n: int = 300, p: int = 400):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.03, format="csr", random_state=rng)
    w = rng.normal(size=p)
    y = np.where(X @ w + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _run(rows: IndexedRows, y: np.ndarray, C: float, capacity: int | None):
    qinv = inverse_diagonal(rows.sq_norms)
    alpha, w = np.zeros(y.shape[0]), np.zeros(rows.n_slots)
    if capacity is None:

        def epoch(act, size, hi, lo):
            return epoch_indexed(act, size, hi, lo, rows.indptr, rows.slots, rows.data, rows.own, y, qinv, C, alpha, w)

    else:
        epoch = ag.ActiveGramEpoch(rows, y, qinv, C, alpha, w, capacity)
    result = solve(epoch, y.shape[0], tol=1e-6, max_iter=5000, rng=np.random.RandomState(0))
    if capacity is not None:
        epoch.finish()
    return result, alpha, w, epoch


@pytest.fixture
def build_at_once(monkeypatch):
    """Make building Q and stepping on it free, so that the cache is built at the first
    shrunk pass."""
    for name in ("ENTRY_COST", "PAIR_COST", "STEP_CELL_COST"):
        monkeypatch.setattr(ag, name, 0.0)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("capacity", [40, 120, 300])
def test_a_run_on_the_cache_takes_the_steps_of_a_run_on_the_rows(build_at_once, seed, capacity):
    X, y = _problem(seed)
    rows = IndexedRows.from_csr(*csr_arrays(X), X.shape[1], 1.0)
    ref, alpha_ref, w_ref, _ = _run(rows, y, 10.0, None)
    res, alpha, w, epoch = _run(rows, y, 10.0, capacity)
    assert ref.converged and res.converged
    # float32 inner products steer the passes, the stopping rule is checked on exact
    # gradients: both runs end at the optimum to within the tolerance
    np.testing.assert_allclose(alpha, alpha_ref, atol=1e-4)
    # W′ = Σ α_i y_i x_i, brought up to date after the cached passes
    Xb = np.hstack([np.ones((X.shape[0], 1)), X.toarray()])
    dense = Xb.T @ (alpha * y)
    np.testing.assert_allclose(w[0], dense[0], atol=1e-9)
    np.testing.assert_allclose(rows.column_weights(w, alpha, y), dense[1:], atol=1e-9)
    assert epoch.Q is None  # finish() frees the cache
    if capacity == 300:
        assert epoch.builds >= 1


@pytest.mark.parametrize("seed", range(3))
def test_cache_built_extended_and_dropped_along_a_scripted_run(build_at_once, seed):
    """Passes over chosen coordinate sets (no shrinking), on the cache and on the rows:
    a set within capacity builds Q, newcomers extend it, a set that does not fit drops it."""
    X, y = _problem(seed, n=60, p=80)
    rows = IndexedRows.from_csr(*csr_arrays(X), X.shape[1], 1.0)
    qinv = inverse_diagonal(rows.sq_norms)
    alpha, w = np.zeros(60), np.zeros(rows.n_slots)
    alpha_ref, w_ref = np.zeros(60), np.zeros(rows.n_slots)
    epoch = ag.ActiveGramEpoch(rows, y, qinv, 1.0, alpha, w, capacity=30)
    order = np.random.default_rng(seed).permutation(60)
    script = [order, order, order[:20], order[:20], order[:26], order[:26], order[20:32], order[20:32], order]
    for coords in script:
        epoch(coords.copy(), coords.shape[0], np.inf, -np.inf)
        epoch_indexed(
            coords.copy(),
            coords.shape[0],
            np.inf,
            -np.inf,
            rows.indptr,
            rows.slots,
            rows.data,
            rows.own,
            y,
            qinv,
            1.0,
            alpha_ref,
            w_ref,
        )
        np.testing.assert_allclose(alpha, alpha_ref, atol=1e-5)
    epoch.finish()
    np.testing.assert_allclose(w, w_ref, atol=1e-5)
    assert (epoch.builds, epoch.extensions, epoch.drops) == (2, 1, 1)


def test_no_cache_without_room(build_at_once):
    X, y = _problem(0)
    rows = IndexedRows.from_csr(*csr_arrays(X), X.shape[1], 1.0)
    *_, epoch = _run(rows, y, 10.0, 0)
    assert epoch.builds == 0


def test_no_cache_when_a_pass_on_it_would_not_pay(monkeypatch):
    """Many short active rows (3 entries each, ~100 active): a step on the cache (one
    multiply-add per cached row) would cost more than one on the rows, so even a free
    build is declined, and the run is the run without the cache, bit for bit."""
    for name in ("ENTRY_COST", "PAIR_COST"):
        monkeypatch.setattr(ag, name, 0.0)
    X, y = _problem(0, n=300, p=100)
    rows = IndexedRows.from_csr(*csr_arrays(X), X.shape[1], 1.0)
    assert not ag.pays_per_pass(100, float(np.diff(rows.indptr).mean()))
    ref, alpha_ref, w_ref, _ = _run(rows, y, 10.0, 0)
    res, alpha, w, epoch = _run(rows, y, 10.0, 300)
    assert epoch.builds == 0
    assert res.n_iter == ref.n_iter
    np.testing.assert_array_equal(alpha, alpha_ref)
    np.testing.assert_array_equal(w, w_ref)
    monkeypatch.setattr(ag, "STEP_CELL_COST", 0.0)  # the same run with free steps on the cache builds it
    assert _run(rows, y, 10.0, 300)[3].builds >= 1


def test_pays_per_pass_threshold():
    # at the build: ModApte 7-grams (m 1 830, active rows of 605 entries on average) and
    # 300-character windows, 5-grams, n = 10⁴ (m 2 033, 259 entries): pays; the windows at
    # n = 2·10⁴ (m 3 155, 265 entries) and 4·10⁴ (m 4 670, 268): does not
    assert ag.pays_per_pass(1830, 605.0)
    assert ag.pays_per_pass(2033, 259.0)
    assert not ag.pays_per_pass(3155, 265.0)
    assert not ag.pays_per_pass(4670, 268.0)
    assert ag.pays_per_pass(0, 1.0)


def test_cache_capacity_from_megabytes():
    assert ag.cache_capacity(200.0, 10**6) == int(np.sqrt(200 * 2**20 / 4))
    assert ag.cache_capacity(200.0, 50) == 50
    assert ag.cache_capacity(1e-9, 50) == 0


@pytest.mark.parametrize("seed", range(2))
def test_linear_dcd_with_and_without_the_cache(build_at_once, seed):
    X, y = _problem(seed, n=400, p=300)
    kw = dict(C=5.0, tol=1e-6, max_iter=5000, random_state=0)
    with_cache = LinearDCDSVC(**kw).fit(X, y)
    without = LinearDCDSVC(cache_size=1e-9, **kw).fit(X, y)
    np.testing.assert_allclose(with_cache.alpha_, without.alpha_, atol=1e-4)
    np.testing.assert_allclose(with_cache.coef_, without.coef_, atol=1e-3)
    # and the model is w = Σ α_i y_i x_i of its own α
    yy = np.where(y > 0, 1.0, -1.0)
    np.testing.assert_allclose(with_cache.coef_[0], X.T @ (with_cache.alpha_[0] * yy), atol=1e-9)


def test_cache_size_must_be_positive():
    X, y = _problem(0, n=20, p=10)
    with pytest.raises(ValueError, match=r"'cache_size' parameter of LinearDCDSVC must be a float > 0"):
        LinearDCDSVC(cache_size=0.0).fit(X, y)


class _ScriptedEpoch:
    """Never converges (gap 1); keeps 10 of the n coordinates after every pass."""

    def __init__(self, visit_cost: float) -> None:
        self.visit_cost, self.sizes = visit_cost, []

    def __call__(self, active, size, max_old, min_old):
        self.sizes.append(size)
        return 1.0, 0.0, min(size, 10)


@pytest.mark.parametrize(("visit_cost", "full_passes"), [(1.0, 6), (0.25, 2)])
def test_unshrink_counts_the_work_of_shrunk_passes_by_visit_cost(visit_cost, full_passes):
    """UNSHRINK_WORK · n visits' worth of work between full passes: 50 passes of 10 cheap
    visits at cost 1 (n = 100), 200 at cost 0.25."""
    from ratkit.learners.dcd._solver import UNSHRINK_WORK

    assert UNSHRINK_WORK == 5
    epoch = _ScriptedEpoch(visit_cost)
    with pytest.warns(ConvergenceWarning):
        solve(epoch, 100, tol=1e-3, max_iter=300, rng=np.random.RandomState(0))
    full = [k for k, s in enumerate(epoch.sizes) if s == 100]
    assert len(full) == full_passes
    assert np.diff(full).tolist() == [int(50 / visit_cost) + 1] * (full_passes - 1)
