"""The subsequence relation ⊑ (survey eq. (25)) and the subsequences of a string.

References
----------
A. Ghose, *Rational kernels: a survey*, §IV-A1, eq. (25); §IV-A3 (the feature map φ).
"""

from __future__ import annotations

from ratkit._validation import check_int
from ratkit.automata.alphabet import SequenceLike, as_symbols
from ratkit.automata.pt._common import Shown, Word, subsequence_of

__all__ = ["is_subsequence", "subsequences"]


def is_subsequence(u: SequenceLike, x: SequenceLike) -> bool:
    """u ⊑ x: x ∈ Σ* u₁ Σ* u₂ … Σ* u_l Σ* (eq. (25)), i.e. u is obtained from x by deletions.

    ``u`` and ``x`` are ``str`` (one symbol per character) or token sequences. The empty
    string is a subsequence of every string.

    Examples
    --------
    >>> is_subsequence("ac", "abc"), is_subsequence("ca", "abc")
    (True, False)
    >>> is_subsequence(["the", "cat"], ["the", "fat", "cat"])
    True
    """
    return subsequence_of(as_symbols(u, "string u"), as_symbols(x, "string x"))


def subsequences(x: SequenceLike, max_len: int | None = None) -> set[Shown]:
    """{u : u ⊑ x, |u| ≤ max_len}: the distinct subsequences of x, the empty one included.

    These are the coordinates where the subsequence feature map φ(x) of §IV-A3 is 1.
    Strings come back as ``str`` for a ``str`` x and as tuples of tokens otherwise;
    ``max_len=None`` means no bound.

    Examples
    --------
    >>> sorted(subsequences("aba", max_len=2))
    ['', 'a', 'aa', 'ab', 'b', 'ba']
    """
    word = as_symbols(x, "string x")
    if max_len is None:
        max_len = len(word)
    else:
        max_len = check_int(max_len, "max_len", "subsequences", low=0)
    found: set[Word] = {()}
    for s in word:
        found |= {u + (s,) for u in found if len(u) < max_len}
    if isinstance(x, str):
        return {"".join(u) for u in found}
    return found
