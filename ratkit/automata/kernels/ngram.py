"""The n-gram kernel: K(x, y) = Σ_{|z| = n} c(x, z) c(y, z), with c the overlapping count.

References
----------
A. Ghose, *Rational kernels: a survey*, §II item 1 (the bigram counter of Fig. 2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratkit._validation import check_int
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._windows import encode, window_codes
from ratkit.automata.kernels.features import uniform_values
from ratkit.automata.kernels.rational import RationalKernel, Strategy
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.plugins import register

__all__ = ["NgramKernel", "ngram", "ngram_counter"]


def ngram_counter(n: int, alphabet: Alphabet) -> Transducer:
    """T(x, z) = c(x, z) for |z| = n: skip a prefix (σ:ε), copy n symbols (σ:σ), skip the rest."""
    arcs = []
    for s in alphabet:
        arcs.append((0, s, "", 1.0, 0))
        arcs.append((n, s, "", 1.0, n))
        arcs += [(q, s, s, 1.0, q + 1) for q in range(n)]
    return from_arcs(arcs, 0, {n: 1.0}, PROBABILITY, alphabet)


@register("kernel", "ngram")
class NgramKernel(RationalKernel):
    """K(x, y) = Σ_{z ∈ Σⁿ} c(x, z) c(y, z) = Ψ(⟦T ∘ T⁻¹⟧(x, y)), T the n-gram counter.

    Parameters
    ----------
    n
        The n-gram length, ≥ 1.
    strategy, n_jobs, show_progress
        How Gram matrices are computed (see :class:`RationalKernel`), on how many
        processes, with a progress bar or not.
    """

    semiring = PROBABILITY
    _spec_required = ("n",)

    def __init__(
        self, n: int = 3, *, strategy: Strategy = "auto", n_jobs: int | None = None, show_progress: bool = False
    ) -> None:
        self.n = n
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    def _validate_params(self) -> None:
        check_int(self.n, "n", "ngram", low=1)

    def _build_factor(self, alphabet: Alphabet) -> Transducer:
        self._validate_params()
        return ngram_counter(self.n, alphabet)

    def _specialized_features(
        self, sequences: list[Any], symbols: dict[str, int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        self._validate_params()
        labels, offsets = encode(sequences, symbols)
        rows, codes = window_codes(labels, offsets, self.n, len(symbols) + 1)
        return rows, codes, uniform_values(codes.shape[0])


def ngram(n: int = 3, **options: Any) -> NgramKernel:
    """The n-gram count kernel K(x, y) = Σ_{z ∈ Σⁿ} c(x, z) c(y, z) (see :class:`NgramKernel`)."""
    k = NgramKernel(n, **options)
    k._validate_params()
    k._validate_options()
    return k
