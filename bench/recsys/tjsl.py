"""TJSL / FISM benchmark (issue 18): heterogeneous one-class feedback on MovieLens 100K and Last.fm HetRec 2K.

Data. MovieLens 100K: P = the rating-5 items of a user, E = their items rated 1–4
(``to_heterogeneous(data, preferred=5)``). Last.fm HetRec 2K: P = a user's artists played more
than that user's median play count, E = the rest (``preferred="user-median"``).

Protocol. Per user with ≥ ``--min-preferred`` (5) preferred items, a seeded ``--test-share``
(20 %, at least 1, rounded) of P_u is held out for test; every other user keeps all of P_u. Models
train on the rest of P and (TJSL, BPR on P ∪ E) on all of E. Each test user ranks **all** items
except their training P **and** E, and is scored from their training P alone (issue 18's scoring;
``evaluate(model, training P, test, ..., exclude=E)`` since issue 38: E leaves the candidates, so an
examined item is never recommended, but does not enter the preferred profile Ū_u of FISM/TJSL);
binary relevance = the held-out preferred items;
Prec@5, Recall@5, NDCG@5, NDCG@10 (``ratkit.recsys.evaluation.evaluate``), averaged over the test
users; mean ± std over ``--seeds`` seeds (seed s: the split and every model's random_state).

Tuning (seed 0 only, once per data set): the seed-0 training P is split again by the same rule
(seed 1000) into a fit part and a validation part; each learned model picks learning rate ×
n_factors from a small grid by validation NDCG@5 (E is excluded there too); the choice is then
refit on the full training data of every seed. BPR is tuned on the same grid (its own learning
rates). Nothing else is tuned: TJSL's L = 3 rounds, L₀ = 1, τ decay 0.9, ρ = 3, 20 epochs
per round, regularisers 0.01.

Models: popularity on training P; FISM_rmse on P; TJSL(1,1) (one round, every examination);
TJSL (L = 3, L₀ = 1); ``implicit``'s BPR (CPU, one thread, 100 iterations) on P only and on
P ∪ E. Two controls, untuned (they take the lr and d of the row named in the table): TJSL's
rounds continue from each other, so TJSL trains 3 × 20 epochs against TJSL(1,1)'s and FISM's
20; "TJSL(1,1), 3 × epochs" (TJSL's lr and d, no selection) and "FISM, 3 × epochs" (FISM's lr
and d) separate the effect of the selection from that of training longer. implicit is
optional: without it the BPR rows are skipped (``pip install implicit`` into the venv; it is
not a dependency of ratkit).

Costs: fit time per model (mean over seeds), and one TJSL SGD epoch, the paper's per-pair one
(``ratkit.recsys._tjsl_sgd.sgd_epoch``) and the per-user one (``ratkit.recsys._tjsl_user_epoch``,
issue 38) on the same pairs in the same order (compiled, best of ``--repeats``) on 25 %, 50 % and
100 % of ML-100K's users, beside the O(·) count of each.

``--sgd`` picks FISM's and TJSL's epoch for the metrics (``user``, the default since issue 38, or
``pair``, the paper's).

Run from the repository root::

    .venv/bin/python -m bench.recsys.tjsl --ml100k ../shared/data/movielens-100k/ml-100k \\
        --lastfm ../shared/data/lastfm-hetrec2011-2k
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from bench.recsys._splits import split_by_rank
from ratkit.datasets import load_lastfm, load_movielens
from ratkit.recsys import FISM, TJSL, Popularity
from ratkit.recsys._tjsl_sgd import sgd_epoch
from ratkit.recsys._tjsl_user_epoch import epoch_pairs, negative_counts, user_epoch
from ratkit.recsys.base import Recommender
from ratkit.recsys.evaluation import EvaluationReport, Protocol, evaluate
from ratkit.recsys.feedback import to_heterogeneous

DEFAULT_ML = os.path.join("..", "shared", "data", "movielens-100k", "ml-100k")
DEFAULT_LASTFM = os.path.join("..", "shared", "data", "lastfm-hetrec2011-2k")
COLUMNS = ("precision@5", "recall@5", "ndcg@5", "ndcg@10")
START = time.perf_counter()


def say(message: str) -> None:
    """Progress on stderr, with the seconds since the start."""
    print(f"[{time.perf_counter() - START:6.1f} s] {message}", file=sys.stderr, flush=True)


class ImplicitBPR(Recommender):
    """``implicit.bpr.BayesianPersonalizedRanking`` behind ratkit's Recommender (benchmark only,
    not a plugin): scores ``user_factors @ item_factors.T`` (implicit's CPU model appends the
    item bias as a last factor, with a constant 1 on the user side)."""

    plugin_name: ClassVar[str] = ""
    _fitted_attributes: ClassVar[tuple[str, ...]] = ("user_factors_", "item_factors_")

    def __init__(self, *, factors: int = 50, learning_rate: float = 0.01, iterations: int = 100, random_state: int = 0):
        self.factors = factors
        self.learning_rate = learning_rate
        self.iterations = iterations
        self.random_state = random_state

    def _fit(self, user_items: sp.csr_matrix) -> None:
        from implicit.bpr import BayesianPersonalizedRanking

        model = BayesianPersonalizedRanking(
            factors=self.factors,
            learning_rate=self.learning_rate,
            iterations=self.iterations,
            random_state=self.random_state,
            num_threads=1,
            use_gpu=False,
        )
        with threadpool_limits(1):
            model.fit(sp.csr_matrix(user_items, dtype=np.float32), show_progress=False)
        self.user_factors_ = np.asarray(model.user_factors, dtype=np.float64)
        self.item_factors_ = np.asarray(model.item_factors, dtype=np.float64)

    def _score_users(self, users: np.ndarray) -> np.ndarray:
        return self.user_factors_[users] @ self.item_factors_.T


def have_implicit() -> bool:
    try:
        import implicit  # noqa: F401
    except ImportError:
        return False
    return True


# ------------------------------------------------------------------------------------------
# data and split
# ------------------------------------------------------------------------------------------


def load(name: str, path: str) -> tuple[sp.csr_matrix, sp.csr_matrix, str]:
    """(P, E, rule) of one data set."""
    if name == "ML-100K":
        P, E = to_heterogeneous(load_movielens(path), preferred=5)
        rule = "P = rating 5, E = ratings 1–4"
    else:
        P, E = to_heterogeneous(load_lastfm(path), preferred="user-median")
        rule = "P = plays > the user's median, E = the other artists played"
    return P.matrix.tocsr(), E.matrix.tocsr(), rule


def split_preferred(
    P: sp.csr_matrix, share: float, min_preferred: int, seed: int
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Per user with |P_u| ≥ min_preferred, max(1, round(share·|P_u|)) random preferred items
    (seeded) to test; the rest, and every other user's items, to train."""
    counts = np.diff(P.indptr)
    n_test = np.where(counts >= min_preferred, np.maximum(1, np.round(share * counts)), 0).astype(np.int64)
    return split_by_rank(P, seed, n_test, keep_values=False)


