"""CCCF and DCF (issue 17): the bitwise DCD against numpy oracles, the whole model against
its objective, DCF as CCCF's one-component case, the packed path, bad input, the contract."""

from __future__ import annotations

import inspect
import itertools
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from ratkit.exceptions import DataFormatError, ParameterError
from ratkit.recsys import CCCF, DCF
from ratkit.recsys import cccf as cccf_module
from ratkit.recsys._code_dcd import predictions, sweep_bits, update_codes
from ratkit.recsys._code_fit import Problem as _Problem
from ratkit.recsys._code_fit import Settings as _Settings
from ratkit.recsys._code_fit import item_major as _item_major

# -- the bit sweep ---------------------------------------------------------------------------------


def _f(A: np.ndarray, c: np.ndarray, b: np.ndarray) -> float:
    return float(b @ A @ b - 2 * c @ b)


@pytest.mark.parametrize("r", [1, 2, 5, 8, 12])
def test_a_sweep_never_increases_the_row_objective_and_ends_at_a_flip_minimum(r):
    rng = np.random.default_rng(r)
    for _ in range(50):
        M = rng.standard_normal((r, r + 3))
        A, c = M @ M.T, rng.standard_normal(r) * 3
        b = rng.choice(np.array([-1, 1], dtype=np.int8), r)
        before = _f(A, c, b.astype(float))
        for _ in range(6):
            prev = _f(A, c, b.astype(float))
            sweep_bits(A, c, b, 1)
            assert _f(A, c, b.astype(float)) <= prev + 1e-9
        assert _f(A, c, b.astype(float)) <= before + 1e-9
        passes = sweep_bits(A, c, b, 100)
        assert passes >= 1
        # converged: no single flip lowers f (brute force over the r neighbours)
        here = _f(A, c, b.astype(float))
        for q in range(r):
            other = b.astype(float).copy()
            other[q] = -other[q]
            assert _f(A, c, other) >= here - 1e-9


def test_a_zero_coefficient_keeps_the_bit():
    A = np.eye(2)
    b = np.array([-1, 1], dtype=np.int8)
    sweep_bits(A, np.zeros(2), b, 3)  # b̂ = c − Σ_{p≠q} A_qp b_p = 0 for both bits
    assert b.tolist() == [-1, 1]


# -- one component's update against a numpy oracle ----------------------------------------------------


def _random_problem(seed: int, m: int = 12, n: int = 9, G: int = 3, r: int = 5, density: float = 0.5):
    rng = np.random.default_rng(seed)
    R = sp.random(m, n, density=density, random_state=seed, format="csr", data_rvs=lambda k: rng.integers(1, 6, k))
    R.sort_indices()
    target = rng.standard_normal(R.nnz)
    B = rng.choice(np.array([-1, 1], dtype=np.int8), (G, m, r))
    D = rng.choice(np.array([-1, 1], dtype=np.int8), (G, n, r))
    eta = rng.random((m, G)) * (rng.random((m, G)) < 0.7)
    xi = rng.random((n, G)) * (rng.random((n, G)) < 0.7)
    X, Y = rng.standard_normal((G, m, r)), rng.standard_normal((G, n, r))
    return R, target, B, D, eta, xi, X, Y


def _dense_prediction(B, D, eta, xi) -> np.ndarray:
    return sum(np.outer(eta[:, k], xi[:, k]) * (B[k].astype(float) @ D[k].astype(float).T) for k in range(len(B)))


def _user_objective(R, target, B, D, eta, xi, X, alpha, k, i) -> float:
    """f_i(b_i^(k)) = Σ_j (r_ij − r̂_ij)² − 2α x_iᵀ b_i^(k), from dense matrices."""
    P = _dense_prediction(B, D, eta, xi)
    lo, hi = R.indptr[i], R.indptr[i + 1]
    cols = R.indices[lo:hi]
    return float(np.sum((target[lo:hi] - P[i, cols]) ** 2) - 2 * alpha * X[k, i] @ B[k, i])


