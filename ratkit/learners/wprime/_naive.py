"""W′ as the naive ε-union of the feature automata Φ′_j, one weight per component.

The ``"naive"`` representation of Table II: W′_n has an initial state with one ε-arc
per training sequence j, of weight α_j (times a normalisation c_j), into a copy of
Φ′_j. An update (eq. (53)) rewrites the weight of one ε-arc, O(1); a gradient (eq. (54))
intersects Φ′_i with the whole union with OpenFst, O(|Φ′_i| Σ_j |Φ′_j|).

OpenFst's probability (log64) weights cannot be negative, so W′ is split by class:
W′₊ holds the components of the sequences with y_j = +1 and W′₋ those with y_j = −1,
both with weights α_j c_j ≥ 0, and D(Φ′_i ⋄ W′) = D(Φ′_i ⋄ W′₊) − D(Φ′_i ⋄ W′₋) is
subtracted in float64 (the cancellation happens in Python, exactly as the survey's sum).

References
----------
A. Ghose, *Rational kernels: a survey*, §V-B eq. (48)–(54), Table II (naive row).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pynini

from ratkit._jit import njit
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.distance import total_native
from ratkit.automata.fst_arrays import FstArrays, arrays_to_fst, fst_to_arrays
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError
from ratkit.learners.dcd.epochs import epoch_python
from ratkit.learners.wprime import kernel_view as view
from ratkit.learners.wprime._protocol import Epoch, EpochResult, TrainingSet, dual_solution, register_representation

__all__ = ["NaiveUnion", "NaiveWPrime", "dot_native", "naive_epoch", "unit_automaton"]

_EMPTY = Alphabet(())


@njit
def _topsorted_total(start, final, src, weight, dst):
    """Σ over accepting paths of Π exp(−w) for an automaton whose states are topologically
    sorted and whose arcs are ordered by source state (forward sums, float64)."""
    d = np.zeros(final.shape[0])
    d[start] = 1.0
    total = 0.0
    for k in range(src.shape[0]):
        if d[src[k]] != 0.0:
            d[dst[k]] += d[src[k]] * np.exp(-weight[k])
    for q in range(final.shape[0]):
        if d[q] != 0.0:
            total += d[q] * np.exp(-final[q])
    return total


def dot_native(a: pynini.Fst, b: pynini.Fst) -> float:
    """D(a ⋄ b) = Σ_z a(z) b(z) for two log64 acceptors (full float64 precision)."""
    f = pynini.intersect(a, b)
    if f.start() < 0:
        return 0.0
    acyclic = pynini.ACYCLIC  # type: ignore[attr-defined]  # pynini's stub omits _pywrapfst's property bits
    if f.topsort().properties(acyclic, True) != acyclic:  # cyclic: sum to convergence
        return float(np.exp(-total_native(Transducer(f, PROBABILITY, _EMPTY, check=False))))
    t = fst_to_arrays(f)
    return float(_topsorted_total(t.start, t.final, t.src, t.weight, t.dst))


def unit_automaton(phi: pynini.Fst) -> pynini.Fst:
    """Φ / ‖Φ‖ with ‖Φ‖² = D(Φ ⋄ Φ) for a log64 acceptor: ‖Φ‖² summed in the log domain (its
    native weight −ln ‖Φ‖² is finite where ‖Φ‖² itself is beyond float64, above or below),
    and −ln ‖Φ‖ taken off every final weight. Φ unchanged when it accepts nothing."""
    f = pynini.intersect(phi, phi)
    if f.start() < 0:
        return phi
    native = total_native(Transducer(f, PROBABILITY, _EMPTY, check=False))  # −ln ‖Φ‖²
    if not np.isfinite(native):
        return phi
    # pushed to the initial state, every other arc holds a probability ≤ 1; the scale then goes
    # on the arcs out of the start (each accepting path takes one), so no partial product of
    # D(Φ ⋄ Ψ) in float64 leaves the range (a start on a cycle takes it on its final weights)
    a = fst_to_arrays(pynini.push(phi, push_weights=True, reweight_type="to_initial"))
    if np.any(a.dst == a.start):
        a.final = a.final - native / 2  # +∞ (not final) stays +∞
    else:
        a.weight[a.src == a.start] -= native / 2
        a.final[a.start] -= native / 2
    return pynini.arcsort(arrays_to_fst(a), sort_type="olabel")


class NaiveUnion:
    """W′₊ and W′₋: ε-unions of the feature automata of each class, weights settable.

    Parameters
    ----------
    phis
        Φ′_j as ε-free log64 acceptors (probability semiring), one per training sequence.
    signs
        y_j ∈ {−1, +1}: which of W′₊, W′₋ holds component j.
    """

    def __init__(self, phis: Sequence[pynini.Fst], signs: np.ndarray) -> None:
        self.parts: list[pynini.Fst] = []
        self._where: list[tuple[int, int]] = [(-1, -1)] * len(phis)  # j → (part, ε-arc position)
        for part, sign in enumerate((1.0, -1.0)):
            members = [j for j in range(len(phis)) if signs[j] == sign]
            fst, starts = _union([phis[j] for j in members])
            # arcsort may reorder the ε-arcs of state 0: find each component's arc again
            by_target = {arc.nextstate: pos for pos, arc in enumerate(fst.arcs(0))}
            for j, start in zip(members, starts):
                self._where[j] = (part, by_target[int(start)])
            self.parts.append(fst)

    @property
    def n_states(self) -> int:
        return sum(p.num_states() for p in self.parts)

    def set_weight(self, j: int, value: float) -> None:
        """The weight of component j's ε-arc (≥ 0; 0 removes it from the sum)."""
        part, pos = self._where[j]
        native = repr(float(-np.log(value))) if value > 0 else "Infinity"
        it = self.parts[part].mutable_arcs(0)
        it.seek(pos)
        arc = it.value()
        weight = pynini.Weight("log64", native)  # type: ignore[attr-defined]  # pynini's stub omits Weight
        it.set_value(pynini.Arc(0, 0, weight, arc.nextstate))  # type: ignore[attr-defined]  # and Arc

    def dot(self, phi: pynini.Fst) -> float:
        """D(Φ ⋄ W′₊) − D(Φ ⋄ W′₋)."""
        return dot_native(phi, self.parts[0]) - dot_native(phi, self.parts[1])


