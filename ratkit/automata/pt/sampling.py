"""Seeded samples of labelled strings: balanced classes, uniform over lengths.

Strings of each class are drawn exactly, by counting paths in the class's DFA (no
rejection sampling, so a rare class costs no more than a common one).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ratkit._validation import check_int
from ratkit.automata.pt import _lang
from ratkit.automata.pt._common import Shown, as_sigma, show, shows_as_str
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError

__all__ = ["sample"]


class _Counter:
    """count[k][q]: the number of strings of length k the DFA accepts from state q."""

    def __init__(self, t: Transducer, max_len: int) -> None:
        self.graph = _lang.graph(t)
        self.symbol = t.alphabet.symbol
        n = len(self.graph.arcs)
        self.count = [[int(self.graph.final[q]) for q in range(n)]]
        for _ in range(max_len):
            prev = self.count[-1]
            self.count.append([sum(prev[d] for _, d in self.graph.arcs[q]) for q in range(n)])

    def lengths(self, min_len: int, max_len: int) -> list[int]:
        """The lengths in [min_len, max_len] that hold at least one string of the language."""
        if self.graph.empty:
            return []
        return [k for k in range(min_len, max_len + 1) if self.count[k][self.graph.start]]

    def draw(self, length: int, rng: random.Random) -> tuple[str, ...]:
        """A string of the given length, uniformly among the accepted ones."""
        q, word = self.graph.start, []
        for remaining in range(length, 0, -1):
            r = rng.randrange(self.count[remaining][q])
            for lab, d in self.graph.arcs[q]:
                r -= self.count[remaining - 1][d]
                if r < 0:
                    break
            word.append(self.symbol(lab))
            q = d
        return tuple(word)


def sample(
    language: Any,
    alphabet: Any,
    n: int,
    *,
    max_len: int,
    min_len: int = 0,
    seed: int | None = None,
) -> tuple[list[Shown], np.ndarray]:
    """n labelled strings of length in [min_len, max_len]: ⌊n/2⌋ in L, the rest in Σ* − L.

    For each string of a class, a length is drawn uniformly among the lengths in
    [min_len, max_len] where the class has strings, then a string uniformly among the
    class's strings of that length (exactly, by path counting in its DFA). The two classes
    are shuffled together. The same ``seed`` gives the same sample.

    Parameters
    ----------
    language
        L, as :func:`~ratkit.automata.pt.decision_list` takes it: a DFA (ratkit acceptor or
        ``pynini.Fst``), a :class:`~ratkit.automata.pt.Formula` or a
        :class:`~ratkit.automata.pt.DecisionList`.
    alphabet
        Σ.
    n
        How many strings (≥ 0).
    max_len, min_len
        The range of lengths, 0 ≤ min_len ≤ max_len.
    seed
        Seed of the ``random.Random`` generator used.

    Returns
    -------
    strings : list
        ``str`` when every symbol of Σ is one character, tuples of tokens otherwise.
    labels : ndarray of bool
        labels[i] is True iff strings[i] ∈ L.

    Examples
    --------
    >>> from ratkit.automata.pt import ideal
    >>> xs, ys = sample(ideal("ab"), "ab", 4, max_len=5, seed=0)
    >>> sorted(ys.tolist())
    [False, False, True, True]
    """
    sigma = as_sigma(alphabet)
    n = check_int(n, "n", "sample", low=0)
    max_len = check_int(max_len, "max_len", "sample", low=0)
    min_len = check_int(min_len, "min_len", "sample", low=0)
    if min_len > max_len:
        raise ParameterError(f"The 'min_len' parameter of sample must be ≤ max_len={max_len}. Got {min_len!r} instead.")
    lang = _lang.as_language(language, sigma)
    rng = random.Random(seed)
    as_str = shows_as_str(sigma)
    drawn: list[tuple[Shown, bool]] = []
    classes = ((True, lang, n // 2), (False, _lang.complement_of(lang, sigma), n - n // 2))
    for label, dfa, quota in classes:
        counter = _Counter(dfa, max_len)
        lengths = counter.lengths(min_len, max_len)
        if quota and not lengths:
            which = "in L" if label else "outside L"
            raise ParameterError(
                f"No string of length {min_len}..{max_len} over Σ is {which}, so a balanced "
                "sample cannot be drawn. Widen the range of lengths, or check the language."
            )
        for _ in range(quota):
            drawn.append((show(counter.draw(rng.choice(lengths), rng), as_str), label))
    rng.shuffle(drawn)
    return [x for x, _ in drawn], np.array([y for _, y in drawn], dtype=bool)
