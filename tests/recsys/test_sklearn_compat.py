"""Recommenders are scikit-learn estimators: clone, get_params(deep=True), set_params, NotFittedError."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.exceptions
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ratkit import plugins
from ratkit.exceptions import NotFittedError, RatkitError
from ratkit.recsys import MFAUC, PureSVD, Recommender
from ratkit.testing._params import same_params

from .synthetic import random_one_class

X = random_one_class(20, 12, 0.4, seed=0)
#: the same pattern as 1–5 ratings, for the models of explicit ratings
RATINGS = X.copy()
RATINGS.data = np.random.default_rng(0).integers(1, 6, RATINGS.nnz).astype(np.float64)
FAST = {"mfauc": {"n_factors": 2, "max_iter": 2, "random_state": 0}, "puresvd": {"n_factors": 2, "random_state": 0}}


def _model(name: str) -> Recommender:
    return plugins.get("recommender", name)(**FAST.get(name, {}))


@pytest.mark.parametrize("name", plugins.available("recommender"))
def test_clone_of_every_recommender_is_unfitted_with_equal_params(name):
    model = _model(name)
    model.fit(RATINGS if model.feedback == "explicit" else X)
    copy = clone(model)
    assert type(copy) is type(model) and copy is not model
    assert same_params(copy.get_params(deep=True), model.get_params(deep=True))
    assert not copy.is_fitted() and not hasattr(copy, "n_items_")
    with pytest.raises(sklearn.exceptions.NotFittedError):
        check_is_fitted(copy)
    check_is_fitted(model)


@pytest.mark.parametrize("name", plugins.available("recommender"))
def test_not_fitted_error_is_scikit_learns_and_ratkits(name):
    model = _model(name)
    try:
        model.recommend(0, X[0])
    except sklearn.exceptions.NotFittedError as exc:  # the clause scikit-learn code writes
        assert isinstance(exc, NotFittedError) and isinstance(exc, RatkitError)
        assert type(model).__name__ in str(exc)
    else:  # pragma: no cover - the failure being tested for
        pytest.fail("recommend before fit raised nothing")


@pytest.mark.parametrize("name", plugins.available("recommender"))
def test_set_params_round_trip(name):
    model = _model(name)
    params = model.get_params(deep=True)
    assert model.set_params(**params) is model
    assert same_params(model.get_params(deep=True), params)
    assert same_params(clone(model).get_params(deep=True), params)


def test_set_params_changes_the_named_parameter_only():
    model = MFAUC(n_factors=3, lam=0.1)
    model.set_params(lam=0.5, loss="square")
    expected = {**MFAUC().get_params(), "n_factors": 3, "lam": 0.5, "loss": "square"}
    assert model.get_params() == expected
    with pytest.raises(ValueError, match="bogus"):
        model.set_params(bogus=1)


def test_set_params_after_fit_leaves_the_fitted_model_until_refit():
    model = PureSVD(n_factors=2, random_state=0).fit(X)
    factors = model.user_factors_.copy(), model.item_factors_.copy()
    model.set_params(n_factors=4)
    assert model.user_factors_.shape[1] == 2
    np.testing.assert_array_equal(model.score([0, 1], [2, 3]), (factors[0][[0, 1]] * factors[1][[2, 3]]).sum(1))
    model.fit(X)
    assert model.user_factors_.shape[1] == model.item_factors_.shape[1] == 4


def test_random_generator_parameter_is_copied_by_clone():
    rng = np.random.default_rng(7)
    model = MFAUC(n_factors=2, max_iter=2, random_state=rng)
    copy = clone(model)
    assert copy.random_state is not rng
    assert same_params(copy.get_params(), model.get_params())
    # two clones of one configuration draw the same numbers: the clone's generator is a copy
    a, b = clone(model).fit(X), clone(model).fit(X)
    np.testing.assert_array_equal(a.user_factors_, b.user_factors_)


class Shrunk(Recommender):
    """A recommender with an estimator-valued parameter: ``s(u, i) = shrink · s_base(u, i)``."""

    _fitted_attributes: ClassVar[tuple[str, ...]] = ("base_",)

    def __init__(self, base: Recommender | None = None, shrink: float = 0.5) -> None:
        self.base = base
        self.shrink = shrink

    def _fit(self, user_items: sp.csr_matrix) -> None:
        self.base_ = clone(self.base).fit(user_items)
        self.shrink_ = float(self.shrink)

    def _score_users(self, users: np.ndarray) -> np.ndarray:
        return self.shrink_ * self.base_._score_users(users)


def test_nested_parameters_of_an_estimator_parameter():
    model = Shrunk(base=PureSVD(n_factors=2, random_state=0))
    params = model.get_params(deep=True)
    assert params["base__n_factors"] == 2 and params["base__random_state"] == 0 and params["shrink"] == 0.5
    model.set_params(base__n_factors=3, shrink=0.25)
    assert model.base.n_factors == 3 and model.shrink == 0.25
    copy = clone(model)
    assert copy.base is not model.base and copy.base.n_factors == 3
    fitted = copy.fit(X)
    assert copy.base.is_fitted() is False  # fit cloned the estimator it was given
    expected = 0.25 * PureSVD(n_factors=3, random_state=0).fit(X).score([0, 5], [1, 2])
    np.testing.assert_allclose(fitted.score([0, 5], [1, 2]), expected)
    assert repr(model) == "Shrunk(base=PureSVD(n_factors=3, random_state=0), shrink=0.25)"


def test_repr_lists_every_parameter_in_declaration_order():
    assert repr(PureSVD(n_factors=3)) == "PureSVD(n_factors=3, random_state=None)"
    text = repr(MFAUC(regularization=0.5))
    assert text.startswith("MFAUC(n_factors=32, loss='hinge', regularization=0.5, rho=None,")
    assert text.endswith("random_state=None, show_progress=False)")  # a deprecated name unset is left out
    assert repr(MFAUC(lam=0.5)).endswith("random_state=None, show_progress=False, lam=0.5)")


def test_a_model_holding_estimators_is_saved_and_restored(tmp_path):
    """An estimator-valued parameter (unfitted) and a fitted estimator attribute both go into
    the model file as registered plugins with their own state ('Cannot save Shrunk: params.base
    is a PureSVD' before)."""
    from ratkit import load_model
    from ratkit.plugins import registry

    registry.register("recommender", "shrunk-test")(Shrunk)
    try:
        model = Shrunk(base=PureSVD(n_factors=2, random_state=0), shrink=0.25).fit(X)
        again = load_model(model.save(tmp_path / "shrunk.zip"))
        assert type(again) is Shrunk and type(again.base) is PureSVD and type(again.base_) is PureSVD
        assert again.base.get_params() == {"n_factors": 2, "random_state": 0} and not again.base.is_fitted()
        np.testing.assert_array_equal(again.base_.item_factors_, model.base_.item_factors_)
        users, items = np.repeat(np.arange(X.shape[0]), X.shape[1]), np.tile(np.arange(X.shape[1]), X.shape[0])
        # the oracle: a PureSVD fitted alone, scaled
        expected = 0.25 * PureSVD(n_factors=2, random_state=0).fit(X).score(users, items)
        np.testing.assert_allclose(again.score(users, items), expected)
    finally:
        registry._registry["recommender"].pop("shrunk-test", None)
