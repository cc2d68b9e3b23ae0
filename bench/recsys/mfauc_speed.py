"""MFAUC compiled against its numpy reference and against implicit's BPR (issue 22).

Three tables, all from one process on seed 0's (and for the fits seeds 0..S−1) split of
the ``bench.recsys.ml100k`` protocol:

1. **Seconds per iteration**, numpy reference vs compiled, for each benchmark setting
   (``MFAUC_COMMON`` + ``MFAUC_SETTINGS``): both engines run the same iterations from the
   same initial factors and seed, interleaved; an iteration is timed from one progress
   callback to the next (the block steps plus the monitored objective), the minimum over
   the iterations is kept (the least disturbed), and the factors after them are compared.
2. **Fit seconds** of the ML-100K benchmark rows, numpy vs compiled, against implicit's
   BPR at the same number of factors (64) with ``num_threads=1``; ratkit is single-threaded
   too (numba loops on one thread; run with ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` so
   that numpy/scipy's BLAS is as well).
3. **The metrics table** of both engines (the ``bench.recsys.ml100k`` columns): they must
   agree within float round-off.

Run from the repository root::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python -m bench.recsys.mfauc_speed

``--iterations-only`` runs table 1 alone (about a minute); ``--seeds`` sets the refits of
tables 2 and 3 (default 5, as ``bench.recsys.ml100k``).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from bench.recsys.ml100k import (
    COLUMNS,
    DEFAULT_DATA,
    MFAUC_COMMON,
    MFAUC_SETTINGS,
    ImplicitModel,
    implicit_available,
    score,
)
from ratkit.datasets import load_movielens
from ratkit.recsys import MFAUC
from ratkit.recsys._mfauc_sgd import Problem, run_sgd
from ratkit.recsys.evaluation import prepare_leave_k_out

ENGINES = ("numpy", "compiled")
BPR_PARAMS: dict[str, Any] = dict(factors=64, num_threads=1)  # implicit's defaults otherwise


def _model(loss: str, seed: int, engine: str, **overrides: Any) -> MFAUC:
    model = MFAUC(**{**MFAUC_COMMON, **MFAUC_SETTINGS[loss], **overrides}, random_state=seed)
    model._sgd_engine = engine
    return model


def _timed_iterations(model: MFAUC, train: sp.csr_matrix, engine: str, n_iter: int) -> tuple[list[float], np.ndarray]:
    """Seconds of each of ``n_iter`` iterations (first β stage) and the factors after them."""
    rng = np.random.default_rng(model.random_state)
    positives = (train > 0).astype(np.float64).tocsr()
    positives.sort_indices()
    problem = Problem(positives, model.tau)
    U, V = model._initial_factors(problem, rng)
    stamps: list[float] = []

    def progress(n: int, objective: float, change: float) -> None:
        stamps.append(time.perf_counter())

    start = time.perf_counter()
    U_avg, V_avg, *_ = run_sgd(
        problem, U, V, model._sgd_settings(model._betas()[0]), rng, max_iter=n_iter, tol=0.0, progress=progress,
        engine=engine,
    )  # fmt: skip
    times = np.diff([start, *stamps]).tolist()
    return times, np.vstack([U_avg, V_avg])


def iteration_table(train: sp.csr_matrix, n_iter: int, repeats: int) -> None:
    print("| setting | numpy s / iteration | compiled s / iteration | speed-up | max relative difference of (Ū, V̄) |")
    print("|---|---|---|---|---|")
    for loss in MFAUC_SETTINGS:
        model = _model(loss, 0, "compiled")
        _timed_iterations(model, train, "compiled", 1)  # compile (or load the cache) outside the timing
        best: dict[str, float] = {}
        factors: dict[str, np.ndarray] = {}
        for _ in range(repeats):  # interleaved, so that a disturbance hits both engines alike
            for engine in ENGINES:
                times, factors[engine] = _timed_iterations(model, train, engine, n_iter)
                best[engine] = min(best.get(engine, np.inf), min(times))
        a, b = factors["numpy"], factors["compiled"]
        diff = float(np.abs(a - b).max() / np.abs(a).max())
        print(
            f"| {loss} | {best['numpy']:.4f} | {best['compiled']:.4f} | {best['numpy'] / best['compiled']:.1f}× "
            f"| {diff:.1e} |",
            flush=True,
        )


def fit_tables(data_path: str, seeds: int) -> None:
    data = load_movielens(data_path)
    rows: dict[str, list[dict[str, float]]] = {}
    seconds: dict[str, list[float]] = {}
    names: list[str] = []
    for seed in range(seeds):
        train, test, _ = prepare_leave_k_out(data, threshold=4, min_positives=10, n_test=5, random_state=seed)
        models: list[tuple[str, Any]] = [
            (f"MFAUC {loss} ({engine})", _model(loss, seed, engine)) for loss in MFAUC_SETTINGS for engine in ENGINES
        ]
        if implicit_available():
            models.append(("implicit BPR (factors=64, num_threads=1)", ImplicitModel(kind="bpr", params=BPR_PARAMS)))
            models[-1][1].random_state = seed
        for name, model in models:
            if name not in rows:
                names.append(name)
                rows[name], seconds[name] = [], []
            start = time.perf_counter()
            model.fit(train)
            seconds[name].append(time.perf_counter() - start)
            rows[name].append(score(model, train, test))
        print(f"seed {seed} done", file=sys.stderr, flush=True)
    bpr = "implicit BPR (factors=64, num_threads=1)"
    bpr_mean = float(np.mean(seconds[bpr])) if bpr in seconds else float("nan")
    print("\n| model | fit s (mean over seeds) | min | × BPR (mean) |")
    print("|---|---|---|---|")
    for name in names:
        mean = float(np.mean(seconds[name]))
        print(f"| {name} | {mean:.2f} | {min(seconds[name]):.2f} | {mean / bpr_mean:.2f} |")
    print("\n| model | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for name in names:
        cells = []
        for column in COLUMNS:
            values = np.array([r[column] for r in rows[name]])
            cells.append(f"{values.mean():.4f} ± {values.std():.4f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\n| setting | largest difference numpy − compiled over every metric and seed |")
    print("|---|---|")
    for loss in MFAUC_SETTINGS:
        a, b = rows[f"MFAUC {loss} (numpy)"], rows[f"MFAUC {loss} (compiled)"]
        worst = max(abs(x[c] - y[c]) for x, y in zip(a, b) for c in COLUMNS)
        print(f"| {loss} | {worst:.1e} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.mfauc_speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", default=DEFAULT_DATA, help=f"MovieLens 100K folder (default {DEFAULT_DATA})")
    parser.add_argument("--seeds", type=int, default=5, help="refits for the fit and metric tables (default 5)")
    parser.add_argument("--iterations", type=int, default=4, help="iterations timed per run (default 4)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs per engine (default 3)")
    parser.add_argument("--iterations-only", action="store_true", help="only the seconds-per-iteration table")
    args = parser.parse_args(argv)
    print(f"# {platform.machine()} {platform.python_version()}, {os.cpu_count()} cores\n")
    data = load_movielens(args.data)
    train, _, _ = prepare_leave_k_out(data, threshold=4, min_positives=10, n_test=5, random_state=0)
    iteration_table(train, args.iterations, args.repeats)
    if not args.iterations_only:
        fit_tables(args.data, args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
