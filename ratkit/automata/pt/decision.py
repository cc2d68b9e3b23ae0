"""Decision lists over shuffle ideals (Algorithm 2), their linear separators, and Theorem 6.

A decision list Δ = (D₁, σ₁), …, (D_N, σ_N) answers σ_i for the first i with x ∈ Ψ(D_i)
and σ_N when there is none. :func:`decision_list` builds the list of a PT language by the
chopping procedure of Theorem 6; :meth:`DecisionList.to_weights` turns a list into a
vector w over subsequences with ⟨w, φ(x)⟩ > 0 ⇔ Δ(x) (eq. (31)–(32)), φ being the
subsequence indicator map: PT languages are linearly separable in that feature space.

References
----------
A. Ghose, *Rational kernels: a survey*, §IV-A2 (decisive strings, Lemmas 2–9, Theorem 6,
Algorithm 2) and §IV-A3 (eq. (31)–(32)); L. Kontorovich, C. Cortes, M. Mohri, "Kernel
methods for learning languages", Theoretical Computer Science 405 (2008).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from functools import reduce
from operator import or_
from typing import Any

import numpy as np

from ratkit._validation import check_int
from ratkit.automata.alphabet import Alphabet, SequenceLike
from ratkit.automata.operations import difference, intersect, minimize, sigma_star
from ratkit.automata.pt import _lang
from ratkit.automata.pt._common import (
    Shown,
    Word,
    as_sigma,
    as_word,
    show,
    shows_as_str,
    subsequence_of,
)
from ratkit.automata.pt.errors import BoundExceededError, NotPiecewiseTestableError
from ratkit.automata.pt.ideals import Formula, ideal
from ratkit.automata.semirings import BOOLEAN
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError, ParameterTypeError

__all__ = ["DecisionList", "decision_list"]

logger = logging.getLogger(__name__)


def _as_sign(sign: Any, i: int) -> bool:
    if isinstance(sign, (bool, np.bool_)):
        return bool(sign)
    if isinstance(sign, (int, np.integer)) and sign in (1, 0, -1):
        return sign == 1
    raise ParameterTypeError(
        f"The sign σ_{i} of the decision list must be True or False (1 and 0, or +1 and -1, "
        f"also work). Got {sign!r} instead."
    )


class DecisionList:
    """Δ = (D₁, σ₁), …, (D_N, σ_N): a decision list over shuffle ideals (Algorithm 2).

    ``Δ(x)`` is σ_i for the first i with x ∈ Ψ(D_i), i.e. some u ∈ D_i with u ⊑ x, and
    σ_N when there is none (the final ``else`` of Algorithm 2).

    Parameters
    ----------
    entries
        Pairs ``(D_i, σ_i)``: D_i a collection of strings (``str`` or token sequences),
        σ_i a bool. At least one entry.
    alphabet
        Σ, optional. When given, every string of the list and every string the list is
        called on must be over Σ (UnknownSymbolError otherwise), and :meth:`to_dfa`
        needs no argument.

    Attributes
    ----------
    entries : tuple of (frozenset, bool)
        The pairs (D_i, σ_i); strings are ``str`` when every symbol is one character,
        tuples of tokens otherwise.
    alphabet : Alphabet or None

    Examples
    --------
    >>> dl = DecisionList([({"ba"}, False), ({"ab"}, True), ({""}, False)], alphabet="ab")
    >>> dl("aabb"), dl("abba"), dl("bbb")
    (True, False, False)
    >>> dl.to_weights()
    {'ba': -3, 'ab': 2, '': -1}
    """

    __slots__ = ("_entries", "alphabet", "_as_str")

    def __init__(self, entries: Iterable[tuple[Iterable[SequenceLike], Any]], alphabet: Any = None):
        sigma = None if alphabet is None else as_sigma(alphabet)
        parsed: list[tuple[frozenset[Word], bool]] = []
        if isinstance(entries, (str, bytes)) or not isinstance(entries, Iterable):
            raise ParameterTypeError(
                "The entries of a DecisionList must be an iterable of pairs (D_i, σ_i) of a set of strings and a "
                f"bool. Got {entries!r:.60} of type {type(entries).__name__} instead."
            )
        for i, entry in enumerate(entries, 1):
            if not isinstance(entry, (tuple, list)) or len(entry) != 2:
                raise ParameterTypeError(
                    f"Entry {i} of the decision list is {entry!r}; expected a pair "
                    "(D_i, σ_i) of a set of strings and a bool."
                )
            strings, sign = entry
            if isinstance(strings, str):
                raise ParameterTypeError(
                    f"D_{i} of the decision list is the str {strings!r}; D_i is a set of "
                    f"strings, so write {{{strings!r}}}."
                )
            words = frozenset(as_word(u, sigma, f"string of D_{i}") for u in strings)
            parsed.append((words, _as_sign(sign, i)))
        if not parsed:
            raise ParameterError(
                "A decision list needs at least one entry (D_N, σ_N): σ_N is also the answer "
                "of Algorithm 2 when no entry matches."
            )
        self._entries = tuple(parsed)
        self.alphabet = sigma
        symbols = sigma if sigma is not None else (s for d, _ in parsed for u in d for s in u)
        self._as_str = shows_as_str(symbols)

    # -- the list ------------------------------------------------------------------
    @property
    def entries(self) -> tuple[tuple[frozenset[Shown], bool], ...]:
        return tuple((frozenset(show(u, self._as_str) for u in d), s) for d, s in self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[tuple[frozenset[Shown], bool]]:
        return iter(self.entries)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DecisionList)
            and self._entries == other._entries
            and _symbols(self.alphabet) == _symbols(other.alphabet)
        )

    def __hash__(self) -> int:
        return hash((self._entries, _symbols(self.alphabet)))

    def __repr__(self) -> str:
        def words(d: frozenset[Word]) -> str:
            return ", ".join(repr(show(u, self._as_str)) for u in sorted(d, key=_order))

        items = ", ".join(f"({{{words(d)}}}, {s})" for d, s in self._entries)
        sigma = "" if self.alphabet is None else f", alphabet={_alphabet_arg(self.alphabet)!r}"
        return f"DecisionList([{items}]{sigma})"

    @property
    def degree(self) -> int:
        """max |u| over the strings of the list: the list's language is n-PT for n = degree."""
        return max((len(u) for d, _ in self._entries for u in d), default=0)

    # -- Algorithm 2 ---------------------------------------------------------------
    def __call__(self, x: SequenceLike) -> bool:
        """Δ(x) by Algorithm 2: σ_i for the first i with x ∈ Ψ(D_i), else σ_N."""
        word = as_word(x, self.alphabet, "string x")
        for strings, sign in self._entries:
            if any(subsequence_of(u, word) for u in strings):
                return sign
        return self._entries[-1][1]

    # -- eq. (31)-(32) ---------------------------------------------------------------
    def to_weights(self) -> dict[Shown, int]:
        """The sparse w of eq. (31)–(32): ⟨w, φ(x)⟩ = Σ_{u ⊑ x} w_u > 0 ⇔ Δ(x).

        Processing D_N, …, D₁ in that order, every u ∈ D_n gets
        w_u = |Σ_{v ∈ V⁻} w_v| + 1 when σ_n is True and −(|Σ_{v ∈ V⁺} w_v| + 1) otherwise,
        V^± being the strings of D_{n+1}, …, D_N with positive/negative weight. If x first
        meets D_j, its own coordinates outweigh everything later entries can add, and the
        entries before j contribute nothing (x ∉ Ψ(D_i), so φ(x)_u = 0 for u ∈ D_i).

        The argument needs the D_i disjoint and some entry to catch every x. A list built by
        :func:`decision_list` has both (D_N = {ε}); for any other list the weights are
        computed on an equivalent normal form: a string of D_j that has a subsequence in an
        earlier D_i never decides (x ∈ Ψ of it ⇒ x ∈ Ψ(D_i)) and is left out, and when no
        D_i holds ε, an entry ({ε}, σ_N) is appended (the final ``else``).
        Weights are exact integers; keys are the strings u, the coordinates of φ.
        """
        kept: list[tuple[list[Word], bool]] = []
        seen: list[Word] = []
        for strings, sign in self._entries:
            live = [u for u in sorted(strings, key=_order) if not any(subsequence_of(v, u) for v in seen)]
            seen.extend(live)
            kept.append((live, sign))
        if () not in seen:
            kept.append(([()], self._entries[-1][1]))
        w: dict[Word, int] = {}
        pos_total = neg_total = 0  # Σ of the positive / negative weights of later entries
        for deciding, sign in reversed(kept):
            t = abs(neg_total) + 1 if sign else -(pos_total + 1)
            for u in deciding:
                w[u] = t
            if sign:
                pos_total += t * len(deciding)
            else:
                neg_total += t * len(deciding)
        order = [u for strings, _ in kept for u in strings]
        return {show(u, self._as_str): w[u] for u in order}

    # -- its language ----------------------------------------------------------------
    def to_formula(self) -> Formula:
        """The list's language as a Boolean combination of shuffle ideals.

        ⋃_{i : σ_i} (Ψ(D_i) − Ψ(D₁) − … − Ψ(D_{i−1})), plus Σ* − ⋃_i Ψ(D_i) when σ_N.
        """
        parts: list[Formula] = []
        covered: Formula | None = None
        for strings, sign in self._entries:
            here = ideal(*strings)
            if sign:
                parts.append(here if covered is None else here - covered)
            covered = here if covered is None else covered | here
        if self._entries[-1][1]:
            parts.append(~covered)  # type: ignore[operator]
        return reduce(or_, parts) if parts else ideal()

    def to_dfa(self, alphabet: Any = None) -> Transducer:
        """The minimal DFA of the list's language over Σ (``alphabet``, default the list's)."""
        if alphabet is None:
            if self.alphabet is None:
                raise ParameterError("This decision list has no alphabet; pass one: to_dfa(alphabet='ab').")
            alphabet = self.alphabet
        return self.to_formula().to_dfa(alphabet)


