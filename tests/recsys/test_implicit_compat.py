"""ratkit recommenders under implicit's own tools: its calling convention, its evaluation
functions and its split, checked against ratkit's metrics through the documented
definitional mapping (implicit is the test oracle, from the ``test`` extra)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import plugins
from ratkit.exceptions import RatkitError, UnsupportedOperationError
from ratkit.recsys import FISM, TJSL, Popularity
from ratkit.recsys.evaluation import leave_k_out, ranking_metrics
from ratkit.testing._planted import planted_blocks, planted_ratings

implicit_evaluation = pytest.importorskip(
    "implicit.evaluation", reason="implicit (the 'test' extra, used as the oracle) is not installed"
)
implicit_als = pytest.importorskip("implicit.cpu.als", reason="implicit's CPU models are not available")

#: Small, fast configurations; a registered recommender not listed here is built with its defaults.
FAST = {
    "puresvd": {"n_factors": 4, "random_state": 0},
    "mfauc": {"n_factors": 4, "regularization": 1e-2, "learning_rate": 0.3, "max_iter": 20, "random_state": 0},
    "cccf": {"n_components": 4, "n_bits": 8, "bandwidth": 2.0, "max_iter": 5, "random_state": 0},
    "dcf": {"n_bits": 8, "max_iter": 5, "random_state": 0},
    "fism": {"n_factors": 8, "n_epochs": 5, "learning_rate": 0.05, "random_state": 0},
    "tjsl": {"n_factors": 8, "n_rounds": 2, "n_average": 2, "n_epochs": 3, "learning_rate": 0.05, "random_state": 0},
}
NAMES = sorted(set(plugins.available("recommender")) | {"puresvd", "mfauc"})
KS = (5, 30)  # 30 of 32 items: some users have fewer candidates than k (padded, counted as misses)


def _make(name: str):
    return plugins.get("recommender", name)(**FAST.get(name, {}))


def _split(name: str, how: str) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(train, test): implicit's train_test_split of the whole matrix, or ratkit's leave-2-out
    of the liked entries (for a model of ratings: trained on every other rating)."""
    explicit = type(_make(name)).feedback == "explicit"
    planted = planted_ratings() if explicit else planted_blocks()
    if how == "implicit":
        train, test = implicit_evaluation.train_test_split(planted.matrix, train_percentage=0.8, random_state=0)
        return sp.csr_matrix(train), sp.csr_matrix(test)
    _, test = leave_k_out(planted.liked_matrix(), 2, random_state=0)
    train = planted.matrix - planted.matrix.multiply(test > 0)
    train.eliminate_zeros()
    return sp.csr_matrix(train), test


_CACHE: dict[tuple[str, str], tuple] = {}


def _fitted(name: str, how: str):
    key = (name, how)
    if key not in _CACHE:
        train, test = _split(name, how)
        _CACHE[key] = (_make(name).fit(train), train, test)
    return _CACHE[key]


def _per_user(model, train: sp.csr_matrix, test: sp.csr_matrix, k: int):
    """Hits at each rank and |T_u| of every user with a test item, from model.recommend (the
    ranking both libraries score)."""
    users = np.flatnonzero(np.diff(test.indptr) > 0).astype(np.int32)
    ids, _ = model.recommend(users, train[users], N=k)
    hits = np.array([[i in set(test[u].indices) for i in row] for u, row in zip(users, ids)])
    return users, hits, np.diff(test.indptr)[users]


