"""Building transducers: from arcs, from sequences, from pynini FSTs; the one coercion helper."""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pynini

from ratkit.automata.alphabet import EPSILON, Alphabet, SequenceLike, as_symbols
from ratkit.automata.fst_arrays import FstArrays, arrays_to_fst, chain_fst, fst_to_arrays
from ratkit.automata.semirings import PROBABILITY, Semiring, get_semiring
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import (
    AlphabetMismatchError,
    ParameterError,
    ParameterTypeError,
    SemiringError,
    SemiringMismatchError,
)

__all__ = ["from_arcs", "acceptor", "from_pynini", "as_transducer"]

ArcTuple = tuple  # (src, ilabel, olabel, weight, dst) or (src, label, weight, dst)


def from_arcs(
    arcs: Iterable[ArcTuple],
    start: Hashable,
    finals: Mapping[Any, Any],
    semiring: Semiring | str = PROBABILITY,
    alphabet: Alphabet | None = None,
) -> Transducer:
    """A transducer from its transitions: ⟦T⟧(x, y) = ⊕_π λ ⊗ w[π] ⊗ ρ(n[π]) (survey §II).

    Parameters
    ----------
    arcs
        Tuples ``(src, ilabel, olabel, weight, dst)``; an acceptor may use
        ``(src, label, weight, dst)``. Labels are symbols (strings), ``""`` is ε; weights
        are in the semiring's natural domain (probabilities for PROBABILITY, ...).
    start
        The initial state (initial weight 1̄).
    finals
        Mapping final state → final weight (natural domain).
    semiring
        A semiring object of :mod:`ratkit.automata.semirings` or its name.
    alphabet
        A declared alphabet; by default the symbols of the arcs, in order of appearance.

    Notes
    -----
    State ids are any hashable values. When all are non-negative integers and the largest,
    m, is less than twice the number k of distinct ids, they keep their numbers (states
    0 … m, of which the m + 1 − k unused ones have no arcs and are not final); otherwise
    integer ids are numbered 0 … k − 1 in increasing order of id, and ids of any other
    kind 0 … k − 1 in order of first appearance (``start``, ``finals``, then the arcs'
    sources and destinations). Either way the machine has O(k) states. Arcs of weight 0̄
    contribute to no path and are dropped.

    Examples
    --------
    >>> from ratkit.automata import from_arcs, evaluate
    >>> t = from_arcs([(0, "a", "b", 0.5, 1)], start=0, finals={1: 1.0})
    >>> evaluate(t, "a", "b")
    0.5
    """
    semiring = get_semiring(semiring)
    if isinstance(arcs, (str, bytes, Mapping)) or not isinstance(arcs, Iterable):
        raise ParameterTypeError(
            "The 'arcs' parameter of from_arcs must be an iterable of tuples (src, ilabel, olabel, weight, dst). "
            f"Got {arcs!r:.60} of type {type(arcs).__name__} instead."
        )
    if not isinstance(finals, Mapping):
        raise ParameterTypeError(
            "The 'finals' parameter of from_arcs must be a mapping final state → final weight (e.g. {1: 1.0}). "
            f"Got {finals!r:.60} of type {type(finals).__name__} instead."
        )
    if not isinstance(alphabet, (Alphabet, type(None))):
        raise ParameterTypeError(
            f"The 'alphabet' parameter of from_arcs must be a ratkit Alphabet or None. Got {type(alphabet).__name__}."
        )
    _check_state_id(start, "The start state")
    for q in finals:
        _check_state_id(q, "The final state")
    rows, labels = [], {}
    for k, arc in enumerate(arcs):
        if not isinstance(arc, (tuple, list)) or len(arc) not in (4, 5):
            raise ParameterError(
                f"Arc {k} is {arc!r}; expected (src, ilabel, olabel, weight, dst) or, for an "
                "acceptor, (src, label, weight, dst)."
            )
        if len(arc) == 4:
            src, ilab, w, dst = arc
            olab = ilab
        else:
            src, ilab, olab, w, dst = arc
        _check_state_id(src, f"The source state of arc {k}")
        _check_state_id(dst, f"The destination state of arc {k}")
        for lab in (ilab, olab):
            if not isinstance(lab, str):
                raise ParameterTypeError(
                    f'Arc {k} {tuple(arc)!r} has label {lab!r}; labels must be strings (symbols), with "" for ε.'
                )
        labels.update(dict.fromkeys((ilab, olab)))
        try:
            native = semiring.to_native(w)
        except SemiringError as exc:
            raise SemiringError(f"Arc {k} {tuple(arc)!r}: {exc}") from None
        if native != np.inf:  # an arc of weight 0̄ contributes nothing: drop it
            rows.append((src, ilab, olab, native, dst))

    labels.pop(EPSILON, None)
    if alphabet is None:
        alphabet = Alphabet(labels, closed=False)
    else:
        alphabet = alphabet.extended(labels)  # a declared alphabet raises on new symbols

    state_ids = _state_numbering([start, *finals, *(r[0] for r in rows), *(r[4] for r in rows)])
    final = np.full(len(state_ids), np.inf)
    for q, w in finals.items():
        try:
            final[state_ids[q]] = semiring.to_native(w)
        except SemiringError as exc:
            raise SemiringError(f"Final weight of state {q!r}: {exc}") from None
    label = alphabet.label
    arrays = FstArrays(
        arc_type=semiring.arc_type,
        start=state_ids[start],
        final=final,
        src=np.array([state_ids[r[0]] for r in rows], dtype=np.int64),
        ilabel=np.array([label(r[1]) for r in rows], dtype=np.int64),
        olabel=np.array([label(r[2]) for r in rows], dtype=np.int64),
        weight=np.array([r[3] for r in rows], dtype=np.float64),
        dst=np.array([state_ids[r[4]] for r in rows], dtype=np.int64),
    )
    return Transducer(arrays_to_fst(arrays), semiring, alphabet)


