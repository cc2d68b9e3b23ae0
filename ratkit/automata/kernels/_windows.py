"""Vectorised encoding of sequences as label arrays, and codes of their contiguous windows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["encode", "window_codes"]


def encode(sequences: Sequence[Any], index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(labels, offsets): every sequence's labels concatenated; sequence i is
    ``labels[offsets[i]:offsets[i + 1]]``. Symbols missing from ``index`` get label 0."""
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    chars = all(len(sym) == 1 for sym in index)
    if chars and all(isinstance(s, str) for s in sequences):
        text = "".join(sequences)
        points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        keys = np.array(sorted(ord(c) for c in index), dtype=np.int64)
        vals = np.array([index[chr(k)] for k in keys], dtype=np.int64)
        if keys.size == 0:
            return np.zeros(points.shape[0], dtype=np.int64), offsets
        pos = np.minimum(np.searchsorted(keys, points), keys.size - 1)
        return np.where(keys[pos] == points, vals[pos], 0), offsets
    get = index.get
    labels = np.fromiter((get(t, 0) for s in sequences for t in s), dtype=np.int64, count=int(offsets[-1]))
    return labels, offsets


def window_codes(labels: np.ndarray, offsets: np.ndarray, n: int, base: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, codes) of every length-n window lying inside one sequence and holding no label 0.

    code = Σ_k labels[p + k] · base^(n − 1 − k), the base-``base`` number of the window.
    """
    total = labels.shape[0]
    if n <= 0 or total < n:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.arange(total - n + 1)
    doc = np.searchsorted(offsets, starts, side="right") - 1
    ok = starts + n <= offsets[doc + 1]
    codes = np.zeros(starts.shape[0], dtype=np.int64)
    for k in range(n):
        lab = labels[k : k + starts.shape[0]]
        ok &= lab > 0
        codes = codes * base + lab
    return doc[ok], codes[ok]
