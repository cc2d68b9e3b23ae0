"""One-class CCCF and DCF on the all-items task of MovieLens 100K (issue 38).

The protocol is implicit's: every rating of ``u.data`` is a one-class interaction (value 1;
the rating model, ``CCCF explicit``, is fitted on the ratings of the same training pairs),
``implicit.evaluation.train_test_split(R, 0.8, random_state=seed)`` holds out 20 % of them,
each model is fitted on the rest and scored by ``ranking_metrics_at_k(model, train, test,
K=10)`` (every unseen item ranked). Seeds 0 … ``--seeds`` − 1; one thread (the script sets
the thread variables to 1 unless set, and runs under ``threadpool_limits(1)``).

1. **Tuning** (``--tune``, default on): ``CCCF(feedback="implicit")`` at 8 components × 8
   bits and ``DCF(feedback="implicit")`` at 64 bits, over a grid of the unobserved pairs'
   weight w₀, the observed pairs' confidence slope a and the balance terms α (α₁ = α₂): each
   setting is fitted on a *validation split carved from the training part* of every seed
   (``train_test_split(train, 0.8, random_state=seed + 1000)``; the test part is never
   read) and the setting with the best mean validation NDCG@10 is kept. Two stages: w₀ × a
   at α = 10⁻³, then α at the best (w₀, a).
2. **Accuracy**: the chosen CCCF and DCF, and the explicit (rating) CCCF, against implicit's
   ALS (64 factors, its defaults), BPR (64 factors, its defaults) and ratkit's PureSVD(64),
   Popularity and MFAUC(64) on the same splits: mean ± standard deviation over the seeds
   of precision@10, MAP@10, NDCG@10 and AUC@10, and the mean fit time.
3. **Retrieval speed**: on seed 0, the top-10 of every user in batches of ``--batch`` users,
   already-liked items filtered, through each model's public ``recommend``: CCCF (int32
   weights e = 256, and float weights), DCF, against the float references at 64 dimensions
   (ALS's factors): implicit's ``AlternatingLeastSquares.recommend`` (float32), ratkit's
   ``recommend`` on the factors in float64 (:class:`GivenFactors`), and numpy's ``U @ Vᵀ`` in
   float32 and float64 with the same filter and the same compiled top-10. The one-pass
   ``recommend`` is checked against the shared path (dense scores, then ``select``). The
   least of ``--repeats`` interleaved rounds.

Run from the repository root::

    .venv/bin/python -m bench.recsys.cccf_implicit --data ../shared/data/movielens-100k/ml-100k
    .venv/bin/python -m bench.recsys.cccf_implicit --no-tune --seeds 1    # a quick look
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402 - the thread settings must come before numpy is imported
import json  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from bench.recsys.top_k import GivenFactors, least_times  # noqa: E402
from ratkit.recsys import CCCF, DCF, MFAUC, Popularity, PureSVD  # noqa: E402
from ratkit.recsys._packed_codes import table_scores  # noqa: E402
from ratkit.recsys._packed_retrieval import table_recommend  # noqa: E402
from ratkit.recsys._ranking import top_n  # noqa: E402

DEFAULT_DATA = os.path.join("..", "shared", "data", "movielens-100k", "ml-100k")
K = 10
METRICS = ("precision", "map", "ndcg", "auc")
#: Stage 1 of the tuning: (w₀, a) at α = 10⁻³; stage 2: α at the best of stage 1.
UNOBSERVED_WEIGHTS = (0.5, 1.0, 2.0, 4.0, 8.0)
CONFIDENCES = (0.0, 1.0, 4.0)
ALPHAS = (1e-4, 1e-3, 1e-2, 1e-1)
#: e of CCCF's integer weights ⌊e·η⌉ (the paper's §3.7) in the accuracy and speed tables.
INTEGER_SCALE = 256.0
#: What the tuning chose when run with the defaults (``--no-tune`` uses these).
CHOSEN: dict[str, dict[str, Any]] = {
    "CCCF": {"unobserved_weight": 1.0, "confidence": 1.0, "alpha_user": 1e-4, "alpha_item": 1e-4},
    "DCF": {"unobserved_weight": 1.0, "confidence": 1.0, "alpha_user": 1e-2, "alpha_item": 1e-2},
}


def load(path: str) -> sp.csr_matrix:
    """The 1–5 ratings of ``u.data``, users × items (``.sign()`` of it: the one-class data)."""
    raw = np.loadtxt(os.path.join(path, "u.data"), dtype=np.int64)
    users, items = raw[:, 0] - 1, raw[:, 1] - 1
    return sp.csr_matrix((raw[:, 2].astype(np.float64), (users, items)), shape=(users.max() + 1, items.max() + 1))


def split(matrix: sp.csr_matrix, seed: int) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    from implicit.evaluation import train_test_split

    train, test = train_test_split(matrix, 0.8, random_state=seed)
    return train.tocsr(), test.tocsr()


def metrics(model: Any, train: sp.csr_matrix, test: sp.csr_matrix) -> dict[str, float]:
    from implicit.evaluation import ranking_metrics_at_k

    got = ranking_metrics_at_k(model, train, test, K=K, show_progress=False)
    return {name: float(got[name]) for name in METRICS}


def hashing(name: str, setting: dict[str, Any], seed: int, weight_scale: float | None = None) -> Any:
    """``CCCF(8 × 8 bits)`` (integer weights ⌊e·η⌉ when ``weight_scale`` = e is given: the same
    fit, scored in int32) or ``DCF(64 bits)``, one-class, with ``setting``."""
    if name == "CCCF":
        return CCCF(
            n_components=8, n_bits=8, feedback="implicit", random_state=seed, weight_scale=weight_scale, **setting
        )
    return DCF(n_bits=64, feedback="implicit", random_state=seed, **setting)


class ImplicitModel:
    """implicit's ALS or BPR at 64 factors, its defaults otherwise, one thread (fit takes CSR)."""

    def __init__(self, kind: str, seed: int) -> None:
        from implicit.als import AlternatingLeastSquares
        from implicit.bpr import BayesianPersonalizedRanking

        cls = AlternatingLeastSquares if kind == "als" else BayesianPersonalizedRanking
        self.model = cls(factors=64, random_state=seed, num_threads=1)

    def fit(self, train: sp.csr_matrix) -> Any:
        self.model.fit(train, show_progress=False)
        return self.model


