"""MovieLens 100K benchmark of MFAUC against popularity, PureSVD and implicit's BPR and ALS.

Protocol (the MFAUC paper's): positives are ratings > 3 (>= 4); users with at least 10
positives; 5 random positives per user held out; every model ranks all items except the
user's training items; metrics averaged over the users; the whole thing repeated for
``--seeds`` seeds (split and model seeds alike) and averaged. Every model sees exactly
the same splits and is scored by the same code (``ratkit.recsys.evaluation``).

Run from the repository root::

    .venv/bin/python -m bench.recsys.ml100k --data ../shared/data/movielens-100k/ml-100k

``--tune`` instead scores a small grid of MFAUC settings on a validation split carved
out of the first seed's *training* data (the test items are never looked at), which is
how the settings in ``MFAUC_SETTINGS`` were chosen. ``--timing`` times MFAUC iterations
on subsampled users.

``implicit`` is needed for the BPR/ALS rows (``.venv/bin/pip install implicit``); it is a
benchmark-only dependency and the rows are skipped with a message when it is missing.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ratkit.datasets import load_movielens
from ratkit.recsys import MFAUC, FactorRecommender, Popularity, PureSVD
from ratkit.recsys.evaluation import leave_k_out, prepare_leave_k_out, ranking_metrics

DEFAULT_DATA = os.path.join("..", "shared", "data", "movielens-100k", "ml-100k")
KS = (1, 3, 5)
COLUMNS = [f"{m}@{k}" for m in ("precision", "recall") for k in KS] + ["auc"]

#: Per-loss settings, chosen with ``--tune`` on a validation split of seed 0's training data.
MFAUC_COMMON: dict[str, Any] = dict(n_factors=64, regularization=1e-4, init="svd", max_iter=50, tol=1e-5)
MFAUC_SETTINGS: dict[str, dict[str, Any]] = {  # the best validation row of each loss
    "square": dict(loss="square", learning_rate=0.5),
    "squared_hinge": dict(loss="squared_hinge", learning_rate=0.5),
    "hinge": dict(loss="hinge", learning_rate=0.5, max_iter=100),
    "logistic": dict(loss="logistic", beta=1.0, regularization=3e-5, learning_rate=0.5),
    "sigmoid": dict(loss="sigmoid", beta=[2.0, 4.0, 8.0], learning_rate=0.5),
}

#: implicit's settings chosen with ``--tune 3`` on the same validation split (for BPR its
#: defaults were the best row of the grid, so it has no second row).
IMPLICIT_TUNED: dict[str, dict[str, Any]] = {
    "als": dict(factors=64, alpha=1.0, regularization=10.0),
}


class ImplicitModel(FactorRecommender):
    """Wraps an ``implicit`` CPU model so ratkit's protocol scores it like any other.

    Not registered as a plugin: it exists for the benchmark only.
    """

    plugin_name: ClassVar[str] = ""

    def __init__(self, *, kind: str = "bpr", params: dict | None = None, random_state: int = 0) -> None:
        self.kind = kind
        self.params = params
        self.random_state = random_state

    def _fit(self, user_items: sp.csr_matrix) -> None:
        try:
            from implicit.cpu.als import AlternatingLeastSquares
            from implicit.cpu.bpr import BayesianPersonalizedRanking
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("The BPR/ALS rows need the 'implicit' package: .venv/bin/pip install implicit") from exc
        cls = BayesianPersonalizedRanking if self.kind == "bpr" else AlternatingLeastSquares
        model = cls(**(self.params or {}), random_state=self.random_state)
        model.fit(user_items.astype(np.float32), show_progress=False)
        self.user_factors_ = np.asarray(model.user_factors, dtype=np.float64)
        self.item_factors_ = np.asarray(model.item_factors, dtype=np.float64)


def implicit_available() -> bool:
    try:
        import implicit  # noqa: F401
    except ImportError:
        return False
    return True


def model_factories() -> dict[str, Callable[[int], Any]]:
    factories: dict[str, Callable[[int], Any]] = {
        "popularity": lambda seed: Popularity(),
        "PureSVD (d=20)": lambda seed: PureSVD(n_factors=20, random_state=seed),
    }
    for name, settings in MFAUC_SETTINGS.items():
        factories[f"MFAUC {name}"] = lambda seed, s=settings: MFAUC(**{**MFAUC_COMMON, **s}, random_state=seed)
    if implicit_available():
        for kind in ("bpr", "als"):
            factories[f"implicit {kind.upper()} (defaults)"] = lambda seed, kind=kind: ImplicitModel(
                kind=kind, random_state=seed
            )
        for kind, params in IMPLICIT_TUNED.items():
            factories[f"implicit {kind.upper()} {params}"] = lambda seed, kind=kind, params=params: ImplicitModel(
                kind=kind, params=params, random_state=seed
            )
    else:
        print(
            "implicit is not installed: skipping its BPR and ALS rows (.venv/bin/pip install implicit)", file=sys.stderr
        )
    return factories


def score(model: Any, train: sp.csr_matrix, test: sp.csr_matrix) -> dict[str, float]:
    row: dict[str, float] = {}
    for k in KS:
        metrics = ranking_metrics(model, train, test, k=k)
        row[f"precision@{k}"], row[f"recall@{k}"] = metrics["precision"], metrics["recall"]
        row["auc"] = metrics["auc"]
    return row


def compare(data_path: str, seeds: int) -> None:
    data = load_movielens(data_path)
    factories = model_factories()
    results: dict[str, list[dict[str, float]]] = {name: [] for name in factories}
    fit_seconds: dict[str, list[float]] = {name: [] for name in factories}
    protocol = None
    for seed in range(seeds):
        train, test, protocol = prepare_leave_k_out(data, threshold=4, min_positives=10, n_test=5, random_state=seed)
        for name, factory in factories.items():
            start = time.perf_counter()
            model = factory(seed).fit(train)
            fit_seconds[name].append(time.perf_counter() - start)
            results[name].append(score(model, train, test))
            logging.info("seed %d %s: %s", seed, name, results[name][-1])
    assert protocol is not None
    print(
        f"Protocol: {protocol.dataset}; positives {protocol.positives}; {protocol.split}; "
        f"{int(np.diff(train.indptr).size)} users evaluated per seed; seeds 0..{seeds - 1} "
        f"(split and model), mean ± std over seeds.\n"
    )
    print("| model | " + " | ".join(COLUMNS) + " | fit s |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    for name in factories:
        cells = []
        for column in COLUMNS:
            values = np.array([r[column] for r in results[name]])
            cells.append(f"{values.mean():.4f} ± {values.std():.4f}")
        print(f"| {name} | " + " | ".join(cells) + f" | {np.mean(fit_seconds[name]):.1f} |")


def tune_grid(stage: int) -> list[dict[str, Any]]:
    """Stage 1: loss × learning rate × initialisation, then variants of hinge and logistic.
    Stage 2: the weaker regulariser that won stage 1 for every loss, and longer runs."""
    grid: list[dict[str, Any]] = []
    losses = (
        ("square", {}),
        ("squared_hinge", {}),
        ("hinge", {}),
        ("logistic", {"beta": 4.0}),
        ("sigmoid", {"beta": [2.0, 4.0, 8.0]}),
    )
    if stage == 1:
        for loss, extra in losses:
            for learning_rate in (0.5, 1.0):
                for init in ("gaussian", "svd"):
                    grid.append(dict(loss=loss, learning_rate=learning_rate, init=init, **extra))
        for loss in ("hinge", "logistic"):
            for variant in (
                dict(rho=1.0),
                dict(regularization=3e-4),
                dict(regularization=3e-5),
                dict(n_factors=32),
                dict(tau=0.5),
            ):
                grid.append(dict(loss=loss, learning_rate=0.5, init="svd", **variant))
    else:
        for loss, extra in losses:
            for max_iter in (50, 100):
                grid.append(
                    dict(loss=loss, learning_rate=0.5, init="svd", regularization=3e-5, max_iter=max_iter, **extra)
                )
        grid.append(dict(loss="hinge", learning_rate=0.5, init="svd", max_iter=100))
        grid.append(dict(loss="logistic", learning_rate=0.5, init="svd", regularization=3e-5, rho=1.0, beta=4.0))
    return grid


def implicit_grid() -> list[tuple[str, dict[str, Any]]]:
    """Stage 3: implicit's BPR and ALS, defaults and a small grid around them."""
    grid: list[tuple[str, dict[str, Any]]] = [("bpr", {}), ("als", {})]
    for regularization in (0.01, 0.1):
        for learning_rate in (0.01, 0.05):
            for iterations in (100, 300):
                grid.append(
                    (
                        "bpr",
                        dict(
                            factors=64,
                            learning_rate=learning_rate,
                            regularization=regularization,
                            iterations=iterations,
                        ),
                    )
                )
    for alpha in (1.0, 10.0):
        for regularization in (1.0, 10.0, 30.0, 100.0):
            grid.append(("als", dict(factors=64, alpha=alpha, regularization=regularization)))
    return grid


