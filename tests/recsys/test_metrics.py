"""Every metric against a hand computation; AUC against scikit-learn per user."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from ratkit.recsys import Popularity, PureSVD
from ratkit.recsys.evaluation import leave_k_out, ranking_metrics
from ratkit.recsys.metrics import (
    auc_rows,
    auc_score,
    average_precision_at_k,
    f1_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)

from .synthetic import random_one_class

RANKED = [3, 1, 4, 0, 2]  # hits at ranks 2 and 5 for RELEVANT
RELEVANT = {1, 2}
L2, L3, L6 = math.log2(2), math.log2(3), math.log2(6)


def test_precision_recall_f1_by_hand():
    assert precision_at_k(RANKED, RELEVANT, 3) == pytest.approx(1 / 3)
    assert recall_at_k(RANKED, RELEVANT, 3) == pytest.approx(1 / 2)
    assert f1_at_k(RANKED, RELEVANT, 3) == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert precision_at_k(RANKED, RELEVANT, 5) == pytest.approx(2 / 5)
    assert recall_at_k(RANKED, RELEVANT, 5) == pytest.approx(1.0)
    assert precision_at_k(RANKED, RELEVANT, 1) == 0.0
    assert f1_at_k(RANKED, RELEVANT, 1) == 0.0


def test_ndcg_by_hand():
    ideal = 1 / L2 + 1 / L3  # two relevant items at ranks 1 and 2
    assert ndcg_at_k(RANKED, RELEVANT, 3) == pytest.approx((1 / L3) / ideal)
    assert ndcg_at_k(RANKED, RELEVANT, 5) == pytest.approx((1 / L3 + 1 / L6) / ideal)
    assert ndcg_at_k([1, 2, 0], RELEVANT, 3) == pytest.approx(1.0)
    # k = 1 with a hit at the top: ideal DCG is one item, so NDCG is 1.
    assert ndcg_at_k([2, 1], RELEVANT, 1) == pytest.approx(1.0)


def test_map_and_mrr_by_hand():
    assert average_precision_at_k(RANKED, RELEVANT, 3) == pytest.approx((1 / 2) / 2)
    assert average_precision_at_k(RANKED, RELEVANT, 5) == pytest.approx((1 / 2 + 2 / 5) / 2)
    assert average_precision_at_k([1, 9, 2], RELEVANT, 3) == pytest.approx((1 + 2 / 3) / 2)
    assert reciprocal_rank_at_k(RANKED, RELEVANT, 5) == pytest.approx(1 / 2)
    assert reciprocal_rank_at_k(RANKED, RELEVANT, 1) == 0.0
    assert reciprocal_rank_at_k([2, 0], RELEVANT, 2) == 1.0


def test_short_list_counts_missing_ranks_as_misses():
    assert precision_at_k([1], RELEVANT, 4) == pytest.approx(1 / 4)
    assert recall_at_k([1], RELEVANT, 4) == pytest.approx(1 / 2)


def test_auc_by_hand_with_a_tie_and_an_excluded_item():
    scores = [0.9, 0.1, 0.5, 0.5, 0.3]
    # candidates 1..4; positive item 2 (0.5) beats 0.1 and 0.3, ties 0.5 → (1 + 1 + ½) / 3
    assert auc_score(scores, {2}, exclude={0}) == pytest.approx(2.5 / 3)
    # item 0 taking part changes it: 0.9 beats the positive → 2.5 / 4
    assert auc_score(scores, {2}) == pytest.approx(2.5 / 4)


def test_metric_errors_name_the_problem():
    with pytest.raises(ValueError, match="at least one relevant item"):
        precision_at_k([1, 2], set(), 2)
    with pytest.raises(ValueError, match="'k' parameter of ndcg_at_k must be an int"):
        ndcg_at_k([1, 2], {1}, 0)
    with pytest.raises(ValueError, match="repeats an item"):
        recall_at_k([1, 1], {1}, 2)
    with pytest.raises(ValueError, match="one relevant and one other"):
        auc_score([0.1, 0.2], {0, 1})
    with pytest.raises(ValueError, match="finite scores"):
        auc_score([0.1, np.nan], {0})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=4, max_size=12), st.data())
def test_auc_rows_equals_sklearn_with_ties(raw_scores, data):
    scores = np.array(raw_scores, dtype=float)  # few distinct values: many ties
    n = len(scores)
    labels = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    candidate = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n))) | labels
    negatives = candidate & ~labels
    got = auc_rows(scores[None], labels[None], candidate[None])[0]
    if labels.sum() == 0 or negatives.sum() == 0:
        assert np.isnan(got)
    else:
        expected = roc_auc_score(labels[candidate], scores[candidate])
        assert got == pytest.approx(expected)


@pytest.mark.parametrize(
    "model", [Popularity(), PureSVD(n_factors=3, random_state=0)], ids=["popularity (ties)", "puresvd"]
)
def test_protocol_auc_is_the_mean_of_sklearn_per_user(model):
    X = random_one_class(25, 30, 0.3, seed=5)
    train, test = leave_k_out(X, 2, random_state=1)
    model.fit(train)
    per_user = []
    for u in range(X.shape[0]):
        if test[u].nnz == 0:
            continue
        candidates = np.setdiff1d(np.arange(30), train[u].indices)
        labels = np.isin(candidates, test[u].indices)
        scores = model.score(np.full(len(candidates), u), candidates)
        per_user.append(roc_auc_score(labels, scores))
    assert ranking_metrics(model, train, test, k=5)["auc"] == pytest.approx(np.mean(per_user))


def test_protocol_topk_metrics_match_a_brute_force_loop():
    """precision/recall/NDCG/MAP/MRR@k recomputed with plain Python sorting."""
    X = random_one_class(20, 25, 0.35, seed=7)
    train, test = leave_k_out(X, 3, random_state=2)
    model = PureSVD(n_factors=3, random_state=0).fit(train)
    k = 4
    sums = dict.fromkeys(["precision", "recall", "ndcg", "map", "mrr"], 0.0)
    users = [u for u in range(20) if test[u].nnz]
    for u in users:
        seen, relevant = set(train[u].indices), set(test[u].indices)
        scores = model.score(np.full(25, u), np.arange(25))
        ranked = sorted((j for j in range(25) if j not in seen), key=lambda j: (-scores[j], j))[:k]
        hits = [j in relevant for j in ranked]
        sums["precision"] += sum(hits) / k
        sums["recall"] += sum(hits) / len(relevant)
        dcg = sum(h / math.log2(r + 2) for r, h in enumerate(hits))
        sums["ndcg"] += dcg / sum(1 / math.log2(r + 2) for r in range(min(k, len(relevant))))
        ap = sum(sum(hits[: r + 1]) / (r + 1) for r, h in enumerate(hits) if h)
        sums["map"] += ap / min(k, len(relevant))
        sums["mrr"] += next((1 / (r + 1) for r, h in enumerate(hits) if h), 0.0)
    got = ranking_metrics(model, train, test, k=k)
    for name, total in sums.items():
        assert got[name] == pytest.approx(total / len(users)), name


def test_empty_test_users_are_not_evaluated():
    X = sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0]], dtype=float))
    test = sp.csr_matrix(np.array([[0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=float))
    model = Popularity().fit(X)
    # only user 0: candidates 2 (count 2, relevant) and 3 (count 0) → ranked first, AUC 1
    got = ranking_metrics(model, X, test, k=1)
    assert got["precision"] == 1.0 and got["auc"] == 1.0


def test_auc_score_refuses_ids_out_of_range():
    from ratkit.exceptions import IdOutOfRangeError

    s = np.array([0.3, 0.1, 0.9, 0.5])
    with pytest.raises(IdOutOfRangeError, match=r"relevant item id -1 is out of range: expected an index in \[0, 4\)"):
        auc_score(s, [-1])
    with pytest.raises(IdOutOfRangeError, match=r"excluded item id 4 is out of range"):
        auc_score(s, [2], exclude=[4])


def test_ranking_scores_refuses_users_without_relevant_items():
    from ratkit.recsys.metrics import ranking_scores

    with pytest.raises(ValueError, match="user row 1 has 0"):
        ranking_scores(np.array([[True, False], [False, False]]), np.array([1, 0]), 2)