@pytest.mark.parametrize("how", ["implicit", "ratkit"])
@pytest.mark.parametrize("name", NAMES)
def test_implicit_ranking_metrics_equal_ratkits_after_the_mapping(name, how):
    model, train, test = _fitted(name, how)
    for k in KS:
        theirs = implicit_evaluation.ranking_metrics_at_k(model, train, test, K=k, show_progress=False)
        ours = ranking_metrics(model, train, test, k=k)
        users, hits, sizes = _per_user(model, train, test, k)
        n_hits, shown = hits.sum(axis=1), np.minimum(k, sizes)
        # precision: ratkit's per-user mean of hits/k; implicit's Σ hits / Σ min(k, |T_u|)
        assert ours["precision"] == pytest.approx(np.mean(n_hits / k), rel=1e-12)
        assert theirs["precision"] == pytest.approx(n_hits.sum() / shown.sum(), rel=1e-12)
        mapped = ours["precision"] * k * len(users) / shown.sum()
        assert theirs["precision"] == pytest.approx(mapped, rel=1e-12)
        if (sizes < k).any() and n_hits.sum():
            assert theirs["precision"] > ours["precision"]  # the definitions really differ here
        # NDCG (ideal DCG of min(k, |T_u|) hits) and MAP (AP divided by min(k, |T_u|)): the
        # same definition and the same per-user mean in both
        discounts = 1.0 / np.log2(np.arange(2, k + 2))
        ndcg = (hits @ discounts) / np.cumsum(discounts)[shown - 1]
        ap = (np.cumsum(hits, axis=1) / np.arange(1, k + 1) * hits).sum(axis=1) / shown
        assert ours["ndcg"] == pytest.approx(ndcg.mean(), rel=1e-12)
        assert theirs["ndcg"] == pytest.approx(ours["ndcg"], rel=1e-12)
        assert theirs["map"] == pytest.approx(ours["map"], rel=1e-12)
        assert ours["map"] == pytest.approx(ap.mean(), rel=1e-12)


def _truncated_auc(hits: np.ndarray, sizes: np.ndarray, n_items: int) -> float:
    """implicit's AUC@k (evaluation.pyx): below rank k, the misses are placed halfway,
    and every item but the positives counts as a negative (training items included)."""
    values = []
    for row, n_pos in zip(hits, sizes):
        n_neg = n_items - n_pos
        seen = np.cumsum(row)
        auc = seen[~row].sum() + (seen[-1] + n_pos) / 2.0 * (n_neg - (~row).sum())
        values.append(auc / (n_pos * n_neg))
    return float(np.mean(values))


def test_implicit_auc_at_k_is_truncated_and_ratkits_auc_is_exact():
    model, train, test = _fitted("puresvd", "ratkit")
    k = 3
    users, hits, sizes = _per_user(model, train, test, k)
    theirs = implicit_evaluation.AUC_at_k(model, train, test, K=k, show_progress=False)
    assert theirs == pytest.approx(_truncated_auc(hits, sizes, model.n_items_), rel=1e-12)
    # exact AUC by brute force over every pair (positive, candidate negative), ties ½
    exact = []
    for u in users:
        scores = model.score(np.full(model.n_items_, u), np.arange(model.n_items_))
        positive, candidate = np.zeros(model.n_items_, bool), np.ones(model.n_items_, bool)
        positive[test[u].indices], candidate[train[u].indices] = True, False
        p, q = scores[positive], scores[candidate & ~positive]
        exact.append(((p[:, None] > q[None, :]) + 0.5 * (p[:, None] == q[None, :])).mean())
    ours = ranking_metrics(model, train, test, k=k)["auc"]
    assert ours == pytest.approx(np.mean(exact), rel=1e-12)
    assert abs(theirs - ours) > 0.01  # a case where the two definitions give different numbers


def test_every_implicit_metric_function_runs_on_a_ratkit_model():
    model, train, test = _fitted("mfauc", "implicit")
    all_ = implicit_evaluation.ranking_metrics_at_k(model, train, test, K=5, show_progress=False)
    assert implicit_evaluation.precision_at_k(model, train, test, K=5, show_progress=False) == all_["precision"]
    assert implicit_evaluation.ndcg_at_k(model, train, test, K=5, show_progress=False) == all_["ndcg"]
    assert implicit_evaluation.AUC_at_k(model, train, test, K=5, show_progress=False) == all_["auc"]
    assert implicit_evaluation.mean_average_precision_at_k(model, train, test, K=5, show_progress=False) == all_["map"]
    assert 0 < all_["precision"] <= 1 and 0.5 < all_["auc"] <= 1


