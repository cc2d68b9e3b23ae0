"""How many passes or rounds the distributed solvers need, in one process (issue 37).

The speed-up of the Dask fit (:mod:`bench.learners.distributed`) is bounded by how many CoCoA+
rounds reach the stopping rule against how many DCD passes the single process needs for the
same certificate. Those counts do not depend on the machine's load or on Dask, so this bench
computes them in one process on the hashed rows of the scale corpus
(:mod:`bench.learners.scale`: Reuters windows, ``cosine(ngram(5))`` hashed into 2²⁰ buckets,
C = 1, no intercept), for:

* *single*: DCD passes over all rows in a fresh random order (``epoch_indexed``, no shrinking,
  so each pass is one full permutation);
* *cocoa*: CoCoA+ rounds with K blocks (consecutive ranges of the rows), σ′ and local passes
  as given (:func:`ratkit.learners.dcd.cocoa.local_round`), each round's update taken with
  :func:`~ratkit.learners.dcd.cocoa.take_round` — the Dask fit's rounds without Dask;
* *sequence*: the K blocks one after another in every pass (σ′ = 1, each from the w the
  previous block left): DCD whose pass visits block 1's rows, then block 2's, and so on.
* *finish*: the Dask fit's default since the active-set finish: CoCoA+ rounds (σ′ = 1, one
  local pass, shrinking) until the gap is ≤ the given one (default the fit's
  :data:`~ratkit.learners.svm.distributed.FINISH_GAP`), then the rows
  :func:`~ratkit.learners.dcd.cocoa.active_rows` keeps are solved alone by
  :func:`~ratkit.learners.dcd.cocoa.finish` to :data:`~ratkit.learners.svm.distributed.FINISH_TOL_SHARE`
  of the last threshold, and the whole gap is
  computed; a round and another finish follow if it is still above (at most
  :data:`~ratkit.learners.svm.distributed.MAX_FINISHES`); skipped while the active rows are more
  than :data:`~ratkit.learners.svm.distributed.MAX_FINISH_FRACTION` of n, until the gap halves.
  The finish's DCD passes are reported as full-pass equivalents (row visits / n) and its rows
  as a fraction of n.

For each, the relative duality gap (P(w) − D(α)) / D(α) of w = w(α) after every pass or round
(the Dask fit's stopping rule) and the first pass/round at which it is ≤ 10⁻², 3·10⁻³, 10⁻³.
The single process's own fit stops on LIBLINEAR's projected-gradient rule instead, at the
``--pg-tol`` of RationalSVC's default; its passes and relative gap there are reported too.
Wall seconds are printed for orientation only (one thread, in-process, no Dask).

    .venv/bin/python -m bench.learners.distributed_rounds --n 100000 --runs single cocoa:2:2:1 \\
        cocoa:2:1:1 cocoa:2:2:5 sequence:2 sequence:8 cocoa:8:8:1
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from bench.learners.scale import DEFAULT_DATA, stories, windows  # noqa: E402

C = 1.0
THRESHOLDS = (1e-2, 3e-3, 1e-3)


def hashed_rows(data: str, n: int, seed: int, n_features: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """The hashed rows of n windows of the scale corpus and their labels ±1."""
    from ratkit.automata import kernels
    from ratkit.learners.svm import hashing

    bodies, labels = stories(data)
    X, y = windows(bodies, labels, n, seed)
    return hashing.hashed_features(kernels.cosine(kernels.ngram(5)), X, n_features), y.astype(np.float64)


def relative_gap(H: sp.csr_matrix, y: np.ndarray, alpha: np.ndarray, w: np.ndarray) -> float:
    """(P(w) − D(α)) / D(α) for w = w(α)."""
    from ratkit.learners.dcd import primal_objective

    dual = float(alpha.sum()) - 0.5 * float(w @ w)
    return (primal_objective(w, H, y, C) - dual) / dual if dual > 0 else 1.0


def _firsts(gaps: list[float]) -> dict[str, int | None]:
    return {f"{t:g}": next((i + 1 for i, g in enumerate(gaps) if g <= t), None) for t in THRESHOLDS}


def run_single(H: sp.csr_matrix, y: np.ndarray, max_iter: int, pg_tol: float, seed: int) -> dict[str, Any]:
    """Full DCD passes in random order until the gap is ≤ the last threshold and the
    projected gradients span ≤ pg_tol (or max_iter)."""
    from ratkit.learners.dcd import local_rows
    from ratkit.learners.dcd.epochs import epoch_indexed

    rows = local_rows(H)
    n = rows.n_rows
    alpha, v, own = np.zeros(n), np.zeros(rows.cols.shape[0]), np.zeros(n)
    Hl = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(n, rows.cols.shape[0]))
    rng = np.random.RandomState(seed)
    gaps: list[float] = []
    pg_pass = pg_gap = None
    t0 = time.perf_counter()
    for _ in range(max_iter):
        order = rng.permutation(n).astype(np.int64)
        pgmax, pgmin, _, _ = epoch_indexed(
            order, n, np.inf, -np.inf, rows.indptr, rows.indices, rows.data, own, y, rows.qinv, C, alpha, v
        )
        gaps.append(relative_gap(Hl, y, alpha, v))
        if pg_pass is None and pgmax - pgmin <= pg_tol:
            pg_pass, pg_gap = len(gaps), gaps[-1]
        if pg_pass is not None and gaps[-1] <= THRESHOLDS[-1]:
            break
    return {
        "run": "single",
        "iterations": len(gaps),
        "first": _firsts(gaps),
        "pg_tol": pg_tol,
        "pg_pass": pg_pass,
        "gap_at_pg": pg_gap,
        "seconds": time.perf_counter() - t0,
    }


def consecutive_blocks(H: sp.csr_matrix, K: int) -> tuple[list[tuple[int, int]], list[Any]]:
    """K blocks of consecutive rows of H, as the Dask fit splits a list: their (start, end) and
    their :class:`~ratkit.learners.dcd.cocoa.LocalRows`."""
    from ratkit.learners.dcd import local_rows

    bounds = np.linspace(0, H.shape[0], K + 1).astype(int)
    spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    return spans, [local_rows(H[lo:hi]) for lo, hi in spans]


def run_blocks(
    H: sp.csr_matrix, y: np.ndarray, kind: str, K: int, sigma: float, passes: int, max_iter: int, seed: int
) -> dict[str, Any]:
    """CoCoA+ rounds (``kind`` 'cocoa') or blocks in sequence ('sequence') until the gap is ≤
    the last threshold or max_iter."""
    from ratkit.learners.dcd import local_round
    from ratkit.learners.dcd.cocoa import take_round

    n = H.shape[0]
    spans, blocks = consecutive_blocks(H, K)
    alpha, w = np.zeros(n), np.zeros(H.shape[1])
    rng = np.random.RandomState(seed)
    gaps: list[float] = []
    steps: list[float] = []
    t0 = time.perf_counter()
    for _ in range(max_iter):
        if kind == "sequence":
            for b, (lo, hi) in zip(blocks, spans, strict=True):
                r = local_round(b, y[lo:hi], alpha[lo:hi], w[b.cols], C, 1.0, passes=passes, rng=rng, with_hinge=False)
                alpha[lo:hi] += r.delta_alpha
                w[b.cols] += r.delta_w
        else:
            results = [
                local_round(b, y[lo:hi], alpha[lo:hi], w[b.cols], C, sigma, passes=passes, rng=rng, with_hinge=False)
                for b, (lo, hi) in zip(blocks, spans, strict=True)
            ]
            deltas = ([r.delta_alpha for r in results], [r.delta_w for r in results])
            steps.append(take_round(alpha, w, [b.cols for b in blocks], *deltas, C))
        gaps.append(relative_gap(H, y, alpha, w))
        if gaps[-1] <= THRESHOLDS[-1]:
            break
    out: dict[str, Any] = {
        "run": f"{kind} K={K}" + (f" σ′={sigma:g} local passes={passes}" if kind == "cocoa" else ""),
        "iterations": len(gaps),
        "first": _firsts(gaps),
        "seconds": time.perf_counter() - t0,
    }
    if steps:
        out["median_step"] = float(np.median(steps))
    return out


def run_finish(H: sp.csr_matrix, y: np.ndarray, K: int, below: float, max_iter: int, seed: int) -> dict[str, Any]:
    """CoCoA+ rounds, then finishes on the active rows, as the Dask fit runs them."""
    from ratkit.learners.dcd import local_round
    from ratkit.learners.dcd.cocoa import active_rows, finish, take_round
    from ratkit.learners.svm.distributed import FINISH_TOL_SHARE, MAX_FINISH_FRACTION, MAX_FINISHES

    n, tol, first_below = H.shape[0], THRESHOLDS[-1], below
    spans, blocks = consecutive_blocks(H, K)
    alpha, w = np.zeros(n), np.zeros(H.shape[1])
    rng = np.random.RandomState(seed)
    gaps: list[float] = []
    finishes: list[dict[str, float]] = []
    t0 = time.perf_counter()
    for _ in range(max_iter):
        results = [
            local_round(b, y[lo:hi], alpha[lo:hi], w[b.cols], C, 1.0, rng=rng, shrinking=True, with_hinge=False)
            for b, (lo, hi) in zip(blocks, spans, strict=True)
        ]
        take_round(
            alpha, w, [b.cols for b in blocks], [r.delta_alpha for r in results], [r.delta_w for r in results], C
        )
        gaps.append(relative_gap(H, y, alpha, w))
        if gaps[-1] <= tol:
            break
        if gaps[-1] <= below and len(finishes) < MAX_FINISHES:
            t = time.perf_counter()
            index = [
                lo + active_rows(b, y[lo:hi], alpha[lo:hi], w[b.cols])
                for b, (lo, hi) in zip(blocks, spans, strict=True)
            ]
            rows = np.concatenate(index)
            if rows.shape[0] > MAX_FINISH_FRACTION * n:  # skipped, as the fit does, until the gap halves
                below = gaps[-1] / 2
                continue
            res = finish(H[rows], y[rows], alpha[rows], w, C, FINISH_TOL_SHARE * tol, rng=rng, max_passes=max_iter)
            alpha[rows] += res.delta_alpha
            w[res.cols] += res.delta_w
            whole = relative_gap(H, y, alpha, w)
            finishes.append(
                {
                    "after_round": len(gaps),
                    "fraction": rows.shape[0] / n,
                    "pass_equivalents": res.visits / n,
                    "rows_gap": res.relative_gap,
                    "whole_gap": whole,
                    "seconds": time.perf_counter() - t,
                }
            )
            if whole <= tol:
                gaps.append(whole)  # the next round's check would certify this point
                break
    return {
        "run": f"finish K={K} below {first_below:g}",
        "iterations": len(gaps),
        "first": _firsts(gaps),
        "finishes": finishes,
        "seconds": time.perf_counter() - t0,
    }


def table(n: int, rows: list[dict[str, Any]]) -> str:
    head = "| n | run | passes / rounds to gap ≤ 1e-2 | ≤ 3e-3 | ≤ 1e-3 | run length | median γ | s (one process) |"
    lines = [head, "|" + "---|" * 8]
    for r in rows:
        f = r["first"]
        cells = [f"{n:,}", r["run"]] + [str(f[k]) if f[k] is not None else f"> {r['iterations']}" for k in f]
        cells += [str(r["iterations"]), f"{r['median_step']:.2f}" if "median_step" in r else "–", f"{r['seconds']:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    for r in rows:
        for f in r.get("finishes", []):
            lines.append(
                f"\n{r['run']}: finish after round {f['after_round']} on {100 * f['fraction']:.1f} % of the rows, "
                f"{f['pass_equivalents']:.2f} full-pass equivalents, {f['seconds']:.1f} s; relative gap of its rows "
                f"{f['rows_gap']:.2e}, of the whole problem {f['whole_gap']:.2e}"
            )
    single = next((r for r in rows if r["run"] == "single"), None)
    if single is not None and single["pg_pass"] is not None:
        lines.append(
            f"\nsingle, LIBLINEAR's rule (projected gradients span ≤ {single['pg_tol']:g}): pass {single['pg_pass']}, "
            f"relative gap there {single['gap_at_pg']:.2e}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.learners.distributed_rounds", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--data", default=DEFAULT_DATA, help=f"Reuters-21578 folder (default {DEFAULT_DATA})")
    p.add_argument("--n", type=int, default=100_000, help="training windows (default 10⁵)")
    p.add_argument("--n-features", type=int, default=2**20, help="hash buckets (default 2**20)")
    p.add_argument("--seed", type=int, default=0, help="the windows' and the solvers' seed")
    p.add_argument("--max-iter", type=int, default=600, help="passes or rounds before a run is stopped")
    p.add_argument("--pg-tol", type=float, default=1e-3, help="the single process's stopping rule (RationalSVC's tol)")
    p.add_argument(
        "--runs",
        nargs="+",
        default=["single", "cocoa:2:2:1", "cocoa:2:1:1", "sequence:2"],
        help="single | cocoa:K:σ′:local passes | sequence:K | finish:K[:gap]",
    )
    p.add_argument("--json", help="also write the results here")
    args = p.parse_args(argv)
    t = time.perf_counter()
    H, y = hashed_rows(args.data, args.n, args.seed, args.n_features)
    print(f"hashed {H.shape[0]:,} windows, {H.nnz:,} entries, in {time.perf_counter() - t:.1f} s", flush=True)
    rows = []
    for spec in args.runs:
        kind, *nums = spec.split(":")
        if kind == "single":
            res = run_single(H, y, args.max_iter, args.pg_tol, args.seed)
        elif kind == "cocoa":
            K, sigma, passes = int(nums[0]), float(nums[1]), int(nums[2])
            res = run_blocks(H, y, "cocoa", K, sigma, passes, args.max_iter, args.seed)
        elif kind == "sequence":
            res = run_blocks(H, y, "sequence", int(nums[0]), 1.0, 1, args.max_iter, args.seed)
        elif kind == "finish":
            from ratkit.learners.svm.distributed import FINISH_GAP

            below = float(nums[1]) if len(nums) > 1 else FINISH_GAP
            res = run_finish(H, y, int(nums[0]), below, args.max_iter, args.seed)
        else:
            p.error(f"--runs: unknown run {spec!r}; expected single, cocoa:K:σ′:passes, sequence:K or finish:K[:gap]")
        print(json.dumps(res), flush=True)
        rows.append(res)
    print(table(args.n, rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "runs": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