def tune(data_path: str, stage: int) -> None:
    """Validation grid: seed 0's training data, 5 more positives per user held out."""
    data = load_movielens(data_path)
    train, _, _ = prepare_leave_k_out(data, threshold=4, min_positives=10, n_test=5, random_state=0)
    fit_part, validation = leave_k_out(train, 5, random_state=1000)
    references = {"popularity": Popularity(), "PureSVD d=20": PureSVD(n_factors=20, random_state=0)}
    print("| settings (MFAUC_COMMON otherwise) | p@5 | r@5 | AUC | iterations |")
    print("|---|---|---|---|---|")
    for name, reference in references.items():
        metrics = ranking_metrics(reference.fit(fit_part), fit_part, validation, k=5)
        print(f"| {name} | {metrics['precision']:.4f} | {metrics['recall']:.4f} | {metrics['auc']:.4f} | |", flush=True)
    if stage == 3:
        for kind, params in implicit_grid():
            model = ImplicitModel(kind=kind, params=params, random_state=0).fit(fit_part)
            metrics = ranking_metrics(model, fit_part, validation, k=5)
            print(
                f"| implicit {kind} {params} | {metrics['precision']:.4f} | "
                f"{metrics['recall']:.4f} | {metrics['auc']:.4f} | |",
                flush=True,
            )
        return
    for params in tune_grid(stage):
        model = MFAUC(**{**MFAUC_COMMON, **params}, random_state=0).fit(fit_part)
        metrics = ranking_metrics(model, fit_part, validation, k=5)
        print(
            f"| {params} | {metrics['precision']:.4f} | {metrics['recall']:.4f} | "
            f"{metrics['auc']:.4f} | {model.n_iter_} |",
            flush=True,
        )


