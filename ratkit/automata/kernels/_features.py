"""Sparse feature matrices of finite-feature kernels, with a stable vocabulary.

A pattern z (a string over the alphabet) is identified by its code in base L + 1 with
digits 1..L (``symbols`` numbers the alphabet 1..L; no digit is 0, so codes are unique
and the empty string is 0). A :class:`FeatureMap`
freezes a vocabulary (the patterns seen when it was fitted) so that later sequences are
mapped onto the same columns; patterns outside it are dropped, which leaves every inner
product with a fitted feature vector unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["FeatureMap", "coo_to_csr", "decode", "symbol_labels", "inner_products"]


def symbol_labels(sequences: Sequence[Sequence[str]], symbols: dict[str, int]) -> list[np.ndarray]:
    """Labels (1..L) of each sequence's symbols; symbols missing from ``symbols`` get 0."""
    get = symbols.get
    return [np.fromiter((get(s, 0) for s in seq), dtype=np.int64, count=len(seq)) for seq in sequences]


def decode(code: int, symbols: Sequence[str]) -> tuple[str, ...]:
    """The pattern (tuple of symbols) of a base-(L + 1) code with digits 1..L."""
    base = len(symbols) + 1
    out = []
    while code:
        code, digit = divmod(code, base)
        out.append(symbols[digit - 1])
    return tuple(reversed(out))


def coo_to_csr(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """Sum duplicate (row, col) entries into a CSR matrix of float64."""
    m = sp.csr_matrix((values.astype(np.float64, copy=False), (rows, cols)), shape=shape)
    m.sum_duplicates()
    return m


def inner_products(FX: sp.csr_matrix, FY: sp.csr_matrix | None = None, blocks: int = 8) -> np.ndarray:
    """The dense matrix FX · FYᵀ; with FY None, FX · FXᵀ from its upper block triangle only.

    Symmetric Gram matrices are assembled from the (i ≤ j) row-block products, which
    does a little over half the work of one full sparse product.
    """
    if FY is not None:
        return (FX @ FY.T).toarray()
    n = FX.shape[0]
    if n < 2 * blocks:
        return (FX @ FX.T).toarray()
    G = np.empty((n, n))
    edges = np.linspace(0, n, blocks + 1).astype(int)
    FT = FX.T.tocsr()
    for b in range(blocks):
        lo, hi = edges[b], edges[b + 1]
        G[lo:hi, lo:] = (FX[lo:hi] @ FT[:, lo:]).toarray()
        G[lo:, lo:hi] = G[lo:hi, lo:].T
    return G


@dataclass(frozen=True)
class FeatureMap:
    """A frozen vocabulary of patterns: ``codes[j]`` is the pattern of column j.

    Attributes
    ----------
    symbols
        The alphabet, numbered 1..L in this order (the code base is L + 1).
    codes
        Sorted, unique pattern codes; the columns of the feature matrices.
    """

    symbols: tuple[str, ...]
    codes: np.ndarray

    @property
    def n_features(self) -> int:
        return int(self.codes.shape[0])

    @property
    def symbol_index(self) -> dict[str, int]:
        return {s: i + 1 for i, s in enumerate(self.symbols)}

    def patterns(self) -> list[tuple[str, ...]]:
        """The pattern of every column, as a tuple of symbols."""
        # Decode digit by digit, vectorised over columns.
        syms = np.array(("",) + self.symbols, dtype=object)
        base = len(self.symbols) + 1
        codes = self.codes.copy()
        digits = []
        while np.any(codes):
            digits.append(codes % base)
            codes //= base
        return [tuple(syms[d[j]] for d in reversed(digits) if d[j]) for j in range(codes.shape[0])]

    def columns(self, codes: np.ndarray) -> np.ndarray:
        """Column of each code, or −1 when the pattern is not in the vocabulary."""
        pos = np.searchsorted(self.codes, codes)
        pos = np.minimum(pos, max(self.n_features - 1, 0))
        hit = (self.n_features > 0) & (self.codes[pos] == codes) if self.n_features else np.zeros(codes.shape, bool)
        return np.where(hit, pos, -1)

    def matrix(self, rows: np.ndarray, codes: np.ndarray, values: np.ndarray, n_rows: int) -> sp.csr_matrix:
        """The (n_rows, n_features) matrix of COO triplets, dropping out-of-vocabulary patterns."""
        cols = self.columns(codes)
        keep = cols >= 0
        return coo_to_csr(rows[keep], cols[keep], values[keep], (n_rows, self.n_features))
