"""Brute-force oracles written from the definitions of the survey (§II), not from ratkit.

A transducer here is the plain arc list handed to ``from_arcs``; its relation is computed
by enumerating every accepting path (the arc lists are acyclic), with the semiring
arithmetic written out again in plain Python.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict

# Plain-Python semiring arithmetic: (plus, times, zero, one) in the natural domain.
ARITH = {
    "probability": (lambda a, b: a + b, lambda a, b: a * b, 0.0, 1.0),
    "tropical": (min, lambda a, b: a + b, math.inf, 0.0),
    "log": (
        lambda a, b: b if a == math.inf else a if b == math.inf else -math.log(math.exp(-a) + math.exp(-b)),
        lambda a, b: a + b,
        math.inf,
        0.0,
    ),
    "boolean": (lambda a, b: a or b, lambda a, b: a and b, False, True),
}


def relation(arcs, start, finals, semiring):
    """{(x, y): ⟦T⟧(x, y)} over all accepting paths of an acyclic arc list (x, y as str)."""
    plus, times, zero, one = ARITH[semiring]
    out = defaultdict(lambda: zero)
    by_src = defaultdict(list)
    for arc in arcs:
        src, il, ol, w, dst = arc if len(arc) == 5 else (arc[0], arc[1], arc[1], arc[2], arc[3])
        by_src[src].append((il, ol, w, dst))
    stack = [(start, "", "", one)]
    while stack:
        q, x, y, w = stack.pop()
        if q in finals:
            out[(x, y)] = plus(out[(x, y)], times(w, finals[q]))
        for il, ol, aw, dst in by_src[q]:
            stack.append((dst, x + il, y + ol, times(w, aw)))
    return dict(out)


def close(a, b, semiring, rel=None):
    """Equality up to round-off: float64 for log64 weights, float32 for tropical costs."""
    rel = rel or (2e-6 if semiring == "tropical" else 1e-9)
    if semiring == "boolean":
        return bool(a) == bool(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def random_weight(rng, semiring):
    if semiring == "probability":
        return rng.choice([0.5, 1.0, 2.0, rng.uniform(0.05, 2.0)])
    if semiring in ("tropical", "log"):
        return rng.choice([0.0, 1.0, rng.uniform(-2.0, 3.0)])
    return rng.random() < 0.8


def random_arcs(rng: random.Random, semiring: str, symbols="ab", n_states=None, eps=0.25, acceptor=False):
    """A random acyclic transducer (arcs go from lower to higher states): (arcs, start, finals)."""
    n = n_states or rng.randint(2, 5)
    arcs = []
    for src in range(n - 1):
        for _ in range(rng.randint(1, 3)):
            dst = rng.randint(src + 1, n - 1)
            il = "" if rng.random() < eps else rng.choice(symbols)
            ol = il if acceptor else ("" if rng.random() < eps else rng.choice(symbols))
            if acceptor:
                arcs.append((src, il, random_weight(rng, semiring), dst))
            else:
                arcs.append((src, il, ol, random_weight(rng, semiring), dst))
    finals = {q: random_weight(rng, semiring) for q in range(n) if q == n - 1 or rng.random() < 0.3}
    return arcs, 0, finals


def strings(symbols="ab", max_len=3):
    """Every string over ``symbols`` of length ≤ max_len."""
    for n in range(max_len + 1):
        for t in itertools.product(symbols, repeat=n):
            yield "".join(t)
