"""Training on Dask (issue 37): 2 workers against one process; workers with less memory than the data.

A 2-worker LocalCluster against one process, and a model trained by workers whose memory limit
is below the whole hashed feature matrix.

The corpus is the one of :mod:`bench.learners.scale` (its generator, imported): Reuters-21578
stories of every split with ≥ 300 characters, windows of 300 characters at uniform offsets of
stories drawn with replacement, label ``acq``. ``RationalSVC(cosine(ngram(5)), C=1,
fit_intercept=False, n_features=2**20)`` with the default tol and max_iter; n training windows
(``windows(..., n, seed)``), 10 000 held-out ones (``windows(..., 10 000, seed + 1)``: other
draws, possibly of the same stories).

1. **Speed-up** (``--n``, default 10⁵ and 2·10⁵): each fit in its own fresh process
   (``--child``), one thread per process (OPENBLAS/OMP/NUMBA/MKL_NUM_THREADS=1, set before any
   import and inherited by the workers):

   * *single*: ``model.fit(X, y)`` in the process;
   * *cluster*: ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` started
     (its start-up timed apart), then inside ``ratkit.compute_on(client=...)`` the function
     ``model.fit`` calls there, ``ratkit.learners.svm.distributed.fit_distributed(model, X, y)``
     (with ``--knobs`` and a callback logging the gap at every round where it is computed), X, y the same Python
     lists as on the single side (the client holds them and the fit ships them;
     ``--input bag`` gives a dask.bag generated on the workers instead).

   Both sides first fit 2 000 windows (not timed: imports, numba's code loaded or compiled on
   every worker; 10 rounds on the cluster). The fit's wall time is ``perf_counter`` around ``fit``; during it the bench
   also records the CPU seconds of the client process (which runs the scheduler too) and of each
   worker, the workers' peak RSS (VmHWM reset before the fit through ``/proc/self/clear_refs``),
   the Dask task stream (compute and transfer seconds) and the load average. A third process
   (*evaluate*) hashes the training windows once and computes the primal objective
   P(w) = ½‖w‖² + C Σ max(0, 1 − y wᵀh) of both models' ``coef_`` on those same rows
   (``ratkit.learners.dcd.primal_objective``), and both models' held-out accuracy
   (``predict``, in that process). The machine has 2 cores: the client with the scheduler and
   the 2 workers share them, and so does whatever else runs (the load average is printed).

2. **Memory-limited demonstration** (``--memory-n``, ``--memory-limit``): workers with Dask's
   spilling to disk and pausing off (``distributed.worker.memory.target/spill/pause: False``)
   and the nanny's termination at 95 % of ``--memory-limit``, ``allowed-failures`` 1, train on a
   ``dask.bag`` built from partition seeds (``from_sequence`` of (part, size), each partition's
   windows drawn on its worker by ``windows(..., size, seed=(seed, part))`` from the stories the
   worker reads itself): during the fit the client holds the seeds, and what the solver keeps
   there (the labels, α, w); the 10 000 test windows only after it. (a) a 2-worker cluster;
   (b) a 1-worker cluster with the same limit and data, each in a process killed after
   ``--timeout`` seconds (``--memory-tol``: a looser relative duality gap for these two fits,
   the point being the accuracy reached); (c) unless ``--no-reference``, the single-process fit
   on the same windows (no limit) and the evaluation as above, which also gives the whole
   hashed matrix's bytes: nnz × (8 + 4) + indptr.

Run from the repository root (the data default is ../shared/data/reuters21578)::

    .venv/bin/python -m bench.learners.distributed --n 100000 200000 --json dask.json
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import pickle  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from bench.learners.distributed_report import blocks_of, report_memory, report_speedup  # noqa: E402
from bench.learners.scale import DEFAULT_DATA, MiB, stories, windows  # noqa: E402
from bench.process_memory import reset_peak, status  # noqa: E402

MODULE = "bench.learners.distributed"
C = 1.0
TEST = 10_000
WARMUP = 2_000
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MKL_NUM_THREADS")
#: Workers that neither spill to disk nor pause: the memory limit is a limit on RAM, and a
#: worker over 95 % of it is restarted by its nanny.
LIMITED = {
    "distributed.worker.memory.target": False,
    "distributed.worker.memory.spill": False,
    "distributed.worker.memory.pause": False,
    "distributed.worker.memory.terminate": 0.95,
    "distributed.scheduler.allowed-failures": 1,
}


# -- data, on the client or on a worker --------------------------------------------------------
_STORIES: dict[str, tuple[list[str], np.ndarray]] = {}


def cached_stories(data: str) -> tuple[list[str], np.ndarray]:
    """The stories, read once per process (a worker reads them on its first partition)."""
    if data not in _STORIES:
        _STORIES[data] = stories(data)
    return _STORIES[data]


def partition_sizes(n: int, parts: int) -> list[tuple[int, int]]:
    """(part, size) of ``parts`` partitions of n windows, sizes differing by at most one."""
    return [(p, n // parts + (p < n % parts)) for p in range(parts)]


def partition_windows(part: tuple[int, int], data: str, seed: int) -> tuple[list[str], np.ndarray]:
    """The windows and labels of one partition: ``windows(..., size, seed=(seed, part))``."""
    bodies, labels = cached_stories(data)
    p, size = part
    return windows(bodies, labels, size, seed=[seed, p])  # type: ignore[arg-type]  # any SeedSequence entropy


def _bag_windows(parts: list[tuple[int, int]], data: str, seed: int) -> list[str]:
    return [x for part in parts for x in partition_windows(part, data, seed)[0]]


def _bag_labels(parts: list[tuple[int, int]], data: str, seed: int) -> list[int]:
    return [int(v) for part in parts for v in partition_windows(part, data, seed)[1]]


def partitioned_inputs(n: int, parts: int, data: str, seed: int, *, bag: bool) -> tuple[Any, Any]:
    """(X, y) of n windows in ``parts`` partitions: two dask.bag.Bag computed on the workers
    (``bag``), or the same windows as lists in this process."""
    sizes = partition_sizes(n, parts)
    if not bag:
        X: list[str] = []
        y: list[np.ndarray] = []
        for part in sizes:
            xs, ys = partition_windows(part, data, seed)
            X += xs
            y.append(ys)
        return X, np.concatenate(y)
    import dask.bag as db

    from bench.learners import distributed as me  # by its name, so the workers import it, not __main__

    seeds = db.from_sequence(sizes, npartitions=parts)
    return seeds.map_partitions(me._bag_windows, data, seed), seeds.map_partitions(me._bag_labels, data, seed)


def training_inputs(args: argparse.Namespace, bag: bool = False) -> tuple[Any, Any]:
    if args.parts:
        return partitioned_inputs(args.n[0], args.parts, args.data, args.seed, bag=bag)
    bodies, labels = cached_stories(args.data)
    return windows(bodies, labels, args.n[0], args.seed)


def test_windows(args: argparse.Namespace) -> tuple[list[str], np.ndarray]:
    bodies, labels = cached_stories(args.data)
    return windows(bodies, labels, TEST, args.seed + 1)


# -- the model -----------------------------------------------------------------------------------
def make_model(n_features: int, tol: float | None = None, max_iter: int | None = None) -> Any:
    """RationalSVC(cosine(ngram(5)), C=1, no intercept, n_features buckets); tol and max_iter
    None: the estimator's defaults."""
    from ratkit.automata import kernels
    from ratkit.learners import RationalSVC

    model = RationalSVC(kernels.cosine(kernels.ngram(5)), C=C, fit_intercept=False, random_state=0)
    model.set_params(n_features=n_features)
    if tol is not None:
        model.set_params(tol=tol)
    if max_iter is not None:
        model.set_params(max_iter=max_iter)
    return model