# ------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------


class Spec:
    """A model row: how to build it from (seed, learning rate, factors) and what it trains on."""

    def __init__(
        self, build: Callable[[int, float, int], Any], data: str, grid_lr: tuple[float, ...], tuned_as: str = ""
    ) -> None:
        self.build = build
        self.tuned_as = tuned_as
        self.data = data  # "P", "P+E" (one matrix) or "P|E" (TJSL: P with examined=E)
        self.grid_lr = grid_lr

    def fit(self, model: Any, P: sp.csr_matrix, E: sp.csr_matrix) -> Any:
        if self.data == "P":
            return model.fit(P)
        if self.data == "P+E":
            return model.fit((P + E).tocsr())
        return model.fit(P, examined=E)


def specs(args: argparse.Namespace) -> dict[str, Spec]:
    """The rows, in order; a control row (``tuned_as``) reuses an earlier row's tuned lr and d."""
    lrs = tuple(args.learning_rates)
    ep, L, L0 = args.epochs, args.rounds, args.average
    tjsl = f"TJSL L={L} L0={L0}"
    out = {
        "popularity (P)": Spec(lambda s, lr, d: Popularity(), "P", ()),
        "FISM (P)": Spec(lambda s, lr, d: FISM(d, lr, random_state=s, n_epochs=ep, sgd=args.sgd), "P", lrs),
        f"FISM (P), {L} × epochs": Spec(
            lambda s, lr, d: FISM(d, lr, random_state=s, n_epochs=L * ep, sgd=args.sgd), "P", lrs, tuned_as="FISM (P)"
        ),
        "TJSL(1,1)": Spec(
            lambda s, lr, d: TJSL(d, lr, n_rounds=1, n_average=1, random_state=s, n_epochs=ep, sgd=args.sgd), "P|E", lrs
        ),
        tjsl: Spec(
            lambda s, lr, d: TJSL(d, lr, n_rounds=L, n_average=L0, random_state=s, n_epochs=ep, sgd=args.sgd),
            "P|E",
            lrs,
        ),
        f"TJSL(1,1), {L} × epochs": Spec(
            lambda s, lr, d: TJSL(d, lr, n_rounds=1, n_average=1, random_state=s, n_epochs=L * ep, sgd=args.sgd),
            "P|E",
            lrs,
            tuned_as=tjsl,
        ),
    }
    if args.bpr:
        for data in ("P", "P+E"):
            out[f"BPR implicit ({'P ∪ E' if data == 'P+E' else 'P'})"] = Spec(
                lambda s, lr, d: ImplicitBPR(
                    factors=d, learning_rate=lr, iterations=args.bpr_iterations, random_state=s
                ),
                data,
                tuple(args.bpr_learning_rates),
            )
    return out


