"""Splits, the protocol's error paths and the report."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.datasets import Interactions, from_triples
from ratkit.exceptions import DataFormatError, NotFittedError
from ratkit.recsys import Popularity, PureSVD
from ratkit.recsys.evaluation import (
    Protocol,
    evaluate,
    format_reports,
    leave_k_out,
    prepare_leave_k_out,
    ranking_metrics,
    ratio_split,
)
from ratkit.recsys.metrics import RANKING_METRICS

from .synthetic import random_one_class


def test_leave_k_out_holds_out_exactly_k_per_eligible_user():
    X = random_one_class(40, 30, 0.3, seed=0)
    counts = np.diff(X.indptr)
    train, test = leave_k_out(X, 3, random_state=4, min_train=2)
    assert (train + test != X).nnz == 0
    assert train.multiply(test).nnz == 0
    test_counts = np.diff(test.indptr)
    np.testing.assert_array_equal(test_counts, np.where(counts >= 5, 3, 0))


def test_leave_k_out_is_seeded():
    X = random_one_class(30, 20, 0.4, seed=1)
    a = leave_k_out(X, 2, random_state=7)[1]
    b = leave_k_out(X, 2, random_state=7)[1]
    c = leave_k_out(X, 2, random_state=8)[1]
    assert (a != b).nnz == 0
    assert (a != c).nnz > 0


def test_ratio_split_partitions_the_interactions():
    X = random_one_class(60, 50, 0.3, seed=2)
    train, test = ratio_split(X, 0.25, random_state=0)
    assert (train + test != X).nnz == 0 and train.multiply(test).nnz == 0
    assert test.nnz / X.nnz == pytest.approx(0.25, abs=0.03)
    with pytest.raises(ValueError, match="'test_ratio' parameter of ratio_split"):
        ratio_split(X, 0.0)


@pytest.fixture
def fitted():
    X = random_one_class(12, 8, 0.4, seed=3)
    train, test = leave_k_out(X, 1, random_state=0)
    return Popularity().fit(train), train, test


def test_k_larger_than_the_number_of_items_is_an_error(fitted):
    model, train, test = fitted
    with pytest.raises(ValueError, match=r"k=9 exceeds the number of items \(8\); choose k <= 8"):
        ranking_metrics(model, train, test, k=9)
    assert ranking_metrics(model, train, test, k=8)["recall"] == 1.0  # every candidate listed


def test_transposed_matrix_is_named_as_such(fitted):
    model, train, test = fitted
    with pytest.raises(DataFormatError, match=r"train has shape \(8, 12\).*looks transposed"):
        ranking_metrics(model, train.T, test, k=2)


def test_train_test_overlap_is_an_error(fitted):
    model, train, _ = fitted
    with pytest.raises(DataFormatError, match="share .* pairs"):
        ranking_metrics(model, train, train, k=2)


def test_unfitted_model_is_an_error(fitted):
    _, train, test = fitted
    with pytest.raises(NotFittedError):
        ranking_metrics(Popularity(), train, test, k=2)


def test_report_prints_the_protocol_once_then_one_row_per_metric(fitted):
    model, train, test = fitted
    protocol = Protocol(dataset="toy", positives="rating >= 4", split="leave-1-out", seed=0, ks=(1, 2))
    report = evaluate(model, train, test, protocol)
    lines = report.to_text().splitlines()
    n_users = int((np.diff(test.indptr) > 0).sum())
    assert report.protocol.n_users == n_users
    assert lines[0] == f"protocol: toy | rating >= 4 | leave-1-out | seed=0 | users={n_users}"
    assert lines[1] == "model Popularity: Popularity()"
    assert lines[2].split() == ["metric", "Popularity"]
    rows = [line.split() for line in lines[3:]]
    assert [row[0] for row in rows] == [f"{m}@{k}" for m in RANKING_METRICS for k in (1, 2)] + ["auc"]
    assert {row[0]: float(row[1]) for row in rows} == pytest.approx(report.metrics, abs=5e-5)
    assert sum("seed=0" in line for line in lines) == 1  # the protocol is not repeated per number


def test_several_reports_are_one_table_with_one_column_per_model(fitted):
    _, train, test = fitted
    protocol = Protocol(dataset="toy", split="leave-1-out", seed=0, ks=(1, 3))
    models = [Popularity(), PureSVD(n_factors=2, random_state=0), PureSVD(n_factors=3, random_state=0)]
    reports = [evaluate(m.fit(train), train, test, protocol) for m in models]
    ratings = replace(reports[2].protocol, positives="every interaction, trained on every other rating")
    reports[2] = replace(reports[2], protocol=ratings, metrics={"auc": reports[2].metrics["auc"]})
    lines = format_reports(reports).splitlines()
    tag = reports[0].protocol.tag()
    assert lines[:2] == [f"protocol (Popularity, PureSVD): {tag}", f"protocol (PureSVD#2): {ratings.tag()}"]
    assert lines[2:5] == [
        f"model {name}: {r.model}" for name, r in zip(["Popularity", "PureSVD", "PureSVD#2"], reports)
    ]
    assert lines[5].split() == ["metric", "Popularity", "PureSVD", "PureSVD#2"]
    table = {line.split()[0]: line.split()[1:] for line in lines[6:]}
    assert list(table) == list(reports[0].metrics)
    for column, report in enumerate(reports):
        for key, cells in table.items():
            expected = report.metrics.get(key)
            assert cells[column] == ("-" if expected is None else f"{expected:.4f}")
    with pytest.raises(ValueError, match="non-empty sequence of EvaluationReport"):
        format_reports([])


def test_prepare_applies_threshold_filter_and_split():
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(10), 8)
    items = np.tile(np.arange(8), 10)
    ratings = rng.integers(1, 6, size=80).astype(float)
    ratings[users == 9] = 1.0  # user 9 has no positive at all
    data = from_triples(users, items, ratings, source="toy")
    train, test, protocol = prepare_leave_k_out(data, threshold=4, min_positives=2, n_test=1, random_state=0)
    positives = ratings >= 4
    expected_users = [u for u in range(10) if positives[users == u].sum() >= 2]
    assert train.shape == (len(expected_users), 8)
    assert np.diff(test.indptr).tolist() == [1] * len(expected_users)
    assert set(np.unique(train.data)) == {1.0}
    assert protocol.positives == "rating >= 4" and protocol.seed == 0
    with pytest.raises(DataFormatError, match="No user .* has 100 or more positives"):
        prepare_leave_k_out(data, threshold=4, min_positives=100, n_test=1, random_state=0)


def test_prepare_as_interactions_carries_the_kept_users_raw_ids():
    users = np.repeat([5, 17, 40, 41, 900], 6)
    items = np.tile([3, 8, 13, 21, 34, 55], 5)
    ratings = np.array([5, 4, 5, 1, 2, 3] * 3 + [1] * 6 + [5] * 6, dtype=float)  # user 41: no positive
    data = from_triples(users, items, ratings, source="toy")
    kw = dict(threshold=4, min_positives=2, n_test=1, random_state=0)
    bare_train, bare_test, protocol = prepare_leave_k_out(data, **kw)
    for feedback in ("implicit", "explicit"):
        train, test, again = prepare_leave_k_out(data, feedback=feedback, as_interactions=True, **kw)
        assert isinstance(train, Interactions) and isinstance(test, Interactions) and again.split == protocol.split
        assert train.user_ids.tolist() == test.user_ids.tolist() == [5, 17, 40, 900]
        assert train.item_ids.tolist() == [3, 8, 13, 21, 34, 55]
        np.testing.assert_array_equal(test.matrix.toarray(), bare_test.toarray())
    np.testing.assert_array_equal(
        prepare_leave_k_out(data, as_interactions=True, **kw)[0].matrix.toarray(), bare_train.toarray()
    )


def test_prepare_for_a_model_of_ratings_trains_on_every_other_rating():
    rng = np.random.default_rng(1)
    users = np.repeat(np.arange(10), 8)
    items = np.tile(np.arange(8), 10)
    ratings = rng.integers(1, 6, size=80).astype(float)
    ratings[users == 9] = 1.0
    data = from_triples(users, items, ratings, source="toy")
    kw = dict(threshold=4, min_positives=2, n_test=1, random_state=0)
    one_class, test, _ = prepare_leave_k_out(data, **kw)
    train, test2, protocol = prepare_leave_k_out(data, feedback="explicit", **kw)
    assert (test2 != test).nnz == 0  # the same held-out positives
    dense = np.zeros((10, 8))
    dense[users, items] = ratings
    kept = [u for u in range(10) if (dense[u] >= 4).sum() >= 2]
    expected = dense[kept] * (test.toarray() == 0)  # every rating of the kept users but the held-out ones
    np.testing.assert_array_equal(train.toarray(), expected)
    assert train.data.min() < 4 and (one_class.data == 1).all()
    assert protocol.positives == "rating >= 4, trained on every other rating"
    with pytest.raises(ValueError, match="feedback"):
        prepare_leave_k_out(data, feedback="ratings", **kw)


def test_sparse_input_types_are_accepted():
    X = random_one_class(10, 6, 0.5, seed=0)
    train, test = leave_k_out(sp.coo_matrix(X), 1, random_state=0)
    assert sp.issparse(train) and train.format == "csr"


def test_stored_zeros_in_train_are_not_training_items(fitted):
    """A stored 0 at a test item must not remove it from the candidates (it is no interaction)."""
    model, train, test = fitted
    clean = ranking_metrics(model, train, test, k=3)
    user, item = int(test.tocoo().row[0]), int(test.tocoo().col[0])
    coo = train.tocoo()
    with_zero = sp.csr_matrix(
        (np.append(coo.data, 0.0), (np.append(coo.row, user), np.append(coo.col, item))), shape=train.shape
    )
    assert with_zero.nnz == train.nnz + 1  # the zero is stored
    assert ranking_metrics(model, with_zero, test, k=3) == clean
    ids, _ = model.recommend(user, with_zero[user], N=3)
    assert with_zero[user].nnz == train[user].nnz + 1  # the row passed still stores the zero
    assert item in model.recommend(user, train[user], N=model.n_items_)[0]
    np.testing.assert_array_equal(ids, model.recommend(user, train[user], N=3)[0])


def test_nan_and_negative_values_in_train_are_named(fitted):
    model, train, test = fitted
    bad = train.copy()
    bad.data[0] = np.nan
    with pytest.raises(DataFormatError, match=r"train contains 1 NaN or infinite value\(s\)"):
        ranking_metrics(model, bad, test, k=2)
    bad.data[0] = -1.0
    with pytest.raises(DataFormatError, match=r"train contains 1 negative value\(s\)"):
        ranking_metrics(model, bad, test, k=2)


def test_prepare_without_threshold_refuses_nan():
    # from_triples refuses NaN itself now (issue 21), so build the Interactions directly
    matrix = sp.csr_matrix(np.array([[1.0, np.nan], [1.0, 1.0]]))
    data = Interactions(matrix, np.array([0, 1]), np.array([0, 1]))
    with pytest.raises(DataFormatError, match="NaN or infinite"):
        prepare_leave_k_out(data, threshold=None, min_positives=1, n_test=1, random_state=0)
