"""Reuters-21578 (ModApte): RationalSVC against LIBLINEAR, precomputed-Gram SMO and per-pair SMO.

For n = 4..7 and the 10 most frequent categories (one-vs-rest, binary per category),
with the cosine-normalised character n-gram kernel and C = 1, every classifier is trained
*end to end* — from the story bodies, feature extraction included — and scored on the
ModApte test stories:

* ``RationalSVC`` (Algorithm 4) with W′ as a trie and as a minimal automaton; the naive
  ε-union W′ is timed on a sample of gradients and extrapolated;
* ``CountVectorizer(analyzer="char", ngram_range=(n, n))`` + L2 normalisation +
  ``LinearSVC(loss="hinge", dual=True)`` — LIBLINEAR's DCD, the physical-limit reference;
* ``SVC(kernel="precomputed")`` on the Gram matrix from ratkit's fastest kernel path
  (the matrix is computed once per n and its time charged to every category);
* per-pair transducer SMO (the seed's "SMO-like" column): the time of one kernel value
  by composing X ∘ S ∘ Y, measured on a sample of pairs, times the l(l + 1)/2 values a
  full-cache SMO needs at least.

Both LIBLINEAR and RationalSVC learn a bias by augmentation (x ← [x, 1]), so they solve
the same problem; the primal objectives are compared on the same explicit features.
Story bodies are lower-cased (the loader) and their whitespace runs collapsed to one
space (what CountVectorizer's char analyzer does), so both sides see the same strings.

Wall-clock times are single runs unless ``--repeat R`` asks for the best of R runs of
every timed fit and Gram matrix (the automaton's fits, minutes each, run once); the best
of a few runs damps this machine's noise the same way for every method.

Run from the repository root::

    .venv/bin/python -m bench.learners.reuters --data ../shared/data/reuters21578 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import accuracy_score, f1_score
from sklearn.preprocessing import normalize
from sklearn.svm import SVC, LinearSVC

from ratkit.automata import kernels
from ratkit.datasets import reuters_modapte
from ratkit.learners import RationalSVC
from ratkit.learners.wprime import NaiveUnion

CATEGORIES = ("acq", "earn", "crude", "grain", "money-fx", "interest", "trade", "ship", "wheat", "corn")
DEFAULT_DATA = os.path.join("..", "shared", "data", "reuters21578")
C = 1.0


def _bodies(docs) -> list[str]:
    return [re.sub(r"\s\s+", " ", d.body) for d in docs]


def _primal(coef: np.ndarray, b: float, margins: np.ndarray) -> float:
    """½(‖w‖² + b²) + C Σ max(0, 1 − margin): the augmented problem both solvers optimise."""
    return 0.5 * (float(coef @ coef) + b * b) + C * float(np.maximum(0.0, 1.0 - margins).sum())


def _scores(y_true, y_pred) -> tuple[float, float]:
    return float(accuracy_score(y_true, y_pred)), float(f1_score(y_true, y_pred, pos_label=1))


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """(the least wall-clock seconds of ``repeat`` calls of fn, that fastest call's result, so
    that a model's own stage times add up to the seconds reported)."""
    best, out = np.inf, None
    for _ in range(max(int(repeat), 1)):
        t0 = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - t0
        if seconds < best:
            best, out = seconds, result
    return best, out


def run_liblinear(n: int, Xtr, Xte, y, yte, repeat: int = 1) -> dict[str, Any]:
    def fit():
        vec = CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False)
        F = normalize(vec.fit_transform(Xtr))
        return vec, F, LinearSVC(loss="hinge", dual=True, C=C, max_iter=10_000).fit(F, y)

    seconds, (vec, F, svm) = best_of(repeat, fit)
    Cte = vec.transform(Xte)
    acc, f1 = _scores(yte, svm.predict(normalize(Cte)))
    # The same w on the test features RationalSVC and the Gram SVC see: divided by the
    # full norm √K(x, x), n-grams unseen in training included (normalize() after
    # transform() divides by the norm of the seen n-grams only).
    full = CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False).fit_transform(Xte)
    norms = np.sqrt(np.asarray(full.multiply(full).sum(axis=1)).ravel())
    Fte = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ Cte
    acc_same, f1_same = _scores(yte, svm.predict(Fte))
    margins = y * (F @ svm.coef_[0] + svm.intercept_[0])
    return {
        "seconds": seconds,
        "accuracy": acc,
        "f1": f1,
        "accuracy_same_features": acc_same,
        "f1_same_features": f1_same,
        "objective": _primal(svm.coef_[0], svm.intercept_[0], margins),
    }


