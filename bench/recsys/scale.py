"""Recommenders at scale (issue 38): a MovieLens-shaped generator of implicit feedback, and each
model's fit time, peak RSS growth and ``recommend`` time, one fit per child process, beside
implicit's BPR and ALS.

Data. ``generate`` draws a users × items 0/1 matrix with ``nnz`` stored entries, MovieLens-shaped:
user u's activity is ``min_activity`` + a log-normal part (σ = ``activity_sigma``) scaled so the
activities sum to nnz (each capped at ``max_share`` of the items); the items a user holds are drawn
without replacement with probability ∝ (popularity rank)^(−``popularity_exponent``) + ``floor`` (the
ranks a random permutation of the items). The defaults were set so the Gini coefficients of user
activity and item popularity land near ML-100K's (0.47 and 0.63). The sizes are the issue's:
10⁵ / 10⁶ / 10⁷ interactions over 1 250 / 12 500 / 125 000 users and 500 / 1 666 / 16 666 items.
Their distribution statistics are printed beside those of ML-100K and Last.fm HetRec 2K (read from
``--ml100k`` / ``--lastfm``; all their interactions, values ignored). ``--data`` reads saved
matrices instead (``scipy.sparse.save_npz``, CSR; ``--save-data`` writes the generated ones), so
10⁷ (about 10 minutes to generate) is generated once.

Fits. Every model at ``--factors`` (32) factors and ``--epochs`` (20) epochs/iterations, one
thread (OPENBLAS/OMP/NUMBA/MKL_NUM_THREADS=1, implicit's ``num_threads=1``). Each fit runs in a
fresh child process (``--child``) that loads the matrix, makes one warm-up fit (and ``recommend``)
on a 200 × 100 matrix (numba's compilation or cache loading, imports), collects garbage and hands
freed memory back (``malloc_trim``), reads its VmRSS (the baseline), resets its high-water mark
(writing 5 to ``/proc/self/clear_refs``), then times ``fit`` and reads VmHWM: peak RSS growth =
VmHWM − baseline. The explicit CCCF and DCF (the papers' rating models) refuse all-equal values, so
they are fitted on the same pattern with ratings 1 … 5 drawn at ML-100K's shares (their costs only).

Recommend. Then the child times ``model.recommend(userids, X[userids], N=10)`` as implicit's API
takes it (liked items filtered): for 1 000 seeded users with ≥ 1 interaction, best of 3, and for
every user in batches of ``--batch`` (10 000), total seconds; implicit's models the same on the
same CSR. The tables give each model's ratios over implicit BPR's fit and ALS's ``recommend`` at the
same size, and an ESTIMATE at 10⁸ from the largest size's costs (:mod:`bench.recsys.scale_report`).
``--repeats R`` runs the models R times per size in alternating order (forward, backward, …) and
keeps each timing's least and the largest peak, so that the load other processes put on a shared
machine weighs less on the ratios.

Models (``--models``): ``MODELS`` below; a name not there but registered as a ratkit recommender
(``ratkit.plugins.available("recommender")``) is built with ``n_factors`` and ``n_epochs`` where its
constructor takes them, so every registered recommender can be added.

Run from the repository root::

    .venv/bin/python -m bench.recsys.scale                       # 10⁵ and 10⁶, every model in DEFAULT_MODELS
    .venv/bin/python -m bench.recsys.scale --sizes 1e6 --models fism tjsl bpr als --repeats 3
    .venv/bin/python -m bench.recsys.scale --data m1e7.npz       # a saved matrix (here 10⁷)
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from bench.process_memory import reset_peak, status
from bench.recsys.scale_report import Results, print_estimate, print_fits, print_recommend, print_statistics

DEFAULT_ML = os.path.join("..", "shared", "data", "movielens-100k", "ml-100k")
DEFAULT_LASTFM = os.path.join("..", "shared", "data", "lastfm-hetrec2011-2k")
#: interactions → (users, items), the issue's sizes
SIZES = {100_000: (1_250, 500), 1_000_000: (12_500, 1_666), 10_000_000: (125_000, 16_666)}
THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MKL_NUM_THREADS")
START = time.perf_counter()


def say(message: str) -> None:
    """Progress on stderr, with the seconds since the start."""
    print(f"[{time.perf_counter() - START:7.1f} s] {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------
# the generator and its statistics
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """The generator's parameters (module docstring)."""

    min_activity: int = 20
    activity_sigma: float = 1.3
    max_share: float = 0.45
    popularity_exponent: float = 1.2
    floor: float = 0.0