@pytest.mark.parametrize("seed", range(4))
def test_the_user_update_lowers_every_users_objective_and_keeps_predictions(seed):
    R, target, B, D, eta, xi, X, _ = _random_problem(seed)
    alpha = 0.3
    pred = predictions(R.indptr, R.indices, B, D, eta, xi)
    np.testing.assert_allclose(pred, _dense_prediction(B, D, eta, xi)[R.nonzero()], rtol=1e-12)
    for k in range(B.shape[0]):
        before = [_user_objective(R, target, B, D, eta, xi, X, alpha, k, i) for i in range(R.shape[0])]
        update_codes(k, R.indptr, R.indices, np.arange(R.nnz), B, D, eta, xi, X, alpha, target, pred, 5)
        after = [_user_objective(R, target, B, D, eta, xi, X, alpha, k, i) for i in range(R.shape[0])]
        assert all(a <= b + 1e-9 for a, b in zip(after, before, strict=True))
        np.testing.assert_allclose(pred, _dense_prediction(B, D, eta, xi)[R.nonzero()], rtol=1e-10, atol=1e-12)


def test_the_item_update_works_through_the_item_major_order():
    R, target, B, D, eta, xi, _, Y = _random_problem(7)
    pred = predictions(R.indptr, R.indices, B, D, eta, xi)
    ptr, users, pos = _item_major(R)
    C = R.tocsc()
    C.sort_indices()
    np.testing.assert_array_equal(ptr, C.indptr)
    np.testing.assert_array_equal(users, C.indices)
    np.testing.assert_array_equal(R.data[pos], C.data)
    total = lambda: float(np.sum((target - pred) ** 2) - 2 * 0.2 * np.sum(Y * D))  # noqa: E731
    for k in range(D.shape[0]):
        before = total()
        update_codes(k, ptr, users, pos, D, B, xi, eta, Y, 0.2, target, pred, 5)
        assert total() <= before + 1e-9
        np.testing.assert_allclose(pred, _dense_prediction(B, D, eta, xi)[R.nonzero()], rtol=1e-10, atol=1e-12)


# -- the model ---------------------------------------------------------------------------------------


def _ratings(seed: int = 0, m: int = 40, n: int = 30, density: float = 0.3) -> sp.csr_matrix:
    """Ratings 1–5 from a planted low-rank taste model, on a random pattern."""
    rng = np.random.default_rng(seed)
    P, Q = rng.standard_normal((m, 2)), rng.standard_normal((n, 2))
    mask = rng.random((m, n)) < density
    mask[np.arange(m), rng.integers(0, n, m)] = True
    scores = P @ Q.T
    ratings = np.clip(np.round(3 + 1.2 * scores), 1, 5)
    return sp.csr_matrix(np.where(mask, ratings, 0.0))


def test_the_objective_never_increases_after_the_initialisation():
    R = _ratings()
    for model in (CCCF(4, 6, bandwidth=1.0, random_state=0, max_iter=8, tol=0.0), DCF(6, random_state=0, tol=0.0)):
        h = model.fit(R).objective_history_
        assert len(h) >= 2
        assert np.all(np.diff(h[1:]) <= 1e-9 * h[1]), h


