"""Alphabets: the symbol tables shared by the operands of an operation.

A ratkit transducer carries one :class:`Alphabet` for both of its tapes. Symbols are
non-empty strings — the characters of a ``str`` or arbitrary tokens — and symbol ``i``
(0-based) has OpenFst label ``i + 1``; label 0 is ε.

An alphabet is *declared* (``closed=True``) when the user gives it, and *inferred*
(``closed=False``) when ratkit collects it from the data. Operations reconcile the
alphabets of their operands by merging them (relabelling one operand when needed), but
a declared alphabet never grows: an operand using symbols outside it raises
:class:`~ratkit.exceptions.AlphabetMismatchError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar, overload

import numpy as np
import pywrapfst

from ratkit.exceptions import (
    AlphabetMismatchError,
    IdOutOfRangeError,
    ParameterError,
    ParameterTypeError,
    UnknownSymbolError,
)

__all__ = ["Alphabet", "SequenceLike", "EPSILON", "as_symbols", "symbol_listing", "display_symbols"]

EPSILON = ""
_EPS_NAME = "<eps>"
_MAX_LISTED = 10

SequenceLike = str | Sequence[str]
_Symbols = TypeVar("_Symbols", bound=Sequence[str])


def as_symbols(sequence: SequenceLike, what: str = "sequence") -> tuple[str, ...]:
    """Split a ``str`` into characters; check a token sequence holds non-empty strings.

    Raises ParameterTypeError (a TypeError) for what is no sequence of strings — None, a
    number, bytes, a token that is not a str — and ParameterError for an empty token."""
    if isinstance(sequence, str):
        return tuple(sequence)
    if isinstance(sequence, (bytes, bytearray)):
        raise ParameterTypeError(
            f"The {what} must be a str or a sequence of str tokens; got bytes {bytes(sequence[:20])!r}. Decode it "
            "first (e.g. .decode('utf-8'))."
        )
    if not isinstance(sequence, Iterable):
        raise ParameterTypeError(
            f"The {what} must be a str or a sequence of str tokens; got {_shown(sequence)} of type "
            f"{type(sequence).__name__}."
        )
    try:
        tokens = tuple(sequence)
    except TypeError as exc:  # e.g. a 0-d numpy array
        raise ParameterTypeError(
            f"The {what} must be a str or a sequence of str tokens; got {_shown(sequence)} of type "
            f"{type(sequence).__name__}."
        ) from exc
    for i, tok in enumerate(tokens):
        if not isinstance(tok, str):
            raise ParameterTypeError(
                f"Token {i} of the {what} is {_shown(tok)}; tokens must be non-empty strings, not {type(tok).__name__}."
            )
        if not tok:
            raise ParameterError(f"Token {i} of the {what} is ''; tokens must be non-empty strings (ε is no token).")
    return tokens


def _shown(value: object, limit: int = 60) -> str:
    """``repr(value)``, shortened to about ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 5] + " ...>"


def symbol_listing(symbols: Iterable[str], *, sort: bool = True) -> str:
    """The symbols as a message shows them: their reprs, comma-separated, sorted unless
    ``sort=False`` (an alphabet in its own order), the first few then the count.

    >>> symbol_listing("cab"), symbol_listing("cab", sort=False)
    ("'a', 'b', 'c'", "'c', 'a', 'b'")
    >>> symbol_listing(f"s{i:02d}" for i in range(40))[-29:]
    "'s08', 's09', ... (40 in all)"
    """
    items = sorted(symbols) if sort else list(symbols)
    shown = ", ".join(map(repr, items[:_MAX_LISTED]))
    return shown + (f", ... ({len(items)} in all)" if len(items) > _MAX_LISTED else "")


def _single_characters(symbols: Iterable[object]) -> bool:
    """True when every symbol is a one-character ``str`` (vacuously for none): a sequence of
    them reads as one ``str``."""
    return all(isinstance(s, str) and len(s) == 1 for s in symbols)


@overload
def display_symbols(symbols: Sequence[str], sep: str) -> str: ...
@overload
def display_symbols(symbols: _Symbols, sep: None = None) -> str | _Symbols: ...
def display_symbols(symbols: Sequence[str], sep: str | None = None) -> str | Sequence[str]:
    """A sequence of symbols as ratkit shows it: one ``str`` when every symbol is one
    character (``("a", "b")`` → ``"ab"``), else the symbols joined by ``sep`` when it is given,
    else ``symbols`` itself (a list of tokens stays a list, for JSON and messages alike).

    >>> display_symbols(("a", "b")), display_symbols(["the", "cat"]), display_symbols(("the", "cat"), sep=" ")
    ('ab', ['the', 'cat'], 'the cat')
    >>> display_symbols([])
    ''
    """
    if _single_characters(symbols):
        return "".join(symbols)
    return symbols if sep is None else sep.join(symbols)


