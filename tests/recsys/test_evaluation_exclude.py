"""``exclude=`` of the evaluation (issue 38): items left out of the candidates, not out of the
rows a user is scored from. Oracles: numbers worked out by hand, and metrics recomputed by
brute force (Python loops over each user's sorted candidates) from scores the evaluation
does not compute."""

from __future__ import annotations

import math
import pickle
from typing import ClassVar

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.datasets import Interactions
from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError
from ratkit.recsys import FISM, Popularity
from ratkit.recsys.base import Recommender
from ratkit.recsys.evaluation import Protocol, evaluate, ranking_metrics


class FixedScores(Recommender):
    """A stub whose scores are a given dense matrix (no fitting, no user state from rows)."""

    plugin_name: ClassVar[str] = ""
    _fitted_attributes: ClassVar[tuple[str, ...]] = ("scores_",)

    def __init__(self, scores: np.ndarray | None = None) -> None:
        self.scores = scores

    def _fit(self, user_items: sp.csr_matrix) -> None:
        self.scores_ = np.asarray(self.scores, dtype=np.float64)

    def _score_users(self, users: np.ndarray) -> np.ndarray:
        return self.scores_[users]


def brute_force(scores: np.ndarray, left_out: np.ndarray, test: np.ndarray, k: int) -> dict[str, float]:
    """Mean precision, recall, NDCG, MRR @k and AUC over the users with a test item, each user
    ranking the items where ``left_out`` is False by decreasing score (loops, from the
    definitions in ratkit.recsys.metrics)."""
    out: dict[str, list[float]] = {"precision": [], "recall": [], "ndcg": [], "mrr": [], "auc": []}
    for u in range(scores.shape[0]):
        relevant = set(np.flatnonzero(test[u]).tolist())
        if not relevant:
            continue
        candidates = [i for i in range(scores.shape[1]) if not left_out[u, i]]
        ranked = sorted(candidates, key=lambda i: -scores[u, i])[:k]
        hits = [i in relevant for i in ranked] + [False] * (k - len(ranked))
        out["precision"].append(sum(hits) / k)
        out["recall"].append(sum(hits) / len(relevant))
        ideal = sum(1 / math.log2(r + 2) for r in range(min(k, len(relevant))))
        out["ndcg"].append(sum(h / math.log2(r + 2) for r, h in enumerate(hits)) / ideal)
        out["mrr"].append(next((1 / (r + 1) for r, h in enumerate(hits) if h), 0.0))
        negatives = [q for q in candidates if q not in relevant]
        pairs = [
            (scores[u, p] > scores[u, q]) + 0.5 * (scores[u, p] == scores[u, q]) for p in relevant for q in negatives
        ]
        out["auc"].append(sum(pairs) / len(pairs) if pairs else math.nan)
    return {key: float(np.nanmean(values)) for key, values in out.items()}


def _hand_case() -> tuple[Popularity, sp.csr_matrix, sp.csr_matrix, sp.csr_matrix]:
    """Popularity on 5 users: item j is liked by 5 − j users (item 5 by none), so it ranks the
    items 0, 1, 2, 3, 4, 5. User 0 trained on {0}, tests {2, 4}, excludes {1}; nobody else tests."""
    train = sp.csr_matrix(np.array([[1.0 if j <= u else 0.0 for j in range(6)] for u in range(5)]))
    test = sp.csr_matrix(([1.0, 1.0], ([0, 0], [2, 4])), shape=(5, 6))
    exclude = sp.csr_matrix(([1.0], ([0], [1])), shape=(5, 6))
    return Popularity().fit(train), train, test, exclude


def test_exclude_by_hand():
    model, train, test, exclude = _hand_case()
    np.testing.assert_array_equal(model.item_counts_, [5, 4, 3, 2, 1, 0])
    g = 1 / math.log2(3)
    # without exclude: candidates 1 2 3 4 5, top-2 = [1, 2], hits [0, 1]; AUC over N = {1, 3, 5}: 3 of 6 pairs
    plain = ranking_metrics(model, train, test, k=2)
    assert plain["precision"] == pytest.approx(0.5) and plain["recall"] == pytest.approx(0.5)
    assert plain["ndcg"] == pytest.approx(g / (1 + g))
    assert plain["map"] == pytest.approx(0.25) and plain["mrr"] == pytest.approx(0.5)
    assert plain["auc"] == pytest.approx(0.5)
    # exclude {1}: candidates 2 3 4 5, top-2 = [2, 3], hits [1, 0]; AUC over N = {3, 5}: 3 of 4 pairs
    excluded = ranking_metrics(model, train, test, k=2, exclude=exclude)
    assert excluded["precision"] == pytest.approx(0.5) and excluded["recall"] == pytest.approx(0.5)
    assert excluded["ndcg"] == pytest.approx(1 / (1 + g))
    assert excluded["map"] == pytest.approx(0.5) and excluded["mrr"] == pytest.approx(1.0)
    assert excluded["auc"] == pytest.approx(0.75)
    # the same through evaluate, and through an Interactions
    report = evaluate(
        model, train, test, Protocol("hand", ks=(2,)), exclude=Interactions(exclude, np.arange(5), np.arange(6))
    )
    assert report.metrics["ndcg@2"] == pytest.approx(excluded["ndcg"]) and report.metrics["auc"] == pytest.approx(0.75)


