"""CCCF and DCF in bounded memory (issue 38): peak RSS growth of one fit against the rating matrix.

Data: a users × items matrix saved with ``scipy.sparse.save_npz`` (``--data``; the issue's is
``bench.recsys.scale.generate(10**7, 125000, 16666, seed=0)``, one-class 0/1 values). The
one-class fits (``feedback="implicit"``) read it as it is; the rating fits (``"explicit"``)
replace its values by ratings drawn uniformly from {1, …, 5} (``numpy.random.default_rng(seed)``),
since a matrix of equal values has no rating scale.

Each fit runs in a fresh child process (``--child``), as in :mod:`bench.recsys.scale`: load the
matrix, one warm-up fit on a 200 × 100 matrix (numba's cache, imports), garbage collection and
``malloc_trim``, VmRSS (the baseline), VmHWM reset (``/proc/self/clear_refs``), ``fit``, VmHWM:
peak RSS growth = VmHWM − baseline, divided by the rating matrix's bytes (float64 values, int32
indices and row pointers as loaded). ``--source DIR`` makes the child import ``ratkit`` from
``DIR`` first (a checkout of an earlier commit: the "before" side, run in the same invocation;
``--skip-tree`` runs the checkouts alone, e.g. ``git archive`` copies of the two commits compared).

``--stages`` (in a child) also prints, for each step of the fit, its peak RSS growth over the
baseline (VmHWM reset before the step), so the step that sets the peak is named.

Run from the repository root, one thread::

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        .venv/bin/python -m bench.recsys.cccf_memory --data m1e7.npz [--source before/]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from bench.process_memory import reset_peak, status

THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MKL_NUM_THREADS")
#: (model, feedback) of the runs: CCCF at its defaults (G = 8, r = 8), DCF at --bits bits.
RUNS = ("cccf:explicit", "cccf:implicit", "dcf:explicit", "dcf:implicit")


def build(model: str, feedback: str, bits: int, max_iter: int, seed: int) -> Any:
    """CCCF at its defaults or DCF at ``bits`` bits, ``max_iter`` iterations, tol = 0."""
    from ratkit.recsys import CCCF, DCF

    if model == "cccf":
        return CCCF(feedback=feedback, max_iter=max_iter, tol=0.0, random_state=seed)
    return DCF(n_bits=bits, feedback=feedback, max_iter=max_iter, tol=0.0, random_state=seed)


def load(path: str, feedback: str, seed: int) -> sp.csr_matrix:
    """The saved matrix; for ratings its values are replaced by draws from {1, …, 5}."""
    X = sp.load_npz(path).tocsr()
    if feedback == "explicit":
        X.data = np.random.default_rng(seed).integers(1, 6, X.nnz).astype(np.float64)
    return X


def _staged(mark: Callable[[str], None]) -> None:
    """Wrap the fit's steps so that each prints its peak RSS growth (``mark``)."""
    import ratkit.recsys._code_fit as cf

    def wrap(owner: Any, name: str, label: str) -> None:
        inner = getattr(owner, name)

        def step(*args: Any, **kwargs: Any) -> Any:
            reset_peak()
            out = inner(*args, **kwargs)
            mark(label)
            return out

        setattr(owner, name, step)

    for name in ("pretrain_factors", "pretrain_one_class", "choose_anchors", "item_major", "observed_weight_products"):
        if hasattr(cf, name):
            wrap(cf, name, name)
    for cls in (cf.Problem, getattr(cf, "OneClassProblem", cf.Problem)):
        for name in ("__init__", "initialise", "iterate", "objective"):
            if name in vars(cls):
                wrap(cls, name, f"{cls.__name__}.{name}")


def child(args: argparse.Namespace) -> int:
    """One fit of ``args.child`` (model:feedback); one JSON line on stdout."""
    if args.source:
        sys.path.insert(0, os.path.abspath(args.source[0]))
    import ratkit
    from ratkit._memory import trim_heap

    model, feedback = args.child.split(":")
    X = load(args.data, feedback, args.seed)
    warm = load_warm(feedback)
    build(model, feedback, args.bits, 1, 0).fit(warm)
    del warm
    fitting = build(model, feedback, args.bits, args.max_iter, args.seed)
    gc.collect()
    trim_heap()
    base = status("VmRSS")
    stages: list[tuple[str, float]] = []
    if args.stages:
        _staged(lambda label: stages.append((label, (status("VmHWM") - base) / 2**20)))
    reset_peak()
    t0, c0 = time.perf_counter(), time.process_time()
    fitting.fit(X)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = status("VmHWM") if not stages else max(status("VmHWM"), base + max(s[1] for s in stages) * 2**20)
    matrix = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    out = {
        "run": args.child,
        "ratkit": os.path.dirname(ratkit.__file__),
        "seconds": seconds,
        "cpu_seconds": cpu,  # this process's CPU time: less sensitive than the wall time to a loaded machine
        "iterations": len(fitting.objective_history_) - 1,
        "peak_growth_mb": (peak - base) / 2**20,
        "matrix_mb": matrix / 2**20,
        "ratio": (peak - base) / matrix,
        "objective": float(fitting.objective_history_[-1]),
    }
    if stages:
        out["stages"] = stages
    print(json.dumps(out))
    return 0


def load_warm(feedback: str) -> sp.csr_matrix:
    rng = np.random.default_rng(1)
    dense = (rng.random((200, 100)) < 0.1) * (rng.integers(1, 6, (200, 100)) if feedback == "explicit" else 1)
    return sp.csr_matrix(dense.astype(np.float64))


def run_child(run: str, args: argparse.Namespace, source: str | None) -> dict[str, Any]:
    env = dict(os.environ, **{v: "1" for v in THREADS})
    cmd = [sys.executable, "-m", "bench.recsys.cccf_memory", "--child", run, "--data", args.data]
    cmd += ["--bits", str(args.bits), "--max-iter", str(args.max_iter), "--seed", str(args.seed)]
    cmd += ["--source", source] if source else []
    cmd += ["--stages"] if args.stages else []
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        return {"run": run, "error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]), load=os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.cccf_memory",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", required=True, help="a scipy.sparse .npz (users × items)")
    parser.add_argument("--runs", nargs="+", default=list(RUNS), help=f"model:feedback (default {' '.join(RUNS)})")
    parser.add_argument("--bits", type=int, default=32, help="DCF's bits (default 32; CCCF at its defaults)")
    parser.add_argument("--max-iter", type=int, default=20, help="outer iterations, tol = 0 (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="the models' and the ratings' seed (default 0)")
    parser.add_argument("--source", action="append", help="a ratkit checkout to run too (the before side)")
    parser.add_argument("--skip-tree", action="store_true", help="run the --source checkouts only, not this tree")
    parser.add_argument("--stages", action="store_true", help="peak RSS growth per step of the fit")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {os.getloadavg()}", flush=True)
    for run in args.runs:
        for source in [*(args.source or []), *([] if args.skip_tree else [None])]:  # each checkout, then this tree
            print(json.dumps(run_child(run, args, source)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