def _nonempty(a: FstArrays) -> FstArrays:
    """An automaton without states (no path) as one non-final state, so it has a start."""
    if a.n_states and a.start >= 0:
        return a
    z = np.zeros(0, dtype=np.int64)
    return FstArrays("log64", 0, np.array([np.inf]), z, z, z, np.zeros(0), z)


def _union(phis: Sequence[pynini.Fst]) -> tuple[pynini.Fst, np.ndarray]:
    """A fresh start state with one ε-arc of weight 0̄ (+∞) to each automaton's start."""
    arrays = [_nonempty(fst_to_arrays(f)) for f in phis]
    sizes = np.array([a.n_states for a in arrays], dtype=np.int64)
    offsets = 1 + np.concatenate(([0], np.cumsum(sizes)[:-1])) if arrays else np.zeros(0, np.int64)
    starts = np.array([off + a.start for a, off in zip(arrays, offsets)], dtype=np.int64)
    cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0)  # noqa: E731
    m = starts.shape[0]
    union = FstArrays(
        arc_type="log64",
        start=0,
        final=np.concatenate([[np.inf], cat([a.final for a in arrays])]),
        src=np.concatenate([np.zeros(m, np.int64), cat([a.src + off for a, off in zip(arrays, offsets)])]).astype(
            np.int64
        ),
        ilabel=np.concatenate([np.zeros(m, np.int64), cat([a.ilabel for a in arrays])]).astype(np.int64),
        olabel=np.concatenate([np.zeros(m, np.int64), cat([a.olabel for a in arrays])]).astype(np.int64),
        weight=np.concatenate([np.full(m, np.inf), cat([a.weight for a in arrays])]),
        dst=np.concatenate([starts, cat([a.dst + off for a, off in zip(arrays, offsets)])]).astype(np.int64),
    )
    return pynini.arcsort(arrays_to_fst(union), sort_type="ilabel"), starts


