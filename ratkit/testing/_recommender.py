"""``RecommenderContract``: the checks every ratkit recommender passes, built-in or third-party.

Subclass it in a pytest test module and give the one hook, ``make_model()``::

    from ratkit.testing import RecommenderContract

    class TestMyModel(RecommenderContract):
        def make_model(self):
            return MyModel(n_factors=4, random_state=0)

The data are generated (:func:`~ratkit.testing._planted.planted_blocks`): two blocks of
users liking two blocks of items, plus items nobody likes, so the right rankings are known.
A model that learns from explicit ratings (its ``feedback`` is ``"explicit"``,
see :class:`~ratkit.recsys.base.Recommender`) gets 1–5 ratings
(:func:`~ratkit.testing._planted.planted_ratings`), the liked entries rated 4–5 and some
of the other block's and the cold items rated 1–2. Set
``personalised = False`` on a model that scores every user alike (it skips the checks
that need the block structure). Override :meth:`RecommenderContract.changed_params` when
the default change of the numeric parameters is not a valid configuration of the model.

What ``fit`` sets must match the class's ``_fitted_schema`` (:mod:`ratkit.fitted`), the
description a model file is checked against when it is read. Two checks hold for a model with
no code of its own, since :class:`~ratkit.recsys.Recommender`
gives them: implicit's ``fit(X, show_progress=...)`` (for that fit only) and, after a fit on an
:class:`~ratkit.recsys.datasets.Interactions`, the raw ids and training rows kept
(``user_ids_``, ``item_ids_``, ``user_items_``) through a model file. A model that overrides
``fit`` passes both on to ``Recommender.fit``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.exceptions
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ratkit.fitted import check_fitted
from ratkit.plugins import available, get
from ratkit.recsys import Interactions, Recommender
from ratkit.recsys.evaluation import leave_k_out, ranking_metrics
from ratkit.testing._params import GENERATORS, numeric_changes, same_params
from ratkit.testing._planted import Planted, planted_blocks, planted_ratings

__all__ = ["RecommenderContract"]


def _all_scores(model: Recommender) -> np.ndarray:
    """The dense matrix ``s(u, i)`` over every user and item of a fitted model."""
    users, items = np.meshgrid(np.arange(model.n_users_), np.arange(model.n_items_), indexing="ij")
    return model.score(users, items)


class RecommenderContract:
    """Mixin: subclasses define ``make_model()``, an unfitted configured recommender.

    ``personalised = False`` for models that score every user alike (they skip the
    block-structure checks).
    """

    personalised: ClassVar[bool] = True

    def make_model(self) -> Recommender:  # pragma: no cover - the hook
        raise NotImplementedError(f"{type(self).__name__} must define make_model() returning an unfitted recommender.")

    def changed_params(self) -> dict[str, Any] | None:
        """Other valid values for some parameters of :meth:`make_model`'s model, to
        ``set_params`` after ``fit`` (the scores must not change until the next ``fit``, and
        that ``fit`` must equal a fresh model's). None or ``{}``: skip those checks.

        The default: every int parameter plus 1 and every non-zero float one times 1.5
        (booleans, strings, None, zeros and estimators left alone).
        """
        return numeric_changes(self.make_model())

    @pytest.fixture(scope="class")
    @classmethod
    def planted(cls) -> Planted:
        feedback = cls().make_model().feedback
        if feedback not in ("implicit", "explicit"):
            raise ValueError(f'{feedback!r} is not a feedback kind; a Recommender\'s is "implicit" or "explicit".')
        return planted_ratings() if feedback == "explicit" else planted_blocks()

    @pytest.fixture(scope="class")
    @classmethod
    def fitted(cls, planted: Planted) -> Recommender:
        return cls().make_model().fit(planted.matrix)

    # ------------------------------------------------------------- estimator
    def test_fit_returns_self_with_shape(self, planted: Planted) -> None:
        model = self.make_model()
        assert model.fit(planted.matrix) is model
        assert (model.n_users_, model.n_items_) == planted.matrix.shape

    def test_fitted_state_matches_its_description(self, fitted: Recommender, planted: Planted) -> None:
        """What ``fit`` sets (on a matrix, and on an Interactions, which adds the raw ids and
        training rows) matches the class's ``_fitted_schema``: dtypes, shapes, finite values."""
        check_fitted(fitted)
        m, n = planted.matrix.shape
        data = Interactions(
            planted.matrix.copy(), 1000 + np.arange(m), np.array([f"i{j}" for j in range(n)]), "planted"
        )
        check_fitted(self.make_model().fit(data))

    def test_use_before_fit_is_an_error(self, fitted: Recommender, planted: Planted) -> None:
        model = self.make_model()
        with pytest.raises(sklearn.exceptions.NotFittedError, match="not fitted yet.*Call 'fit'"):
            model.recommend(0, planted.matrix[0])
        with pytest.raises(sklearn.exceptions.NotFittedError, match="not fitted"):
            model.score([0], [0])
        with pytest.raises(sklearn.exceptions.NotFittedError):
            check_is_fitted(model)
        check_is_fitted(fitted)

    def test_registered_as_plugin(self) -> None:
        model = self.make_model()
        assert isinstance(model, Recommender)
        names = [name for name in available("recommender") if get("recommender", name) is type(model)]
        assert names, f"{type(model).__name__} is not registered as a 'recommender' plugin (see ratkit.plugins)"

    def test_clone_is_unfitted_with_equal_params(self, fitted: Recommender) -> None:
        copy = clone(fitted)
        assert type(copy) is type(fitted) and copy is not fitted
        assert not copy.is_fitted()
        assert same_params(copy.get_params(deep=True), fitted.get_params(deep=True))
        with pytest.raises(sklearn.exceptions.NotFittedError):
            copy.score([0], [0])

    def test_fit_takes_show_progress_for_that_fit_only(
        self, planted: Planted, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """``fit(X, show_progress=...)`` (implicit's keyword) on every model: it returns the
        model, learns the same thing, and leaves ``get_params`` as it was; False silences a
        model whose own ``show_progress`` parameter is True."""
        reference = [_all_scores(self.make_model().fit(planted.matrix)) for _ in range(2)]
        deterministic = np.array_equal(reference[0], reference[1])
        for flag in (True, False, None):
            model = self.make_model()
            if flag is False and "show_progress" in model.get_params(deep=False):
                model.set_params(show_progress=True)
            before = model.get_params(deep=True)
            capsys.readouterr()
            assert model.fit(planted.matrix, show_progress=flag) is model
            shown = capsys.readouterr().err
            assert same_params(model.get_params(deep=True), before), f"show_progress={flag} changed get_params"
            if flag is False:
                assert shown == "", f"fit(show_progress=False) wrote {shown!r:.80} on standard error"
            if deterministic:
                np.testing.assert_array_equal(_all_scores(model), reference[0])
        with pytest.raises(TypeError, match="'show_progress' argument .* must be a bool or None. Got 'yes'"):
            self.make_model().fit(planted.matrix, show_progress="yes")  # type: ignore[arg-type]  # the wrong type on purpose

    def test_fit_on_interactions_keeps_raw_ids_and_training_rows(self, planted: Planted, tmp_path: Path) -> None:
        """Fitted on an Interactions, a model keeps its raw ids (``user_ids_``, ``item_ids_``)
        and training rows (``user_items_``, unmodified by the fit) in memory and in its file;
        a refit on a bare matrix drops them."""
        from ratkit import load_model

        m, n = planted.matrix.shape
        user_ids = 1000 + 7 * np.arange(m)  # not row numbers: the file's own ids
        item_ids = np.array([f"item-{3 * i + 1}" for i in range(n)])
        data = Interactions(planted.matrix.copy(), user_ids, item_ids, "planted")
        model = self.make_model().fit(data)
        np.testing.assert_array_equal(model.user_ids_, user_ids)
        np.testing.assert_array_equal(model.item_ids_, item_ids)
        assert sp.issparse(model.user_items_)
        np.testing.assert_array_equal(model.user_items_.toarray(), planted.matrix.toarray())
        loaded = load_model(model.save(Path(tmp_path) / "ids.zip"))
        for name in ("user_ids_", "item_ids_"):
            np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
        np.testing.assert_array_equal(loaded.user_items_.toarray(), planted.matrix.toarray())
        model.fit(planted.matrix)
        assert not any(hasattr(model, name) for name in ("user_ids_", "item_ids_", "user_items_"))

    def test_set_params_round_trip(self) -> None:
        model = self.make_model()
        params = model.get_params(deep=True)
        assert model.set_params(**params) is model
        assert same_params(model.get_params(deep=True), params)
        changed = self.changed_params() or {}
        model.set_params(**changed)
        assert same_params({key: model.get_params()[key] for key in changed}, changed)

    def test_set_params_after_fit_changes_nothing_until_refit(self, planted: Planted) -> None:
        changed = self.changed_params()
        if not changed:
            pytest.skip("changed_params() names no change")
        model = self.make_model().fit(planted.matrix)
        before = _all_scores(model)
        top_before = model.recommend(np.arange(model.n_users_), planted.matrix, N=5)
        model.set_params(**changed)
        np.testing.assert_array_equal(_all_scores(model), before)
        top_after = model.recommend(np.arange(model.n_users_), planted.matrix, N=5)
        np.testing.assert_array_equal(top_after[0], top_before[0])
        np.testing.assert_array_equal(top_after[1], top_before[1])

    def test_refit_uses_the_new_params_and_the_new_data_only(self, fitted: Recommender, planted: Planted) -> None:
        """Fitting again (after set_params, on other data) equals fitting a fresh model."""
        other = sp.csr_matrix(planted.matrix[::-1][:, ::-1])  # same sizes, other users and items
        reused = copy.deepcopy(fitted)
        changed = self.changed_params() or {}
        reused.set_params(**changed).fit(other)
        fresh = [self.make_model().set_params(**changed).fit(other) for _ in range(2)]
        if not np.array_equal(_all_scores(fresh[0]), _all_scores(fresh[1])):
            pytest.skip("two fits of the same configuration differ (the model is not seeded)")
        np.testing.assert_array_equal(_all_scores(reused), _all_scores(fresh[0]))

    # ------------------------------------------------------------ recommending
    def test_recommend_leaves_out_liked_items_best_first(self, fitted: Recommender, planted: Planted) -> None:
        X = planted.matrix
        for user in range(X.shape[0]):
            ids, scores = fitted.recommend(user, X[user], N=5)
            assert len(ids) == 5
            assert not set(ids) & set(X[user].indices)
            assert np.all(np.diff(scores) <= 0)
            np.testing.assert_allclose(scores, fitted.score(np.full(5, user), ids))

    def test_without_filter_liked_items_may_come_back(self, fitted: Recommender, planted: Planted) -> None:
        X = planted.matrix
        ids, _ = fitted.recommend(planted.solo_user, N=X.shape[1], filter_already_liked_items=False)
        assert sorted(ids) == list(range(X.shape[1]))

    def test_batch_equals_one_by_one(self, fitted: Recommender, planted: Planted) -> None:
        users = np.array([3, 0, 45, 59])
        ids, scores = fitted.recommend(users, planted.matrix[users], N=4)
        assert ids.shape == scores.shape == (4, 4)
        for row, user in enumerate(users):
            one_ids, one_scores = fitted.recommend(int(user), planted.matrix[int(user)], N=4)
            np.testing.assert_array_equal(ids[row], one_ids)
            np.testing.assert_allclose(scores[row], one_scores)

    def test_follows_implicits_calling_convention(self, fitted: Recommender, planted: Planted) -> None:
        """recommend(userid, user_items[userid], N=..., filter_items=..., items=...) as implicit
        calls it: int32 ids, 1-D for one user and (len(userid), N) for an array."""
        X = planted.matrix
        users = np.array([3, 0, 45], dtype=np.int32)
        ids, scores = fitted.recommend(users, X[users], N=4)
        assert ids.dtype == np.int32 and ids.shape == scores.shape == (3, 4)
        one_ids, _ = fitted.recommend(np.int64(3), X[3], N=4)
        assert one_ids.ndim == 1
        np.testing.assert_array_equal(one_ids, ids[0])
        banned = np.unique(ids[:, :2])
        kept, _ = fitted.recommend(users, X[users], N=4, filter_items=banned)
        assert not np.isin(kept, banned).any()
        pool = np.arange(0, X.shape[1], 3)
        chosen, values = fitted.recommend(users, X[users], N=4, items=pool)
        for row, user in enumerate(users):  # brute force from score() over the unseen pool items
            candidates = pool[~np.isin(pool, X[user].indices)]
            best = np.sort(fitted.score(np.full(len(candidates), user), candidates))[::-1][:4]
            assert set(chosen[row][: len(best)]) <= set(candidates)
            np.testing.assert_allclose(values[row][: len(best)], best, rtol=1e-9, atol=1e-12)

    def test_only_unseen_positive_ranks_first(self, fitted: Recommender, planted: Planted) -> None:
        ids, _ = fitted.recommend(planted.solo_user, planted.matrix[planted.solo_user], N=1)
        assert ids.tolist() == [planted.solo_item]

    def test_unseen_block_items_beat_items_nobody_has(self, fitted: Recommender, planted: Planted) -> None:
        X = planted.matrix
        for users, items in ((planted.big_users, planted.big_items), (planted.small_users, planted.small_items)):
            for user in users:
                unseen = np.setdiff1d(items, X[user].indices)
                if len(unseen) == 0:
                    continue
                worst_block = fitted.score(np.full(len(unseen), user), unseen).min()
                best_cold = fitted.score(np.full(len(planted.cold_items), user), planted.cold_items).max()
                assert worst_block > best_cold, f"user {user}"

    def test_personal_block_items_fill_the_top(self, fitted: Recommender, planted: Planted) -> None:
        if not self.personalised:
            pytest.skip("scores every user alike")
        X = planted.matrix
        for user in planted.small_users:  # popularity would push the big block's items here
            unseen = np.setdiff1d(planted.small_items, X[user].indices)
            ids, _ = fitted.recommend(int(user), X[int(user)], N=len(unseen))
            assert set(ids) == set(unseen), f"user {user}"

    def test_ranking_metrics_on_a_held_out_split(self, planted: Planted) -> None:
        _, test = leave_k_out(planted.liked_matrix(), 1, random_state=0)  # a liked item held out per user
        train = planted.matrix - planted.matrix.multiply(test > 0)
        train.eliminate_zeros()
        model = self.make_model().fit(train)
        metrics = ranking_metrics(model, train, test, k=3)
        assert set(metrics) >= {"precision", "recall", "ndcg", "auc"}
        # Held-out items are block items: above the 8 cold items for every model, and
        # above the other block too for a personalised one. With explicit ratings a third of
        # the other block's and the cold items are rated (so not candidates), which leaves the
        # unrated items of the user's own block a larger share of the candidates: a ranking
        # that puts the whole block first, in any order, has AUC ≈ 0.87 there (0.9 implicit).
        floor = 0.9 if self.make_model().feedback == "implicit" else 0.8
        assert metrics["auc"] > (floor if self.personalised else 0.6)

    def test_empty_user_and_item_are_allowed(self, planted: Planted) -> None:
        X = planted.matrix.tolil()
        X[5, :] = 0  # a user without interactions
        model = self.make_model().fit(sp.csr_matrix(X))
        ids, scores = model.recommend(5, sp.csr_matrix(X)[5], N=4)
        assert len(ids) == 4 and np.isfinite(scores).all()

    # -------------------------------------------------------------- model files
    def test_save_then_load_model_gives_the_same_scores(
        self, fitted: Recommender, planted: Planted, tmp_path: Path
    ) -> None:
        from ratkit import load_model

        target = Path(tmp_path) / "model.zip"
        written = fitted.save(target)
        loaded = load_model(target if written is None else written)
        assert type(loaded) is type(fitted)
        # a random generator object is not data: only its seed-free part, the fit, is kept
        kept = {k: v for k, v in fitted.get_params(deep=False).items() if not isinstance(v, GENERATORS)}
        assert same_params({k: loaded.get_params(deep=False)[k] for k in kept}, kept)
        np.testing.assert_array_equal(_all_scores(loaded), _all_scores(fitted))
        for user in (planted.solo_user, int(planted.small_users[0])):
            a = fitted.recommend(user, planted.matrix[user], N=6)
            b = loaded.recommend(user, planted.matrix[user], N=6)
            np.testing.assert_array_equal(a[0], b[0])
            np.testing.assert_array_equal(a[1], b[1])