@pytest.mark.parametrize(("G", "r", "h"), [(3, 6, 1.5), (4, 5, 2.0), (2, 7, 0.6)])
def test_the_identical_start_is_the_best_fit_of_the_weights_alone(G, r, h):
    """init="identical": one code for every user and one for every item, so r̂_ij = v·m_ij with
    m_ij = Σ_k η_ik ξ_jk and v = ⟨b, d⟩ ∈ {−r, −r + 2, …, r}. Oracle: the loss of every such v
    by brute force, the least taken; the penalties are exact because identical rows are
    orthogonal to any balanced X (1ᵀX = 0): ‖B − X‖² = ‖B‖² + ‖X‖² = 2mr per component. X is
    then already optimal for B, so the objective never increases from the start on."""
    R = _ratings(4)
    m, n = R.shape
    alpha_user, alpha_item = 0.01, 0.02
    model = CCCF(G, r, bandwidth=h, init="identical", alpha_user=alpha_user, alpha_item=alpha_item, random_state=0)
    history = model.set_params(max_iter=6, tol=0.0).fit(R).objective_history_
    rows, cols = np.repeat(np.arange(m), np.diff(R.indptr)), R.indices
    mass = np.sum(model.weights_user_[rows] * model.weights_item_[cols], axis=1)
    lo, hi = R.data.min(), R.data.max()
    target = (2 * r * (R.data - lo) / (hi - lo) - r) * mass.mean()
    best = min(float(np.sum((target - v * mass) ** 2)) for v in range(-r, r + 1, 2))
    penalty = 2 * G * r * (alpha_user * m + alpha_item * n)
    assert history[0] == pytest.approx(best + penalty, rel=1e-12)
    assert np.all(np.diff(history) <= 1e-9 * history[0]), history
    assert history[-1] < history[0]  # the codes learn from the start


@pytest.mark.parametrize("r", [5, 6, 7])
def test_the_identical_start_when_no_observed_pair_shares_a_component(r):
    """Σ_k η_ik ξ_jk = 0 on every rated pair (users on component 0, items on component 1): the
    least-squares scale is taken as 0, so ⟨b, d⟩ is a value of {−r, −r + 2, …, r} nearest 0
    (|⟨b, d⟩| = r mod 2), every user's code is all +1 and every item's the same code."""
    R = _ratings(5)
    R.sort_indices()
    m, n = R.shape
    eta, xi = np.zeros((m, 2)), np.zeros((n, 2))
    eta[:, 0] = 1.0
    xi[:, 1] = 1.0
    settings = _Settings(2, r, 0.0, 0.0, 1, 0.0, 1, "identical", 1, None, False)
    problem = _Problem(R.indptr, R.indices, *_item_major(R), np.linspace(-1, 1, R.nnz), eta, xi, settings)
    B, D = problem.identical_codes()
    assert B.shape == (2, m, r) and D.shape == (2, n, r)
    assert (B == 1).all()
    assert (D == D[0, 0]).all()
    assert abs(int(D[0, 0].astype(int).sum())) == r % 2  # ⟨(1, …, 1), d⟩ nearest 0


def test_the_reported_objective_is_the_loss_of_the_fitted_codes_plus_its_bounded_penalties():
    """Reported by an audit: objective_history_ was checked only against itself. Recomputed here
    from the fitted codes and weights in numpy: the loss Σ_observed (t_ij − r̂_ij)², t the
    ratings scaled to [−r, r] (s ↦ 2r(s − min)/(max − min) − r) times ω̄ = the mean Σ_k η_ik ξ_jk
    over the observed pairs, r̂_ij = Σ_k η_ik ξ_jk ⟨b_i^(k), d_j^(k)⟩; the penalties
    α‖B − X‖² lie in [0, 4mrα] per component (‖b‖² = r, XᵀX = mI)."""
    R = _ratings()
    m, n = R.shape
    for model in (CCCF(4, 6, bandwidth=1.0, random_state=0, max_iter=8, tol=0.0), DCF(6, random_state=0, tol=0.0)):
        model.fit(R)
        r, G = model.n_bits_, model.weights_user_.shape[1]
        B = 2 * np.unpackbits(model.codes_user_, axis=-1, count=r).astype(float) - 1  # (m, G, r)
        D = 2 * np.unpackbits(model.codes_item_, axis=-1, count=r).astype(float) - 1
        rows, cols = np.repeat(np.arange(m), np.diff(R.indptr)), R.indices
        eta, xi = model.weights_user_[rows], model.weights_item_[cols]
        pred = np.sum(eta * xi * np.einsum("tkb,tkb->tk", B[rows], D[cols]), axis=1)
        lo, hi = R.data.min(), R.data.max()
        target = (2 * r * (R.data - lo) / (hi - lo) - r) * np.mean(np.sum(eta * xi, axis=1))
        loss = float(np.sum((target - pred) ** 2))
        penalty = 4 * r * G * (model.alpha_user * m + model.alpha_item * n)
        final = model.objective_history_[-1]
        assert loss - 1e-9 * loss <= final <= loss + penalty, (type(model).__name__, loss, final, penalty)