def _check_state_id(state: Any, what: str) -> None:
    """A state id must be hashable (to be numbered) and not NaN (NaN ≠ NaN would split it)."""
    try:
        hash(state)
    except TypeError:
        raise ParameterTypeError(
            f"{what} is {state!r:.60} of type {type(state).__name__}; state ids must be hashable (an int, a str, a "
            "tuple, ...)."
        ) from None
    if isinstance(state, (float, np.floating)) and state != state:
        raise ParameterError(f"{what} is NaN; NaN cannot be a state id (it is not equal to itself).")


def _state_numbering(states: Sequence[Hashable]) -> dict[Hashable, int]:
    """The state numbers 0 … n − 1 of ``states`` (ids, repeats allowed), n = O(distinct ids).

    Non-negative ints keep their numbers when they are dense (largest id m < 2k for k
    distinct ids: at most k filler states are added), and are otherwise numbered in
    increasing order of id; any other ids are numbered in order of appearance.
    """
    ints = [int(s) for s in states if isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0]
    if len(ints) == len(states):
        ids = sorted(set(ints))
        if ids[-1] < 2 * len(ids):
            return {i: i for i in range(ids[-1] + 1)}
        return {s: k for k, s in enumerate(ids)}
    numbering: dict[Hashable, int] = {}
    for s in states:
        numbering.setdefault(s, len(numbering))
    return numbering