def fit_on(client: Any, model: Any, X: Any, y: Any, knobs: dict[str, Any]) -> Any:
    """``model.fit(X, y)`` inside ``compute_on(client=client)``, through the function it calls
    there, ``ratkit.learners.svm.distributed.fit_distributed``, with the tuning ``knobs`` and a
    callback that logs the relative duality gap at each round where the fit computes it (to
    stderr: the log of a run killed for its time says how far it got)."""
    import ratkit

    t0 = time.perf_counter()

    def progress(r: int, gap: float) -> None:
        print(f"round {r}: relative gap {gap:.3e} at {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)

    with ratkit.compute_on(client=client):
        try:
            from ratkit.learners.svm import distributed
        except ImportError:  # no distributed solver: what fit does on its own
            return model.fit(X, y)
        return distributed.fit_distributed(model, X, y, callback=progress, **knobs)


def convergence(model: Any) -> dict[str, Any]:
    """Rounds (or passes) and the final relative duality gap, from whatever the model recorded."""
    out: dict[str, Any] = {"n_iter": int(np.max(getattr(model, "n_iter_", 0)))}
    conv = getattr(model, "convergence_", None)
    if conv is None:
        return out
    try:
        out["convergence"] = json.loads(json.dumps(conv, default=lambda o: np.asarray(o).tolist()))
    except (TypeError, ValueError):
        out["convergence"] = repr(conv)[:2000]
    return out


def _jsonable(d: Any) -> Any:
    return json.loads(json.dumps(d, default=lambda o: np.asarray(o).tolist()))


# -- per-process measurements ---------------------------------------------------------------------
def _rss() -> dict[str, float]:
    """VmRSS and VmHWM of this process, MB; run on each worker by ``client.run``."""
    return {"rss_mb": status("VmRSS") / MiB, "hwm_mb": status("VmHWM") / MiB}


def _cpu() -> float:
    return time.process_time()


def _worker_state() -> dict[str, float]:
    return {**_rss(), "cpu_s": _cpu()}


def _on_workers(client: Any, fn: Any) -> dict[str, Any]:
    try:
        return dict(client.run(fn, on_error="return"))
    except Exception as e:  # a killed worker, a closed client: measured as missing
        return {"error": repr(e)[:300]}


def task_summary(stream: list[dict[str, Any]], blocks: int) -> dict[str, Any]:
    """Per task name of a Dask task stream (``_build_block``, ``_round``, …): tasks, compute and
    transfer seconds; and the critical path of the rounds: the round tasks in order of start,
    ``blocks`` at a time, the slowest of each group summed."""
    from dask.utils import key_split

    by: dict[str, dict[str, float]] = {}
    rounds: list[tuple[float, float]] = []
    for task in stream:
        name = key_split(task["key"])
        r = by.setdefault(name, {"tasks": 0, "compute_s": 0.0, "transfer_s": 0.0})
        r["tasks"] += 1
        for s in task.get("startstops", ()):
            if s["action"] in ("compute", "transfer"):
                r[s["action"] + "_s"] += s["stop"] - s["start"]
            if s["action"] == "compute" and "round" in name:
                rounds.append((s["start"], s["stop"] - s["start"]))
    rounds.sort()
    k = max(int(blocks), 1)
    slowest = sum(max(d for _, d in rounds[i : i + k]) for i in range(0, len(rounds), k))
    return {
        "by_task": by,
        "tasks": len(stream),
        "compute_s": sum(r["compute_s"] for r in by.values()),
        "transfer_s": sum(r["transfer_s"] for r in by.values()),
        "round_tasks": len(rounds),
        "round_critical_s": slowest,
    }


# -- the children --------------------------------------------------------------------------------
def child_single(args: argparse.Namespace) -> dict[str, Any]:
    from ratkit._memory import trim_heap

    X, y = training_inputs(args)
    Xt, yt = test_windows(args)
    make_model(args.n_features).fit(X[:WARMUP], y[:WARMUP])
    trim_heap()
    base = status("VmRSS")
    reset_peak()
    load0, cpu0 = os.getloadavg(), time.process_time()
    model = make_model(args.n_features)
    t = time.perf_counter()
    model.fit(X, y)
    fit = time.perf_counter() - t
    out = {
        "route": "single",
        "n": len(X),
        "fit_seconds": fit,
        "cpu_seconds": time.process_time() - cpu0,
        "peak_rss_growth_mb": (status("VmHWM") - base) / MiB,
        "load_before": load0,
        "load_after": os.getloadavg(),
        "fit_time_": _jsonable(getattr(model, "fit_time_", {})),
        "test_accuracy_in_child": float(np.mean(model.predict(Xt) == yt)),
        **convergence(model),
    }
    with open(os.path.join(args.out, "single.pkl"), "wb") as fh:
        pickle.dump(model, fh)
    return out


def child_cluster(args: argparse.Namespace) -> dict[str, Any]:
    import dask
    import distributed

    limited = args.memory_limit is not None
    knobs = json.loads(args.knobs) if args.knobs else {}
    out: dict[str, Any] = {"route": f"cluster{args.workers}", "n": args.n[0], "workers": args.workers, "knobs": knobs}
    out["memory_limit"], out["tol"] = args.memory_limit, args.tol
    with dask.config.set(LIMITED if limited else {}):
        t = time.perf_counter()
        cluster = distributed.LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            memory_limit=args.memory_limit if limited else "auto",
        )
        client = distributed.Client(cluster)
        out["startup_seconds"] = time.perf_counter() - t
        out["worker_memory_limits_mb"] = [w["memory_limit"] / MiB for w in client.scheduler_info()["workers"].values()]
        try:
            bag = args.input == "bag"
            X, y = training_inputs(args, bag=bag)
            Xw, yw = partitioned_inputs(WARMUP, args.workers, args.data, args.seed + 2, bag=bag)
            with warnings.catch_warnings():  # 10 rounds: enough to load the code on every worker
                warnings.simplefilter("ignore")
                fit_on(client, make_model(args.n_features, max_iter=10), Xw, yw, knobs)
            out["client_rss_after_data_mb"] = status("VmRSS") / MiB
            _on_workers(client, reset_peak)
            reset_peak()
            before = _on_workers(client, _worker_state)
            load0, cpu0, base = os.getloadavg(), time.process_time(), status("VmRSS")
            model = make_model(args.n_features, args.tol)
            t = time.perf_counter()
            try:
                with distributed.get_task_stream(client) as ts:
                    fit_on(client, model, X, y, knobs)
            except Exception as e:  # what one limited worker cannot do: reported, not raised
                out.update(fit_error=f"{type(e).__name__}: {e}"[:1000], fit_seconds=time.perf_counter() - t)
                out["workers_after"] = _on_workers(client, _worker_state)
                return out
            out["fit_seconds"] = time.perf_counter() - t
            out["client_cpu_seconds"] = time.process_time() - cpu0
            out["client_peak_rss_growth_mb"] = (status("VmHWM") - base) / MiB
            out["load_before"], out["load_after"] = load0, os.getloadavg()
            after = _on_workers(client, _worker_state)
            out["worker_stats"] = {
                w: {
                    "cpu_seconds": after[w]["cpu_s"] - before[w]["cpu_s"],
                    "peak_rss_mb": after[w]["hwm_mb"],
                    "rss_before_mb": before[w]["rss_mb"],
                }
                for w in after
                if w in before and isinstance(after[w], dict) and isinstance(before[w], dict)
            }
            out["fit_time_"] = _jsonable(getattr(model, "fit_time_", {}))
            out.update(convergence(model))
            out["task_stream"] = task_summary(ts.data, blocks_of(out))
        finally:
            client.close()
            cluster.close()
    Xt, yt = test_windows(args)  # after the fit: the client reads the stories only now with a bag
    out["test_accuracy_in_child"] = float(np.mean(model.predict(Xt) == yt))
    with open(os.path.join(args.out, f"{out['route']}.pkl"), "wb") as fh:
        pickle.dump(model, fh)
    return out