def score(
    model: Any, train: sp.csr_matrix, E: sp.csr_matrix, test: sp.csr_matrix, protocol: Protocol
) -> EvaluationReport:
    """The report of ``model``: each user scored from their ``train`` (preferred) rows, ranking every
    item but their train ∪ E items."""
    return evaluate(model, train, test, protocol, exclude=E)


def tune(
    name: str, spec: Spec, P: sp.csr_matrix, E: sp.csr_matrix, args: argparse.Namespace
) -> tuple[tuple[float, int], list[str]]:
    """(learning rate, factors) by validation NDCG@5 on the seed-0 training P, split again (seed 1000)."""
    if not spec.grid_lr:
        return (0.0, 0), []
    fit_P, val = split_preferred(P, args.test_share, args.min_preferred, 1000)
    protocol = Protocol("validation", ks=(5,))
    best, best_value, lines = None, -1.0, []
    for lr in spec.grid_lr:
        for d in args.factors:
            model = spec.fit(spec.build(0, lr, d), fit_P, E)
            value = score(model, fit_P, E, val, protocol).metrics["ndcg@5"]
            lines.append(f"lr={lr:g} d={d}: {value:.4f}")
            if value > best_value:
                best, best_value = (lr, d), value
    say(f"  tuned {name}: {'; '.join(lines)} → lr={best[0]:g} d={best[1]}")
    return best, lines


def run_dataset(name: str, path: str, args: argparse.Namespace) -> dict[str, Any]:
    P, E, rule = load(name, path)
    m, n = P.shape
    say(f"{name}: {m} users, {n} items, |P| = {P.nnz}, |E| = {E.nnz} ({rule})")
    models = specs(args)
    train0, _ = split_preferred(P, args.test_share, args.min_preferred, 0)
    chosen: dict[str, tuple[tuple[float, int], list[str]]] = {}
    for key, spec in models.items():
        chosen[key] = (chosen[spec.tuned_as][0], []) if spec.tuned_as else tune(key, spec, train0, E, args)
    results: dict[str, list[dict[str, float]]] = {key: [] for key in models}
    fit_times: dict[str, list[float]] = {key: [] for key in models}
    n_users = None
    for seed in range(args.seeds):
        train, test = split_preferred(P, args.test_share, args.min_preferred, seed)
        protocol = Protocol(name, ks=(5, 10), seed=seed)
        for key, spec in models.items():
            lr, d = chosen[key][0]
            model = spec.build(seed, lr, d)
            t0 = time.perf_counter()
            spec.fit(model, train, E)
            fit_times[key].append(time.perf_counter() - t0)
            report = score(model, train, E, test, protocol)
            n_users = report.protocol.n_users
            results[key].append(report.metrics)
            say(f"  {name} seed {seed} {key}: ndcg@5 {report.metrics['ndcg@5']:.4f} ({fit_times[key][-1]:.1f} s)")
    n_test = int(split_preferred(P, args.test_share, args.min_preferred, 0)[1].nnz)
    protocol_text = (
        f"{name}, {rule}; {m} users × {n} items, |P| = {P.nnz}, |E| = {E.nnz}. Test: per user with ≥ "
        f"{args.min_preferred} preferred, a seeded {100 * args.test_share:g} % of P_u (≥ 1, rounded; {n_test} "
        f"items at seed 0), {n_users} test users; trained on the rest of P (+ all of E where stated); all {n} "
        f"items ranked except the user's training P and E, the user scored from training P; binary relevance; "
        f"mean ± std over {args.seeds} "
        f"seed(s) (0–{args.seeds - 1}: split and model seed)."
    )
    return {"results": results, "fit_times": fit_times, "chosen": chosen, "protocol": protocol_text, "models": models}


