"""CCCF against DCF at equal bits, each with its settings chosen on a validation split (issue 17).

Protocol 1 of ``bench.recsys.cccf`` (MovieLens 100K, explicit ratings; per user a random half of
the ratings held out, seeded; each user's held-out rated items ranked; NDCG@10 with gain
2^rating − 1, ties averaged), over ``--seeds`` seeds. For each seed s the training half is split
again per user (seed 100 + s) into an inner training half and a validation half. CCCF's
anchors ∈ ``--anchors``, bandwidth h ∈ ``--bandwidths`` and initialisation ∈ ``--inits`` are
chosen by validation NDCG@10, and so are DCF's α₁ = α₂ ∈ ``--dcf-alpha`` (its only setting at
a fixed code length besides the initialisation) and initialisation ∈ ``--inits``: by default
both grids have 12 settings. Each chosen model is refitted on the whole training half and
scored on the test half. Both score
by their default path: CCCF with integer weights ⌊e·w⌉ (``--weight-scale``) on packed codes,
DCF by Hamming ranking. The test half is never looked at before the choice.

The summary gives the per-seed difference CCCF − DCF: its mean, standard deviation, standard
error and the 95 % Student-t confidence interval of the mean. Two more comparisons check that a
win does not come from DCF's choice going wrong: against DCF at its defaults, and against the
best of DCF's whole grid *on the test half itself* (an oracle choice that favours DCF; each DCF
setting is refitted on the training half for it; ``--no-oracle`` skips it).

Then, for the seed-0 models, the per-user top-10 retrieval time of the chosen CCCF setting, of
CCCF at its defaults (shared k-means anchors, h = 1.75 since issue 34; 0.7, the reference code's h, before) and of
DCF against MF's float scoring
at G·r dimensions, by ``bench.recsys.cccf``'s timing (single thread, least of ``--repeats``
interleaved rounds per user, mean over ``--timing-users`` users).

    .venv/bin/python -m bench.recsys.cccf_validated --data ../shared/data/movielens-100k/ml-100k
"""

from __future__ import annotations

import argparse
import itertools
import sys
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy import stats
from threadpoolctl import threadpool_limits

from bench.recsys.cccf import (
    DEFAULT_DATA,
    RatingMF,
    code_scorers,
    machine,
    measure,
    mf_scorers,
    ndcg_at,
    pair,
    say,
    split_half,
    weight_nnz,
)
from ratkit.datasets import load_movielens
from ratkit.recsys import CCCF, DCF


def ndcg10(model: Any, test: sp.csr_matrix) -> float:
    """Mean NDCG@10 of every user's items in ``test`` ranked by ``model.score`` (protocol 1)."""
    users, items = test.nonzero()
    gains = 2.0 ** np.asarray(test[users, items]).ravel() - 1.0
    return float(ndcg_at(users, model.score(users, items), gains, [10])[10].mean())


def choose(fit: Any, grid: list[dict[str, Any]], inner: sp.csr_matrix, val: sp.csr_matrix) -> tuple[dict, float]:
    """The setting of ``grid`` whose model ``fit(setting, data)`` scores best on ``val``."""
    scores = [ndcg10(fit(setting, inner), val) for setting in grid]
    best = int(np.argmax(scores))
    return grid[best], scores[best]


def _key(setting: dict[str, Any]) -> tuple:
    return tuple(sorted(setting.items()))