def _random_case(seed: int, m: int = 40, n: int = 25) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix]:
    """Disjoint random train, exclude and test patterns (each user: ≥ 1 train item)."""
    rng = np.random.default_rng(seed)
    kind = rng.choice(4, size=(m, n), p=[0.55, 0.2, 0.15, 0.1])  # 0: none, 1: train, 2: exclude, 3: test
    kind[:, 0] = 1
    return tuple(sp.csr_matrix((kind == c).astype(np.float64)) for c in (1, 2, 3))  # type: ignore[return-value]


@pytest.mark.parametrize("batch_size", [512, 3])
def test_exclude_matches_brute_force_on_fixed_scores(batch_size):
    train, exclude, test = _random_case(0)
    scores = np.random.default_rng(1).normal(size=train.shape)
    model = FixedScores(scores).fit(train)
    got = ranking_metrics(model, train, test, k=4, exclude=exclude, batch_size=batch_size)
    want = brute_force(scores, (train + exclude).toarray() > 0, test.toarray() > 0, 4)
    assert {key: got[key] for key in want} == pytest.approx(want, rel=1e-12)
    plain = brute_force(scores, train.toarray() > 0, test.toarray() > 0, 4)
    assert ranking_metrics(model, train, test, k=4)["auc"] == pytest.approx(plain["auc"], rel=1e-12)
    assert plain["auc"] != pytest.approx(want["auc"])  # the exclusion matters here
    empty = sp.csr_matrix(train.shape)
    assert ranking_metrics(model, train, test, k=4, exclude=empty) == ranking_metrics(model, train, test, k=4)


def test_fism_is_scored_from_train_rows_and_ranks_without_exclude():
    """train = P, exclude = E: FISM's users are built from P alone (not P + E) and rank I ∖ (P ∪ E)."""
    P, E, test = _random_case(2, m=30, n=20)
    model = FISM(8, 0.05, n_epochs=3, random_state=0).fit(P)
    users = np.arange(P.shape[0])
    # the oracle's scores: recommend from the P rows, every item returned, nothing filtered
    ids, values = model.recommend(users, P, N=P.shape[1], filter_already_liked_items=False)
    scores = np.empty(P.shape)
    np.put_along_axis(scores, ids, values, axis=1)
    got = ranking_metrics(model, P, test, k=5, exclude=E)
    want = brute_force(scores, (P + E).toarray() > 0, test.toarray() > 0, 5)
    assert {key: got[key] for key in want} == pytest.approx(want, rel=1e-6)
    # handing P + E as the train rows (the bench before issue 38) builds the users from E too
    merged = ranking_metrics(model, (P + E).tocsr(), test, k=5)
    assert merged["auc"] != pytest.approx(got["auc"], rel=1e-6)
    ids, values = model.recommend(users, (P + E).tocsr(), N=P.shape[1], filter_already_liked_items=False)
    np.put_along_axis(scores, ids, values, axis=1)
    merged_want = brute_force(scores, (P + E).toarray() > 0, test.toarray() > 0, 5)
    assert {key: merged[key] for key in merged_want} == pytest.approx(merged_want, rel=1e-6)


def test_bad_exclude_is_named():
    model, train, test, exclude = _hand_case()
    with pytest.raises(ParameterError, match=r"'exclude' parameter of ranking_metrics has shape \(5, 7\).*5 users × 6"):
        ranking_metrics(model, train, test, k=2, exclude=sp.csr_matrix((5, 7)))
    with pytest.raises(ParameterError, match=r"'exclude' parameter of evaluate has shape \(6, 5\).*looks transposed"):
        evaluate(model, train, test, Protocol("hand", ks=(2,)), exclude=exclude.T)
    with pytest.raises(ParameterTypeError, match="exclude must be a scipy.sparse matrix"):
        ranking_metrics(model, train, test, k=2, exclude=exclude.toarray())
    with pytest.raises(DataFormatError, match="'exclude' parameter of ranking_metrics holds 1 test"):
        ranking_metrics(
            model, train, test, k=2, exclude=exclude + test.multiply(sp.csr_matrix(([1.0], ([0], [2])), shape=(5, 6)))
        )
    with pytest.raises(DataFormatError, match="exclude contains 1 negative"):
        ranking_metrics(model, train, test, k=2, exclude=-exclude)


def test_exclude_travels_with_the_tasks(monkeypatch):
    """Each block's rows of exclude travel with its task (pickled, as to another process), in
    blocks of 7 users: the numbers are those of one block."""
    import ratkit.recsys.evaluation as evaluation

    train, exclude, test = _random_case(3)
    model = FixedScores(np.random.default_rng(4).normal(size=train.shape)).fit(train)
    one = ranking_metrics(model, train, test, k=4, exclude=exclude)
    assert one != ranking_metrics(model, train, test, k=4)
    sizes: list[int] = []

    def through_pickle(func, tasks, shared, **kwargs):
        values = [pickle.loads(pickle.dumps(holder.value)) for holder in shared]
        for task in tasks:
            batch, ks, rows = pickle.loads(pickle.dumps(task))
            sizes.append(rows.shape[0])
            assert rows.shape[0] == len(batch) and (rows != exclude[batch]).nnz == 0
            yield func(*values, batch, ks, rows)

    monkeypatch.setattr(evaluation, "parallel_map", through_pickle)
    assert ranking_metrics(model, train, test, k=4, exclude=exclude, batch_size=7) == one
    assert max(sizes) == 7 and len(sizes) > 1
