"""ratkit on a real Dask cluster: a LocalCluster of 2 worker processes, through joblib.

Every result is compared with the one computed in this process, and the task stream of
the cluster is checked to show that the work did run on the workers.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import joblib
import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="the 'dask' extra (dask[distributed]) is not installed")

from sklearn.model_selection import GridSearchCV, StratifiedKFold  # noqa: E402

from ratkit._parallel import compute_on, connect  # noqa: E402
from ratkit.automata.kernels import edit_distance, ngram, random_walk  # noqa: E402
from ratkit.automata.kernels.gram_file import manifest_path  # noqa: E402
from ratkit.exceptions import DistributedError  # noqa: E402
from ratkit.learners import RationalSVC  # noqa: E402

from .automata.kernels.test_blocked import _graphs, _rows  # noqa: E402

RNG = np.random.default_rng(11)
SEQS = ["".join(RNG.choice(list("abcd"), size=int(RNG.integers(5, 40)))) for _ in range(60)]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _on_cluster(client, work):
    """work() under the Dask backend, and the number of tasks the cluster ran for it."""
    with distributed.get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        result = work()
    return result, len(stream.data)


@pytest.mark.parametrize("strategy", ["auto", "features"], ids=["vectorised extractor", "pynini feature automata"])
def test_features_equal_the_single_process_ones(client, strategy, monkeypatch):
    from ratkit.automata.kernels import rational as base

    # these strings are too few for blocks to pay (they would stay in this process): say they do
    monkeypatch.setattr(base, "EXTRACTION_SECONDS_PER_BYTE", 0.0)
    monkeypatch.setattr(base, "EXTRACTION_MIN_GAIN_SECONDS", 0.0)
    k = ngram(3)
    vocabulary, F = k.fit_features(SEQS, strategy=strategy)
    (vocabulary_c, F_c), tasks = _on_cluster(client, lambda: k.fit_features(SEQS, strategy=strategy))
    assert tasks > 0
    assert np.array_equal(vocabulary.codes, vocabulary_c.codes)
    assert (F != F_c).nnz == 0


def test_gram_by_intersection_ships_fsts_to_the_workers(client):
    k = ngram(2)
    reference = k.gram(SEQS[:20], strategy="intersection")
    G, tasks = _on_cluster(client, lambda: k.gram(SEQS[:20], strategy="intersection"))
    assert tasks > 0
    np.testing.assert_allclose(G, reference, rtol=1e-12)


@pytest.mark.parametrize(
    "kernel, data",
    [(ngram(3), SEQS), (edit_distance(insertion=0.2, deletion=0.9), SEQS), (random_walk(0.05), _graphs(12))],
    ids=["ngram", "asymmetric edit distance", "random walk"],
)
def test_gram_in_memory_and_in_a_file_equal_the_single_process_one(client, tmp_path, kernel, data):
    reference = kernel.gram(data)
    block = _rows(len(data), 5)
    G, tasks = _on_cluster(client, lambda: kernel.gram(data, block_bytes=block))
    assert tasks > 0
    np.testing.assert_allclose(G, reference, rtol=1e-12)
    out = tmp_path / "g.npy"
    M, _ = _on_cluster(client, lambda: kernel.gram(data, out=out, block_bytes=block))
    np.testing.assert_allclose(np.load(out), reference, rtol=1e-12)
    assert isinstance(M, np.memmap)


def test_grid_search_over_kernel_specs_equals_the_single_process_search(client):
    rng = np.random.default_rng(5)
    X, y = [], []
    for i in range(40):
        label = i % 2
        body = rng.choice(["ab", "ba"] if label else ["cd", "dc"], size=6)
        noise = rng.choice(list("abcd"), size=4)
        X.append("".join(np.concatenate([body, noise])))
        y.append(label)
    y = np.array(y)
    grid = {"kernel": [{"family": "ngram", "n": 1}, {"family": "ngram", "n": 2}], "C": [0.1, 1.0]}

    def search():
        cv = StratifiedKFold(3, shuffle=True, random_state=0)
        return GridSearchCV(RationalSVC(random_state=0), grid, cv=cv).fit(X, y)

    local = search()
    remote, tasks = _on_cluster(client, search)
    assert tasks >= 4 * 3  # every (candidate, fold) fit ran on the cluster
    assert remote.best_params_ == local.best_params_
    np.testing.assert_array_equal(remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"])


def _sum_after_a_pause(values, same, i):
    time.sleep(0.05)
    return float(np.sum(values)) + float(np.sum(same)) + i


def test_shared_arguments_are_broadcast_to_every_worker_before_the_tasks(client, monkeypatch):
    """Regression (benchmark): joblib's Dask backend scattered the shared features to one worker;
    the other waited until the scheduler moved tasks to it and then fetched them (idle for the
    first 1.3-3.1 s of a 4.6-5.6 s Gram)."""
    from ratkit._parallel import Shared, parallel_map

    scattered = []
    real_scatter = distributed.Client.scatter

    def spy(self, data, *args, **kwargs):
        scattered.append((data, kwargs.get("broadcast", False), kwargs.get("direct")))
        return real_scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "scatter", spy)
    values = Shared(np.arange(10_000.0))  # 80 kB: joblib scatters what exceeds 1 kB
    client.run(lambda dask_worker: dask_worker.transfer_incoming_log.clear())
    with distributed.get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        got = list(parallel_map(_sum_after_a_pause, [(i,) for i in range(8)], shared=(values, values)))
    assert got == [2 * float(np.sum(values.value)) + i for i in range(8)]
    assert 1 <= len(stream.data) <= 8  # on the cluster; joblib's auto-batching may group calls (seen under load)
    broadcast = [(data, direct) for data, flag, direct in scattered if flag]
    sent = list(broadcast[0][0].values()) if broadcast else []  # {key: value}, one key per distinct value
    assert len(broadcast) == 1 and len(sent) == 1 and sent[0] is values  # once, deduplicated
    assert broadcast[0][1] is True  # a LocalCluster's workers are on this machine: not relayed by the scheduler
    # no worker had to fetch the value from another
    assert client.run(lambda dask_worker: len(dask_worker.transfer_incoming_log)) == {w: 0 for w in client.nthreads()}


def test_calls_that_share_equal_values_do_not_share_their_scattered_data(client):
    """Regression (benchmark): scattered under the token of their content, the equal shared
    values of two consecutive calls got one name, and the first call's release of it deleted
    the second's data ("Could not find data"), whose tasks then waited forever."""
    from dask.base import tokenize

    from ratkit._parallel import Shared, parallel_map

    value = np.arange(10_000.0)
    assert tokenize(Shared(value)) != tokenize(Shared(value.copy()))
    want = [2 * float(np.sum(value)) + i for i in range(4)]
    with joblib.parallel_config(backend="dask"):
        for _ in range(5):
            shared = Shared(value.copy())
            future = client.submit(time.sleep, 0)  # keeps the client's loop busy between calls
            got = list(parallel_map(_sum_after_a_pause, [(i,) for i in range(4)], shared=(shared, shared)))
            future.result()
            assert got == want


