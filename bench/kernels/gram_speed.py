"""Gram-matrix speed of the kernel engine, each figure a ratio measured in the same run.

Usage: ``python -m bench.kernels.gram_speed [--reuters PATH] [--splice PATH] [--docs 2000]``

1. n-gram (n = 3, 5, 7) on the lower-cased bodies of the first ``--docs`` ModApte training
   documents of Reuters-21578, against scikit-learn's ``CountVectorizer(analyzer="char")`` +
   one sparse product; the same kernel given only as a user transducer
   (``from_transducer``, OpenFst composition per document); per-pair composition
   X ∘ (T ∘ T⁻¹) ∘ Y timed on a sample of pairs and extrapolated. Runs of whitespace are
   collapsed to one space first, as CountVectorizer's char analyzer does, so that both
   sides see the same strings and their values can be compared exactly.
2. gappy (n = 2, λ = 0.5) on Reuters, mismatch (k = 5, m = 1) on the UCI splice-junction
   DNA, subsequence on strings of ≤ 40 symbols, each against a straightforward pure-Python
   implementation written here from the definition.
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
import time
from collections import Counter
from functools import cache

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from ratkit.automata.kernels import from_transducer, gappy, mismatch, ngram, subsequence
from ratkit.datasets import load_splice, reuters_modapte
from ratkit.limits import MAX_COMPOSED_STATES


def _timed(fn, repeat: int = 1):
    """(result, best wall time of ``repeat`` runs): the minimum is the least disturbed by
    other processes on a shared machine."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def _sparse_gram(rows: list[Counter]) -> np.ndarray:
    vocab: dict = {}
    r, c, v = [], [], []
    for i, counts in enumerate(rows):
        for z, w in counts.items():
            r.append(i)
            c.append(vocab.setdefault(z, len(vocab)))
            v.append(w)
    F = sp.csr_matrix((v, (r, c)), shape=(len(rows), len(vocab)))
    return (F @ F.T).toarray()


def ngram_section(docs: list[str], ns: tuple[int, ...], n_jobs: int, pairs: int, repeat: int) -> None:
    print(f"\n## n-gram Gram matrix, {len(docs)} Reuters bodies (mean {np.mean([len(d) for d in docs]):.0f} chars)")
    print(
        "| n | reference s | ngram s | ratio | equal | from_transducer s (n_jobs) | ratio "
        "| per-pair composition s (extrapolated) | speed-up vs from_transducer |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    rng = random.Random(0)
    for n in ns:

        def reference():
            F = CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False).fit_transform(docs)
            return (F @ F.T).toarray()

        k = ngram(n)
        t_ref = t_ours = float("inf")
        for _ in range(repeat):  # interleaved, so both see the same machine load
            G0, t = _timed(reference)
            t_ref = min(t_ref, t)
            G1, t = _timed(lambda: k.gram(docs))
            t_ours = min(t_ours, t)
        alphabet = k.alphabet_for(docs)
        user = from_transducer(k.factor(alphabet))
        G2, t_user = _timed(lambda: user.gram(docs, strategy="features", n_jobs=n_jobs))
        # pairs whose X ∘ S ∘ Y ratkit agrees to build (MAX_COMPOSED_STATES); the longer pairs
        # it refuses would cost more, so the extrapolation is a lower bound
        states = user.transducer(alphabet).num_states
        sample, refused = [], 0
        while len(sample) < pairs:
            i, j = rng.randrange(len(docs)), rng.randrange(len(docs))
            if (len(docs[i]) + 1) * states * (len(docs[j]) + 1) <= MAX_COMPOSED_STATES:
                sample.append((i, j))
            else:
                refused += 1
        if refused:
            print(f"(n={n}: {refused} sampled pairs beyond the composition limit were redrawn; lower bound)")
        vals, t_pairs = _timed(
            lambda: [user.gram([docs[i]], [docs[j]], strategy="composition")[0, 0] for i, j in sample]
        )
        assert all(abs(v - G0[i, j]) <= 1e-9 * max(1.0, G0[i, j]) for v, (i, j) in zip(vals, sample))
        n_pairs = len(docs) * (len(docs) + 1) // 2
        t_all_pairs = t_pairs / pairs * n_pairs
        print(
            f"| {n} | {t_ref:.2f} | {t_ours:.2f} | {t_ours / t_ref:.2f}× | {np.array_equal(G0, G1)} "
            f"| {t_user:.2f} ({n_jobs}) | {t_user / t_ref:.1f}× | {t_all_pairs:,.0f} ({pairs} pairs × {n_pairs:,}) "
            f"| {t_all_pairs / t_user:,.0f}× |"
        )
        if not np.allclose(G0, G2, rtol=1e-12, atol=0):
            print(f"   from_transducer differs from the reference: max |Δ| = {np.abs(G0 - G2).max()}")


