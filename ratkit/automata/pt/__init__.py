"""ratkit.automata.pt: piecewise-testable languages, shuffle ideals and decision lists.

- :func:`is_subsequence` (u ⊑ x, eq. (25)) and :func:`subsequences` (the support of the
  subsequence feature map φ);
- :func:`shuffle_ideal` (the minimal DFA of Ψ(u), eq. (27)); :func:`ideal` and
  :class:`Formula`: PT languages as Boolean combinations of shuffle ideals (Lemma 1), with
  their minimal DFAs through the automata algebra;
- :class:`DecisionList` (Algorithm 2) with :meth:`~DecisionList.to_weights`
  (eq. (31)–(32)), and :func:`decision_list`, the chopping procedure of Theorem 6;
- :func:`sample`: seeded, balanced samples of labelled strings;
- :mod:`ratkit.automata.pt.examples`: target languages shared by tests and benchmarks.

References
----------
A. Ghose, *Rational kernels: a survey*, §IV-A1–IV-A3; L. Kontorovich, C. Cortes, M. Mohri,
"Kernel methods for learning languages", Theoretical Computer Science 405 (2008).
"""

from ratkit.automata.pt.decision import DecisionList, decision_list
from ratkit.automata.pt.errors import (
    BoundExceededError,
    DecisionListError,
    EmptyAlphabetError,
    NotPiecewiseTestableError,
)
from ratkit.automata.pt.ideals import Formula, ideal, shuffle_ideal
from ratkit.automata.pt.sampling import sample
from ratkit.automata.pt.words import is_subsequence, subsequences

__all__ = [
    "is_subsequence",
    "subsequences",
    "shuffle_ideal",
    "ideal",
    "Formula",
    "DecisionList",
    "decision_list",
    "sample",
    "DecisionListError",
    "BoundExceededError",
    "NotPiecewiseTestableError",
    "EmptyAlphabetError",
]
