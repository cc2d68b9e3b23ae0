"""Target PT languages shared by the tests and the benchmark (``bench/pt_languages.py``).

Each :class:`Target` is n-PT for n = 1..3 over an alphabet of 2 to 4 symbols, written
as a :class:`~ratkit.automata.pt.Formula` or a :class:`~ratkit.automata.pt.DecisionList`.

Examples
--------
>>> from ratkit.automata.pt.examples import EXAMPLES
>>> t = EXAMPLES["ab_not_ba"]
>>> t.alphabet, t.n, t("aabb"), t("ba")
('ab', 2, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

from ratkit.automata.alphabet import SequenceLike
from ratkit.automata.pt.decision import DecisionList
from ratkit.automata.pt.ideals import Formula, ideal
from ratkit.automata.transducer import Transducer

__all__ = ["Target", "EXAMPLES"]


@dataclass(frozen=True)
class Target:
    """A named PT language over ``alphabet``, given by its ``definition``."""

    name: str
    alphabet: str
    description: str
    definition: Formula | DecisionList

    @property
    def n(self) -> int:
        """The language is n-PT: the longest string its shuffle ideals use."""
        return self.definition.degree

    def __call__(self, x: SequenceLike) -> bool:
        """x ∈ L, from the definition (subsequence tests)."""
        return self.definition(x)

    def dfa(self) -> Transducer:
        """The minimal DFA of the language over ``alphabet``."""
        return self.definition.to_dfa(self.alphabet)


_TARGETS = [
    Target("letters_ab_not_c", "abcd", "uses a and b but not c (1-PT)", (ideal("a") & ideal("b")) - ideal("c")),
    Target("ab_not_ba", "ab", "contains ab but not ba as a subsequence (2-PT)", ideal("ab") - ideal("ba")),
    Target("pairs_not_da", "abcd", "contains ad or bc, but not da (2-PT)", (ideal("ad") | ideal("bc")) - ideal("da")),
    Target(
        "union_of_three",
        "abc",
        "the union of three ideals Ψ(abc) ∪ Ψ(bab) ∪ Ψ(cc) (3-PT)",
        ideal("abc") | ideal("bab") | ideal("cc"),
    ),
    Target(
        "alternating_list",
        "abc",
        "a decision list with alternating signs (3-PT)",
        DecisionList([({"abc"}, True), ({"ab", "ca"}, False), ({"c"}, True), ({""}, False)], alphabet="abc"),
    ),
    Target("xor_of_triples", "ab", "exactly one of aab, bba as a subsequence (3-PT)", ideal("aab") ^ ideal("bba")),
]

EXAMPLES: dict[str, Target] = {t.name: t for t in _TARGETS}