def acceptor(
    sequence: SequenceLike,
    semiring: Semiring | str = PROBABILITY,
    weight: Any = None,
    alphabet: Alphabet | None = None,
) -> Transducer:
    """The acceptor of one sequence: A(x) = ``weight`` (1̄ by default) and 0̄ elsewhere.

    ``sequence`` is a ``str`` (one symbol per character) or a sequence of string tokens.
    With a declared ``alphabet``, a symbol outside it raises UnknownSymbolError.
    """
    semiring = get_semiring(semiring)
    symbols = as_symbols(sequence)
    if not isinstance(alphabet, (Alphabet, type(None))):
        raise ParameterTypeError(
            f"The 'alphabet' parameter of acceptor must be a ratkit Alphabet or None. Got {type(alphabet).__name__}."
        )
    if alphabet is None:
        alphabet = Alphabet(dict.fromkeys(symbols), closed=False)
    labels = alphabet.labels(symbols)
    return _chain(labels, labels, semiring, alphabet, semiring.one if weight is None else weight)


def _chain(ilabels: np.ndarray, olabels: np.ndarray, semiring: Semiring, alphabet: Alphabet, weight: Any) -> Transducer:
    """The string transducer of (ilabels, olabels) with final weight ``weight`` (natural)."""
    fst = chain_fst(ilabels, olabels, semiring.arc_type, semiring.to_native(weight))
    return Transducer(fst, semiring, alphabet, check=False)


def from_pynini(
    fst: pynini.Fst,
    semiring: Semiring | str | None = None,
    alphabet: Alphabet | None = None,
    *,
    token_type: Literal["utf8", "byte"] | None = None,
) -> Transducer:
    """Wrap a copy of a pynini FST.

    Symbols come from the FST's symbol tables when it has them, from ``alphabet`` when
    given, and otherwise labels are read as Unicode code points: pynini's
    ``token_type="utf8"`` convention (``pynini.accep("é", token_type="utf8")``). pynini's
    default ``token_type="byte"`` agrees on ASCII only: it spells "é" as its two UTF-8 bytes,
    which would read as "Ã©". The FST does not record which it was built with, so labels
    128–255 of an FST without symbol tables raise a ``UserWarning`` unless
    ``token_type`` says: ``"utf8"`` reads them as code points, ``"byte"`` refuses them
    (AlphabetMismatchError: a byte of a character is no symbol). The semiring defaults to TROPICAL
    for ``standard`` arcs and LOG for ``log``/``log64`` arcs; PROBABILITY and LOG accept
    ``log`` arcs (converted to ``log64``), BOOLEAN accepts ``standard`` arcs holding only
    0 and ∞.
    """
    if not isinstance(fst, pynini.Fst):
        raise ParameterTypeError(f"from_pynini expects a pynini.Fst; got {type(fst).__name__}.")
    if token_type not in (None, "utf8", "byte"):
        raise ParameterError(
            f"The 'token_type' parameter of from_pynini must be 'utf8', 'byte' or None. Got {token_type!r} instead."
        )
    arc_type = fst.arc_type()
    semiring = pynini_semiring(fst) if semiring is None else get_semiring(semiring)
    compatible = {"standard": ("standard",), "log64": ("log", "log64")}[semiring.arc_type]
    if arc_type not in compatible:
        raise SemiringMismatchError(
            f"A pynini FST with {arc_type!r} arcs cannot be read as a {semiring.name} "
            f"transducer, which needs {' or '.join(map(repr, compatible))} arcs; converting "
            "would change what the weights mean. Choose a matching semiring."
        )
    fst = fst.copy() if arc_type == semiring.arc_type else pynini.arcmap(fst, map_type="to_log64")
    arrays = fst_to_arrays(fst)
    if semiring.two_valued:
        bad = np.concatenate([arrays.weight, arrays.final])
        bad = bad[(bad != 0) & np.isfinite(bad)]
        if bad.size:
            raise SemiringError(
                f"A boolean transducer holds only weights 0 (True) and ∞ (False) as tropical "
                f"costs; the FST has weight {bad[0]!r}."
            )
    tapes = []  # per tape: {old label: symbol}
    for labels, table in ((arrays.ilabel, fst.input_symbols()), (arrays.olabel, fst.output_symbols())):
        used = np.unique(labels[labels != 0])
        ambiguous = table is None and alphabet is None and ((used >= 0x80) & (used <= 0xFF)).any()
        if ambiguous and token_type == "byte":
            raise AlphabetMismatchError(
                f"Label {int(used[used >= 0x80][0])} of this token_type='byte' FST is a byte of a non-ASCII "
                "character, which is not a symbol of its own: build the FST with token_type='utf8' (one label per "
                "character), or give it symbol tables."
            )
        if ambiguous and token_type is None:
            warnings.warn(
                "This pynini FST has no symbol table and labels in 128–255, read as the code points U+0080–U+00FF "
                "(pynini's token_type='utf8'). If it was built with pynini's default token_type='byte', they are "
                "UTF-8 bytes of non-ASCII text and read wrongly ('é' as 'Ã©'): build it with token_type='utf8' "
                "and pass token_type='utf8' here, or give it symbol tables or alphabet=.",
                UserWarning,
                stacklevel=2,
            )
        tapes.append({int(lab): _label_symbol(int(lab), table, alphabet) for lab in used})
    symbols = dict.fromkeys([*tapes[0].values(), *tapes[1].values()])
    alphabet = Alphabet(symbols, closed=False) if alphabet is None else alphabet.extended(symbols)
    fst.set_input_symbols(None)
    fst.set_output_symbols(None)
    ipairs, opairs = (
        [(old, alphabet.label(sym)) for old, sym in tape.items() if alphabet.label(sym) != old] for tape in tapes
    )
    if ipairs or opairs:
        fst = pynini.relabel_pairs(fst, ipairs=ipairs, opairs=opairs)
    return Transducer(fst, semiring, alphabet)


