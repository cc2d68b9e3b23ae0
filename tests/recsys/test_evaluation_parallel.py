"""Evaluation in user blocks over processes or a Dask cluster: the very same numbers as one
block in one process (each user's metrics depend on that user's row alone)."""

from __future__ import annotations

import joblib
import numpy as np
import pytest

from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.recsys import Popularity, PureSVD
from ratkit.recsys.evaluation import Protocol, _per_user, evaluate, leave_k_out, ranking_metrics

from .synthetic import random_one_class

N_USERS = 37


@pytest.fixture(scope="module")
def split():
    train, test = leave_k_out(random_one_class(N_USERS, 23, 0.3, seed=4), 2, random_state=0)
    return train, test


@pytest.fixture(scope="module", params=["puresvd", "popularity"])
def fitted(request, split):
    model = PureSVD(n_factors=4) if request.param == "puresvd" else Popularity()
    return model.fit(split[0])


@pytest.fixture(scope="module")
def reference(fitted, split):
    """One block, one process: the numbers the blocked runs must reproduce exactly."""
    train, test = split
    return (
        ranking_metrics(fitted, train, test, k=5, batch_size=N_USERS),
        evaluate(fitted, train, test, Protocol("synthetic", ks=(1, 3, 5)), batch_size=N_USERS),
    )


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed", reason="dask.distributed (ratkit[dask]) is not installed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


BATCH_SIZES = [1, 5, 16, N_USERS + 10]


def _run(model, split, batch_size, n_jobs):
    train, test = split
    return (
        ranking_metrics(model, train, test, k=5, batch_size=batch_size, n_jobs=n_jobs),
        evaluate(model, train, test, Protocol("synthetic", ks=(1, 3, 5)), batch_size=batch_size, n_jobs=n_jobs),
    )


def _assert_same(got, reference):
    metrics, report = got
    ref_metrics, ref_report = reference
    assert metrics == ref_metrics  # exact equality, every key
    assert report.metrics == ref_report.metrics
    assert list(report.metrics) == list(ref_report.metrics)
    assert report.protocol == ref_report.protocol


def test_the_reference_is_not_degenerate(reference):
    metrics, report = reference
    assert report.protocol.n_users == N_USERS
    assert 0 < metrics["recall"] < 1 and 0 < metrics["auc"] < 1
    assert not any(np.isnan(v) for v in report.metrics.values())


@pytest.mark.parametrize("batch_size", BATCH_SIZES)
def test_one_process_in_blocks(fitted, split, reference, batch_size):
    _assert_same(_run(fitted, split, batch_size, 1), reference)


@pytest.mark.parametrize("batch_size", [1, 16, N_USERS + 10])
def test_two_local_processes(fitted, split, reference, batch_size):
    _assert_same(_run(fitted, split, batch_size, 2), reference)


@pytest.mark.parametrize("batch_size", [1, 16, N_USERS + 10])
def test_dask_local_cluster(dask_client, fitted, split, reference, batch_size):
    with joblib.parallel_config(backend="dask"):
        got = _run(fitted, split, batch_size, None)
    _assert_same(got, reference)


def test_per_user_arrays_are_merged_in_user_order(dask_client, split):
    """The means could hide a permutation of the users; the per-user arrays cannot."""
    train, test = split
    model = PureSVD(n_factors=4).fit(train)
    ks = [1, 5]
    reference, n_users = _per_user(model, train, test, ks, N_USERS, 1, "evaluate")
    assert n_users == N_USERS and len(reference["auc"]) == N_USERS
    assert len(np.unique(reference["auc"])) > 5  # a permutation would show
    runs = [_per_user(model, train, test, ks, 4, 2, "evaluate")]
    with joblib.parallel_config(backend="dask"):
        runs.append(_per_user(model, train, test, ks, 4, None, "evaluate"))
    for arrays, count in runs:
        assert count == N_USERS and list(arrays) == list(reference)
        for key, values in reference.items():
            np.testing.assert_array_equal(arrays[key], values, err_msg=key)


def test_a_user_without_test_items_is_skipped_in_every_block(split):
    train, test = split
    test = test.tolil()
    test[3, :] = 0  # user 3 falls out of the evaluated set, between two blocks of 3
    test = test.tocsr()
    test.eliminate_zeros()
    model = PureSVD(n_factors=4).fit(train)
    reference = ranking_metrics(model, train, test, k=3, batch_size=N_USERS)
    assert ranking_metrics(model, train, test, k=3, batch_size=3, n_jobs=2) == reference
    report = evaluate(model, train, test, Protocol("synthetic", ks=(3,)), batch_size=3, n_jobs=2)
    assert report.protocol.n_users == N_USERS - 1


@pytest.mark.parametrize("bad", [0, -3])
def test_batch_size_below_one_is_refused(fitted, split, bad):
    with pytest.raises(ParameterError, match=r"'batch_size'.*ranking_metrics"):
        ranking_metrics(fitted, *split, k=5, batch_size=bad)
    with pytest.raises(ParameterError, match=r"'batch_size'.*evaluate"):
        evaluate(fitted, *split, Protocol("synthetic"), batch_size=bad)


@pytest.mark.parametrize("bad", [2.5, "8", True, None])
def test_batch_size_of_the_wrong_type_is_refused(fitted, split, bad):
    with pytest.raises(ParameterTypeError, match="'batch_size'"):
        ranking_metrics(fitted, *split, k=5, batch_size=bad)


@pytest.mark.parametrize(("bad", "error"), [(0, ParameterError), (1.5, ParameterTypeError), ("2", ParameterTypeError)])
def test_bad_n_jobs_is_refused(fitted, split, bad, error):
    with pytest.raises(error, match="'n_jobs'"):
        ranking_metrics(fitted, *split, k=5, n_jobs=bad)
    with pytest.raises(error, match="'n_jobs'"):
        evaluate(fitted, *split, Protocol("synthetic"), n_jobs=bad)
