"""Training a hashed RationalSVC on a real Dask LocalCluster (CoCoA+) and its local solver."""

from __future__ import annotations

import os
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

import ratkit
from ratkit._parallel import active_client
from ratkit.automata import kernels
from ratkit.exceptions import DistributedError, ParameterError, TrainingDataError
from ratkit.learners import RationalSVC
from ratkit.learners.dcd import primal_objective
from ratkit.learners.dcd.cocoa import local_objective, local_round, local_rows
from ratkit.learners.dcd.epochs import epoch_indexed, inverse_diagonal
from ratkit.learners.svm import hashing
from ratkit.learners.svm.distributed import fit_distributed

N_FEATURES = 2**12
C = 0.1
KERNEL = kernels.cosine(kernels.ngram(3))


def motifs(n: int, seed: int, noise: float = 0.1) -> tuple[list[str], np.ndarray]:
    """Random strings over 8 letters with one of 3 planted motifs (the class), a ``noise``
    fraction of labels redrawn."""
    rng = np.random.RandomState(seed)
    planted = ["abca", "fghf", "cdec"]
    X, y = [], []
    for _ in range(n):
        c = rng.randint(3)
        s = list(rng.choice(list("abcdefgh"), size=30))
        p = rng.randint(26)
        s[p : p + 4] = planted[c]
        X.append("".join(s))
        y.append(c if rng.rand() > noise else rng.randint(3))
    return X, np.array(y)


X_TRAIN, Y3 = motifs(400, 0)
X_TEST, Y3_TEST = motifs(300, 1)
Y2, Y2_TEST = (Y3 == 0).astype(int), (Y3_TEST == 0).astype(int)


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed", reason="training on Dask needs dask.distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dashboard's port notice
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def model(**kw):
    return RationalSVC(KERNEL, C=C, n_features=N_FEATURES, random_state=0, **kw)


def primal(m, X, y, intercept: bool) -> list[float]:
    """P(w) of each binary problem, computed here from hashed rows (with the bias column)."""
    H = hashing.hashed_features(KERNEL, X, N_FEATURES)
    if intercept:
        H = sp.hstack([H, np.full((H.shape[0], 1), m.intercept_scaling)], format="csr")
    out = []
    for c in range(m.coef_.shape[0]):
        label = m.classes_[1] if len(m.classes_) == 2 else m.classes_[c]
        w = m.coef_[c]
        if intercept:
            w = np.append(w, m.intercept_[c] / m.intercept_scaling)
        out.append(primal_objective(w, H, np.where(y == label, 1.0, -1.0), m.C))
    return out


def check_same_optimum(dist, single, X, y, X_test, y_test, intercept: bool) -> None:
    p_dist, p_single = primal(dist, X, y, intercept), primal(single, X, y, intercept)
    for a, b in zip(p_dist, p_single, strict=True):
        assert abs(a - b) <= 1e-3 * b, (a, b)
    acc_dist = np.mean(dist.predict(X_test) == y_test)
    acc_single = np.mean(single.predict(X_test) == y_test)
    assert abs(acc_dist - acc_single) <= 0.005 + 1e-12, (acc_dist, acc_single)


@pytest.fixture(scope="module")
def single2():
    return model(fit_intercept=True).fit(X_TRAIN, Y2)


@pytest.fixture(scope="module")
def single3():
    return model(fit_intercept=True).fit(X_TRAIN, Y3)


# -- the fit reaches the single-process hashed optimum ------------------------------------------
def test_list_binary_reaches_single_process_optimum(client, single2):
    with ratkit.compute_on(client=client):
        assert active_client() is client
        m = model(fit_intercept=True).fit(X_TRAIN, Y2)
    assert active_client() is None
    assert m.representation_ == "cocoa+" and m.converged_
    assert m.hashing_["n_features"] == N_FEATURES and m.coef_.shape == (1, N_FEATURES)
    check_same_optimum(m, single2, X_TRAIN, Y2, X_TEST, Y2_TEST, True)