def child_evaluate(args: argparse.Namespace) -> dict[str, Any]:
    """The primal objective of every saved model on one hashing of the training windows, the
    hashed matrix's size, and the held-out accuracy of each model."""
    from ratkit.learners.dcd import primal_objective
    from ratkit.learners.svm.hashing import hashed_features

    X, y = training_inputs(args)
    Xt, yt = test_windows(args)
    kernel = make_model(args.n_features).kernel
    kernel.learn(X)  # what fit does before hashing
    t = time.perf_counter()
    H = hashed_features(kernel, X, args.n_features)
    out: dict[str, Any] = {
        "hash_seconds": time.perf_counter() - t,
        "nnz": int(H.nnz),
        "matrix_bytes": int(H.data.nbytes + H.indices.nbytes + H.indptr.nbytes),
        "dtypes": [str(H.data.dtype), str(H.indices.dtype), str(H.indptr.dtype)],
        "models": {},
    }
    for name in sorted(f[:-4] for f in os.listdir(args.out) if f.endswith(".pkl")):
        with open(os.path.join(args.out, name + ".pkl"), "rb") as fh:
            model = pickle.load(fh)
        w = np.asarray(model.coef_[0], dtype=np.float64)
        sign = 1.0 if model.classes_[1] == 1 else -1.0  # coef_ scores classes_[1]
        out["models"][name] = {
            "primal": primal_objective(sign * w, H, y, C),
            "train_accuracy": float(np.mean(np.where(H @ (sign * w) > 0, 1, -1) == y)),
            "test_accuracy": float(np.mean(model.predict(Xt) == yt)),
        }
    return out