def run_rational(
    n: int, representation: str, Xtr, Xte, y, yte, sizes: bool, repeat: int = 1
) -> tuple[dict[str, Any], RationalSVC]:
    k = kernels.cosine(kernels.ngram(n))
    seconds, m = best_of(
        repeat,
        lambda: RationalSVC(k, C=C, representation=representation, fit_intercept=True, random_state=0).fit(Xtr, y),
    )
    acc, f1 = _scores(yte, m.predict(Xte))
    margins = y * m.decision_function(Xtr)
    out = {
        "seconds": seconds,
        "accuracy": acc,
        "f1": f1,
        "passes": m.n_iter_,
        "converged": m.converged_,
        "objective": _primal(m.coef_[0], m.intercept_[0], margins),
        **{f"fit_{k}": v for k, v in m.fit_time_.items()},
    }
    if sizes:
        out.update(m.wprime_sizes())
    out.update({f"train_{k}": v for k, v in m.wprime_size_.items()})
    return out, m


def run_gram_svc(G: np.ndarray, Gte: np.ndarray, gram_seconds: float, y, yte, repeat: int = 1) -> dict[str, Any]:
    seconds, svc = best_of(repeat, lambda: SVC(kernel="precomputed", C=C).fit(G, y))
    acc, f1 = _scores(yte, svc.predict(Gte))
    return {"seconds": gram_seconds + seconds, "fit_seconds": seconds, "accuracy": acc, "f1": f1}


def naive_gradient_seconds(n: int, Xtr: list[str], components: int, samples: int, seed: int) -> dict[str, Any]:
    """Seconds of one gradient D(Φ′_i ⋄ W′_n), the naive ε-union, extrapolated to all l sequences.

    W′_n is built from ``components`` random training sequences (the union of all l
    feature automata would need tens of GB); the intersection visits every component, so
    its time grows with Σ_j |Φ′_j|, and is scaled by the ratio of the total number of
    states of all l feature automata to that of the sample.
    """
    import pynini

    base = kernels.ngram(n)
    alphabet = base.alphabet_for(Xtr)
    rng = np.random.RandomState(seed)
    pick = rng.choice(len(Xtr), size=min(components, len(Xtr)), replace=False)
    t0 = time.perf_counter()
    phis = [pynini.arcsort(base.feature_automaton(Xtr[i], alphabet)._fst.copy(), sort_type="olabel") for i in pick]
    per_automaton = (time.perf_counter() - t0) / len(pick)
    sample_states = sum(f.num_states() for f in phis)
    # the states of Φ′_x grow linearly with |x|: scale by the total length
    total_states = sample_states * sum(len(x) for x in Xtr) / sum(len(Xtr[i]) for i in pick)
    union = NaiveUnion(phis, np.where(np.arange(len(phis)) % 2 == 0, 1.0, -1.0))
    for j in range(len(phis)):
        union.set_weight(j, 0.5)
    times = []
    for i in rng.choice(len(phis), size=samples, replace=False):
        t = time.perf_counter()
        union.dot(phis[i])
        times.append(time.perf_counter() - t)
    return {
        "components": len(pick),
        "sample_gradient_seconds": float(np.mean(times)),
        "gradient_seconds": float(np.mean(times)) * total_states / sample_states,
        "automata_seconds": per_automaton * len(Xtr),
        "union_states": union.n_states,
        "all_states": float(total_states),
    }


