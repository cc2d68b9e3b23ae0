"""The §III-2 equivalence on real graphs: the random-walk kernel through pynini (``method="rational"``,
Ψ(S ∘ T ∘ U)) against the linear-algebra forms, on MUTAG graphs, for every label mode.

``python -m bench.graphs.equivalence [--graphs 12] [--decay 0.01]``: prints the largest relative
difference between the two Gram matrices and the time of each.
"""

from __future__ import annotations

import argparse

from bench.graphs import DEFAULT_DATA, commit, load_dataset, max_rel, timed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.graphs.equivalence", description=__doc__)
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="the data root holding tudataset/MUTAG")
    parser.add_argument("--graphs", type=int, default=12, help="the first N MUTAG graphs (N(N+1)/2 pairs)")
    parser.add_argument("--decay", type=float, default=0.01, help="λ of the geometric series")
    args = parser.parse_args(argv)

    from ratkit.automata.kernels import random_walk

    graphs, _ = load_dataset(args.data, "MUTAG")
    graphs = graphs[: args.graphs]
    n = len(graphs)
    print(
        f"MUTAG, first {n} graphs ({n * (n + 1) // 2} pairs), geometric λ = {args.decay:g}, n_jobs=1; commit {commit()}"
    )
    print("\n| labels | rational s | direct s | rational / direct | max relative difference |")
    print("|---|---|---|---|---|")
    for labels in ("none", "node", "edge", "both"):
        algebra, t_direct = timed(
            lambda: random_walk(args.decay, labels=labels, method="direct", n_jobs=1).gram(graphs)
        )
        rational, t_rational = timed(
            lambda: random_walk(args.decay, labels=labels, method="rational", n_jobs=1).gram(graphs)
        )
        print(
            f"| {labels} | {t_rational:.2f} | {t_direct:.2f} | {t_rational / t_direct:.1f}× "
            f"| {max_rel(rational, algebra):.1e} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