# -- the parent ------------------------------------------------------------------------------------
def run_child(
    kind: str, args: argparse.Namespace, out: str, timeout: float | None = None, **opts: Any
) -> dict[str, Any]:
    """``--child kind`` in a fresh process (its own session, killed whole after ``timeout`` s);
    its JSON, with its exit status and the lines the nanny logged about memory."""
    cmd = [sys.executable, "-m", MODULE, "--child", kind, "--data", args.data, "--seed", str(args.seed)]
    cmd += ["--n-features", str(args.n_features), "--out", out, "--input", args.input, "--timeout", str(timeout or 0)]
    if args.knobs:
        cmd += ["--knobs", args.knobs]
    for k, v in opts.items():
        if v is not None:
            cmd += [f"--{k.replace('_', '-')}", str(v)]
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    result = os.path.join(out, f"{kind}.json")
    log = os.path.join(out, f"{kind}-{opts.get('workers', '')}.log")
    t = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            [*cmd, "--json", result], env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            code: int | str = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the child and the cluster it started
            proc.wait()
            code = f"killed after {timeout:.0f} s"
    res: dict[str, Any] = {}
    if isinstance(code, int) and code == 0 and os.path.exists(result):
        with open(result) as fh:
            res = json.load(fh)
        os.remove(result)
    with open(log) as fh:
        text = fh.read()
    memory_lines = [
        ln for ln in text.splitlines() if "memory" in ln.lower() and ("restart" in ln.lower() or "exceed" in ln.lower())
    ]
    res.update(exit=code, wall_seconds=time.perf_counter() - t, nanny_memory_events=len(memory_lines))
    res["memory_log"] = memory_lines[:5]
    rounds = [ln for ln in text.splitlines() if ln.startswith("round ")]
    res["last_progress"] = rounds[-1] if rounds else None
    if code != 0:
        res["log_tail"] = text.splitlines()[-60:]
    print(f"  {kind} {opts}: exit {code}, {res['wall_seconds']:.1f} s", flush=True)
    return res


