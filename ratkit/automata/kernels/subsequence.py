"""The subsequence kernel: the number of distinct common subsequences.

K(x, y) = Σ_{u ∈ Σ*} [u ⊑ x] [u ⊑ y] (eq. (33)), the empty string included, where u ⊑ x
means that u is a (not necessarily contiguous) subsequence of x.

References
----------
A. Ghose, *Rational kernels: a survey*, §IV-A4, eq. (33) and Fig. 12.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._windows import encode
from ratkit.automata.kernels.base import RationalKernel, Strategy
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.plugins import register

__all__ = ["SubsequenceKernel", "subsequence", "subsequence_transducer"]


def subsequence_transducer(alphabet: Alphabet) -> Transducer:
    """T with exactly one accepting path for each (x, u) with u ⊑ x, of weight 1.

    The path follows the leftmost embedding of u in x: state W_c waits for the next
    output symbol c and may only skip symbols other than c; F skips the rest after the
    last output; the start state S acts as any W_c or as F. This makes the embedding,
    hence the path, unique — the property the survey obtains as T = T0 − R0 (Fig. 12).
    """
    syms = list(alphabet)
    arcs = []
    for s in syms:
        arcs.append(("S", s, "", 1.0, "F"))
        arcs.append(("F", s, "", 1.0, "F"))
        arcs.append(("S", s, s, 1.0, "F"))
        arcs.append((("W", s), s, s, 1.0, "F"))
        for c in syms:
            if c != s:
                arcs.append(("S", s, "", 1.0, ("W", c)))
                arcs.append((("W", c), s, "", 1.0, ("W", c)))
            arcs.append(("S", s, s, 1.0, ("W", c)))
            arcs.append((("W", s), s, s, 1.0, ("W", c)))
    return from_arcs(arcs, "S", {"S": 1.0, "F": 1.0}, PROBABILITY, alphabet)


def _next_states(lab: np.ndarray, n_sym: int) -> np.ndarray:
    """nxt[p, c]: the state after reading symbol c from state p of the subsequence DFA
    of the sequence (state p = the first p symbols used up), or −1 when c does not occur."""
    nxt = np.full((lab.size + 1, n_sym + 1), -1, dtype=np.int64)
    for q in range(lab.size - 1, -1, -1):
        nxt[q] = nxt[q + 1]
        nxt[q, lab[q]] = q + 1
    return nxt


@register("kernel", "subsequence")
class SubsequenceKernel(RationalKernel):
    """K(x, y) = #{u ∈ Σ* : u ⊑ x and u ⊑ y} = Ψ(⟦T ∘ T⁻¹⟧(x, y)), T of
    :func:`subsequence_transducer`.

    Gram matrices count the paths of the product of the two subsequence DFAs (each
    accepts its subsequences along exactly one path), O(|x|·|y|·|Σ|) per pair; the
    feature map has up to 2^|x| patterns, so it is enumerated only for short strings.
    """

    semiring = PROBABILITY

    def __init__(self, *, strategy: Strategy = "auto", n_jobs: int | None = None, show_progress: bool = False) -> None:
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    def _build_factor(self, alphabet: Alphabet) -> Transducer:
        return subsequence_transducer(alphabet)

    def _specialized_gram(self, X: list, Ys: list, alphabet: Alphabet) -> np.ndarray:
        """N(p, r) = 1 + Σ_c N(δx(p, c), δy(r, c)) over the product DFA; K = N(0, 0)."""
        index = {s: i + 1 for i, s in enumerate(alphabet)}
        n_sym = len(index)
        lx, ox = encode(X, index)
        ly, oy = encode(Ys, index)
        # all states of all y's in one axis; R is the dead state
        tables = [_next_states(ly[oy[j] : oy[j + 1]], n_sym) for j in range(len(Ys))]
        starts = np.concatenate([[0], np.cumsum([t.shape[0] for t in tables])])[:-1]
        R = int(sum(t.shape[0] for t in tables))
        ny = np.vstack(tables)
        ny = np.where(ny >= 0, ny + np.repeat(starts, [t.shape[0] for t in tables])[:, None], R)
        out = np.empty((len(X), len(Ys)))
        for i in range(len(X)):
            nx = _next_states(lx[ox[i] : ox[i + 1]], n_sym)
            dead = nx.shape[0]
            nx = np.where(nx >= 0, nx, dead)
            N = np.zeros((dead + 1, R + 1))
            for p in range(dead - 1, -1, -1):
                acc = np.ones(R)
                for c in range(1, n_sym + 1):
                    acc += N[nx[p, c], ny[:, c]]
                N[p, :R] = acc
            out[i] = N[0, starts]
        return out


def subsequence(**options: Any) -> SubsequenceKernel:
    """The subsequence kernel (see :class:`SubsequenceKernel`)."""
    return SubsequenceKernel(**options)