def pair_composition_seconds(n: int, Xtr: list[str], samples: int, seed: int) -> float:
    """Seconds of one kernel value K(x, y) by composing X ∘ (T ∘ T⁻¹) ∘ Y (per-pair SMO)."""
    k = kernels.ngram(n, strategy="composition")
    rng = np.random.RandomState(seed)
    idx = rng.choice(len(Xtr), size=2 * samples, replace=False)
    k.transducer(k.alphabet_for(Xtr))  # build S once, outside the timing
    times = []
    for a, b in zip(idx[:samples], idx[samples:]):
        t = time.perf_counter()
        k.gram([Xtr[a]], [Xtr[b]])
        times.append(time.perf_counter() - t)
    return float(np.mean(times))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.learners.reuters", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help=f"Reuters-21578 folder (default {DEFAULT_DATA})")
    p.add_argument("--n", type=int, nargs="+", default=[4, 5, 6, 7], help="n-gram orders (default 4 5 6 7)")
    p.add_argument("--categories", nargs="+", default=list(CATEGORIES), help="categories (default: the 10 largest)")
    p.add_argument(
        "--skip", nargs="*", default=[], choices=["automaton", "gram", "naive", "smo"], help="parts to leave out"
    )
    p.add_argument("--naive-samples", type=int, default=5, help="gradients timed for the naive W′ (default 5)")
    p.add_argument(
        "--naive-components", type=int, default=200, help="training sequences in the sampled naive W′ (default 200)"
    )
    p.add_argument("--smo-pairs", type=int, default=3, help="pairs timed for per-pair SMO (default 3)")
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time every fit and Gram matrix this many times and keep the best (the automaton: once)",
    )
    p.add_argument("--json", default=None, help="also write every measurement to this JSON file")
    p.add_argument("--report", default=None, metavar="JSON", help="only print the tables of a JSON file written before")
    args = p.parse_args(argv)
    if args.report:
        with open(args.report) as fh:
            saved = json.load(fh)
        print(report(saved["results"], saved["n_train"]) if "results" in saved else report(saved, 7063))
        return 0
    warnings.simplefilter("ignore")
    t_load = time.perf_counter()
    train, test = reuters_modapte(args.data, "train"), reuters_modapte(args.data, "test")
    Xtr, Xte = _bodies(train), _bodies(test)
    print(
        f"# Reuters-21578 ModApte: {len(Xtr)} training, {len(Xte)} test stories with a body "
        f"(loaded in {time.perf_counter() - t_load:.1f} s); {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; times: best of {args.repeat}",
        flush=True,
    )
    results: dict[str, Any] = {}
    for n in args.n:
        res = results[str(n)] = {"categories": {}}
        if "gram" not in args.skip:
            k = kernels.cosine(kernels.ngram(n))
            gram_seconds, G = best_of(args.repeat, lambda: k.gram(Xtr))
            Gte = k.gram(Xte, Xtr)
            res["gram_seconds"] = gram_seconds
            print(f"n={n}: Gram matrix {G.shape} in {gram_seconds:.1f} s", flush=True)
        for cat in args.categories:
            y = np.array([1 if cat in d.topics else -1 for d in train])
            yte = np.array([1 if cat in d.topics else -1 for d in test])
            row: dict[str, Any] = {"positives": int((y > 0).sum())}
            row["liblinear"] = run_liblinear(n, Xtr, Xte, y, yte, args.repeat)
            row["trie"], _ = run_rational(n, "trie", Xtr, Xte, y, yte, sizes=True, repeat=args.repeat)
            if "automaton" not in args.skip:
                row["automaton"], _ = run_rational(n, "automaton", Xtr, Xte, y, yte, sizes=False)
            if "gram" not in args.skip:
                row["gram_svc"] = run_gram_svc(G, Gte, gram_seconds, y, yte, args.repeat)
            res["categories"][cat] = row
            print(f"n={n} {cat}: " + json.dumps({k: v for k, v in row.items()}, default=float), flush=True)
        if "naive" not in args.skip:
            res["naive"] = naive_gradient_seconds(n, Xtr, args.naive_components, args.naive_samples, seed=n)
            print(f"n={n} naive: {res['naive']}", flush=True)
        if "smo" not in args.skip:
            res["pair_seconds"] = pair_composition_seconds(n, Xtr, args.smo_pairs, seed=n)
            print(f"n={n} per-pair composition: {res['pair_seconds']:.2f} s per kernel value", flush=True)
        if "gram" in res:
            del G, Gte
    print(report(results, len(Xtr)))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"n_train": len(Xtr), "repeat": args.repeat, "results": results}, fh, indent=1, default=float)
    return 0


