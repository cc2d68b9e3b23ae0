"""ratkit's one parallel layer: every ``n_jobs`` path goes through joblib.

By default the work runs on local processes (joblib's loky backend: pynini holds the GIL,
so threads do not help). Under ``joblib.parallel_config(backend="dask")`` with a
``distributed.Client`` — or inside :func:`compute_on`, which the command line's
``--scheduler`` / ``--n-jobs`` use — the very same calls run on the Dask cluster, as do
scikit-learn's own joblib loops (``GridSearchCV`` over ratkit estimators).

Whatever a task needs travels by pickling: pynini FSTs as their binary serialisation,
kernels as their parameters. An argument every task reads is passed as one
:class:`Shared` object, so that joblib's Dask backend scatters it to the workers once per
call instead of sending it with every task (it scatters weak-referenceable arguments
larger than 1 kB; a plain list is not weak-referenceable).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import pickle
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import joblib
import numpy as np
from tqdm.auto import tqdm

from ratkit.exceptions import DistributedError, MissingDependencyError, ParameterError, ParameterTypeError

__all__ = [
    "Shared",
    "effective_jobs",
    "runs_in_this_process",
    "concurrent_tasks_here",
    "parallel_map",
    "map_chunks",
    "pair_matrix",
    "sequential",
    "compute_on",
    "active_client",
    "scatter_to_all",
    "connect",
    "UNPICKLABLE",
]

T = TypeVar("T")

#: What pickling a value that cannot be pickled raises (a lambda, a local function).
UNPICKLABLE = (pickle.PicklingError, TypeError, AttributeError)

#: Seconds :func:`connect` waits for a scheduler before it gives up.
CONNECT_TIMEOUT = 10.0


class Shared:
    """One large argument read by every task of a :func:`parallel_map` call (see the module
    docstring): ``Shared(value).value`` is ``value``."""

    __slots__ = ("value", "_token", "__weakref__")

    def __init__(self, value: Any) -> None:
        self.value = value
        self._token = uuid.uuid4().hex

    def __dask_tokenize__(self) -> str:
        """A token of this holder, not of its value: Dask names scattered data by its token,
        and two calls scattering equal values under one name raced (the first call's release
        of the name deleted the second's data, whose tasks then waited for it forever:
        "Could not find data: ['Shared-…']"). Hashing a large value is not needed either."""
        return self._token

    def __sizeof__(self) -> int:
        """The size of the value, as Dask measures it: joblib's Dask backend scatters only
        arguments it finds larger than 1 kB, and the bare holder is 48 bytes."""
        try:
            from dask.sizeof import sizeof
        except ImportError:  # pragma: no cover - without dask nothing reads this
            return object.__sizeof__(self) + sys.getsizeof(self.value)
        return object.__sizeof__(self) + int(sizeof(self.value))


def effective_jobs(n_jobs: int | None) -> int:
    """:func:`joblib.effective_n_jobs`: None → 1, or the ``n_jobs`` of an enclosing
    :func:`joblib.parallel_config`, or every worker core of the current Dask backend;
    −1 → all cores, −2 → all but one, k → k. 0 and non-integers are refused."""
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer))):
        raise ParameterTypeError(
            f"The 'n_jobs' parameter must be an int (a number of processes, -1 for one per core) or None. "
            f"Got {n_jobs!r} of type {type(n_jobs).__name__} instead."
        )
    if n_jobs == 0:  # joblib's own refusal is a bare ValueError that does not say what is expected
        raise ParameterError(
            "The 'n_jobs' parameter must be a number of processes: an int ≥ 1, -1 for one per core, "
            "-2 for all but one, ..., or None for 1. Got 0 instead."
        )
    return joblib.effective_n_jobs(None if n_jobs is None else int(n_jobs))


def _call(func: Callable[..., T], n_shared: int, *args: Any) -> T:
    """func(*shared values, *task) inside a worker, with nested parallelism switched off: a
    task is one unit of work and must not fan out again (on Dask it would submit from a worker)."""
    values = [a.value if isinstance(a, Shared) else a for a in args[:n_shared]]
    with sequential():
        return func(*values, *args[n_shared:])


def _indexed(func: Callable[..., T], index: int, n_shared: int, *args: Any) -> tuple[int, T]:
    return index, _call(func, n_shared, *args)


def _lost_worker_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that mean a worker process died (not that the task raised): loky's
    TerminatedWorkerError, and on Dask KilledWorker, or FutureCancelledError when the dead
    worker took with it data the tasks depend on (the shared arguments scattered to it), so
    the scheduler cancels them instead of running them again."""
    errors: list[type[BaseException]] = []
    with contextlib.suppress(ImportError):
        from joblib.externals.loky.process_executor import TerminatedWorkerError

        errors.append(TerminatedWorkerError)
    if "distributed" in sys.modules:  # only a Dask cluster raises them, and it imports distributed
        with contextlib.suppress(ImportError):
            from distributed.scheduler import KilledWorker

            errors.append(KilledWorker)
        with contextlib.suppress(ImportError):
            from distributed.client import FutureCancelledError

            errors.append(FutureCancelledError)
    return tuple(errors)


