"""The :class:`Transducer`: a pynini FST with its semiring and alphabet.

A ratkit transducer never changes after it is built; every operation returns a new one.
Weights are read and written in the semiring's natural domain (see
:mod:`ratkit.automata.semirings`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pynini
import pywrapfst

from ratkit.automata._checks import check_regulated
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.fst_arrays import FstArrays, fst_to_arrays, read_fst_bytes
from ratkit.automata.semirings import Semiring, get_semiring
from ratkit.exceptions import AlphabetMismatchError, ParameterTypeError, SemiringMismatchError

__all__ = ["Arc", "Transducer"]


class Arc(NamedTuple):
    """A transition ``src --ilabel:olabel/weight--> dst``; ``""`` is ε, weight is natural."""

    src: int
    ilabel: str
    olabel: str
    weight: Any
    dst: int


class Transducer:
    """A weighted finite-state transducer (or acceptor) over a ratkit semiring.

    Build one with :func:`~ratkit.automata.from_arcs`, :func:`~ratkit.automata.acceptor`,
    :func:`~ratkit.automata.from_pynini` or the readers of :mod:`ratkit.automata.io`;
    combine them with the operations of :mod:`ratkit.automata.operations` (also available
    as operators: ``a | b`` union, ``a + b`` concatenation, ``a @ b`` composition).

    Parameters
    ----------
    fst
        The pynini FST; it is owned by the new object and must not be changed afterwards.
    semiring
        The semiring; the FST's arc type must be ``semiring.arc_type``.
    alphabet
        The symbols of both tapes; label ``i + 1`` is ``alphabet.symbols[i]``.
    check
        Verify that every label belongs to ``alphabet`` and that the transducer is
        regulated (no ε:ε cycle on a useful path).
    """

    __slots__ = ("_fst", "semiring", "alphabet", "_arrays")

    def __init__(self, fst: pynini.Fst, semiring: Semiring | str, alphabet: Alphabet, *, check: bool = True) -> None:
        if not isinstance(fst, pynini.Fst):
            raise ParameterTypeError(f"A Transducer wraps a pynini.Fst; got {type(fst).__name__}.")
        if not isinstance(alphabet, Alphabet):
            raise ParameterTypeError(
                f"The alphabet of a Transducer must be a ratkit Alphabet; got {type(alphabet).__name__}."
            )
        semiring = get_semiring(semiring)
        if fst.arc_type() != semiring.arc_type:
            raise SemiringMismatchError(
                f"A {semiring.name} transducer needs {semiring.arc_type!r} arcs; the FST has {fst.arc_type()!r} arcs."
            )
        if fst.start() == pywrapfst.NO_STATE_ID and fst.num_states() == 0:
            fst.set_start(fst.add_state())  # the empty machine: one non-final start state
        self._fst = fst
        self.semiring = semiring
        self.alphabet = alphabet
        self._arrays: FstArrays | None = None
        if check:
            self._check_labels()
            if fst.properties(pywrapfst.EPSILONS, True) == pywrapfst.EPSILONS:
                check_regulated(self.arrays())

    def _check_labels(self) -> None:
        """Every label must be 0 (ε) or the label of a symbol of the alphabet (1..|Σ|)."""
        a = self.arrays()
        labels = np.concatenate([a.ilabel, a.olabel])
        bad = labels[(labels < 0) | (labels > len(self.alphabet))]
        if bad.size:
            raise AlphabetMismatchError(
                f"The FST has label {int(bad[0])}, but its alphabet has {len(self.alphabet)} symbols "
                f"(labels 1..{len(self.alphabet)}, 0 for ε). Build transducers with from_arcs or "
                "from_pynini, which number the symbols, or pass an alphabet that covers every label."
            )

    # -- inspection ----------------------------------------------------------------
    def arrays(self) -> FstArrays:
        """States, arcs and native weights as numpy arrays (exact; cached)."""
        if self._arrays is None:
            self._arrays = fst_to_arrays(self._fst)
        return self._arrays

    @property
    def num_states(self) -> int:
        return self._fst.num_states()

    @property
    def num_arcs(self) -> int:
        return sum(self._fst.num_arcs(s) for s in self._fst.states())

    @property
    def start(self) -> int:
        return self._fst.start()

    @property
    def is_acceptor(self) -> bool:
        """True when every arc has the same input and output label."""
        return self._fst.properties(pywrapfst.ACCEPTOR, True) == pywrapfst.ACCEPTOR

    @property
    def is_acyclic(self) -> bool:
        return self._fst.properties(pywrapfst.ACYCLIC, True) == pywrapfst.ACYCLIC

    def arcs(self) -> list[Arc]:
        """Every transition with symbols and natural weights, in state order."""
        a = self.arrays()
        sym, dec = self.alphabet.symbol, self.semiring.from_native
        return [
            Arc(int(s), sym(int(i)), sym(int(o)), dec(w), int(d))
            for s, i, o, w, d in zip(a.src, a.ilabel, a.olabel, a.weight, a.dst)
        ]

    def finals(self) -> dict[int, Any]:
        """Final states and their natural final weights."""
        a = self.arrays()
        # != +∞ (not isfinite): a final weight −∞ or NaN is not "not final"; from_native refuses it
        return {int(q): self.semiring.from_native(a.final[q]) for q in np.flatnonzero(a.final != np.inf)}

    def to_pynini(self) -> pynini.Fst:
        """A copy as a pynini FST, with the alphabet attached as its symbol tables."""
        fst = self._fst.copy()
        table = self.alphabet.symbol_table()
        fst.set_input_symbols(table)
        fst.set_output_symbols(table)
        return fst

    @property
    def fst(self) -> pynini.Fst:
        """A copy of the underlying pynini FST (labels as integers, no symbol tables)."""
        return self._fst.copy()

    def __repr__(self) -> str:
        kind = "acceptor" if self.is_acceptor else "transducer"
        return (
            f"<{self.semiring.name} {kind}: {self.num_states} states, {self.num_arcs} arcs, "
            f"{len(self.alphabet)} symbols>"
        )

    def __str__(self) -> str:
        from ratkit.automata.io import to_att

        return to_att(self)

    # -- pickling (through OpenFst's binary format) ----------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {
            "fst": self._fst.write_to_string(),
            "semiring": self.semiring.name,
            "alphabet": self.alphabet,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._fst = read_fst_bytes(state["fst"], "a pickled Transducer")  # checked: OpenFst trusts counts
        self.semiring = get_semiring(state["semiring"])
        self.alphabet = state["alphabet"]
        self._arrays = None

    # -- operators -----------------------------------------------------------------
    def __or__(self, other: Any) -> Transducer:
        from ratkit.automata.operations import union

        return union(self, other)

    def __add__(self, other: Any) -> Transducer:
        from ratkit.automata.operations import concat

        return concat(self, other)

    def __matmul__(self, other: Any) -> Transducer:
        from ratkit.automata.operations import compose

        return compose(self, other)

    def closure(self) -> Transducer:
        """T*, see :func:`ratkit.automata.closure`."""
        from ratkit.automata.operations import closure

        return closure(self)

    def invert(self) -> Transducer:
        """T⁻¹, see :func:`ratkit.automata.invert`."""
        from ratkit.automata.operations import invert

        return invert(self)

    def project(self, side: str) -> Transducer:
        """Π1(T) or Π2(T), see :func:`ratkit.automata.project`."""
        from ratkit.automata.operations import project

        return project(self, side)  # type: ignore[arg-type]

    def total_weight(self) -> Any:
        """The sum over all accepting paths, see :func:`ratkit.automata.shortest_distance`."""
        from ratkit.automata.distance import shortest_distance

        return shortest_distance(self)