def _fmt_time(s: float) -> str:
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.0f} h"
    return f"{s / 86400:.0f} days"


def report(results: dict[str, Any], n_train: int) -> str:
    """The Markdown tables of RESULTS.md."""
    out = []
    out.append(
        "| n | category | pos. | LIBLINEAR s | trie s | automaton s | Gram+SVC s | trie/LIBLINEAR | "
        "Gram/trie | acc. LIBLINEAR | acc. LIBLINEAR, same test features | acc. trie | acc. automaton | acc. Gram | "
        "F1 LIBLINEAR | F1 trie | F1 Gram | rel. obj. diff | passes |"
    )
    out.append("|" + "---|" * 19)
    for n, res in results.items():
        for cat, r in res["categories"].items():
            ll, tr = r["liblinear"], r["trie"]
            au, gs = r.get("automaton", {}), r.get("gram_svc", {})
            rel = (tr["objective"] - ll["objective"]) / ll["objective"]
            out.append(
                f"| {n} | {cat} | {r['positives']} | {ll['seconds']:.1f} | {tr['seconds']:.1f} | "
                f"{au.get('seconds', float('nan')):.1f} | {gs.get('seconds', float('nan')):.1f} | "
                f"{tr['seconds'] / ll['seconds']:.2f} | {gs.get('seconds', float('nan')) / tr['seconds']:.1f} | "
                f"{100 * ll['accuracy']:.2f} | {100 * ll.get('accuracy_same_features', float('nan')):.2f} | "
                f"{100 * tr['accuracy']:.2f} | "
                f"{100 * au.get('accuracy', float('nan')):.2f} | "
                f"{100 * gs.get('accuracy', float('nan')):.2f} | {ll['f1']:.3f} | {tr['f1']:.3f} | "
                f"{gs.get('f1', float('nan')):.3f} | {rel:+.1e} | {tr['passes']} |"
            )
    out.append("")
    out.append(
        "| n | training vocabulary: trie size | numbered minimal automaton: states | arcs | size | reduction | "
        "final W′ (weight ≠ 0): patterns | trie states | trie size | min. weighted aut. states | arcs | size | "
        "reduction (size) | reduction (states) | "
        "naive: s per gradient | naive: extrapolated fit | per-pair SMO: s per K(x,y) | "
        "per-pair SMO: ≥ l(l+1)/2 values |"
    )
    out.append("|" + "---|" * 18)
    for n, res in results.items():
        cats = res["categories"]
        sz = [c["trie"] for c in cats.values()]
        mean = lambda key: float(np.mean([s[key] for s in sz]))  # noqa: E731
        naive = res.get("naive")
        passes = np.mean([c["trie"]["passes"] for c in cats.values()])
        if naive:
            nv = naive["gradient_seconds"] * passes * n_train + naive["automata_seconds"]
            naive_cells = f"{naive['gradient_seconds']:.2f} | ≈ {_fmt_time(nv)}"
        else:
            naive_cells = "– | –"
        ps = res.get("pair_seconds")
        smo_cells = f"{ps:.2f} | ≥ {_fmt_time(ps * n_train * (n_train + 1) / 2)}" if ps else "– | –"
        vocab = 2 * mean("train_trie_states") - 1
        aut = [c["automaton"] for c in cats.values() if "train_automaton_states" in c.get("automaton", {})]
        if aut:
            a_states, a_arcs = aut[0]["train_automaton_states"], aut[0]["train_automaton_arcs"]
            aut_cells = (
                f"{a_states:,} | {a_arcs:,} | {a_states + a_arcs:,} | {100 * (1 - (a_states + a_arcs) / vocab):.1f} %"
            )
        else:
            aut_cells = "– | – | – | –"
        out.append(
            f"| {n} | {vocab:,.0f} | {aut_cells} | {mean('patterns'):,.0f} | {mean('trie_states'):,.0f} | "
            f"{mean('trie_size'):,.0f} | {mean('minimal_states'):,.0f} | {mean('minimal_arcs'):,.0f} | "
            f"{mean('minimal_size'):,.0f} | {100 * (1 - mean('minimal_size') / mean('trie_size')):.1f} % | "
            f"{100 * (1 - mean('minimal_states') / mean('trie_states')):.1f} % | {naive_cells} | {smo_cells} |"
        )
    out.append("")
    out.append(targets(results))
    return "\n".join(out)