def test_sigma_k_cocoa_adding_reaches_the_same_optimum(client, single2):
    """σ′ = K (CoCoA+'s safe adding, γ = 1 always increases D) against the default σ′ = 1."""
    m = model(fit_intercept=True)
    fit_distributed(m, X_TRAIN, Y2, client=client, n_partitions=3, sigma=3)
    assert m.converged_ and m.convergence_["sigma"] == 3.0 and m.convergence_["n_partitions"] == 3
    check_same_optimum(m, single2, X_TRAIN, Y2, X_TEST, Y2_TEST, True)
    default = fit_distributed(model(fit_intercept=True), X_TRAIN, Y2, client=client, n_partitions=3)
    assert default.convergence_["sigma"] == 1.0
    # every step is the line search's: never below D's value at γ = 0
    duals = np.array(default.convergence_["problems"][0]["primal_objective"]) - np.array(
        default.convergence_["problems"][0]["duality_gap"]
    )
    assert np.all(np.diff(duals) >= -1e-9 * np.abs(duals[1:]))


@pytest.mark.parametrize("sigma", [0, -1.0, float("nan"), "two"])
def test_a_bad_sigma_is_refused(client, sigma):
    with pytest.raises(ParameterError, match="sigma"):
        fit_distributed(model(), X_TRAIN, Y2, client=client, sigma=sigma)


def test_bag_three_classes_reaches_single_process_optimum(client, single3):
    db = pytest.importorskip("dask.bag")
    X = db.from_sequence(X_TRAIN, npartitions=4)
    y = db.from_sequence(Y3.tolist(), npartitions=4)
    with ratkit.compute_on(client=client):
        m = model(fit_intercept=True).fit(X, y)
    assert m.coef_.shape == (3, N_FEATURES) and m.alpha_.shape == (3, len(X_TRAIN))
    check_same_optimum(m, single3, X_TRAIN, Y3, X_TEST, Y3_TEST, True)
    # the Bag's 4 partitions make blocks on the 2 worker threads; none holds all the data
    sizes = m.convergence_["partition_sizes"]
    assert len(sizes) == 2 and sum(sizes) == len(X_TRAIN) and max(sizes) < len(X_TRAIN)


def test_series_reaches_single_process_optimum(client, single2):
    pytest.importorskip("pandas", reason="a dask.dataframe.Series needs pandas")
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    X = dd.from_pandas(pd.Series(X_TRAIN), npartitions=3)
    y = dd.from_pandas(pd.Series(Y2), npartitions=3)
    with ratkit.compute_on(client=client):
        m = model(fit_intercept=True).fit(X, y)
        check_same_optimum(m, single2, X_TRAIN, Y2, X_TEST, Y2_TEST, True)
        out = m.predict(dd.from_pandas(pd.Series(X_TEST), npartitions=2))
        assert type(out).__name__ == "Series"
        np.testing.assert_array_equal(out.compute().to_numpy(), m.predict(X_TEST))