@pytest.mark.parametrize("init", ["relaxed", "identical", "random"])
def test_cccf_with_one_component_is_dcf(init):
    R = _ratings(1)
    a = CCCF(n_components=1, n_bits=6, random_state=3, init=init).fit(R)
    b = DCF(n_bits=6, random_state=3, init=init).fit(R)
    np.testing.assert_array_equal(a.codes_user_, b.codes_user_)
    np.testing.assert_array_equal(a.codes_item_, b.codes_item_)
    np.testing.assert_array_equal(a.weights_user_, np.ones((R.shape[0], 1)))
    users, items = np.meshgrid(np.arange(R.shape[0]), np.arange(R.shape[1]), indexing="ij")
    np.testing.assert_array_equal(a.score(users, items), b.score(users, items))
    np.testing.assert_allclose(a.objective_history_, b.objective_history_)


def _unpacked(packed: np.ndarray, r: int) -> np.ndarray:
    return np.unpackbits(packed, axis=-1)[..., :r].astype(np.float64) * 2 - 1


def test_scores_are_the_compositional_sum_and_packed_equals_exact():
    R = _ratings(2)
    model = CCCF(3, 5, bandwidth=0.8, random_state=1).fit(R)
    Bu, Dv = _unpacked(model.codes_user_, 5), _unpacked(model.codes_item_, 5)
    eta, xi = model.weights_user_, model.weights_item_
    oracle = np.einsum("ik,jk,ikq,jkq->ij", eta, xi, Bu, Dv)
    users, items = np.meshgrid(np.arange(R.shape[0]), np.arange(R.shape[1]), indexing="ij")
    np.testing.assert_allclose(model.score(users, items), oracle, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.score(users, items, exact=True), oracle, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eta.sum(axis=1), 1.0)
    np.testing.assert_allclose(xi.sum(axis=1), 1.0)


def test_integer_weights_give_the_rounded_score_exactly():
    R = _ratings(3)
    e = 16.0
    model = CCCF(4, 5, bandwidth=0.9, weight_scale=e, random_state=2).fit(R)
    Bu, Dv = _unpacked(model.codes_user_, 5), _unpacked(model.codes_item_, 5)
    iu, ii = np.round(e * model.weights_user_), np.round(e * model.weights_item_)
    oracle = np.einsum("ik,jk,ikq,jkq->ij", iu, ii, Bu, Dv)  # integers, exact in float64
    users, items = np.meshgrid(np.arange(R.shape[0]), np.arange(R.shape[1]), indexing="ij")
    np.testing.assert_array_equal(model.score(users, items) * e**2, oracle)
    err = model.integer_weight_error()
    exact = model.score(users, items, exact=True)
    assert err["max_abs"] == pytest.approx(float(np.max(np.abs(oracle / e**2 - exact))))
    ids, _ = model.recommend(0, R[0], N=5)
    ids_exact, _ = model.recommend(0, R[0], N=5, exact=True)
    assert len(ids) == len(ids_exact) == 5


def test_the_declared_scale_is_checked_and_used():
    R = _ratings(4)
    with pytest.raises(DataFormatError, match=r"outside the declared rating_scale=\(1, 4\)"):
        CCCF(2, 4, rating_scale=(1, 4)).fit(R)
    assert CCCF(2, 4, rating_scale=(0.5, 5), random_state=0).fit(R).rating_scale_ == [0.5, 5.0]
    assert CCCF(2, 4, random_state=0).fit(R).rating_scale_ == [1.0, 5.0]


