"""Shuffle ideals Ψ(u) and Boolean combinations of them, as minimal DFAs.

A language is piecewise testable (PT) iff it is a finite Boolean combination of shuffle
ideals (Lemma 1 of the survey). :func:`shuffle_ideal` gives the minimal DFA of one ideal;
a :class:`Formula` writes a PT language as such a combination (``&``, ``|``, ``~``, ``-``,
``^``), evaluates it directly on strings, and turns it into its minimal DFA through the
automata algebra (:func:`~ratkit.automata.intersect`, :func:`~ratkit.automata.union`,
:func:`~ratkit.automata.complement`, :func:`~ratkit.automata.difference`,
:func:`~ratkit.automata.minimize`).

Languages are unweighted acceptors in the BOOLEAN semiring. "Minimal DFA" is meant as
OpenFst builds it: deterministic, minimal, and trimmed (a dead state is left out, so a
missing arc means rejection).

References
----------
A. Ghose, *Rational kernels: a survey*, §IV-A1, eq. (27) and Lemma 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from typing import Any, Literal

from ratkit.automata.alphabet import Alphabet, SequenceLike
from ratkit.automata.construct import from_arcs
from ratkit.automata.operations import complement, difference, intersect, minimize, union
from ratkit.automata.pt._common import Word, as_sigma, as_word, show, shows_as_str, subsequence_of
from ratkit.automata.semirings import BOOLEAN
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterTypeError

__all__ = ["shuffle_ideal", "ideal", "Formula"]

Op = Literal["ideal", "not", "and", "or", "sub", "xor"]


def shuffle_ideal(u: SequenceLike, alphabet: Any) -> Transducer:
    """The minimal DFA of Ψ(u) = Σ* u₁ Σ* u₂ … Σ* u_l Σ* = {x ∈ Σ* : u ⊑ x} (eq. (27)).

    State i (0 ≤ i ≤ |u|) means "the longest prefix of u embedded so far is u₁…u_i": on
    u_{i+1} it moves to i + 1, on any other symbol it stays; state |u| is final and loops
    on Σ. The |u| + 1 states are pairwise distinguishable (from state i the shortest
    accepted suffix has length |u| − i), so the DFA is minimal, and it is complete.

    Parameters
    ----------
    u
        A ``str`` (one symbol per character) or a token sequence, over Σ.
    alphabet
        Σ: a ``str``, a token sequence or an :class:`~ratkit.automata.Alphabet`.

    Returns
    -------
    Transducer
        A BOOLEAN acceptor with the declared alphabet Σ.

    Examples
    --------
    >>> from ratkit.automata import evaluate
    >>> psi = shuffle_ideal("ab", "abc")
    >>> psi.num_states, evaluate(psi, "cacb"), evaluate(psi, "ba")
    (3, True, False)
    """
    sigma = as_sigma(alphabet)
    return _ideal_dfa(as_word(u, sigma, "string u"), sigma)


def _ideal_dfa(word: Word, sigma: Alphabet) -> Transducer:
    n = len(word)
    arcs = [(i, s, True, i + 1 if s == word[i] else i) for i in range(n) for s in sigma]
    arcs += [(n, s, True, n) for s in sigma]
    return from_arcs(arcs, 0, {n: True}, BOOLEAN, sigma)


@dataclass(frozen=True)
class Formula:
    """A finite Boolean combination of shuffle ideals: a PT language (Lemma 1).

    Build one with :func:`ideal` and the operators ``a & b`` (intersection), ``a | b``
    (union), ``~a`` (complement relative to Σ*), ``a - b`` (difference) and ``a ^ b``
    (symmetric difference); Python's precedence applies (``-`` before ``&`` before ``^``
    before ``|``), so parenthesise. Call it on a string to test membership directly from the
    definition (subsequence tests, no automaton); :meth:`to_dfa` gives its minimal DFA
    over an alphabet Σ.

    Examples
    --------
    >>> f = ideal("ab") - ideal("ba")          # contains ab but not ba as a subsequence
    >>> f
    Ψ('ab') - Ψ('ba')
    >>> f("aabb"), f("abba"), f.degree
    (True, False, 2)
    >>> f.to_dfa("ab").num_states
    3
    """

    op: Op
    args: tuple

    # -- operators -----------------------------------------------------------------
    def __and__(self, other: Formula) -> Formula:
        return Formula("and", (self, _formula(other, "&")))

    def __or__(self, other: Formula) -> Formula:
        return Formula("or", (self, _formula(other, "|")))

    def __sub__(self, other: Formula) -> Formula:
        return Formula("sub", (self, _formula(other, "-")))

    def __xor__(self, other: Formula) -> Formula:
        return Formula("xor", (self, _formula(other, "^")))

    def __invert__(self) -> Formula:
        return Formula("not", (self,))

    # -- meaning -------------------------------------------------------------------
    def __call__(self, x: SequenceLike) -> bool:
        """x ∈ L, evaluated from the definition: Ψ(u) holds x iff u ⊑ x."""
        return self._holds(as_word(x, None, "string x"))

    def _holds(self, x: Word) -> bool:
        op, args = self.op, self.args
        if op == "ideal":
            return any(subsequence_of(u, x) for u in args)
        if op == "not":
            return not args[0]._holds(x)
        a, b = args[0]._holds(x), args[1]._holds(x)
        return {"and": a and b, "or": a or b, "sub": a and not b, "xor": a != b}[op]

    @property
    def words(self) -> frozenset[Word]:
        """Every string u whose ideal Ψ(u) the formula uses, as tuples of symbols."""
        if self.op == "ideal":
            return frozenset(self.args)
        return frozenset().union(*(a.words for a in self.args))

    @property
    def degree(self) -> int:
        """max |u| over the ideals used: the language is n-PT for n = degree."""
        return max((len(u) for u in self.words), default=0)

    def to_dfa(self, alphabet: Any) -> Transducer:
        """The minimal DFA of the language over Σ = ``alphabet``, by the automata algebra.

        Each leaf is :func:`shuffle_ideal` (unions of them for ``ideal(u, v, …)``); each
        operator is the matching operation of :mod:`ratkit.automata.operations` on DFAs,
        minimised after every step. A symbol of the formula outside Σ raises
        UnknownSymbolError.
        """
        sigma = as_sigma(alphabet)
        for u in sorted(self.words):
            as_word(u, sigma, "string of the formula")
        return self._dfa(sigma, {})

    def _dfa(self, sigma: Alphabet, memo: dict[Formula, Transducer]) -> Transducer:
        if self in memo:
            return memo[self]
        op, args = self.op, self.args
        if op == "ideal":
            ideals = [_ideal_dfa(u, sigma) for u in args] or [_empty(sigma)]
            t = reduce(union, ideals)
        elif op == "not":
            t = complement(args[0]._dfa(sigma, memo), sigma)
        else:
            a, b = args[0]._dfa(sigma, memo), args[1]._dfa(sigma, memo)
            if op == "and":
                t = intersect(a, b)
            elif op == "or":
                t = union(a, b)
            elif op == "sub":
                t = difference(a, b)
            else:
                t = union(difference(a, b), difference(b, a))
        memo[self] = t = minimize(t)
        return t

    # -- display -------------------------------------------------------------------
    def __repr__(self) -> str:
        return self._show(shows_as_str(s for u in self.words for s in u))

    def _show(self, as_str: bool) -> str:
        op, args = self.op, self.args
        if op == "ideal":
            return " | ".join(f"Ψ({show(u, as_str)!r})" for u in args) or "Ψ()"
        if op == "not":
            return "~" + args[0]._operand(as_str)
        sym = {"and": "&", "or": "|", "sub": "-", "xor": "^"}[op]
        return f"{args[0]._operand(as_str)} {sym} {args[1]._operand(as_str)}"

    def _operand(self, as_str: bool) -> str:
        text = self._show(as_str)
        simple = self.op == "not" or (self.op == "ideal" and len(self.args) <= 1)
        return text if simple else f"({text})"


def _formula(obj: Any, sym: str) -> Formula:
    if not isinstance(obj, Formula):
        raise ParameterTypeError(
            f"The operands of {sym} must be Formula objects (build them with ideal(...)); got {type(obj).__name__}."
        )
    return obj


def _empty(sigma: Alphabet) -> Transducer:
    return from_arcs([], 0, {}, BOOLEAN, sigma)


def ideal(*words: SequenceLike) -> Formula:
    """Ψ(D) = ⋃_{u ∈ D} Ψ(u) as a :class:`Formula`, for D = ``words`` (Ψ of one string: one word).

    ``ideal("")`` is Ψ(ε) = Σ*; ``ideal()`` is the empty language.

    Examples
    --------
    >>> ideal("ab", "ba")("ab"), ideal("ab", "ba")("aa")
    (True, False)
    >>> ideal(["the", "cat"])(["the", "fat", "cat"])
    True
    """
    return Formula("ideal", tuple(sorted({as_word(u, None, "string u") for u in words})))