def test_compute_on_a_given_client_runs_there(client):
    with distributed.get_task_stream(client) as stream, compute_on(client=client) as active:
        G = ngram(2).gram(SEQS, block_bytes=_rows(len(SEQS), 10))
    assert active is client and len(stream.data) > 0
    np.testing.assert_allclose(G, ngram(2).gram(SEQS), rtol=1e-12)


def test_an_unreachable_scheduler_is_a_clear_error_within_the_timeout():
    start = time.monotonic()
    with pytest.raises(DistributedError, match=r"tcp://127\.0\.0\.1:1"):
        connect("tcp://127.0.0.1:1", timeout=2)
    assert time.monotonic() - start < 15


def test_a_worker_killed_in_the_middle_of_a_gram_never_leaves_a_silently_incomplete_file(client, tmp_path):
    """Dask reschedules the lost blocks on the surviving (or restarted) worker: the run either
    finishes with the right matrix or fails with a DistributedError, and only a finished run
    leaves gram.npy."""
    seqs = ["".join(np.random.default_rng(i).choice(list("acgt"), size=250)) for i in range(60)]
    k = edit_distance()
    reference = k.gram(seqs)
    out = tmp_path / "g.npy"
    outcome = {}

    def run():
        try:
            with joblib.parallel_config(backend="dask"):
                outcome["G"] = np.array(k.gram(seqs, out=out, block_bytes=_rows(len(seqs), 1), show_progress=False))
        except Exception as exc:  # noqa: BLE001 - the outcome is inspected below
            outcome["error"] = exc

    worker_pids = client.run(os.getpid)
    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and thread.is_alive():
        try:
            if len(json.loads(manifest_path(out).read_text())["done"]) >= 2:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.01)
    assert thread.is_alive(), "the Gram finished before a worker could be killed"
    os.kill(next(iter(worker_pids.values())), signal.SIGKILL)
    try:
        thread.join(180)
        assert not thread.is_alive()
        if "error" in outcome:
            assert isinstance(outcome["error"], DistributedError), repr(outcome["error"])
            assert not out.exists()
        else:
            np.testing.assert_allclose(outcome["G"], reference, rtol=1e-12)
            np.testing.assert_allclose(np.load(out), reference, rtol=1e-12)
    finally:
        # the module's cluster back at full strength, pass or fail: the tests after this one
        # count the blocks the two workers write (one worker core runs everything in the caller)
        client.wait_for_workers(2, timeout=60)


