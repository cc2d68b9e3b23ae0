"""Exact, vectorised exchange of whole FSTs between pynini and numpy.

pynini reads weights back through a 9-significant-digit string (``float(Weight)``), and
reading arcs one by one from Python costs about a microsecond each. OpenFst's binary
formats store every weight in full precision, so serialising an FST and viewing the
bytes with numpy gives exact weights for a whole automaton at once; writing the
``vector`` format builds an FST from arrays without a Python call per arc.

Header (little-endian): magic int32, fst type and arc type as (int32 length, bytes),
version int32, flags int32, properties uint64, start int64, #states int64, #arcs int64.
Flags: 1 and 2 = an input / output symbol table follows the header (magic int32, name,
next free key int64, #symbols int64, then per symbol its string and key int64), 4 =
aligned. ``vector`` body: per state its final weight, #arcs int64 and that many arcs
(ilabel int32, olabel int32, weight, nextstate int32), packed. ``const`` body: an
array of state structs then an array of arc structs (C layout), each array starting at
a multiple of 16 bytes when aligned (flag 4, or version 1). Weights are float32 for
``standard`` and ``log`` arcs and float64 for ``log64``.

OpenFst trusts every count and size of a file: a corrupted count makes it reserve
petabytes (``std::length_error``, which aborts the interpreter) or index past its
arrays. :func:`read_fst_bytes` therefore checks a whole file with struct and numpy —
header, symbol tables, every state's arc count against the bytes left, destination
states, labels, weights, nothing left over — and hands OpenFst only bytes it has
checked, under a header it wrote itself.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
import pynini
import pywrapfst

from ratkit.automata.alphabet import _EPS_NAME
from ratkit.exceptions import FstFormatError, WeightOverflowError

__all__ = ["FstArrays", "fst_to_arrays", "arrays_to_fst", "chain_fst", "exact_weight", "read_fst_bytes"]

_MAGIC = 2125659606
_SYMBOL_TABLE_MAGIC = 2125658996
_WEIGHT_DTYPE: dict[str, np.dtype[Any]] = {
    "standard": np.dtype("<f4"),
    "log64": np.dtype("<f8"),
    "log": np.dtype("<f4"),
}
_VERSION = 2
_NO_STATE = -1
#: The file versions read, per FST type (const version 1 is the aligned layout).
_VERSIONS = {"vector": (2,), "const": (1, 2)}
_HAS_ISYMBOLS, _HAS_OSYMBOLS, _IS_ALIGNED = 1, 2, 4
_ALIGNMENT = 16  # OpenFst's MappedFile::kArchAlignment
_MAX_TYPE_NAME = 256  # longer than any OpenFst fst or arc type name


@dataclass
class FstArrays:
    """An FST as arrays of native (OpenFst) weights; arcs ordered by source state."""

    arc_type: str
    start: int
    final: np.ndarray  # float64 [n_states], native weight (+inf where not final)
    src: np.ndarray  # int64 [n_arcs]
    ilabel: np.ndarray  # int64 [n_arcs]
    olabel: np.ndarray  # int64 [n_arcs]
    weight: np.ndarray  # float64 [n_arcs], native weight
    dst: np.ndarray  # int64 [n_arcs]

    @property
    def n_states(self) -> int:
        return int(self.final.shape[0])

    @property
    def n_arcs(self) -> int:
        return int(self.src.shape[0])


def _arc_dtype(wdt: np.dtype) -> np.dtype:
    return np.dtype([("i", "<i4"), ("o", "<i4"), ("w", wdt), ("n", "<i4")])


@dataclass
class _Header:
    fst_type: str
    arc_type: str
    version: int
    flags: int
    start: int
    n_states: int  # −1: not recorded (a vector FST written to a stream); states run to the end
    n_arcs: int


class _Cursor:
    """Reads a serialised FST front to back; every read is checked against the bytes left."""

    def __init__(self, buf: bytes, source: str) -> None:
        self.buf, self.source, self.off = buf, source, 0

    @property
    def left(self) -> int:
        return len(self.buf) - self.off

    def error(self, what: str) -> FstFormatError:
        return FstFormatError(
            f"{self.source}: not a readable OpenFst binary file: {what}. The file is truncated or "
            "corrupted; write it again (write_fst, fstcompile, pynini's Fst.write)."
        )

    def unpack(self, fmt: str, what: str) -> tuple:
        size = struct.calcsize(fmt)
        if size > self.left:
            raise self.error(f"it ends inside the {what} (byte {self.off}, {self.left} bytes left, {size} needed)")
        values = struct.unpack_from(fmt, self.buf, self.off)
        self.off += size
        return values

    def string(self, what: str, limit: int | None = None) -> str:
        (n,) = self.unpack("<i", f"length of the {what}")
        bound = self.left if limit is None else min(limit, self.left)
        if not 0 <= n <= bound:
            raise self.error(f"the {what} has length {n}, but at most {bound} bytes can follow (byte {self.off})")
        raw = self.buf[self.off : self.off + n]
        self.off += n
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.error(f"the {what} {_shown(raw)} is not UTF-8") from None

    def align(self, what: str) -> None:
        pad = -self.off % _ALIGNMENT
        if pad > self.left:
            raise self.error(f"it ends inside the padding before the {what}")
        self.off += pad


def _shown(text: str | bytes) -> str:
    """``repr`` of a string from a file, cut to 40 characters (it may be megabytes long)."""
    return repr(text[:40]) + ("…" if len(text) > 40 else "")


def _read_header(cur: _Cursor) -> _Header:
    """The checked header: magic, known FST type, arc type, version and flags."""
    (magic,) = cur.unpack("<i", "magic number")
    if magic != _MAGIC:
        raise cur.error(
            f"it does not start with OpenFst's magic number {_MAGIC:#x} (found {magic & 0xFFFFFFFF:#x}); "
            "an AT&T text file is read with read_att"
        )
    fst_type = cur.string("FST type", _MAX_TYPE_NAME)
    arc_type = cur.string("arc type", _MAX_TYPE_NAME)
    version, flags, _props, start, n_states, n_arcs = cur.unpack("<iiQqqq", "header")
    if fst_type not in _VERSIONS:
        raise FstFormatError(
            f"{cur.source}: FST type {fst_type!r} is not read by ratkit, which reads 'vector' and 'const' "
            f"FSTs. Convert the file: fstconvert --fst_type=vector {cur.source} converted.fst"
        )
    if arc_type not in _WEIGHT_DTYPE:
        raise FstFormatError(
            f"{cur.source}: arc type {arc_type!r} is not read by ratkit, which reads 'standard' (tropical, "
            "boolean), 'log' and 'log64' (log, probability) arcs. Map the weights first, e.g. with "
            "pynini.arcmap(fst, map_type='to_log64')."
        )
    if version not in _VERSIONS[fst_type]:
        known = " or ".join(map(str, _VERSIONS[fst_type]))
        raise cur.error(f"version {version} of the {fst_type!r} format is unknown (expected {known})")
    if flags & ~(_HAS_ISYMBOLS | _HAS_OSYMBOLS | _IS_ALIGNED):
        raise cur.error(f"header flags {flags:#x} hold bits other than 1, 2 and 4 (symbol tables, aligned)")
    if n_states < (_NO_STATE if fst_type == "vector" else 0) or n_arcs < 0 or start < _NO_STATE:
        raise cur.error(f"the header gives {n_states} states, {n_arcs} arcs and start state {start}")
    return _Header(fst_type, arc_type, version, flags, start, n_states, n_arcs)


def _read_symbol_table(cur: _Cursor, tape: str) -> tuple[str, dict[int, str]]:
    """(name, {key: symbol}) of a serialised OpenFst symbol table; keys and symbols distinct."""
    (magic,) = cur.unpack("<i", f"{tape} symbol table")
    if magic != _SYMBOL_TABLE_MAGIC:
        raise cur.error(f"the {tape} symbol table does not start with its magic number {_SYMBOL_TABLE_MAGIC:#x}")
    name = cur.string(f"name of the {tape} symbol table")
    _available_key, size = cur.unpack("<qq", f"{tape} symbol table")
    if not 0 <= size <= cur.left // 12:  # each symbol takes at least its length and key
        raise cur.error(f"the {tape} symbol table claims {size} symbols, but only {cur.left} bytes follow")
    symbols: dict[int, str] = {}
    seen: set[str] = set()
    # One (int32 length, bytes, int64 key) entry per symbol, read inline: tables of
    # 10⁵ symbols are common, and a Cursor call per field would cost microseconds each.
    buf, off, end = cur.buf, cur.off, len(cur.buf)
    read_length, read_key = struct.Struct("<i").unpack_from, struct.Struct("<q").unpack_from
    for _ in range(size):
        if end - off < 12:
            raise cur.error(f"it ends inside the {tape} symbol table (byte {off}), {size - len(symbols)} symbols short")
        (n,) = read_length(buf, off)
        if not 0 <= n <= end - off - 12:
            raise cur.error(
                f"a symbol of the {tape} symbol table (byte {off}) has length {n}, but at most {end - off - 12} "
                "bytes can follow"
            )
        raw = buf[off + 4 : off + 4 + n]
        (key,) = read_key(buf, off + 4 + n)
        off += 12 + n
        try:
            symbol = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise cur.error(f"the {tape} symbol {_shown(raw)} (byte {off - 8 - n}) is not UTF-8") from None
        if key < 0 or key in symbols or symbol in seen:
            raise cur.error(f"the {tape} symbol table gives {_shown(symbol)} the key {key}, negative or taken twice")
        symbols[key] = symbol
        seen.add(symbol)
    cur.off = off
    return name, symbols


def _native(weights: np.ndarray) -> np.ndarray:
    """Weights as float64; a signalling NaN (refused later) converts without a warning."""
    with np.errstate(invalid="ignore"):
        return weights.astype(np.float64)


def _const_dtypes(wdt: np.dtype) -> tuple[np.dtype, np.dtype]:
    """numpy views of the C structs of a ``const`` FST: ConstState {Weight final; uint32
    pos, narcs, niepsilons, noepsilons} and the arc {int32 ilabel, olabel; Weight weight;
    int32 nextstate}, both padded to the weight's alignment."""
    state_dt = np.dtype(
        {
            "names": ["f", "pos", "k", "ni", "no"],
            "formats": [wdt, "<u4", "<u4", "<u4", "<u4"],
            "offsets": [0, wdt.itemsize, wdt.itemsize + 4, wdt.itemsize + 8, wdt.itemsize + 12],
            "itemsize": _align(wdt.itemsize + 16, wdt.itemsize),
        }
    )
    arc_dt = np.dtype(
        {
            "names": ["i", "o", "w", "n"],
            "formats": ["<i4", "<i4", wdt, "<i4"],
            "offsets": [0, 4, 8, 8 + wdt.itemsize],
            "itemsize": _align(12 + wdt.itemsize, wdt.itemsize),
        }
    )
    return state_dt, arc_dt