# ------------------------------------------------------------------------ calling convention
def _twin(model) -> implicit_als.AlternatingLeastSquares:
    """An implicit model holding the same factors: implicit's own recommend/similar_* are the oracle."""
    with warnings.catch_warnings():  # implicit's advice on OpenBLAS threads, about its own fitting
        warnings.simplefilter("ignore", RuntimeWarning)
        twin = implicit_als.AlternatingLeastSquares(factors=model.user_factors_.shape[1], num_threads=1)
    twin.user_factors, twin.item_factors = model.user_factors_.copy(), model.item_factors_.copy()
    return twin


def _same_ranking(ids, scores, want_ids, want_scores, rtol):
    """Equal scores rank by rank, and equal ids wherever the score is not tied (implicit orders
    ties its own way; ratkit by item index)."""
    np.testing.assert_allclose(scores, want_scores, rtol=rtol, atol=1e-12)
    ids, scores = np.atleast_2d(ids), np.atleast_2d(scores)
    want_ids = np.atleast_2d(want_ids)
    for row in range(ids.shape[0]):
        gaps = np.abs(scores[row][:, None] - scores[row][None, :]) <= 1e-9 * max(1.0, np.abs(scores[row]).max())
        untied = gaps.sum(axis=1) == 1
        np.testing.assert_array_equal(ids[row][untied], want_ids[row][untied])


@pytest.mark.parametrize("name", ["puresvd", "mfauc"])
def test_recommend_and_similar_equal_implicits_on_the_same_factors(name):
    model, train, _ = _fitted(name, "ratkit")
    twin = _twin(model)
    users = np.array([0, 7, 41, 59], dtype=np.int32)
    for kwargs in ({}, {"filter_items": [0, 5, 13]}, {"items": [3, 1, 12, 20, 25, 30, 2]}):
        ids, scores = model.recommend(users, train[users], N=5, **kwargs)
        want_ids, want_scores = twin.recommend(users, train[users], N=5, **kwargs)
        assert ids.dtype == np.int32 and ids.shape == want_ids.shape == (4, 5)
        _same_ranking(ids, scores, want_ids, want_scores, rtol=1e-10)
        one_ids, one_scores = model.recommend(np.int64(7), train[7], N=5, **kwargs)  # a numpy scalar id
        assert one_ids.ndim == 1
        np.testing.assert_array_equal(one_ids, ids[1])
    for kwargs in ({}, {"filter_items": [4]}, {"items": [0, 2, 4, 6, 8]}):
        got, want = model.similar_items(np.int32(2), N=4, **kwargs), twin.similar_items(2, N=4, **kwargs)
        assert got[0].ndim == 1
        _same_ranking(*got, *want, rtol=1e-6)  # implicit's cosine is float32
        got = model.similar_items(np.array([2, 9]), N=4, **kwargs)
        want = twin.similar_items(np.array([2, 9]), N=4, **kwargs)
        assert got[0].shape == want[0].shape == (2, 4)
        _same_ranking(*got, *want, rtol=1e-6)
    got, want = model.similar_users(3, N=6, filter_users=[5]), twin.similar_users(3, N=6, filter_users=[5])
    _same_ranking(*got, *want, rtol=1e-6)