def parallel_map(
    func: Callable[..., T],
    tasks: Sequence[tuple[Any, ...]],
    *,
    shared: Sequence[Shared] = (),
    n_jobs: int | None = None,
    ordered: bool = True,
    show_progress: bool = False,
    desc: str = "",
    unit: str = "task",
    sizes: Sequence[int] | None = None,
) -> Iterator[Any]:
    """func(*shared values, *task) for every task, over ``n_jobs`` processes (or the active
    joblib backend, e.g. Dask).

    Yields the results in task order when ``ordered``, else (task index, result) pairs as
    the tasks finish. The progress bar counts ``sizes[t]`` units per task (1 by default).
    A worker that dies for good raises :class:`~ratkit.exceptions.DistributedError`; an
    exception raised by ``func`` propagates unchanged.
    """
    in_process = runs_in_this_process(n_jobs)
    n_shared = len(shared)
    total = int(sum(sizes)) if sizes is not None else len(tasks)
    bar = tqdm(total=total, desc=desc, disable=not show_progress, unit=unit, leave=False)
    lost = () if in_process else _lost_worker_errors()  # importing them costs memory (distributed: ~17 MiB)
    stack = contextlib.ExitStack()
    try:
        if in_process:
            results: Iterator[Any] = (
                _call(func, n_shared, *shared, *task) if ordered else _indexed(func, t, n_shared, *shared, *task)
                for t, task in enumerate(tasks)
            )
        else:
            sent = stack.enter_context(_broadcast(shared, n_jobs))
            if ordered:
                calls = (joblib.delayed(_call)(func, n_shared, *sent, *task) for task in tasks)
            else:
                calls = (joblib.delayed(_indexed)(func, t, n_shared, *sent, *task) for t, task in enumerate(tasks))
            results = joblib.Parallel(n_jobs=n_jobs, return_as="generator" if ordered else "generator_unordered")(calls)
        for position, result in enumerate(results):
            index = position if ordered else result[0]
            bar.update(1 if sizes is None else sizes[index])
            yield result
    except lost as exc:
        raise DistributedError(
            f"A worker process died while running {desc or 'a parallel task'} ({type(exc).__name__}: {exc}). "
            "Check the workers' memory limit; a Gram matrix written to a file can be resumed with resume=True."
        ) from exc
    finally:
        try:
            stack.close()
        finally:
            bar.close()


@contextlib.contextmanager
def _broadcast(shared: Sequence[Shared], n_jobs: int | None) -> Iterator[tuple[Any, ...]]:
    """The shared arguments as the tasks are to receive them: under joblib's Dask backend,
    Dask futures of them, scattered to every worker before the tasks start
    (``client.scatter(..., broadcast=True)``) and released on exit; elsewhere, and without
    shared arguments, or when joblib will run the calls in this process (one job: a cluster of
    one worker core), the arguments themselves.

    Alone, the backend scatters each to one worker and lets the others fetch it once the
    scheduler moves tasks there, leaving the other workers idle at the start. The data
    go straight from this process to the workers (``direct=True``, then worker to worker)
    when the client says so (``direct_to_workers``) or, when it does not say, when it was
    made from a LocalCluster of this process (:func:`_direct_to_workers`), which is faster
    and steadier than through the scheduler (measured: see bench/RESULTS.md, sections
    'Figures of the distributed guide' and 'Figures moved out of the code (issue 36)').
    A remote client may not reach the workers, so there the scheduler relays them."""
    backend, _ = joblib.parallel.get_active_backend()
    if not shared or type(backend).__name__ != "DaskDistributedBackend" or effective_jobs(n_jobs) <= 1:
        yield tuple(shared)
        return
    client = backend.client
    distinct = list({id(s): s for s in shared}.values())
    futures = scatter_to_all(client, distinct, direct=_direct_to_workers(client))
    future_of = {id(s): f for s, f in zip(distinct, futures, strict=True)}
    try:
        yield tuple(future_of[id(s)] for s in shared)
    finally:
        if client.status == "running":  # a closed client has released them already
            client.cancel(futures)