def test_duality_gap_certifies_each_round(client, capsys, tmp_path):
    with ratkit.compute_on(client=client):
        m = model(fit_intercept=True, show_progress=True).fit(X_TRAIN, Y2)
    progress = capsys.readouterr().err
    assert "CoCoA+ problem 1/1" in progress and "gap=" in progress and "rounds" in progress
    m.save(tmp_path / "model")  # the same kind of model as a single-process hashed fit
    back = ratkit.load_model(tmp_path / "model")
    np.testing.assert_array_equal(back.decision_function(X_TEST), m.decision_function(X_TEST))
    record = m.convergence_["problems"][0]
    gap, P = np.array(record["duality_gap"]), np.array(record["primal_objective"])
    assert np.all(gap >= -1e-9 * P)  # P(w) ≥ D(α) at every round
    assert gap[-1] < 0.05 * gap[0]  # and it fell
    assert record["relative_gap"][-1] <= m.tol
    # the model's P is the certified one, recomputed here
    assert primal(m, X_TRAIN, Y2, True)[0] == pytest.approx(P[-1], rel=1e-9)
    # the gap is computed at round 1, then after a tenth of the rounds so far (≤ 10 apart)
    checked = record["checked_rounds"]
    assert checked[0] == 1 and len(checked) == len(gap) and checked[-1] == record["rounds"] == m.n_iter_
    spacing = np.diff(checked)
    assert np.all(spacing >= 1) and np.all(spacing <= np.maximum(1, np.minimum(10, np.array(checked[:-1]) // 10)))
    assert len(record["step"]) == record["rounds"] - 1  # every round before the certified one stepped


def kill_a_worker(client, killed: list[str]) -> None:
    """End the process of the cluster's first worker (its nanny starts another); note its address."""
    worker = sorted(client.scheduler_info()["workers"])[0]
    killed.append(worker)
    try:
        client.run(os._exit, 1, workers=[worker])
    except Exception:  # the worker's connection drops as it dies
        pass


def test_a_killed_worker_is_rescheduled(client, single2):
    """After round 1 one worker process dies (its nanny starts another): the blocks it held
    are rebuilt from their tasks and the fit reaches the same optimum."""
    killed: list[str] = []

    def kill(round_: int, gap: float) -> None:
        if round_ == 1:
            kill_a_worker(client, killed)

    m = model(fit_intercept=True)
    fit_distributed(m, X_TRAIN, Y2, client=client, callback=kill)
    assert killed and m.converged_
    check_same_optimum(m, single2, X_TRAIN, Y2, X_TEST, Y2_TEST, True)
    client.wait_for_workers(2, timeout=60)


# -- finishing on the active rows ---------------------------------------------------------
#: Separable motifs (no label noise) with C = 1: about a quarter of the rows are active at the
#: optimum, so a fit finishes on them (the noisy set above keeps ~90 % active: no finish).
X_CLEAN, Y_CLEAN = motifs(1000, 5, noise=0.0)
Y_CLEAN2 = (Y_CLEAN == 0).astype(int)
X_CLEAN_TEST, Y_CLEAN_TEST = motifs(300, 6, noise=0.0)


def clean_model(**kw):
    return RationalSVC(KERNEL, C=1.0, n_features=N_FEATURES, random_state=0, fit_intercept=True, **kw)


@pytest.fixture(scope="module")
def single_clean():
    return clean_model().fit(X_CLEAN, Y_CLEAN2)


def whole_relative_gap(m, X, y) -> float:
    """(P(w) − D(α)) / D(α) of the fitted α, with w = Σ α_i y_i x_i rebuilt here from α and
    the hashed rows (and checked against the model's coef_ and intercept_)."""
    H = sp.hstack([hashing.hashed_features(KERNEL, X, N_FEATURES), np.full((len(X), 1), m.intercept_scaling)])
    H = sp.csr_matrix(H)
    s = np.where(y == m.classes_[1], 1.0, -1.0)
    alpha = np.asarray(m.alpha_).ravel()
    w = H.T @ (alpha * s)
    np.testing.assert_allclose(w[:-1], m.coef_[0], atol=1e-9)
    assert w[-1] * m.intercept_scaling == pytest.approx(m.intercept_[0], abs=1e-9)
    dual = alpha.sum() - 0.5 * w @ w
    return (primal_objective(w, H, s, m.C) - dual) / dual


def test_a_fit_finishes_on_the_active_rows_and_the_whole_gap_certifies_it(client, single_clean):
    m = fit_distributed(clean_model(), X_CLEAN, Y_CLEAN2, client=client)
    record = m.convergence_["problems"][0]
    made = [f for f in record["finishes"] if f["rows"]]
    assert m.converged_ and len(made) >= 1
    assert 0 < made[0]["fraction"] < 0.5 and made[0]["converged"]
    assert made[0]["relative_gap"] <= 0.5 * m.tol  # the rows' own problem
    # the round after the last finish computed the whole problem's gap, and it certified
    assert record["checked_rounds"][-1] == made[-1]["after_round"] + 1 == record["rounds"]
    assert record["relative_gap"][-1] <= m.tol
    # recomputed here from α alone: w = w(α) still holds after the finish, and the gap is ≤ tol
    assert 0 <= whole_relative_gap(m, X_CLEAN, Y_CLEAN2) <= m.tol
    check_same_optimum(m, single_clean, X_CLEAN, Y_CLEAN2, X_CLEAN_TEST, (Y_CLEAN_TEST == 0).astype(int), True)
    # rounds alone need more rounds to the same certificate
    rounds_only = fit_distributed(clean_model(), X_CLEAN, Y_CLEAN2, client=client, finish_active=False)
    assert rounds_only.convergence_["problems"][0]["finishes"] == []
    assert rounds_only.n_iter_ > m.n_iter_
    check_same_optimum(
        rounds_only, single_clean, X_CLEAN, Y_CLEAN2, X_CLEAN_TEST, (Y_CLEAN_TEST == 0).astype(int), True
    )


@pytest.mark.parametrize(
    "constant, value, reason",
    [("MAX_FINISH_FRACTION", 0.0, "active rows >"), ("FINISH_BYTES_PER_ENTRY", 10**15, "the freest worker has")],
)
def test_a_finish_that_would_not_fit_is_skipped_and_rounds_go_on(
    client, single_clean, monkeypatch, constant, value, reason
):
    from ratkit.learners.svm import distributed as module

    monkeypatch.setattr(module, constant, value)
    m = fit_distributed(clean_model(), X_CLEAN, Y_CLEAN2, client=client)
    finishes = m.convergence_["problems"][0]["finishes"]
    assert finishes and all(f["rows"] == 0 and reason in f["skipped"] for f in finishes)
    gaps = [f["after_round"] for f in finishes]
    assert gaps == sorted(set(gaps))  # each retried at a later round, once the gap had halved
    assert m.converged_
    check_same_optimum(m, single_clean, X_CLEAN, Y_CLEAN2, X_CLEAN_TEST, (Y_CLEAN_TEST == 0).astype(int), True)


def test_a_worker_killed_just_before_the_finish_is_rebuilt(client, single_clean):
    from ratkit.learners.svm.distributed import FINISH_GAP

    killed: list[str] = []

    def kill(round_: int, gap: float) -> None:
        if gap <= FINISH_GAP and not killed:
            kill_a_worker(client, killed)

    m = fit_distributed(clean_model(), X_CLEAN, Y_CLEAN2, client=client, callback=kill)
    assert killed and m.converged_
    assert any(f["rows"] for f in m.convergence_["problems"][0]["finishes"])
    check_same_optimum(m, single_clean, X_CLEAN, Y_CLEAN2, X_CLEAN_TEST, (Y_CLEAN_TEST == 0).astype(int), True)
    client.wait_for_workers(2, timeout=60)


def test_a_broadcast_key_given_up_is_forgotten_by_the_scheduler(client):
    """What scatter_to_all does to a broadcast that did not end: the key released, so that the
    scheduler's replication of it stops (it drops tasks in state "forgotten")."""
    import time

    from ratkit._parallel import _forget

    key = "ratkit-broadcast-test"
    held = client.scatter({key: np.arange(5)}, broadcast=True, hash=False)[key]  # as the hung scatter holds it
    time.sleep(0.5)
    assert client.run_on_scheduler(lambda dask_scheduler: key in dask_scheduler.tasks)
    _forget(client, [key])
    deadline = time.monotonic() + 30
    while client.run_on_scheduler(lambda dask_scheduler: key in dask_scheduler.tasks):
        assert time.monotonic() < deadline, "the scheduler still holds the released key"
        time.sleep(0.1)
    assert held.cancelled()


def test_lost_worker_errors_become_distributed_error(client):
    distributed = pytest.importorskip("distributed")

    def die(round_: int, gap: float) -> None:
        raise distributed.scheduler.KilledWorker("round-task", SimpleNamespace(address="tcp://127.0.0.1:1"), 3)

    with pytest.raises(DistributedError, match="worker died"):
        fit_distributed(model(), X_TRAIN, Y2, client=client, callback=die)


def test_a_kernel_that_learns_its_alphabet_learns_it_from_all_blocks(client):
    """The mismatch kernel infers Σ from the training data: a map over the blocks and a union."""
    X = [s[:12] for s in X_TRAIN[:60]] + ["hhhhhhhhhhhh"]  # the last block alone has 'h' in every place
    y = np.r_[Y2[:60], 1]
    k = kernels.mismatch(3, 1)
    single = RationalSVC(k, C=C, n_features=2**10, random_state=0).fit(X, y)
    with ratkit.compute_on(client=client):
        m = RationalSVC(k, C=C, n_features=2**10, random_state=0).fit(X, y)
    assert m.kernel_.learned_params() == single.kernel_.learned_params() == {"alphabet": "abcdefgh"}
    np.testing.assert_allclose(m.decision_function(X), single.decision_function(X), atol=0.05)


def test_a_cluster_without_workers_raises_instead_of_hanging(monkeypatch):
    distributed = pytest.importorskip("distributed")
    from ratkit.learners.svm import distributed as route

    monkeypatch.setattr(route, "NO_WORKERS_SECONDS", 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None)
    with cluster, distributed.Client(cluster, set_as_default=False) as empty:
        with pytest.raises(DistributedError, match="no worker for"):
            fit_distributed(model(), X_TRAIN, Y2, client=empty, n_partitions=2)


# -- predictions stay distributed ---------------------------------------------------------------
def test_predictions_on_a_bag_are_a_bag(client, single3):
    db = pytest.importorskip("dask.bag")
    X = db.from_sequence(X_TEST, npartitions=3)
    with ratkit.compute_on(client=client):
        labels = single3.predict(X)
        scores = single3.decision_function(X)
        assert isinstance(labels, db.Bag) and isinstance(scores, db.Bag)
        np.testing.assert_array_equal(np.array(labels.compute()), single3.predict(X_TEST))
        np.testing.assert_allclose(np.array(scores.compute()), single3.decision_function(X_TEST))


# -- what is refused ----------------------------------------------------------------------------
def test_y_misaligned_with_the_bag_partitions(client):
    db = pytest.importorskip("dask.bag")
    X = db.from_sequence(X_TRAIN, npartitions=4)
    with ratkit.compute_on(client=client):
        with pytest.raises(TrainingDataError, match="X has 4 partitions but y has 2; give y with the same partitions"):
            model().fit(X, db.from_sequence(Y2.tolist(), npartitions=2))
        shifted = db.from_sequence(Y2.tolist(), partition_size=133)  # 4 partitions of other sizes
        assert shifted.npartitions == 4
        with pytest.raises(TrainingDataError, match="partition 0 of X has 100 sequences but partition 0 of y has 133"):
            model().fit(X, shifted)
        with pytest.raises(TrainingDataError, match="X has 400 samples but y has 399"):
            model().fit(X, Y2[:-1])


def test_a_bag_without_a_client_is_refused():
    db = pytest.importorskip("dask.bag")
    m = model()
    with pytest.raises(ParameterError, match=r"no Dask client is active.*compute_on\(client=client\)"):
        m.fit(db.from_sequence(X_TRAIN, npartitions=2), Y2)
    assert not hasattr(m, "coef_")


def test_exact_features_with_a_bag_are_refused(client):
    db = pytest.importorskip("dask.bag")
    with ratkit.compute_on(client=client):
        with pytest.raises(ParameterError, match=r"hashed features only: set n_features"):
            RationalSVC(KERNEL).fit(db.from_sequence(X_TRAIN, npartitions=2), Y2)


def test_exact_features_under_compute_on_train_in_this_process(client):
    with ratkit.compute_on(client=client):
        m = RationalSVC(KERNEL, C=C, random_state=0).fit(X_TRAIN[:100], Y2[:100])
    assert m.representation_ == "trie"


# -- the local solver ---------------------------------------------------------------------------
def small_problem(n: int = 40, seed: int = 3):
    rng = np.random.RandomState(seed)
    X = sp.random(n, 15, density=0.3, random_state=rng, format="csr") + sp.eye(n, 15, format="csr")
    y = np.where(rng.rand(n) > 0.5, 1.0, -1.0)
    return sp.csr_matrix(X), y


def test_one_partition_with_sigma_one_is_plain_dcd():
    X, y = small_problem()
    rows = local_rows(X)
    alpha, w = np.zeros(len(y)), np.zeros(X.shape[1])
    ref_alpha, ref_w = np.zeros(len(y)), np.zeros(X.shape[1])
    qinv = inverse_diagonal(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    for t in range(4):
        res = local_round(rows, y, alpha, w[rows.cols], 0.5, 1.0, passes=2, rng=np.random.RandomState(t))
        alpha += res.delta_alpha
        w[rows.cols] += res.delta_w
        rng = np.random.RandomState(t)
        active = np.arange(len(y), dtype=np.int64)
        for _ in range(2):
            active = active[rng.permutation(len(y))]
            epoch_indexed(
                active,
                len(y),
                np.inf,
                -np.inf,
                X.indptr,
                X.indices,
                X.data,
                np.zeros(len(y)),
                y,
                qinv,
                0.5,
                ref_alpha,
                ref_w,
            )
        np.testing.assert_allclose(alpha, ref_alpha, atol=1e-12)
        np.testing.assert_allclose(w, ref_w, atol=1e-12)


@pytest.mark.parametrize("sigma", [1.0, 2.0, 3.0])
def test_local_passes_reach_the_subproblem_maximum(sigma):
    """DCD passes on G_k increase it and reach its maximum, found here by L-BFGS-B on the box."""
    X, y = small_problem()
    Cb = 0.5
    rng = np.random.RandomState(0)
    alpha = np.where(rng.rand(len(y)) > 0.5, rng.rand(len(y)) * Cb, 0.0)
    w = np.asarray(X.T @ (alpha * y)).ravel() + rng.normal(scale=0.1, size=X.shape[1])  # another block's part too
    rows = local_rows(X)
    values = []
    for passes in (1, 3, 200):
        res = local_round(rows, y, alpha, w[rows.cols], Cb, sigma, passes=passes, rng=np.random.RandomState(1))
        values.append(local_objective(rows, y, w[rows.cols], res.delta_alpha, sigma))
        np.testing.assert_allclose(res.delta_w, X[:, rows.cols].T @ (res.delta_alpha * y), atol=1e-12)
        assert np.all(alpha + res.delta_alpha >= -1e-12) and np.all(alpha + res.delta_alpha <= Cb + 1e-12)
    assert 0.0 < values[0] <= values[1] + 1e-12 <= values[2] + 2e-12
    A = X.multiply(y[:, None]).tocsr()

    def negative(d):
        v = A.T @ d
        return -(d.sum() - w @ v - 0.5 * sigma * v @ v), -(1.0 - A @ w - sigma * (A @ v))

    best = minimize(negative, np.zeros(len(y)), jac=True, method="L-BFGS-B", bounds=list(zip(-alpha, Cb - alpha)))
    assert values[2] == pytest.approx(-best.fun, rel=1e-6)
