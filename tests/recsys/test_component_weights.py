"""CCCF's component weights: pre-training, anchors, angular distance, kernels, normalisation.

Oracles: closed-form kernel values and angles, scipy's cosine distance, scipy/numpy SVD for
the ALS optimum, numpy ridge solves, brute-force k-medoids costs, scikit-learn's KMeans.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist, cosine
from sklearn.cluster import KMeans

from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError, RatkitError
from ratkit.recsys._component_weights import (
    _kmedoids_seed,
    angular_distance,
    component_weights,
    pretrain_factors,
    select_anchors,
    smoothing_kernel,
)


def _unit(degrees: float) -> np.ndarray:
    return np.array([math.cos(math.radians(degrees)), math.sin(math.radians(degrees))])


def _random_ratings(m: int, n: int, density: float, seed: int) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    mask = rng.random((m, n)) < density
    values = rng.integers(1, 6, size=(m, n)).astype(float)
    return sp.csr_matrix(np.where(mask, values, 0.0))


def _squared_error(ratings: sp.csr_matrix, users: np.ndarray, items: np.ndarray) -> float:
    coo = ratings.tocoo()
    mu = coo.data.mean()
    predicted = np.einsum("ij,ij->i", users[coo.row], items[coo.col])
    return float(((coo.data - mu - predicted) ** 2).sum())


# ------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kernel", "expected"),
    [
        # d = 0, 0.25, 0.5 (= h), 0.75, 2 with h = 0.5
        ("epanechnikov", [0.75, 0.75 * (1 - 0.25), 0.0, 0.0, 0.0]),
        ("uniform", [1.0, 1.0, 0.0, 0.0, 0.0]),
        ("triangular", [1.0, 0.5, 0.0, 0.0, 0.0]),
    ],
)
def test_kernels_match_their_formulas_inside_at_and_beyond_h(kernel, expected):
    distance = np.array([0.0, 0.25, 0.5, 0.75, 2.0])
    np.testing.assert_allclose(smoothing_kernel(distance, 0.5, kernel), expected, atol=1e-15)


def test_epanechnikov_is_the_default_and_keeps_the_shape():
    distance = np.array([[0.1, 0.6], [0.35, 0.69]])
    h = 0.7
    expected = 0.75 * (1 - (distance / h) ** 2)
    np.testing.assert_allclose(smoothing_kernel(distance, h), expected)


# ------------------------------------------------------------------------------------------
# angular distance
# ------------------------------------------------------------------------------------------


def test_angular_distance_of_hand_computed_angles():
    anchors = np.array([[1.0, 0.0]])
    vectors = np.vstack([_unit(0) * 3.0, _unit(90), _unit(180) * 0.5, _unit(60), _unit(-45), [0.0, 0.0]])
    # 0° → 0, 90° → 1, 180° → 2, 60° → 2/3, 45° → 1/2; the zero vector → 1
    expected = [[0.0], [1.0], [2.0], [2 / 3], [0.5], [1.0]]
    np.testing.assert_allclose(angular_distance(vectors, anchors), expected, atol=1e-7)


def test_parallel_vectors_survive_cosine_rounding_beyond_one():
    # ⟨v, 3v⟩/(‖v‖‖3v‖) rounds above 1 (or below −1) for some v; arccos must still be defined
    vectors = np.random.default_rng(0).normal(size=(300, 3))
    same = np.diag(angular_distance(vectors, 3.0 * vectors))
    opposite = np.diag(angular_distance(vectors, -3.0 * vectors))
    assert np.isfinite(same).all() and np.isfinite(opposite).all()
    np.testing.assert_allclose(same, 0.0, atol=1e-7)
    np.testing.assert_allclose(opposite, 2.0, atol=1e-7)


def test_zero_anchor_is_at_distance_one():
    np.testing.assert_allclose(angular_distance(np.array([[1.0, 2.0], [-3.0, 0.5]]), np.zeros((1, 2))), [[1.0], [1.0]])


def test_angular_distance_matches_scipy_cosine():
    rng = np.random.default_rng(4)
    vectors, anchors = rng.normal(size=(30, 5)), rng.normal(size=(7, 5))
    expected = np.array(
        [[(2 / np.pi) * np.arccos(np.clip(1.0 - cosine(v, a), -1, 1)) for a in anchors] for v in vectors]
    )
    got = angular_distance(vectors, anchors)
    assert got.shape == (30, 7)
    np.testing.assert_allclose(got, expected, atol=1e-12)


# ------------------------------------------------------------------------------------------
# weights
# ------------------------------------------------------------------------------------------


def test_weights_are_the_normalised_kernel_values():
    anchors = np.vstack([_unit(0), _unit(90) * 2.0])
    vectors = np.vstack([_unit(30), _unit(80)])
    h = 0.7
    # angles to the anchors: 30° and 60° (d = 1/3, 2/3); 80° and 10° (d = 8/9, 1/9)
    raw = np.array(
        [
            [0.75 * (1 - ((1 / 3) / h) ** 2), 0.75 * (1 - ((2 / 3) / h) ** 2)],
            [0.0, 0.75 * (1 - ((1 / 9) / h) ** 2)],
        ]
    )
    expected = raw / raw.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(component_weights(vectors, anchors, h), expected, atol=1e-9)
    np.testing.assert_allclose(component_weights(vectors, anchors, h, "uniform"), [[0.5, 0.5], [0.0, 1.0]])


def test_a_row_beyond_h_from_every_anchor_goes_to_its_nearest_anchor():
    anchors = np.vstack([_unit(0), _unit(90), _unit(200)])
    # 150°: d = 5/3, 2/3, 5/9 → anchor 2; 45°: d = 1/2, 1/2, 155/90 → tie, lowest index 0
    vectors = np.vstack([_unit(150), _unit(45), [0.0, 0.0]])
    weights = component_weights(vectors, anchors, 0.3)
    # the zero vector is at distance 1 from all three: tie → anchor 0
    np.testing.assert_array_equal(weights, [[0, 0, 1], [1, 0, 0], [1, 0, 0]])


def test_rows_sum_to_one_and_sparsity_grows_as_h_shrinks():
    rng = np.random.default_rng(7)
    vectors, anchors = rng.normal(size=(200, 4)), rng.normal(size=(6, 4))
    previous = None
    for h in (0.1, 0.3, 0.5, 0.7, 1.0, 1.5, 2.5):
        weights = component_weights(vectors, anchors, h, "triangular")
        assert (weights >= 0).all()
        np.testing.assert_allclose(weights.sum(axis=1), 1.0)
        nnz = np.count_nonzero(weights, axis=1)
        # an independent count: the anchors strictly closer than h, at least 1 (the fallback)
        inside = (angular_distance(vectors, anchors) < h).sum(axis=1)
        np.testing.assert_array_equal(nnz, np.maximum(inside, 1))
        if previous is not None:
            assert (nnz >= previous).all()
        previous = nnz
    assert previous.min() == 6  # h = 2.5 > every distance: dense
    assert component_weights(vectors, anchors, 0.1).astype(bool).sum(axis=1).max() == 1


# ------------------------------------------------------------------------------------------
# anchors
# ------------------------------------------------------------------------------------------


def _cost(x: np.ndarray, centres: np.ndarray) -> float:
    return float(cdist(x, centres, "sqeuclidean").min(axis=1).sum())


def test_kmedoids_returns_rows_of_the_data_and_beats_random_and_seeding():
    rng = np.random.default_rng(11)
    x = np.vstack([rng.normal(loc, 0.6, size=(40, 3)) for loc in ([0, 0, 0], [4, 0, 0], [0, 4, 0], [2, 2, 3])])
    medoids = select_anchors(x, 4, np.random.default_rng(5), method="kmedoids")
    assert medoids.shape == (4, 3)
    rows = [np.flatnonzero((x == medoid).all(axis=1)) for medoid in medoids]
    assert all(len(r) == 1 for r in rows)
    assert len({int(r[0]) for r in rows}) == 4
    cost = _cost(x, medoids)
    seeding = _kmedoids_seed(x, 4, np.random.default_rng(5))  # the same rng stream as above
    assert cost <= _cost(x, x[seeding]) + 1e-9
    draws = np.random.default_rng(0)
    for _ in range(50):
        assert cost <= _cost(x, x[draws.choice(len(x), 4, replace=False)]) + 1e-9
    # a fixed point of the alternation: every medoid minimises its own cluster's cost (brute force)
    labels = cdist(x, medoids, "sqeuclidean").argmin(axis=1)
    for k, medoid in enumerate(medoids):
        members = x[labels == k]
        within = cdist(members, members, "sqeuclidean").sum(axis=1)
        assert ((members - medoid) ** 2).sum() <= within.min() + 1e-9


def test_kmedoids_on_duplicated_rows_finds_the_distinct_ones():
    x = np.repeat(np.array([[0.0, 1.0], [5.0, 5.0], [-3.0, 2.0]]), [5, 1, 7], axis=0)
    medoids = select_anchors(x, 3, np.random.default_rng(0), method="kmedoids")
    assert sorted(map(tuple, medoids)) == sorted([(0.0, 1.0), (5.0, 5.0), (-3.0, 2.0)])
    with pytest.raises(ParameterError, match="distinct"):
        select_anchors(x, 4, np.random.default_rng(0), method="kmedoids")
    with pytest.raises(ParameterError, match="distinct"):
        select_anchors(x, 4, np.random.default_rng(0))


def test_kmeans_anchors_are_sklearn_centroids_for_the_documented_seed():
    x = np.random.default_rng(2).normal(size=(120, 5))
    seed = int(np.random.default_rng(9).integers(0, 2**31 - 1))
    expected = KMeans(n_clusters=6, n_init=10, random_state=seed).fit(x).cluster_centers_
    np.testing.assert_allclose(select_anchors(x, 6, np.random.default_rng(9)), expected, atol=1e-10)


# ------------------------------------------------------------------------------------------
# pre-training
# ------------------------------------------------------------------------------------------


def test_als_on_a_full_matrix_reaches_the_truncated_svd_error():
    rng = np.random.default_rng(3)
    m, n, f = 40, 30, 3
    left, _ = np.linalg.qr(rng.normal(size=(m, f)))
    right, _ = np.linalg.qr(rng.normal(size=(n, f)))
    dense = 3.5 + (left * [12.0, 8.0, 5.0]) @ right.T + 0.3 * rng.normal(size=(m, n))
    centred = dense - dense.mean()
    sigma = np.linalg.svd(centred, compute_uv=False)
    optimum = float((sigma[f:] ** 2).sum())
    users, items = pretrain_factors(sp.csr_matrix(dense), f, np.random.default_rng(0), n_iter=300, regularization=1e-10)
    assert users.shape == (m, f) and items.shape == (n, f)
    error = float(((centred - users @ items.T) ** 2).sum())
    assert error == pytest.approx(optimum, rel=1e-6)
    # with f + 1 factors (the noise's singular values, slow to separate): never below the
    # rank-(f + 1) optimum (Eckart–Young), and close to it
    users, items = pretrain_factors(
        sp.csr_matrix(dense), f + 1, np.random.default_rng(0), n_iter=300, regularization=1e-10
    )
    error, optimum = float(((centred - users @ items.T) ** 2).sum()), float((sigma[f + 1 :] ** 2).sum())
    assert optimum * (1 - 1e-9) <= error <= optimum * (1 + 1e-3)


def test_last_item_sweep_solves_the_weighted_ridge_exactly_and_error_decreases():
    ratings = _random_ratings(25, 18, 0.3, seed=1)
    reg, f = 0.2, 3
    users, items = pretrain_factors(ratings, f, np.random.default_rng(4), n_iter=4, regularization=reg)
    dense, mask = ratings.toarray(), ratings.toarray() != 0
    mu = dense[mask].mean()
    for j in range(dense.shape[1]):
        raters = np.flatnonzero(mask[:, j])
        if raters.size == 0:
            continue
        u = users[raters]
        v = np.linalg.solve(u.T @ u + reg * raters.size * np.eye(f), u.T @ (dense[raters, j] - mu))
        np.testing.assert_allclose(items[j], v, atol=1e-10)
    errors = [
        _squared_error(ratings, *pretrain_factors(ratings, f, np.random.default_rng(4), n_iter=k))
        for k in (1, 2, 5, 20)
    ]
    assert all(later <= earlier + 1e-9 for earlier, later in zip(errors, errors[1:], strict=False))


def test_never_rated_rows_keep_their_random_start():
    dense = _random_ratings(12, 10, 0.5, seed=2).toarray()
    dense[3] = 0.0  # user 3 rates nothing
    dense[:, 7] = 0.0  # item 7 is never rated
    ratings = sp.csr_matrix(dense)
    short = pretrain_factors(ratings, 4, np.random.default_rng(6), n_iter=1)
    long = pretrain_factors(ratings, 4, np.random.default_rng(6), n_iter=6)
    for a, b, row in ((short[0], long[0], 3), (short[1], long[1], 7)):
        np.testing.assert_array_equal(a[row], b[row])
        assert np.linalg.norm(a[row]) > 0
    assert not np.allclose(short[0][0], long[0][0])  # rated rows do move


def test_pretraining_cost_is_linear_in_the_number_of_ratings():
    base = _random_ratings(600, 500, 0.2, seed=5)
    doubled = sp.block_diag([base, base], format="csr")  # 2× ratings, users and items
    pretrain_factors(base[:20], 8, np.random.default_rng(0), n_iter=1)  # compile

    def seconds(matrix: sp.csr_matrix) -> float:
        start = time.perf_counter()
        pretrain_factors(matrix, 8, np.random.default_rng(0), n_iter=5)
        return time.perf_counter() - start

    # interleaved, best of 7: a busy machine slows both sizes alike
    times = np.array([[seconds(base), seconds(doubled)] for _ in range(7)])
    ratio = times[:, 1].min() / times[:, 0].min()
    assert 1.2 < ratio < 3.4, ratio  # O(|𝒱|) gives 2; O(m·n) would give 4


# ------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("h", [0.0, -0.5, float("nan")])
def test_bandwidth_must_be_positive(h):
    with pytest.raises(ParameterError, match="bandwidth"):
        smoothing_kernel(np.array([0.1]), h)
    with pytest.raises(ParameterError, match="bandwidth"):
        component_weights(np.eye(2), np.eye(2), h)


def test_unknown_names_and_counts_are_refused():
    x = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(ParameterError, match="'smoothing' parameter of smoothing_kernel"):
        smoothing_kernel(np.array([0.1]), 0.5, "gaussian")
    with pytest.raises(ParameterError, match="'smoothing' parameter of component_weights"):
        component_weights(x, x[:2], 0.5, "cosine")
    with pytest.raises(ParameterError, match="method"):
        select_anchors(x, 2, np.random.default_rng(0), method="pam")
    for bad in (0, -1):
        with pytest.raises(ParameterError, match="n_anchors"):
            select_anchors(x, bad, np.random.default_rng(0))
    with pytest.raises(ParameterError, match="n_factors"):
        pretrain_factors(_random_ratings(5, 5, 0.5, 0), 0, np.random.default_rng(0))
    with pytest.raises(ParameterError, match="'regularization' parameter"):
        pretrain_factors(_random_ratings(5, 5, 0.5, 0), 2, np.random.default_rng(0), regularization=0.0)


def test_nan_and_malformed_data_are_refused():
    x = np.random.default_rng(0).normal(size=(10, 3))
    with_nan = x.copy()
    with_nan[4, 1] = np.nan
    with pytest.raises(DataFormatError, match="NaN"):
        select_anchors(with_nan, 2, np.random.default_rng(0))
    with pytest.raises(DataFormatError, match="NaN"):
        angular_distance(with_nan, x[:2])
    with pytest.raises(DataFormatError, match="NaN"):
        component_weights(x, with_nan[3:6], 0.5)
    with pytest.raises(DataFormatError, match="columns"):
        angular_distance(x, x[:, :2])
    with pytest.raises(DataFormatError):
        smoothing_kernel(np.array([-0.1, 0.2]), 0.5)
    ratings = _random_ratings(6, 5, 0.6, 0).astype(float)
    ratings.data[0] = np.nan
    with pytest.raises(DataFormatError, match="NaN"):
        pretrain_factors(ratings, 2, np.random.default_rng(0))
    with pytest.raises(ParameterTypeError, match="scipy.sparse"):
        pretrain_factors(np.ones((3, 3)), 2, np.random.default_rng(0))
    with pytest.raises(DataFormatError, match="duplicate"):
        pretrain_factors(sp.csr_matrix(([4.0, 5.0], [1, 1], [0, 2, 2]), shape=(2, 2)), 1, 0)
    with pytest.raises(RatkitError):
        pretrain_factors(sp.csr_matrix((3, 3)), 2, np.random.default_rng(0))
