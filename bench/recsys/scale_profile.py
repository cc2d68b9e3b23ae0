"""Where a model's ``recommend`` spends its time against implicit ALS's (issue 38, the scale benchmark).

Fits each model of ``--models`` and implicit ALS on one saved matrix (``--data``, as
:mod:`bench.recsys.scale` reads it; explicit CCCF/DCF on its ratings) in this one process, one
thread, with ``--epochs`` epochs (default 1: ``recommend``'s cost does not depend on how long the
model trained, only on its shapes), then times ``recommend(userids, X[userids], N=10)`` for the 1 000
users :mod:`bench.recsys.scale` draws, every model in turn, ``--rounds`` rounds, keeping each model's
least time, so that other processes' load hits all models alike; ratio = that / ALS's. Then one call
of each model runs under :mod:`cProfile`; the functions with the most own time are printed.

Run from the repository root (one thread)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        .venv/bin/python -m bench.recsys.scale_profile --data m1e7.npz --models popularity fism tjsl
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from typing import Any

import numpy as np

from bench.recsys.scale import MODELS, build, load_matrix, sample_users, say, with_ratings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.scale_profile", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--data", required=True, metavar="NPZ", help="a CSR matrix saved with save_npz")
    parser.add_argument("--models", nargs="+", required=True, help="models of bench.recsys.scale (ALS is added)")
    parser.add_argument("--factors", type=int, default=32, help="factors, DCF's bits (default 32)")
    parser.add_argument("--epochs", type=int, default=1, help="epochs / iterations of each fit (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="the models' seed and the users' draw (default 0)")
    parser.add_argument("--rounds", type=int, default=7, help="timing rounds, each model once per round (7)")
    parser.add_argument("--top", type=int, default=12, help="profile lines per model (12)")
    args = parser.parse_args(argv)
    from bench.recsys.cccf import machine

    print(machine() + "\n")
    X = load_matrix(args.data)
    users = sample_users(X, args.seed)
    names = ["als"] + [name for name in args.models if name != "als"]
    models: dict[str, tuple[Any, Any]] = {}
    for name in names:
        data = with_ratings(X, args.seed) if name in MODELS and MODELS[name].ratings else X
        t0 = time.perf_counter()
        models[name] = (build(name, args.factors, args.epochs, args.seed).fit(data), data[users])
        say(f"fitted {name} ({args.epochs} epochs) in {time.perf_counter() - t0:.1f} s")
    best = dict.fromkeys(names, np.inf)
    for _ in range(args.rounds):
        for name, (model, rows) in models.items():
            t0 = time.perf_counter()
            model.recommend(users, rows, N=10)
            best[name] = min(best[name], time.perf_counter() - t0)
    print(f"| model | recommend 1 000 users, least of {args.rounds} (s) | × ALS |\n|---|---|---|")
    for name in names:
        label = MODELS[name].label if name in MODELS else name
        print(f"| {label} | {best[name]:.4f} | {best[name] / best['als']:.2f} |")
    for name, (model, rows) in models.items():
        profile = cProfile.Profile()
        profile.runcall(model.recommend, users, rows, N=10)
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(args.top)
        body = text.getvalue()
        body = body[body.find("   ncalls") :].rstrip()
        print(f"\n#### {name}: one call under cProfile, by own time\n\n```\n{body}\n```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