def _gappy_rows(docs: list[str], lam: float) -> list[Counter]:
    rows = []
    for x in docs:
        c: Counter = Counter()
        for i in range(len(x)):
            for j in range(i + 1, len(x)):
                c[(x[i], x[j])] += lam ** (j - i - 1)
        rows.append(c)
    return rows


def _mismatch_rows(seqs: list[str], k: int, m: int, alphabet: str) -> list[Counter]:
    rows = []
    for x in seqs:
        c: Counter = Counter()
        for p in range(len(x) - k + 1):
            u = x[p : p + k]
            for j in range(m + 1):
                for pos in itertools.combinations(range(k), j):
                    for subs in itertools.product(alphabet, repeat=j):
                        if all(u[q] != s for q, s in zip(pos, subs)):
                            z = list(u)
                            for q, s in zip(pos, subs):
                                z[q] = s
                            c["".join(z)] += 1
        rows.append(c)
    return rows


def _subsequence_pair(x: str, y: str) -> int:
    """Distinct common subsequences, by counting paths of the product of the subsequence DFAs."""

    def nxt(s):
        table = [dict() for _ in range(len(s) + 1)]
        for p in range(len(s) - 1, -1, -1):
            table[p] = dict(table[p + 1])
            table[p][s[p]] = p + 1
        return table

    nx, ny = nxt(x), nxt(y)

    @cache
    def count(p: int, q: int) -> int:
        return 1 + sum(count(nx[p][c], ny[q][c]) for c in nx[p] if c in ny[q])

    return count(0, 0)


def other_families(reuters: list[str], splice: list[str], gappy_docs: int, sub_n: int, sub_pairs: int) -> None:
    print("\n## Other families against straightforward implementations (same run)")
    print("| kernel | data | ratkit s | straightforward s | speed-up | max relative difference |")
    print("|---|---|---|---|---|---|")
    docs = reuters[:gappy_docs]
    G1, t1 = _timed(lambda: gappy(2, 0.5).gram(docs))
    G0, t0 = _timed(lambda: _sparse_gram(_gappy_rows(docs, 0.5)))
    print(
        f"| gappy n=2 λ=0.5 | {len(docs)} Reuters bodies | {t1:.2f} | {t0:.2f} (enumerate i<j pairs) | {t0 / t1:.0f}× "
        f"| {np.max(np.abs(G1 - G0) / np.maximum(np.abs(G0), 1e-300)):.1e} |"
    )
    alphabet = "".join(sorted(set("".join(splice))))
    G1, t1 = _timed(lambda: mismatch(5, 1, alphabet).gram(splice))
    G0, t0 = _timed(lambda: _sparse_gram(_mismatch_rows(splice, 5, 1, alphabet)))
    print(
        f"| mismatch k=5 m=1 | {len(splice)} splice sequences (60 nt, Σ = {alphabet}) | {t1:.2f} "
        f"| {t0:.2f} (Counter of neighbours) "
        f"| {t0 / t1:.0f}× | {np.max(np.abs(G1 - G0) / np.maximum(np.abs(G0), 1e-300)):.1e} |"
    )
    seqs = [s[:40] for s in splice[:sub_n]]
    G1, t1 = _timed(lambda: subsequence().gram(seqs))
    rng = random.Random(1)
    sample = [(rng.randrange(sub_n), rng.randrange(sub_n)) for _ in range(sub_pairs)]
    vals, t0 = _timed(lambda: [_subsequence_pair(seqs[i], seqs[j]) for i, j in sample])
    t_full = t0 / sub_pairs * (sub_n * (sub_n + 1) // 2)
    rel = max(abs(G1[i, j] - v) / v for v, (i, j) in zip(vals, sample))
    print(
        f"| subsequence | {sub_n} splice prefixes of 40 nt | {t1:.2f} "
        f"| {t_full:.2f} (memoised DP, {sub_pairs} pairs extrapolated) "
        f"| {t_full / t1:.0f}× | {rel:.1e} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Gram-matrix speed of ratkit's kernel engine.")
    parser.add_argument("--reuters", default="../shared/data/reuters21578")
    parser.add_argument("--splice", default=None, help="folder or file of UCI splice.data (default: bundled copy)")
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--ns", type=int, nargs="+", default=[3, 5, 7])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=3, help="pairs timed for per-pair composition")
    parser.add_argument("--gappy-docs", type=int, default=200)
    parser.add_argument("--sub-n", type=int, default=300)
    parser.add_argument("--sub-pairs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many interleaved runs (n-gram)")
    args = parser.parse_args(argv)
    train = reuters_modapte(args.reuters, "train")[: args.docs]
    docs = [re.sub(r"\s+", " ", d.body) for d in train]
    splice = load_splice(args.splice).sequences
    print(f"# ratkit kernel engine, Gram speed ({time.strftime('%Y-%m-%d')})")
    ngram_section(docs, tuple(args.ns), args.n_jobs, args.pairs, args.repeat)
    other_families(docs, splice, args.gappy_docs, args.sub_n, args.sub_pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