def speedup(args: argparse.Namespace, n: int) -> dict[str, Any]:
    parts = args.speedup_parts or None
    with tempfile.TemporaryDirectory() as out:
        single = run_child("single", args, out, n=n, parts=parts)
        cluster = run_child("cluster", args, out, n=n, workers=2, parts=parts)
        evaluation = run_child("evaluate", args, out, n=n, parts=parts)
    return {"n": n, "single": single, "cluster": cluster, "evaluate": evaluation}


def memory_demo(args: argparse.Namespace) -> dict[str, Any]:
    n, parts, limit = args.memory_n, args.memory_parts, args.memory_limit
    common = {"n": n, "parts": parts, "memory_limit": limit, "tol": args.memory_tol}
    saved, args.input = (args.input, args.knobs), "bag"
    args.knobs = args.memory_knobs or args.knobs
    try:
        with tempfile.TemporaryDirectory() as out:
            k = args.memory_workers
            many = run_child("cluster", args, out, timeout=args.timeout, workers=k, **common)
            one = run_child("cluster", args, out, timeout=args.timeout, workers=1, **common)
            row = {"n": n, "parts": parts, "limit": limit, "workers": k, "cluster": many, "one_worker": one}
            if not args.no_reference:
                row["single"] = run_child("single", args, out, n=n, parts=parts)
                row["evaluate"] = run_child("evaluate", args, out, n=n, parts=parts)
    finally:
        args.input, args.knobs = saved
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=f"python -m {MODULE}", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help=f"Reuters-21578 folder (default {DEFAULT_DATA})")
    p.add_argument("--n", type=int, nargs="+", default=[100_000, 200_000], help="training windows of the speed-up runs")
    p.add_argument("--seed", type=int, default=0, help="seed of the window generator (test windows: seed + 1)")
    p.add_argument("--n-features", type=int, default=2**20, help="hash buckets (default 2**20)")
    p.add_argument("--input", choices=["list", "bag"], default="list", help="the speed-up's X on the cluster side")
    p.add_argument("--knobs", default=None, help="JSON keyword arguments of distributed.fit_distributed")
    p.add_argument(
        "--speedup-parts",
        type=int,
        default=0,
        help="draw the speed-up's windows in this many partitions (needed by --input bag; default 0: one draw)",
    )
    p.add_argument("--parts", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--workers", type=int, default=2, help=argparse.SUPPRESS)
    p.add_argument("--memory-limit", default=None, help="worker memory limit of the demonstration (default 1.5GiB)")
    p.add_argument("--memory-workers", type=int, default=2, help="workers of the demonstration's cluster (default 2)")
    p.add_argument("--memory-n", type=int, default=600_000, help="training windows of the demonstration")
    p.add_argument("--memory-parts", type=int, default=24, help="partitions of the demonstration's bag")
    p.add_argument(
        "--memory-knobs",
        default=None,
        help="JSON keyword arguments of distributed.fit_distributed for the demonstration (default: --knobs)",
    )
    p.add_argument(
        "--memory-tol",
        type=float,
        default=None,
        help="the estimator's tol (for CoCoA+ the relative duality gap) of the demonstration's cluster fits "
        "(default: the estimator's, 1e-3); its single-process reference keeps the default",
    )
    p.add_argument("--tol", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("--timeout", type=float, default=240.0, help="seconds before a demonstration fit is killed")
    p.add_argument("--no-reference", action="store_true", help="skip the single-process fit of the demonstration")
    p.add_argument("--skip", nargs="*", default=[], choices=["speedup", "memory"], help="parts not to run")
    p.add_argument("--json", default=None, help="also write every measurement to this JSON file")
    p.add_argument("--report", default=None, metavar="JSON", help="only print the tables of a JSON file written before")
    p.add_argument("--out", default=None, help=argparse.SUPPRESS)
    p.add_argument("--child", default=None, choices=["single", "cluster", "evaluate"], help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.input == "bag" and not (args.child or args.speedup_parts):
        p.error("--input bag needs --speedup-parts (the windows are drawn per partition on the workers)")
    if args.child:
        if args.timeout and args.child == "cluster":  # where it hangs, in the log, before the parent kills it
            import faulthandler

            faulthandler.dump_traceback_later(max(args.timeout - 10, 1), exit=False)
        run = {"single": child_single, "cluster": child_cluster, "evaluate": child_evaluate}[args.child]
        res = run(args)
        with open(args.json, "w") as fh:
            json.dump(res, fh, indent=1)
        return 0
    if args.report:
        with open(args.report) as fh:
            done = json.load(fh)
    else:
        from bench.scale import context

        done = {"context": context(), "args": vars(args), "speedup": [], "memory": None}
        print(
            f"# {done['context']}; one thread per process; 2 cores shared by the client, scheduler and workers",
            flush=True,
        )
        if "speedup" not in args.skip:
            for n in args.n:
                done["speedup"].append(speedup(args, n))
        if "memory" not in args.skip:
            if args.memory_limit is None:
                args.memory_limit = "1.5GiB"
            done["memory"] = memory_demo(args)
        done["load_at_end"] = os.getloadavg()
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(done, fh, indent=1)
    if done["speedup"]:
        print(report_speedup(done["speedup"]))
    if done["memory"]:
        print()
        print(report_memory(done["memory"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
