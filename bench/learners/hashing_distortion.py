"""Feature hashing (issue 37): how far the hashed cosine(ngram(n)) Gram is from the exact one,
and what it does to accuracy, on 300-character windows of Reuters-21578 ModApte stories.

Run (one thread)::

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 .venv/bin/python -m bench.learners.hashing_distortion \
        --data ../shared/data/reuters21578 --sample 500 --train 2000 --test 1000

Distortion: relative Frobenius error ‖G_h − G‖_F / ‖G‖_F of the hashed kernel's Gram on
``--sample`` windows (the hashed kernel's cosine: rows normalised after hashing), and the
largest entry-wise error. Accuracy: RationalSVC (trie, C = 1) trained on ``--train`` windows,
label "acq" of the story the window comes from, scored on ``--test`` other windows.
"""

from __future__ import annotations

import argparse
import os
import random
import time

import numpy as np

from bench.learners.reuters import _bodies
from ratkit.automata import kernels
from ratkit.datasets import reuters_modapte
from ratkit.learners import RationalSVC
from ratkit.learners.svm.hashing import hashed_features

DEFAULT_DATA = os.path.join("..", "shared", "data", "reuters21578")
WIDTH = 300


def windows(data: str, n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """n windows of WIDTH characters at random offsets of stories drawn with replacement
    (stories shorter than WIDTH are skipped), label 1 when the story is in "acq"."""
    docs = [d for d in reuters_modapte(data, "train") + reuters_modapte(data, "test")]
    bodies = _bodies(docs)
    keep = [i for i, b in enumerate(bodies) if len(b) >= WIDTH]
    rng = random.Random(seed)
    X, y = [], []
    for _ in range(n):
        i = rng.choice(keep)
        start = rng.randrange(len(bodies[i]) - WIDTH + 1)
        X.append(bodies[i][start : start + WIDTH])
        y.append(1 if "acq" in docs[i].topics else 0)
    return X, np.asarray(y)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=DEFAULT_DATA)
    p.add_argument("--n", type=int, default=5, help="n of cosine(ngram(n))")
    p.add_argument("--sample", type=int, default=500)
    p.add_argument("--train", type=int, default=2000)
    p.add_argument("--test", type=int, default=1000)
    p.add_argument("--bits", type=int, nargs="+", default=[18, 20, 22, 24])
    args = p.parse_args(argv)

    k = kernels.cosine(kernels.ngram(args.n))
    X, _ = windows(args.data, args.sample, seed=0)
    G = k.gram(X)
    _, F = kernels.ngram(args.n).fit_features(X)
    print(f"{args.sample} windows of {WIDTH} characters, cosine(ngram({args.n})): {F.shape[1]:,} distinct patterns")
    print("| buckets | rel. Frobenius error | max abs error |")
    print("|---|---:|---:|")
    for b in args.bits:
        H = hashed_features(k, X, 2**b)
        Gh = (H @ H.T).toarray()
        rel = np.linalg.norm(Gh - G) / np.linalg.norm(G)
        print(f"| 2^{b} | {rel:.2e} | {np.abs(Gh - G).max():.2e} |")

    if args.train:
        Xa, ya = windows(args.data, args.train + args.test, seed=1)
        Xtr, ytr, Xte, yte = Xa[: args.train], ya[: args.train], Xa[args.train :], ya[args.train :]
        print(f"\naccuracy: {args.train} training windows, {args.test} test windows, label acq")
        print("| features | fit s | train acc | test acc |")
        print("|---|---:|---:|---:|")
        for b in [None, *args.bits]:
            t = time.perf_counter()
            m = RationalSVC(k, C=1.0, random_state=0, n_features=None if b is None else 2**b).fit(Xtr, ytr)
            t = time.perf_counter() - t
            name = "exact" if b is None else f"2^{b}"
            tr, te = float(np.mean(m.predict(Xtr) == ytr)), float(np.mean(m.predict(Xte) == yte))
            print(f"| {name} | {t:.2f} | {tr:.4f} | {te:.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