@pytest.mark.parametrize(
    "model, match",
    [
        (CCCF(n_components=0), "n_components"),
        (CCCF(n_bits=0), "n_bits"),
        (CCCF(bandwidth=0.0), "bandwidth"),
        (CCCF(bandwidth=-1.0), "bandwidth"),
        (CCCF(weight_scale=0.0), "weight_scale"),
        (CCCF(weight_scale=-2.0), "weight_scale"),
        (CCCF(weight_scale=float("nan")), "weight_scale"),
        (CCCF(smoothing="gauss"), "smoothing"),
        (CCCF(kernel="gauss"), "kernel"),  # the deprecated spelling, checked under its own name
        (CCCF(anchors="random"), "anchors"),
        (CCCF(rating_scale=(5, 1)), "rating_scale"),
        (CCCF(rating_scale="1-5"), "rating_scale"),
        (DCF(n_bits=0), "n_bits"),
        (DCF(alpha_user=-1.0), "alpha_user"),
        (CCCF(n_bits=40), "more users than bits"),
    ],
)
def test_bad_parameters_are_named(model, match):
    with pytest.raises(ParameterError, match=match):
        model.fit(_ratings(5))


def test_bad_data_is_named():
    with pytest.raises(DataFormatError, match="NaN"):
        CCCF(2, 4).fit(sp.csr_matrix(np.array([[1.0, np.nan], [2.0, 3.0]])))
    ones = sp.csr_matrix(np.eye(12))
    with pytest.raises(DataFormatError, match="Every stored rating is 1"):
        DCF(4).fit(ones)


def test_users_and_items_without_ratings_are_scored():
    R = _ratings(6).tolil()
    R[3, :] = 0
    R[:, 5] = 0
    model = CCCF(3, 4, random_state=0).fit(sp.csr_matrix(R))
    assert np.isfinite(model.score(np.arange(R.shape[0]), 5)).all()
    assert np.isfinite(model.score(3, np.arange(R.shape[1]))).all()


def test_fits_are_reproducible_and_seeded():
    R = _ratings(8)
    a, b = (CCCF(3, 4, random_state=5).fit(R) for _ in range(2))
    np.testing.assert_array_equal(a.codes_user_, b.codes_user_)
    np.testing.assert_array_equal(a.objective_history_, b.objective_history_)


def test_every_pair_of_identical_weights_reduces_to_hamming_ranking():
    """With one component and weight 1, ⟨b, d⟩ = r − 2·Hamming(b, d): the ranking is by
    Hamming distance (brute force over the unpacked codes)."""
    R = _ratings(9)
    model = DCF(6, random_state=0).fit(R)
    Bu, Dv = _unpacked(model.codes_user_, 6)[:, 0], _unpacked(model.codes_item_, 6)[:, 0]
    for u, j in itertools.product(range(5), range(R.shape[1])):
        hamming = int(np.sum(Bu[u] != Dv[j]))
        assert model.score(u, j) == 6 - 2 * hamming


def test_anchor_pairing_maximises_the_anchor_affinity():
    from ratkit.recsys.cccf import pair_anchors

    rng = np.random.default_rng(0)
    for G in (1, 2, 4, 5):
        Ua, Va = rng.standard_normal((G, 3)), rng.standard_normal((G, 3))
        paired = pair_anchors(Ua, Va)
        best = max(itertools.permutations(range(G)), key=lambda p: sum(Ua[k] @ Va[p[k]] for k in range(G)))
        np.testing.assert_array_equal(paired, Va[list(best)])


