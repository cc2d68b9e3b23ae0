"""Pairwise SVMs on the UCI splice-junction sequences (issue 16, survey §IV-B2–B3).

Task: given two DNA sequences, do they belong to the same class (EI, IE or N)? A pair
(a, b) of the same class is +1, of different classes −1. The distinct sequences are split,
stratified by class with a fixed seed, into disjoint train and test sequences; training
pairs are drawn from the train sequences only and held-out pairs from the test sequences
only, so every held-out pair is made of two sequences never seen in training.

Pairs are balanced explicitly: the unordered pairs {i, j}, i ≠ j, of a set of sequences are
split into same-class and different-class ones (the three classes give about twice as many
of the latter), half the pairs are drawn uniformly without replacement from each, and each
pair is oriented (a, b) or (b, a) by a fair coin, so that the unbalanced kinds D and T see
both orders. The base kernel is the 3-gram kernel (survey §IV-B3), cosine-normalised by
default (``--raw``: the raw counts).

For each pairwise kind (``ratkit.automata.pairwise.pairwise(base, kind)``): scikit-learn's
``SVC(kernel="precomputed")`` on the pairwise Gram matrix of the training pairs, C chosen by
stratified inner CV on the training pairs; held-out accuracy from the rectangular Gram
matrix K(test pairs, training pairs); ``RationalSVC(pairwise(...), C)`` with the same C
(kernel rows). Context rows: the majority class; a threshold on the base kernel k(a, b)
fitted on the training pairs; and a per-sequence SVC (which uses the class of every
training sequence, information the pairwise learners do not get).

Speed: ``pairwise(base, kind).gram(P)`` (one base Gram matrix over the distinct elements of
the pairs, then the O(l²) combination) against per-pair evaluation, timed in the same run
on a random sample of entries of the upper triangle and extrapolated to its l(l + 1)/2
entries: (1) the pairwise kernel called on each two pairs, K(p, q); (2) the formula from
scalar base-kernel calls, written here from survey §IV-B2. Both are checked against the
Gram entries (max abs diff).

Run from the repository root::

    .venv/bin/python -m bench.pairwise.splice            # defaults, a few minutes
    .venv/bin/python -m bench pairwise                   # the same, through the suite runner
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, StratifiedShuffleSplit
from sklearn.svm import SVC

from bench.learners.reuters import best_of
from ratkit.automata.kernels import Kernel, cosine, ngram
from ratkit.automata.pairwise import PAIR_KINDS, pairwise
from ratkit.datasets import load_splice
from ratkit.learners import RationalSVC

#: The literature's names of the kinds (survey §IV-B2 and the references of ratkit.automata.pairwise).
NAMES = {
    "D": "direct sum",
    "T": "tensor (Kronecker)",
    "DL": "direct sum learning",
    "TL": "tensor learning (TPPK = 2·K_TL)",
    "ML": "metric learning (MLPK = 4·K_ML)",
    "TM": "tensor metric learning",
    "cartesian": "Cartesian (Kashima et al. 2009)",
}
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)


def distinct_sequences(seqs: list[str], labels: list[str]) -> tuple[list[str], np.ndarray, int, int]:
    """(the distinct sequences with one class each, their classes, the number of duplicates
    dropped, the number of strings dropped for carrying two classes)."""
    classes: dict[str, set[str]] = {}
    for s, c in zip(seqs, labels):
        classes.setdefault(s, set()).add(c)
    keep = [s for s, cs in classes.items() if len(cs) == 1]
    conflicting = len(classes) - len(keep)
    return keep, np.array([next(iter(classes[s])) for s in keep]), len(seqs) - len(classes), conflicting


def balanced_pairs(labels: np.ndarray, n_pairs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` pairs (i, j), i ≠ j, of the items with these labels: half of them drawn uniformly
    without replacement from the same-label unordered pairs (y = +1), half from the different-label
    ones (y = −1); each oriented by a fair coin; returned shuffled, as (an (n, 2) index array, y)."""
    i, j = np.triu_indices(len(labels), k=1)
    same = labels[i] == labels[j]
    half = n_pairs // 2
    chosen, y = [], []
    for mask, sign, count in ((same, 1, n_pairs - half), (~same, -1, half)):
        pool = np.flatnonzero(mask)
        if len(pool) < count:
            raise SystemExit(
                f"--pairs {n_pairs} needs {count} {'same' if sign > 0 else 'different'}-class pairs; the "
                f"{len(labels)} sequences have only {len(pool)}. Use more sequences or fewer pairs."
            )
        chosen.append(rng.choice(pool, size=count, replace=False))
        y.append(np.full(count, sign))
    pick, y = np.concatenate(chosen), np.concatenate(y)
    idx = np.stack([i[pick], j[pick]], axis=1)
    flip = rng.random(len(idx)) < 0.5
    idx[flip] = idx[flip][:, ::-1]
    order = rng.permutation(len(idx))
    return idx[order], y[order]