def print_dataset(name: str, out: dict[str, Any], args: argparse.Namespace) -> None:
    print(f"\n### {name}\n")
    print(f"Protocol: {out['protocol']}\n")
    print("| model | trained on | lr, d (tuned) | " + " | ".join(COLUMNS) + " | fit s |")
    print("|---|---|---|" + "---|" * (len(COLUMNS) + 1))
    for key, spec in out["models"].items():
        rows = out["results"][key]
        cells = []
        for c in COLUMNS:
            values = np.array([r[c] for r in rows])
            cells.append(f"{values.mean():.4f} ± {values.std(ddof=1) if len(values) > 1 else 0.0:.4f}")
        lr, d = out["chosen"][key][0]
        tuned = "—" if not spec.grid_lr else f"{lr:g}, {d}" + (f" (as {spec.tuned_as})" if spec.tuned_as else "")
        trained = {"P": "training P", "P+E": "training P ∪ E", "P|E": "training P, E"}[spec.data]
        print(f"| {key} | {trained} | {tuned} | " + " | ".join(cells) + f" | {np.mean(out['fit_times'][key]):.2f} |")
    print(
        f"\n(Protocol as above. 'lr, d': the learning rate and factors chosen on seed 0's validation split from "
        f"lr ∈ {{{', '.join(f'{x:g}' for x in args.learning_rates)}}} (BPR: "
        f"{{{', '.join(f'{x:g}' for x in args.bpr_learning_rates)}}}) × d ∈ {{{', '.join(map(str, args.factors))}}}; "
        f"TJSL/FISM {args.epochs} epochs per round, ρ = 3, regularisers 0.01; BPR {args.bpr_iterations} "
        "iterations, regularisation 0.01. fit s: mean wall seconds of one fit, one thread.)"
    )
    print("\nValidation NDCG@5 of the grid (seed 0):\n")
    for key, (_, lines) in out["chosen"].items():
        if lines:
            print(f"- {key}: " + "; ".join(lines))


# ------------------------------------------------------------------------------------------
# cost of one epoch
# ------------------------------------------------------------------------------------------


