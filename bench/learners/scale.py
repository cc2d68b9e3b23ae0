"""Sequence learning at scale (issue 37): RationalSVC against CountVectorizer + LinearSVC on n windows.

The corpus (:func:`windows`, seeded, part of the bench): every Reuters-21578 story of every
split (ModApte train and test and the unused ones) whose body — lower-cased by the loader,
whitespace runs collapsed to one space as CountVectorizer's char analyzer does — has at least
300 characters; n stories drawn with replacement (``numpy.random.default_rng(seed)``), from
each a 300-character window at a uniformly drawn offset; label +1 when the story has the
topic ``acq``, else −1.

Two routes, each fit in its own fresh process (``python -m bench.learners.scale --child``),
one thread (OPENBLAS/OMP/NUMBA/MKL_NUM_THREADS=1 set before any import), C = 1, tol = 1e-3,
max_iter = 1000, no intercept:

* ``RationalSVC(cosine(ngram(5)), representation="trie", fit_intercept=False)``;
* ``CountVectorizer(analyzer="char", ngram_range=(5, 5), lowercase=False)`` + ``normalize`` +
  ``LinearSVC(loss="hinge", dual=True, fit_intercept=False)``.

Two more routes use feature hashing (``--bits``: the k of 2^k buckets, default 18 20 22):

* ``ratkit-hashed``: ``RationalSVC(cosine(ngram(5)), representation="trie", n_features=2**k)``
  (the hashed kernel's cosine: rows normalised after hashing);
* ``sklearn-hashed``: ``HashingVectorizer(analyzer="char", ngram_range=(5, 5), n_features=2**k,
  alternate_sign=True, norm="l2", lowercase=False)`` + the same LinearSVC.

Held-out accuracy: a tenth of the stories (a seeded permutation, :func:`split_stories`) is kept
apart; the n training windows are drawn from the other stories, and ``--heldout`` (default 10 000)
windows from the kept ones with the next seed, so no held-out window shares text with training.

Each child builds the corpus, runs a warm-up fit on 1000 windows (numba's cached code loaded,
imports done; numba compiles what the warm-up does not reach, e.g. the active-set cache, on its
first use and caches it on disk: run twice on a fresh checkout), hands freed memory back
(``malloc_trim``) and reads its resident set (VmRSS): the *baseline*. Every stage then runs with the
high-water mark VmHWM reset before it (5 written to ``/proc/self/clear_refs``) and read after it: a
stage's *peak growth* is its VmHWM minus the baseline, its *held* the VmRSS after it minus the
baseline (glibc keeps some freed memory, so "held" is an upper bound). A route's peak RSS growth is
the largest VmHWM of the fit's stages and of the time between them, minus the baseline (not
ru_maxrss: parsing the SGML files before the baseline may have set it higher). Stages, ratkit (the
fit's own code, wrapped in place, nothing changed): extraction (the COO triplets of the windows'
5-grams), vocabulary (sorted codes → CSR), cosine (unit rows), W′ build (trie count, CSR arrays as
int64, indexed rows), DCD passes, then predict (training accuracy); scikit-learn: vectorize,
normalize, fit, predict (transform + normalize + predict). Time not inside a stage is reported as
"other". The hashed routes: ratkit's stages are extraction, vocabulary (of each window's own
patterns), buckets (each pattern's bucket and sign), W′ build, DCD, predict (training accuracy)
and heldout (held-out accuracy); scikit-learn's are vectorize (hash and normalise), fit, predict and
heldout.

Run from the repository root::

    .venv/bin/python -m bench.learners.scale --n 10000 40000 160000 --json scale.json
    .venv/bin/python -m bench.learners.scale --n 40000 --routes ratkit-hashed sklearn-hashed --bits 18 20
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from bench.process_memory import reset_peak, status  # noqa: E402

DEFAULT_DATA = os.path.join("..", "shared", "data", "reuters21578")
WIDTH = 300
LABEL = "acq"
C, TOL, MAX_ITER = 1.0, 1e-3, 1000
MiB = 2**20
WARMUP = 1000
HELDOUT_FRACTION = 0.1
RATKIT_STAGES = ("extraction", "vocabulary", "cosine", "wprime_build", "dcd", "predict", "heldout")
SKLEARN_STAGES = ("vectorize", "normalize", "fit", "predict", "heldout")
RATKIT_HASHED_STAGES = ("extraction", "vocabulary", "buckets", "wprime_build", "dcd", "predict", "heldout")
SKLEARN_HASHED_STAGES = ("vectorize", "fit", "predict", "heldout")
ROUTES = ("ratkit", "sklearn", "ratkit-hashed", "sklearn-hashed")
STAGES = dict(zip(ROUTES, (RATKIT_STAGES, SKLEARN_STAGES, RATKIT_HASHED_STAGES, SKLEARN_HASHED_STAGES)))


# -- the corpus --------------------------------------------------------------------------------
def stories(path: str) -> tuple[list[str], np.ndarray]:
    """(bodies, labels ±1) of every Reuters-21578 story with a body of ≥ WIDTH characters."""
    from ratkit.datasets import load_reuters

    bodies, labels = [], []
    for d in load_reuters(path):
        body = re.sub(r"\s\s+", " ", d.body)
        if len(body) >= WIDTH:
            bodies.append(body)
            labels.append(1 if LABEL in d.topics else -1)
    return bodies, np.array(labels)


def windows(bodies: list[str], labels: np.ndarray, n: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """n windows of WIDTH characters: stories drawn with replacement, offsets uniform, one generator."""
    rng = np.random.default_rng(seed)
    pick = rng.integers(len(bodies), size=n)
    lengths = np.array([len(b) for b in bodies])
    offsets = rng.integers(0, lengths[pick] - WIDTH + 1)
    return [bodies[i][o : o + WIDTH] for i, o in zip(pick.tolist(), offsets.tolist())], labels[pick]


def split_stories(
    bodies: list[str], labels: np.ndarray, seed: int = 0
) -> tuple[tuple[list[str], np.ndarray], tuple[list[str], np.ndarray]]:
    """((training bodies, labels), (held-out bodies, labels)): HELDOUT_FRACTION of the stories,
    chosen by a seeded permutation, kept apart for the held-out windows."""
    order = np.random.default_rng([seed, 37]).permutation(len(bodies))
    cut = int(round(HELDOUT_FRACTION * len(bodies)))
    held, train = np.sort(order[:cut]), np.sort(order[cut:])
    return ([bodies[i] for i in train], labels[train]), ([bodies[i] for i in held], labels[held])


# -- memory ------------------------------------------------------------------------------------
class Stages:
    """Seconds, peak growth and held memory (MB over the baseline) of each stage, in run order."""

    def __init__(self) -> None:
        self.baseline = status("VmRSS")
        self.t_start = time.perf_counter()
        self.records: dict[str, dict[str, float]] = {}
        self.other_peak = 0
        self.active = False
        reset_peak()

    def run(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.active:  # a stage inside a stage: counted in the outer one
            return fn(*args, **kwargs)
        self.other_peak = max(self.other_peak, status("VmHWM"))  # the gap before it
        reset_peak()
        self.active = True
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            seconds = time.perf_counter() - t0
            self.active = False
            r = self.records.setdefault(name, {"seconds": 0.0, "peak_mb": 0.0, "held_mb": 0.0})
            r["seconds"] += seconds
            r["peak_mb"] = max(r["peak_mb"], (status("VmHWM") - self.baseline) / MiB)
            r["held_mb"] = (status("VmRSS") - self.baseline) / MiB
            reset_peak()

    def wrap(self, owner: Any, attr: str, name: str, static: bool = False) -> None:
        fn = getattr(owner, attr)

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            return self.run(name, fn, *args, **kwargs)

        setattr(owner, attr, staticmethod(wrapped) if static else wrapped)

    def summary(self, total: float) -> dict[str, Any]:
        staged = sum(r["seconds"] for r in self.records.values())
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return {
            "baseline_mb": self.baseline / MiB,
            "ru_maxrss_growth_mb": (peak - self.baseline) / MiB,  # the loading of the corpus may set it
            "other_seconds": total - staged,
            "other_peak_mb": (max(self.other_peak, status("VmHWM")) - self.baseline) / MiB,
            "stages": self.records,
        }


# -- the routes, each in a child -----------------------------------------------------------------
def _ratkit_model(bits: int | None = None):
    from ratkit.automata import kernels
    from ratkit.learners import RationalSVC

    k = kernels.cosine(kernels.ngram(5))
    hashed = {} if bits is None else {"n_features": 2**bits}
    return RationalSVC(
        k, C=C, tol=TOL, max_iter=MAX_ITER, representation="trie", fit_intercept=False, random_state=0, **hashed
    )


def _sklearn_parts(bits: int | None = None):
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
    from sklearn.svm import LinearSVC

    if bits is None:
        vec = CountVectorizer(analyzer="char", ngram_range=(5, 5), lowercase=False)
    else:
        vec = HashingVectorizer(
            analyzer="char", ngram_range=(5, 5), n_features=2**bits, alternate_sign=True, norm="l2", lowercase=False
        )
    svm = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C, tol=TOL, max_iter=MAX_ITER, random_state=0)
    return vec, svm


def _warm_up(route: str, X: list[str], y: np.ndarray, bits: int | None) -> None:
    from sklearn.preprocessing import normalize

    if route.startswith("ratkit"):
        _ratkit_model(bits).fit(X[:WARMUP], y[:WARMUP]).predict(X[:WARMUP])
    else:
        vec, svm = _sklearn_parts(bits)
        F = vec.fit_transform(X[:WARMUP])
        F = normalize(F) if bits is None else F
        svm.fit(F, y[:WARMUP]).predict(F)


def child(route: str, data: str, n: int, seed: int, bits: int | None = None, heldout: int = 10_000) -> dict[str, Any]:
    """Time, peak RSS and accuracies of one route on n training windows, measured in this process."""
    from ratkit._memory import trim_heap

    (bodies, labels), (held_bodies, held_labels) = split_stories(*stories(data), seed)
    X, y = windows(bodies, labels, n, seed)
    Xh, yh = windows(held_bodies, held_labels, heldout, seed + 1)
    del bodies, held_bodies
    bits = bits if route.endswith("-hashed") else None
    t0 = time.perf_counter()
    _warm_up(route, X, y, bits)
    warmup = time.perf_counter() - t0
    trim_heap()
    out: dict[str, Any] = {
        "route": route,
        "n": n,
        "bits": bits,
        "positives": int((y > 0).sum()),
        "warmup_seconds": warmup,
    }
    out["heldout_n"], out["heldout_positives"] = len(Xh), int((yh > 0).sum())
    run = _ratkit_child if route.startswith("ratkit") else _sklearn_child
    out.update(run(X, y, Xh, yh, bits))
    return out


def _ratkit_child(X: list[str], y: np.ndarray, Xh: list[str], yh: np.ndarray, bits: int | None) -> dict[str, Any]:
    from ratkit.automata.kernels import algebra, rational
    from ratkit.learners.svm import hashing
    from ratkit.learners.svm._base import DualSVCBase
    from ratkit.learners.wprime import _trie

    st = Stages()
    # every class of the ngram family shares RationalKernel._raw_features
    st.wrap(rational.RationalKernel, "_raw_features", "extraction")
    st.wrap(rational, "vocabulary_matrix", "vocabulary")
    st.wrap(algebra, "unit_rows", "cosine")
    st.wrap(hashing, "feature_map_buckets", "buckets")
    st.wrap(DualSVCBase, "_train", "dcd")
    sizes: dict[str, Any] = {}
    build = _trie.IndexedRows.from_csr

    def from_csr(indptr, cols, values, n_cols, bias=0.0):
        sizes.update(nnz=int(cols.shape[0]), n_features=int(n_cols), cols_dtype=str(cols.dtype))
        return build(indptr, cols, values, n_cols, bias)

    _trie.IndexedRows.from_csr = from_csr  # type: ignore[method-assign]  # measurement only
    # W′ build on its own: the three feature stages run inside TrieWPrime.build
    _trie.TrieWPrime.build = classmethod(_split_build(st, _trie))  # type: ignore[method-assign,assignment]
    m = _ratkit_model(bits)
    t = time.perf_counter()
    m.fit(X, y)
    fit = time.perf_counter() - t
    acc = float(np.mean(st.run("predict", m.predict, X) == y))
    held = float(np.mean(st.run("heldout", m.predict, Xh) == yh))
    out = st.summary(time.perf_counter() - t)
    out.update(
        fit_seconds=fit,
        train_accuracy=acc,
        heldout_accuracy=held,
        passes=int(m.n_iter_),
        converged=bool(m.converged_),
        fit_time_=m.fit_time_,
        **sizes,
    )
    return out


def _sklearn_child(X: list[str], y: np.ndarray, Xh: list[str], yh: np.ndarray, bits: int | None) -> dict[str, Any]:
    from sklearn.preprocessing import normalize

    st = Stages()
    vec, svm = _sklearn_parts(bits)
    t = time.perf_counter()
    if bits is None:
        counts = st.run("vectorize", vec.fit_transform, X)
        F = st.run("normalize", normalize, counts)
        del counts

        def features(Z: list[str]) -> Any:
            return normalize(vec.transform(Z))
    else:
        F = st.run("vectorize", vec.fit_transform, X)
        features = vec.transform
    st.run("fit", svm.fit, F, y)
    fit = time.perf_counter() - t
    nnz, p, idx = int(F.nnz), int(F.shape[1]), str(F.indices.dtype)
    used = int(np.unique(F.indices).shape[0]) if bits is not None else p
    del F
    pred = st.run("predict", lambda: svm.predict(features(X)))
    held = st.run("heldout", lambda: svm.predict(features(Xh)))
    out = st.summary(time.perf_counter() - t)
    out.update(
        fit_seconds=fit,
        train_accuracy=float(np.mean(pred == y)),
        heldout_accuracy=float(np.mean(held == yh)),
        passes=int(np.max(svm.n_iter_)),
        nnz=nnz,
        n_features=used,
        cols_dtype=idx,
    )
    return out


def _split_build(st: Stages, trie: Any) -> Callable[..., Any]:
    """TrieWPrime.build with its own work (trie count, CSR arrays, indexed rows) as the stage
    "wprime_build" and primal_inputs (extraction, vocabulary, cosine) outside it."""
    primal_inputs, count, csr_arrays = trie.primal_inputs, trie.PatternTrie.count_states, trie.csr_own_arrays

    def build(cls: Any, data: Any) -> Any:
        inputs = primal_inputs(data)
        if inputs is None:
            return None

        def rest() -> Any:
            states = count(inputs.patterns, inputs.base)
            indptr, cols, values = csr_arrays(inputs.F)
            rows = trie.IndexedRows.from_csr(indptr, cols, values, inputs.F.shape[1], data.bias)
            return cls(rows, inputs.vocabulary, states, trie.cache_capacity(data.cache_size, data.n_samples))

        return st.run("wprime_build", rest)

    return build


def run_child(
    route: str, data: str, n: int, seed: int, bits: int | None = None, heldout: int = 10_000
) -> dict[str, Any]:
    env = dict(os.environ)
    env.update({v: "1" for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MKL_NUM_THREADS")})
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        cmd = [sys.executable, "-m", "bench.learners.scale", "--child", route, "--data", data]
        cmd += ["--n", str(n), "--seed", str(seed), "--heldout", str(heldout), "--json", tmp.name]
        cmd += [] if bits is None else ["--bits", str(bits)]
        subprocess.run(cmd, check=True, env=env)
        with open(tmp.name) as fh:
            return json.load(fh)


def route_key(route: str, bits: int | None) -> str:
    """The key of a route's result in a row: its name, with ``@k`` for 2^k hashed buckets."""
    return route if bits is None else f"{route}@{bits}"