def test_kmeans_anchors_are_shared_directions_and_kmedoids_anchors_are_paired_rows():
    from ratkit.recsys._code_fit import choose_anchors as _anchors

    rng = np.random.default_rng(0)
    U, V = rng.standard_normal((40, 3)), rng.standard_normal((30, 3)) * 5
    a_users, a_items = _anchors(U, V, 4, np.random.default_rng(1), "kmeans")
    assert a_users is a_items and a_users.shape == (4, 3)
    unit = np.vstack([U, V]) / np.linalg.norm(np.vstack([U, V]), axis=1, keepdims=True)
    # each centroid is the mean of the unit vectors nearest to it (k-means' fixed point)
    nearest = np.argmin(((unit[:, None, :] - a_users[None]) ** 2).sum(-1), axis=1)
    for k in range(4):
        np.testing.assert_allclose(a_users[k], unit[nearest == k].mean(axis=0), atol=1e-6)
    m_users, m_items = _anchors(U, V, 4, np.random.default_rng(1), "kmedoids")
    assert all(any(np.array_equal(a, u) for u in U) for a in m_users)
    assert all(any(np.array_equal(a, v) for v in V) for a in m_items)


def test_recommend_ranks_like_a_stable_sort_of_the_scores_with_ties_to_the_smaller_id():
    R = _ratings(10)
    for model in (CCCF(3, 4, weight_scale=4.0, random_state=0).fit(R), DCF(4, random_state=0).fit(R)):  # many ties
        users = np.arange(R.shape[0])
        grid_u, grid_i = np.meshgrid(users, np.arange(R.shape[1]), indexing="ij")
        scores = model.score(grid_u, grid_i)
        scores[R.toarray() != 0] = -np.inf
        expected = np.argsort(-scores, axis=1, kind="stable")[:, :6]
        ids, values = model.recommend(users, R[users], N=6)
        np.testing.assert_array_equal(ids, expected)
        np.testing.assert_array_equal(values, np.take_along_axis(scores, expected, axis=1))


# -- regressions from the issue-17 review ---------------------------------------------------------------


@pytest.mark.parametrize("e", [3e9, 1e15, 1e300])
def test_a_weight_scale_that_would_overflow_the_integer_scores_is_refused(e):
    """Integer scores overflowed int64 silently from e ≈ 3e9 (errors as large as the scores)."""
    with pytest.raises(ParameterError, match="would overflow the integer scores"):
        CCCF(2, 4, weight_scale=e, random_state=0).fit(_ratings(11))


def test_a_rating_given_twice_is_refused_not_summed():
    """Two ratings 4 and 5 of one pair were summed into a rating 9, which also stretched the scale."""
    R = _ratings(12).tocoo()
    dup = sp.coo_matrix((np.r_[R.data, 4.0], (np.r_[R.row, R.row[0]], np.r_[R.col, R.col[0]])), shape=R.shape)
    for model in (CCCF(2, 4, random_state=0), DCF(4, random_state=0)):
        with pytest.raises(DataFormatError, match=r"more than once \(the first: user"):
            model.fit(dup)


def test_negative_ratings_are_ratings_and_a_scale_holding_zero_is_refused():
    R = _ratings(13)
    shifted = R.copy()
    shifted.data = np.where(shifted.data >= 3, shifted.data - 2, shifted.data - 4)  # −3 … −1 and 1 … 3
    model = CCCF(2, 4, random_state=0).fit(shifted)
    assert model.rating_scale_ == [-3.0, 3.0]
    with pytest.raises(ParameterError, match="holds the rating 0"):
        CCCF(2, 4, rating_scale=(0, 5)).fit(R)


def test_too_many_components_are_named_as_n_components():
    R = _ratings(14, m=12, n=10, density=0.6)  # 22 users and items: at most 22 distinct directions
    with pytest.raises(ParameterError, match="n_components=30 is more than the distinct MF directions"):
        CCCF(30, 2, random_state=0).fit(R)


