"""ratkit._parallel: the one joblib layer (argument checks, local processes, the Dask extra)."""

from __future__ import annotations

import sys
import threading

import joblib
import pytest

import ratkit
from ratkit._parallel import Shared, compute_on, connect, effective_jobs, parallel_map
from ratkit.exceptions import MissingDependencyError, ParameterError, ParameterTypeError


def _add(shared, x):
    return shared + x


@pytest.mark.parametrize("bad", ["2", 1.5, True])
def test_n_jobs_of_the_wrong_type_is_refused_naming_it(bad):
    with pytest.raises(ParameterTypeError, match="'n_jobs'"):
        effective_jobs(bad)


def test_compute_on_n_jobs_sets_the_default_number_of_processes():
    assert effective_jobs(None) == 1
    with compute_on(n_jobs=2) as client:
        assert client is None and effective_jobs(None) == 2
    assert effective_jobs(None) == 1
    assert ratkit.compute_on is compute_on


def test_compute_on_takes_an_address_or_a_client_not_both():
    with pytest.raises(ParameterError, match="not both"), compute_on(scheduler="tcp://127.0.0.1:1", client=object()):
        pass


@pytest.mark.parametrize("ordered", [True, False])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_shared_arguments_reach_every_task(ordered, n_jobs):
    out = list(parallel_map(_add, [(i,) for i in range(7)], shared=(Shared(100),), n_jobs=n_jobs, ordered=ordered))
    if ordered:
        assert out == [100 + i for i in range(7)]
    else:
        assert sorted(out) == [(i, 100 + i) for i in range(7)]


def test_without_distributed_a_scheduler_is_an_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    with pytest.raises(MissingDependencyError, match=r"ratkit\[dask\]"):
        connect("tcp://127.0.0.1:8786")
    with pytest.raises(MissingDependencyError, match=r"ratkit\[dask\]"), compute_on(scheduler="tcp://127.0.0.1:8786"):
        pass
    assert isinstance(MissingDependencyError("x"), ImportError)


def test_a_bad_address_is_refused_before_connecting():
    with pytest.raises(ParameterTypeError, match="scheduler address"):
        connect("")
    with joblib.parallel_config(n_jobs=1):
        assert effective_jobs(None) == 1


def test_a_shared_value_reports_its_own_size_so_that_dask_scatters_it():
    """Regression (benchmark): Shared reported 48 bytes, below joblib's 1 kB scatter threshold,
    so the data travelled with every task instead of once."""
    dask_sizeof = pytest.importorskip("dask.sizeof", reason="the 'dask' extra is not installed").sizeof
    import numpy as np
    import scipy.sparse as sp

    assert dask_sizeof(Shared(np.zeros(10**6))) >= 8 * 10**6
    assert dask_sizeof(Shared(sp.random(1000, 1000, density=0.01, format="csr", random_state=0))) > 10**5
    assert dask_sizeof(Shared(["x" * 100] * 1000)) > 10**4


def test_runs_in_this_process_follows_n_jobs_and_the_configuration():
    from ratkit._parallel import runs_in_this_process

    assert runs_in_this_process(None) and runs_in_this_process(1)
    assert not runs_in_this_process(2)
    with joblib.parallel_config(n_jobs=2):
        assert not runs_in_this_process(None)