def test_ids_of_any_integer_dtype_and_the_deprecated_forms_agree():
    model, train, _ = _fitted("puresvd", "ratkit")
    users = np.array([3, 0, 45])
    want = model.recommend(users, train[users], N=4)
    for ids in (users.astype(np.int32), users.astype(np.int64), users.astype(np.uint16), users.tolist()):
        np.testing.assert_array_equal(model.recommend(ids, train[users], N=4)[0], want[0])
    with pytest.warns(DeprecationWarning, match=r"recommend\(n=\.\.\.\) is deprecated.*pass N="):
        old_n = model.recommend(users, train[users], n=4)
    with pytest.warns(DeprecationWarning, match="whole users × items matrix as user_items is deprecated"):
        old_matrix = model.recommend(users, train, N=4)
    for old in (old_n, old_matrix):
        np.testing.assert_array_equal(old[0], want[0])
        np.testing.assert_array_equal(old[1], want[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new convention warns about nothing
        model.recommend(users, train[users], N=4)
        model.recommend(np.int32(3), train[3], N=4)


def test_filter_items_and_items_against_the_scores():
    model, train, _ = _fitted("cccf", "ratkit")
    user = 4
    scores = model.score(np.full(model.n_items_, user), np.arange(model.n_items_))
    scores[train[user].indices] = -np.inf
    banned = [int(i) for i in np.argsort(-scores, kind="stable")[:3]]  # the three best
    ids, _ = model.recommend(user, train[user], N=5, filter_items=banned)
    masked = scores.copy()
    masked[banned] = -np.inf
    np.testing.assert_array_equal(ids, np.argsort(-masked, kind="stable")[:5])
    pool = np.array([31, 2, 17, 9, 30, 24])
    ids, values = model.recommend(user, train[user], N=10, items=pool)  # N is cut to len(items), as in implicit
    keep = pool[np.isfinite(scores[pool])]
    expected = keep[np.lexsort((keep, -scores[keep]))]
    # the already-liked items of the list come last, by id, score -inf (implicit ranks them last too)
    liked = np.sort(pool[np.isneginf(scores[pool])])
    assert liked.size  # the case is exercised
    np.testing.assert_array_equal(ids, np.concatenate([expected, liked]))
    np.testing.assert_array_equal(values, scores[np.concatenate([expected, liked])])


def test_puresvd_recalculate_user_is_the_fold_in():
    model, train, _ = _fitted("puresvd", "ratkit")
    users = np.arange(model.n_users_)
    np.testing.assert_allclose(
        model.recommend(users, train, N=6, recalculate_user=True)[1], model.recommend(users, train, N=6)[1], atol=1e-10
    )  # a training row folds in to its fitted factors
    row = sp.csr_matrix(([1.0, 1.0, 1.0], ([0, 0, 0], [12, 13, 14])), shape=(1, model.n_items_))
    binary = (train > 0).toarray()
    _, _, vt = np.linalg.svd(binary, full_matrices=False)  # oracle: x Bₖ Bₖᵀ from numpy's SVD
    expected = row.toarray()[0] @ vt[:4].T @ vt[:4]
    expected[[12, 13, 14]] = -np.inf
    ids, values = model.recommend(2, row, N=5, recalculate_user=True)
    np.testing.assert_array_equal(ids, np.argsort(-expected, kind="stable")[:5])
    np.testing.assert_allclose(values, np.sort(expected)[::-1][:5], atol=1e-10)


def test_fism_scores_from_the_rows_passed():
    model, train, _ = _fitted("fism", "ratkit")
    user, row_items = 6, np.array([12, 14, 20])  # a small-block profile for a big-block user
    row = sp.csr_matrix((np.ones(3), (np.zeros(3, int), row_items)), shape=(1, model.n_items_))
    bu, bi = model.user_bias_[0], model.item_bias_[0]
    V, Pf = model.candidate_factors_[0], model.preferred_factors_[0]
    expected = np.empty(model.n_items_)
    for i in range(model.n_items_):  # r̂_ui = b_u + b_i + (Σ_{j ∈ P_u∖{i}} P_j / √|P_u∖{i}|) · V_i
        others = row_items[row_items != i]
        expected[i] = bu[user] + bi[i] + Pf[others].sum(axis=0) @ V[i] / np.sqrt(len(others))
    ids, values = model.recommend(user, row, N=8, filter_already_liked_items=False)
    np.testing.assert_array_equal(ids, np.argsort(-expected, kind="stable")[:8])
    np.testing.assert_allclose(values, np.sort(expected)[::-1][:8], rtol=1e-10)
    fitted_rows = model.recommend(user, train[user], N=8)  # the training row: the fitted scores
    np.testing.assert_allclose(fitted_rows[1], model.score(np.full(8, user), fitted_rows[0]), rtol=1e-12)


def test_cccf_factor_rows_reproduce_the_exact_scores_and_similar_items_is_their_cosine():
    model, _, _ = _fitted("cccf", "ratkit")
    U, V = model._user_factor_rows(), model._item_factor_rows()
    grid_u, grid_i = np.meshgrid(np.arange(model.n_users_), np.arange(model.n_items_), indexing="ij")
    np.testing.assert_allclose(U @ V.T, model.score(grid_u, grid_i, exact=True), atol=1e-12)
    cosine = V @ V[5] / np.maximum(np.linalg.norm(V, axis=1), 1e-10) / max(np.linalg.norm(V[5]), 1e-10)
    ids, values = model.similar_items(5, N=6)
    np.testing.assert_array_equal(ids, np.lexsort((np.arange(model.n_items_), -cosine))[:6])
    np.testing.assert_allclose(values, cosine[ids], rtol=1e-12)


@pytest.mark.parametrize("model", [Popularity(), TJSL(n_epochs=1, n_rounds=1), FISM(n_epochs=1)])
def test_models_without_factors_say_so(model):
    model.fit(planted_blocks().matrix)
    for call, what in ((lambda: model.similar_items(0), "item"), (lambda: model.similar_users(0), "user")):
        with pytest.raises(UnsupportedOperationError, match=rf"{type(model).__name__} has no {what} factors") as info:
            call()
        assert isinstance(info.value, NotImplementedError) and isinstance(info.value, RatkitError)


def test_recalculate_user_without_a_fold_in_names_the_model():
    model, train, _ = _fitted("mfauc", "ratkit")
    with pytest.raises(UnsupportedOperationError, match=r"MFAUC cannot recompute a user.*recalculate_user=True"):
        model.recommend(0, train[0], recalculate_user=True)
    with pytest.raises(NotImplementedError, match="recalculate_item=True is not supported"):
        model.similar_items(0, recalculate_item=True)


def test_a_model_built_from_its_rows_is_evaluated_from_the_train_rows_given():
    """Regression (audit): ranking_metrics scored TJSL/FISM users from their fitted preferred
    rows while recommend (and so implicit's evaluation) builds them from the train rows passed.
    With train = P + E (every rated item left out) ratkit said ndcg@10 0.097130 and implicit
    0.096929, against the documented "NDCG@k and MAP@k are the same numbers"."""
    rng = np.random.default_rng(0)
    ratings = np.where(rng.random((120, 60)) < 0.25, rng.integers(1, 6, (120, 60)), 0)
    preferred = sp.csr_matrix((ratings >= 4).astype(float))
    examined = sp.csr_matrix(((ratings > 0) & (ratings < 4)).astype(float))
    fitted_on, test = leave_k_out(preferred, 2, random_state=0)
    model = TJSL(n_factors=8, n_rounds=2, n_average=1, n_epochs=5, learning_rate=0.05, random_state=0)
    model.fit(fitted_on, examined)
    train = (fitted_on + examined).tocsr()  # not the fitted rows
    k = 10
    ours = ranking_metrics(model, train, test, k=k)
    theirs = implicit_evaluation.ranking_metrics_at_k(model, train, test, K=k, show_progress=False)
    users, hits, sizes = _per_user(model, train, test, k)  # the oracle: model.recommend's lists
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    ndcg = (hits @ discounts) / np.cumsum(discounts)[np.minimum(k, sizes) - 1]
    assert ours["ndcg"] == pytest.approx(ndcg.mean(), rel=1e-12)
    assert ours["ndcg"] == pytest.approx(theirs["ndcg"], rel=1e-12)
    assert ours["map"] == pytest.approx(theirs["map"], rel=1e-12)
