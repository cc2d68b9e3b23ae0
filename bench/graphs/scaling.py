"""Gram cost of the geometric random-walk kernel as graphs grow: ENZYMES and PROTEINS.

For each data set and each size s of ``--sizes``, the subset is the first s graphs with at most
``--max-nodes`` nodes (0: no filter), in file order. Timed, once each, in this order: ratkit
``random_walk(λ, adjacency="raw", start="ones", stop="ones", method="auto", n_jobs=1)`` with
``labels="none"`` (spectral form) and ``labels="node"`` (direct sparse solve while n·n′ ≤ 5000,
else GMRES through the vec identity), and GraKeL ``RandomWalk(method_type="baseline")``
(unlabelled; dense (n n′)² Kronecker product and inverse per pair). λ = ``--fraction`` × the
divergence bound 1/max_G ρ(A_G)² of the whole data set.

GraKeL is skipped when its predicted time exceeds ``--grakel-cap`` seconds or one product has more
than ``--grakel-max-product`` vertices (its dense inverse would need 3 × 8 (n n′)² bytes). The
prediction is c · Σ_pairs (n n′)³, c measured on the first 10 graphs of the subset.

Run from the repository root::

    .venv/bin/python -m bench.graphs.scaling [--sizes 25,50,100] [--max-nodes 50] [--grakel-cap 60]
"""

from __future__ import annotations

import argparse
import datetime
import sys

import numpy as np
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


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(s) for s in text.split(",") if s.strip())


def _pair_cubes(nodes: np.ndarray) -> float:
    """Σ_{i ≤ j} (n_i n_j)³: GraKeL baseline's dense-inverse work, up to a constant."""
    c = nodes.astype(np.float64) ** 3
    return float((np.sum(c) ** 2 + np.sum(c**2)) / 2)


def main(argv: list[str] | None = None) -> int:
    from ratkit.automata.kernels import random_walk

    p = argparse.ArgumentParser(prog="python -m bench.graphs.scaling", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(DEFAULT_DATA), help=f"data root holding tudataset/ (default {DEFAULT_DATA})")
    p.add_argument("--datasets", default="ENZYMES,PROTEINS", help="comma-separated TU names (default ENZYMES,PROTEINS)")
    p.add_argument("--sizes", type=_ints, default=(25, 50, 100), help="numbers of graphs (default 25,50,100)")
    p.add_argument("--max-nodes", type=int, default=50, help="keep graphs with at most this many nodes; 0: all")
    p.add_argument("--fraction", type=float, default=0.5, help="λ as a fraction of 1/max ρ(A)² (default 0.5)")
    p.add_argument("--grakel-cap", type=float, default=60.0, help="skip GraKeL above this predicted time (s)")
    p.add_argument("--grakel-max-product", type=int, default=2500, help="skip GraKeL above this n·n′ (default 2500)")
    p.add_argument("--no-grakel", action="store_true", help="ratkit only")
    p.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="BLAS threads (default 1: single-core timings; on a loaded machine OpenBLAS threads thrash)",
    )
    args = p.parse_args(argv)
    threadpool_limits(args.blas_threads)
    if not 0 < args.fraction < 1:
        p.error(f"--fraction must lie strictly between 0 and 1; got {args.fraction}")

    print(f"\n# Random-walk Gram scaling — {datetime.date.today()}, commit {commit()}")
    print(machine_note())
    rows = []
    for name in [s.strip() for s in args.datasets.split(",") if s.strip()]:
        graphs, _ = load_dataset(args.data, name)
        rho = max_radius(graphs)
        lam = args.fraction / rho**2
        pool = [g for g in graphs if args.max_nodes <= 0 or g.n_nodes <= args.max_nodes]
        print(
            f"\n{name}: {len(graphs)} graphs, ρmax = {rho:.6g}, λ = {args.fraction:g}/ρmax² = {lam:.6g}; "
            f"{len(pool)} graphs with ≤ {args.max_nodes or '∞'} nodes",
            flush=True,
        )
        coef = None
        for size in args.sizes:
            if size > len(pool):
                print(f"  {size} graphs: only {len(pool)} available, skipped")
                continue
            sub = pool[:size]
            nodes = np.array([g.n_nodes for g in sub])
            pairs = size * (size + 1) // 2
            head = (name, size, int(nodes.sum()), int(nodes.max()), pairs)
            grams = {}
            for labels in ("none", "node"):
                k = random_walk(lam, labels=labels, adjacency="raw", start="ones", stop="ones", n_jobs=1)
                grams[labels], t = timed(lambda k=k: k.gram(sub))
                rows.append((*head, f"ratkit {labels}", t, ""))
                print(f"  {size} graphs, {nodes.sum()} nodes: ratkit {labels} {t:.2f} s", flush=True)
            if args.no_grakel:
                continue
            biggest = int(nodes.max()) ** 2
            if biggest > args.grakel_max_product:
                note = f"skipped: a product of {biggest} vertices > {args.grakel_max_product}"
                rows.append((*head, "GraKeL baseline none", None, note))
                print(f"  GraKeL {note}")
                continue
            if coef is None:
                X0 = grakel_input(sub[:10], labelled=False)
                _, t0 = timed(lambda X0=X0: grakel_gram(X0, lam, False, "baseline"))
                coef = t0 / _pair_cubes(nodes[:10])
            predicted = coef * _pair_cubes(nodes)
            if predicted > args.grakel_cap:
                note = f"skipped: predicted {predicted:.0f} s > cap {args.grakel_cap:g} s"
                rows.append((*head, "GraKeL baseline none", None, note))
                print(f"  GraKeL {note}")
                continue
            X = grakel_input(sub, labelled=False)
            G, t = timed(lambda X=X: grakel_gram(X, lam, False, "baseline"))
            coef = t / _pair_cubes(nodes)
            err = max_rel(grams["none"], G)
            rows.append((*head, "GraKeL baseline none", t, f"max rel diff vs ratkit none {err:.1e}"))
            print(f"  GraKeL baseline none {t:.2f} s (predicted {predicted:.1f} s); max rel diff {err:.1e}", flush=True)

    print("\n| data set | graphs | total nodes | max nodes | pairs | method | s | ms per pair | note |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, size, tot, mx, pairs, method, t, note in rows:
        ts = "—" if t is None else f"{t:.2f}"
        per = "—" if t is None else f"{1000 * t / pairs:.3f}"
        print(f"| {name} | {size} | {tot} | {mx} | {pairs} | {method} | {ts} | {per} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