def test_a_sequential_map_does_not_import_dask():
    """Regression (memory benchmark): every parallel_map imported distributed.scheduler to name
    the exception of a lost worker, ~17 MiB of resident memory for a run in one process."""
    import subprocess

    code = (
        "import sys\n"
        "from ratkit._parallel import parallel_map\n"
        "assert list(parallel_map(abs, [(-1,), (2,)])) == [1, 2]\n"
        "print('distributed' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_malformed_address_a_host_that_does_not_resolve_and_a_client_that_is_not_one():
    pytest.importorskip("distributed")
    from ratkit._parallel import compute_on, connect
    from ratkit.exceptions import DistributedError

    # issue 21: a malformed address was a DistributedError (a RuntimeError) wrapping distributed's
    # ValueError, and client=5 an AttributeError from deep inside joblib
    for address in ("not an address", "tcp://127.0.0.1", "foo://host:1"):
        with pytest.raises(ParameterError, match=rf"scheduler address {address!r} is not an address"):
            connect(address)
    with pytest.raises(DistributedError, match="'tcp://nohost.invalid:8786': its host name does not resolve"):
        connect("tcp://nohost.invalid:8786")
    with pytest.raises(ParameterTypeError, match="'client' parameter of compute_on must be a distributed.Client"):
        with compute_on(client=5):
            pass


class _ClientStub:
    """What _direct_to_workers reads of a distributed.Client."""

    def __init__(self, direct, cluster):
        self.direct_to_workers, self.cluster = direct, cluster


def _local_cluster_stub():
    """An object that is a distributed.LocalCluster to isinstance, without starting one."""
    distributed = pytest.importorskip("distributed", reason="the 'dask' extra is not installed")
    return object.__new__(distributed.LocalCluster)


@pytest.mark.parametrize(
    ("direct", "cluster", "expected"),
    [
        (None, "local", True),  # Client(LocalCluster(...)): its workers are this machine's processes
        (None, None, False),  # Client("tcp://..."): maybe a remote cluster behind a tunnel, on 127.0.0.1 there
        (None, "other", False),  # another kind of cluster object (Kubernetes, a gateway, ...)
        (False, "local", False),  # the client's own setting wins
        (True, None, True),
    ],
)
def test_scattered_data_go_straight_to_the_workers_only_when_they_are_reachable(direct, cluster, expected):
    from ratkit._parallel import _direct_to_workers

    made = {"local": _local_cluster_stub, "other": object, None: lambda: None}[cluster]()
    assert _direct_to_workers(_ClientStub(direct, made)) is expected


@pytest.mark.parametrize("ordered", [True, False])
def test_tasks_cancelled_because_a_worker_died_with_their_data_raise_a_distributed_error(monkeypatch, ordered):
    """Seen in a CI run of tests/test_parallel_dask.py: a worker killed mid-Gram took the
    shared arguments scattered to it, the scheduler cancelled the tasks that needed them, and
    distributed's FutureCancelledError escaped instead of the DistributedError the docs promise."""
    distributed = pytest.importorskip("distributed")
    import ratkit._parallel as layer
    from ratkit.exceptions import DistributedError

    class CancellingParallel:
        def __init__(self, *args, **kwargs):
            pass

        def __call__(self, calls):
            list(calls)
            raise distributed.client.FutureCancelledError("batch-key", "lost dependencies")
            yield  # a generator, as joblib's return_as="generator"

    monkeypatch.setattr(layer.joblib, "Parallel", CancellingParallel)
    with pytest.raises(DistributedError, match="A worker process died while running the map"):
        list(
            parallel_map(_add, [(i,) for i in range(3)], shared=(Shared(1),), n_jobs=2, ordered=ordered, desc="the map")
        )


class _LeavingWorkers:
    """A client whose broadcast fails ``failures`` times as a worker leaves (the scheduler's
    KeyError for the address it dropped), then succeeds."""

    def __init__(self, failures: int) -> None:
        self.failures, self.calls = failures, 0

    def scatter(self, value, *, broadcast, direct):
        self.calls += 1
        assert broadcast and isinstance(value, dict)
        if self.calls <= self.failures:
            raise KeyError("tcp://127.0.0.1:33567")
        return {key: ("future", v) for key, v in value.items()}


class _HangingBroadcast:
    """A client whose first broadcast never ends (distributed's replicate waiting for a dead
    worker) until its key is released; the next one succeeds."""

    def __init__(self) -> None:
        self.calls, self.keys, self.released = 0, [], threading.Event()

    def scatter(self, value, *, broadcast, direct):
        self.calls += 1
        (key,) = value
        self.keys.append(key)
        if self.calls == 1:
            assert self.released.wait(timeout=30)  # ends once the key is released, as the loop does
        return {key: ("future", value[key])}


def test_a_broadcast_is_made_again_when_a_worker_leaves_under_it(monkeypatch):
    pytest.importorskip("distributed")
    import ratkit._parallel as parallel

    monkeypatch.setattr(parallel.time, "sleep", lambda s: None)
    client = _LeavingWorkers(failures=2)
    assert parallel.scatter_to_all(client, 7, direct=False) == ("future", 7)
    assert client.calls == 3
    assert parallel.scatter_to_all(_LeavingWorkers(failures=0), [7, 8], direct=False) == [("future", 7), ("future", 8)]


def test_a_broadcast_that_hangs_is_released_and_made_again(monkeypatch):
    pytest.importorskip("distributed")
    import ratkit._parallel as parallel

    monkeypatch.setattr(parallel.time, "sleep", lambda s: None)
    monkeypatch.setattr(parallel, "SCATTER_TIMEOUT", 0.2)
    client = _HangingBroadcast()
    forgotten = []

    def forget(c, keys):
        forgotten.extend(keys)
        c.released.set()

    monkeypatch.setattr(parallel, "_forget", forget)
    assert parallel.scatter_to_all(client, 7, direct=True) == ("future", 7)
    assert client.calls == 2 and forgotten == client.keys[:1] and client.keys[0] != client.keys[1]


def test_a_broadcast_that_keeps_failing_is_a_distributed_error(monkeypatch):
    pytest.importorskip("distributed")
    import ratkit._parallel as parallel

    monkeypatch.setattr(parallel.time, "sleep", lambda s: None)
    from ratkit.exceptions import DistributedError

    client = _LeavingWorkers(failures=parallel.SCATTER_ATTEMPTS)
    with pytest.raises(DistributedError, match="as workers left the cluster .*KeyError"):
        parallel.scatter_to_all(client, 7, direct=False)
    assert client.calls == parallel.SCATTER_ATTEMPTS