def factories(chosen: dict[str, dict[str, Any]]) -> dict[str, Callable[[int], Any]]:
    return {
        "CCCF implicit 8×8": lambda seed: hashing("CCCF", chosen["CCCF"], seed),
        f"CCCF implicit 8×8, e={INTEGER_SCALE:g}": lambda seed: hashing("CCCF", chosen["CCCF"], seed, INTEGER_SCALE),
        "DCF implicit 64": lambda seed: hashing("DCF", chosen["DCF"], seed),
        "CCCF explicit 8×8": lambda seed: CCCF(n_components=8, n_bits=8, random_state=seed),
        "implicit ALS(64)": lambda seed: ImplicitModel("als", seed),
        "implicit BPR(64)": lambda seed: ImplicitModel("bpr", seed),
        "PureSVD(64)": lambda seed: PureSVD(n_factors=64, random_state=seed),
        "MFAUC(64)": lambda seed: MFAUC(n_factors=64, random_state=seed),
        "Popularity": lambda seed: Popularity(),
    }


def fit(model: Any, train: sp.csr_matrix) -> tuple[Any, float]:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at max_iter: the fits stop there by design
        fitted = model.fit(train)
    return fitted, time.perf_counter() - start


def validation_ndcg(name: str, setting: dict[str, Any], parts: list[tuple[int, sp.csr_matrix, sp.csr_matrix]]) -> float:
    scores = []
    for seed, inner, valid in parts:
        model, _ = fit(hashing(name, setting, seed), inner)
        scores.append(metrics(model, inner, valid)["ndcg"])
    return float(np.mean(scores))


