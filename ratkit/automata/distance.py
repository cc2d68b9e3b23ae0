"""The generalized shortest distance and the value of a transducer on a pair of sequences.

References
----------
A. Ghose, *Rational kernels: a survey*, §II-B eq. (16); M. Mohri, "Semiring frameworks
and algorithms for shortest-distance problems", J. Autom. Lang. Comb. 7 (2002).
"""

from __future__ import annotations

from typing import Any

import pynini

from ratkit.automata._checks import check_convergent, useful_states
from ratkit.automata._fstbytes import fst_to_arrays
from ratkit.automata.alphabet import SequenceLike
from ratkit.automata.construct import _chain, as_transducer
from ratkit.automata.transducer import Transducer

__all__ = ["shortest_distance", "evaluate", "total_native"]

# Convergence/comparison tolerance handed to OpenFst's shortest distance. OpenFst skips
# a relaxation when it changes a distance by less than delta, so its default (1e-3 for
# push) silently drops small path weights; 1e-12 is at float64 round-off for log64.
_SD_DELTA = 1e-12


def total_native(t: Transducer) -> float:
    """⊕ over all accepting paths of t, as a native OpenFst float (full precision)."""
    a = t.arrays()
    useful = useful_states(a)
    if not useful.any():
        return float("inf")  # no accepting path: 0̄ in every encoding
    if not t.is_acyclic:
        check_convergent(a, t.semiring.name)
    # Push the weights towards a fresh initial state whose single ε-arc then carries the
    # total weight; reading it from the binary keeps full precision (float(Weight) does not).
    f = pynini.connect(t._fst.copy())  # only useful states: check_convergent vetted just those
    old = f.start()
    new = f.add_state()
    f.set_start(new)
    f.add_arc(new, pynini.Arc(0, 0, pynini.Weight.one(f.weight_type()), old))
    pushed = pynini.push(f, delta=_SD_DELTA, push_weights=True, reweight_type="to_initial")
    b = fst_to_arrays(pushed)
    out = b.weight[b.src == b.start]
    if out.size != 1:  # pragma: no cover - OpenFst keeps the arc; guard the assumption
        raise RuntimeError("unexpected result of weight pushing")
    return float(out[0])


def shortest_distance(t: Any) -> Any:
    """The total weight ⊕_{π ∈ P(I, F)} w[π] ⊗ ρ(n[π]) of all accepting paths (eq. (16)).

    Returned in the semiring's natural domain: a probability, a log value, a tropical
    cost, or a bool. 0̄ when no path is accepting. Cyclic machines are summed to
    convergence; a divergent sum (a cycle of probability ≥ 1, a negative tropical cycle)
    raises DivergentSumError, an ε-cycle NotRegulatedError.
    """
    t = as_transducer(t)
    return t.semiring.from_native(total_native(t))


def evaluate(t: Any, x: SequenceLike, y: SequenceLike | None = None) -> Any:
    """⟦T⟧(x, y) for a transducer, or ⟦A⟧(x) for an acceptor when ``y`` is omitted.

    Computed as the shortest distance of X ∘ T ∘ Y, with X and Y the acceptors of x and
    y (survey §II-B). Symbols of x or y outside T's alphabet raise UnknownSymbolError
    (they are outside Σ*, where T is defined).
    """
    t = as_transducer(t, what="transducer")
    if y is None and not t.is_acceptor:
        raise TypeError(
            "evaluate(T, x) needs an acceptor; this is a transducer, so give the output "
            "sequence too: evaluate(T, x, y)."
        )
    sr, ab = t.semiring, t.alphabet
    xl = ab.labels(x, "input sequence x")
    f = pynini.compose(_chain(xl, xl, sr, ab, sr.one)._fst, pynini.arcsort(t._fst.copy(), sort_type="ilabel"))
    if y is not None:
        yl = ab.labels(y, "output sequence y")
        f = pynini.compose(pynini.arcsort(f, sort_type="olabel"), _chain(yl, yl, sr, ab, sr.one)._fst)
    return sr.from_native(total_native(Transducer(f, sr, ab)))