def per_pair_formula(kind: str, k: Callable[[str, str], float], p: tuple[str, str], q: tuple[str, str]) -> float:
    """K(p, q) from scalar base-kernel calls, as written in survey §IV-B2 (and, for the Cartesian
    kernel, Kashima et al. 2009): the per-pair evaluation the distinct-element Gram path avoids."""
    (a, b), (c, d) = p, q
    if kind == "D":
        return k(a, c) + k(b, d)
    if kind == "T":
        return k(a, c) * k(b, d)
    if kind == "cartesian":
        return (k(a, c) if b == d else 0.0) + (k(b, d) if a == c else 0.0)
    ac, ad, bc, bd = k(a, c), k(a, d), k(b, c), k(b, d)
    if kind == "DL":
        return (ac + ad + bc + bd) / 2
    tl = (ac * bd + ad * bc) / 2
    ml = (ac - ad - bc + bd) ** 2 / 4
    return {"TL": tl, "ML": ml, "TM": tl + ml}[kind]


def _cv_svc(G: np.ndarray, y: np.ndarray, Cs: list[float], folds: int, seed: int) -> GridSearchCV:
    cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
    return GridSearchCV(SVC(kernel="precomputed"), {"C": Cs}, cv=cv, n_jobs=1).fit(G, y)


def _threshold(scores: np.ndarray, y: np.ndarray) -> float:
    """The threshold t maximising the accuracy of "same class iff score > t" on (scores, y)."""
    s = np.sort(np.unique(scores))
    cuts = np.concatenate([[s[0] - 1.0], (s[:-1] + s[1:]) / 2, [s[-1] + 1.0]])
    acc = [np.mean(np.where(scores > t, 1, -1) == y) for t in cuts]
    return float(cuts[int(np.argmax(acc))])