def targets(results: dict[str, Any]) -> str:
    """The issue's targets per n, each a ratio measured in this run (worst category, and totals)."""
    out = [
        "| n | max rel. objective diff trie vs LIBLINEAR (≤ 1e-3) | "
        "max accuracy diff, same test features, points (≤ 0.2) | "
        "trie / LIBLINEAR time: worst category, total (≤ 2) | Gram SVC / trie time: worst category, total (≥ 3) | "
        "max accuracy diff trie vs Gram SVC, points | min. aut. reduction in size (≥ 50 % for n ≥ 5): "
        "training structures; final W′ |",
        "|" + "---|" * 7,
    ]
    for n, res in results.items():
        cats = list(res["categories"].values())
        rel = max(abs(c["trie"]["objective"] - c["liblinear"]["objective"]) / c["liblinear"]["objective"] for c in cats)
        acc = max(
            abs(c["trie"]["accuracy"] - c["liblinear"].get("accuracy_same_features", c["liblinear"]["accuracy"]))
            for c in cats
        )
        t_trie = [c["trie"]["seconds"] for c in cats]
        t_ll = [c["liblinear"]["seconds"] for c in cats]
        ratio_ll = max(a / b for a, b in zip(t_trie, t_ll))
        if all("gram_svc" in c for c in cats):
            t_gram = [c["gram_svc"]["seconds"] for c in cats]
            gram = f"{min(g / t for g, t in zip(t_gram, t_trie)):.2f}, {sum(t_gram) / sum(t_trie):.2f}"
            gacc = f"{100 * max(abs(c['trie']['accuracy'] - c['gram_svc']['accuracy']) for c in cats):.2f}"
        else:
            gram = gacc = "–"
        red = 1 - np.mean([c["trie"]["minimal_size"] for c in cats]) / np.mean([c["trie"]["trie_size"] for c in cats])
        aut = [c["automaton"] for c in cats if "train_automaton_states" in c.get("automaton", {})]
        if aut:
            vocab = 2 * cats[0]["trie"]["train_trie_states"] - 1
            train_red = (
                f"{100 * (1 - (aut[0]['train_automaton_states'] + aut[0]['train_automaton_arcs']) / vocab):.1f} %"
            )
        else:
            train_red = "–"
        out.append(
            f"| {n} | {rel:.1e} | {100 * acc:.2f} | {ratio_ll:.2f}, {sum(t_trie) / sum(t_ll):.2f} | {gram} | {gacc} | "
            f"{train_red}; {100 * red:.1f} % |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