def timing(data_path: str, repeats: int = 5) -> None:
    """Seconds per MFAUC iteration on 25 %, 50 % and 100 % of the users.

    The minimum over ``repeats`` fits of 3 iterations each: on a shared machine the
    minimum is the least disturbed measurement."""
    data = load_movielens(data_path)
    train, _, _ = prepare_leave_k_out(data, threshold=4, min_positives=10, n_test=5, random_state=0)
    rng = np.random.default_rng(0)
    order = rng.permutation(train.shape[0])
    print("| loss | users m | items n | positives | max(m, n) | s / iteration | s / iteration per 10k positives |")
    print("|---|---|---|---|---|---|---|")
    for loss, lr in (("hinge", 0.5), ("square", 0.2)):
        for fraction in (0.25, 0.5, 1.0):
            part = train[np.sort(order[: int(round(fraction * train.shape[0]))])]
            seconds = []
            for r in range(repeats):
                model = MFAUC(loss=loss, learning_rate=lr, n_factors=64, max_iter=3, tol=0.0, random_state=r)
                start = time.perf_counter()
                model.fit(part)
                seconds.append((time.perf_counter() - start) / model.n_iter_)
            per_iter = float(np.min(seconds))
            m, n = part.shape
            print(
                f"| {loss} | {m} | {n} | {part.nnz} | {max(m, n)} | {per_iter:.3f} | {per_iter / part.nnz * 1e4:.4f} |",
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.ml100k", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", default=DEFAULT_DATA, help=f"MovieLens 100K folder or u.data (default {DEFAULT_DATA})"
    )
    parser.add_argument("--seeds", type=int, default=5, help="number of seeded refits (default 5)")
    parser.add_argument(
        "--tune", type=int, choices=(1, 2, 3), help="run stage 1 or 2 (MFAUC) or 3 (implicit) of the validation grid"
    )
    parser.add_argument("--timing", action="store_true", help="run the timing table instead")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    print(f"# {platform.machine()} {platform.python_version()}, {os.cpu_count()} cores\n")
    if args.tune:
        tune(args.data, args.tune)
    elif args.timing:
        timing(args.data)
    else:
        compare(args.data, args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
