"""Bad input to the models, MFAUC's options and persistence errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.exceptions import DataFormatError, IdOutOfRangeError, MissingDataError, ParameterTypeError
from ratkit.recsys import MFAUC, Popularity, PureSVD, Recommender

from .synthetic import planted_blocks, random_one_class

X = random_one_class(15, 10, 0.4, seed=0)


def test_dense_input_is_rejected_with_the_fix():
    with pytest.raises(ParameterTypeError, match=r"scipy.sparse matrix .*got ndarray.*csr_matrix"):
        Popularity().fit(X.toarray())


def test_nan_values_are_named():
    bad = X.copy()
    bad.data[3] = np.nan
    with pytest.raises(DataFormatError, match=r"1 NaN or infinite value\(s\) \(the first at user"):
        MFAUC().fit(bad)


def test_negative_values_are_named():
    bad = X.copy()
    bad.data[0] = -1.0
    with pytest.raises(DataFormatError, match="negative value.*to_one_class"):
        Popularity().fit(bad)


def test_matrix_without_interactions_is_rejected():
    with pytest.raises(DataFormatError, match=r"shape \(4, 3\) has no interaction"):
        PureSVD().fit(sp.csr_matrix((4, 3)))


def test_ids_out_of_range():
    model = Popularity().fit(X)
    with pytest.raises(IdOutOfRangeError, match=r"user id 15 is out of range: expected an index in \[0, 15\)"):
        model.recommend(15, X[:1])
    with pytest.raises(IdOutOfRangeError, match=r"item id -1 is out of range"):
        model.score([0], [-1])
    with pytest.raises(ParameterTypeError, match="must be integer"):
        model.score(["a"], [0])


def test_recommend_argument_errors():
    model = Popularity().fit(X)
    with pytest.raises(ValueError, match=r"needs user_items, the rows of the given users \(user_items = train\[userid"):
        model.recommend(0)
    with pytest.raises(DataFormatError, match="looks transposed"):
        model.recommend(0, X.T)
    with pytest.raises(DataFormatError, match=r"shape \(3, 10\).*needs one row per user asked for.*\(2, 10\)"):
        model.recommend([0, 1], X[:3])
    with pytest.raises(ValueError, match=r"both N=3 and the deprecated n=4; pass N only"):
        with pytest.warns(DeprecationWarning):
            model.recommend(0, X[0], N=3, n=4)
    with pytest.raises(ValueError, match=r"both items=\[1, 2\] and filter_items=\[3\]"):
        model.recommend(0, X[0], items=[1, 2], filter_items=[3])


def test_batch_pads_users_with_too_few_candidates():
    dense = np.zeros((2, 4))
    dense[0, :3] = 1
    dense[1, 0] = 1
    Y = sp.csr_matrix(dense)
    model = Popularity().fit(Y)
    ids, scores = model.recommend([0, 1], Y, N=2)
    assert ids[0].tolist() == [3, -1] and np.isneginf(scores[0, 1])
    assert model.recommend(0, Y[0], N=2)[0].tolist() == [3]  # one user: only real items


def test_fitting_does_not_mutate_the_input():
    before = X.copy()
    MFAUC(n_factors=2, max_iter=2, random_state=0).fit(X)
    assert (X != before).nnz == 0 and X.dtype == before.dtype


@pytest.mark.parametrize(
    "params,match",
    [
        (dict(loss="cubic"), r"'loss' parameter of MFAUC must be one of 'square'.*Got 'cubic'"),
        (dict(n_factors=0), r"'n_factors' parameter of MFAUC must be an int ≥ 1"),
        (dict(regularization=-1.0), r"'regularization' parameter of MFAUC must be a float ≥ 0. Got -1.0"),
        (dict(lam=-1.0), r"'lam' parameter of MFAUC must be a float ≥ 0. Got -1.0"),  # deprecated spelling
        (dict(rho=0.0), r"'rho' parameter of MFAUC must be a float > 0. Got 0.0"),
        (dict(learning_rate=float("nan")), "'learning_rate' parameter"),
        (dict(init="zeros"), "'init' parameter of MFAUC must be one of 'gaussian', 'svd'"),
        (dict(loss="sigmoid", beta=[4.0, 2.0]), "schedule of MFAUC must be strictly increasing"),
        (dict(loss="hinge", beta=[1.0, 2.0]), "only applies to the logistic and sigmoid"),
        (dict(loss="sigmoid", beta=[1.0, 2.0, 4.0], max_iter=2), "smaller than the 3 stages"),
    ],
)
def test_mfauc_parameter_errors(params, match):
    with pytest.raises(ValueError, match=match):
        MFAUC(**params).fit(X)


def test_mfauc_is_reproducible_and_reports_convergence():
    a = MFAUC(n_factors=3, max_iter=4, tol=0.0, random_state=3).fit(X)
    b = MFAUC(n_factors=3, max_iter=4, tol=0.0, random_state=3).fit(X)
    np.testing.assert_array_equal(a.user_factors_, b.user_factors_)
    assert a.n_iter_ == 4 and not a.converged_ and len(a.objective_) == 4
    loose = MFAUC(n_factors=3, max_iter=50, tol=0.5, random_state=3).fit(X)
    assert loose.converged_ and loose.n_iter_ < 50


def test_mfauc_sigmoid_beta_schedule_runs_every_stage():
    model = MFAUC(n_factors=3, loss="sigmoid", beta=[1.0, 4.0], max_iter=6, tol=0.0, random_state=0).fit(X)
    assert model.n_iter_ == 6 and len(model.objective_) == 3


def test_mfauc_decreases_its_objective():
    p = planted_blocks()
    model = MFAUC(n_factors=4, regularization=1e-2, learning_rate=0.3, max_iter=30, tol=0.0, random_state=0).fit(
        p.matrix
    )
    assert model.objective_[-1] < 0.6 * model.objective_[0]


def test_mfauc_skips_users_without_pairs_to_rank():
    dense = X.toarray()
    dense[2] = 1.0  # likes everything: no irrelevant item
    dense[3] = 0.0  # likes nothing
    model = MFAUC(n_factors=2, max_iter=3, random_state=0).fit(sp.csr_matrix(dense))
    assert np.isfinite(model.user_factors_).all()


def test_mfauc_svd_init_and_progress_bar(capsys):
    model = MFAUC(n_factors=3, init="svd", max_iter=2, show_progress=True, random_state=0).fit(X)
    assert model.n_iter_ == 2
    assert "MFAUC" in capsys.readouterr().err


def test_load_errors(tmp_path):
    with pytest.raises(MissingDataError, match="does not exist"):
        Recommender.load(tmp_path / "nope.npz")
    np.savez(tmp_path / "other.npz", a=np.arange(3))
    with pytest.raises(DataFormatError, match="not a ratkit model"):
        Recommender.load(tmp_path / "other.npz")
    path = Popularity().fit(X).save(tmp_path / "pop")
    with pytest.raises(DataFormatError, match="holds a 'popularity' model, which is not a MFAUC"):
        MFAUC.load(path)


def test_mfauc_single_row_steps_as_in_the_paper():
    """batch_size=1 is Algorithm 1's one u-row and one v-row per step: max(m, n) steps."""
    model = MFAUC(n_factors=2, batch_size=1, max_iter=2, tol=0.0, random_state=0).fit(X)
    assert model.n_iter_ == 2 and np.isfinite(model.item_factors_).all()