def _commit() -> str:
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        head = subprocess.run(
            ["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", here, "status", "--porcelain", "--", "ratkit"], capture_output=True, text=True, check=True
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    changed = [line[3:] for line in dirty if line.strip()]
    return head + (f" (uncommitted changes under ratkit/: {', '.join(changed)})" if changed else " (ratkit/ clean)")


def accuracy_section(
    args: argparse.Namespace,
    base: Kernel,
    X: list[str],
    cls: np.ndarray,
    tr: np.ndarray,
    te: np.ndarray,
    rng: np.random.Generator,
) -> list[tuple[str, str]]:
    """Prints the accuracy table; returns the training pairs."""
    Xtr, Xte = [X[i] for i in tr], [X[i] for i in te]
    itr, ytr = balanced_pairs(cls[tr], args.pairs, rng)
    ite, yte = balanced_pairs(cls[te], args.test_pairs, rng)
    Ptr = [(Xtr[a], Xtr[b]) for a, b in itr]
    Pte = [(Xte[a], Xte[b]) for a, b in ite]
    shared = set(Xtr) & set(Xte)
    print(
        f"# sequences: {len(Xtr)} train / {len(Xte)} test (stratified, seed {args.seed}; shared strings: "
        f"{len(shared)}); pairs: {len(Ptr)} train (+1: {int((ytr > 0).sum())}) / {len(Pte)} held out "
        f"(+1: {int((yte > 0).sum())}); distinct elements in the pairs: {len(np.unique(itr))} train / "
        f"{len(np.unique(ite))} test",
        flush=True,
    )

    # context: majority, a threshold on k(a, b), and a per-sequence SVC
    majority = 1 if (ytr > 0).sum() >= (ytr < 0).sum() else -1
    print(
        "\n| kind | literature name | C (inner CV) | inner-CV acc | held-out acc SVC | held-out acc RationalSVC "
        "| SVC/RationalSVC agree | RationalSVC passes (converged) | Gram l × l s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|---:|")
    print(f"| — | majority class of the training pairs ({majority:+d}) | | | {np.mean(yte == majority):.3f} | | | | |")
    kab_tr = np.array([base(a, b) for a, b in Ptr])
    kab_te = np.array([base(a, b) for a, b in Pte])
    t = _threshold(kab_tr, ytr)
    print(
        f"| — | threshold on k(a, b) (t = {t:.4g}, fitted on the training pairs) | | "
        f"{np.mean(np.where(kab_tr > t, 1, -1) == ytr):.3f} (train) | "
        f"{np.mean(np.where(kab_te > t, 1, -1) == yte):.3f} | | | | |",
        flush=True,
    )
    Gseq = base.gram(Xtr)
    seq = _cv_svc(Gseq, cls[tr], args.Cs, args.folds, args.seed)
    pred = seq.predict(base.gram(Xte, Xtr))
    same = np.where(pred[ite[:, 0]] == pred[ite[:, 1]], 1, -1)
    print(
        f"| — | per-sequence SVC on k, 3 classes (uses each training sequence's class; C = {seq.best_params_['C']:g}; "
        f"sequence accuracy {np.mean(pred == cls[te]):.3f}) | | {seq.best_score_:.3f} (sequences) | "
        f"{np.mean(same == yte):.3f} | | | | |",
        flush=True,
    )

    for kind in args.kinds:
        K = pairwise(base, kind)
        seconds, G = best_of(args.repeat, lambda K=K: K.gram(Ptr))
        search = _cv_svc(G, ytr, args.Cs, args.folds, args.seed)
        C = search.best_params_["C"]
        Gte = K.gram(Pte, Ptr)
        pred_svc = search.predict(Gte)
        acc_svc = np.mean(pred_svc == yte)
        rat = agree = passes = ""
        if kind in args.rational_kinds:
            m = RationalSVC(K, C=C, fit_intercept=True, max_iter=args.max_iter, random_state=args.seed)
            m.fit(Ptr, ytr)
            pred_rat = m.predict(Pte)
            rat = f"{np.mean(pred_rat == yte):.3f}"
            agree = f"{np.mean(pred_rat == pred_svc):.3f}"
            passes = f"{m.n_iter_} ({m.converged_}, {m.representation_})"
        print(
            f"| {kind} | {NAMES[kind]} | {C:g} | {search.best_score_:.3f} | {acc_svc:.3f} | {rat} | {agree} | "
            f"{passes} | {seconds:.3f} |",
            flush=True,
        )
    return Ptr


def speed_section(args: argparse.Namespace, base: Kernel, P: list[tuple[str, str]], rng: np.random.Generator) -> None:
    n = len(P)
    entries = n * (n + 1) // 2
    iu, ju = np.triu_indices(n)
    pick = rng.choice(entries, size=min(args.sample, entries), replace=False)
    sample = list(zip(iu[pick].tolist(), ju[pick].tolist()))
    u = len({x for p in P for x in p})
    print(
        f"\n# speed: l = {n} training pairs over u = {u} distinct sequences; per-pair paths timed on "
        f"{len(sample)} random entries of the upper triangle and extrapolated to its {entries:,} entries; "
        f"Gram path: best of {args.repeat}",
        flush=True,
    )
    print(
        "\n| kind | Gram path s | K(p, q) per pair s (extrapolated) | ratio | max abs diff | "
        "base-kernel formula per pair s (extrapolated) | ratio | max abs diff |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for kind in args.kinds:
        K = pairwise(base, kind)
        seconds, G = best_of(args.repeat, lambda K=K: K.gram(P))
        t0 = time.perf_counter()
        call = np.array([K(P[i], P[j]) for i, j in sample])
        t_call = (time.perf_counter() - t0) / len(sample) * entries
        t0 = time.perf_counter()
        formula = np.array([per_pair_formula(kind, base, P[i], P[j]) for i, j in sample])
        t_formula = (time.perf_counter() - t0) / len(sample) * entries
        ref = np.array([G[i, j] for i, j in sample])
        print(
            f"| {kind} | {seconds:.3f} | {t_call:,.1f} | {t_call / seconds:,.0f}× | {np.max(np.abs(call - ref)):.1e} | "
            f"{t_formula:,.1f} | {t_formula / seconds:,.0f}× | {np.max(np.abs(formula - ref)):.1e} |",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.pairwise.splice", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=None, help="splice.data or its folder (default: the bundled copy)")
    p.add_argument("--sequences", type=int, default=300, help="train sequences (default 300)")
    p.add_argument("--test-sequences", type=int, default=300, help="test sequences (default 300)")
    p.add_argument("--pairs", type=int, default=1000, help="training pairs, balanced ±1 (default 1000)")
    p.add_argument("--test-pairs", type=int, default=1000, help="held-out pairs, balanced ±1 (default 1000)")
    p.add_argument("--n", type=int, default=3, help="order of the n-gram base kernel (default 3)")
    p.add_argument("--raw", action="store_true", help="raw n-gram counts instead of the cosine-normalised kernel")
    p.add_argument(
        "--kinds", nargs="+", default=list(PAIR_KINDS), choices=PAIR_KINDS, help="pairwise kinds (default: all)"
    )
    p.add_argument(
        "--rational-kinds",
        nargs="*",
        default=list(PAIR_KINDS),
        choices=PAIR_KINDS,
        help="kinds also trained with RationalSVC",
    )
    p.add_argument("--Cs", type=float, nargs="+", default=list(C_GRID), help=f"the C grid (default {C_GRID})")
    p.add_argument("--max-iter", type=int, default=1000, help="RationalSVC's max_iter (default 1000, its own)")
    p.add_argument("--folds", type=int, default=3, help="inner CV folds for C (default 3)")
    p.add_argument("--sample", type=int, default=2000, help="Gram entries evaluated per pair for the speed table")
    p.add_argument("--speed-pairs", type=int, default=None, help="l for the speed table (default: --pairs)")
    p.add_argument("--repeat", type=int, default=3, help="Gram path timings: best of this many (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-accuracy", action="store_true", help="only the speed table")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    data = load_splice(args.data)
    X, cls, duplicates, conflicting = distinct_sequences(data.sequences, data.labels)
    base: Kernel = ngram(args.n) if args.raw else cosine(ngram(args.n))
    classes = ", ".join(f"{c} {int((cls == c).sum())}" for c in np.unique(cls))
    print(
        f"# UCI splice-junction: {len(data)} sequences, {len(X)} distinct with one class ({classes}; "
        f"{duplicates} duplicate strings and {conflicting} string with two classes dropped)\n"
        f"# base kernel {base!r}; commit {_commit()}; {time.strftime('%Y-%m-%d %H:%M %Z')}\n"
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        flush=True,
    )
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    split = StratifiedShuffleSplit(
        n_splits=1, train_size=args.sequences, test_size=args.test_sequences, random_state=args.seed
    )
    tr, te = next(split.split(np.zeros(len(X)), cls))
    P = [] if args.skip_accuracy else accuracy_section(args, base, X, cls, tr, te, rng)
    if args.skip_accuracy or (args.speed_pairs and args.speed_pairs != len(P)):
        # pairs of the train sequences again, as many as asked for
        itr, _ = balanced_pairs(cls[tr], args.speed_pairs or args.pairs, rng)
        P = [(X[tr[a]], X[tr[b]]) for a, b in itr]
    speed_section(args, base, P, rng)
    print(f"\n# total {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
