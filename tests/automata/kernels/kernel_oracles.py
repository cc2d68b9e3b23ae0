"""Brute-force kernel values written from the definitions of the survey, not from ratkit."""

from __future__ import annotations

import itertools
import random
from collections import Counter


def random_strings(rng: random.Random, n: int, alphabet: str, max_len: int, min_len: int = 0) -> list[str]:
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(min_len, max_len))) for _ in range(n)]


def ngram_counts(x, n):
    """c(x, z) for every z of length n: overlapping occurrence counts."""
    return Counter(tuple(x[i : i + n]) for i in range(len(x) - n + 1))


def ngram_kernel(x, y, n):
    cx, cy = ngram_counts(x, n), ngram_counts(y, n)
    return sum(c * cy[z] for z, c in cx.items())


def gappy_features(x, n, lam):
    """T(x, z) = Σ over i1 < … < in with x[ik] = zk of λ^((in − i1 + 1) − n)."""
    out: Counter = Counter()
    for idx in itertools.combinations(range(len(x)), n):
        z = tuple(x[i] for i in idx)
        out[z] += lam ** ((idx[-1] - idx[0] + 1) - n)
    return out


def gappy_kernel(x, y, n, lam):
    fx, fy = gappy_features(x, n, lam), gappy_features(y, n, lam)
    return sum(v * fy[z] for z, v in fx.items())


def mismatch_kernel(x, y, k, m, alphabet):
    """K_(k,m)(x, y) = Σ_{z1 ∈ F_k(x), z2 ∈ F_k(y), z ∈ Σ^k} d_m(z1, z) d_m(z, z2), eq. (6),
    with every occurrence (position) of a k-factor counted."""
    fx = [x[i : i + k] for i in range(len(x) - k + 1)]
    fy = [y[i : i + k] for i in range(len(y) - k + 1)]
    total = 0
    for z in itertools.product(alphabet, repeat=k):
        a = sum(1 for u in fx if sum(p != q for p, q in zip(u, z)) <= m)
        b = sum(1 for u in fy if sum(p != q for p, q in zip(u, z)) <= m)
        total += a * b
    return total


def subsequences(x):
    """The set of distinct subsequences of x (the empty string included)."""
    out = {()}
    for r in range(1, len(x) + 1):
        out.update(itertools.combinations(x, r))
    return out


def subsequence_kernel(x, y):
    return len(subsequences(x) & subsequences(y))


def levenshtein(x, y):
    prev = list(range(len(y) + 1))
    for i, a in enumerate(x, 1):
        cur = [i]
        for j, b in enumerate(y, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b)))
        prev = cur
    return prev[-1]


def alignment_sum(x, y, match, sub, ins, dele):
    """Σ over all alignments of the product of operation weights (probability edit distance)."""
    import functools

    @functools.cache
    def f(i, j):
        if i == len(x) and j == len(y):
            return 1.0
        total = 0.0
        if i < len(x):
            total += dele * f(i + 1, j)
        if j < len(y):
            total += ins * f(i, j + 1)
        if i < len(x) and j < len(y):
            total += (match if x[i] == y[j] else sub) * f(i + 1, j + 1)
        return total

    return f(0, 0)
