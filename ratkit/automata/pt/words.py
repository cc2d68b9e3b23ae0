"""The subsequence relation ⊑ (survey eq. (25)) and the subsequences of a string.

References
----------
A. Ghose, *Rational kernels: a survey*, §IV-A1, eq. (25); §IV-A3 (the feature map φ).
"""

from __future__ import annotations

import numpy as np

from ratkit._validation import check_int
from ratkit.automata.alphabet import SequenceLike, as_symbols
from ratkit.automata.pt._common import Shown, Word, subsequence_of
from ratkit.limits import check_bytes, max_bytes

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
    _check_size(word, max_len)
    found: set[Word] = {()}
    for s in word:
        found |= {u + (s,) for u in found if len(u) < max_len}
    if isinstance(x, str):
        return {"".join(u) for u in found}
    return set[Shown](found)


#: Bytes one subsequence of length k costs in the returned set (a tuple or str of k items plus its set slot).
_ENTRY_BYTES, _ITEM_BYTES = 96, 8


def _check_size(word: Word, max_len: int) -> None:
    """Refuse (ResourceLimitError) a set of subsequences larger than ratkit.limits.max_bytes allows.

    Counts the distinct subsequences of each length k ≤ L by the recurrence
    N_i[k] = N_{i−1}[k] + N_{i−1}[k−1] − N_{j−1}[k−1], j the previous position of the symbol
    x_i (the subsequences ending at j are counted again at i). The counts only grow with i,
    so the loop stops as soon as their size passes the limit: an exponential set is refused
    after a few steps, before any of it is built."""
    length = min(max_len, len(word))
    budget = max_bytes()
    per_entry = _ENTRY_BYTES + _ITEM_BYTES * np.arange(length + 1, dtype=np.float64)
    counts = np.zeros(length + 1)
    counts[0] = 1.0
    before: dict[str, np.ndarray] = {}  # symbol → the counts before its previous occurrence
    for s in word:
        new = counts.copy()
        new[1:] += counts[:-1]
        previous = before.get(s)
        if previous is not None:
            new[1:] -= previous[:-1]
        before[s] = counts
        counts = new
        n_bytes = float(counts @ per_entry)
        if n_bytes > budget:
            break
    check_bytes(
        float(counts @ per_entry),
        f"subsequences of a string of length {len(word)} (max_len={max_len}: at least {counts.sum():.3g} distinct "
        "subsequences)",
        "Bound max_len, or test single strings with is_subsequence instead of listing them all.",
    )