def tune(matrix: sp.csr_matrix, seeds: int) -> dict[str, dict[str, Any]]:
    """The setting of each hashing model with the best mean validation NDCG@10 (test never read)."""
    from implicit.evaluation import train_test_split

    parts = []
    for seed in range(seeds):
        train, _ = split(matrix, seed)
        inner, valid = train_test_split(train, 0.8, random_state=seed + 1000)
        parts.append((seed, inner.tocsr(), valid.tocsr()))
    chosen: dict[str, dict[str, Any]] = {}
    for name in ("CCCF", "DCF"):
        print(f"\n### Tuning {name} on validation splits of the training parts ({seeds} seeds)\n")
        print("| w₀ | a | α | validation NDCG@10 |\n|---|---|---|---|")
        best: tuple[float, dict[str, Any]] = (-1.0, {})
        for w0 in UNOBSERVED_WEIGHTS:
            for a in CONFIDENCES:
                setting = {"unobserved_weight": w0, "confidence": a, "alpha_user": 1e-3, "alpha_item": 1e-3}
                value = validation_ndcg(name, setting, parts)
                print(f"| {w0:g} | {a:g} | 1e-3 | {value:.4f} |", flush=True)
                best = max(best, (value, setting), key=lambda t: t[0])
        for alpha in ALPHAS:
            if alpha == 1e-3:
                continue
            setting = {**best[1], "alpha_user": alpha, "alpha_item": alpha}
            value = validation_ndcg(name, setting, parts)
            w0, a = setting["unobserved_weight"], setting["confidence"]
            print(f"| {w0:g} | {a:g} | {alpha:g} | {value:.4f} |", flush=True)
            best = max(best, (value, setting), key=lambda t: t[0])
        print(f"\n{name}: chosen {json.dumps(best[1])} (validation NDCG@10 {best[0]:.4f})", flush=True)
        chosen[name] = best[1]
    return chosen


def accuracy(
    matrix: sp.csr_matrix, ratings: sp.csr_matrix, seeds: int, chosen: dict[str, dict[str, Any]], only: list[str]
) -> None:
    """The table of part 2; the rating model (``explicit`` in its name) is fitted on the ratings
    of the same training pairs (the split of the ratings matrix by the same seed: checked)."""
    rows: dict[str, list[dict[str, float]]] = {}
    wanted = {name: make for name, make in factories(chosen).items() if not only or any(o in name for o in only)}
    wanted.setdefault("implicit ALS(64)", factories(chosen)["implicit ALS(64)"])  # the ratios' reference
    for seed in range(seeds):
        train, test = split(matrix, seed)
        rated, _ = split(ratings, seed)
        if (rated != 0).astype(np.float64).sum() != train.nnz or (rated.sign() != train).nnz:
            raise AssertionError("the ratings' split is not the one-class split")
        for name, make in wanted.items():
            model, seconds = fit(make(seed), rated if "explicit" in name else train)
            rows.setdefault(name, []).append({**metrics(model, train, test), "fit": seconds})
            print(f"seed {seed} {name}: {json.dumps(rows[name][-1])}", flush=True)
    als = float(np.mean([r["ndcg"] for r in rows["implicit ALS(64)"]]))
    print(f"\n### All-items top-{K} on ML-100K ({seeds} seeds, mean ± sd)\n")
    print("| model | " + " | ".join(f"{m}@{K}" for m in METRICS) + " | NDCG / ALS's | fit (s) |")
    print("|---|" + "---|" * (len(METRICS) + 2))
    for name, runs in rows.items():
        cells = []
        for m in METRICS:
            values = np.array([r[m] for r in runs])
            cells.append(f"{values.mean():.4f} ± {values.std(ddof=1) if len(values) > 1 else 0.0:.4f}")
        ratio = float(np.mean([r["ndcg"] for r in runs])) / als
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} | {np.mean([r['fit'] for r in runs]):.2f} |")