def _order(u: Word) -> tuple[int, Word]:
    return (len(u), u)


def _symbols(sigma: Alphabet | None) -> frozenset[str] | None:
    return None if sigma is None else frozenset(sigma)


def _alphabet_arg(sigma: Alphabet) -> str | list[str]:
    return "".join(sigma) if shows_as_str(sigma) else list(sigma)


def decision_list(language: Any, alphabet: Any, max_len: int = 8) -> DecisionList:
    """The decision list Δ ≡ L of a PT language L over Σ, by the chopping procedure of Theorem 6.

    V₁ = Σ*; while V_i ≠ ∅: D_i is the set of minimal strings u that are decisive for L
    modulo V_i (V_i ∩ Ψ(u) ⊆ L, then σ_i = True, or V_i ∩ Ψ(u) ⊆ Lᶜ, then σ_i = False),
    and V_{i+1} = V_i − Ψ(D_i) (eq. (30)).

    Each step is a handful of automata operations, and candidates are never enumerated
    one by one: the strings positive-decisive modulo V form the upward-closed set
    P = Σ* − ↓(V ∩ Lᶜ) (↓ the closure under subsequences, by composition with a deletion
    transducer), and D_i = Min(P) ∩ V (likewise for the negative side with L), where
    Min(P) = P − (one-symbol insertions of P) is finite. D_i is therefore exactly the set
    the theorem asks for, whatever the lengths of its strings. The signs alternate along
    the list, D_N = {ε}, and the D_i are pairwise disjoint.

    Parameters
    ----------
    language
        L: a DFA as a ratkit acceptor (any semiring; its support is the language) or a
        ``pynini.Fst``, a :class:`~ratkit.automata.pt.Formula` or a :class:`DecisionList`.
        A non-deterministic acceptor or a transducer raises OperationError.
    alphabet
        Σ (``str``, tokens or :class:`~ratkit.automata.Alphabet`). The language's symbols
        must be in Σ, and an alphabet it declares must be Σ (AlphabetMismatchError); an
        empty Σ raises EmptyAlphabetError.
    max_len
        The longest string the list may hold.

    Returns
    -------
    DecisionList
        Over Σ. Before it is returned, its language is checked to equal L by automata
        operations (the symmetric difference is empty).

    Raises
    ------
    BoundExceededError
        The list needs strings longer than ``max_len``; the message (and ``.needed``) gives
        the bound that suffices.
    NotPiecewiseTestableError
        L is not PT: some V_i ≠ ∅ has no decisive string (impossible for a PT language by
        Lemma 4; the procedure always stops, Theorem 6). The test is exact, independent of
        ``max_len``. Both errors derive from DecisionListError; no list is returned.

    Examples
    --------
    >>> from ratkit.automata.pt import ideal
    >>> decision_list(ideal("ab") - ideal("ba"), "ab")
    DecisionList([({'ba'}, False), ({'ab'}, True), ({''}, False)], alphabet='ab')
    """
    sigma = as_sigma(alphabet)
    max_len = check_int(max_len, "max_len", "decision_list", low=0)
    lang = _lang.as_language(language, sigma)
    comp = _lang.complement_of(lang, sigma)
    as_str = shows_as_str(sigma)

    steps: list[tuple[Transducer, bool]] = []
    v = minimize(sigma_star(sigma, BOOLEAN))
    while not _lang.is_empty(v):
        i = len(steps) + 1
        pos = _minimal_decisive(v, comp, sigma)  # V ∩ Ψ(u) ⊆ L
        neg = _minimal_decisive(v, lang, sigma)  # V ∩ Ψ(u) ⊆ Lᶜ
        has_pos, has_neg = not _lang.is_empty(pos), not _lang.is_empty(neg)
        if not (has_pos or has_neg):
            if i == 1:
                where = "Every string u of V_1 = Σ*"
            else:
                removed = "Ψ(D_1)" if i == 2 else f"Ψ(D_1), …, Ψ(D_{i - 1})"
                where = f"After chopping off {removed}, every string u of the rest V_{i} ≠ ∅"
            raise NotPiecewiseTestableError(
                "The language is not piecewise testable, so no decision list over shuffle ideals "
                f"represents it. {where} has supersequences in V_{i} both in L and outside L, so no "
                f"string is decisive modulo V_{i}, while a PT language always has one (Lemma 4). "
                "This does not depend on max_len.",
                step=i,
            )
        if has_pos and has_neg:  # pragma: no cover - Lemma 9
            raise RuntimeError(f"internal error: D_{i} mixes signs; please report")
        d = pos if has_pos else neg
        steps.append((d, has_pos))
        logger.debug("D_%d: sign %s, %d states", i, has_pos, d.num_states)
        v = minimize(difference(v, _lang.upward_closure(d, sigma)))

    longest = [_lang.longest_word(d) or () for d, _ in steps]  # every D_i is non-empty
    needed = max(len(u) for u in longest)
    if needed > max_len:
        i, u = next((i, u) for i, u in enumerate(longest, 1) if len(u) > max_len)
        raise BoundExceededError(
            f"The decision list of this language needs strings longer than max_len={max_len}: "
            f"D_{i}, the minimal decisive strings modulo V_{i}, holds {show(u, as_str)!r} "
            f"of length {len(u)}, and the whole list needs length {needed}. Call "
            f"decision_list(..., max_len={needed}) or larger.",
            needed=needed,
        )
    result = DecisionList([(_lang.words_of(d), sign) for d, sign in steps], sigma)
    _check_equivalent(result.to_dfa(), lang)
    return result


def _minimal_decisive(v: Transducer, other: Transducer, sigma: Alphabet) -> Transducer:
    """Min{u : V ∩ Ψ(u) ∩ other = ∅} ∩ V: the minimal strings decisive modulo V on one side.

    V ∩ Ψ(u) misses ``other`` iff u is no subsequence of a string of V ∩ other, so those u
    form Σ* − ↓(V ∩ other), an upward-closed set. Its minimal elements inside V (V is
    closed under subsequences) are the minimal decisive strings of that sign.
    """
    decisive = _lang.complement_of(_lang.downward_closure(intersect(v, other), sigma), sigma)
    return minimize(intersect(_lang.minimal_words(decisive, sigma), v))


def _check_equivalent(a: Transducer, b: Transducer) -> None:
    if not (_lang.is_empty(difference(a, b)) and _lang.is_empty(difference(b, a))):
        raise RuntimeError(  # pragma: no cover - guards against returning a wrong list
            "internal error: the decision list built by decision_list differs from the language; please report"
        )
