"""The (k, m)-mismatch kernel.

K_(k,m)(x, y) = Σ_{z ∈ Σ^k} T(x, z) T(y, z) with T(x, z) = Σ_{u ∈ F_k(x)} d_m(u, z): every
occurrence (position) u of a k-factor of x contributes 1 to each z within m mismatches
of it (eq. (5)–(6)). The value depends on the alphabet Σ.

Features of strings are written by one compiled pass into arrays whose size,
W·Σ_{j≤m} C(k, j)(|Σ| − 1)^j for W windows, is computed first and refused beyond
:data:`~ratkit.limits.MAX_FEATURE_ENTRIES`; the transducer T_(k,m) and the feature automata Φ_x have
sizes known in closed form too (:func:`mismatch_counter_arcs`,
:meth:`MismatchKernel._feature_automaton_arcs`).

References
----------
A. Ghose, *Rational kernels: a survey*, §II item 3, eq. (5)–(6) and Fig. 5; C. Leslie et
al., "Mismatch string kernels for discriminative protein classification", Bioinformatics
20 (2004).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ratkit._jit import njit
from ratkit._validation import check_int
from ratkit.automata.alphabet import Alphabet, as_symbols, display_symbols
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._rational_work import check_factor_arcs
from ratkit.automata.kernels._windows import encode, window_codes
from ratkit.automata.kernels.features import uniform_values
from ratkit.automata.kernels.rational import RationalKernel, Strategy
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError, ResourceLimitError
from ratkit.limits import MAX_FEATURE_ENTRIES, MAX_PHI_ARCS
from ratkit.plugins import register

__all__ = ["MismatchKernel", "mismatch", "mismatch_counter"]

#: Bytes a (row, code) triplet of the features costs: 16 (int64 row and code; the values take
#: no memory) and up to 12 in the sparse matrix built from them; measured, about 31 (see
#: :data:`ratkit.limits.MAX_FEATURE_ENTRIES`).
_BYTES_PER_ENTRY = 31


def mismatch_counter_arcs(k: int, m: int, n_symbols: int) -> int:
    """|Σ|·(1 + (m + 1)(k + 1) + k·m·(|Σ| − 1)): the arcs of :func:`mismatch_counter` over
    |Σ| = ``n_symbols`` (per symbol: the prefix loop, a suffix loop and k copies per level,
    k·m·(|Σ| − 1) substitutions)."""
    return n_symbols * (1 + (m + 1) * (k + 1) + k * m * (n_symbols - 1))


def mismatch_counter(k: int, m: int, alphabet: Alphabet) -> Transducer:
    """T_(k,m) of Fig. 5: level j counts the mismatches used; a σ:τ arc (τ ≠ σ) goes one level down.

    States (p, j): p symbols of the factor read, j ≤ m mismatches; σ:ε loops on (0, 0)
    skip the prefix and on (k, j) the suffix.

    Raises
    ------
    ResourceLimitError
        When T would have more than :data:`~ratkit.limits.MAX_FACTOR_ARCS` arcs
        (:func:`mismatch_counter_arcs`).
    """
    check_factor_arcs(
        mismatch_counter_arcs(k, m, len(alphabet)),
        f"The ({k}, {m})-mismatch transducer over {len(alphabet):,} symbols "
        "(|Σ|·(1 + (m + 1)(k + 1) + k·m·(|Σ| − 1)) arcs)",
        "Use fewer distinct symbols or a smaller m, or strategy='specialized' (the window features need no "
        "transducer).",
    )
    arcs = []
    for s in alphabet:
        arcs.append(((0, 0), s, "", 1.0, (0, 0)))
        for j in range(m + 1):
            arcs.append(((k, j), s, "", 1.0, (k, j)))
            for p in range(k):
                arcs.append(((p, j), s, s, 1.0, (p + 1, j)))
                if j < m:
                    arcs += [((p, j), s, t, 1.0, (p + 1, j + 1)) for t in alphabet if t != s]
    finals: dict[Hashable, float] = {(k, j): 1.0 for j in range(m + 1)}
    return from_arcs(arcs, (0, 0), finals, PROBABILITY, alphabet)


@register("kernel", "mismatch")
class MismatchKernel(RationalKernel):
    """K_(k,m)(x, y) = ⟨Φ_(k,m)(x), Φ_(k,m)(y)⟩ (eq. (5)), as Ψ(T_(k,m) ∘ T_(k,m)⁻¹).

    Parameters
    ----------
    k
        Factor length, ≥ 1.
    m
        Mismatches allowed, 0 ≤ m ≤ k.
    alphabet
        Σ (a string of symbols or a list of tokens). The value depends on it; when
        omitted it is inferred from the first data the kernel sees (``fit`` or the first
        Gram matrix) and then fixed; later symbols outside it raise UnknownSymbolError.
    """

    semiring = PROBABILITY
    _spec_required = ("k", "m")

    def __init__(
        self,
        k: int = 5,
        m: int = 1,
        alphabet: str | Sequence[str] | None = None,
        *,
        strategy: Strategy = "auto",
        n_jobs: int | None = None,
        show_progress: bool = False,
    ) -> None:
        self.k = k
        self.m = m
        self.alphabet = alphabet
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    def _validate_params(self) -> None:
        check_int(self.k, "k", "mismatch", low=1)
        check_int(self.m, "m", "mismatch", low=0)
        if self.m > self.k:
            raise ParameterError(
                f"The 'm' parameter of mismatch must be ≤ k (at most k mismatches in a "
                f"k-factor). Got k={self.k!r}, m={self.m!r} instead."
            )
        if self.alphabet is not None and len(as_symbols(self.alphabet, "alphabet")) == 0:
            raise ParameterError("The 'alphabet' parameter of mismatch must not be empty.")

    def fit(self, X: Any, y: Any = None) -> MismatchKernel:
        """Fix the alphabet to the symbols of X when none was given."""
        self._validate_params()
        if self.alphabet is None:
            symbols = tuple(super().alphabet_for(X).symbols)
            if symbols:  # inputs without a symbol (e.g. only empty strings) fix nothing yet
                self.alphabet_ = symbols
        return self

    def learned_params(self) -> dict[str, Any]:
        """The inferred alphabet Σ (``alphabet_``) when none was declared, else ``{}``."""
        if self.alphabet is None and "alphabet_" in vars(self):
            symbols = self.alphabet_
            return {"alphabet": display_symbols(list(symbols))}
        return {}

    def _alphabet_symbols(self) -> tuple[str, ...] | None:
        if self.alphabet is not None:
            return tuple(dict.fromkeys(as_symbols(self.alphabet, "alphabet")))
        return vars(self).get("alphabet_")

    def alphabet_for(self, sequences: Sequence[Any]) -> Alphabet:
        if self._alphabet_symbols() is None:
            self.fit(sequences)
        return super().alphabet_for(sequences)

    def _build_factor(self, alphabet: Alphabet) -> Transducer:
        self._validate_params()
        return mismatch_counter(self.k, self.m, alphabet)

    def _feature_automaton_arcs(self, length: int, n_symbols: int) -> int | None:
        """The arcs of the ε-removed Φ_x = Π2(X ∘ T_(k,m)) of a sequence of ``length`` symbols.

        Φ_x keeps the states (i, p, j) of X ∘ T (i symbols of x read, p of the factor, j
        mismatches) with 1 ≤ p < k, each with one σ:σ arc and, while j < m, |Σ| − 1
        mismatch arcs, plus the start state holding the arcs of every (i, 0, 0); each of
        the W = |x| − k + 1 windows contributes the same, so (exact, by measurement)

            arcs = W · Σ_{p=0}^{k−1} Σ_{j=0}^{min(p, m)} (1 + (|Σ| − 1)·[j < m]).

        None while Σ is not fixed.
        """
        symbols = self._alphabet_symbols()
        if symbols is None:
            return None
        k, m, n = int(self.k), int(self.m), len(symbols)
        per_window = sum(1 + (n - 1) * (j < m) for p in range(k) for j in range(min(p, m) + 1))
        return max(int(length) - k + 1, 0) * per_window

    def _intersection_hint(self, lengths: np.ndarray) -> str:
        """A hint to use strategy='intersection' when the feature automata of sequences of
        these lengths fit in :data:`~ratkit.limits.MAX_PHI_ARCS` arcs, else ""."""
        arcs = sum(self._feature_automaton_arcs(int(n), 0) or 0 for n in lengths)
        if arcs > MAX_PHI_ARCS:
            return ""
        return f", or strategy='intersection' (pairwise, on feature automata of {arcs:,} arcs in all)"

    def _specialized_features(
        self, sequences: list[Any], symbols: dict[str, int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """COO triplets (row, code, 1) of every k-window u of every sequence and every z ∈ Σ^k
        within m substitutions of u: W·Σ_{j≤m} C(k, j)(|Σ| − 1)^j triplets for W windows.

        The number of triplets is known before anything is allocated; they are written by
        one compiled pass (:func:`_fill_neighbours`) into arrays of exactly that size.

        Raises
        ------
        ResourceLimitError
            When there would be more than :data:`~ratkit.limits.MAX_FEATURE_ENTRIES` triplets.
        TooManyPaths
            When k-window codes do not fit in an int64 (the base class then uses Φ_x).
        """
        self._validate_params()
        k, m, base = int(self.k), int(self.m), len(symbols) + 1
        sigma = np.array([symbols[s] for s in self._alphabet_symbols() or () if s in symbols], dtype=np.int64)
        labels, offsets = encode(sequences, symbols)
        # a symbol of the vocabulary outside Σ is in no window of T_(k,m) (alphabet_for refuses it anyway)
        lut = np.full(base, -1, dtype=np.int64)
        lut[sigma] = np.arange(sigma.size)
        labels = np.where(lut[labels] >= 0, labels, 0)
        rows, codes = window_codes(labels, offsets, k, base)
        per_window = sum(math.comb(k, j) * max(sigma.size - 1, 0) ** j for j in range(m + 1))
        entries = rows.size * per_window
        if entries > MAX_FEATURE_ENTRIES:
            raise ResourceLimitError(
                f"{self!r}: the features of these {len(sequences):,} sequences would hold {rows.size:,} windows "
                f"× {per_window:,} neighbours each (Σ_{{j≤m}} C(k, j)(|Σ| − 1)^j, |Σ| = {sigma.size}) = "
                f"{entries:,} entries, beyond the limit of {MAX_FEATURE_ENTRIES:,} entries (about "
                f"{entries * _BYTES_PER_ENTRY / 2**30:.1f} GiB). Use a smaller m or k, or fewer or shorter sequences "
                f"at a time{self._intersection_hint(np.diff(offsets))}."
            )
        subsets = [p for j in range(1, m + 1) for p in itertools.combinations(range(k), j)]
        positions = np.full((len(subsets), max(m, 1)), -1, dtype=np.int64)
        for r, p in enumerate(subsets):
            positions[r, : len(p)] = p
        weights = base ** np.arange(k - 1, -1, -1, dtype=np.int64)  # digit p of a code has weight base^(k−1−p)
        out_rows = np.empty(entries, dtype=np.int64)
        out_codes = np.empty(entries, dtype=np.int64)
        _fill_neighbours(rows, codes, positions, weights, base, sigma, lut, out_rows, out_codes)
        return out_rows, out_codes, uniform_values(entries)


@njit
def _fill_neighbours(rows, codes, positions, weights, base, sigma, lut, out_rows, out_codes):  # pragma: no cover
    """Write each window (row, code), then each code at exactly j substitutions, 1 ≤ j ≤ m:
    for every set of positions p_1 < … < p_j (a row of ``positions``, −1 padded) and shifts
    t_i ∈ 1..|Σ| − 1, the digit σ_a at p_i becomes σ_((a + t_i) mod |Σ|) — each z within m
    substitutions exactly once. Returns the number of triplets written."""
    k = weights.shape[0]
    n_sigma = sigma.shape[0]
    digits = np.empty(k, dtype=np.int64)  # Σ-indices of the window's digits
    shift = np.empty(positions.shape[1], dtype=np.int64)
    w = 0
    for t in range(rows.shape[0]):
        code = codes[t]
        row = rows[t]
        for p in range(k):
            digits[p] = lut[(code // weights[p]) % base]
        out_rows[w] = row
        out_codes[w] = code
        w += 1
        if n_sigma < 2:
            continue
        for r in range(positions.shape[0]):
            j = 0
            while j < positions.shape[1] and positions[r, j] >= 0:
                j += 1
            for i in range(j):
                shift[i] = 1
            while True:
                c = code
                for i in range(j):
                    p = positions[r, i]
                    a = digits[p]
                    b = a + shift[i]
                    if b >= n_sigma:
                        b -= n_sigma
                    c += (sigma[b] - sigma[a]) * weights[p]
                out_rows[w] = row
                out_codes[w] = c
                w += 1
                i = j - 1  # the next shifts, as an odometer with digits 1..|Σ| − 1
                while i >= 0:
                    shift[i] += 1
                    if shift[i] < n_sigma:
                        break
                    shift[i] = 1
                    i -= 1
                if i < 0:
                    break
    return w


def mismatch(k: int = 5, m: int = 1, alphabet: str | Sequence[str] | None = None, **options: Any) -> MismatchKernel:
    """The (k, m)-mismatch kernel over ``alphabet`` (see :class:`MismatchKernel`)."""
    kern = MismatchKernel(k, m, alphabet, **options)
    kern._validate_params()
    kern._validate_options()
    return kern
