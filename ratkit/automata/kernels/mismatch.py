"""The (k, m)-mismatch kernel.

K_(k,m)(x, y) = Σ_{z ∈ Σ^k} T(x, z) T(y, z) with T(x, z) = Σ_{u ∈ F_k(x)} d_m(u, z): every
occurrence (position) u of a k-factor of x contributes 1 to each z within m mismatches
of it (eq. (5)–(6)). The value depends on the alphabet Σ.

References
----------
A. Ghose, *Rational kernels: a survey*, §II item 3, eq. (5)–(6) and Fig. 5; C. Leslie et
al., "Mismatch string kernels for discriminative protein classification", Bioinformatics
20 (2004).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ratkit.automata.alphabet import Alphabet, as_symbols
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._features import uniform_values
from ratkit.automata.kernels._validation import check_int
from ratkit.automata.kernels._windows import encode, window_codes
from ratkit.automata.kernels.base import RationalKernel, Strategy
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.plugins import register

__all__ = ["MismatchKernel", "mismatch", "mismatch_counter"]


def mismatch_counter(k: int, m: int, alphabet: Alphabet) -> Transducer:
    """T_(k,m) of Fig. 5: level j counts the mismatches used; a σ:τ arc (τ ≠ σ) goes one level down.

    States (p, j): p symbols of the factor read, j ≤ m mismatches; σ:ε loops on (0, 0)
    skip the prefix and on (k, j) the suffix.
    """
    arcs = []
    for s in alphabet:
        arcs.append(((0, 0), s, "", 1.0, (0, 0)))
        for j in range(m + 1):
            arcs.append(((k, j), s, "", 1.0, (k, j)))
            for p in range(k):
                arcs.append(((p, j), s, s, 1.0, (p + 1, j)))
                if j < m:
                    arcs += [((p, j), s, t, 1.0, (p + 1, j + 1)) for t in alphabet if t != s]
    finals = {(k, j): 1.0 for j in range(m + 1)}
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

    def _validate(self) -> None:
        check_int(self.k, "k", "mismatch", low=1)
        check_int(self.m, "m", "mismatch", low=0)
        if self.m > self.k:
            raise ValueError(
                f"The 'm' parameter of mismatch must be ≤ k (at most k mismatches in a "
                f"k-factor). Got k={self.k!r}, m={self.m!r} instead."
            )
        if self.alphabet is not None and len(as_symbols(self.alphabet, "alphabet")) == 0:
            raise ValueError("The 'alphabet' parameter of mismatch must not be empty.")

    def fit(self, X: Any, y: Any = None) -> MismatchKernel:
        """Fix the alphabet to the symbols of X when none was given."""
        self._validate()
        if self.alphabet is None:
            symbols = tuple(super().alphabet_for(X).symbols)
            if symbols:  # inputs without a symbol (e.g. only empty strings) fix nothing yet
                self.alphabet_ = symbols
        return self

    def _alphabet_symbols(self) -> tuple[str, ...] | None:
        if self.alphabet is not None:
            return tuple(dict.fromkeys(as_symbols(self.alphabet, "alphabet")))
        return getattr(self, "alphabet_", None)

    def alphabet_for(self, sequences: Sequence[Any]) -> Alphabet:
        if self._alphabet_symbols() is None:
            self.fit(sequences)
        return super().alphabet_for(sequences)

    def _build_factor(self, alphabet: Alphabet) -> Transducer:
        self._validate()
        return mismatch_counter(self.k, self.m, alphabet)

    def _specialized_features(self, sequences: list[Any], symbols: dict[str, int]):
        """Every k-window and each z within m substitutions of it, over the fixed Σ."""
        self._validate()
        k, m, base = self.k, self.m, len(symbols) + 1
        sigma = np.array([symbols[s] for s in self._alphabet_symbols() or () if s in symbols], dtype=np.int64)
        labels, offsets = encode(sequences, symbols)
        rows, codes = window_codes(labels, offsets, k, base)
        digits = np.array([(codes // base ** (k - 1 - p)) % base for p in range(k)])  # (k, W)
        out_rows, out_codes = [rows], [codes]
        for j in range(1, m + 1):
            for positions in itertools.combinations(range(k), j):
                for subs in itertools.product(sigma, repeat=j):
                    d = digits.copy()
                    ok = np.ones(codes.shape[0], dtype=bool)
                    for p, s in zip(positions, subs):
                        ok &= d[p] != s  # exactly j mismatches: each substituted symbol differs
                        d[p] = s
                    new = np.zeros(int(ok.sum()), dtype=np.int64)
                    for p in range(k):
                        new = new * base + d[p][ok]
                    out_rows.append(rows[ok])
                    out_codes.append(new)
        all_codes = np.concatenate(out_codes)
        return np.concatenate(out_rows), all_codes, uniform_values(all_codes.shape[0])


def mismatch(k: int = 5, m: int = 1, alphabet: str | Sequence[str] | None = None, **options: Any) -> MismatchKernel:
    """The (k, m)-mismatch kernel over ``alphabet`` (see :class:`MismatchKernel`)."""
    kern = MismatchKernel(k, m, alphabet, **options)
    kern._validate()
    return kern