def _activities(rng: np.random.Generator, nnz: int, m: int, n: int, shape: Shape) -> np.ndarray:
    """Per-user counts: min_activity + a log-normal part, summing to nnz, each ≤ max_share·n."""
    low, cap = min(shape.min_activity, nnz // m), max(1, int(shape.max_share * n))
    if nnz > m * cap:
        raise ValueError(f"{nnz} interactions do not fit {m} users holding at most {cap} of {n} items each")
    extra = rng.lognormal(0.0, shape.activity_sigma, m)
    counts = np.full(m, low, dtype=np.int64)
    left = nnz - counts.sum()
    while left > 0:  # share what is left in proportion to the log-normal weights, respecting the cap
        room = cap - counts
        weights = np.where(room > 0, extra, 0.0)
        add = np.minimum(room, np.floor(left * weights / weights.sum()).astype(np.int64))
        if add.sum() == 0:  # the rounding left a few: one each to the heaviest users with room
            add = np.zeros(m, dtype=np.int64)
            add[np.argsort(-weights)[:left]] = 1
        counts += add
        left = nnz - counts.sum()
    return counts


def generate(nnz: int, m: int, n: int, seed: int = 0, shape: Shape = Shape()) -> sp.csr_matrix:
    """A users × items 0/1 CSR matrix of ``nnz`` entries shaped like MovieLens (module docstring)."""
    rng = np.random.default_rng(seed)
    counts = _activities(rng, nnz, m, n, shape)
    weight = (np.arange(1, n + 1, dtype=np.float64) ** -shape.popularity_exponent + shape.floor)[rng.permutation(n)]
    heavy = counts > n // 10
    keys = [_draw_light(rng, np.where(heavy, 0, counts), weight), _draw_heavy(rng, counts, heavy, weight)]
    keys = np.sort(np.concatenate(keys))
    out = sp.csr_matrix((np.ones(keys.size), (keys // n, keys % n)), shape=(m, n))
    out.sort_indices()
    return out


def _draw_light(rng: np.random.Generator, counts: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Keys u·n + i of counts[u] distinct items per user, ∝ weight without replacement: draws with
    replacement, duplicates dropped, the surplus dropped at random, until every user has its count
    (the keys' order is a weighted draw without replacement's)."""
    m, n = counts.size, weight.size
    cdf = np.cumsum(weight) / weight.sum()
    keys = np.empty(0, dtype=np.int64)
    have = np.zeros(m, dtype=np.int64)
    while (need := counts - have).any():
        users = np.repeat(np.arange(m, dtype=np.int64), need + need // 4 + 2 * (need > 0))
        items = np.minimum(np.searchsorted(cdf, rng.random(users.size)), n - 1)
        keys = np.unique(np.concatenate([keys, users * n + items]))
        user = keys // n
        order = np.lexsort((rng.random(keys.size), user))
        rank = np.arange(keys.size) - np.searchsorted(user[order], user[order])
        keys = keys[order][rank < counts[user[order]]]
        have = np.bincount(keys // n, minlength=m)
    return keys


def _draw_heavy(rng: np.random.Generator, counts: np.ndarray, heavy: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """The same for the users ``heavy`` (holding > n/10 items): Efraimidis–Spirakis, the counts[u]
    largest log(U)/weight per row (U uniform), rows in chunks."""
    n = weight.size
    users = np.flatnonzero(heavy)
    out = [np.empty(0, dtype=np.int64)]
    step = max(1, 2**24 // n)
    for lo in range(0, users.size, step):
        block = users[lo : lo + step]
        order = np.argsort(np.log(rng.random((block.size, n))) / weight, axis=1)[:, ::-1]
        for row, u in enumerate(block):
            out.append(u * n + order[row, : counts[u]])
    return np.concatenate(out)


def gini(x: np.ndarray) -> float:
    """The Gini coefficient of non-negative counts: Σ_i (2i − n − 1) x_(i) / (n Σ x), x sorted."""
    x = np.sort(np.asarray(x, dtype=np.float64))
    return float((2 * np.arange(1, x.size + 1) - x.size - 1) @ x / (x.size * x.sum()))


def statistics(X: sp.csr_matrix) -> dict[str, float]:
    """Shape and distribution statistics of a users × items matrix's stored entries."""
    X = sp.csr_matrix(X)
    act = np.diff(X.indptr)
    pop = np.bincount(X.indices, minlength=X.shape[1])
    top = np.sort(pop)[::-1][: max(1, pop.size // 100)]
    return {
        "users": X.shape[0], "items": X.shape[1], "nnz": X.nnz, "density": X.nnz / (X.shape[0] * X.shape[1]),
        "gini activity": gini(act), "gini popularity": gini(pop), "mean activity": float(act.mean()),
        "median activity": float(np.median(act)), "min activity": int(act.min()), "max activity": int(act.max()),
        "max popularity": int(pop.max()), "top 1 % items' share": float(top.sum() / pop.sum()),
    }  # fmt: skip


def real_data(args: argparse.Namespace) -> dict[str, sp.csr_matrix]:
    """ML-100K and Last.fm HetRec 2K (every interaction), those that are found."""
    from ratkit.datasets import load_lastfm, load_movielens

    out = {}
    for name, path, load in (("ML-100K", args.ml100k, load_movielens), ("Last.fm 2K", args.lastfm, load_lastfm)):
        if os.path.exists(path):
            out[name] = sp.csr_matrix(load(path).matrix)
        else:
            say(f"{name} not found at {path!r}: its statistics are left out")
    return out


# ------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    """How to build one model from (factors, epochs, seed), what its table row says, and whether it
    learns from ratings (then fitted on :func:`with_ratings`' values)."""

    build: Callable[[int, int, int], Any]
    label: str
    ratings: bool = False


#: ML-100K's share of the ratings 1 … 5 (6 110, 11 370, 27 145, 34 174, 21 201 of 100 000)
RATING_SHARES = (0.0611, 0.1137, 0.27145, 0.34174, 0.21201)


def with_ratings(X: sp.csr_matrix, seed: int) -> sp.csr_matrix:
    """X's pattern with ratings 1 … 5 drawn independently at ML-100K's shares: the explicit models
    (CCCF, DCF) refuse one-class data, where every stored value is equal. Only their costs are
    measured on it."""
    shares = np.asarray(RATING_SHARES)
    values = np.random.default_rng(seed).choice(np.arange(1.0, 6.0), size=X.nnz, p=shares / shares.sum())
    return sp.csr_matrix((values, X.indices, X.indptr), shape=X.shape)


def _fism(sgd: str) -> Callable[[int, int, int], Any]:
    def build(f: int, e: int, s: int) -> Any:
        from ratkit.recsys import FISM

        return FISM(n_factors=f, n_epochs=e, random_state=s, sgd=sgd)

    return build


def _tjsl(sgd: str, rounds: int) -> Callable[[int, int, int], Any]:
    """TJSL with ``rounds`` rounds of ``epochs`` epochs each."""

    def build(f: int, e: int, s: int) -> Any:
        from ratkit.recsys import TJSL

        return TJSL(n_factors=f, n_epochs=e, n_rounds=rounds, n_average=1, random_state=s, sgd=sgd)

    return build


def _mfauc(factors: int, epochs: int, seed: int) -> Any:
    """MFAUC with exactly ``epochs`` iterations (tol = 0: no early stop)."""
    from ratkit.recsys import MFAUC

    return MFAUC(n_factors=factors, max_iter=epochs, tol=0.0, random_state=seed)


def _codes(kind: str, feedback: str) -> Callable[[int, int, int], Any]:
    """CCCF at its default code shape (8 components of 8 bits) or DCF with ``factors`` bits, both with
    exactly ``epochs`` outer iterations (tol = 0), ``feedback`` explicit (the papers' model, on the 0/1
    data with ``rating_scale=(0.5, 1)``: every stored entry is the top rating; a scale must lie above 0) or implicit."""

    def build(f: int, e: int, s: int) -> Any:
        from ratkit.recsys import CCCF, DCF

        if kind == "cccf":
            return CCCF(max_iter=e, tol=0.0, random_state=s, feedback=feedback)
        return DCF(n_bits=f, max_iter=e, tol=0.0, random_state=s, feedback=feedback)

    return build


def _baseline(kind: str) -> Callable[[int, int, int], Any]:
    def build(f: int, e: int, s: int) -> Any:
        from ratkit.recsys import Popularity, PureSVD

        return Popularity() if kind == "popularity" else PureSVD(n_factors=f, random_state=s)

    return build


class _Implicit:
    """implicit's CPU model behind ``fit(csr)`` and ``recommend``, one thread."""

    def __init__(self, kind: str, f: int, e: int, s: int) -> None:
        from implicit.cpu.als import AlternatingLeastSquares
        from implicit.cpu.bpr import BayesianPersonalizedRanking

        cls = BayesianPersonalizedRanking if kind == "bpr" else AlternatingLeastSquares
        self.model = cls(factors=f, iterations=e, num_threads=1, random_state=s)

    def fit(self, X: sp.csr_matrix) -> Any:
        self.model.fit(sp.csr_matrix(X, dtype=np.float32), show_progress=False)
        return self

    def recommend(self, userid: Any, user_items: sp.csr_matrix, N: int = 10) -> Any:
        return self.model.recommend(userid, user_items, N=N)


MODELS: dict[str, Model] = {
    "popularity": Model(_baseline("popularity"), "Popularity"),
    "puresvd": Model(_baseline("puresvd"), "PureSVD (32 factors)"),
    "mfauc": Model(_mfauc, "MFAUC (hinge, max_iter = epochs, tol = 0)"),
    "fism": Model(_fism("user"), "FISM (per-user epoch)"),
    "tjsl": Model(_tjsl("user", 1), "TJSL, no examinations, n_rounds = 1 of n_epochs = 20 (per-user epoch)"),
    "tjsl-l3": Model(_tjsl("user", 3), "TJSL, no examinations, n_rounds = 3 of n_epochs = 20 (its default; extra)"),
    "cccf": Model(_codes("cccf", "explicit"), "CCCF (8 × 8 bits, on ratings, max_iter = epochs, tol = 0)", True),
    "dcf": Model(_codes("dcf", "explicit"), "DCF (32 bits, on ratings, max_iter = epochs, tol = 0)", True),
    "cccf-implicit": Model(_codes("cccf", "implicit"), 'CCCF(feedback="implicit") (8 × 8 bits, as CCCF)'),
    "dcf-implicit": Model(_codes("dcf", "implicit"), 'DCF(feedback="implicit") (32 bits, as DCF)'),
    "bpr": Model(lambda f, e, s: _Implicit("bpr", f, e, s), "implicit BPR"),
    "als": Model(lambda f, e, s: _Implicit("als", f, e, s), "implicit ALS"),
    "fism-pair": Model(_fism("pair"), "FISM (per-pair epoch, reference)"),
    "tjsl-pair": Model(_tjsl("pair", 1), "TJSL, no examinations, L = 1 (per-pair epoch, reference)"),
}
#: what runs by default: every registered recommender (the one-class CCCF/DCF too) and implicit's
#: two; the per-pair references and TJSL's 60-epoch default only when named
DEFAULT_MODELS = [k for k in MODELS if not k.endswith("-pair") and k != "tjsl-l3"]
LABELS = {k: m.label for k, m in MODELS.items()}


def build(name: str, factors: int, epochs: int, seed: int) -> Any:
    """MODELS[name], or the registered ratkit recommender ``name`` with the factors and epochs
    its constructor accepts."""
    if name in MODELS:
        return MODELS[name].build(factors, epochs, seed)
    from ratkit.plugins import get

    cls = get("recommender", name)
    accepted = inspect.signature(cls.__init__).parameters
    given = {"n_factors": factors, "n_epochs": epochs, "random_state": seed}
    return cls(**{k: v for k, v in given.items() if k in accepted})


# ------------------------------------------------------------------------------------------
# one fit in a child process
# ------------------------------------------------------------------------------------------


def load_matrix(path: str | Path) -> sp.csr_matrix:
    """A CSR matrix saved by :func:`scipy.sparse.save_npz` (CSR) or by this bench (the same arrays)."""
    with np.load(path) as z:
        if "format" in z and z["format"].item() not in (b"csr", "csr"):
            raise ValueError(f"{path}: a {z['format'].item()!r} matrix; a CSR one (scipy.sparse.save_npz) was expected")
        return sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))


def sample_users(X: sp.csr_matrix, seed: int, size: int = 1_000) -> np.ndarray:
    """``size`` distinct users with ≥ 1 interaction (all of them if fewer), a seeded draw."""
    active = np.flatnonzero(np.diff(X.indptr))
    return np.random.default_rng(seed).choice(active, min(size, active.size), replace=False)


def time_recommend(model: Any, X: sp.csr_matrix, seed: int, batch: int) -> dict[str, float]:
    """``model.recommend(userids, X[userids], N=10)``: best of 3 for 1 000 seeded users with ≥ 1
    interaction; then every user in batches of ``batch``, one pass, total seconds (the rows are sliced
    before each clock starts)."""
    users = sample_users(X, seed)
    rows = X[users]
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        model.recommend(users, rows, N=10)
        best = min(best, time.perf_counter() - t0)
    total = 0.0
    for lo in range(0, X.shape[0], batch):
        ids = np.arange(lo, min(lo + batch, X.shape[0]))
        rows = X[ids]
        t0 = time.perf_counter()
        model.recommend(ids, rows, N=10)
        total += time.perf_counter() - t0
    return {"recommend_1000": float(best), "recommend_all": total}


def child(args: argparse.Namespace) -> int:
    """Fit ``args.child`` on the matrix in ``args.data``, then time its ``recommend``; print one JSON
    line (seconds, bytes, load averages; :mod:`bench.recsys.scale_report`)."""
    from ratkit._memory import trim_heap

    X = load_matrix(args.data[0])
    warm = generate(2_000, 200, 100, seed=1)
    if args.child in MODELS and MODELS[args.child].ratings:
        X, warm = with_ratings(X, args.seed), with_ratings(warm, 1)
    small = build(args.child, args.factors, 1, 0).fit(warm)
    small.recommend(np.arange(10), warm[:10], N=10)  # compiles (or loads) the top-k too
    del warm, small
    model = build(args.child, args.factors, args.epochs, args.seed)
    gc.collect()
    trim_heap()
    base = status("VmRSS")
    reset_peak()
    load = [os.getloadavg()[0]]
    t0 = time.perf_counter()
    model.fit(X)
    seconds = time.perf_counter() - t0
    peak = status("VmHWM")
    load.append(os.getloadavg()[0])
    out = {"seconds": seconds, "peak_growth": peak - base, "baseline": base}
    out.update(time_recommend(model, X, args.seed, args.batch))
    load.append(os.getloadavg()[0])
    matrix = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    shape = {"users": X.shape[0], "items": X.shape[1], "nnz": X.nnz}
    print(json.dumps(out | {"matrix_bytes": matrix, "factors": args.factors, "load": load} | shape))
    return 0


def run_child(name: str, path: Path, args: argparse.Namespace) -> dict[str, Any]:
    env = dict(os.environ, **{v: "1" for v in THREADS})
    cmd = [sys.executable, "-m", "bench.recsys.scale", "--child", name, "--data", str(path)]
    cmd += ["--factors", str(args.factors), "--epochs", str(args.epochs), "--seed", str(args.seed)]
    cmd += ["--batch", str(args.batch)]
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"over {args.timeout:g} s"}
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def merge(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One result from a model's repeats: the least fit and ``recommend`` seconds, the largest peak
    RSS growth, the fastest fit's loads; every repeat under ``"repeats"``. An error when none ran."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[-1]
    out = dict(min(ok, key=lambda r: r["seconds"]))
    for key in ("recommend_1000", "recommend_all"):
        out[key] = min(r[key] for r in ok)
    out["peak_growth"] = max(r["peak_growth"] for r in ok)
    return out | ({"repeats": runs} if len(runs) > 1 else {})


# ------------------------------------------------------------------------------------------


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.scale", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e5, 1e6], help="interactions (10⁵ 10⁶)")
    parser.add_argument(
        "--data",
        nargs="+",
        metavar="NPZ",
        help="matrices saved with scipy.sparse.save_npz (CSR) to use instead of generating (then --sizes is "
        "ignored; each file's nnz is its size), e.g. the 10⁷ one saved from generate(10**7, 125000, 16666, seed=0)",
    )
    parser.add_argument("--save-data", metavar="DIR", help="also save each generated matrix there (save_npz)")
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS, help=f"default: {' '.join(DEFAULT_MODELS)}")
    parser.add_argument("--factors", type=int, default=32, help="factors, DCF's bits (default 32)")
    parser.add_argument("--epochs", type=int, default=20, help="epochs / iterations (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="the data's and the models' seed (default 0)")
    parser.add_argument("--batch", type=int, default=10_000, help="users per recommend call for all users (10 000)")
    parser.add_argument("--repeats", type=int, default=1, help="runs per model and size, alternating order (1)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per child (fit + recommend)")
    parser.add_argument("--json", metavar="FILE", help="also write the results there")
    parser.add_argument("--ml100k", default=DEFAULT_ML, help=f"MovieLens 100K folder (default {DEFAULT_ML})")
    parser.add_argument("--lastfm", default=DEFAULT_LASTFM, help=f"Last.fm HetRec 2K folder (default {DEFAULT_LASTFM})")
    parser.add_argument(
        "--child", metavar="MODEL", help="fit and time MODEL once in this process on the one --data matrix; "
        "print one JSON line (what each child run does)"
    )  # fmt: skip
    args = parser.parse_args(argv)
    unknown = [name for name in args.models + [args.child or "popularity"] if name not in MODELS]
    if unknown:
        from ratkit.plugins import available

        registered = available("recommender")
        if bad := [name for name in unknown if name not in registered]:
            parser.error(
                f"unknown model(s) {', '.join(bad)}: expected one of the bench's {', '.join(MODELS)} or a "
                f"registered recommender ({', '.join(registered)})"
            )
    if args.child and (not args.data or len(args.data) != 1):
        parser.error("--child needs one --data matrix")
    if not args.data:
        for s in args.sizes:
            if int(s) not in SIZES:
                parser.error(f"--sizes {s:g}: one of {', '.join(f'{k:g}' for k in SIZES)} (the issue's shapes)")
    return args


def matrices(args: argparse.Namespace, tmp: str) -> Iterator[tuple[int, Path, sp.csr_matrix]]:
    """(nnz, a saved file, the matrix) per size: --data's files, or generated at --sizes."""
    for path in args.data or []:
        X = load_matrix(path)
        say(f"read {path}: {X.nnz:g} interactions, {X.shape[0]} × {X.shape[1]}")
        yield X.nnz, Path(path), X
    for nnz in [] if args.data else [int(s) for s in args.sizes]:
        m, n = SIZES[nnz]
        t0 = time.perf_counter()
        X = generate(nnz, m, n, args.seed)
        say(f"generated {nnz:g} interactions, {m} × {n}, in {time.perf_counter() - t0:.1f} s")
        path = Path(args.save_data or tmp) / f"x{nnz}-seed{args.seed}.npz"
        sp.save_npz(path, X, compressed=False)
        yield nnz, path, X


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.child:
        return child(args)
    from bench.recsys.cccf import machine

    print(machine() + "\n")
    print(f"Generator: {Shape()}; seed {args.seed}. Fits: {args.factors} factors, {args.epochs} epochs, one thread.\n")
    stats: dict[str, dict[str, float]] = {}
    results: Results = {name: {} for name in args.models}
    sizes = []
    with tempfile.TemporaryDirectory(prefix="ratkit-scale-") as tmp:
        for nnz, path, X in matrices(args, tmp):
            sizes.append(nnz)
            stats[f"synthetic {nnz:.0e}"] = statistics(X)
            del X
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in args.models}
            for rep in range(args.repeats):
                for name in args.models[:: 1 if rep % 2 == 0 else -1]:
                    r = run_child(name, path, args)
                    runs[name].append(r)
                    results[name][nnz] = merge(runs[name])
                    done = "error" not in r
                    say(f"  {name} at {nnz:g}: " + (f"{r['seconds']:.2f} s, load {r['load']}" if done else r["error"]))
                    if args.json:  # after every fit, so that an interrupted run keeps what it measured
                        Path(args.json).write_text(json.dumps({"stats": stats, "results": results}, indent=1))
    for name, X in real_data(args).items():
        stats[name] = statistics(X)
    print("### Data\n")
    print_statistics(stats)
    print_fits(results, sizes, LABELS)
    print_recommend(results, sizes, LABELS)
    print_estimate(results, sizes[-1], LABELS)
    say("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