# -- report ------------------------------------------------------------------------------------
def fit_peak(res: dict[str, Any]) -> float:
    """Peak RSS growth of the fit, MB: the largest VmHWM of its stages and of the time between them
    (ru_maxrss is no use: the parsing of the SGML files before the baseline may have set it)."""
    fit = [s["peak_mb"] for k, s in res["stages"].items() if k not in ("predict", "heldout")]
    return max([res["other_peak_mb"], *fit])


def report(rows: list[dict[str, Any]]) -> str:
    """The exact routes' table (ratkit against scikit-learn, where a row has both), every route's
    time, memory and accuracy side by side, and the stages of each route."""
    out: list[str] = []
    pairs = [r for r in rows if "ratkit" in r and "sklearn" in r]
    if pairs:
        out += [
            "| n | ratkit fit s | sklearn fit s | ratio | ratkit peak RSS growth MB | sklearn's | ratio | "
            "train acc. ratkit | sklearn | nnz | features | passes ratkit, sklearn |",
            "|" + "---|" * 12,
        ]
        for r in pairs:
            a, b = r["ratkit"], r["sklearn"]
            pa, pb = fit_peak(a), fit_peak(b)
            out.append(
                f"| {r['n']:,} | {a['fit_seconds']:.2f} | {b['fit_seconds']:.2f} | "
                f"{a['fit_seconds'] / b['fit_seconds']:.2f} | {pa:,.0f} | {pb:,.0f} | {pa / pb:.2f} | "
                f"{100 * a['train_accuracy']:.2f} | {100 * b['train_accuracy']:.2f} | "
                f"{a['nnz']:,} | {a['n_features']:,} | {a['passes']}, {b['passes']} |"
            )
        out.append("")
    out += [
        "Every route: fit s / fit peak RSS growth MB; predict (training windows) s / peak MB; held-out predict "
        "s / peak MB; accuracies %; ratio: ratkit over the scikit-learn route with the same features",
        "",
        "| n | route | fit s | fit peak MB | predict s | predict peak MB | held-out s | held-out peak MB | "
        "train acc. | held-out acc. | nnz | features | passes | fit time ratio | fit peak ratio | predict peak ratio |",
        "|" + "---|" * 16,
    ]
    for r in rows:
        for key in sorted((k for k in r if k != "n"), key=_route_order):
            a = r[key]
            st = a["stages"]
            pred, held = st.get("predict", {}), st.get("heldout", {})
            ref = r.get(key.replace("ratkit", "sklearn")) if key.startswith("ratkit") else None
            ratios = ["–"] * 3
            if ref is not None:
                ratios = [
                    f"{a['fit_seconds'] / ref['fit_seconds']:.2f}",
                    f"{fit_peak(a) / fit_peak(ref):.2f}",
                    f"{pred.get('peak_mb', 0) / max(ref['stages'].get('predict', {}).get('peak_mb', 0), 1e-9):.2f}",
                ]
            out.append(
                f"| {r['n']:,} | {key} | {a['fit_seconds']:.2f} | {fit_peak(a):,.0f} | "
                f"{pred.get('seconds', 0):.2f} | {pred.get('peak_mb', 0):,.0f} | "
                f"{held.get('seconds', 0):.2f} | {held.get('peak_mb', 0):,.0f} | {100 * a['train_accuracy']:.2f} | "
                f"{100 * a.get('heldout_accuracy', float('nan')):.2f} | {a['nnz']:,} | {a['n_features']:,} | "
                f"{a['passes']} | " + " | ".join(ratios) + " |"
            )
    out += growth(rows)
    out += ["", "Per stage: seconds / peak growth MB / held after it MB (over the child's baseline RSS)", ""]
    for route in ROUTES:
        keys = sorted({k for r in rows for k in r if k != "n" and k.split("@")[0] == route}, key=_route_order)
        if not keys:
            continue
        names = STAGES[route]
        out.append(f"| {route}: n | " + " | ".join(names) + " | other s | baseline MB |")
        out.append("|" + "---|" * (len(names) + 3))
        for r in rows:
            for key in keys:
                if key not in r:
                    continue
                s = r[key]["stages"]
                cells = [
                    f"{s[k]['seconds']:.2f} / {s[k]['peak_mb']:,.0f} / {s[k]['held_mb']:,.0f}" if k in s else "–"
                    for k in names
                ]
                label = f"{r['n']:,}" + (f" (2^{key.split('@')[1]})" if "@" in key else "")
                out.append(
                    f"| {label} | " + " | ".join(cells) + f" | {r[key]['other_seconds']:.2f} | "
                    f"{r[key]['baseline_mb']:,.0f} |"
                )
        out.append("")
    return "\n".join(out)