def epoch_costs(path: str, args: argparse.Namespace) -> None:
    """One epoch of the reference (per pair) and of the per-user SGD, on the same pairs in the
    same order (the per-user epoch's), at 25 %, 50 % and 100 % of ML-100K's users."""
    P_all, E_all, _ = load("ML-100K", path)
    users = np.random.default_rng(0).permutation(P_all.shape[0])
    d, rho = 20, 3.0
    print(
        f"\n### Cost of one TJSL epoch (ML-100K, d = {d}, ρ = {rho:g}; after compilation, best of {args.repeats}; "
        "one thread)\n"
    )
    print("| users | \\|P\\| | \\|A\\| | avg\\|P_u\\| | avg\\|E_u\\| | per pair: Σ_pairs (\\|P_u\\|+\\|E_u\\|)d "
          "| per pair s | ns per unit | per user: (\\|P\\|+\\|A\\|+\\|P\\|+\\|E\\|)d | per user s | ns per unit "
          "| per pair / per user |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for share in (0.25, 0.5, 1.0):
        rows = np.sort(users[: int(round(share * users.size))])
        P, E = P_all[rows], E_all[rows]
        P.sort_indices()
        E.sort_indices()
        m, n = P.shape
        rng = np.random.default_rng(0)
        n_neg = int(math.ceil(rho * P.nnz))
        visit = rng.permutation(m).astype(np.int64)
        counts = negative_counts(rng, P.indptr, n, n_neg)
        ptr, i, r = epoch_pairs(visit, counts, 7, P.indptr, P.indices, n)
        u = np.repeat(visit, np.diff(ptr))
        struct = (P.indptr, P.indices, E.indptr, E.indices)
        best = {"pair": math.inf, "user": math.inf}
        for _ in range(args.repeats + 1):  # the first call may compile
            for kind in best:
                bu, bi = np.zeros(m), np.zeros(n)
                V, Pf, Ef = (np.random.default_rng(1).normal(0.0, 0.01, (n, d)) for _ in range(3))
                regs = (0.01, 0.01, 0.01, 0.01, 0.01, 0.01)
                t0 = time.perf_counter()
                if kind == "pair":
                    sgd_epoch(u, i, r, *struct, bu, bi, V, Pf, Ef, *regs)
                else:
                    user_epoch(visit, counts, 7, *struct, bu, bi, V, Pf, Ef, *regs)
                best[kind] = min(best[kind], time.perf_counter() - t0)
        avg_p, avg_e = P.nnz / m, E.nnz / m
        exact = float((np.diff(P.indptr)[u] + np.diff(E.indptr)[u]).sum()) * d
        linear = float(u.size + P.nnz + E.nnz) * d
        pair, user = best["pair"], best["user"]
        print(
            f"| {m} ({100 * share:g} %) | {P.nnz} | {n_neg} | {avg_p:.1f} | {avg_e:.1f} | {exact:.3g} | {pair:.4f} "
            f"| {1e9 * pair / exact:.2f} | {linear:.3g} | {user:.4f} | {1e9 * user / linear:.2f} | {pair / user:.1f} |"
        )
    print(
        "\n(Both epochs take the same steps on the same pairs in the same order (the per-user epoch's: users in a "
        "random order, each user's pairs together). ns per unit: the epoch time over its O(·) count; constant "
        "across sizes means the cost scales as that count: Σ_pairs (|P_u| + |E_u|)·d for the per-pair epoch, "
        "(|P| + |A| + |P| + |E|)·d for the per-user one.)"
    )


# ------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.tjsl", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ml100k", "--data", default=DEFAULT_ML, help=f"MovieLens 100K folder (default {DEFAULT_ML})")
    parser.add_argument("--lastfm", default=DEFAULT_LASTFM, help=f"Last.fm HetRec 2K folder (default {DEFAULT_LASTFM})")
    parser.add_argument("--seeds", type=int, default=3, help="split/model seeds (default 3)")
    parser.add_argument("--test-share", type=float, default=0.2, help="share of P_u held out (default 0.2)")
    parser.add_argument("--min-preferred", type=int, default=5, help="test users have ≥ this many P_u (default 5)")
    parser.add_argument("--epochs", type=int, default=20, help="TJSL/FISM SGD epochs per round (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="TJSL's L (default 3)")
    parser.add_argument("--average", type=int, default=1, help="TJSL's L0 (default 1)")
    parser.add_argument("--learning-rates", type=float, nargs="+", default=[0.01, 0.03], help="TJSL/FISM grid")
    parser.add_argument("--factors", type=int, nargs="+", default=[20, 50], help="n_factors grid (default 20 50)")
    parser.add_argument("--bpr-learning-rates", type=float, nargs="+", default=[0.01, 0.05], help="BPR grid")
    parser.add_argument("--bpr-iterations", type=int, default=100, help="BPR iterations (default 100)")
    parser.add_argument("--no-bpr", dest="bpr", action="store_false", help="skip implicit's BPR")
    parser.add_argument("--repeats", type=int, default=3, help="epoch timing repeats, best taken (default 3)")
    parser.add_argument(
        "--sgd", choices=("user", "pair"), default="user",
        help="TJSL/FISM epoch: 'user' (per-user visits, the default since issue 38) or 'pair' (the paper's)",
    )  # fmt: skip
    parser.add_argument("--only", choices=("ml100k", "lastfm", "epoch"), nargs="+", help="run only these parts")
    args = parser.parse_args(argv)
    parts = set(args.only or ("ml100k", "lastfm", "epoch"))
    needed = []
    if parts & {"ml100k", "epoch"}:
        needed.append(
            ("MovieLens 100K", args.ml100k, "u.data", "--ml100k", "https://grouplens.org/datasets/movielens/100k/")
        )
    if "lastfm" in parts:
        needed.append(("Last.fm HetRec 2K", args.lastfm, "user_artists.dat", "--lastfm",
                       "https://grouplens.org/datasets/hetrec-2011/"))  # fmt: skip
    for label, path, file, flag, url in needed:
        if not (os.path.isfile(path) or os.path.isfile(os.path.join(path, file))):
            print(
                f"{label} not found at {path!r}: pass {flag} with the folder holding {file} ({url}).", file=sys.stderr
            )
            return 2
    if args.bpr and not have_implicit():
        say("implicit is not installed: the BPR rows are skipped (pip install implicit into the venv)")
        args.bpr = False
    from bench.recsys.cccf import machine

    print(machine() + "\n")
    if "ml100k" in parts:
        print_dataset("ML-100K", run_dataset("ML-100K", args.ml100k, args), args)
    if "lastfm" in parts:
        print_dataset("Last.fm HetRec 2K", run_dataset("Last.fm HetRec 2K", args.lastfm, args), args)
    if "epoch" in parts:
        epoch_costs(args.ml100k, args)
    say("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
