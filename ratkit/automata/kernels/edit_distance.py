"""Edit distance as a rational kernel, over the tropical or the probability semiring.

Tropical (Fig. 7a): K(x, y) = min over alignments of the summed operation costs — with
unit costs, the Levenshtein distance d_e(x, y). Probability (Fig. 7b): K(x, y) = the sum
over all alignments (all paths of the one-state transducer, insertions and deletions
interleaved in every order) of the product of the operation weights.

Neither is PDS (Proposition 3): use :func:`ratkit.automata.kernels.exp_kernel` or the
other NDS→PDS constructions of Theorem 3 to build a kernel for SVMs.

References
----------
A. Ghose, *Rational kernels: a survey*, §II-A, Fig. 7, Proposition 3 and Fig. 8.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._validation import check_real
from ratkit.automata.kernels._windows import encode
from ratkit.automata.kernels.base import RationalKernel, Strategy
from ratkit.automata.semirings import get_semiring
from ratkit.automata.transducer import Transducer
from ratkit.plugins import register

__all__ = ["EditDistanceKernel", "edit_distance", "edit_transducer"]

_DEFAULTS = {
    "tropical": {"match": 0.0, "substitution": 1.0, "insertion": 1.0, "deletion": 1.0},
    "probability": {"match": 1.0, "substitution": 0.1, "insertion": 0.1, "deletion": 0.1},
}


def edit_transducer(
    alphabet: Alphabet, semiring: str, match: float, substitution: float, insertion: float, deletion: float
) -> Transducer:
    """One state, final with 1̄: a:a/match, a:b/substitution (a ≠ b), a:ε/deletion, ε:b/insertion."""
    arcs = []
    for a in alphabet:
        arcs.append((0, a, "", deletion, 0))
        arcs.append((0, "", a, insertion, 0))
        arcs += [(0, a, b, match if a == b else substitution, 0) for b in alphabet]
    sr = get_semiring(semiring)
    return from_arcs(arcs, 0, {0: sr.one}, sr, alphabet)


@register("kernel", "edit_distance")
class EditDistanceKernel(RationalKernel):
    """K(x, y) = Ψ(⟦E⟧(x, y)) for the edit transducer E (see the module docstring).

    Parameters
    ----------
    semiring
        ``"tropical"`` (costs; the minimum over alignments) or ``"probability"`` (weights;
        the sum over alignments).
    match, substitution, insertion, deletion
        Per-operation costs (tropical, defaults 0/1/1/1: Levenshtein) or weights
        (probability, defaults 1/0.1/0.1/0.1).
    """

    is_pds = False

    def __init__(
        self,
        semiring: Literal["tropical", "probability"] = "tropical",
        *,
        match: float | None = None,
        substitution: float | None = None,
        insertion: float | None = None,
        deletion: float | None = None,
        strategy: Strategy = "auto",
        n_jobs: int | None = None,
        show_progress: bool = False,
    ) -> None:
        self.semiring = semiring
        self.match = match
        self.substitution = substitution
        self.insertion = insertion
        self.deletion = deletion
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    def costs(self) -> dict[str, float]:
        """The operation weights in use (defaults filled in), validated."""
        if self.semiring not in _DEFAULTS:
            raise ValueError(
                "The 'semiring' parameter of edit_distance must be 'tropical' or 'probability'. "
                f"Got {self.semiring!r} instead."
            )
        out = {}
        for op, default in _DEFAULTS[self.semiring].items():
            value = getattr(self, op)
            value = default if value is None else value
            out[op] = check_real(value, op, f"edit_distance ({self.semiring})", 0.0, float("inf"))
        return out

    def _build_transducer(self, alphabet: Alphabet) -> Transducer:
        return edit_transducer(alphabet, self.semiring, **self.costs())

    def _specialized_gram(self, X: list, Ys: list, alphabet: Alphabet) -> np.ndarray:
        """The alignment DP, vectorised over Y: D[i][j] = ⊕(D[i−1][j] ⊗ del,
        D[i][j−1] ⊗ ins, D[i−1][j−1] ⊗ match/sub)."""
        c = self.costs()
        trop = self.semiring == "tropical"
        plus = np.minimum if trop else np.add
        times = np.add if trop else np.multiply
        one, zero = (0.0, np.inf) if trop else (1.0, 0.0)
        index = {s: i + 1 for i, s in enumerate(alphabet)}
        ly, oy = encode(Ys, index)
        lens = np.diff(oy)
        width = int(lens.max()) if lens.size else 0
        Yl = np.zeros((len(Ys), width), dtype=np.int64)
        for j in range(len(Ys)):
            Yl[j, : lens[j]] = ly[oy[j] : oy[j + 1]]
        lx, ox = encode(X, index)
        out = np.empty((len(X), len(Ys)))
        cols = np.arange(len(Ys))
        for i in range(len(X)):
            x = lx[ox[i] : ox[i + 1]]
            # prev[:, j] = D[row][j] for every y (batch along axis 0)
            prev = np.empty((len(Ys), width + 1))
            prev[:, 0] = one
            for j in range(1, width + 1):
                prev[:, j] = times(prev[:, j - 1], c["insertion"])
            for a in x:
                cur = np.empty_like(prev)
                cur[:, 0] = times(prev[:, 0], c["deletion"])
                step = np.where(Yl == a, c["match"], c["substitution"])
                diag = times(prev[:, :-1], step)
                up = times(prev[:, 1:], c["deletion"])
                for j in range(1, width + 1):
                    cur[:, j] = plus(plus(up[:, j - 1], diag[:, j - 1]), times(cur[:, j - 1], c["insertion"]))
                prev = cur
            out[i] = prev[cols, lens]
        del zero
        return out


def edit_distance(semiring: Literal["tropical", "probability"] = "tropical", **options: Any) -> EditDistanceKernel:
    """The edit-distance rational kernel (see :class:`EditDistanceKernel`)."""
    k = EditDistanceKernel(semiring, **options)
    k.costs()
    return k