def growth(rows: list[dict[str, Any]]) -> list[str]:
    """Least-squares exponents b of cost ≈ a · n^b (log-log) per route over the n it ran at (≥ 3),
    and its cost per window at its largest n: how time and memory grow."""
    keys = sorted({k for r in rows for k in r if k != "n"}, key=_route_order)
    out = [
        "",
        "Growth, cost ≈ a · n^b fitted on log-log (least squares) over the n each route ran at; per window at the "
        "largest n",
        "",
        "| route | n | b fit time | b fit peak | b predict time | b predict peak | fit µs/window | fit peak B/window |",
        "|" + "---|" * 8,
    ]
    for key in keys:
        runs = [r[key] for r in rows if key in r]
        if len(runs) < 3:
            continue
        n = np.log([a["n"] for a in runs])
        series = [
            [a["fit_seconds"] for a in runs],
            [fit_peak(a) for a in runs],
            [a["stages"]["predict"]["seconds"] for a in runs],
            [a["stages"]["predict"]["peak_mb"] for a in runs],
        ]
        b = [float(np.polyfit(n, np.log(np.maximum(v, 1e-9)), 1)[0]) for v in series]
        last = runs[-1]
        out.append(
            f"| {key} | {runs[0]['n']:,}–{last['n']:,} | " + " | ".join(f"{x:.2f}" for x in b) + " | "
            f"{1e6 * last['fit_seconds'] / last['n']:.1f} | {fit_peak(last) * MiB / last['n']:,.0f} |"
        )
    return out


