"""MovieLens 100K benchmark of CCCF and DCF (issue 17): accuracy under two protocols, and retrieval speed.

Protocol 1, **rating ranking** (the DCF/CCCF papers'): each user's ratings are split 50/50 at
random (seeded; the user keeps ⌈n/2⌉ for training and holds out ⌊n/2⌋); every model is trained
on the training halves (explicit ratings 1–5) and ranks each user's *held-out rated items* by
its score. NDCG@k, k = 1..10, gain 2^rating − 1, discount 1/log2(rank + 1), ideal DCG from the
same held-out items, averaged over the users with ≥ 1 held-out item. A user with fewer than k
held-out items is scored on all of them (DCG and ideal DCG both over min(k, n) ranks, as
``sklearn.metrics.ndcg_score`` does); on ML-100K every user has ≥ 20 ratings, so this never
happens for k ≤ 10. **Tied scores** (binary codes give many: DCF's 8-bit scores take 9
values) get the average gain of their tie group, i.e. the expected DCG over random tie
orders (``ndcg_score(..., ignore_ties=False)``); the "random" row (every score tied) is
therefore the exact expectation of a random order. :func:`ndcg_at` is checked against
``sklearn.metrics.ndcg_score`` on a hand-computed case and on real users of every run.

Protocol 2, **full ranking** (``bench.recsys.ml100k``'s): positives are ratings ≥ 4; users with
≥ 10 positives; 5 positives per user held out; every item but the user's training items
ranked (:func:`ratkit.recsys.evaluation.evaluate`, binary relevance). Explicit-rating models
(CCCF, DCF, rating MF) train on every other rating, low ones included, so they never rank
an item the user rated low; implicit ones (popularity, PureSVD, MFAUC) train on the other
positives (``prepare_leave_k_out(feedback=model.feedback)``).

Timings: single thread (``threadpool_limits(1)``), per user: score every item, then the top
10 by ``np.argpartition`` (and a sort of those 10); each call timed alone, the least of
``--repeats`` interleaved rounds per user, the mean over ``--timing-users`` users; also scoring
alone, and batched (one call for all those users). Scorers: CCCF with float weights on packed
codes, CCCF with integer weights ⌊e·w⌉ on packed codes, DCF by Hamming ranking on packed codes
(integer weights 1), all three by the models' path (item table built once, ``table_scores``
per user), and MF with float dot products ``U[u] @ V.T`` at G·r dimensions (float64 and
float32). A profile splits the time into the Python call, the compiled loop and the top-k.
The timed models are protocol 1's fits at its first seed.

The "MF (ALS)" rows are ratkit's rating MF (``_component_weights.pretrain_factors``: ALS on the
centred ratings, weighted-λ ridge 0.1, 10 sweeps), the one CCCF pre-trains with.

Run from the repository root::

    .venv/bin/python -m bench.recsys.cccf --data ../shared/data/movielens-100k/ml-100k
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from bench.recsys._splits import split_by_rank
from ratkit.datasets import load_movielens
from ratkit.recsys import CCCF, DCF, MFAUC, FactorRecommender, Popularity, PureSVD
from ratkit.recsys._component_weights import pretrain_factors
from ratkit.recsys._packed_codes import integer_weights, item_table, packed_scores, table_scores
from ratkit.recsys._ranking import top_k_rows
from ratkit.recsys.evaluation import evaluate, prepare_leave_k_out

DEFAULT_DATA = os.path.join("..", "shared", "data", "movielens-100k", "ml-100k")
KS = tuple(range(1, 11))
#: The dense bandwidth of the extra CCCF rows (init, anchors, the larger setting): nearly every
#: user–item pair shares every component, where validation picks CCCF's h (cccf_validated)
DENSE = 1.5
FULL_KS = (5, 10)
FULL_COLUMNS = [f"{m}@{k}" for m in ("precision", "recall", "ndcg") for k in FULL_KS] + ["auc"]
START = time.perf_counter()


def say(message: str) -> None:
    """Progress on stderr, with the seconds since the start."""
    print(f"[{time.perf_counter() - START:6.1f} s] {message}", file=sys.stderr, flush=True)


class RatingMF(FactorRecommender):
    """Real-valued rating MF for the benchmark: ALS on the centred ratings (``pretrain_factors``).

    Scores u_iᵀv_j (the global mean μ is dropped: it shifts every score alike). Not a plugin.
    """

    plugin_name: ClassVar[str] = ""
    feedback: ClassVar[str] = "explicit"

    def __init__(self, *, n_factors: int = 64, random_state: int = 0) -> None:
        self.n_factors = n_factors
        self.random_state = random_state

    def _fit(self, user_items: sp.csr_matrix) -> None:
        rng = np.random.default_rng(self.random_state)
        self.user_factors_, self.item_factors_ = pretrain_factors(user_items, self.n_factors, rng)


# ------------------------------------------------------------------------------------------
# protocol 1: the 50/50 split and NDCG on the held-out rated items
# ------------------------------------------------------------------------------------------


def split_half(ratings: sp.csr_matrix, seed: int) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Per user, a random ⌊n/2⌋ of the ratings to test, the rest to train (seeded)."""
    return split_by_rank(ratings, seed, np.diff(ratings.indptr) // 2)


def ndcg_at(users: np.ndarray, scores: np.ndarray, gains: np.ndarray, ks: Sequence[int]) -> dict[int, np.ndarray]:
    """Per-user NDCG@k of the entries (users[t], scores[t], gains[t]), one array per k.

    DCG@k = Σ_{p<k} g_(p) / log2(p + 2) over a user's entries by decreasing score, a tie group
    contributing its mean gain at each of its positions (the expectation over random tie
    orders); ideal DCG@k the same over the gains sorted decreasingly. Users in increasing
    order of id; a user with n < k entries is scored over n positions.
    """
    users, scores, gains = (np.asarray(a) for a in (users, scores, gains))
    order = np.lexsort((-scores, users))
    u, s, g = users[order], scores[order], gains[order].astype(np.float64)
    first = np.r_[True, u[1:] != u[:-1]]
    starts = np.flatnonzero(first)
    row = np.cumsum(first) - 1
    pos = np.arange(u.size) - starts[row]
    group = np.cumsum(first | np.r_[True, s[1:] != s[:-1]]) - 1
    n_groups, n_rows = int(group[-1]) + 1, starts.size
    mean_gain = np.bincount(group, g, n_groups) / np.bincount(group, minlength=n_groups)
    group_row = row[np.r_[True, group[1:] != group[:-1]]]
    ideal = _sorted_within(users, gains)
    out = {}
    for k in ks:
        discount = np.where(pos < k, 1.0 / np.log2(pos + 2.0), 0.0)
        dcg = np.bincount(group_row, mean_gain * np.bincount(group, discount, n_groups), n_rows)
        idcg = np.bincount(row, ideal * discount, n_rows)
        out[k] = dcg / idcg
    return out


def _sorted_within(users: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The gains by increasing user, decreasing gain within a user (the ideal order)."""
    order = np.lexsort((-gains, users))
    return gains[order].astype(np.float64)


def check_ndcg_oracle(users: np.ndarray, scores: np.ndarray, gains: np.ndarray, n_users: int = 5) -> None:
    """Assert :func:`ndcg_at` equals ``sklearn.metrics.ndcg_score`` (ties averaged) on some users."""
    from sklearn.metrics import ndcg_score

    ours = ndcg_at(users, scores, gains, KS)
    ids = np.unique(users)
    for t in np.linspace(0, ids.size - 1, n_users).astype(int):
        mask = users == ids[t]
        if mask.sum() < 2:
            continue
        for k in KS:
            ref = ndcg_score(gains[mask][None], scores[mask][None], k=k, ignore_ties=False)
            assert abs(ours[k][t] - ref) < 1e-12, (ids[t], k, ours[k][t], ref)


def self_check() -> None:
    """NDCG on a hand-computed case (ties included) and against scikit-learn on random ones."""
    # user 0: scores 3, 2, 2, 1 with ratings 1, 5, 3, 2 -> gains 1, 31, 7, 3; the tie (31, 7)
    # averages to 19 at ranks 2 and 3.
    users = np.array([0, 0, 0, 0, 1, 1])
    scores = np.array([3.0, 2.0, 2.0, 1.0, 0.5, 0.7])
    gains = 2.0 ** np.array([1, 5, 3, 2, 4, 1]) - 1
    got = ndcg_at(users, scores, gains, (1, 2, 3, 4))
    d = 1 / np.log2(np.arange(2, 6))
    dcg3 = 1 * d[0] + 19 * d[1] + 19 * d[2]
    idcg3 = 31 * d[0] + 7 * d[1] + 3 * d[2]
    assert abs(got[3][0] - dcg3 / idcg3) < 1e-12, (got[3][0], dcg3 / idcg3)
    assert abs(got[1][0] - 1 / 31) < 1e-12
    assert abs(got[2][0] - (1 * d[0] + 19 * d[1]) / (31 * d[0] + 7 * d[1])) < 1e-12
    # user 1 (2 items, ranked worst first): NDCG@4 over its 2 positions
    assert abs(got[4][1] - (1 * d[0] + 15 * d[1]) / (15 * d[0] + 1 * d[1])) < 1e-12
    rng = np.random.default_rng(0)
    n = 60
    u = np.sort(rng.integers(0, 6, n))
    check_ndcg_oracle(u, rng.integers(0, 4, n).astype(float), 2.0 ** rng.integers(1, 6, n) - 1, n_users=6)
    check_ndcg_oracle(u, rng.random(n), 2.0 ** rng.integers(1, 6, n) - 1, n_users=6)


def code_models(
    args: argparse.Namespace, bandwidths: Sequence[float], suffix: str = ""
) -> dict[str, Callable[[int], Any]]:
    """Name → factory(seed): CCCF at ``bandwidths`` (its defaults otherwise: identical init,
    k-means anchors), at the dense h = 1.5 also with the paper's relaxed init and with k-medoids
    anchors, the large setting at h = 0.7 and 1.5, DCF at 8 bits and at the CCCF settings' total
    bits, and the rating MF at G·r dimensions."""
    G, r = args.cccf
    G2, r2 = args.large
    e = args.weight_scale
    models: dict[str, Callable[[int], Any]] = {}
    for h in bandwidths:
        models[f"CCCF G={G} r={r} h={h:g}{suffix}"] = lambda seed, h=h: CCCF(
            G, r, bandwidth=h, weight_scale=e, random_state=seed
        )
    for variant in ({"init": "relaxed"}, {"anchors": "kmedoids"}, {"anchors": "kmedoids", "init": "relaxed"}):
        name = " ".join(f"{key}={value}" for key, value in variant.items())
        models[f"CCCF G={G} r={r} h={DENSE:g} {name}{suffix}"] = lambda seed, v=variant: CCCF(
            G, r, bandwidth=DENSE, weight_scale=e, random_state=seed, **v
        )
    if not args.no_large:
        for h in (0.7, DENSE):
            models[f"CCCF G={G2} r={r2} h={h:g}{suffix}"] = lambda seed, h=h: CCCF(
                G2, r2, bandwidth=h, weight_scale=e, random_state=seed
            )
    models["DCF r=8"] = lambda seed: DCF(8, random_state=seed)
    for g, b in [(G, r)] + ([] if args.no_large else [(G2, r2)]):
        models[f"DCF r={g * b}"] = lambda seed, bits=g * b: DCF(bits, random_state=seed)
    models[f"MF (ALS) d={G * r}"] = lambda seed: RatingMF(n_factors=G * r, random_state=seed)
    return models


def rating_models(args: argparse.Namespace) -> dict[str, Callable[[int], Any]]:
    """Name → factory(seed) for protocol 1 (CCCF rows are scored float and integer)."""
    G, r = args.cccf
    G2, r2 = args.large
    models = code_models(args, args.bandwidths)
    if not args.no_large:
        models[f"MF (ALS) d={G2 * r2}"] = lambda seed: RatingMF(n_factors=G2 * r2, random_state=seed)
    models[f"PureSVD d={G * r}"] = lambda seed: PureSVD(n_factors=G * r, random_state=seed)
    models["popularity"] = lambda seed: Popularity()
    return models


def rating_ranking(data: sp.csr_matrix, args: argparse.Namespace) -> dict[str, Any]:
    """Protocol 1 over ``args.seeds`` seeds; returns the per-seed NDCG means, fit seconds and the first
    seed's models."""
    factories = rating_models(args)
    ndcg: dict[str, list[np.ndarray]] = {}
    fit_s: dict[str, list[float]] = {}
    errors: dict[str, list[dict[str, float]]] = {}
    nnz: dict[str, list[tuple[float, float, float]]] = {}
    seed0: dict[str, Any] = {}
    n_users = 0
    first = args.first_seed
    for seed in range(first, first + args.seeds):
        train, test = split_half(data, seed)
        users, items = test.nonzero()
        gains = 2.0 ** np.asarray(test[users, items]).ravel() - 1.0
        n_users = np.unique(users).size
        rows: dict[str, np.ndarray] = {"random (all scores tied)": np.zeros(users.size)}
        for name, factory in factories.items():
            model = factory(seed)
            with threadpool_limits(1):
                start = time.perf_counter()
                model.fit(train)
                fit_s.setdefault(name, []).append(time.perf_counter() - start)
            if seed == first:
                seed0[name] = model
            if isinstance(model, CCCF):
                rows[name + " float"] = model.score(users, items, exact=True)
                rows[name + f" int e={args.weight_scale:g}"] = model.score(users, items)
                if model.init == "identical" and model.bandwidth == DENSE:
                    rows[name + " weights alone"] = weights_alone(model, users, items)
                errors.setdefault(name, []).append(model.integer_weight_error())
                nnz.setdefault(name, []).append(weight_nnz(model))
            else:
                rows[name] = model.score(users, items)
            say(f"rating ranking seed {seed}: {name} fitted in {fit_s[name][-1]:.1f} s")
        for name, scores in rows.items():
            if seed == first:
                check_ndcg_oracle(users, scores, gains)
            per_user = ndcg_at(users, scores, gains, KS)
            ndcg.setdefault(name, []).append(np.array([per_user[k].mean() for k in KS]))
        say(f"rating ranking seed {seed} done")
    return dict(ndcg=ndcg, fit_s=fit_s, errors=errors, nnz=nnz, seed0=seed0, n_users=n_users)


def weights_alone(model: CCCF, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Σ_k η_ik ξ_jk: the ranking of the identical start, CCCF's weights without any learned
    code (identical codes score c·Σ_k η ξ, and a positive c does not change a ranking)."""
    return np.einsum("tk,tk->t", model.weights_user_[users], model.weights_item_[items])


def weight_nnz(model: CCCF) -> tuple[float, float, float, float]:
    """Mean nnz of the η rows, of the ξ rows, and over all (user, item) pairs of η_i ⊙ ξ_j; and the
    fraction of pairs with η_i ⊙ ξ_j = 0 (no shared component: the score is 0 whatever the codes)."""
    eta, xi = (model.weights_user_ > 0).astype(np.float64), (model.weights_item_ > 0).astype(np.float64)
    shared = eta @ xi.T
    return (
        float(eta.sum(axis=1).mean()),
        float(xi.sum(axis=1).mean()),
        float(shared.mean()),
        float(np.mean(shared == 0)),
    )


def print_rating_ranking(result: dict[str, Any], args: argparse.Namespace) -> None:
    ndcg, fit_s = result["ndcg"], result["fit_s"]
    print(
        f"\nProtocol 1 (rating ranking): MovieLens 100K (u.data), explicit ratings 1-5; per user a random "
        f"50/50 split (⌊n/2⌋ held out); each user's held-out rated items ranked by the model; NDCG@k with gain "
        f"2^rating - 1, discount log2(rank+1), ideal DCG of the same items, ties averaged; mean over the "
        f"{result['n_users']} users (all have >= 10 held-out items); seeds "
        f"{args.first_seed}..{args.first_seed + args.seeds - 1} (split and model), mean ± std over seeds.\n"
    )
    print("| model | " + " | ".join(f"NDCG@{k}" for k in KS) + " | fit s |")
    print("|---" * (len(KS) + 2) + "|")
    for name, values in ndcg.items():
        v = np.array(values)
        # the fitted model a row reads: the longest name it starts with ("… h=1.5 init=relaxed float" is
        # "… h=1.5 init=relaxed", not "… h=1.5")
        base = max((m for m in fit_s if name == m or name.startswith(m + " ")), key=len, default=None)
        if name.endswith("weights alone"):  # nothing fitted: a reading of a fitted model's weights
            base = None
        fit = f"{np.mean(fit_s[base]):.1f}" if base else ""
        cells = [f"{v[:, t].mean():.4f} ± {v[:, t].std():.4f}" for t in range(len(KS))]
        print(f"| {name} | " + " | ".join(cells) + f" | {fit} |")
    print("\nDone-means check, NDCG@10 under protocol 1 (mean ± std over seeds; per-seed difference CCCF − DCF):\n")
    at10 = {name: np.array(values)[:, KS.index(10)] for name, values in ndcg.items()}
    for name in at10:
        if not name.startswith("CCCF"):
            continue
        g, r = (int(part.split("=")[1]) for part in name.split()[1:3])
        dcf = at10.get(f"DCF r={g * r}")
        if dcf is None:
            continue
        diff = at10[name] - dcf
        verdict = "met" if at10[name].mean() >= dcf.mean() else "MISSED"
        if name.endswith("weights alone"):
            verdict = "a diagnostic (no code learned), not a model"
        print(f"- {name}: {at10[name].mean():.4f} ± {at10[name].std():.4f} vs DCF r={g * r} {dcf.mean():.4f} ± "
              f"{dcf.std():.4f}; difference {diff.mean():+.4f} ± {diff.std():.4f} -> {verdict}")  # fmt: skip
    print(
        f"\nCCCF weights and integer-weight error (e = {args.weight_scale:g}; error of Σ⌊eη⌉⌊eξ⌉⟨b,d⟩/e² "
        "against the float score over every user-item pair; protocol 1 training halves, mean over seeds):\n"
    )
    print("| model | nnz(η) per user | nnz(ξ) per item | nnz(η⊙ξ) per pair | pairs with η⊙ξ = 0 | max abs err "
          "| mean abs err | max err / score range |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, values in result["nnz"].items():
        n = np.mean(values, axis=0)
        err = result["errors"][name]
        cells = [np.mean([e[key] for e in err]) for key in ("max_abs", "mean_abs", "max_rel_range")]
        print(f"| {name} | {n[0]:.2f} | {n[1]:.2f} | {n[2]:.2f} | {n[3]:.3f} | {cells[0]:.4f} | {cells[1]:.5f} "
              f"| {cells[2]:.5f} |")  # fmt: skip


# ------------------------------------------------------------------------------------------
# protocol 2: full ranking of unseen items
# ------------------------------------------------------------------------------------------


def full_models(args: argparse.Namespace) -> dict[str, Callable[[int], Any]]:
    from bench.recsys.ml100k import MFAUC_COMMON, MFAUC_SETTINGS

    G, r = args.cccf
    e = args.weight_scale
    models = code_models(args, sorted({0.7, max(args.bandwidths)}, reverse=True), f" (int e={e:g})")
    models[f"PureSVD d={G * r}"] = lambda seed: PureSVD(n_factors=G * r, random_state=seed)
    models["PureSVD d=20"] = lambda seed: PureSVD(n_factors=20, random_state=seed)
    models["popularity"] = lambda seed: Popularity()
    if not args.no_mfauc:
        settings = {**MFAUC_COMMON, **MFAUC_SETTINGS["logistic"]}
        models["MFAUC logistic (bench.recsys.ml100k settings)"] = lambda seed: MFAUC(**settings, random_state=seed)
    return models


def full_ranking(interactions: Any, args: argparse.Namespace) -> None:
    factories = full_models(args)
    results: dict[str, list[dict[str, float]]] = {}
    fit_s: dict[str, list[float]] = {}
    tags: dict[str, str] = {}
    for seed in range(args.full_seeds):
        splits = {}
        for name, factory in factories.items():
            model = factory(seed)
            if model.feedback not in splits:
                splits[model.feedback] = prepare_leave_k_out(
                    interactions, threshold=4, min_positives=10, n_test=5, random_state=seed, feedback=model.feedback
                )
            train, test, protocol = splits[model.feedback]
            with threadpool_limits(1):
                start = time.perf_counter()
                model.fit(train)
                fit_s.setdefault(name, []).append(time.perf_counter() - start)
            report = evaluate(model, train, test, replace(protocol, ks=FULL_KS))
            results.setdefault(name, []).append(report.metrics)
            tags[model.feedback] = report.protocol.tag().replace(f"seed={seed}", f"seeds 0..{args.full_seeds - 1}")
            say(f"full ranking seed {seed}: {name} in {fit_s[name][-1]:.1f} s")
    print(
        "\nProtocol 2 (full ranking): "
        + "; ".join(f"{feedback} models: {tag}" for feedback, tag in tags.items())
        + f". All unseen items ranked; binary relevance; mean ± std over {args.full_seeds} seeds (split and model).\n"
    )
    print("| model | " + " | ".join(FULL_COLUMNS) + " | fit s |")
    print("|---" * (len(FULL_COLUMNS) + 2) + "|")
    for name, rows in results.items():
        cells = []
        for column in FULL_COLUMNS:
            v = np.array([row[column] for row in rows])
            cells.append(f"{v.mean():.4f} ± {v.std():.4f}")
        print(f"| {name} | " + " | ".join(cells) + f" | {np.mean(fit_s[name]):.1f} |")


# ------------------------------------------------------------------------------------------
# timings
# ------------------------------------------------------------------------------------------


def top10(scores: np.ndarray, n: int = 10) -> np.ndarray:
    """The n best ids, best first: argpartition, then a sort of those n."""
    idx = np.argpartition(scores, scores.size - n)[-n:]
    return idx[np.argsort(scores[idx])[::-1]]


class Scorer:
    """One way to score every item: ``one(u)`` for a user, ``many(users)`` for a batch."""

    def __init__(
        self,
        one: Callable[[int], np.ndarray],
        many: Callable[[np.ndarray], np.ndarray],
        compiled_top: Callable[[int], Any],
    ) -> None:
        self.one, self.many = one, many
        #: score, then the compiled one-pass top-10 (``top_k_rows``) into reused buffers
        self.compiled_top = compiled_top

    def retrieve(self, u: int) -> np.ndarray:
        return top10(self.one(u))


def per_user_seconds(calls: dict[str, Callable[[int], Any]], users: np.ndarray, repeats: int) -> dict[str, float]:
    """Seconds per user: each call timed alone, the least of ``repeats`` interleaved rounds per
    user (a call a preemption hit is retried), then the mean over ``users``."""
    times = {name: np.full((repeats, users.size), np.inf) for name in calls}
    clock = time.perf_counter
    with threadpool_limits(1):
        for fn in calls.values():  # warm up (compilation, caches)
            fn(int(users[0]))
        for rep in range(repeats):
            for name, fn in calls.items():
                row = times[name][rep]
                for t, u in enumerate(users.tolist()):
                    start = clock()
                    fn(u)
                    row[t] = clock() - start
    return {name: float(t.min(axis=0).mean()) for name, t in times.items()}


def batch_seconds(scorers: dict[str, Scorer], users: np.ndarray, repeats: int) -> dict[str, float]:
    """Seconds per user of scoring all ``users`` in one call (best of ``repeats``)."""
    best = {name: np.inf for name in scorers}
    with threadpool_limits(1):
        for _ in range(repeats):
            for name, scorer in scorers.items():
                start = time.perf_counter()
                scorer.many(users)
                best[name] = min(best[name], (time.perf_counter() - start) / users.size)
    return best


def table_scorer(codes_user: np.ndarray, wu: np.ndarray, codes_item: np.ndarray, wi: np.ndarray, r: int) -> Scorer:
    """The models' packed retrieval path: the item table built once (preprocessing, like MF's V),
    then ``table_scores`` per user with a reused output row (user weights cast to the table's
    dtype once, as ``CCCF`` does)."""
    bound = float(np.abs(wu).max(initial=0)) if wu.dtype.kind in "biu" else 0.0
    table = item_table(codes_item, wi, r, user_bound=bound)
    wu = np.ascontiguousarray(wu, dtype=table.weights.dtype)
    row = np.zeros(1, dtype=np.int64)
    out = np.empty((1, codes_item.shape[0]), dtype=table.weights.dtype)
    ids, values = np.empty((1, 10), dtype=np.int64), np.empty((1, 10), dtype=out.dtype)

    def one(u: int) -> np.ndarray:
        row[0] = u
        return table_scores(table, codes_user, wu, rows=row, out=out)[0]

    def compiled_top(u: int) -> np.ndarray:
        row[0] = u
        top_k_rows(table_scores(table, codes_user, wu, rows=row, out=out), 10, ids, values)
        return ids

    return Scorer(one, lambda us: table_scores(table, codes_user, wu, rows=us), compiled_top)


def code_scorers(model: Any, e: float | None, label: str) -> dict[str, Scorer]:
    """Packed-code scorers of a fitted CCCF/DCF: float weights and integer ⌊e·w⌉ (CCCF), or
    integer weights 1, i.e. r − 2·Hamming (DCF, ``e=None``)."""
    cu, ci, r = model.codes_user_, model.codes_item_, model.n_bits_
    if e is None:
        wu = np.ones(model.weights_user_.shape, dtype=np.int64)
        wi = np.ones(model.weights_item_.shape, dtype=np.int64)
    else:
        wu, wi = integer_weights(model.weights_user_, e), integer_weights(model.weights_item_, e)
    out = {}
    if isinstance(model, CCCF):
        out[f"{label} float weights"] = table_scorer(cu, model.weights_user_, ci, model.weights_item_, r)
    out[f"{label} {'Hamming (int weights 1)' if e is None else f'int e={e:g}'}"] = table_scorer(cu, wu, ci, wi, r)
    return out


def mf_scorers(model: RatingMF, label: str) -> dict[str, Scorer]:
    U, V = model.user_factors_, model.item_factors_
    U32, V32 = U.astype(np.float32), V.astype(np.float32)
    out = {}
    for name, (users, items) in {"float64": (U, V), "float32": (U32, V32)}.items():
        ids, values = np.empty((1, 10), dtype=np.int64), np.empty((1, 10), dtype=users.dtype)

        def compiled_top(u: int, users: np.ndarray = users, items: np.ndarray = items, ids=ids, values=values):
            top_k_rows((users[u] @ items.T)[None], 10, ids, values)
            return ids

        out[f"{label} {name}"] = Scorer(
            lambda u, users=users, items=items: users[u] @ items.T,
            lambda us, users=users, items=items: users[us] @ items.T,
            compiled_top,
        )
    return out


def measure(scorers: dict[str, Scorer], users: np.ndarray, repeats: int) -> dict[str, dict[str, float]]:
    """Per scorer: per-user retrieval (score + top-10), per-user score only, batched score."""
    calls: dict[str, Callable[[int], Any]] = {}
    for name, scorer in scorers.items():
        calls[name + "|top"] = scorer.retrieve
        calls[name + "|score"] = scorer.one
        calls[name + "|ctop"] = scorer.compiled_top
    t = per_user_seconds(calls, users, repeats)
    batch = batch_seconds(scorers, users, repeats)
    return {
        name: {
            "top": t[name + "|top"],
            "score": t[name + "|score"],
            "batch": batch[name],
            "ctop": t[name + "|ctop"],
        }
        for name in scorers
    }


def timings(data: sp.csr_matrix, models: dict[str, Any], args: argparse.Namespace) -> None:
    """Per-user top-10 retrieval times of the four scorers, then the bandwidths and the profile."""
    G, r = args.cccf
    G2, r2 = args.large
    e = args.weight_scale
    users = np.random.default_rng(0).choice(data.shape[0], size=min(args.timing_users, data.shape[0]), replace=False)
    settings = [(f"CCCF G={G} r={r} h={h:g}", f"DCF r={G * r}", f"MF (ALS) d={G * r}") for h in (0.7, DENSE)]
    if not args.no_large:
        settings += [(f"CCCF G={G2} r={r2} h={h:g}", f"DCF r={G2 * r2}", f"MF (ALS) d={G2 * r2}") for h in (0.7, DENSE)]
    n_items = data.shape[1]
    print(
        f"\nTop-10 retrieval (seed-{args.first_seed} models of protocol 1; {users.size} random users; all {n_items} "
        "items scored, then np.argpartition + a sort of the 10; single thread; each call timed alone, least of "
        f"{args.repeats} interleaved rounds per user, mean over the users). µs per user; ratio = MF float64's time / "
        "the scorer's (> 1: faster than MF), measured in the same run. 'batched': one call scoring all the users "
        f"(table_scores with all the rows, or the GEMM U[users] @ V.T), best of {args.repeats}, "
        f"divided by {users.size}.\n"
    )
    print(
        "The last column is every scorer's score followed by the compiled one-pass top-10 (`top_k_rows`: a "
        "bounded heap of 10, into reused arrays), against MF float64's score + the same top-10: like for like. "
        "The first column uses np.argpartition instead, which numpy makes slow on rows with many tied scores.\n"
    )
    print(
        "| setting | scorer | score + top-10 | ratio | score only | ratio | batched score | ratio "
        "| compiled score + top-10 | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for cccf_name, dcf_name, mf_name in settings:
        scorers = {}
        scorers.update(code_scorers(models[cccf_name], e, cccf_name))
        scorers.update(code_scorers(models[dcf_name], None, dcf_name))
        scorers.update(mf_scorers(models[mf_name], mf_name))
        t = measure(scorers, users, args.repeats)
        ref = t[f"{mf_name} float64"]
        for name, row in t.items():
            cells = " | ".join(f"{row[c] * 1e6:.1f} | {ref[c] / row[c]:.2f}" for c in ("top", "score", "batch"))
            fused = f"{row['ctop'] * 1e6:.1f} | {ref['ctop'] / row['ctop']:.2f}"
            print(f"| {cccf_name} | {name} | {cells} | {fused} |")
        say(f"timed {cccf_name}")
    print(f"\nCCCF G={G} r={r} at each bandwidth: nnz(w) and retrieval time (µs per user, same protocol as above):\n")
    print("| h | nnz(η) | nnz(ξ) | nnz(η⊙ξ) per pair | pairs with η⊙ξ = 0 | int e: score + compiled top-10 "
          "| int e: batched | float w: score + compiled top-10 | float w: batched | MF f64: score + compiled top-10 "
          "| MF f64: batched | int speed-up vs MF f64 (top-10; batched) |")  # fmt: skip
    print("|---" * 12 + "|")
    for h in args.bandwidths:
        model = models[f"CCCF G={G} r={r} h={h:g}"]
        scorers = code_scorers(model, e, "c")
        scorers["mf"] = mf_scorers(models[f"MF (ALS) d={G * r}"], "mf")["mf float64"]
        t = measure(scorers, users, args.repeats)
        n = weight_nnz(model)
        ti, tf, tm = t[f"c int e={e:g}"], t["c float weights"], t["mf"]
        print(f"| {h:g} | {n[0]:.2f} | {n[1]:.2f} | {n[2]:.2f} | {n[3]:.3f} | {ti['ctop'] * 1e6:.1f} "
              f"| {ti['batch'] * 1e6:.2f} | {tf['ctop'] * 1e6:.1f} | {tf['batch'] * 1e6:.2f} | {tm['ctop'] * 1e6:.1f} "
              f"| {tm['batch'] * 1e6:.2f} | {tm['ctop'] / ti['ctop']:.2f}; "
              f"{tm['batch'] / ti['batch']:.2f} |")  # fmt: skip
    profile(models[settings[0][0]], models[settings[0][2]], users, args)


def profile(model: CCCF, mf: RatingMF, users: np.ndarray, args: argparse.Namespace) -> None:
    """Where a per-user integer-weight retrieval spends its time, against MF float64."""
    e = args.weight_scale
    cu, ci, r = model.codes_user_, model.codes_item_, model.n_bits_
    wu, wi = integer_weights(model.weights_user_, e), integer_weights(model.weights_item_, e)
    U, V = mf.user_factors_, mf.item_factors_
    full = table_scorer(cu, wu, ci, wi, r)
    tiny = table_scorer(cu, wu, ci[:1], wi[:1], r)
    rows = {int(u): full.one(int(u)).copy() for u in users}
    mrows = {int(u): U[int(u)] @ V.T for u in users}
    zeros = float(np.mean([np.mean(row == 0) for row in rows.values()]))
    calls = {
        "table_scores against a 1-item table (the Python call: checks, dispatch)": tiny.one,
        f"table_scores against all {ci.shape[0]} items": full.one,
        f"top-10 of the user's own {next(iter(rows.values())).dtype} score row "
        f"(on average {100 * zeros:.0f} % of its scores are exactly 0)": lambda u: top10(rows[u]),
        "packed_scores (public one-user function: rebuilds the item table every call)": (
            lambda u: packed_scores(cu[u], wu[u], ci, wi, r)
        ),
        "MF U[u] @ V[:1].T (the Python call)": lambda u: U[u] @ V[:1].T,
        f"MF U[u] @ V.T against all {V.shape[0]} items (float64)": lambda u: U[u] @ V.T,
        "top-10 of the user's own MF float64 score row": lambda u: top10(mrows[u]),
    }
    t = per_user_seconds(calls, users, args.repeats)
    print(
        f"\nProfile of one user's retrieval (CCCF G={model.n_components} r={r} h={model.bandwidth:g} int e={e:g} "
        f"against MF d={V.shape[1]} float64; single thread; µs per user, timed as above):\n"
    )
    print("| part | µs / user |")
    print("|---|---|")
    for name, seconds in t.items():
        print(f"| {name} | {seconds * 1e6:.2f} |")


# ------------------------------------------------------------------------------------------


def machine() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:  # pragma: no cover
        commit = "?"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {commit} (+ uncommitted tree); "
        f"{platform.machine()} Python {platform.python_version()}, {os.cpu_count()} cores; load average {load}"
    )


def pair(text: str) -> tuple[int, int]:
    g, r = text.split(",")
    return int(g), int(r)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.cccf", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", default=DEFAULT_DATA, help=f"MovieLens 100K folder or u.data (default {DEFAULT_DATA})"
    )
    parser.add_argument("--seeds", type=int, default=5, help="protocol-1 seeds (default 5)")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="protocol-1 seeds are first-seed .. first-seed + seeds - 1 (default 0; the development runs of "
        "issue 17 used 1000, disjoint from the benchmark's)",
    )
    parser.add_argument("--full-seeds", type=int, default=5, help="protocol-2 seeds (default 5)")
    parser.add_argument("--cccf", type=pair, default=(8, 8), help="G,r of the main CCCF setting (default 8,8)")
    parser.add_argument("--large", type=pair, default=(16, 8), help="G,r of the larger setting (default 16,8)")
    parser.add_argument("--no-large", action="store_true", help="skip the larger setting (and DCF and MF at its size)")
    parser.add_argument("--no-mfauc", action="store_true", help="skip the MFAUC row of protocol 2")
    parser.add_argument(
        "--bandwidths",
        type=float,
        nargs="+",
        default=[1.5, 1.0, 0.7, 0.5],
        help="CCCF bandwidths h (default 1.5 1.0 0.7 0.5)",
    )
    parser.add_argument("--weight-scale", type=float, default=100.0, help="e of the integer weights (default 100)")
    parser.add_argument("--timing-users", type=int, default=200, help="users per timing round (default 200)")
    parser.add_argument("--repeats", type=int, default=5, help="timing rounds, best taken (default 5)")
    parser.add_argument("--only", choices=("rating", "full", "timing"), nargs="+", help="run only these parts")
    args = parser.parse_args(argv)
    if 0.7 not in args.bandwidths:
        args.bandwidths.append(0.7)
    parts = set(args.only or ("rating", "full", "timing"))
    path = args.data if os.path.isdir(args.data) or os.path.isfile(args.data) else None
    if path is None:
        print(
            f"MovieLens 100K not found at {args.data!r}: pass --data with the ml-100k folder (holding u.data) or the "
            "u.data file itself (https://grouplens.org/datasets/movielens/100k/).",
            file=sys.stderr,
        )
        return 2
    interactions = load_movielens(path)
    data = interactions.matrix.tocsr()
    print(machine() + "\n")
    self_check()
    say("NDCG self-check against sklearn.metrics.ndcg_score passed")
    models: dict[str, Any] = {}
    if "rating" in parts or "timing" in parts:
        if "rating" not in parts:
            args.seeds = 1
        result = rating_ranking(data, args)
        models = result["seed0"]
        if "rating" in parts:
            print_rating_ranking(result, args)
    if "full" in parts:
        full_ranking(interactions, args)
    if "timing" in parts:
        timings(data, models, args)
    say("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