def speed(matrix: sp.csr_matrix, chosen: dict[str, dict[str, Any]], batch: int, repeats: int) -> None:
    """Part 3: the top-10 of every user, liked items filtered, through each model's ``recommend``
    and through the bare float references, interleaved; ratios against each float reference."""
    train, _ = split(matrix, 0)
    cccf, _ = fit(hashing("CCCF", chosen["CCCF"], 0), train)
    integer, _ = fit(hashing("CCCF", chosen["CCCF"], 0, INTEGER_SCALE), train)
    dcf, _ = fit(hashing("DCF", chosen["DCF"], 0), train)
    als = ImplicitModel("als", 0).fit(train)
    U32 = np.ascontiguousarray(als.user_factors, dtype=np.float32)
    V32 = np.ascontiguousarray(als.item_factors, dtype=np.float32)
    U, V = U32.astype(np.float64), V32.astype(np.float64)
    floats = GivenFactors.holding(U, V)
    m = train.shape[0]
    blocks = [np.arange(start, min(start + batch, m)) for start in range(0, m, batch)]
    rows = [train[b] for b in blocks]
    # each block's liked (row, item) pairs, for the bare references' filter
    liked = [(np.repeat(np.arange(len(b)), np.diff(r.indptr)), r.indices) for b, r in zip(blocks, rows)]

    def recommend(model: Any) -> Callable[[], Any]:
        return lambda: [model.recommend(b, r, N=K) for b, r in zip(blocks, rows)]

    def shared_path(model: Any) -> Callable[[], Any]:
        def run() -> Any:
            with through_shared_path(model):
                return [model.recommend(b, r, N=K) for b, r in zip(blocks, rows)]

        return run

    def matmul_top(Uf: np.ndarray, Vf: np.ndarray) -> Callable[[], Any]:
        def run() -> Any:
            out = []
            for b, (r, c) in zip(blocks, liked):
                scores = Uf[b] @ Vf.T
                scores[r, c] = -np.inf
                out.append(top_n(scores, K))
            return out

        return run

    def scores_only(model: Any) -> Callable[[], Any]:
        weights, table = model._scoring_tables()
        return lambda: [table_scores(table, model.codes_user_, weights, rows=b) for b in blocks]

    e = f"{INTEGER_SCALE:g}"
    hashing_rows = {
        f"CCCF.recommend, 8×8 bits, int32 weights e={e}": recommend(integer),
        "CCCF.recommend, 8×8 bits, float weights": recommend(cccf),
        "DCF.recommend, 64 bits": recommend(dcf),
        f"CCCF.recommend e={e} through the shared path (scores ÷ e², filter, select: before)": shared_path(integer),
    }
    references = {
        "implicit ALS(64).recommend (float32)": recommend(als),
        "ratkit float64 64-d recommend (FactorRecommender)": recommend(floats),
        "numpy float32 U·Vᵀ, filter, compiled top-10": matmul_top(U32, V32),
        "numpy float64 U·Vᵀ, filter, compiled top-10": matmul_top(U, V),
    }

    def one_pass(model: Any) -> Callable[[], Any]:
        weights, table = model._scoring_tables()
        return lambda: [table_recommend(table, model.codes_user_, weights, b, K, r) for b, r in zip(blocks, rows)]

    stored = [U32[b] @ V32.T for b in blocks]  # float32 scores made once: the selection alone

    def select_only() -> Any:
        out = []
        for block_scores, (r, c) in zip(stored, liked):
            block_scores = block_scores.copy()
            block_scores[r, c] = -np.inf
            out.append(top_n(block_scores, K))
        return out

    parts = {
        f"one pass (table_recommend: scores, filter, top-10), int32 weights e={e}": one_pass(integer),
        "copy, filter and compiled top-10 of stored float32 U·Vᵀ": select_only,
        "copy of stored float32 U·Vᵀ only": lambda: [x.copy() for x in stored],
        f"packed scores only, int32 weights e={e}": scores_only(integer),
        "packed scores only, float weights": scores_only(cccf),
        "numpy float32 U·Vᵀ only": lambda: [U32[b] @ V32.T for b in blocks],
        "numpy float64 U·Vᵀ only": lambda: [U[b] @ V.T for b in blocks],
    }
    candidates = {**hashing_rows, **references, **parts}
    for run in candidates.values():
        run()  # compiled or loaded from numba's cache outside the timings
    check_same_as_shared_path(integer, blocks, rows)
    times, _ = least_times(candidates, repeats)
    print(f"\n### Top-{K} of all {m} users × {train.shape[1]} items, liked items filtered, batches of {batch}")
    print(f"(least of {repeats} interleaved rounds; ratio = the reference's seconds / this row's)\n")
    names = list(references)
    print("| retrieval | seconds | " + " | ".join(f"{n} / this" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for name in {**hashing_rows, **references}:
        ratios = " | ".join(f"{times[ref] / times[name]:.2f}×" for ref in names)
        print(f"| {name} | {times[name]:.4f} | {ratios} |")
    print("\n| part | seconds |\n|---|---|")
    for name in parts:
        print(f"| {name} | {times[name]:.4f} |")


@contextmanager
def through_shared_path(model: Any) -> Iterator[None]:
    """``model.recommend`` as before the one-pass path: dense float64 score rows (integer scores
    divided by e²), the liked items set to −inf, then ``select`` (``_select_users`` → None)."""
    cls = type(model)
    own = cls.__dict__.get("_select_users")  # None: inherited, nothing to put back
    cls._select_users = lambda self, *args: None
    try:
        yield
    finally:
        if own is None:
            del cls._select_users
        else:
            cls._select_users = own


def check_same_as_shared_path(model: Any, blocks: list[np.ndarray], rows: list[sp.csr_matrix]) -> None:
    """The one-pass ``recommend`` answers what scoring dense rows then ``select`` answers."""
    fused = [model.recommend(b, r, N=K) for b, r in zip(blocks, rows)]
    with through_shared_path(model):
        shared = [model.recommend(b, r, N=K) for b, r in zip(blocks, rows)]
    for (ids, values), (want_ids, want_values) in zip(fused, shared):
        if not (np.array_equal(ids, want_ids) and np.array_equal(values, want_values)):
            raise AssertionError("the one-pass recommend differs from the shared path")
    print("one-pass recommend = scores then select (ids and scores equal, every user)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.cccf_implicit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", default=DEFAULT_DATA, help=f"the ml-100k folder (default {DEFAULT_DATA})")
    parser.add_argument("--seeds", type=int, default=5, help="seeds of the splits (default 5)")
    parser.add_argument("--tune", action=argparse.BooleanOptionalAction, default=True, help="tune on validation first")
    parser.add_argument("--batch", type=int, default=256, help="users per recommend batch (default 256)")
    parser.add_argument("--repeats", type=int, default=15, help="timing rounds (default 15)")
    parser.add_argument("--only", choices=("tune", "accuracy", "speed"), default=None, help="run one part only")
    parser.add_argument(
        "--models", nargs="+", default=[], help="accuracy: only the models whose name holds one of these (and ALS)"
    )
    args = parser.parse_args(argv)
    ratings = load(args.data)
    matrix = ratings.sign()
    print(f"ML-100K one-class: {matrix.shape[0]} users × {matrix.shape[1]} items, {matrix.nnz} interactions")
    with threadpool_limits(1):
        chosen = tune(matrix, args.seeds) if args.tune and args.only in (None, "tune") else CHOSEN
        if args.only in (None, "accuracy"):
            accuracy(matrix, ratings, args.seeds, chosen, args.models)
        if args.only in (None, "speed"):
            speed(matrix, chosen, args.batch, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