#: Largest code point for which characters are looked up in a dense table.
_TABLE_CODEPOINTS = 1 << 17


def _codepoints(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)


#: Characters read at a time by :func:`distinct_characters`: its arrays take 12 bytes a
#: character, so the whole of a 5 M-character corpus at once held 60 MB beside it.
_SCAN_CHARS = 1 << 18


def distinct_characters(text: str) -> list[str]:
    """The distinct characters of ``text``, in code-point order (one pass over the text, in
    slices of :data:`_SCAN_CHARS` characters)."""
    seen: set[int] = set()
    for start in range(0, len(text), _SCAN_CHARS):
        points = _codepoints(text[start : start + _SCAN_CHARS])
        if points.max() < _TABLE_CODEPOINTS:
            seen.update(np.flatnonzero(np.bincount(points)).tolist())
        else:
            seen.update(np.unique(points).tolist())
    return [chr(c) for c in sorted(seen)]


def codepoint_labels(text: str, keys: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """The label of every character of ``text``: ``vals[j]`` (≥ 1) where its code point is
    ``keys[j]`` (``keys`` sorted, non-empty), 0 for a character not in ``keys``.

    One gather through a dense code-point table when the text is long enough to pay for
    the table and its code points stay below 2¹⁷, otherwise a binary search per character.
    """
    points = _codepoints(text)
    top = max(int(points.max(initial=0)), int(keys[-1]))
    if top < _TABLE_CODEPOINTS and 8 * points.shape[0] >= top:
        table = np.zeros(top + 1, dtype=np.int64)
        table[keys] = vals
        return table[points]
    pos = np.minimum(np.searchsorted(keys, points), keys.size - 1)
    return np.where(keys[pos] == points, vals[pos], 0)


class Alphabet:
    """An ordered, immutable set of symbols; symbol ``i`` has OpenFst label ``i + 1``.

    Parameters
    ----------
    symbols
        A ``str`` (each character a symbol) or an iterable of non-empty string tokens.
        Duplicates are dropped, first occurrence kept.
    closed
        A declared alphabet (the default for user-built alphabets) rejects symbols it
        does not contain; an inferred one may be merged with others.
    """

    __slots__ = ("_symbols", "_index", "closed", "_table", "_points")

    def __init__(self, symbols: Iterable[str] = (), closed: bool = True) -> None:
        if isinstance(symbols, str):
            syms = tuple(symbols)
        elif isinstance(symbols, (bytes, bytearray)) or not isinstance(symbols, Iterable):
            raise ParameterTypeError(
                "The symbols of an Alphabet must be a str (one symbol per character) or an iterable of non-empty "
                f"str tokens; got {_shown(symbols)} of type {type(symbols).__name__}."
            )
        else:
            syms = tuple(symbols)
        if not isinstance(closed, (bool, np.bool_)):
            raise ParameterTypeError(
                f"The 'closed' parameter of Alphabet must be True or False. Got {closed!r} instead."
            )
        seen: dict[str, int] = {}
        for i, s in enumerate(syms):
            if not isinstance(s, str):
                raise ParameterTypeError(
                    f"Alphabet symbol {i} is {_shown(s)} of type {type(s).__name__}; symbols must be non-empty strings."
                )
            if not s:
                raise ParameterError(
                    f"Alphabet symbol {i} is the empty string ''; symbols must be non-empty strings ('' stands for ε)."
                )
            if s == _EPS_NAME:
                raise ParameterError(f"Alphabet symbol {i} is {_EPS_NAME!r}, which is reserved for ε.")
            seen.setdefault(s, len(seen))
        self._symbols: tuple[str, ...] = tuple(seen)
        self._index: dict[str, int] = seen
        self.closed = bool(closed)
        self._table: pywrapfst.SymbolTable | None = None
        self._points: tuple[np.ndarray, np.ndarray] | None = None

    # -- container protocol --------------------------------------------------------
    @property
    def symbols(self) -> tuple[str, ...]:
        return self._symbols

    def __len__(self) -> int:
        return len(self._symbols)

    def __iter__(self):
        return iter(self._symbols)

    def __contains__(self, symbol: object) -> bool:
        return symbol in self._index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Alphabet) and self._symbols == other._symbols and self.closed == other.closed

    def __hash__(self) -> int:
        return hash((self._symbols, self.closed))

    def __repr__(self) -> str:
        kind = "" if self.closed else ", closed=False"
        return f"Alphabet({list(self._symbols)!r}{kind})"

    def __reduce__(self):
        return (Alphabet, (self._symbols, self.closed))

    # -- labels --------------------------------------------------------------------
    def label(self, symbol: str) -> int:
        """The OpenFst label of ``symbol`` (ε, ``""``, is 0)."""
        if symbol == EPSILON:
            return 0
        try:
            return self._index[symbol] + 1
        except KeyError:
            raise UnknownSymbolError(
                f"Symbol {symbol!r} is not in the alphabet {{{symbol_listing(self._symbols)}}}."
            ) from None

    def symbol(self, label: int) -> str:
        """The symbol of OpenFst label ``label`` (0 is ε, returned as ``""``)."""
        if label == 0:
            return EPSILON
        if isinstance(label, bool) or not isinstance(label, (int, np.integer)):
            raise ParameterTypeError(f"A label must be an int in [0, {len(self._symbols)}]; got {label!r}.")
        if not 0 < label <= len(self._symbols):
            raise IdOutOfRangeError(
                f"Label {label} is outside this alphabet of {len(self._symbols)} symbols (labels 0 … "
                f"{len(self._symbols)}, 0 being ε)."
            )
        return self._symbols[label - 1]

    def labels(self, sequence: SequenceLike, what: str = "sequence") -> np.ndarray:
        """Labels of a sequence; an unknown symbol raises an error naming it and its position."""
        if isinstance(sequence, str) and sequence:
            fast = self._labels_of_str(sequence)
            if fast is not None:
                return fast
        symbols = as_symbols(sequence, what)
        out = np.empty(len(symbols), dtype=np.int64)
        index = self._index
        for i, s in enumerate(symbols):
            j = index.get(s)
            if j is None:
                raise UnknownSymbolError(
                    f"Symbol {s!r} at position {i} of the {what} is not in the alphabet "
                    f"{{{symbol_listing(self._symbols)}}}. Use symbols of the alphabet, or declare "
                    "a larger alphabet when building the transducer."
                )
            out[i] = j + 1
        return out

    def _labels_of_str(self, text: str) -> np.ndarray | None:
        """Vectorised labels of a str over an alphabet of characters; None to take the slow path."""
        if self._points is None:
            if not self._symbols or any(len(sym) != 1 for sym in self._symbols):
                self._points = (np.zeros(0, np.int64), np.zeros(0, np.int64))
            else:
                order = sorted(range(len(self._symbols)), key=lambda i: ord(self._symbols[i]))
                self._points = (
                    np.array([ord(self._symbols[i]) for i in order], dtype=np.int64),
                    np.array([i + 1 for i in order], dtype=np.int64),
                )
        keys, vals = self._points
        if keys.size == 0:
            return None
        labels = codepoint_labels(text, keys, vals)
        if not labels.all():
            return None  # let the slow path name the unknown symbol
        return labels

    def symbol_table(self) -> pywrapfst.SymbolTable:
        """This alphabet as a pynini ``SymbolTable`` (``<eps>`` = 0)."""
        if self._table is None:
            table = pywrapfst.SymbolTable(name="ratkit")
            table.add_symbol(_EPS_NAME, 0)
            for i, s in enumerate(self._symbols):
                table.add_symbol(s, i + 1)
            self._table = table
        return self._table

    # -- construction helpers ------------------------------------------------------
    def extended(self, symbols: Iterable[str]) -> Alphabet:
        """This alphabet plus ``symbols`` (appended); a declared alphabet refuses new symbols."""
        new = [s for s in dict.fromkeys(symbols) if s not in self._index and s != EPSILON]
        if not new:
            return self
        if self.closed:
            raise AlphabetMismatchError(
                f"Symbols {{{symbol_listing(new)}}} are not in the declared alphabet "
                f"{{{symbol_listing(self._symbols)}}}. Declare an alphabet that contains them."
            )
        return Alphabet(self._symbols + tuple(new), closed=False)

    def merge(self, other: Alphabet) -> Alphabet:
        """The alphabet serving both operands: ``self``'s symbols then ``other``'s new ones.

        Raises :class:`AlphabetMismatchError` when a declared alphabet would have to grow.
        """
        if other is self or other._symbols == self._symbols:
            return self if self.closed >= other.closed else other
        extra_other = [s for s in other._symbols if s not in self._index]
        extra_self = [s for s in self._symbols if s not in other._index]
        if self.closed and extra_other:
            raise AlphabetMismatchError(
                f"The operands' alphabets do not match: symbols {{{symbol_listing(extra_other)}}} "
                f"are not in the declared alphabet {{{symbol_listing(self._symbols)}}}."
            )
        if other.closed and extra_self:
            raise AlphabetMismatchError(
                f"The operands' alphabets do not match: symbols {{{symbol_listing(extra_self)}}} "
                f"are not in the declared alphabet {{{symbol_listing(other._symbols)}}}."
            )
        return Alphabet(self._symbols + tuple(extra_other), closed=self.closed or other.closed)

    def relabelling(self, target: Alphabet) -> list[tuple[int, int]]:
        """(old, new) label pairs mapping this alphabet's labels into ``target``'s; [] if identical."""
        pairs = [(i + 1, target._index[s] + 1) for i, s in enumerate(self._symbols)]
        return [p for p in pairs if p[0] != p[1]]