def naive_epoch(
    union: NaiveUnion,
    phis: Sequence[pynini.Fst],
    y: np.ndarray,
    scale: np.ndarray,
    shift: float,
    qinv: np.ndarray,
    C: float,
    alpha: np.ndarray,
) -> Epoch:
    """One pass of Algorithm 4 with W′ the naive union: G = y_i (c_i D(Φ′_i ⋄ W′) + s² b) − 1.

    ``scale`` holds c_i (1/‖Φ′_i‖ for a cosine kernel, else 1): component j of W′ has
    weight α_j c_j. With a bias (``shift`` = s² > 0) the weight b = Σ α_j y_j of the empty
    pattern is kept as a number beside the union.
    """
    bias = [0.0]

    def gradient(i: int) -> float:
        return y[i] * (scale[i] * union.dot(phis[i]) + shift * bias[0]) - 1.0

    def update(i: int, d: float, new: float) -> None:
        union.set_weight(i, new * scale[i])
        bias[0] += d

    def epoch(active: np.ndarray, size: int, max_old: float, min_old: float) -> EpochResult:
        return epoch_python(active, size, max_old, min_old, y, qinv, C, alpha, gradient, update)

    return epoch


@register_representation("naive", stage="automata")
class NaiveWPrime:
    """The ``"naive"`` representation: W′ as the ε-union of the feature automata Φ′_j, split
    by class into W′₊ and W′₋ (:class:`NaiveUnion`), gradients by OpenFst intersection; the
    model is the kernel expansion Σ_j α_j y_j K(x_j, ·)."""

    name: str
    fallback: str | None
    stage: str

    def __init__(self, data: TrainingSet, phis: list[pynini.Fst], cosine: bool) -> None:
        # a cosine kernel's Φ′_i / ‖Φ′_i‖, scaled in the log domain: K(x_i, x_i) = D(Φ′_i ⋄ Φ′_i)
        # itself may be beyond float64 (weights 1e160) or below it (1e-170), its cosine is not
        self.data, self.phis = data, [unit_automaton(f) for f in phis] if cosine else phis
        raw = view.check_finite([dot_native(f, f) for f in self.phis], data.kernel, "kernel values K(x, x)")
        self.scale = np.ones(len(phis))
        self.diagonal = raw + data.shift
        self.states = 0

    @classmethod
    def build(cls, data: TrainingSet) -> NaiveWPrime | None:
        if data.reads_vectors:
            raise ParameterError(
                "representation='naive' builds W′ from OpenFst feature automata, which a numeric "
                "'linear' kernel does not have; use representation='trie' or 'automaton'."
            )
        automata = view.feature_automata(data.kernel, data.X)
        return None if automata is None else cls(data, *automata)

    def epoch(self, c: int, y: np.ndarray, qinv: np.ndarray, C: float, alpha: np.ndarray) -> Epoch:
        union = NaiveUnion(self.phis, y)
        self.states = max(self.states, union.n_states)
        return naive_epoch(union, self.phis, y, self.scale, self.data.shift, qinv, C, alpha)

    def finish(self, c: int) -> None:
        """Nothing to do: the union is dropped with the epoch."""

    def solution(self, alphas: np.ndarray, Y: np.ndarray) -> dict[str, Any]:
        return {**dual_solution(self.data, alphas, Y), "wprime_size_": {"naive_states": int(self.states)}}
