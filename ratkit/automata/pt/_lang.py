"""Unweighted languages over Σ as BOOLEAN DFAs: coercion, closures under ⊑, finite languages.

Every language here is a BOOLEAN acceptor whose alphabet is Σ (declared), so the
operations of :mod:`ratkit.automata.operations` combine them without relabelling.

- :func:`as_language`: what a user holds (a DFA as a ratkit acceptor or ``pynini.Fst``,
  a :class:`~ratkit.automata.pt.Formula`, a :class:`~ratkit.automata.pt.DecisionList`)
  → the minimal DFA of its language over Σ, with the checks users need.
- :func:`downward_closure` ↓A = {u : u ⊑ x for some x ∈ A} and :func:`upward_closure`
  ↑A = Ψ(A) = {x : u ⊑ x for some u ∈ A}, by composition with the deletion / insertion
  transducers; :func:`minimal_words` Min(P) of an upward-closed P.
- Reading finite languages back: :func:`words_of`, :func:`longest_word`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pynini

from ratkit.automata._checks import cycle_state, useful_states
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import from_arcs, from_pynini
from ratkit.automata.operations import (
    complement,
    compose,
    difference,
    intersect,
    minimize,
    project,
    sigma_star,
)
from ratkit.automata.pt._common import Word
from ratkit.automata.semirings import BOOLEAN
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import AlphabetMismatchError, OperationError, ParameterTypeError

__all__ = [
    "as_language",
    "complement_of",
    "is_empty",
    "downward_closure",
    "upward_closure",
    "minimal_words",
    "Graph",
    "graph",
    "words_of",
    "longest_word",
]


# -- coercion ------------------------------------------------------------------------
def as_language(obj: Any, sigma: Alphabet) -> Transducer:
    """The minimal BOOLEAN DFA over Σ of the language ``obj`` describes.

    A ratkit acceptor or ``pynini.Fst`` must be deterministic (no ε-arc, no two arcs with
    one label leaving a state); its language is its support {x : A(x) ≠ 0̄}, whatever
    its semiring. Its symbols must lie in Σ; an alphabet it declares must be Σ itself.
    """
    if isinstance(obj, pynini.Fst):
        obj = from_pynini(obj)
    elif not isinstance(obj, Transducer):
        to_dfa = getattr(obj, "to_dfa", None)
        if to_dfa is None:
            raise ParameterTypeError(
                "The language must be a DFA (a ratkit acceptor or a pynini.Fst), a "
                f"pt.Formula or a pt.DecisionList; got {type(obj).__name__}."
            )
        return to_dfa(sigma)
    if not obj.is_acceptor:
        raise OperationError(
            "The language must be an acceptor (a DFA), but this is a transducer: some arc "
            "has different input and output labels. Project it first, e.g. "
            "ratkit.automata.project(t, 'input'), then determinize."
        )
    _check_deterministic(obj)
    _check_alphabet(obj.alphabet, sigma)
    fst = pynini.arcmap(pynini.arcmap(obj.fst, map_type="rmweight"), map_type="to_std")
    support = Transducer(fst, BOOLEAN, obj.alphabet)
    # Intersecting with Σ* renumbers the labels into Σ (the merged alphabet is Σ).
    return minimize(intersect(sigma_star(sigma, BOOLEAN), support))


def _check_deterministic(t: Transducer) -> None:
    a = t.arrays()
    live = np.isfinite(a.weight)
    src, lab = a.src[live], a.ilabel[live]
    hint = "Determinize it first, e.g. with ratkit.automata.minimize(language)."
    if (lab == 0).any():
        q = int(src[lab == 0][0])
        raise OperationError(
            f"The language must be given by a deterministic acceptor (a DFA), but state {q} has an ε-arc. {hint}"
        )
    keys = src * (len(t.alphabet) + 1) + lab
    uniq, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        q, label = divmod(int(uniq[counts > 1][0]), len(t.alphabet) + 1)
        raise OperationError(
            f"The language must be given by a deterministic acceptor (a DFA), but state {q} "
            f"has {int(counts[counts > 1][0])} arcs labelled {t.alphabet.symbol(label)!r}. {hint}"
        )


def _check_alphabet(own: Alphabet, sigma: Alphabet) -> None:
    extra = [s for s in own if s not in sigma]
    if extra:
        raise AlphabetMismatchError(
            f"The language uses symbols {extra!r} that are not in the alphabet Σ = "
            f"{list(sigma)!r}. Pass the alphabet the language is over."
        )
    missing = [s for s in sigma if s not in own]
    if own.closed and missing:
        raise AlphabetMismatchError(
            f"The language is declared over the alphabet {list(own)!r}, but Σ = "
            f"{list(sigma)!r} also has {missing!r}; over the larger Σ it would reject every "
            "string with those symbols. Pass the alphabet the language was built over, or "
            "build it over Σ."
        )


# -- the Boolean algebra and the closures under ⊑ --------------------------------------
def complement_of(t: Transducer, sigma: Alphabet) -> Transducer:
    """Σ* − L(t), minimal."""
    return minimize(complement(t, sigma))


def is_empty(t: Transducer) -> bool:
    """True when t accepts no string."""
    return not useful_states(t.arrays()).any()


def _edit_transducer(sigma: Alphabet, kind: str) -> Transducer:
    """One-state (or two-state) BOOLEAN transducers relating x to its edits.

    ``delete``: x ↦ every u ⊑ x (copy or delete each symbol); ``insert``: u ↦ every x with
    u ⊑ x; ``insert_one``: u ↦ every x obtained by inserting exactly one symbol into u.
    """
    copy = [(0, s, s, True, 0) for s in sigma]
    if kind == "delete":
        return from_arcs(copy + [(0, s, "", True, 0) for s in sigma], 0, {0: True}, BOOLEAN, sigma)
    if kind == "insert":
        return from_arcs(copy + [(0, "", s, True, 0) for s in sigma], 0, {0: True}, BOOLEAN, sigma)
    arcs = copy + [(1, s, s, True, 1) for s in sigma] + [(0, "", s, True, 1) for s in sigma]
    return from_arcs(arcs, 0, {1: True}, BOOLEAN, sigma)


def downward_closure(t: Transducer, sigma: Alphabet) -> Transducer:
    """↓L = {u : ∃x ∈ L, u ⊑ x} = Π₂(L ∘ D) with D the deletion transducer; minimal DFA.

    Projecting L ∘ D on its output leaves ε:ε arcs, possibly on cycles (a cycle of L
    whose symbols are all deleted); ratkit refuses those as unregulated, so the ε-removal
    is done on the pynini FST, where it is harmless for an unweighted language.
    """
    c = compose(t, _edit_transducer(sigma, "delete"))
    f = pynini.rmepsilon(pynini.project(c.fst, "output"))
    return minimize(Transducer(f, BOOLEAN, c.alphabet))


def upward_closure(t: Transducer, sigma: Alphabet) -> Transducer:
    """↑L = Ψ(L) = ⋃_{u ∈ L} Ψ(u) = Π₂(L ∘ I) with I the insertion transducer; minimal DFA."""
    return minimize(project(compose(t, _edit_transducer(sigma, "insert")), "output"))


def minimal_words(p: Transducer, sigma: Alphabet) -> Transducer:
    """Min(P) = {u ∈ P : no strict subsequence of u is in P}, for an upward-closed P.

    In an upward-closed P, u has a strict subsequence in P iff deleting one symbol of u
    leaves a string of P, i.e. iff u lies in the one-symbol insertions of P. Min(P) is
    an antichain for ⊑, hence finite (Higman; Theorem 5 of the survey).
    """
    once = minimize(project(compose(p, _edit_transducer(sigma, "insert_one")), "output"))
    return minimize(difference(p, once))


# -- reading languages back ------------------------------------------------------------
class Graph(NamedTuple):
    """The useful part of a DFA: arcs[q] = [(label, dst), …] and final[q]."""

    start: int
    final: np.ndarray
    arcs: list[list[tuple[int, int]]]
    empty: bool


def graph(t: Transducer) -> Graph:
    a = t.arrays()
    useful = useful_states(a)
    arcs: list[list[tuple[int, int]]] = [[] for _ in range(a.n_states)]
    keep = np.isfinite(a.weight) & useful[a.src] & useful[a.dst]
    for s, lab, d in zip(a.src[keep].tolist(), a.ilabel[keep].tolist(), a.dst[keep].tolist()):
        arcs[s].append((lab, d))
    final = np.isfinite(a.final) & useful
    return Graph(a.start, final, arcs, not useful.any())


def longest_word(t: Transducer) -> Word | None:
    """A longest string of a finite language, None when it is empty."""
    g = graph(t)
    if g.empty:
        return None
    src = np.array([q for q, out in enumerate(g.arcs) for _ in out], dtype=np.int64)
    dst = np.array([d for out in g.arcs for _, d in out], dtype=np.int64)
    if cycle_state(len(g.arcs), src, dst) is not None:  # pragma: no cover - Higman
        raise RuntimeError("internal error: a set of minimal strings is infinite; please report")
    depth: dict[int, int] = {}  # longest accepted suffix from q (-1: none)

    def visit(q: int) -> int:
        if q not in depth:
            depth[q] = max([0 if g.final[q] else -1] + [1 + visit(d) for _, d in g.arcs[q]])
        return depth[q]

    q, labels = g.start, []
    while visit(q) > 0:  # depth 0: q is final and ends a longest string
        lab, q = next((lab, d) for lab, d in g.arcs[q] if visit(d) == depth[q] - 1)
        labels.append(lab)
    return tuple(t.alphabet.symbol(lab) for lab in labels)


def words_of(t: Transducer) -> list[Word]:
    """Every string of a finite language, shortest first, then in Σ order."""
    g = graph(t)
    out: list[tuple[int, ...]] = []
    if g.empty:
        return []
    stack: list[tuple[int, tuple[int, ...]]] = [(g.start, ())]
    while stack:
        q, labels = stack.pop()
        if g.final[q]:
            out.append(labels)
        stack.extend((d, labels + (lab,)) for lab, d in g.arcs[q])
    out.sort(key=lambda w: (len(w), w))
    sym = t.alphabet.symbol
    return [tuple(sym(lab) for lab in w) for w in out]
