"""Exact, vectorised exchange of whole FSTs between pynini and numpy.

pynini reads weights back through a 9-significant-digit string (``float(Weight)``), and
reading arcs one by one from Python costs about a microsecond each. OpenFst's binary
``vector`` format stores every weight in full precision, so serialising an FST and
viewing the bytes with numpy gives exact weights for a whole automaton at once; writing
the same format builds an FST from arrays without a Python call per arc.

Layout (little-endian, unaligned): header = magic int32, fst type and arc type as
(int32 length, bytes), version int32, flags int32, properties uint64, start int64,
#states int64, #arcs int64; then per state: final weight, #arcs int64, and that many
arcs (ilabel int32, olabel int32, weight, nextstate int32). Weights are float32 for
``standard`` arcs and float64 for ``log64``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import pynini

__all__ = ["FstArrays", "fst_to_arrays", "arrays_to_fst", "exact_weight"]

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


def fst_to_arrays(fst: pynini.Fst) -> FstArrays:
    """Read every state, arc and weight of ``fst`` exactly (native OpenFst values)."""
    if fst.input_symbols() is not None or fst.output_symbols() is not None:
        fst = fst.copy()
        fst.set_input_symbols(None)
        fst.set_output_symbols(None)
    buf = fst.write_to_string()
    (magic,) = struct.unpack_from("<i", buf, 0)
    fst_type, off = _read_str(buf, 4)
    arc_type, off = _read_str(buf, off)
    if magic != _MAGIC or fst_type != "vector" or arc_type not in _WEIGHT_DTYPE:
        raise ValueError(f"unexpected FST serialisation ({fst_type}, {arc_type})")
    _version, flags = struct.unpack_from("<ii", buf, off)
    off += 8
    _props, start, n_states, _n_arcs = struct.unpack_from("<Qqqq", buf, off)
    off += 32
    if flags != 0:
        raise ValueError(f"unexpected FST header flags {flags}")
    wdt = _WEIGHT_DTYPE[arc_type]
    adt = _arc_dtype(wdt)
    wsize = wdt.itemsize
    final = np.empty(n_states, dtype=np.float64)
    counts = np.empty(n_states, dtype=np.int64)
    offsets = np.empty(n_states, dtype=np.int64)
    unpack_w = struct.Struct("<f" if wsize == 4 else "<d").unpack_from
    unpack_n = struct.Struct("<q").unpack_from
    for s in range(n_states):
        final[s] = unpack_w(buf, off)[0]
        off += wsize
        k = unpack_n(buf, off)[0]
        off += 8
        counts[s] = k
        offsets[s] = off
        off += k * adt.itemsize
    total = int(counts.sum())
    if total:
        # Gather the arc records of every state into one contiguous array.
        raw = np.frombuffer(buf, dtype=np.uint8)
        starts = np.repeat(offsets, counts) + adt.itemsize * (
            np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        )
        idx = starts[:, None] + np.arange(adt.itemsize)[None, :]
        arcs = raw[idx].reshape(-1).view(adt)
    else:
        arcs = np.zeros(0, dtype=adt)
    return FstArrays(
        arc_type=arc_type,
        start=int(start),
        final=final,
        src=np.repeat(np.arange(n_states, dtype=np.int64), counts),
        ilabel=arcs["i"].astype(np.int64),
        olabel=arcs["o"].astype(np.int64),
        weight=arcs["w"].astype(np.float64),
        dst=arcs["n"].astype(np.int64),
    )


def arrays_to_fst(a: FstArrays) -> pynini.Fst:
    """Build a pynini FST from arrays (native weights), without a Python call per arc."""
    wdt = _WEIGHT_DTYPE[a.arc_type]
    adt = _arc_dtype(wdt)
    n = a.n_states
    order = np.argsort(a.src, kind="stable")
    src = np.asarray(a.src)[order]
    counts = np.bincount(src, minlength=n) if src.size else np.zeros(n, dtype=np.int64)
    arcs = np.empty(a.n_arcs, dtype=adt)
    arcs["i"] = np.asarray(a.ilabel)[order]
    arcs["o"] = np.asarray(a.olabel)[order]
    arcs["w"] = np.asarray(a.weight, dtype=np.float64)[order]
    arcs["n"] = np.asarray(a.dst)[order]
    state_dt = np.dtype([("f", wdt), ("k", "<i8")])
    parts = [
        struct.pack("<i", _MAGIC),
        struct.pack("<i", 6) + b"vector",
        struct.pack("<i", len(a.arc_type)) + a.arc_type.encode("ascii"),
        struct.pack("<iiQqqq", _VERSION, 0, 0, a.start, n, a.n_arcs),
    ]
    # Interleave the state records (final weight, #arcs) with their arcs.
    state_recs = np.empty(n, dtype=state_dt)
    state_recs["f"] = np.asarray(a.final, dtype=np.float64)
    state_recs["k"] = counts
    state_bytes = state_recs.view(np.uint8).reshape(n, state_dt.itemsize)
    arc_bytes = arcs.view(np.uint8).reshape(-1, adt.itemsize) if a.n_arcs else None
    body = bytearray()
    pos = 0
    for s in range(n):
        body += state_bytes[s].tobytes()
        k = int(counts[s])
        if k:
            body += arc_bytes[pos : pos + k].tobytes()
            pos += k
    return pynini.Fst.read_from_string(b"".join(parts) + bytes(body))


def exact_weight(weight: pynini.Weight) -> float:
    """The native float of a ``pynini.Weight`` in full precision (``float()`` rounds to 9 digits)."""
    arc_type = {"tropical": "standard"}.get(weight.type(), weight.type())
    fst = pynini.Fst(arc_type=arc_type)
    fst.set_start(fst.add_state())
    fst.set_final(0, weight)
    return float(fst_to_arrays(fst).final[0])
