"""Patterns as integer codes: base-(L + 1) numbers with digits 1..L (see kernels._features).

The kernel engine names every feature (a string z over the alphabet numbered 1..L) by
its code Σ_k z_k (L + 1)^(|z| − 1 − k); the empty string is 0 and no digit is 0, so
a code's prefixes are its integer quotients by powers of the base.
"""

from __future__ import annotations

import numpy as np

__all__ = ["code_lengths", "code_labels", "sorted_lcp"]


def code_lengths(codes: np.ndarray, base: int) -> np.ndarray:
    """|z| for every code (the number of base-``base`` digits; 0 for the empty string)."""
    c = np.asarray(codes, dtype=np.int64).copy()
    out = np.zeros(c.shape, dtype=np.int64)
    while np.any(c):
        nz = c > 0
        out += nz
        c //= base
    return out


def code_labels(codes: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """(labels, lengths): row j holds z_j's labels left-aligned, padded with 0."""
    codes = np.asarray(codes, dtype=np.int64)
    lengths = code_lengths(codes, base)
    width = int(lengths.max()) if lengths.size else 0
    labels = np.zeros((codes.shape[0], max(width, 1)), dtype=np.int64)
    for k in range(width):
        power = lengths - 1 - k
        ok = power >= 0
        labels[ok, k] = (codes[ok] // np.power(base, power[ok])) % base
    return labels, lengths


def sorted_lcp(indptr: np.ndarray, cols: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """For each stored entry, the common prefix length of its pattern with the previous
    entry's pattern in the same row (0 for the first entry of a row)."""
    nnz = cols.shape[0]
    out = np.zeros(nnz, dtype=np.int64)
    if nnz < 2:
        return out
    same = labels[cols[1:]] == labels[cols[:-1]]
    out[1:] = np.cumprod(same, axis=1).sum(axis=1)
    out[np.asarray(indptr[:-1], dtype=np.int64)[np.diff(indptr) > 0]] = 0
    return out
