"""MUTAG: SVM accuracy and Gram speed of ratkit's geometric random-walk kernel against GraKeL.

Protocol (every method sees the same folds and grids):

* 188 MUTAG graphs (``ratkit.datasets.load_tu``), y ∈ {−1, +1}.
* Outer: ``StratifiedKFold(--folds, shuffle=True, random_state=--seed)``. Inner, on each
  training fold: ``StratifiedKFold(--inner, shuffle=True, random_state=--seed + 1 + fold)``;
  (λ, C) maximises the mean inner accuracy (ties: the smaller λ, then the smaller C), then
  ``SVC(kernel="precomputed", C)`` is refit on the whole training fold and scored on the test fold.
* λ grid: ``--fractions`` × the divergence bound 1/max_G ρ(A_G)² of the data set, strictly below it
  (ρ(W×) ≤ ρ(A)ρ(A′), so the grid converges for every label mode; GraKeL's ``_tune_lamda`` uses
  the same bound, so it never lowers these λ — a RuntimeWarning would be an error here). C grid ``--C``.
* The kernel has no fitted state: one 188 × 188 Gram per (method, λ), sliced per fold. Each Gram is
  divided by its mean diagonal entry (a positive scalar: SVC on K/s with C is SVC on K with C/s), so that
  one C grid serves kernels whose values differ by orders of magnitude.

Methods. GraKeL ``RandomWalk`` / ``RandomWalkLabeled`` (geometric, ``method_type="baseline"``)
sum all entries of (I − λA×)⁻¹, i.e. raw adjacency and all-ones start/stop vectors, which is
ratkit's ``random_walk(λ, adjacency="raw", start="ones", stop="ones", labels=...)``
(``"none"`` / ``"node"``; GraKeL's labelled kernel has no edge labels). ratkit is also run with
its default start/stop (``"uniform"``, 1/n) and, MUTAG having edge labels, with
``labels="edge"`` and ``"both"``. GraKeL ``method_type="fast"`` (for geometric μ without ``p``:
conjugate gradients, ``rtol=1e-6``, at most 20 iterations) is timed and scored as well.

Timing: in each λ round the ratkit (``method="auto"``, ``n_jobs=1``), GraKeL baseline and GraKeL
fast Grams are computed one after the other (interleaved), each once; the table gives the best
over the λ rounds and the ratios against GraKeL baseline.

Run from the repository root::

    .venv/bin/python -m bench.graphs.mutag [--data ../shared/data] [--fractions 0.1,0.5,0.9]
"""

from __future__ import annotations

import argparse
import datetime
import sys

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from bench.graphs import (
    DEFAULT_DATA,
    commit,
    grakel_gram,
    grakel_input,
    load_dataset,
    machine_note,
    max_radius,
    max_rel,
    timed,
)

DEFAULT_FRACTIONS = (0.1, 0.5, 0.9)
DEFAULT_C = tuple(10.0**e for e in range(-3, 4))


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(s) for s in text.split(",") if s.strip())


def _ratkit_gram(graphs: list, lam: float, labels: str, start: str, n_jobs: int = 1) -> np.ndarray:
    from ratkit.automata.kernels import random_walk

    # convention="grakel": the walks of length 0 of all vertex pairs count, as in GraKeL's labelled kernel
    # (the only convention before issue 34; the figures of bench/RESULTS.md were measured with it)
    k = random_walk(
        lam,
        labels=labels,
        adjacency="raw",
        start=start,
        stop=start,
        method="auto",
        n_jobs=n_jobs,
        convention="grakel",
    )
    return k.gram(graphs)


