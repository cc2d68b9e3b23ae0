"""Held-out ranking metrics of the scale benchmark's models at 10⁶ interactions (issue 38).

The MovieLens-shaped data of :mod:`bench.recsys.scale` (``generate(10**6, 12 500, 1 666, seed)``, or a
matrix saved with ``--data``) is split by ``implicit.evaluation.train_test_split(X, 0.8,
random_state=seed)`` (the split of :mod:`bench.recsys.cccf_implicit`); every model of
``--models`` (those of :mod:`bench.recsys.scale`, at its factors and epochs, one thread) is fitted on
the training part and scored by implicit's ``ranking_metrics_at_k(model, train, test, K=10)``, the
same function for ratkit's recommenders and implicit's own (ratkit's keep implicit's ``recommend``
contract). The explicit CCCF and DCF are left out: on this one-class data :mod:`bench.recsys.scale`
fits them on ratings drawn at random, which measures their cost and nothing about ranking.

Run from the repository root (one thread)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        .venv/bin/python -m bench.recsys.scale_metrics
"""

from __future__ import annotations

import argparse
import time

from bench.recsys.cccf_implicit import fit, metrics, split
from bench.recsys.scale import DEFAULT_MODELS, LABELS, MODELS, build, generate, load_matrix, say

#: the models whose ranking on this data means something (not the explicit ones on random ratings)
RANKED = [name for name in DEFAULT_MODELS if not MODELS[name].ratings]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.scale_metrics", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--data", metavar="NPZ", help="a saved CSR matrix (default: generate 10⁶ interactions)")
    parser.add_argument("--models", nargs="+", default=RANKED, help=f"default: {' '.join(RANKED)}")
    parser.add_argument("--factors", type=int, default=32, help="factors, DCF's bits (default 32)")
    parser.add_argument("--epochs", type=int, default=20, help="epochs / iterations (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="the data's, the split's and the models' seed")
    args = parser.parse_args(argv)
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        parser.error(f"--models: unknown {unknown}; expected some of {sorted(MODELS)}")
    t0 = time.perf_counter()
    X = load_matrix(args.data) if args.data else generate(10**6, 12_500, 1_666, seed=args.seed)
    say(f"{X.shape[0]:,} users × {X.shape[1]:,} items, {X.nnz:,} interactions ({time.perf_counter() - t0:.1f} s)")
    train, test = split(X, args.seed)
    rows = []
    for name in args.models:
        model = build(name, args.factors, args.epochs, args.seed)
        fitted, seconds = fit(model, train)
        scored = getattr(fitted, "model", fitted)  # implicit's own model behind the bench's wrapper
        got = metrics(scored, train, test)
        rows.append((LABELS[name], seconds, got))
        say(f"{name}: fit {seconds:.1f} s, " + ", ".join(f"{k} {v:.4f}" for k, v in got.items()))
    keys = list(rows[0][2]) if rows else []
    print("| model | fit s | " + " | ".join(f"{k}@10" for k in keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for label, seconds, got in rows:
        print(f"| {label} | {seconds:.1f} | " + " | ".join(f"{got[k]:.4f}" for k in keys) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
