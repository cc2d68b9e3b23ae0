"""The subsequence kernel: the number of distinct common subsequences.

K(x, y) = Σ_{u ∈ Σ*} [u ⊑ x] [u ⊑ y] (eq. (33)), the empty string included, where u ⊑ x
means that u is a (not necessarily contiguous) subsequence of x.

Gram matrices come from a compiled DP over the two subsequence automata in memory linear
in the shorter sequence of each pair (:func:`_count_common`); a count beyond the largest
float64 raises WeightOverflowError instead of returning +∞. The transducer T has
|Σ|·(4|Σ| + 2) arcs, so it is refused beyond :data:`~ratkit.limits.MAX_FACTOR_ARCS` arcs.

References
----------
A. Ghose, *Rational kernels: a survey*, §IV-A4, eq. (33) and Fig. 12.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ratkit._jit import njit
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._rational_work import check_factor_arcs
from ratkit.automata.kernels._windows import encode
from ratkit.automata.kernels.rational import RationalKernel, Strategy
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import WeightOverflowError
from ratkit.plugins import register

__all__ = ["SubsequenceKernel", "subsequence", "subsequence_transducer"]

_FLOAT_MAX = float(np.finfo(np.float64).max)


def subsequence_transducer_arcs(n_symbols: int) -> int:
    """|Σ|·(4|Σ| + 2): the arcs of :func:`subsequence_transducer` over |Σ| = ``n_symbols``
    (per input symbol s: 4 arcs into F, 2(|Σ| − 1) skips into the W_c, c ≠ s, 2|Σ| outputs)."""
    return n_symbols * (4 * n_symbols + 2)


def subsequence_transducer(alphabet: Alphabet) -> Transducer:
    """T with exactly one accepting path for each (x, u) with u ⊑ x, of weight 1.

    The path follows the leftmost embedding of u in x: state W_c waits for the next
    output symbol c and may only skip symbols other than c; F skips the rest after the
    last output; the start state S acts as any W_c or as F. This makes the embedding,
    hence the path, unique — the property the survey obtains as T = T0 − R0 (Fig. 12).

    Raises
    ------
    ResourceLimitError
        When T would have more than :data:`~ratkit.limits.MAX_FACTOR_ARCS` arcs
        (:func:`subsequence_transducer_arcs`).
    """
    syms = list(alphabet)
    check_factor_arcs(
        subsequence_transducer_arcs(len(syms)),
        f"The subsequence transducer over {len(syms):,} symbols (|Σ|·(4|Σ| + 2) arcs)",
        "Use fewer distinct symbols, or Gram matrices with strategy='auto' (the subsequence DP needs no transducer).",
    )
    arcs: list[tuple[Hashable, str, str, float, Hashable]] = []
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


@register("kernel", "subsequence")
class SubsequenceKernel(RationalKernel):
    """K(x, y) = #{u ∈ Σ* : u ⊑ x and u ⊑ y} = Ψ(⟦T ∘ T⁻¹⟧(x, y)), T of
    :func:`subsequence_transducer`.

    Gram matrices count the paths of the product of the two subsequence DFAs (each
    accepts its subsequences along exactly one path): O(``|x|·|y|``·v) time per pair for the
    v symbols common to x and y, and O(min(``|x|``, ``|y|``) + v) memory (:func:`_count_common`).
    Counts are float64, exact up to 2^53; a count beyond the largest float64 (≈ 1.8e308,
    reached by two random binary strings of about 1 500 symbols) raises
    :class:`~ratkit.exceptions.WeightOverflowError` naming the pair. The feature map has
    up to 2^|x| patterns, so it is enumerated only for short strings.
    """

    semiring = PROBABILITY

    def __init__(self, *, strategy: Strategy = "auto", n_jobs: int | None = None, show_progress: bool = False) -> None:
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    def _build_factor(self, alphabet: Alphabet) -> Transducer:
        return subsequence_transducer(alphabet)

    def _feature_automaton_arcs(self, length: int, n_symbols: int) -> int:
        """An upper estimate of the arcs of the ε-removed Φ_x = Π2(X ∘ T) of a sequence of
        ``length`` symbols, ``n_symbols`` of them distinct.

        A state of Φ_x with t symbols of x left waits for one of the at most min(v, t)
        symbols still to come, and the state after it has at most min(v, t − 1) + 1 arcs
        (one per symbol still to come, and F), so with w = min(v, |x|)

            arcs ≤ Σ_{t=1}^{|x|} min(v, t)·(min(v, t − 1) + 1) = w(w + 1)(2w + 1)/6 + (|x| − w)·v(v + 1):

        linear in |x| for a small alphabet, cubic when every symbol is distinct. Measured:
        never below OpenFst's count (every string of ≤ 8 symbols over ≤ 4 letters, 400 random
        ones up to 30 symbols over ≤ 16) and at most 2.6 times it. The length alone cannot
        tell the two cases apart, hence the number of distinct symbols.
        """
        n, v = int(length), int(n_symbols)
        w = min(v, n)
        return w * (w + 1) * (2 * w + 1) // 6 + (n - w) * v * (v + 1)

    def gram_features(self, X: Any, Y: Any = None, **options: Any) -> None:
        """None: blocks of a Gram matrix use the dynamic programme, not an explicit feature map."""
        return None

    def _specialized_gram(self, X: list, Ys: list, alphabet: Alphabet) -> np.ndarray:
        """K(x_i, y_j) for every pair by the DP of :func:`_count_common` (Y = X: j ≥ i only).

        Raises
        ------
        WeightOverflowError
            When a count exceeds the largest float64: an infinite value is not the number
            of common subsequences, so it is never returned.
        """
        index = {s: i + 1 for i, s in enumerate(alphabet)}
        lx, ox = encode(X, index)
        ly, oy = encode(Ys, index)
        symmetric = Ys is X
        out = np.empty((len(X), len(Ys)))
        stamp = np.zeros(len(index) + 1, dtype=np.int64)
        local = np.zeros(len(index) + 1, dtype=np.int64)
        for i in range(len(X)):
            first = i if symmetric else 0
            _gram_row(lx[ox[i] : ox[i + 1]], ly, oy, first, stamp, local, out[i])
            bad = np.flatnonzero(~np.isfinite(out[i, first:]))
            if bad.size:
                j = first + int(bad[0])
                raise WeightOverflowError(
                    f"{self!r}: the number of common subsequences of X[{i}] ({ox[i + 1] - ox[i]:,} symbols) and "
                    f"{'X' if symmetric else 'Y'}[{j}] ({oy[j + 1] - oy[j]:,} symbols) exceeds the largest float64 "
                    "(about 1.8e308), so K has no float value (an infinite one would not be that count). Use "
                    "shorter sequences (split long ones into pieces) or a kernel whose values stay bounded "
                    "(ngram, gappy)."
                )
        if symmetric:
            upper = np.triu_indices(len(X), 1)
            out[upper[::-1]] = out[upper]
        return out


@njit
def _gram_row(x, ly, oy, first, stamp, local, out):  # pragma: no cover - compiled
    """out[j] = K(x, y_j) for j ≥ ``first``; ``stamp`` and ``local`` are scratch arrays
    indexed by label, zeros at first (y_j's tag j + 1 marks y_j's symbols, whatever x)."""
    for j in range(first, oy.shape[0] - 1):
        out[j] = _count_common(x, ly[oy[j] : oy[j + 1]], stamp, local, j + 1)


@njit
def _common_symbols(seq, stamp, local, mark):  # pragma: no cover - compiled
    """(the local numbers of the symbols of ``seq`` stamped ``mark``, in order; how many)."""
    out = np.empty(seq.shape[0], dtype=np.int64)
    n = 0
    for t in range(seq.shape[0]):
        if stamp[seq[t]] == mark:
            out[n] = local[seq[t]]
            n += 1
    return out, n


@njit
def _count_common(x, y, stamp, local, tag):  # pragma: no cover - compiled
    """#{u : u ⊑ x and u ⊑ y} in float64 (+∞ once it exceeds the largest float64).

    Only the v symbols common to x and y can occur in a common subsequence, so both are
    first reduced to them (numbered 0..v − 1); then the shorter one is y. With N(p, r) the
    count for the suffixes x[p:] and y[r:], δ(p, c) the state after the next c of x at or
    after p (the subsequence DFA; a dead state, count 0, when there is none):

        N(p, r) = 1 + Σ_c N(δx(p, c), δy(r, c)),   K = N(0, 0).

    Row N(p, ·) reads row δx(p, c) only at the columns δy(r, c), i.e. right after an
    occurrence of c in y; so A[r'] = N(δx(p, y[r' − 1]), r') holds everything the rows to
    come need, and moving from p + 1 to p changes A only where y[r' − 1] = x[p]. Memory:
    three rows of |y| + 1 floats and v running terms, for O(|x|·|y|·v) time. ``stamp`` and
    ``tag`` mark y's symbols without clearing a table per pair.
    """
    for t in range(y.shape[0]):
        stamp[y[t]] = tag
    v = 0
    for t in range(x.shape[0]):
        s = x[t]
        if stamp[s] == tag:  # in y: number it once (−tag marks a numbered symbol)
            stamp[s] = -tag
            local[s] = v
            v += 1
    xs, n_x = _common_symbols(x, stamp, local, -tag)
    ys, n_y = _common_symbols(y, stamp, local, -tag)
    if n_y > n_x:
        xs, ys, n_x, n_y = ys, xs, n_y, n_x
    cur = np.ones(n_y + 1)  # N(|x|, ·) = 1: only ε is left
    nxt = np.empty(n_y + 1)
    A = np.zeros(n_y + 1)  # no symbol of x is left: every δx is dead
    last = np.zeros(max(v, 1))
    for p in range(n_x - 1, -1, -1):
        a = xs[p]
        for r in range(n_y):
            if ys[r] == a:
                A[r + 1] = cur[r + 1]
        last[:v] = 0.0
        nxt[n_y] = 1.0
        for r in range(n_y - 1, -1, -1):
            last[ys[r]] = A[r + 1]
            total = 1.0
            for c in range(v):
                total += last[c]
            nxt[r] = total
        if not nxt[0] <= _FLOAT_MAX:  # N(p, 0) is the row's largest: the count has overflowed
            return np.inf
        cur, nxt = nxt, cur
    return cur[0]


def subsequence(**options: Any) -> SubsequenceKernel:
    """The subsequence kernel (see :class:`SubsequenceKernel`)."""
    k = SubsequenceKernel(**options)
    k._validate_options()
    return k