def nested_cv(
    grams: dict[float, np.ndarray], y: np.ndarray, outer: list, cs: tuple[float, ...], inner: int, seed: int
) -> tuple[list[float], list[tuple[float, float]]]:
    """Per outer fold: the test accuracy and the (λ, C) chosen by inner stratified CV on the training fold."""
    accs, chosen = [], []
    lams = sorted(grams)
    for f, (tr, te) in enumerate(outer):
        inner_folds = list(StratifiedKFold(inner, shuffle=True, random_state=seed + 1 + f).split(tr, y[tr]))
        best, best_score = None, -1.0
        for lam in lams:
            K = grams[lam]
            for c in cs:
                scores = []
                for itr, ite in inner_folds:
                    a, b = tr[itr], tr[ite]
                    clf = SVC(kernel="precomputed", C=c).fit(K[np.ix_(a, a)], y[a])
                    scores.append(float(np.mean(clf.predict(K[np.ix_(b, a)]) == y[b])))
                score = float(np.mean(scores))
                if score > best_score + 1e-12:
                    best, best_score = (lam, c), score
        lam, c = best
        K = grams[lam]
        clf = SVC(kernel="precomputed", C=c).fit(K[np.ix_(tr, tr)], y[tr])
        accs.append(float(np.mean(clf.predict(K[np.ix_(te, tr)]) == y[te])))
        chosen.append(best)
    return accs, chosen


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.graphs.mutag", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--data", default=str(DEFAULT_DATA), help=f"data root holding tudataset/MUTAG (default {DEFAULT_DATA})"
    )
    p.add_argument("--folds", type=int, default=10, help="outer stratified folds (default 10)")
    p.add_argument("--inner", type=int, default=3, help="inner stratified folds for λ and C (default 3)")
    p.add_argument("--seed", type=int, default=0, help="fold seed (default 0)")
    p.add_argument(
        "--fractions",
        type=_floats,
        default=DEFAULT_FRACTIONS,
        help="λ grid as fractions of the bound 1/max ρ(A)², each in (0, 1) (default 0.1,0.5,0.9)",
    )
    p.add_argument(
        "--C",
        dest="cs",
        type=_floats,
        default=DEFAULT_C,
        help="C grid, Grams scaled to mean diagonal 1 (default 1e-3,...,1e3)",
    )
    p.add_argument(
        "--grakel-fractions",
        type=_floats,
        default=None,
        help="the part of the λ grid GraKeL is run on (default: all of --fractions); ratkit is then also "
        "scored on that part alone, for a like-for-like row",
    )
    p.add_argument("--no-grakel", action="store_true", help="ratkit only")
    p.add_argument("--no-edge", action="store_true", help="skip ratkit labels='edge'/'both'")
    p.add_argument("--no-jobs2", action="store_true", help="skip the ratkit n_jobs=2 timing")
    p.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="BLAS threads (default 1: single-core timings; on a loaded machine OpenBLAS threads thrash)",
    )
    args = p.parse_args(argv)
    threadpool_limits(args.blas_threads)
    if not all(0 < f < 1 for f in args.fractions):
        p.error(f"--fractions must lie strictly between 0 and 1 (below the divergence bound); got {args.fractions}")

    graphs, y = load_dataset(args.data, "MUTAG")
    nodes = np.array([g.n_nodes for g in graphs])
    rho = max_radius(graphs)
    bound = 1.0 / rho**2
    lams = [f * bound for f in args.fractions]
    gfr = args.fractions if args.grakel_fractions is None else args.grakel_fractions
    if not set(gfr) <= set(args.fractions):
        p.error(f"--grakel-fractions {gfr} must be a part of --fractions {args.fractions}")
    grakel_lams = [] if args.no_grakel else [f * bound for f in gfr]
    print(f"# MUTAG random-walk benchmark — {datetime.date.today()}, commit {commit()}")
    print(machine_note())
    classes = {int(a): int(b) for a, b in zip(*np.unique(y, return_counts=True), strict=True)}
    print(f"{len(graphs)} graphs, {nodes.sum()} nodes (mean {nodes.mean():.1f}, max {nodes.max()}), classes {classes}")
    print(f"max_G ρ(A_G) = {rho:.12g}; divergence bound 1/ρmax² = {bound:.12g}")
    print("λ grid: " + ", ".join(f"{f:g}×bound = {lam:.6g}" for f, lam in zip(args.fractions, lams)))
    print("GraKeL on λ/bound ∈ {" + ", ".join(f"{f:g}" for f in gfr) + "}" if grakel_lams else "GraKeL not run")
    print("C grid: " + ", ".join(f"{c:g}" for c in args.cs))

    outer = list(StratifiedKFold(args.folds, shuffle=True, random_state=args.seed).split(np.zeros(len(y)), y))
    print(f"outer folds: StratifiedKFold({args.folds}, shuffle=True, random_state={args.seed}); test indices:")
    for f, (_, te) in enumerate(outer):
        print(f"  fold {f}: {' '.join(map(str, te))}")

    # -- the Grams, one per (method, λ); ratkit / GraKeL baseline / GraKeL fast interleaved per λ
    grams: dict[str, dict[float, np.ndarray]] = {}
    times: dict[str, dict[float, float]] = {}
    agree: dict[str, list[float]] = {}

    def keep(name: str, lam: float, K: np.ndarray, t: float) -> None:
        grams.setdefault(name, {})[lam] = K
        times.setdefault(name, {})[lam] = t
        print(f"  {name:<34} λ={lam:.6g}  {t:8.2f} s", flush=True)

    modes = [("none", "RandomWalk"), ("node", "RandomWalkLabeled")]
    for lam in lams:
        print(f"\nλ = {lam:.6g}", flush=True)
        for labels, gk in modes:
            K, t = timed(lambda labels=labels: _ratkit_gram(graphs, lam, labels, "ones"))
            keep(f"ratkit {labels} ones", lam, K, t)
            if lam in grakel_lams:
                X = grakel_input(graphs, labelled=labels == "node")
                for mt in ("baseline", "fast"):
                    G, t = timed(lambda X=X, mt=mt: grakel_gram(X, lam, labels == "node", mt))
                    keep(f"GraKeL {gk} {mt}", lam, G, t)
                base = grams[f"GraKeL {gk} baseline"][lam]
                agree.setdefault(f"{labels}: GraKeL baseline vs ratkit ones", []).append(max_rel(K, base))
                agree.setdefault(f"{labels}: GraKeL fast vs GraKeL baseline", []).append(
                    max_rel(grams[f"GraKeL {gk} fast"][lam], base)
                )
            K, t = timed(lambda labels=labels: _ratkit_gram(graphs, lam, labels, "uniform"))
            keep(f"ratkit {labels} uniform", lam, K, t)
        if not args.no_edge:
            for labels in ("edge", "both"):
                K, t = timed(lambda labels=labels: _ratkit_gram(graphs, lam, labels, "ones"))
                keep(f"ratkit {labels} ones", lam, K, t)

    # -- accuracy
    print(f"\n## Accuracy, {args.folds}-fold stratified CV (λ, C by {args.inner}-fold inner CV)\n")
    print("| method | accuracy mean ± std (%) | per-fold accuracy (%) | chosen (λ/bound, C) per fold |")
    print("|---|---|---|---|")
    rows = list(grams.items())
    if grakel_lams and len(grakel_lams) < len(lams):
        for labels, _ in modes:
            by = grams[f"ratkit {labels} ones"]
            rows.append((f"ratkit {labels} ones, λ on GraKeL's grid", {lam: by[lam] for lam in grakel_lams}))
    for name, by_lam in rows:
        # each Gram over its mean diagonal: a positive scalar (SVC with K/s and C is SVC with K and C/s), so
        # one C grid serves kernels whose values differ by orders of magnitude (ones vs uniform start/stop)
        scaled = {lam: K / float(np.mean(np.diag(K))) for lam, K in by_lam.items()}
        accs, chosen = nested_cv(scaled, y, outer, args.cs, args.inner, args.seed)
        acc = 100 * np.array(accs)
        picks = " ".join(f"({lam / bound:.2g},{c:g})" for lam, c in chosen)
        print(
            f"| {name} | {acc.mean():.2f} ± {acc.std():.2f} | {' '.join(f'{a:.0f}' for a in acc)} | {picks} |",
            flush=True,
        )

    # -- timing
    if grakel_lams:
        print(
            f"\n## Gram matrix {len(graphs)} × {len(graphs)} time (s): best of the {len(grakel_lams)} λ rounds, "
            "interleaved\n"
        )
        print(
            "| labels | ratkit auto (n_jobs=1) | GraKeL baseline | GraKeL fast | baseline / ratkit | baseline / fast |"
        )
        print("|---|---|---|---|---|---|")
        for labels, gk in modes:
            tr = min(times[f"ratkit {labels} ones"][lam] for lam in grakel_lams)
            tb = min(times[f"GraKeL {gk} baseline"].values())
            tf = min(times[f"GraKeL {gk} fast"].values())
            print(f"| {labels} | {tr:.3f} | {tb:.2f} | {tf:.3f} | {tb / tr:.1f}× | {tb / tf:.1f}× |")
        print(
            "\nper λ round (s): "
            + "; ".join(f"{name} " + "/".join(f"{t:.3g}" for t in by.values()) for name, by in times.items())
        )
        print("\n## Value agreement (max relative difference over the Gram entries, per λ of the grid)\n")
        for what, errs in agree.items():
            print(f"- {what}: " + ", ".join(f"{e:.2e}" for e in errs))
    uni = [
        max_rel(grams["ratkit none uniform"][lam], grams["ratkit none ones"][lam] / np.outer(nodes, nodes) ** 2)
        for lam in lams
    ]
    print(f"- none: ratkit uniform vs ratkit ones/(n n′)² (definition p = q = 1/n): {max(uni):.2e}")
    if not args.no_jobs2:
        lam = lams[len(lams) // 2]
        print(f"\n## ratkit n_jobs=2 (λ = {lam:.6g}, one run each)\n")
        for labels in ("none", "node"):
            K, t = timed(lambda labels=labels: _ratkit_gram(graphs, lam, labels, "ones", n_jobs=2))
            t1 = times[f"ratkit {labels} ones"][lam]
            print(
                f"- {labels}: n_jobs=2 {t:.3f} s vs n_jobs=1 {t1:.3f} s (same λ, earlier in this run); "
                f"max rel diff {max_rel(K, grams[f'ratkit {labels} ones'][lam]):.1e}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
