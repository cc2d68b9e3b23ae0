"""Vectorised encoding of sequences as label arrays, and codes of their contiguous windows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ratkit._jit import njit
from ratkit.automata.alphabet import _single_characters, codepoint_labels
from ratkit.automata.kernels._paths import TooManyPaths, max_code_length

__all__ = ["encode", "window_codes"]


def encode(sequences: Sequence[Any], index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(labels, offsets): every sequence's labels concatenated; sequence i is
    ``labels[offsets[i]:offsets[i + 1]]``. Symbols missing from ``index`` get label 0."""
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    chars = _single_characters(index)
    if chars and all(isinstance(s, str) for s in sequences):
        keys = np.array(sorted(ord(c) for c in index), dtype=np.int64)
        if keys.size == 0:
            return np.zeros(int(offsets[-1]), dtype=np.int64), offsets
        vals = np.array([index[chr(k)] for k in keys], dtype=np.int64)
        return codepoint_labels("".join(sequences), keys, vals), offsets
    get = index.get
    labels = np.fromiter((get(t, 0) for s in sequences for t in s), dtype=np.int64, count=int(offsets[-1]))
    return labels, offsets


@njit
def _fill_windows(labels, offsets, n, base, high, rows, codes):  # pragma: no cover - compiled
    """Write (row, code) of every window; return how many. ``high`` = base^(n − 1)."""
    k = 0
    for d in range(offsets.shape[0] - 1):
        run = 0
        code = 0
        for p in range(offsets[d], offsets[d + 1]):
            label = labels[p]
            if label <= 0:
                run = 0
                code = 0
                continue
            code = (code % high) * base + label  # drop the oldest digit, append this one
            run += 1
            if run >= n:
                rows[k] = d
                codes[k] = code
                k += 1
    return k


def window_codes(labels: np.ndarray, offsets: np.ndarray, n: int, base: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, codes) of every length-n window lying inside one sequence and holding no label 0.

    code = Σ_k labels[p + k] · base^(n − 1 − k), the base-``base`` number of the window.
    Raises :class:`TooManyPaths` when base^n does not fit in an int64 (callers then fall
    back to automata without codes).
    """
    total = labels.shape[0]
    if n <= 0 or total < n:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if n > max_code_length(base - 1):
        raise TooManyPaths(f"windows of length {n} over {base - 1} symbols have codes beyond int64")
    rows = np.empty(total - n + 1, dtype=np.int64)
    codes = np.empty(total - n + 1, dtype=np.int64)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    k = _fill_windows(labels, offsets, n, base, base ** (n - 1), rows, codes)
    return rows[:k], codes[:k]  # views: the tail left over is n − 1 entries per sequence