def test_an_inconsistent_fitted_state_is_refused_by_name_at_use_and_at_load(tmp_path):
    # regression: CCCF declared no fitted shapes and its restore check skipped the base one,
    # so a model file with NaN weights loaded and scored NaN, and a truncated weights array
    # read past its end in the compiled scorer
    model = CCCF(2, 4, bandwidth=1.5, random_state=0).fit(_ratings())
    truncated = model.weights_item_
    model.weights_item_ = truncated[:-1]
    with pytest.raises(DataFormatError, match=r"weights_item_ has shape \(29, 2\), but axis 0 should have 30"):
        model.recommend(0, _ratings()[0])
    model.weights_item_ = truncated.copy()
    model.weights_item_[3, 0] = np.nan
    path = tmp_path / "cccf.zip"
    model.save(path)
    from ratkit import load_model
    from ratkit.exceptions import ModelFormatError

    with pytest.raises((DataFormatError, ModelFormatError), match="weights_item_ holds NaN"):
        load_model(path)


# -- the defaults (issue 34) -------------------------------------------------------------------------


def _documented(text: str, pattern: str) -> float:
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not found"
    return float(found.group(1))


def test_the_default_bandwidth_is_the_documented_one():
    default = inspect.signature(CCCF).parameters["bandwidth"].default
    assert CCCF().bandwidth == default == CCCF().get_params()["bandwidth"]
    guide = (Path(__file__).parents[2] / "docs" / "guide" / "recsys.rst").read_text(encoding="utf-8")
    assert _documented(guide, r"``bandwidth=([0-9.]+)``, chosen on MovieLens") == default
    assert _documented(CCCF.__doc__, r"The default ([0-9.]+) gives dense weights") == default
    assert _documented(cccf_module.__doc__, r"The default h = ([0-9.]+) is dense") == default


def test_at_its_defaults_every_user_and_item_share_a_component():
    # the cause of the old default's loss to DCF (issue 34): at h = 0.7 most user–item pairs had
    # weight on no common component, so they scored 0 whatever their codes
    for seed in range(3):
        R = _ratings(seed, m=60, n=40, density=0.4)
        shared = {}
        for name, model in (("default", CCCF(random_state=seed)), ("h=0.7", CCCF(bandwidth=0.7, random_state=seed))):
            model.fit(R)
            common = (model.weights_user_ > 0).astype(np.int64) @ (model.weights_item_ > 0).T.astype(np.int64)
            shared[name] = float(np.mean(common == 0))
        assert shared["default"] == 0.0, shared
        assert shared["h=0.7"] > 0.3, shared  # the check can fail: the sparse bandwidth fails it


@pytest.mark.parametrize(
    "old, new",
    [
        ({"kernel": "triangular"}, {"smoothing": "triangular"}),
        ({"pretrain_reg": 0.3}, {"pretrain_regularization": 0.3}),
    ],
)
def test_the_former_parameter_names_warn_and_fit_the_same_model(old, new):
    # issue 36: `kernel=` means a ratkit Kernel everywhere else; CCCF's is the smoothing kernel
    R = _ratings(3)
    want = CCCF(3, 4, random_state=0, **new).fit(R)
    with pytest.warns(DeprecationWarning, match=f"'{next(iter(old))}' parameter of CCCF is deprecated"):
        got = CCCF(3, 4, random_state=0, **old).fit(R)
    for name in ("codes_user_", "codes_item_", "weights_user_", "weights_item_", "objective_history_"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert clone(got).get_params() == got.get_params()  # scikit-learn still handles the old name


def test_a_former_name_and_its_new_name_together_are_refused():
    with pytest.raises(ParameterError, match="deprecated spelling of 'smoothing'"):
        CCCF(kernel="uniform", smoothing="triangular").fit(_ratings(3))


def test_the_former_kernels_constant_warns():
    from ratkit.recsys import _component_weights

    with pytest.warns(DeprecationWarning, match="KERNELS is deprecated"):
        assert cccf_module.KERNELS == _component_weights.SMOOTHING_KERNELS