def _route_order(key: str) -> tuple[int, int]:
    route, _, bits = key.partition("@")
    return (int(bits or 0), ROUTES.index(route))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.learners.scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help=f"Reuters-21578 folder (default {DEFAULT_DATA})")
    p.add_argument("--n", type=int, nargs="+", default=[10_000, 40_000], help="numbers of windows (default 10⁴ 4·10⁴)")
    p.add_argument("--seed", type=int, default=0, help="seed of the window generator (default 0)")
    p.add_argument("--routes", nargs="+", default=["ratkit", "sklearn"], choices=ROUTES)
    p.add_argument(
        "--bits", type=int, nargs="+", default=[18, 20, 22], help="hashed routes: 2^k buckets (default 18 20 22)"
    )
    p.add_argument("--heldout", type=int, default=10_000, help="held-out windows (default 10 000)")
    p.add_argument("--json", default=None, help="also write every measurement to this JSON file")
    p.add_argument(
        "--report", default=None, nargs="+", metavar="JSON", help="only print the tables of JSON files written before"
    )
    p.add_argument("--child", default=None, choices=ROUTES, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        res = child(args.child, args.data, args.n[0], args.seed, args.bits[0], args.heldout)
        with open(args.json, "w") as fh:
            json.dump(res, fh, indent=1)
        return 0
    if args.report:
        print(report(merge_rows(args.report)))
        return 0
    from bench.scale import context

    print(f"# {context()}; one thread per fit, each in its own process", flush=True)
    rows = []
    for n in args.n:
        row: dict[str, Any] = {"n": n}
        for route in args.routes:
            for bits in args.bits if route.endswith("-hashed") else [None]:
                key = route_key(route, bits)
                row[key] = run_child(route, args.data, n, args.seed, bits, args.heldout)
                print(f"n={n} {key}: " + json.dumps(row[key]), flush=True)
        rows.append(row)
    print(report(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"context": context(), "seed": args.seed, "rows": rows}, fh, indent=1)
    return 0


def merge_rows(paths: list[str]) -> list[dict[str, Any]]:
    """The rows of several JSON files, those of the same n merged (a later file's route wins)."""
    by_n: dict[int, dict[str, Any]] = {}
    for path in paths:
        with open(path) as fh:
            for row in json.load(fh)["rows"]:
                by_n.setdefault(row["n"], {"n": row["n"]}).update(row)
    return [by_n[n] for n in sorted(by_n)]


if __name__ == "__main__":
    sys.exit(main())