#: Attempts :func:`scatter_to_all` makes while workers leave the cluster under it.
SCATTER_ATTEMPTS = 5
#: Seconds :func:`scatter_to_all` waits for one broadcast. distributed's replication waits for
#: ever for a worker that died after the data reached the first one (the scheduler's
#: ``replicate`` loops until every worker it started with holds a copy); the broadcast is then
#: given up, its key released (which ends that loop) and made again.
SCATTER_TIMEOUT = 60.0


def scatter_to_all(client: Any, value: Any, *, direct: bool) -> Any:
    """``client.scatter(value, broadcast=True, hash=False)``: the data on every worker, as a
    future (a list of futures for a list of values).

    A worker that dies during the broadcast leaves the scheduler replicating to an address it
    no longer knows (a KeyError, or a closed connection), or replicating for ever; the broadcast
    is then made again (after :data:`SCATTER_TIMEOUT` seconds in the second case, its key
    released first) to the workers left, once the scheduler has settled, up to
    :data:`SCATTER_ATTEMPTS` times, before a :class:`~ratkit.exceptions.DistributedError` says why."""
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm.core import CommClosedError

    many = isinstance(value, list)
    values = value if many else [value]
    for attempt in range(SCATTER_ATTEMPTS):
        keys = [f"ratkit-broadcast-{uuid.uuid4().hex}" for _ in values]
        pool = ThreadPoolExecutor(1, thread_name_prefix="ratkit-scatter")
        job = pool.submit(client.scatter, dict(zip(keys, values, strict=True)), broadcast=True, direct=direct)
        pool.shutdown(wait=False)
        try:
            futures = job.result(timeout=SCATTER_TIMEOUT)
            return [futures[k] for k in keys] if many else futures[keys[0]]
        except TimeoutError as exc:  # before OSError, its base class
            _forget(client, keys)
            error: BaseException = exc
            reason = f"a broadcast did not end within {SCATTER_TIMEOUT:g} s"
        except (KeyError, CommClosedError, OSError) as exc:
            error, reason = exc, f"{type(exc).__name__}: {exc}"
        if attempt == SCATTER_ATTEMPTS - 1:
            raise DistributedError(
                f"Sending data to every Dask worker failed {SCATTER_ATTEMPTS} times as workers left the "
                f"cluster ({reason}). Check the workers' memory limit and logs."
            ) from error
        time.sleep(0.5 * (attempt + 1))  # the scheduler removes the dead worker meanwhile
    raise AssertionError("unreachable")  # pragma: no cover


def _forget(client: Any, keys: list[str]) -> None:
    """Release ``keys`` on the cluster (the scheduler forgets them, and a replication of them stops)."""
    from distributed import Future

    client.cancel([Future(key, client) for key in keys])


def _direct_to_workers(client: Any) -> bool:
    """Whether data scattered through ``client`` may go straight to the workers: the
    client's ``direct_to_workers`` when set, else whether the client was made from a
    ``LocalCluster`` of this process, whose workers are this machine's processes. Worker
    addresses alone do not tell: behind an SSH tunnel a remote cluster's workers listen on
    127.0.0.1 of their own host."""
    if client.direct_to_workers is not None:
        return bool(client.direct_to_workers)
    from distributed import LocalCluster

    return isinstance(getattr(client, "cluster", None), LocalCluster)


def runs_in_this_process(n_jobs: int | None) -> bool:
    """Whether :func:`parallel_map` with this ``n_jobs`` calls its tasks in this process (one
    job on a local backend) rather than in worker processes, local or on a Dask cluster."""
    return effective_jobs(n_jobs) == 1 and _active_backend_is_local()


def concurrent_tasks_here(n_jobs: int | None) -> int:
    """How many tasks of :func:`parallel_map` with this ``n_jobs`` run at once in this
    machine's memory: ``effective_jobs(n_jobs)`` on a local backend, 1 on a Dask cluster
    (each worker holds its own tasks). A per-task memory budget is the machine's divided by it."""
    return effective_jobs(n_jobs) if _active_backend_is_local() else 1


def active_client() -> Any:
    """The ``distributed.Client`` of the joblib Dask backend in force (inside
    :func:`compute_on` with a client or a scheduler, or ``joblib.parallel_config(backend="dask")``),
    or None when the work runs on this machine's processes."""
    backend, _ = joblib.parallel.get_active_backend()
    if type(backend).__name__ != "DaskDistributedBackend":
        return None
    return getattr(backend, "client", None)