def _blind(on):
    """In a worker: make its tasks see no Gram file (a worker on another machine), or undo that."""
    import ratkit.automata.kernels.blocked as blocked

    if on:
        blocked._real_open_sink = blocked._open_sink
        blocked._open_sink = lambda sink: None
    elif hasattr(blocked, "_real_open_sink"):
        blocked._open_sink = blocked._real_open_sink


def _caller_writes(monkeypatch):
    import ratkit.automata.kernels.blocked as blocked

    calls = []
    real = blocked._write_tile
    monkeypatch.setattr(blocked, "_write_tile", lambda *a: calls.append(a[3:]) or real(*a))
    return calls


def test_the_workers_write_the_blocks_into_the_file_themselves(client, tmp_path, monkeypatch):
    k = ngram(3)
    reference = k.gram(SEQS)
    writes = _caller_writes(monkeypatch)
    out = tmp_path / "g.npy"
    with joblib.parallel_config(backend="dask"):
        G = k.gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 7))
        in_memory = k.gram(SEQS, block_bytes=_rows(len(SEQS), 7))
    np.testing.assert_allclose(G, reference, rtol=1e-12)
    np.testing.assert_allclose(in_memory, reference, rtol=1e-12)
    assert writes == []  # every block was written by a worker


def test_workers_that_cannot_see_the_file_send_their_blocks_back(client, tmp_path, monkeypatch, caplog):
    import logging

    k = edit_distance(insertion=0.2, deletion=0.9)  # not mirrored: every block is a full-width tile
    reference = k.gram(SEQS)
    writes = _caller_writes(monkeypatch)
    client.run(_blind, True)
    try:
        out = tmp_path / "g.npy"
        with caplog.at_level(logging.INFO), joblib.parallel_config(backend="dask"):
            G = k.gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 7))
            in_memory = k.gram(SEQS, block_bytes=_rows(len(SEQS), 7))
    finally:
        client.run(_blind, False)
    np.testing.assert_allclose(G, reference, rtol=1e-12)
    np.testing.assert_allclose(in_memory, reference, rtol=1e-12)
    assert len(writes) == 2 * -(-len(SEQS) // 7)
    assert "came back to be written by this process" in caplog.text


@pytest.mark.filterwarnings("ignore:.*tasks have been successfully executed:UserWarning")  # joblib's, on the early stop
def test_a_call_that_outlives_its_client_closes_quietly():
    """Regression (review): the scattered arguments were cancelled through the client when the
    call ended, and a call left open past its client's closing (an exception in the caller's
    loop, then `with Client(...)` exits) raised ClosedClientError from the generator's cleanup
    and left its progress bar on screen."""
    from ratkit._parallel import Shared, parallel_map

    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        own = distributed.Client(cluster)
        with joblib.parallel_config(backend="dask", client=own):
            results = parallel_map(_sum_after_a_pause, [(i,) for i in range(3)], shared=(Shared(np.ones(500)),) * 2)
            assert next(results) == 1000.0
        own.close()
        results.close()  # raised ClosedClientError before


def test_a_cluster_of_one_worker_core_runs_the_calls_with_their_shared_values():
    """Regression (the docs' doctest, on a clean clone): with one worker core joblib runs the calls
    in this process, which then received the Dask futures of the shared values instead of the
    values ('Future' object is not subscriptable)."""
    from ratkit._parallel import Shared, parallel_map

    values = Shared(np.arange(500.0))
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as own,
        joblib.parallel_config(backend="dask", client=own),
    ):
        got = list(parallel_map(_sum_after_a_pause, [(i,) for i in range(3)], shared=(values, values)))
    assert got == [2 * float(np.sum(values.value)) + i for i in range(3)]
