"""Exact, vectorised exchange of whole FSTs between pynini and numpy.

pynini reads weights back through a 9-significant-digit string (``float(Weight)``), and
reading arcs one by one from Python costs about a microsecond each. OpenFst's binary
formats store every weight in full precision, so serialising an FST and viewing the
bytes with numpy gives exact weights for a whole automaton at once; writing the
``vector`` format builds an FST from arrays without a Python call per arc.

Header (little-endian): magic int32, fst type and arc type as (int32 length, bytes),
version int32, flags int32, properties uint64, start int64, #states int64, #arcs int64.
``vector`` body: per state its final weight, #arcs int64 and that many arcs (ilabel
int32, olabel int32, weight, nextstate int32), packed. ``const`` body: an array of
state structs then an array of arc structs (C layout). Weights are float32 for
``standard`` arcs and float64 for ``log64``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import pynini
import pywrapfst

__all__ = ["FstArrays", "fst_to_arrays", "arrays_to_fst", "chain_fst", "exact_weight"]

_MAGIC = 2125659606
_WEIGHT_DTYPE = {"standard": np.dtype("<f4"), "log64": np.dtype("<f8"), "log": np.dtype("<f4")}
_VERSION = 2
_NO_STATE = -1


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


def _read_str(buf: bytes, off: int) -> tuple[str, int]:
    (n,) = struct.unpack_from("<i", buf, off)
    return buf[off + 4 : off + 4 + n].decode("ascii"), off + 4 + n


def _header(buf: bytes) -> tuple[str, str, int, int, int, int]:
    """(fst type, arc type, start, #states, #arcs, offset of the body) of a serialised FST."""
    (magic,) = struct.unpack_from("<i", buf, 0)
    fst_type, off = _read_str(buf, 4)
    arc_type, off = _read_str(buf, off)
    _version, flags = struct.unpack_from("<ii", buf, off)
    off += 8
    _props, start, n_states, n_arcs = struct.unpack_from("<Qqqq", buf, off)
    off += 32
    if magic != _MAGIC or arc_type not in _WEIGHT_DTYPE or flags != 0:
        raise ValueError(f"unexpected FST serialisation ({fst_type}, {arc_type}, flags {flags})")
    return fst_type, arc_type, start, n_states, n_arcs, off


def fst_to_arrays(fst: pynini.Fst) -> FstArrays:
    """Read every state, arc and weight of ``fst`` exactly (native OpenFst values).

    The FST is converted to OpenFst's ``const`` layout, whose states and arcs are two
    contiguous arrays of fixed-size records (C structs), and viewed with numpy.
    """
    if fst.input_symbols() is not None or fst.output_symbols() is not None:
        fst = fst.copy()
        fst.set_input_symbols(None)
        fst.set_output_symbols(None)
    buf = pywrapfst.convert(fst, fst_type="const").write_to_string()
    fst_type, arc_type, start, n_states, n_arcs, off = _header(buf)
    if fst_type != "const":
        raise ValueError(f"unexpected FST type {fst_type}")
    wdt = _WEIGHT_DTYPE[arc_type]
    # C layout of ConstState {Weight final; uint32 pos, narcs, niepsilons, noepsilons}
    # and of the arc {int32 ilabel, olabel; Weight weight; int32 nextstate} (padded).
    state_dt = np.dtype(
        {
            "names": ["f", "pos", "k"],
            "formats": [wdt, "<u4", "<u4"],
            "offsets": [0, wdt.itemsize, wdt.itemsize + 4],
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
    states = np.frombuffer(buf, dtype=state_dt, count=n_states, offset=off)
    arcs = np.frombuffer(buf, dtype=arc_dt, count=n_arcs, offset=off + n_states * state_dt.itemsize)
    counts = states["k"].astype(np.int64)
    return FstArrays(
        arc_type=arc_type,
        start=int(start),
        final=states["f"].astype(np.float64),
        src=np.repeat(np.arange(n_states, dtype=np.int64), counts),
        ilabel=arcs["i"].astype(np.int64),
        olabel=arcs["o"].astype(np.int64),
        weight=arcs["w"].astype(np.float64),
        dst=arcs["n"].astype(np.int64),
    )


def _align(size: int, alignment: int) -> int:
    return -(-size // alignment) * alignment


def arrays_to_fst(a: FstArrays) -> pynini.Fst:
    """Build a pynini FST from arrays (native weights), without a Python call per arc.

    Writes OpenFst's ``vector`` layout: per state its final weight and #arcs, followed
    by its arcs (fields packed, unaligned), then reads it back.
    """
    wdt = _WEIGHT_DTYPE[a.arc_type]
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
    header = b"".join(
        [
            struct.pack("<i", _MAGIC),
            struct.pack("<i", 6) + b"vector",
            struct.pack("<i", len(a.arc_type)) + a.arc_type.encode("ascii"),
            struct.pack("<iiQqqq", _VERSION, 0, 0, a.start, n, m),
        ]
    )
    return pynini.Fst.read_from_string(header + body.tobytes())


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
    header = b"".join(
        [
            struct.pack("<i", _MAGIC),
            struct.pack("<i", 6) + b"vector",
            struct.pack("<i", len(arc_type)) + arc_type.encode("ascii"),
            struct.pack("<iiQqqq", _VERSION, 0, 0, 0, n + 1, n),
        ]
    )
    return pynini.Fst.read_from_string(header + body.tobytes() + last.tobytes())


def exact_weight(weight: pynini.Weight) -> float:
    """The native float of a ``pynini.Weight`` in full precision (``float()`` rounds to 9 digits)."""
    arc_type = {"tropical": "standard"}.get(weight.type(), weight.type())
    fst = pynini.Fst(arc_type=arc_type)
    fst.set_start(fst.add_state())
    fst.set_final(0, weight)
    return float(fst_to_arrays(fst).final[0])