def _active_backend_is_local() -> bool:
    """Whether the joblib backend in force runs in this machine's processes (not Dask)."""
    backend, _ = joblib.parallel.get_active_backend()
    return type(backend).__name__ != "DaskDistributedBackend"


def map_chunks(
    func: Callable[..., T],
    items: Sequence[Any],
    *,
    shared: Sequence[Shared] = (),
    n_jobs: int | None = None,
    chunk_size: int | None = None,
    show_progress: bool = False,
    desc: str = "",
) -> list[T]:
    """[func(*shared values, chunk) for chunk in chunks(items)], in order, over ``n_jobs``
    processes (joblib's convention)."""
    jobs = effective_jobs(n_jobs)
    n = len(items)
    if chunk_size is None:
        chunk_size = max(1, min(256, -(-n // (jobs * 8)))) if jobs > 1 else max(1, min(256, n))
    chunks = [items[i : i + chunk_size] for i in range(0, n, chunk_size)]
    return list(
        parallel_map(
            func,
            [(chunk,) for chunk in chunks],
            shared=shared,
            n_jobs=n_jobs,
            show_progress=show_progress,
            desc=desc,
            unit="seq",
            sizes=[len(chunk) for chunk in chunks],
        )
    )


def pair_matrix(
    value: Callable[[Any, Any], float],
    left: Sequence[Any],
    right: Sequence[Any],
    *,
    symmetric: bool,
    n_jobs: int | None = None,
    show_progress: bool = False,
    desc: str = "",
) -> np.ndarray:
    """[value(left_i, right_j)] by rows over ``n_jobs`` processes; with ``symmetric`` (``right``
    is ``left`` and value(a, b) = value(b, a)) only the upper triangle is computed and mirrored.
    ``value`` must be picklable (a module-level function, or a partial of one); ``right`` is
    sent to each worker once."""
    work = functools.partial(_pair_rows, value=value, symmetric=symmetric)
    parts = map_chunks(
        work, list(enumerate(left)), shared=(Shared(right),), n_jobs=n_jobs, show_progress=show_progress, desc=desc
    )
    out = np.vstack(parts) if parts else np.zeros((0, len(right)))
    return np.where(np.isnan(out), out.T, out) if symmetric else out


def _pair_rows(
    right: Sequence[Any], chunk: Sequence[tuple[int, Any]], value: Callable[[Any, Any], float], symmetric: bool
) -> np.ndarray:
    """Rows of :func:`pair_matrix` for a chunk of (i, left_i); NaN below the diagonal when symmetric."""
    out = np.full((len(chunk), len(right)), np.nan)
    for r, (i, a) in enumerate(chunk):
        for j, b in enumerate(right):
            if symmetric and j < i:
                continue
            out[r, j] = value(a, b)
    return out


def sequential() -> Any:
    """A context in which every joblib loop (ratkit's and scikit-learn's) runs in this process."""
    return joblib.parallel_config(backend="sequential")


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            "Running on a Dask cluster needs dask.distributed, an optional dependency: pip install 'ratkit[dask]'."
        ) from None
    return distributed


def connect(scheduler: str, *, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``distributed.Client`` connected to the scheduler at ``scheduler`` (e.g.
    ``"tcp://10.0.0.5:8786"``), or a :class:`~ratkit.exceptions.DistributedError` naming the
    address when none answers within ``timeout`` seconds."""
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ParameterTypeError(
            f"The scheduler address must be a non-empty string such as 'tcp://host:8786'; got {scheduler!r}."
        )
    distributed = _distributed()
    try:
        distributed.comm.resolve_address(scheduler)
    except ValueError as exc:  # no port, an unknown protocol: no scheduler can answer there
        raise ParameterError(
            f"The scheduler address {scheduler!r} is not an address such as 'tcp://host:8786' ({exc})."
        ) from exc
    except OSError as exc:  # a host name that does not resolve
        raise DistributedError(
            f"Cannot reach a Dask scheduler at {scheduler!r}: its host name does not resolve ({exc}). Check the "
            "address (tcp://host:port)."
        ) from exc
    _probe(distributed, scheduler, timeout)
    try:
        return distributed.Client(scheduler, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise _unreachable(scheduler, timeout, exc) from exc


def _unreachable(scheduler: str, timeout: float, exc: BaseException) -> DistributedError:
    return DistributedError(
        f"Cannot reach a Dask scheduler at {scheduler!r} within {timeout:g} s ({type(exc).__name__}: {exc}). "
        "Check the address (tcp://host:port) and that the scheduler is running."
    )


def _probe(distributed: Any, scheduler: str, timeout: float) -> None:
    """Ask the server at ``scheduler`` who it is, all within ``timeout`` seconds, before a
    ``distributed.Client`` connects there; a :class:`~ratkit.exceptions.DistributedError`
    naming the address unless a Dask scheduler answers.

    The Client bounds only the opening of the TCP connection by its ``timeout``, not the
    Dask handshake that follows: a server that accepts the connection but speaks another
    protocol kept it waiting for ever (an HTTP server such as the dashboard on port 8787
    waits for a request line that never comes), or had it read garbage as a frame length
    (``MemoryError: Unable to allocate 3.07 EiB``). The probe runs the handshake and an
    ``identity`` request under one deadline, on an event loop of its own in a separate
    thread (the caller may be inside a running loop, e.g. in Jupyter)."""
    args = distributed.security.Security().get_connection_args("client")
    scheme, location = distributed.comm.parse_address(scheduler)
    connector = distributed.comm.registry.get_backend(scheme).get_connector()
    refused: list[BaseException] = []

    async def ask() -> Any:
        while True:  # the connection itself, retried until the deadline as distributed.comm.connect does
            try:
                comm = await connector.connect(location, deserialize=True, **args)
                break
            except OSError as exc:
                refused[:] = [exc]
                await asyncio.sleep(0.05)
        refused.clear()
        try:  # then the Dask handshake (each side sends its own) and who the peer is
            await comm.write(comm.handshake_info())
            await comm.read()
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["reply"] = asyncio.run(asyncio.wait_for(ask(), timeout))
        except BaseException as exc:  # reported in the calling thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="ratkit-scheduler-probe", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)  # the deadline inside holds; this one is a safety net
    error = outcome.get("error")
    if refused:  # no connection within the deadline
        raise _unreachable(scheduler, timeout, refused[0]) from refused[0]
    if thread.is_alive() or isinstance(error, (TimeoutError, asyncio.TimeoutError)):
        raise DistributedError(
            f"The server at {scheduler!r} accepted the connection but did not answer the Dask handshake within "
            f"{timeout:g} s: it is not a Dask scheduler (an HTTP server such as the Dask dashboard, usually on port "
            "8787, answers so; the scheduler usually listens on 8786). Check the address."
        )
    reply = outcome.get("reply")
    if error is None and isinstance(reply, dict) and reply.get("type") == "Scheduler":
        return
    if error is None:
        what = f"a {reply['type']}" if isinstance(reply, dict) and isinstance(reply.get("type"), str) else "not one"
        raise DistributedError(
            f"The server at {scheduler!r} answers the Dask protocol but is {what}, not a scheduler. Give the "
            "scheduler's address (tcp://host:port, usually port 8786)."
        )
    raise DistributedError(
        f"The server at {scheduler!r} is not a Dask scheduler: its answer to the Dask handshake is not the Dask "
        "protocol (an HTTP server such as the Dask dashboard, usually on port 8787, answers so; the scheduler "
        "usually listens on 8786). Check the address."
    ) from error


@contextlib.contextmanager
def compute_on(*, scheduler: str | None = None, client: Any = None, n_jobs: int | None = None) -> Iterator[Any]:
    """Run every joblib loop inside the block on a Dask cluster — the ``client`` given, or a
    client connected to ``scheduler`` (closed on exit) — or, with neither, on ``n_jobs``
    local processes (None leaves the current joblib configuration alone). Yields the client
    (None locally)."""
    if scheduler is not None and client is not None:
        raise ParameterError("Give either scheduler= (an address) or client= (a distributed.Client), not both.")
    if scheduler is None and client is None:
        if n_jobs is None:
            yield None
            return
        effective_jobs(n_jobs)
        with joblib.parallel_config(n_jobs=n_jobs):
            yield None
        return
    distributed = _distributed()
    if client is not None and not isinstance(client, distributed.Client):
        raise ParameterTypeError(
            f"The 'client' parameter of compute_on must be a distributed.Client; got {client!r:.60} of type "
            f"{type(client).__name__}. Pass scheduler='tcp://host:8786' to connect to an address instead."
        )
    own = scheduler is not None  # a client of our own, closed on exit (not both: refused above)
    if scheduler is not None:
        active = connect(scheduler)
    else:
        active = client
    try:
        with joblib.parallel_config(backend="dask", client=active):
            yield active
    finally:
        if own:
            active.close()
