"""Calibrate the build-cost model of :mod:`ratkit.learners.dcd.active_gram` on Reuters n-grams.

For random sets A of training stories it times, in one process, a pass of dual coordinate
descent on the indexed rows of A (the unit: seconds per entry x_i(z)) and the build of
Q_AA, then fits build time ≈ e·nnz(A) + p·pairs(A) + c·|A|² by non-negative least squares and prints
e, p, c in units of one pass entry — the ENTRY_COST and PAIR_COST constants (c ≈ 0) —
and the cost of a visit in a pass on the cache per cached row (VISIT_CELL_COST).

    .venv/bin/python -m bench.learners.active_gram_costs --data ../shared/data/reuters21578
    .venv/bin/python -m bench.learners.active_gram_costs --windows 40000 --n 5 --sizes 1000 2000 4600

The passes here visit sorted sets; within a fit (random order, Q out of cache) a cached
step costs more per row: see STEP_CELL_COST in :mod:`ratkit.learners.dcd.active_gram`.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.optimize import nnls

from ratkit.automata import kernels
from ratkit.datasets import reuters_modapte
from ratkit.learners.dcd import active_gram as ag
from ratkit.learners.dcd.epochs import epoch_indexed, inverse_diagonal
from ratkit.learners.dcd.rows import IndexedRows, csr_arrays
from ratkit.learners.wprime import kernel_view as view

from .reuters import _bodies

DEFAULT_DATA = "../shared/data/reuters21578"


def _best(f, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.learners.active_gram_costs", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help=f"Reuters-21578 folder (default {DEFAULT_DATA})")
    p.add_argument("--n", type=int, default=7, help="n-gram order (default 7)")
    p.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 1500, 2000, 3000])
    p.add_argument(
        "--windows",
        type=int,
        default=0,
        help="instead of the ModApte training stories, this many 300-character windows of "
        "bench.learners.scale (its corpus, seed 0)",
    )
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.windows:
        from .scale import stories, windows

        X, _ = windows(*stories(args.data), args.windows)
    else:
        X = _bodies(reuters_modapte(args.data, "train"))
    _, F = view.explicit_features(kernels.cosine(kernels.ngram(args.n)), X, None, False)
    indptr, cols, data = csr_arrays(F)
    rows = IndexedRows.from_csr(indptr, cols, data, F.shape[1], 1.0)
    n = len(X)
    rng = np.random.RandomState(0)
    y = np.where(rng.rand(n) < 0.5, 1.0, -1.0)
    qinv = inverse_diagonal(rows.sq_norms)
    lengths = np.diff(rows.indptr)
    ag.active_gram(rows, np.arange(50), y)  # compile
    features, seconds, pass_unit, cell_unit = [], [], [], []
    print(f"# {n} stories, {args.n}-grams; |A|, nnz(A), pairs(A), pass s, build s")
    capacity = ag.cache_capacity(200.0, n)
    longest = np.argsort(-lengths, kind="stable")
    # random sets, and the longest stories (denser in shared patterns, as support vectors are)
    sets = [np.sort(rng.choice(n, m, replace=False)) for m in args.sizes]
    sets += [np.sort(longest[:m]) for m in args.sizes]
    for members in sets:
        m = members.shape[0]
        alpha, w = rng.rand(n) * 0.5, np.zeros(rows.n_slots)

        def one_pass():
            act = members.copy()
            epoch_indexed(act, m, np.inf, -np.inf, rows.indptr, rows.slots, rows.data, rows.own, y, qinv, 1.0, alpha, w)

        nnz = int(lengths[members].sum())
        t_pass = _best(one_pass)
        t_build = _best(lambda: ag.active_gram(rows, members, y))
        Q = np.empty((capacity, capacity), dtype=np.float32)  # the layout of a fit's cache
        Q[:m, :m] = ag.active_gram(rows, members, y)
        where = np.full(n, -1, dtype=np.int64)
        where[members] = np.arange(m)
        g = rng.normal(size=m)

        def cached_pass():
            act = members.copy()
            ag.epoch_cached(act, m, np.inf, -np.inf, where, Q, m, g.copy(), qinv, 1.0, alpha)

        cell_unit.append(_best(cached_pass) / (m * m))
        df = ag._slot_counts(members, m, rows.indptr, rows.slots, rows.n_slots)
        f = df[df >= 2].astype(np.float64)
        pairs = float((f * (f - 1.0)).sum() / 2.0)
        pass_unit.append(t_pass / nnz)
        features.append([nnz, pairs, float(m) ** 2])
        seconds.append(t_build)
        print(f"{m} {nnz} {pairs:.0f} {t_pass:.4f} {t_build:.4f}", flush=True)
    unit = float(np.median(pass_unit))
    coef, _ = nnls(np.array(features), np.array(seconds))
    e, pr, c = coef / unit
    print(f"pass entry: {unit * 1e9:.2f} ns")
    print(f"ENTRY_COST ≈ {e:.2f}, PAIR_COST ≈ {pr:.2f}, and {c:.2f} per entry of Q (pass entries)")
    print(f"VISIT_CELL_COST ≈ {np.median(cell_unit) / unit:.3f} (a cached visit, per row of the cache)")
    model = np.array(features) @ coef
    print("build s measured / modelled:", " ".join(f"{s:.3f}/{mo:.3f}" for s, mo in zip(seconds, model)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
