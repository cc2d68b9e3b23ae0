"""The contract every ratkit recommender passes; a test class only supplies ``make_model``."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.exceptions import NotFittedError
from ratkit.plugins import get
from ratkit.recsys import Recommender
from ratkit.recsys.evaluation import leave_k_out, ranking_metrics

from .synthetic import planted_blocks


class RecommenderContract:
    """Mixin: subclasses define ``make_model()``; ``personalised = False`` for models that
    score every user alike (they skip the block-structure checks)."""

    personalised: ClassVar[bool] = True

    def make_model(self) -> Recommender:  # pragma: no cover - the hook
        raise NotImplementedError

    @pytest.fixture(scope="class")
    @classmethod
    def planted(cls):
        return planted_blocks()

    @pytest.fixture(scope="class")
    @classmethod
    def fitted(cls, planted):
        return cls().make_model().fit(planted.matrix)

    def test_fit_returns_self_with_shape(self, planted):
        model = self.make_model()
        assert model.fit(planted.matrix) is model
        assert (model.n_users_, model.n_items_) == planted.matrix.shape

    def test_use_before_fit_is_an_error(self, planted):
        model = self.make_model()
        with pytest.raises(NotFittedError, match="not fitted yet.*Call 'fit'"):
            model.recommend(0, planted.matrix)
        with pytest.raises(NotFittedError, match="not fitted"):
            model.score([0], [0])

    def test_registered_as_plugin(self):
        model = self.make_model()
        assert get("recommender", model.plugin_name) is type(model)

    def test_recommend_leaves_out_liked_items_best_first(self, fitted, planted):
        X = planted.matrix
        for user in range(X.shape[0]):
            ids, scores = fitted.recommend(user, X, n=5)
            assert len(ids) == 5
            assert not set(ids) & set(X[user].indices)
            assert np.all(np.diff(scores) <= 0)
            np.testing.assert_allclose(scores, fitted.score(np.full(5, user), ids))

    def test_without_filter_liked_items_may_come_back(self, fitted, planted):
        X = planted.matrix
        ids, _ = fitted.recommend(planted.solo_user, n=X.shape[1], filter_already_liked_items=False)
        assert sorted(ids) == list(range(X.shape[1]))

    def test_batch_equals_one_by_one(self, fitted, planted):
        users = np.array([3, 0, 45, 59])
        ids, scores = fitted.recommend(users, planted.matrix, n=4)
        assert ids.shape == scores.shape == (4, 4)
        for row, user in enumerate(users):
            one_ids, one_scores = fitted.recommend(int(user), planted.matrix, n=4)
            np.testing.assert_array_equal(ids[row], one_ids)
            np.testing.assert_allclose(scores[row], one_scores)

    def test_only_unseen_positive_ranks_first(self, fitted, planted):
        ids, _ = fitted.recommend(planted.solo_user, planted.matrix, n=1)
        assert ids.tolist() == [planted.solo_item]

    def test_unseen_block_items_beat_items_nobody_has(self, fitted, planted):
        X = planted.matrix
        for users, items in ((planted.big_users, planted.big_items), (planted.small_users, planted.small_items)):
            for user in users:
                unseen = np.setdiff1d(items, X[user].indices)
                if len(unseen) == 0:
                    continue
                worst_block = fitted.score(np.full(len(unseen), user), unseen).min()
                best_cold = fitted.score(np.full(len(planted.cold_items), user), planted.cold_items).max()
                assert worst_block > best_cold, f"user {user}"

    def test_personal_block_items_fill_the_top(self, fitted, planted):
        if not self.personalised:
            pytest.skip("scores every user alike")
        X = planted.matrix
        for user in planted.small_users:  # popularity would push the big block's items here
            unseen = np.setdiff1d(planted.small_items, X[user].indices)
            ids, _ = fitted.recommend(int(user), X, n=len(unseen))
            assert set(ids) == set(unseen), f"user {user}"

    def test_ranking_metrics_on_a_held_out_split(self, planted):
        train, test = leave_k_out(planted.matrix, 1, random_state=0)
        model = self.make_model().fit(train)
        metrics = ranking_metrics(model, train, test, k=3)
        assert set(metrics) >= {"precision", "recall", "ndcg", "auc"}
        # Held-out items are block items: above the 8 cold items for every model, and
        # above the other block too for a personalised one.
        assert metrics["auc"] > (0.9 if self.personalised else 0.6)

    def test_save_load_round_trip(self, fitted, planted, tmp_path):
        path = fitted.save(tmp_path / "model")
        assert path.endswith(".npz")
        with np.load(path, allow_pickle=False) as data:  # readable without pickle
            assert "n_items_" in data.files
        loaded = Recommender.load(path)
        assert type(loaded) is type(fitted)
        assert loaded.get_params() == fitted.get_params()
        for user in (0, 41):
            a = fitted.recommend(user, planted.matrix, n=6)
            b = loaded.recommend(user, planted.matrix, n=6)
            np.testing.assert_array_equal(a[0], b[0])
            np.testing.assert_allclose(a[1], b[1])

    def test_empty_user_and_item_are_allowed(self, planted):
        X = planted.matrix.tolil()
        X[5, :] = 0  # a user without interactions
        model = self.make_model().fit(sp.csr_matrix(X))
        ids, scores = model.recommend(5, sp.csr_matrix(X), n=4)
        assert len(ids) == 4 and np.isfinite(scores).all()
