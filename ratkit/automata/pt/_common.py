"""Coercions shared by the PT modules: alphabets Σ, words, and how words are shown.

Internally a word is a tuple of symbols. A word is shown to users as a ``str`` when every
symbol of its alphabet is one character, and as the tuple of tokens otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ratkit.automata.alphabet import Alphabet, SequenceLike, _single_characters, as_symbols, symbol_listing
from ratkit.automata.pt.errors import EmptyAlphabetError
from ratkit.exceptions import ParameterTypeError, UnknownSymbolError

__all__ = ["Word", "Shown", "as_sigma", "as_word", "show", "shows_as_str", "subsequence_of"]

Word = tuple[str, ...]
Shown = str | Word


def as_sigma(alphabet: Any) -> Alphabet:
    """Σ as a declared alphabet, from a ``str``, a token sequence or an :class:`Alphabet`."""
    if isinstance(alphabet, Alphabet):
        symbols = alphabet.symbols
    elif alphabet is None:
        raise ParameterTypeError("The alphabet Σ is required: pass its symbols, e.g. alphabet='ab'.")
    else:
        symbols = as_symbols(alphabet, "alphabet")
    if not symbols:
        raise EmptyAlphabetError(
            "The alphabet Σ is empty, so Σ* holds only the empty string and there is no "
            "language to test. Pass the symbols of Σ, e.g. alphabet='ab'."
        )
    return Alphabet(symbols, closed=True)


def as_word(x: SequenceLike, sigma: Alphabet | None = None, what: str = "string") -> Word:
    """x as a tuple of symbols; with Σ given, a symbol outside Σ raises UnknownSymbolError."""
    word = as_symbols(x, what)
    if sigma is not None:
        for i, s in enumerate(word):
            if s not in sigma:
                raise UnknownSymbolError(
                    f"Symbol {s!r} at position {i} of the {what} = {x!r} is not in the alphabet "
                    f"Σ = {{{symbol_listing(sigma, sort=False)}}}. Use strings over Σ, or declare a Σ that "
                    "contains every symbol you need."
                )
    return word


def shows_as_str(symbols: Iterable[str]) -> bool:
    """True when words over these symbols are shown as ``str`` (every symbol one character)."""
    return _single_characters(symbols)


def show(word: Word, as_str: bool) -> Shown:
    return "".join(word) if as_str else word


def subsequence_of(u: Word, x: Word) -> bool:
    """u ⊑ x on words (tuples), by the greedy left-to-right embedding."""
    it = iter(x)
    return all(s in it for s in u)
