"""Large recommender calls are done in blocks of users within ratkit.limits.max_bytes (issue
35, class 5): ``recommend`` for every user of a PureSVD model under a 3 GB cap planned 4.8 GB
and died with MemoryError, and ``recommend``/``ranking_metrics`` refused what they could do
in blocks; ``score`` asked the model for every user's dense row at once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import ratkit
import ratkit.limits as limits
from ratkit.recsys.baselines import Popularity, PureSVD
from ratkit.recsys.evaluation import ranking_metrics, ratio_split
from tests.recsys.synthetic import random_one_class

ROOT = str(Path(ratkit.__file__).resolve().parent.parent)


def _child(code: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RATKIT_")}
    env["PYTHONPATH"] = os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def svd():
    X = random_one_class(300, 120, 0.1, 0)
    return X, PureSVD(n_factors=6, random_state=0).fit(X)


def _brute_top(scores: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray]:
    """The N best columns of each row by numpy's stable argsort (ties to the smaller id)."""
    order = np.argsort(-scores, axis=1, kind="stable")[:, :N]
    return order, np.take_along_axis(scores, order, axis=1)


# 41, 20 and 1 users per block (the answer, 12 bytes × N per user, must fit whole)
@pytest.mark.parametrize(("budget", "n_users"), [(200_000, 300), (40 * 120 * 20, 300), (40 * 120, 10)])
def test_recommend_for_every_user_under_a_tight_limit_is_the_unbatched_answer(svd, budget, n_users):
    X, model = svd
    X = X[:n_users]
    users = np.arange(n_users)
    scores = model.user_factors_[:n_users] @ model.item_factors_.T  # the oracle: numpy, all at once
    with limits.limits(max_bytes=budget):  # one call for 300 users × 120 items planned 576 KB: refused before
        ids, values = model.recommend(users, None, N=10, filter_already_liked_items=False)
    want_ids, want_values = _brute_top(scores, 10)
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_allclose(values, want_values, rtol=1e-12)

    liked = scores.copy()
    liked[X.nonzero()] = -np.inf
    want_ids, want_values = _brute_top(liked, 10)
    with limits.limits(max_bytes=budget):
        ids, values = model.recommend(users, X, N=10)
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_allclose(values, want_values, rtol=1e-12)


def test_recommend_refuses_only_when_one_user_does_not_fit(svd):
    _, model = svd
    with limits.limits(max_bytes=1000), pytest.raises(MemoryError, match="for one user × 120 items"):
        model.recommend(np.arange(5), None, filter_already_liked_items=False)


def test_similar_items_for_every_item_under_a_tight_limit(svd):
    _, model = svd
    V = model.item_factors_
    norms = np.linalg.norm(V, axis=1)
    norms[norms == 0] = 1e-10  # implicit's convention for a zero factor row (an item nobody has)
    cosine = (V @ V.T) / norms[None, :] / norms[:, None]
    with limits.limits(max_bytes=40 * 120 * 3):  # 3 items per block
        ids, values = model.similar_items(np.arange(120), N=5)
    want_ids, want_values = _brute_top(cosine, 5)
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_allclose(values, want_values, rtol=1e-12)


def test_score_of_many_users_asks_the_model_for_rows_in_blocks(monkeypatch):
    X = random_one_class(200, 50, 0.2, 1)
    model = Popularity().fit(X)
    counts = np.asarray((X > 0).sum(axis=0)).ravel().astype(float)  # the oracle: users per item
    seen = []
    real = model._score_users

    def recording(users):
        seen.append(len(users))
        return real(users)

    monkeypatch.setattr(model, "_score_users", recording)
    rng = np.random.default_rng(0)
    u, i = rng.integers(0, 200, 5000), rng.integers(0, 50, 5000)
    with limits.limits(max_bytes=40 * 50 * 16):
        got = model.score(u, i)
    np.testing.assert_array_equal(got, counts[i])
    assert max(seen) <= 16 and sum(seen) == len(np.unique(u))


def test_ranking_metrics_under_a_tight_limit_lowers_the_batch_instead_of_refusing():
    X = random_one_class(120, 60, 0.2, 2)
    train, test = ratio_split(X, 0.3, random_state=0)
    model = PureSVD(n_factors=4, random_state=0).fit(train)
    wide = ranking_metrics(model, train, test, k=5)
    with limits.limits(max_bytes=26 * 60 * 20):  # 20 users per block; batch_size=512 was refused
        tight = ranking_metrics(model, train, test, k=5)
    assert tight == pytest.approx(wide, rel=1e-12, nan_ok=True)
    # precision@5 by brute force
    scores = model.user_factors_ @ model.item_factors_.T
    scores[train.nonzero()] = -np.inf
    users = np.flatnonzero(np.diff(sp.csr_matrix(test).indptr) > 0)
    top, _ = _brute_top(scores[users], 5)
    hits = np.take_along_axis(test[users].toarray() > 0, top, axis=1).sum(axis=1)
    assert tight["precision"] == pytest.approx(float(np.mean(hits / 5)), rel=1e-12)


@pytest.mark.slow
def test_recommend_for_every_user_under_an_address_space_cap_does_not_run_out_of_memory():
    """The issue's example scaled down: PureSVD's dense scores for 20 000 users × 3 000 items
    (480 MB) under a cap 700 MB above what the process maps: planned whole before (and
    killed by MemoryError), in blocks now; checked against numpy for a sample of users."""
    done = _child(
        """
        import resource
        import numpy as np
        import scipy.sparse as sp
        import ratkit.limits as limits
        from ratkit.recsys.baselines import PureSVD

        rng = np.random.default_rng(0)
        m, n = 20000, 3000
        X = sp.random(m, n, density=0.002, random_state=0, format="csr")
        X.data[:] = 1.0
        model = PureSVD(n_factors=8, random_state=0).fit(X)
        used = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (used + 700 * 2**20, resource.RLIM_INFINITY))
        ids, values = model.recommend(np.arange(m), X, N=10)
        sample = np.arange(0, m, 997)
        scores = model.user_factors_[sample] @ model.item_factors_.T
        scores[X[sample].nonzero()] = -np.inf
        order = np.argsort(-scores, axis=1, kind="stable")[:, :10]
        assert (ids[sample] == order).all()
        assert np.allclose(values[sample], np.take_along_axis(scores, order, axis=1), rtol=1e-12)
        print(ids.shape, limits.max_bytes() < 700 * 2**20)
        """,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["(20000,", "10)", "True"]