def summary(diffs: np.ndarray, against: str = "DCF") -> str:
    """Mean, spread and 95 % Student-t interval of the per-seed differences CCCF − ``against``."""
    n = diffs.size
    mean, std = float(diffs.mean()), float(diffs.std(ddof=1)) if n > 1 else 0.0
    se = std / np.sqrt(n)
    half = float(stats.t.ppf(0.975, n - 1)) * se if n > 1 else float("nan")
    wins = int((diffs >= 0).sum())
    return (
        f"per-seed difference CCCF − {against} over {n} seeds: mean {mean:+.4f}, std {std:.4f}, "
        f"standard error {se:.4f}, "
        f"95 % CI [{mean - half:+.4f}, {mean + half:+.4f}]; CCCF ahead or level on {wins} of {n} seeds"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.cccf_validated",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", default=DEFAULT_DATA, help=f"ml-100k folder or u.data (default {DEFAULT_DATA})")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default 5)")
    parser.add_argument("--cccf", type=pair, default=(8, 8), help="G,r of CCCF (default 8,8); DCF gets G·r bits")
    parser.add_argument("--anchors", nargs="+", default=["kmeans", "kmedoids"], help="CCCF anchors to choose from")
    parser.add_argument("--bandwidths", type=float, nargs="+", default=[1.25, 1.5, 2.0], help="CCCF h to choose from")
    parser.add_argument(
        "--dcf-alpha", type=float, nargs="+", default=[1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0], help="DCF α to choose from"
    )
    parser.add_argument(
        "--inits", nargs="+", default=["identical", "relaxed"], help="initialisations both models choose from"
    )
    parser.add_argument("--weight-scale", type=float, default=100.0, help="CCCF's e (default 100)")
    parser.add_argument(
        "--no-oracle",
        dest="oracle",
        action="store_false",
        help="skip refitting every DCF setting to find its best on the test half (the oracle column)",
    )
    parser.add_argument("--timing-users", type=int, default=200, help="users timed (default 200; 0 skips timing)")
    parser.add_argument("--repeats", type=int, default=5, help="timing rounds, least taken (default 5)")
    args = parser.parse_args(argv)
    data = load_movielens(args.data).matrix.tocsr()
    G, r = args.cccf
    e = args.weight_scale
    cccf_grid = [
        {"anchors": a, "bandwidth": h, "init": i}
        for a, h, i in itertools.product(args.anchors, args.bandwidths, args.inits)
    ]
    dcf_grid = [{"alpha_user": a, "alpha_item": a, "init": i} for a, i in itertools.product(args.dcf_alpha, args.inits)]
    dcf_defaults = {name: DCF().get_params()[name] for name in dcf_grid[0]}

    def fit_cccf(setting: dict[str, Any], ratings: sp.csr_matrix, seed: int) -> CCCF:
        return CCCF(G, r, weight_scale=e, random_state=seed, **setting).fit(ratings)

    def fit_dcf(setting: dict[str, Any], ratings: sp.csr_matrix, seed: int) -> DCF:
        return DCF(G * r, random_state=seed, **setting).fit(ratings)

    print(machine() + "\n")
    print(
        f"Protocol 1 (rating ranking), MovieLens 100K, NDCG@10 on the test half; CCCF G={G} r={r} (e={e:g}) chooses "
        f"anchors ∈ {args.anchors} × h ∈ {args.bandwidths} × init ∈ {args.inits}, DCF r={G * r} chooses "
        f"α ∈ {args.dcf_alpha} × init ∈ {args.inits}, both by validation NDCG@10 on a per-user half of the "
        "training half (seed 100 + s).\n"
    )
    print(
        "| seed | CCCF chosen | CCCF validation | CCCF test | DCF chosen | DCF validation | DCF test | difference "
        "| DCF at its defaults, test | DCF's best setting on test (oracle) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    diffs, chosen0, models0 = [], None, {}
    defaults, oracle = [], []  # CCCF − DCF at its defaults; CCCF − DCF's best setting on the test half
    for seed in range(args.seeds):
        train, test = split_half(data, seed)
        inner, val = split_half(train, 100 + seed)
        with threadpool_limits(1):
            c_set, c_val = choose(lambda s, d: fit_cccf(s, d, seed), cccf_grid, inner, val)
            d_set, d_val = choose(lambda s, d: fit_dcf(s, d, seed), dcf_grid, inner, val)
            cccf, dcf = fit_cccf(c_set, train, seed), fit_dcf(d_set, train, seed)
            c = ndcg10(cccf, test)
            # DCF's test NDCG by setting, each fitted once (the chosen and the default settings
            # are also in the oracle's grid)
            dcf_test = {_key(d_set): ndcg10(dcf, test)}

            def dcf_ndcg(setting: dict[str, Any]) -> float:
                if _key(setting) not in dcf_test:
                    dcf_test[_key(setting)] = ndcg10(fit_dcf(setting, train, seed), test)
                return dcf_test[_key(setting)]

            d, d_default = dcf_ndcg(d_set), dcf_ndcg(dcf_defaults)
            d_best = max(dcf_ndcg(setting) for setting in dcf_grid) if args.oracle else d
        diffs.append(c - d)
        defaults.append(c - d_default)
        oracle.append(c - d_best)
        if seed == 0:
            chosen0, models0 = c_set, {"cccf": cccf, "dcf": dcf, "train": train}
        print(
            f"| {seed} | {c_set['anchors']}, h={c_set['bandwidth']:g}, {c_set['init']} | {c_val:.4f} | {c:.4f} | "
            f"α={d_set['alpha_user']:g}, {d_set['init']} | {d_val:.4f} | {d:.4f} | {c - d:+.4f} | {d_default:.4f} | "
            + (f"{d_best:.4f} |" if args.oracle else "— |"),
            flush=True,
        )
    print("\n" + summary(np.array(diffs)))
    print(summary(np.array(defaults), "DCF at its defaults (relaxed init, α = 1e-3)"))
    if args.oracle:
        print(summary(np.array(oracle), "DCF's best grid setting on the test half itself (an oracle, favouring DCF)"))
    if args.timing_users and chosen0 is not None:
        timing(models0, chosen0, args)
    say("done")
    return 0


def timing(models: dict[str, Any], chosen: dict[str, Any], args: argparse.Namespace) -> None:
    """Top-10 retrieval per user: the chosen CCCF, CCCF at its defaults, DCF, against MF float64."""
    G, r = args.cccf
    e = args.weight_scale
    train = models["train"]
    with threadpool_limits(1):
        default = CCCF(G, r, weight_scale=e, random_state=0).fit(train)
        mf = RatingMF(n_factors=G * r, random_state=0).fit(train)
    users = np.random.default_rng(0).choice(train.shape[0], size=min(args.timing_users, train.shape[0]), replace=False)
    labels = {
        f"CCCF {chosen['anchors']} h={chosen['bandwidth']:g} {chosen['init']} (chosen)": models["cccf"],
        f"CCCF {default.anchors} h={default.bandwidth:g} (defaults)": default,
    }
    scorers = {}
    for label, model in labels.items():
        scorers.update({k: v for k, v in code_scorers(model, e, label).items() if "int" in k})
    scorers.update(code_scorers(models["dcf"], None, f"DCF r={G * r}"))
    scorers.update({k: v for k, v in mf_scorers(mf, f"MF (ALS) d={G * r}").items() if "float64" in k})
    t = measure(scorers, users, args.repeats)
    ref = t[f"MF (ALS) d={G * r} float64"]
    nnz = {label: weight_nnz(model) for label, model in labels.items()}
    print(
        f"\nTop-10 retrieval of the seed-0 models ({users.size} users, all {train.shape[1]} items, single thread; "
        f"least of {args.repeats} rounds per user, mean over users); ratio = MF float64's time / the scorer's, for "
        "the same work (score only; score and the compiled one-pass top-10 `top_k_rows`; score and "
        "np.argpartition).\n"
    )
    print(
        "| scorer | nnz(η⊙ξ) per pair | score only µs | ratio | score + compiled top-10 µs | ratio "
        "| score + np.argpartition top-10 µs | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, row in t.items():
        pairs = next((f"{v[2]:.2f}" for k, v in nnz.items() if name.startswith(k)), "—")
        cells = " | ".join(f"{row[c] * 1e6:.1f} | {ref[c] / row[c]:.2f}" for c in ("score", "ctop", "top"))
        print(f"| {name} | {pairs} | {cells} |")


if __name__ == "__main__":
    sys.exit(main())
