"""Bad inputs of the recommenders, their evaluation and metrics (issue 21).

Every case asserts the ratkit exception class (which also derives from the fitting builtin)
and the words of the message that name the bad thing. The matrix covers every model
(Popularity, PureSVD, MFAUC, TJSL, FISM, CCCF, DCF): bad training matrices, bad parameters,
bad calls on a fitted model, an inconsistent fitted state (in memory and in a model file),
sizes refused by ratkit.limits, and the evaluation protocol and metrics. Regression cases
of former silent wrong answers are marked in their ids (``silent-``).
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import limits
from ratkit.datasets import Interactions
from ratkit.exceptions import (
    DataFormatError,
    IdOutOfRangeError,
    MissingDataError,
    ModelFormatError,
    NotFittedError,
    ParameterError,
    ParameterTypeError,
    RatkitError,
    ResourceLimitError,
    UnsupportedOperationError,
)
from ratkit.persistence import load_model, save_model
from ratkit.recsys import CCCF, DCF, FISM, MFAUC, TJSL, Popularity, PureSVD, evaluation, feedback, metrics

from ..recsys.synthetic import random_one_class

X = random_one_class(20, 15, 0.3, 0)


def _ratings(m: int = 14, n: int = 10, seed: int = 0) -> sp.csr_matrix:
    """Explicit 1–5 ratings with every user and item rated at least once."""
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((m, n)) < 0.5, rng.integers(1, 6, (m, n)), 0).astype(float)
    dense[np.arange(m), np.arange(m) % n] = 3.0
    dense[np.arange(n) % m, np.arange(n)] = 4.0
    return sp.csr_matrix(dense)


R = _ratings()

CCCF_KW = dict(n_components=2, n_bits=2, max_iter=1, init_iter=1, pretrain_iter=1, random_state=0)
DCF_KW = dict(n_bits=2, max_iter=1, init_iter=1, random_state=0)

#: (id, factory, training matrix) of every model, cheap settings
MODELS = [
    ("popularity", Popularity, X),
    ("puresvd", lambda: PureSVD(n_factors=2, random_state=0), X),
    ("mfauc", lambda: MFAUC(n_factors=2, max_iter=1, random_state=0), X),
    ("tjsl", lambda: TJSL(n_factors=2, n_rounds=1, n_epochs=1, random_state=0), X),
    ("fism", lambda: FISM(n_factors=2, n_epochs=1, random_state=0), X),
    ("cccf", lambda: CCCF(**CCCF_KW), R),
    ("dcf", lambda: DCF(**DCF_KW), R),
]
MODEL_IDS = [m[0] for m in MODELS]


def _with(matrix: sp.csr_matrix, value: float) -> sp.csr_matrix:
    bad = matrix.copy().astype(np.float64)
    bad.data[1] = value
    return bad


# ------------------------------------------------------------------------------- training data
BAD_TRAINING = [
    ("none", lambda m: None, ParameterTypeError, r"scipy\.sparse matrix .*got NoneType"),
    ("list", lambda m: m.toarray().tolist(), ParameterTypeError, r"scipy\.sparse matrix .*got list"),
    ("dense", lambda m: m.toarray(), ParameterTypeError, r"scipy\.sparse matrix .*got ndarray"),
    ("int", lambda m: 5, ParameterTypeError, r"got int"),
    ("complex", lambda m: m.astype(np.complex128), ParameterTypeError, r"real numbers.*complex128"),
    ("empty", lambda m: sp.csr_matrix((0, 0)), DataFormatError, r"shape \(0, 0\) has no interaction"),
    ("all-zero", lambda m: sp.csr_matrix(m.shape), DataFormatError, r"has no interaction"),
    ("nan", lambda m: _with(m, np.nan), DataFormatError, r"NaN or infinite value\(s\) \(the first at user"),
    ("+inf", lambda m: _with(m, np.inf), DataFormatError, r"NaN or infinite"),
    ("-inf", lambda m: _with(m, -np.inf), DataFormatError, r"NaN or infinite"),
]


@pytest.mark.parametrize("model_id, factory, data", MODELS, ids=MODEL_IDS)
@pytest.mark.parametrize("case, make, error, match", BAD_TRAINING, ids=[c[0] for c in BAD_TRAINING])
def test_fit_refuses_bad_training_data(model_id, factory, data, case, make, error, match):
    with pytest.raises(error, match=match):
        factory().fit(make(data))


@pytest.mark.parametrize("model_id, factory, data", MODELS[:5], ids=MODEL_IDS[:5])
def test_one_class_models_refuse_negative_values(model_id, factory, data):
    with pytest.raises(DataFormatError, match=r"negative value\(s\).*to_one_class"):
        factory().fit(_with(data, -1.0))


def test_ratings_models_refuse_a_pair_stored_twice():
    coo = sp.coo_matrix(R)
    twice = sp.coo_matrix(
        (np.r_[coo.data, 2.0], (np.r_[coo.row, coo.row[0]], np.r_[coo.col, coo.col[0]])), shape=R.shape
    )
    for model in (CCCF(**CCCF_KW), DCF(**DCF_KW)):
        with pytest.raises(DataFormatError, match=r"more than once .*user 0"):
            model.fit(twice)


def test_to_one_class_refuses_a_pair_stored_twice_and_reads_negative_ratings():
    """Regression (audit): to_one_class summed a pair stored twice before the threshold (3 and
    3 made a positive at threshold 4), and refused negative ratings by asking for a conversion
    with to_one_class itself. Ratings are read as to_heterogeneous reads them."""
    twice = sp.coo_matrix(([3.0, 3.0, 5.0], ([0, 0, 0], [0, 0, 1])), shape=(1, 3))
    with pytest.raises(DataFormatError, match=r"more than once .*user 0"):
        feedback.to_one_class(twice, 4)
    with pytest.raises(DataFormatError, match=r"more than once"):
        feedback.to_one_class(sp.csr_matrix(([3.0, 3.0, 5.0], [0, 0, 1], [0, 3]), shape=(1, 3)), 4)  # CSR by hand
    negative = sp.csr_matrix(np.array([[-5.0, -1.0, 0.0], [-3.0, 0.0, -2.0]]))
    np.testing.assert_array_equal(feedback.to_one_class(negative, -2).toarray(), [[0, 1, 0], [0, 0, 1]])


def test_a_model_of_negative_ratings_is_evaluated_on_them():
    """Regression (audit): ranking_metrics read the training matrix as one-class feedback and
    refused the negative ratings a CCCF fitted on rating_scale=(-5, -1) was trained on. The
    training matrix only marks the seen items, so the metrics equal those on its pattern."""
    negative = R.copy()
    negative.data = negative.data - 6.0  # 1..5 → -5..-1
    coo = negative.tocoo()
    held = np.zeros(coo.nnz, dtype=bool)
    held[[int(np.flatnonzero(coo.row == u)[0]) for u in range(R.shape[0])]] = True
    train = sp.csr_matrix((coo.data[~held], (coo.row[~held], coo.col[~held])), shape=R.shape)
    test = sp.csr_matrix((np.ones(held.sum()), (coo.row[held], coo.col[held])), shape=R.shape)
    model = CCCF(**CCCF_KW, rating_scale=(-5, -1)).fit(train)
    pattern = train.copy()
    pattern.data[:] = 1.0
    got = evaluation.ranking_metrics(model, train, test, k=3)
    assert got == evaluation.ranking_metrics(model, pattern, test, k=3)


# ---------------------------------------------------------------------------------- parameters
BAD_PARAMETERS = [
    (PureSVD, {"n_factors": 0}, ParameterError, r"'n_factors' parameter of PureSVD must be an int ≥ 1. Got 0"),
    (PureSVD, {"n_factors": "3"}, ParameterTypeError, r"'n_factors' .*Got '3'"),
    (PureSVD, {"n_factors": None}, ParameterTypeError, r"'n_factors' .*Got None"),
    (PureSVD, {"n_factors": 2.5}, ParameterTypeError, r"'n_factors' .*Got 2.5"),
    (PureSVD, {"n_factors": 1000}, ParameterError, r"'n_factors' parameter must be below min.* = 15.*Got 1000"),
    (MFAUC, {"n_factors": 0}, ParameterError, r"'n_factors' parameter of MFAUC"),
    (MFAUC, {"learning_rate": np.nan}, ParameterError, r"'learning_rate' .*finite float > 0. Got nan"),
    (MFAUC, {"learning_rate": np.inf}, ParameterError, r"'learning_rate' .*finite float > 0. Got inf"),
    (MFAUC, {"lam": -1}, ParameterError, r"'lam' .*Got -1"),
    (MFAUC, {"loss": "nope"}, ParameterError, r"'loss' .*Got 'nope'"),
    (MFAUC, {"init": "svd", "n_factors": 50}, ParameterError, r"'n_factors' parameter must be below min"),
    (TJSL, {"n_rounds": 0}, ParameterError, r"'n_rounds' parameter of TJSL"),
    (TJSL, {"n_average": 5, "n_rounds": 3}, ParameterError, r"n_average=5 is more than n_rounds=3"),
    (TJSL, {"tau_decay": 1.5}, ParameterError, r"'tau_decay' .*\(0, 1\]. Got 1.5"),
    (TJSL, {"tau_decay": np.nan}, ParameterError, r"'tau_decay' .*Got nan"),
    (TJSL, {"rho": -1}, ParameterError, r"'rho' .*Got -1"),
    (FISM, {"n_factors": -1}, ParameterError, r"'n_factors' parameter of FISM"),
    (FISM, {"n_epochs": 0}, ParameterError, r"'n_epochs' parameter of FISM"),
    (FISM, {"learning_rate": np.inf}, ParameterError, r"'learning_rate' .*Got inf"),
]


@pytest.mark.parametrize("cls, params, error, match", BAD_PARAMETERS, ids=lambda v: getattr(v, "__name__", None))
def test_bad_parameters_are_named(cls, params, error, match):
    with pytest.raises(error, match=match):
        cls(**params).fit(X)


# CCCF: G, r < 1; h ≤ 0; e ≤ 0; a bad declared scale; DCF alike
BAD_CODES = [
    (CCCF, {"n_components": 0}, ParameterError, r"'n_components' parameter of CCCF must be an int ≥ 1. Got 0"),
    (CCCF, {"n_bits": 0}, ParameterError, r"'n_bits' parameter of CCCF must be an int ≥ 1. Got 0"),
    (CCCF, {"n_bits": -3}, ParameterError, r"'n_bits' .*Got -3"),
    (CCCF, {"n_bits": 64}, ParameterError, r"more users than bits.*n_bits=64"),
    (CCCF, {"bandwidth": 0}, ParameterError, r"'bandwidth' parameter of CCCF must be a float > 0. Got 0"),
    (CCCF, {"bandwidth": -1}, ParameterError, r"'bandwidth' .*Got -1"),
    (CCCF, {"bandwidth": np.nan}, ParameterError, r"'bandwidth' .*finite float > 0. Got nan"),
    (CCCF, {"bandwidth": np.inf}, ParameterError, r"'bandwidth' .*Got inf"),
    (CCCF, {"weight_scale": 0}, ParameterError, r"'weight_scale' parameter of CCCF must be a float > 0. Got 0"),
    (CCCF, {"weight_scale": -1}, ParameterError, r"'weight_scale' .*Got -1"),
    (CCCF, {"kernel": "gauss"}, ParameterError, r"'kernel' .*Got 'gauss'"),
    (CCCF, {"rating_scale": (5, 1)}, ParameterError, r"'rating_scale' .*low < high; got \(5, 1\)"),
    (CCCF, {"rating_scale": (1, np.nan)}, ParameterError, r"'rating_scale\[1\]' .*finite float. Got nan"),
    (CCCF, {"rating_scale": "ab"}, ParameterTypeError, r"'rating_scale' .*pair \(low, high\); got 'ab'"),
    (
        CCCF,
        {"rating_scale": (1, 3)},
        DataFormatError,
        r"The rating 4 of user 0 for item 0 is outside the declared rating_scale=\(1, 3\)",
    ),
    (DCF, {"n_bits": 0}, ParameterError, r"'n_bits' parameter of DCF"),
    (DCF, {"alpha_user": np.nan}, ParameterError, r"'alpha_user' .*finite float ≥ 0. Got nan"),
    (DCF, {"rating_scale": (1, 3)}, DataFormatError, r"outside the declared rating_scale"),
]


@pytest.mark.parametrize("cls, params, error, match", BAD_CODES, ids=lambda v: getattr(v, "__name__", None))
def test_compositional_codes_bad_settings(cls, params, error, match):
    base = dict(CCCF_KW if cls is CCCF else DCF_KW)
    with pytest.raises(error, match=match):
        cls(**(base | params)).fit(R)


@pytest.mark.parametrize("cls", [CCCF, DCF])
def test_compositional_codes_take_users_and_items_without_ratings(cls):
    """A user and an item with no rating are allowed (documented): fit works and their
    scores are finite numbers, so recommend never returns NaN."""
    ratings = R.tolil()
    ratings[0, :] = 0
    ratings[:, 0] = 0
    ratings = ratings.tocsr()
    ratings.eliminate_zeros()
    model = cls(**(CCCF_KW if cls is CCCF else DCF_KW)).fit(ratings)
    assert np.isfinite(model.score(np.zeros(10, int), np.arange(10))).all()
    ids, scores = model.recommend(0, ratings[0], N=3)
    assert len(ids) == 3 and np.isfinite(scores).all()


def test_tjsl_examined_of_another_shape_or_overlapping():
    examined = random_one_class(20, 15, 0.2, 1)
    with pytest.raises(DataFormatError, match=r"examined has shape \(20, 5\) but preferred has \(20, 15\)"):
        TJSL(n_factors=2, n_rounds=1, n_epochs=1).fit(X, examined[:, :5])
    with pytest.raises(DataFormatError, match=r"both preferred and examined"):
        TJSL(n_factors=2, n_rounds=1, n_epochs=1).fit(X, X)
    with pytest.raises(ParameterTypeError, match=r"examined must be a scipy\.sparse matrix"):
        TJSL(n_factors=2, n_rounds=1, n_epochs=1).fit(X, examined.toarray())


def test_fism_refuses_a_matrix_without_negatives():
    with pytest.raises(DataFormatError, match=r"Every \(user, item\) pair of the 3 × 3 matrix is preferred"):
        FISM(n_epochs=1).fit(sp.csr_matrix(np.ones((3, 3))))


# -------------------------------------------------------------------------- calls on a fitted model
SVD = PureSVD(n_factors=3, random_state=0).fit(X)
POP = Popularity().fit(X)

BAD_CALLS = [
    ("user-float", lambda: SVD.recommend(1.5, X[1]), ParameterTypeError, r"user ids must be integer.*float64"),
    ("user-str", lambda: SVD.recommend("a", X[0]), ParameterTypeError, r"user ids must be integer.*<U1"),
    ("user-none", lambda: SVD.recommend(None, X[0]), ParameterTypeError, r"user ids must be integer.*object"),
    ("user-bool", lambda: SVD.recommend(True, X[0]), ParameterTypeError, r"user ids must be integer.*bool"),
    ("user-negative", lambda: SVD.recommend(-1, X[0]), IdOutOfRangeError, r"user id -1 is out of range.*\[0, 20\)"),
    ("user-huge", lambda: SVD.recommend(10**6, X[0]), IdOutOfRangeError, r"user id 1000000 is out of range"),
    ("N-0", lambda: SVD.recommend(0, X[0], N=0), ParameterError, r"'N' parameter of PureSVD.recommend .*Got 0"),
    ("N-float", lambda: SVD.recommend(0, X[0], N=2.5), ParameterTypeError, r"'N' .*Got 2.5"),
    ("N-nan", lambda: SVD.recommend(0, X[0], N=np.nan), ParameterTypeError, r"'N' .*Got nan"),
    ("rows-dense", lambda: SVD.recommend(0, np.ones((1, 15))), ParameterTypeError, r"user_items must be a scipy"),
    ("rows-short", lambda: SVD.recommend(0, X[0][:, :7]), DataFormatError, r"shape \(1, 7\).*shape \(1, 15\)"),
    ("rows-many", lambda: SVD.recommend(0, X[:2]), DataFormatError, r"user_items has shape \(2, 15\)"),
    ("rows-transposed", lambda: SVD.recommend(np.arange(20), X.T.tocsr()), DataFormatError, r"looks transposed"),
    ("rows-nan", lambda: SVD.recommend(0, _with(X[:1], np.nan)), DataFormatError, r"NaN or infinite"),
    ("rows-missing", lambda: SVD.recommend(0), ParameterError, r"needs user_items, the rows of the given users"),
    ("items-float", lambda: SVD.recommend(0, X[0], items=[0.5]), ParameterTypeError, r"item ids must be integer"),
    ("items-range", lambda: SVD.recommend(0, X[0], items=[99]), IdOutOfRangeError, r"item id 99 is out of range"),
    ("items-empty", lambda: SVD.recommend(0, X[0], items=[]), ParameterError, r"empty items list"),
    ("items-and-filter", lambda: SVD.recommend(0, X[0], items=[1], filter_items=[2]), ParameterError, r"got both"),
    ("filter-range", lambda: SVD.recommend(0, X[0], filter_items=[15]), IdOutOfRangeError, r"item id 15"),
    ("score-none", lambda: SVD.score(None, None), ParameterTypeError, r"user ids must be integer"),
    ("score-item-range", lambda: SVD.score([0], [-1]), IdOutOfRangeError, r"item id -1 is out of range"),
    ("score-nan", lambda: SVD.score([0], [np.nan]), ParameterTypeError, r"item ids must be integer.*float64"),
    ("score-lengths", lambda: SVD.score([0, 1], [0, 1, 2]), ParameterError, r"\(2,\) and \(3,\) do not broadcast"),
    ("score-ragged", lambda: SVD.score([[0, 1], [0]], 0), ParameterTypeError, r"userids must be an int or an array"),
    ("similar-N", lambda: SVD.similar_items(0, N=-2), ParameterError, r"'N' parameter of PureSVD.similar_items"),
    ("similar-range", lambda: SVD.similar_users(-5), IdOutOfRangeError, r"user id -5 is out of range"),
    ("similar-recalc", lambda: SVD.similar_items(0, recalculate_item=True), UnsupportedOperationError, r"recalc"),
    ("popularity-similar", lambda: POP.similar_items(0), UnsupportedOperationError, r"Popularity has no item"),
    ("not-fitted", lambda: PureSVD().recommend(0, X[0]), NotFittedError, r"PureSVD instance is not fitted"),
]


@pytest.mark.parametrize("case, call, error, match", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_calls_on_a_fitted_model(case, call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_score_pairs_one_id_against_many_still_works():
    np.testing.assert_allclose(SVD.score(0, np.arange(15)), SVD.score(np.zeros(15, int), np.arange(15)))
    np.testing.assert_allclose(SVD.score([2, 3], [4, 5]), [SVD.score(2, 4), SVD.score(3, 5)])


def test_popularity_recalculate_user_is_exact():
    """Popularity has no user term, so recalculate_user=True gives the fitted ranking (the
    documented reading, checked against the item counts computed here)."""
    counts = np.asarray((X > 0).sum(axis=0)).ravel()
    ids, scores = POP.recommend(0, X[0], N=15, recalculate_user=True, filter_already_liked_items=False)
    np.testing.assert_array_equal(scores, counts[ids])
    assert list(ids) == sorted(range(15), key=lambda i: (-counts[i], i))


def _svd_copy():
    return PureSVD(n_factors=3, random_state=0).fit(X)


def test_inconsistent_state_in_memory_is_refused_by_name():
    model = _svd_copy()
    model.item_factors_ = model.item_factors_[:5]
    with pytest.raises(DataFormatError, match=r"item_factors_ has shape \(5, 3\), but axis 0 should have 15"):
        model.recommend(0, X[0])
    model = _svd_copy()
    model.user_factors_ = model.user_factors_[:, :2]
    with pytest.raises(DataFormatError, match=r"item_factors_ has shape \(15, 3\), but axis 1 should have 2"):
        model.score([0], [0])
    model = _svd_copy()
    model.n_items_ = -1
    with pytest.raises(DataFormatError, match=r"fitted n_items_ is -1"):
        model.recommend(0, X[0])


@pytest.mark.parametrize(
    "attribute, edit, match",
    [
        ("item_factors_", lambda a: a[:5], r"item_factors_ has shape \(5, 3\)"),
        ("user_factors_", lambda a: a[:, :1], r"axis 1 should have"),
        ("item_factors_", lambda a: np.where(a == a.flat[0], np.nan, a), r"item_factors_ holds NaN or infinite"),
        ("item_factors_", lambda a: a[:, :, None], r"expected a 2-D array"),
    ],
    ids=["rows", "columns", "nan", "3-D"],
)
def test_inconsistent_model_file_is_refused_at_load(tmp_path, attribute, edit, match):
    model = _svd_copy()
    setattr(model, attribute, edit(getattr(model, attribute)))
    path = save_model(model, tmp_path / "m.zip")  # the writer stores what it is given
    with pytest.raises(ModelFormatError, match=match):
        load_model(path)


@pytest.mark.parametrize("attribute", ["item_bias_", "candidate_factors_", "selected_"])
def test_inconsistent_tjsl_file_is_refused_at_load(tmp_path, attribute):
    model = TJSL(n_factors=2, n_rounds=1, n_epochs=1, random_state=0).fit(X)
    setattr(model, attribute, getattr(model, attribute)[:, :4] if attribute != "selected_" else model.selected_[:3])
    path = save_model(model, tmp_path / "t.zip")
    with pytest.raises(ModelFormatError, match=attribute):
        load_model(path)


def test_popularity_file_with_counts_of_another_length(tmp_path):
    model = Popularity().fit(X)
    model.item_counts_ = model.item_counts_[:3]
    with pytest.raises(ModelFormatError, match=r"item_counts_ has shape \(3,\), but axis 0 should have 15"):
        load_model(save_model(model, tmp_path / "p.zip"))


# ------------------------------------------------------------------------------------- sizes
def _quick(call, error, match):
    start = time.perf_counter()
    with pytest.raises(error, match=match):
        call()
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(
    "case, call",
    [
        ("mfauc-factors", lambda: MFAUC(n_factors=10**9, max_iter=1).fit(X)),
        ("fism-factors", lambda: FISM(n_factors=10**9, n_epochs=1).fit(X)),
        ("tjsl-factors", lambda: TJSL(n_factors=10**9, n_epochs=1).fit(X)),
        ("shape", lambda: Popularity().fit(sp.coo_matrix((10**13, 2)))),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_huge_fits_are_refused_before_allocating(case, call):
    _quick(call, ResourceLimitError, r"more than the limit of .*ratkit\.limits\.max_bytes")


@pytest.mark.parametrize(
    "call",
    [
        lambda: SVD.recommend(0, X[0], N=10**12),
        lambda: SVD.recommend([0, 1], X[:2], N=10**12),
        lambda: SVD.similar_items(0, N=10**12),
    ],
    ids=["recommend", "recommend-many", "similar-items"],
)
def test_huge_N_is_refused_not_padded(call):
    _quick(call, ResourceLimitError, r"with N=1000000000000 for .* row\(s\).*Ask for at most N=(15|20)")


def test_load_paths(tmp_path):
    with pytest.raises(ParameterTypeError, match=r"PureSVD\.load needs the path of a model file.*NoneType"):
        PureSVD.load(None)
    with pytest.raises(MissingDataError, match=r"nope\.zip' does not exist"):
        PureSVD.load(tmp_path / "nope.zip")
    path = save_model(Popularity().fit(X), tmp_path / "p.zip")
    with pytest.raises(DataFormatError, match=r"holds a 'popularity' model, which is not a PureSVD"):
        PureSVD.load(path)


def test_limits_apply_to_svd_recommend_and_evaluation():
    wide = evaluation.ranking_metrics(SVD, TRAIN, TEST, k=2)
    with limits.limits(max_bytes=2000):  # reading X (about 1.6 KB) fits
        _quick(lambda: PureSVD(n_factors=3).fit(X), ResourceLimitError, r"truncated SVD of rank 3")
        # the answer (ids and scores, 12 bytes a place) must fit whole
        _quick(lambda: SVD.recommend(np.arange(20), X), ResourceLimitError, r"PureSVD.recommend with N=10 for 20 row")
        # the work beyond it is done in blocks of users within the limit (issue 35), not refused
        assert SVD.recommend(np.arange(20), X, N=2)[0].shape == (20, 2)
        assert evaluation.ranking_metrics(SVD, TRAIN, TEST, k=2) == pytest.approx(wide, nan_ok=True)
    with limits.limits(max_bytes=500):  # only one user's row of scores too many is refused
        _quick(
            lambda: SVD.recommend(np.arange(20), None, N=2, filter_already_liked_items=False),
            ResourceLimitError,
            r"PureSVD.recommend for one user × 15 items would allocate about 600 B",
        )


# -------------------------------------------------------------------------------- evaluation
TRAIN, TEST = evaluation.leave_k_out(X, 1, random_state=0)
INTER = Interactions(sp.csr_matrix(np.tile([[1.0, 2.0, 3.0]], (20, 1))), np.arange(20), np.arange(3))

BAD_EVALUATION = [
    ("model-int", lambda: evaluation.ranking_metrics(5, TRAIN, TEST), ParameterTypeError, r"'model' .*Got int"),
    ("model-unfitted", lambda: evaluation.ranking_metrics(PureSVD(), TRAIN, TEST), NotFittedError, r"not fitted"),
    ("k-0", lambda: evaluation.ranking_metrics(SVD, TRAIN, TEST, k=0), ParameterError, r"'k' parameter.*Got 0"),
    ("k-big", lambda: evaluation.ranking_metrics(SVD, TRAIN, TEST, k=99), ParameterError, r"k=99 exceeds .*15"),
    ("k-str", lambda: evaluation.ranking_metrics(SVD, TRAIN, TEST, k="5"), ParameterTypeError, r"'k' .*Got '5'"),
    ("batch-0", lambda: evaluation.ranking_metrics(SVD, TRAIN, TEST, batch_size=0), ParameterError, r"batch_size"),
    ("test-shape", lambda: evaluation.ranking_metrics(SVD, TRAIN, TEST[:5]), DataFormatError, r"test has shape"),
    ("test-none", lambda: evaluation.ranking_metrics(SVD, TRAIN, None), ParameterTypeError, r"test must be a scipy"),
    ("overlap", lambda: evaluation.ranking_metrics(SVD, X, X), DataFormatError, r"share .* \(user, item\) pairs"),
    ("test-transposed", lambda: evaluation.ranking_metrics(SVD, TRAIN, TEST.T), DataFormatError, r"looks transposed"),
    ("protocol-none", lambda: evaluation.evaluate(SVD, TRAIN, TEST, None), ParameterTypeError, r"'protocol' .*None"),
    (
        "protocol-no-ks",
        lambda: evaluation.evaluate(SVD, TRAIN, TEST, evaluation.Protocol("d", ks=())),
        ParameterError,
        r"cutoffs 'ks' must be a non-empty tuple.*Got \(\)",
    ),
    (
        "protocol-k-0",
        lambda: evaluation.evaluate(SVD, TRAIN, TEST, evaluation.Protocol("d", ks=(0,))),
        ParameterError,
        r"'k' parameter of evaluate .*Got 0",
    ),
    ("split-none", lambda: evaluation.leave_k_out(None), ParameterTypeError, r"user_items must be a scipy.*None"),
    ("split-n0", lambda: evaluation.leave_k_out(X, 0), ParameterError, r"'n_test' parameter of leave_k_out"),
    ("split-min", lambda: evaluation.leave_k_out(X, min_train=-1), ParameterError, r"'min_train'"),
    ("ratio-big", lambda: evaluation.ratio_split(X, 1.5), ParameterError, r"'test_ratio' .*Got 1.5"),
    ("ratio-nan", lambda: evaluation.ratio_split(X, np.nan), ParameterError, r"'test_ratio' .*finite.*Got nan"),
    (
        "prepare-threshold",
        lambda: evaluation.prepare_leave_k_out(INTER, threshold=99, min_positives=1, n_test=1, random_state=0),
        DataFormatError,
        r"No rating of .* is >= threshold=99.*no\s+user has a positive",
    ),
    (
        "prepare-feedback",
        lambda: evaluation.prepare_leave_k_out(
            INTER, threshold=2, min_positives=1, n_test=1, random_state=0, feedback="both"
        ),
        ParameterError,
        r"'feedback' .*Got 'both'",
    ),
    ("one-class-int", lambda: feedback.to_one_class(5, threshold=3), ParameterTypeError, r"data must be a scipy"),
    ("one-class-nan", lambda: feedback.to_one_class(X, threshold=np.nan), ParameterError, r"'threshold' .*nan"),
    ("keep-users", lambda: feedback.keep_users_with(X, -1), ParameterError, r"'min_items' .*Got -1"),
    ("heterogeneous", lambda: feedback.to_heterogeneous(X, "mode"), ParameterError, r"'preferred' .*'mode'"),
]


@pytest.mark.parametrize("case, call, error, match", BAD_EVALUATION, ids=[c[0] for c in BAD_EVALUATION])
def test_bad_evaluation_inputs(case, call, error, match):
    with pytest.raises(error, match=match):
        call()


# ----------------------------------------------------------------------------------- metrics
BAD_METRICS = [
    (
        "silent-ranking-n-relevant-length",
        lambda: metrics.ranking_scores(np.ones((2, 3)), np.array([1]), 3),
        DataFormatError,
        r"n_relevant must hold one count per row of hits, shape \(2,\); got shape \(1,\)",
    ),
    (
        "silent-ranking-more-hits",
        lambda: metrics.ranking_scores(np.ones((2, 3)), np.array([1, 1]), 3),
        DataFormatError,
        r"row 0 has 3 hits in its top 3 but n_relevant says 1",
    ),
    ("ranking-1d", lambda: metrics.ranking_scores(np.ones(3), [1], 3), DataFormatError, r"hits must be a 2-D"),
    (
        "ranking-nan",
        lambda: metrics.ranking_scores(np.ones((1, 3)), [np.nan], 3),
        DataFormatError,
        r"n_relevant holds NaN",
    ),
    ("ranking-zero", lambda: metrics.ranking_scores(np.zeros((1, 3)), [0], 3), DataFormatError, r"row 0 has 0"),
    ("ranking-k", lambda: metrics.ranking_scores(np.zeros((1, 3)), [1], 0), ParameterError, r"'k' parameter"),
    (
        "auc-rows-shape",
        lambda: metrics.auc_rows(np.ones((2, 3)), np.ones((2, 2), bool), np.ones((2, 3), bool)),
        DataFormatError,
        r"positive must have the shape of scores, \(2, 3\); got \(2, 2\)",
    ),
    (
        "auc-rows-candidate",
        lambda: metrics.auc_rows(np.ones((2, 3)), np.ones((2, 3), bool), np.ones((3, 2), bool)),
        DataFormatError,
        r"candidate must have the shape",
    ),
    (
        "auc-rows-nan",
        lambda: metrics.auc_rows(np.array([[np.nan, 1.0]]), np.array([[True, False]]), np.ones((1, 2), bool)),
        DataFormatError,
        r"NaN",
    ),
    (
        # regression (audit): -inf tied with the excluded items it is ranked against: AUC -0.25
        "auc-rows-inf",
        lambda: metrics.auc_rows(
            np.array([[-np.inf, 0.0, 1.0, 5.0]]),
            np.array([[True, False, False, False]]),
            np.array([[1, 1, 1, 0]], bool),
        ),
        DataFormatError,
        r"NaN or infinite value\(s\) for candidate items \(the first: row 0, item 0, -inf\)",
    ),
    ("recall-empty", lambda: metrics.recall_at_k([1, 2], [], 2), ParameterError, r"at least one relevant item"),
    ("precision-repeat", lambda: metrics.precision_at_k([1, 1, 1], [1], 3), ParameterError, r"repeats an item \(1\)"),
    ("ndcg-k", lambda: metrics.ndcg_at_k([1, 2], {1}, -1), ParameterError, r"'k' parameter of ndcg_at_k"),
    ("ranked-none", lambda: metrics.ndcg_at_k(None, {1}, 2), ParameterTypeError, r"ranked must be a sequence"),
    ("ranked-str", lambda: metrics.f1_at_k("12", {1}, 2), ParameterTypeError, r"ranked must be a sequence"),
    ("relevant-float", lambda: metrics.recall_at_k([1], [1.5], 1), ParameterTypeError, r"relevant .*got 1.5"),
    ("auc-nan", lambda: metrics.auc_score([0.1, np.nan, 0.3], [1]), DataFormatError, r"finite scores; got nan"),
    ("auc-inf", lambda: metrics.auc_score([0.1, np.inf, 0.3], [1]), DataFormatError, r"finite scores; got inf"),
    ("auc-2d", lambda: metrics.auc_score(np.ones((2, 2)), [1]), DataFormatError, r"1-D score vector"),
    ("auc-str", lambda: metrics.auc_score(["a", "b"], [1]), ParameterTypeError, r"scores must be an array"),
    ("auc-range", lambda: metrics.auc_score([0.1, 0.2], [5]), IdOutOfRangeError, r"relevant item id 5"),
    ("auc-all", lambda: metrics.auc_score([0.1, 0.2], [0, 1]), ParameterError, r"one relevant and one other"),
    ("auc-both", lambda: metrics.auc_score([0.1, 0.2], [0], exclude=[0]), ParameterError, r"both relevant"),
]


@pytest.mark.parametrize("case, call, error, match", BAD_METRICS, ids=[c[0] for c in BAD_METRICS])
def test_bad_metric_inputs(case, call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_every_error_of_the_matrix_is_a_ratkit_error_and_its_builtin():
    """The classes the tables assert derive from the builtins the policy names."""
    assert issubclass(ParameterTypeError, TypeError) and issubclass(ParameterTypeError, RatkitError)
    assert issubclass(IdOutOfRangeError, IndexError) and issubclass(DataFormatError, ValueError)
    assert issubclass(ResourceLimitError, MemoryError)


def test_score_broadcasts_ids_as_documented():
    # the review of issue 21: refusing unequal shapes also refused the documented broadcasting
    # (one user with many items, an outer grid); the oracle is one call per pair
    one = lambda u, i: float(SVD.score(u, i))  # noqa: E731
    np.testing.assert_allclose(SVD.score([0, 1], [0]), [one(0, 0), one(1, 0)])
    np.testing.assert_allclose(SVD.score([1], [0, 1, 2]), [one(1, 0), one(1, 1), one(1, 2)])
    users, items = np.array([0, 2]), np.array([1, 3, 4])
    grid = SVD.score(users[:, None], items[None, :])
    assert grid.shape == (2, 3)
    np.testing.assert_allclose(grid, [[one(u, i) for i in items] for u in users])


def test_loading_a_learner_as_a_recommender_does_not_suggest_a_load_it_lacks(tmp_path):
    """Regression (audit): the message said 'or RationalSVC.load', which does not exist."""
    from ratkit.learners import RationalSVC

    path = save_model(
        RationalSVC({"family": "ngram", "n": 1}).fit(["ab", "ba", "aa", "bb"], [0, 1, 0, 1]), tmp_path / "m"
    )
    with pytest.raises(DataFormatError, match=r"which is not a PureSVD; load it with ratkit\.load_model\.$"):
        PureSVD.load(path)
