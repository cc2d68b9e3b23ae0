r"""Reading and writing transducers: OpenFst AT&T text and OpenFst binary files.

AT&T text (as printed by ``fstprint``): one arc per line, ``src dst ilabel olabel
[weight]`` (``src dst label [weight]`` for an acceptor), one final state per line,
``state [weight]``; fields separated by tabs or spaces; the source state of the first
line is the initial state. Labels are symbols; only ``<eps>`` is ε (OpenFst's name of
label 0), and ``ε`` is an ordinary symbol, as in Greek text. :func:`to_att` writes ε as
``<eps>``, so :func:`read_att` (in the same semiring) gives back the relation of every
transducer whose symbols hold no whitespace. Weights are in the semiring's natural
domain by default (``weights="natural"``), or in OpenFst's native encoding
(``weights="openfst"``: −ln p for probabilities, 0/∞ for booleans), as ``fstprint``
writes them. A missing weight is 1̄.

>>> from ratkit.automata import evaluate
>>> t = read_att("0 1 ε <eps> 0.5\n1\n")  # the symbol ε in, nothing (ε) out
>>> t.alphabet.symbols, evaluate(t, "ε", "")
(('ε',), 0.5)

Binary files are OpenFst ``vector`` FSTs with the alphabet attached as symbol tables.
The symbol table's name records ratkit's semiring (``ratkit:probability``) so that
:func:`read_fst` restores it; files written by other tools need ``semiring=``.

Neither format carries a checksum. :func:`read_fst` checks every structural field of a
binary file (a truncated or corrupted file raises FstFormatError), but a changed bit
inside a weight gives another valid weight, which no reader can detect; AT&T text cut at
a line or field boundary is another valid file. Keep a checksum beside the file where
that matters.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any, Literal

import numpy as np
import pywrapfst

from ratkit._files import atomic_write, check_input_file, is_file
from ratkit.automata.alphabet import EPSILON, Alphabet
from ratkit.automata.construct import as_transducer, from_arcs, from_pynini
from ratkit.automata.fst_arrays import fst_to_arrays, read_fst_bytes
from ratkit.automata.semirings import PROBABILITY, Semiring, get_semiring
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import (
    FstFormatError,
    ParameterError,
    ParameterTypeError,
    RatkitError,
    SemiringError,
    SemiringMismatchError,
)

__all__ = ["read_att", "to_att", "write_att", "read_fst", "write_fst"]

WeightDomain = Literal["natural", "openfst"]
_EPS_NAMES = {"<eps>", EPSILON}  # OpenFst's name only: "ε" may be a symbol of the alphabet
_TABLE_PREFIX = "ratkit:"


def _lines(source: str | os.PathLike | Iterable[str]) -> tuple[str, list[str]]:
    """(name for messages, lines) of a path, a str holding AT&T text, or an iterable of lines."""
    if isinstance(source, (bytes, bytearray)):
        raise ParameterTypeError(
            "read_att takes a path, the AT&T text as a str or an iterable of lines; got bytes. Decode them "
            "first (data.decode('utf-8')), or pass the path of the file."
        )
    if not isinstance(source, (str, os.PathLike, Iterable)):
        raise ParameterTypeError(
            "read_att takes a path, the AT&T text as a str or an iterable of lines; "
            f"got {type(source).__name__} {source!r:.40}."
        )
    if isinstance(source, str) and source.startswith("\ufeff"):  # a byte-order mark is not part of the first state
        source = source[1:]
    if isinstance(source, str) and not source.strip():  # empty text, not the current folder ('')
        return "<text>", [source]
    if isinstance(source, str) and "\n" not in source and not is_file(source):
        first = source.split()[:1]
        if not (first and first[0].isdigit()):  # not a one-line AT&T text: a missing file
            check_input_file(source, "AT&T file")
        return "<text>", [source]
    if isinstance(source, (str, os.PathLike)) and (isinstance(source, os.PathLike) or "\n" not in source):
        path = check_input_file(source, "AT&T file")
        try:  # -sig: a byte-order mark written by Windows editors is not part of the first state
            return str(path), path.read_text(encoding="utf-8-sig").splitlines()
        except UnicodeDecodeError:
            raise FstFormatError(f"{path}: not a UTF-8 text file; is it a binary FST? Use read_fst.") from None
    if isinstance(source, str):
        return "<text>", source.splitlines()
    lines = list(source)
    for k, line in enumerate(lines):
        if not isinstance(line, str):
            raise ParameterTypeError(
                f"read_att: line {k + 1} of the lines given is a {type(line).__name__} ({line!r:.40}); "
                "expected str lines of AT&T text."
            )
    return "<lines>", lines


def _check_alphabet(alphabet: Any, owner: str) -> None:
    if alphabet is not None and not isinstance(alphabet, Alphabet):
        raise ParameterTypeError(
            f"The 'alphabet' parameter of {owner} must be a ratkit Alphabet or None. Got {type(alphabet).__name__} "
            f"{alphabet!r:.40} instead; build one with Alphabet(symbols)."
        )


def read_att(
    source: str | os.PathLike | Iterable[str],
    semiring: Semiring | str = PROBABILITY,
    *,
    alphabet: Alphabet | None = None,
    acceptor: bool | None = None,
    weights: WeightDomain = "natural",
) -> Transducer:
    """Read an AT&T text transducer from a path, a string holding the text, or lines.

    ``acceptor=None`` infers the layout: 3-field arc lines mean an acceptor, 5-field
    lines a transducer; files whose arc lines all have 4 fields are read as transducers
    without weights (OpenFst's default) unless ``acceptor=True``. The label ``<eps>`` is
    ε; every other label, ``ε`` included, is a symbol.
    """
    semiring = get_semiring(semiring)
    if weights not in ("natural", "openfst"):
        raise ParameterError(
            f"The 'weights' parameter of read_att must be 'natural' or 'openfst'. Got {weights!r} instead."
        )
    if acceptor is not None and not isinstance(acceptor, (bool, np.bool_)):
        raise ParameterTypeError(
            f"The 'acceptor' parameter of read_att must be True, False or None (infer). Got {acceptor!r:.40} instead."
        )
    _check_alphabet(alphabet, "read_att")
    name, lines = _lines(source)
    rows = [(i + 1, line.split()) for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    if not rows:
        raise FstFormatError(f"{name}: no states or arcs found; an AT&T file needs at least one line.")
    if acceptor is None:
        widths = {len(f) for _, f in rows}
        acceptor = 3 in widths and 5 not in widths
    arc_widths = (3, 4) if acceptor else (4, 5)
    layout = "src dst label [weight]" if acceptor else "src dst ilabel olabel [weight]"

    def state(tok: str, lineno: int) -> int:
        try:
            q = int(tok)
        except ValueError:
            q = -1
        if q < 0:
            raise FstFormatError(f"{name}, line {lineno}: state {tok!r} is not a non-negative integer.")
        return q

    def weight(tok: str | None, lineno: int) -> Any:
        if tok is None:
            return semiring.one
        try:
            value = float(tok)
        except ValueError:
            raise FstFormatError(f"{name}, line {lineno}: weight {tok!r} is not a number.") from None
        try:
            return semiring.from_native(value) if weights == "openfst" else semiring.check(value)
        except RatkitError as exc:
            raise FstFormatError(f"{name}, line {lineno}: {exc}") from None

    def label(tok: str) -> str:
        return EPSILON if tok in _EPS_NAMES else tok

    arcs, finals, start = [], {}, None
    for lineno, f in rows:
        if len(f) in (1, 2):
            finals[state(f[0], lineno)] = weight(f[1] if len(f) == 2 else None, lineno)
        elif len(f) in arc_widths:
            src, dst = state(f[0], lineno), state(f[1], lineno)
            if acceptor:
                ilab = olab = label(f[2])
                w = weight(f[3] if len(f) == 4 else None, lineno)
            else:
                ilab, olab = label(f[2]), label(f[3])
                w = weight(f[4] if len(f) == 5 else None, lineno)
            arcs.append((src, ilab, olab, w, dst))
        else:
            raise FstFormatError(
                f"{name}, line {lineno}: expected '{layout}' or 'state [weight]', got {len(f)} fields: {' '.join(f)!r}."
            )
        if start is None:
            start = state(f[0], lineno)
    try:
        return from_arcs(arcs, start=start, finals=finals, semiring=semiring, alphabet=alphabet)
    except (FstFormatError, RatkitError) as exc:
        raise type(exc)(f"{name}: {exc}") from None


def to_att(t: Any, weights: WeightDomain = "natural") -> str:
    """The AT&T text of a transducer, always in the 5-field transducer layout (unambiguous).

    A start state without arcs (the empty machine, or a machine whose other states are not
    reachable) comes first as a final line, with the final weight 0̄ when it is not final,
    which :func:`read_att` reads back as not final."""
    t = as_transducer(t)
    if weights not in ("natural", "openfst"):
        raise ParameterError(
            f"The 'weights' parameter of to_att must be 'natural' or 'openfst'. Got {weights!r} instead."
        )
    sr = t.semiring

    def fmt(w: Any) -> str:
        v = sr.to_native(w) if weights == "openfst" else w
        if isinstance(v, bool):
            return "1" if v else "0"
        return repr(float(v))

    def lab(s: str) -> str:
        if s == EPSILON:
            return "<eps>"
        if any(c.isspace() for c in s):
            raise FstFormatError(f"Symbol {s!r} contains whitespace and cannot be written as AT&T text.")
        return s

    # AT&T convention: the first line's state is the initial state. The start's arcs come
    # first; a start without arcs is given by a final line first (weight 0̄ when not final):
    # else another state's arc would come first and be read back as the start
    arcs = sorted(t.arcs(), key=lambda a: (a.src != t.start, a.src))
    finals = t.finals()
    lines = []
    start_line = not arcs or arcs[0].src != t.start
    if start_line:
        lines.append(f"{t.start}\t{fmt(finals.get(t.start, sr.zero))}")
    for a in arcs:
        lines.append(f"{a.src}\t{a.dst}\t{lab(a.ilabel)}\t{lab(a.olabel)}\t{fmt(a.weight)}")
    for q in sorted(finals):
        if not (start_line and q == t.start):
            lines.append(f"{q}\t{fmt(finals[q])}")
    return "\n".join(lines) + "\n"


def write_att(t: Any, path: str | os.PathLike, weights: WeightDomain = "natural") -> None:
    """Write :func:`to_att` of ``t`` to ``path`` (through a temporary file renamed over it, so a
    failed write leaves an existing file as it was)."""
    text = to_att(t, weights)
    with atomic_write(path, "w", what="AT&T file") as fh:
        fh.write(text)


def write_fst(t: Any, path: str | os.PathLike) -> None:
    """Write an OpenFst binary file, alphabet and semiring included."""
    t = as_transducer(t)
    fst = t.to_pynini()
    table = pywrapfst.SymbolTable(name=_TABLE_PREFIX + t.semiring.name)
    for label, sym in t.alphabet.symbol_table():
        table.add_symbol(sym, label)
    fst.set_input_symbols(table)
    fst.set_output_symbols(table)
    data = fst.write_to_string()  # written by Python: a failed write says why (OpenFst: "Write failed")
    with atomic_write(path, "wb", encoding=None, what="FST file") as fh:
        fh.write(data)


def read_fst(
    path: str | os.PathLike, semiring: Semiring | str | None = None, alphabet: Alphabet | None = None
) -> Transducer:
    """Read an OpenFst binary file (as written by :func:`write_fst`, ``fstcompile``, pynini).

    ``vector`` and ``const`` FSTs with ``standard``, ``log`` or ``log64`` arcs are read.
    The whole file is checked before OpenFst sees it (header, symbol tables, every
    count against the bytes that remain, states, labels, weights, nothing left over): a
    truncated or corrupted file raises FstFormatError. The semiring is ``semiring``, else
    the one recorded in the symbol table's name by :func:`write_fst`, else the arc
    type's (TROPICAL for ``standard``, LOG for ``log``/``log64``). Labels are symbols of
    the symbol tables, else of ``alphabet`` (label i is its symbol i − 1), else code points.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterTypeError(
            f"read_fst takes the path of an OpenFst binary file (a str or path); got {type(path).__name__} "
            f"{path!r:.40}."
        )
    if semiring is not None:
        semiring = get_semiring(semiring)
    _check_alphabet(alphabet, "read_fst")
    path = check_input_file(path, "FST file")
    fst = read_fst_bytes(path.read_bytes(), str(path))
    table = fst.input_symbols()
    recorded = semiring is None and table is not None and table.name().startswith(_TABLE_PREFIX)
    if recorded:
        name = table.name()[len(_TABLE_PREFIX) :]
        try:
            semiring = get_semiring(name)
        except SemiringError:
            raise FstFormatError(
                f"{path}: the symbol table records the semiring {name!r}, which ratkit does not know; "
                "pass semiring= to read_fst."
            ) from None
    if alphabet is None and (table is None or fst.output_symbols() is None):  # labels are code points
        a = fst_to_arrays(fst)
        for tape, labels, symbols in (("input", a.ilabel, table), ("output", a.olabel, fst.output_symbols())):
            top = int(labels.max(initial=0))
            if symbols is None and top > sys.maxunicode:
                raise FstFormatError(
                    f"{path}: {tape} label {top} is not a Unicode code point, and the file has no {tape} "
                    "symbol table; pass the alphabet= the labels number (label i is symbol i − 1)."
                )
    try:
        return from_pynini(fst, semiring, alphabet)
    except (SemiringError, SemiringMismatchError) as exc:  # a recorded semiring the file's arcs contradict
        raise (FstFormatError if recorded else type(exc))(f"{path}: {exc}") from None
    except RatkitError as exc:  # the machine itself (NotRegulatedError), or the alphabet= given
        raise type(exc)(f"{path}: {exc}") from None
    except ValueError as exc:  # a label outside the given alphabet
        raise FstFormatError(f"{path}: {exc}") from None