def _const_body(cur: _Cursor, hdr: _Header, check: bool) -> FstArrays:
    """The states and arcs of a ``const`` body (checked against the header when ``check``)."""
    state_dt, arc_dt = _const_dtypes(_WEIGHT_DTYPE[hdr.arc_type])
    aligned = bool(hdr.flags & _IS_ALIGNED) or hdr.version == 1
    parts = []
    for what, count, dt in (("states", hdr.n_states, state_dt), ("arcs", hdr.n_arcs, arc_dt)):
        if aligned:
            cur.align(what)
        if count > cur.left // dt.itemsize:
            raise cur.error(
                f"the header announces {count} {what} of {dt.itemsize} bytes, but only {cur.left} bytes follow"
            )
        parts.append(np.frombuffer(cur.buf, dtype=dt, count=count, offset=cur.off))
        cur.off += count * dt.itemsize
    states, arcs = parts
    counts = states["k"].astype(np.int64)
    if check and (counts.sum() != hdr.n_arcs or np.any(states["pos"] != np.cumsum(counts) - counts)):
        raise cur.error(f"the states' arc positions and counts do not tile the array of {hdr.n_arcs} arcs")
    src = np.repeat(np.arange(hdr.n_states, dtype=np.int64), counts)
    ilabel, olabel = arcs["i"].astype(np.int64), arcs["o"].astype(np.int64)
    if check:
        for field, labels in (("ni", ilabel), ("no", olabel)):
            if np.any(states[field] != np.bincount(src[labels == 0], minlength=hdr.n_states)):
                raise cur.error("a state's count of ε arcs does not match its arcs")
    return FstArrays(
        arc_type=hdr.arc_type,
        start=hdr.start,
        final=_native(states["f"]),
        src=src,
        ilabel=ilabel,
        olabel=olabel,
        weight=_native(arcs["w"]),
        dst=arcs["n"].astype(np.int64),
    )


