"""Edit distance as a rational kernel, over the tropical or the probability semiring.

Tropical (Fig. 7a): K(x, y) = min over alignments of the summed operation costs — with
unit costs, the Levenshtein distance d_e(x, y). Probability (Fig. 7b): K(x, y) = the sum
over all alignments (all paths of the one-state transducer, insertions and deletions
interleaved in every order) of the product of the operation weights.

Neither is PDS (Proposition 3), and over two or more symbols the edit distance is not
NDS either (Proposition 3 (2)), so exp(−t·d_e) is not PDS for every t (Fig. 8, reproduced
by :func:`ratkit.automata.kernels.diagnostics.edit_distance_min_eigenvalues`):
``exp_kernel(edit_distance())`` is flagged non-PDS and SVMs refuse it. Use a T∘T⁻¹ family
(n-gram, gappy, mismatch, subsequence) for SVMs.

References
----------
A. Ghose, *Rational kernels: a survey*, §II-A, Fig. 7, Proposition 3 and Fig. 8.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ratkit._jit import njit
from ratkit._validation import check_real
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._windows import encode
from ratkit.automata.kernels.rational import RationalKernel, Strategy
from ratkit.automata.semirings import Semiring, get_semiring
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError, WeightOverflowError
from ratkit.plugins import register

__all__ = ["EditDistanceKernel", "edit_distance", "edit_transducer"]

_DEFAULTS = {
    "tropical": {"match": 0.0, "substitution": 1.0, "insertion": 1.0, "deletion": 1.0},
    "probability": {"match": 1.0, "substitution": 0.1, "insertion": 0.1, "deletion": 0.1},
}


def edit_transducer(
    alphabet: Alphabet, semiring: Semiring | str, match: float, substitution: float, insertion: float, deletion: float
) -> Transducer:
    """One state, final with 1̄: a:a/match, a:b/substitution (a ≠ b), a:ε/deletion, ε:b/insertion."""
    arcs = []
    for a in alphabet:
        arcs.append((0, a, "", deletion, 0))
        arcs.append((0, "", a, insertion, 0))
        arcs += [(0, a, b, match if a == b else substitution, 0) for b in alphabet]
    sr = get_semiring(semiring)
    return from_arcs(arcs, 0, {0: sr.one}, sr, alphabet)


@register("kernel", "edit-distance", aliases=("edit_distance",))
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

    @property
    def is_nds(self) -> bool | None:  # type: ignore[override]
        """False for the tropical edit distance with Levenshtein-proportional costs (match 0,
        substitution = insertion = deletion > 0: not NDS over ≥ 2 symbols, Proposition 3 (2)),
        and whenever insertion ≠ deletion (K(x, y) ≠ K(y, x): not symmetric); None otherwise
        (other costs, the probability semiring). The one-symbol case, where d_e is NDS, is
        not told apart: the alphabet is not known before the data."""
        if self.semiring != "tropical":
            return None
        c = self.costs()
        if c["insertion"] != c["deletion"]:
            return False
        if c["match"] == 0 and c["substitution"] == c["insertion"] > 0:
            return False
        return None

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
            raise ParameterError(
                "The 'semiring' parameter of edit_distance must be 'tropical' or 'probability'. "
                f"Got {self.semiring!r} instead."
            )
        out = {}
        for op, default in _DEFAULTS[self.semiring].items():
            value = getattr(self, op)
            value = default if value is None else value
            out[op] = check_real(value, op, f"edit_distance ({self.semiring})", low=0.0)
        return out

    def _validate_params(self) -> None:
        self.costs()

    def _build_transducer(self, alphabet: Alphabet) -> Transducer:
        return edit_transducer(alphabet, self.semiring, **self.costs())

    def gram_features(self, X: Any, Y: Any = None, **options: Any) -> None:
        """None: blocks of a Gram matrix use the dynamic programme, not an explicit feature map."""
        return None

    def _specialized_gram(self, X: list, Ys: list, alphabet: Alphabet) -> np.ndarray:
        """The alignment DP, D[i][j] = ⊕(D[i−1][j] ⊗ del, D[i][j−1] ⊗ ins, D[i−1][j−1] ⊗ match/sub),
        compiled: O(|x|·|y|) time and O(|y|) memory per pair (see :func:`_alignment_gram`)."""
        c = self.costs()
        index = {s: i + 1 for i, s in enumerate(alphabet)}
        lx, ox = encode(X, index)
        ly, oy = encode(Ys, index)
        out = np.empty((len(X), len(Ys)))
        # K(y, x) is K(x, y) with insertions and deletions swapped: one triangle is enough
        symmetric = Ys is X and c["insertion"] == c["deletion"]
        costs = (c["match"], c["substitution"], c["insertion"], c["deletion"])
        _alignment_gram(lx, ox, ly, oy, self.semiring == "tropical", symmetric, *costs, out)
        bad = np.argwhere(~np.isfinite(out))
        if bad.size:  # every operation weight is finite: a non-finite sum is float64 overflow
            i, j = (int(v) for v in bad[0])
            raise WeightOverflowError(
                f"edit_distance({self.semiring!r}): the sum over the alignments of X[{i}] ({len(X[i]):,} symbols) "
                f"and Y[{j}] ({len(Ys[j]):,} symbols) overflows float64 (about 1.8e308). Use operation weights "
                "whose products stay bounded (match < 1 for long sequences) or shorter sequences."
            )
        return out


@njit
def _alignment_gram(lx, ox, ly, oy, tropical, symmetric, match, sub, ins, dele, out):  # pragma: no cover - compiled
    """out[i, j] = K(x_i, y_j) by the alignment DP, in min-plus (``tropical``) or sum-product
    arithmetic; rows of the DP table are kept two at a time (x_i is read along the rows)."""
    width = 0
    for j in range(oy.shape[0] - 1):
        width = max(width, oy[j + 1] - oy[j])
    prev = np.empty(width + 1)
    cur = np.empty(width + 1)
    for i in range(ox.shape[0] - 1):
        x = lx[ox[i] : ox[i + 1]]
        for j in range(oy.shape[0] - 1):
            if symmetric and j < i:
                out[i, j] = out[j, i]
                continue
            y = ly[oy[j] : oy[j + 1]]
            if tropical:
                out[i, j] = _min_plus(x, y, match, sub, ins, dele, prev, cur)
            else:
                out[i, j] = _sum_product(x, y, match, sub, ins, dele, prev, cur)


@njit
def _min_plus(x, y, match, sub, ins, dele, prev, cur):  # pragma: no cover - compiled
    """The minimum over alignments of x and y of the summed costs (Levenshtein for 0/1/1/1)."""
    m = y.shape[0]
    prev[0] = 0.0
    for q in range(1, m + 1):
        prev[q] = prev[q - 1] + ins
    for p in range(x.shape[0]):
        a = x[p]
        cur[0] = prev[0] + dele
        for q in range(1, m + 1):
            best = prev[q] + dele
            diag = prev[q - 1] + (match if y[q - 1] == a else sub)
            if diag < best:
                best = diag
            left = cur[q - 1] + ins
            cur[q] = left if left < best else best
        prev, cur = cur, prev
    return prev[m]


@njit
def _sum_product(x, y, match, sub, ins, dele, prev, cur):  # pragma: no cover - compiled
    """The sum over alignments of x and y of the products of the operation weights."""
    m = y.shape[0]
    prev[0] = 1.0
    for q in range(1, m + 1):
        prev[q] = prev[q - 1] * ins
    for p in range(x.shape[0]):
        a = x[p]
        cur[0] = prev[0] * dele
        for q in range(1, m + 1):
            cur[q] = prev[q] * dele + prev[q - 1] * (match if y[q - 1] == a else sub) + cur[q - 1] * ins
        prev, cur = cur, prev
    return prev[m]


def edit_distance(semiring: Literal["tropical", "probability"] = "tropical", **options: Any) -> EditDistanceKernel:
    """The edit-distance rational kernel (see :class:`EditDistanceKernel`)."""
    k = EditDistanceKernel(semiring, **options)
    k._validate_params()
    k._validate_options()
    return k