def test_fit_accepts_interactions_with_id_maps():
    from ratkit.datasets import Interactions

    data = Interactions(X, np.arange(100, 115), np.arange(10))
    model = Popularity().fit(data)
    np.testing.assert_array_equal(model.item_counts_, np.asarray((X > 0).sum(axis=0)).ravel())


def test_n_beyond_the_number_of_items_is_padded_as_implicit_asks_for_it():
    """implicit's ranking_metrics_at_k(model, train, test, K) passes N = K, which may exceed the
    items: the missing places are id −1 and score −inf (misses), not an error."""
    model = Popularity().fit(X)
    users = np.arange(3)
    ids, scores = model.recommend(users, X[users], N=X.shape[1] + 4, filter_already_liked_items=True)
    assert ids.shape == scores.shape == (3, X.shape[1] + 4)
    for row, user in enumerate(users):
        liked = set(X[user].indices)
        ranked = [i for i in ids[row] if i >= 0]
        assert sorted(ranked) == sorted(set(range(X.shape[1])) - liked)
        assert (ids[row][len(ranked) :] == -1).all() and np.isneginf(scores[row][len(ranked) :]).all()
    single_ids, _ = model.recommend(0, X[0], N=50)
    assert list(single_ids) == [i for i in ids[0] if i >= 0]


def test_every_user_reordered_with_one_row_each_warns_that_rows_follow_userid():
    """Regression (review): recommend(perm, X) with X the whole matrix (the deprecated form)
    and perm a permutation of all users took row i as user perm[i]'s items silently, which
    leaked liked items; the call is now flagged, and the rows of the given users need no flag."""
    model = Popularity().fit(X)
    perm = np.arange(X.shape[0])[::-1].copy()
    with pytest.warns(UserWarning, match=r"user_items\[userid\]"):
        model.recommend(perm, X, N=3)
    # the shape cannot tell the two readings apart, so the rows of the given users are flagged
    # too — and read as such
    with pytest.warns(UserWarning, match="rows of the given users"):
        ids, _ = model.recommend(perm, X[perm], N=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.recommend(np.arange(X.shape[0]), X, N=3)  # every user in order: both readings agree
        model.recommend(perm[:-1], X[perm[:-1]], N=3)  # not every user: unambiguous
    for row, user in enumerate(perm):
        assert not set(ids[row]) & set(X[user].indices)