def _vector_body(cur: _Cursor, hdr: _Header) -> FstArrays:
    """The states and arcs of a ``vector`` body: one walk over the states' arc counts,
    each checked against the bytes left, then numpy views of the weights and arcs."""
    wdt = _WEIGHT_DTYPE[hdr.arc_type]
    adt = _arc_dtype(wdt)
    rec, arc = wdt.itemsize + 8, adt.itemsize  # bytes of a state record (final, #arcs), of an arc
    buf, body, size = cur.buf, cur.off, len(cur.buf)
    if hdr.n_states > cur.left // rec:
        raise cur.error(f"the header announces {hdr.n_states} states, but only {cur.left} bytes follow")
    read_count = struct.Struct("<q").unpack_from
    counts: list[int] = []
    off = body
    while len(counts) < hdr.n_states if hdr.n_states >= 0 else off < size:
        if off + rec > size:
            raise cur.error(f"it ends inside state {len(counts)} (byte {off})")
        (k,) = read_count(buf, off + wdt.itemsize)
        room = (size - off - rec) // arc
        if not 0 <= k <= room:
            raise cur.error(
                f"state {len(counts)} (byte {off}) has arc count {k}, but the bytes left hold at most {room} arcs"
            )
        counts.append(k)
        off += rec + k * arc
    if off != size:
        raise cur.error(f"{size - off} bytes are left over after the {len(counts)} states")
    cur.off = off
    n = len(counts)
    k = np.asarray(counts, dtype=np.int64)
    # Every field is a whole number of 4-byte words: the body is, per state, rec/4 words
    # of its record then k·arc/4 words of arcs. Gather the finals and the arcs by words.
    words = np.frombuffer(buf, dtype="<u4", count=(size - body) // 4, offset=body)
    runs = np.empty(2 * n, dtype=np.int64)
    runs[0::2], runs[1::2] = rec // 4, k * (arc // 4)
    first = np.cumsum(runs[0::2] + runs[1::2]) - (runs[0::2] + runs[1::2])  # word of each state's record
    final = words[first[:, None] + np.arange(wdt.itemsize // 4)].view(wdt).ravel()
    arcs = words[np.repeat(np.tile(np.array([False, True]), n), runs)].view(adt)
    if hdr.n_arcs not in (0, arcs.shape[0]):  # OpenFst's vector writer leaves the count at 0
        raise cur.error(f"the header announces {hdr.n_arcs} arcs, but the states hold {arcs.shape[0]}")
    return FstArrays(
        arc_type=hdr.arc_type,
        start=hdr.start,
        final=_native(final),
        src=np.repeat(np.arange(n, dtype=np.int64), k),
        ilabel=arcs["i"].astype(np.int64),
        olabel=arcs["o"].astype(np.int64),
        weight=_native(arcs["w"]),
        dst=arcs["n"].astype(np.int64),
    )


def _check_arrays(cur: _Cursor, a: FstArrays, tables: dict[str, dict[int, str] | None]) -> None:
    """Start and destination states in range, labels in the symbol tables, weights that
    are elements of the semiring (OpenFst's Member: not NaN, not −∞)."""
    n = a.n_states
    if not (_NO_STATE <= a.start < n) or (n == 0 and a.start != _NO_STATE):
        raise cur.error(f"the start state {a.start} is not one of the {n} states")
    bad = np.flatnonzero((a.dst < 0) | (a.dst >= n))
    if bad.size:
        raise cur.error(f"arc {bad[0]} goes to state {a.dst[bad[0]]}, but the states are 0 … {n - 1}")
    for what, w in (("arc", a.weight), ("final", a.final)):
        bad = np.flatnonzero(np.isnan(w) | (w == -np.inf))
        if bad.size:
            raise cur.error(f"{what} weight {bad[0]} is {w[bad[0]]}, which is not a weight")
    for tape, labels in (("input", a.ilabel), ("output", a.olabel)):
        if labels.size and labels.min() < 0:
            raise cur.error(f"an arc has the negative {tape} label {labels.min()}")
        table = tables[tape]
        if table is None:
            continue
        for label in np.unique(labels[labels != 0]).tolist():
            symbol = table.get(label)
            if not symbol or symbol == _EPS_NAME:
                spelt = "no entry" if symbol is None else f"the symbol {_shown(symbol)}"
                raise cur.error(
                    f"{tape} label {label} has {spelt} in the {tape} symbol table (a symbol is a non-empty "
                    f"string, and {_EPS_NAME!r} is label 0)"
                )


def read_fst_bytes(buf: bytes, source: str = "<bytes>") -> pynini.Fst:
    """The FST serialised in ``buf`` (an OpenFst ``vector`` or ``const`` file), checked
    completely before OpenFst reads a byte of it.

    Raises FstFormatError naming ``source`` when the bytes are not a well-formed FST: a
    bad header, symbol table, count, state, label or weight, or bytes left over. OpenFst
    then reads only the checked body under a header written here (no property bits
    taken from the file), and the symbol tables are rebuilt from the parsed symbols.
    """
    buf = bytes(buf)
    cur = _Cursor(buf, source)
    hdr = _read_header(cur)
    tables: dict[str, dict[int, str] | None] = {"input": None, "output": None}
    names: dict[str, str] = {}
    for tape, flag in (("input", _HAS_ISYMBOLS), ("output", _HAS_OSYMBOLS)):
        if hdr.flags & flag:
            names[tape], tables[tape] = _read_symbol_table(cur, tape)
    body = cur.off
    arrays = _vector_body(cur, hdr) if hdr.fst_type == "vector" else _const_body(cur, hdr, check=True)
    if cur.left:
        raise cur.error(f"{cur.left} bytes are left over after the {hdr.n_arcs} arcs")
    _check_arrays(cur, arrays, tables)
    if hdr.fst_type == "vector":  # the checked body as it is, under a fresh header
        fst = pynini.Fst.read_from_string(_vector_header(arrays.arc_type, arrays.start, arrays.n_states) + buf[body:])
    else:
        fst = arrays_to_fst(arrays)
    fst.set_input_symbols(_symbol_table(names.get("input"), tables["input"]))
    fst.set_output_symbols(_symbol_table(names.get("output"), tables["output"]))
    return fst


def _symbol_table(name: str | None, symbols: dict[int, str] | None) -> pywrapfst.SymbolTable | None:
    if symbols is None or name is None:  # a table read from a file always has a name
        return None
    table = pywrapfst.SymbolTable(name=name)
    for key, symbol in symbols.items():
        table.add_symbol(symbol, key)
    return table


def _vector_header(arc_type: str, start: int, n_states: int, n_arcs: int = 0) -> bytes:
    """The header of a ``vector`` FST without symbol tables or property bits."""
    return b"".join(
        [
            struct.pack("<i", _MAGIC),
            struct.pack("<i", 6) + b"vector",
            struct.pack("<i", len(arc_type)) + arc_type.encode("ascii"),
            struct.pack("<iiQqqq", _VERSION, 0, 0, start, n_states, n_arcs),
        ]
    )


def fst_to_arrays(fst: pynini.Fst) -> FstArrays:
    """Read every state, arc and weight of ``fst`` exactly (native OpenFst values).

    The FST is converted to OpenFst's ``const`` layout, whose states and arcs are two
    contiguous arrays of fixed-size records (C structs), and viewed with numpy.
    """
    if fst.input_symbols() is not None or fst.output_symbols() is not None:
        fst = fst.copy()
        fst.set_input_symbols(None)
        fst.set_output_symbols(None)
    cur = _Cursor(pywrapfst.convert(fst, fst_type="const").write_to_string(), "<const FST>")
    return _const_body(cur, _read_header(cur), check=False)  # OpenFst's own output: no checks


def _align(size: int, alignment: int) -> int:
    return -(-size // alignment) * alignment


def _check_float32(values: np.ndarray, what: str) -> None:
    """Raise WeightOverflowError for a finite weight that float32 cannot hold (it would be ±∞)."""
    v = np.asarray(values, dtype=np.float64)
    bad = np.flatnonzero(np.isfinite(v) & (np.abs(v) > np.finfo(np.float32).max))
    if bad.size:
        raise WeightOverflowError(
            f"The {what} weight {v[bad[0]]!r} is beyond the range of float32 (±3.4028235e38), the "
            "precision of tropical arcs: stored, it would read back as infinite."
        )


def arrays_to_fst(a: FstArrays) -> pynini.Fst:
    """Build a pynini FST from arrays (native weights), without a Python call per arc.

    Writes OpenFst's ``vector`` layout: per state its final weight and #arcs, followed
    by its arcs (fields packed, unaligned), then reads it back.
    """
    wdt = _WEIGHT_DTYPE[a.arc_type]
    if wdt.itemsize == 4:  # float32 weights: a finite float64 beyond their range would become ±∞
        _check_float32(a.weight, "arc")
        _check_float32(a.final, "final")
    adt = _arc_dtype(wdt)
    state_dt = np.dtype([("f", wdt), ("k", "<i8")])
    n, m = a.n_states, a.n_arcs
    order = np.argsort(a.src, kind="stable")
    src = np.asarray(a.src, dtype=np.int64)[order]
    counts = np.bincount(src, minlength=n).astype(np.int64) if m else np.zeros(n, dtype=np.int64)
    arcs = np.empty(m, dtype=adt)
    arcs["i"] = np.asarray(a.ilabel)[order]
    arcs["o"] = np.asarray(a.olabel)[order]
    arcs["w"] = np.asarray(a.weight, dtype=np.float64)[order]
    arcs["n"] = np.asarray(a.dst)[order]
    recs = np.empty(n, dtype=state_dt)
    recs["f"] = np.asarray(a.final, dtype=np.float64)
    recs["k"] = counts
    # Byte offset of each state record: previous records and their arcs.
    arcs_before = np.concatenate([[0], np.cumsum(counts)[:-1]]) if n else np.zeros(0, np.int64)
    state_pos = np.arange(n, dtype=np.int64) * state_dt.itemsize + arcs_before * adt.itemsize
    arc_pos = (
        np.repeat(state_pos + state_dt.itemsize, counts)
        + (np.arange(m) - np.repeat(arcs_before, counts)) * adt.itemsize
    )
    body = np.empty(n * state_dt.itemsize + m * adt.itemsize, dtype=np.uint8)
    body[(state_pos[:, None] + np.arange(state_dt.itemsize)).ravel()] = recs.view(np.uint8)
    if m:
        body[(arc_pos[:, None] + np.arange(adt.itemsize)).ravel()] = arcs.view(np.uint8)
    return pynini.Fst.read_from_string(_vector_header(a.arc_type, a.start, n, m) + body.tobytes())


def chain_fst(ilabels: np.ndarray, olabels: np.ndarray, arc_type: str, final: float) -> pynini.Fst:
    """The string machine 0 → 1 → … → n with arcs ilabels[i]:olabels[i]/1̄ and final weight
    ``final`` (native) on state n, written in one vectorised pass (vector layout)."""
    wdt = _WEIGHT_DTYPE[arc_type]
    n = int(len(ilabels))
    rec = np.dtype([("f", wdt), ("k", "<i8"), ("i", "<i4"), ("o", "<i4"), ("w", wdt), ("n", "<i4")])
    body = np.zeros(n, dtype=rec)
    body["f"] = np.inf
    body["k"] = 1
    body["i"] = ilabels
    body["o"] = olabels
    body["n"] = np.arange(1, n + 1)
    last = np.array([(final, 0)], dtype=[("f", wdt), ("k", "<i8")])
    return pynini.Fst.read_from_string(_vector_header(arc_type, 0, n + 1, n) + body.tobytes() + last.tobytes())


def exact_weight(weight: pywrapfst.Weight) -> float:
    """The native float of a ``pywrapfst.Weight`` in full precision (``float()`` rounds to 9 digits)."""
    arc_type = {"tropical": "standard"}.get(weight.type(), weight.type())
    fst = pynini.Fst(arc_type=arc_type)
    fst.set_start(fst.add_state())
    fst.set_final(0, weight)
    return float(fst_to_arrays(fst).final[0])