def _label_symbol(label: int, table: Any, alphabet: Alphabet | None) -> str:
    """The symbol of a pynini label: from its symbol table, else ``alphabet``, else chr(label)."""
    if table is not None:
        sym = table.find(label)
        if not sym:
            raise AlphabetMismatchError(f"Label {label} has no entry in the FST's symbol table {table.name()!r}.")
        return sym
    if alphabet is not None:
        if not 0 < label <= len(alphabet):
            raise AlphabetMismatchError(f"Label {label} is outside the given alphabet of {len(alphabet)} symbols.")
        return alphabet.symbol(label)
    if not 0 < label < 0x110000:
        raise AlphabetMismatchError(
            f"Label {label} is not a Unicode code point, and the FST has no symbol table to name it; "
            "pass alphabet= (label i is its symbol i − 1)."
        )
    return chr(label)


def pynini_semiring(fst: pynini.Fst) -> Semiring:
    """The semiring a pynini FST is read in when none is given: TROPICAL for ``standard``
    arcs, LOG for ``log``/``log64`` arcs."""
    return get_semiring("tropical" if fst.arc_type() == "standard" else "log")


def as_transducer(obj: Any, semiring: Semiring | None = None, what: str = "operand") -> Transducer:
    """Coerce what a user holds — a Transducer, str, token sequence or pynini FST — once.

    A ``str``/token sequence becomes :func:`acceptor` in ``semiring`` (PROBABILITY when
    none is implied); a Transducer in another semiring raises SemiringMismatchError.
    """
    if isinstance(obj, Transducer):
        if semiring is not None and obj.semiring is not semiring:
            raise SemiringMismatchError(
                f"The {what} is a {obj.semiring.name} transducer but this operation works in "
                f"the {semiring.name} semiring. Build both operands in the same semiring."
            )
        return obj
    if isinstance(obj, pynini.Fst):
        return from_pynini(obj, semiring)
    if isinstance(obj, str) or (isinstance(obj, Sequence) and not isinstance(obj, (bytes, bytearray))):
        return acceptor(obj, semiring or PROBABILITY)
    raise ParameterTypeError(
        f"The {what} must be a ratkit Transducer, a pynini.Fst, a str or a sequence of str "
        f"tokens; got {type(obj).__name__} {obj!r:.40}."
    )
