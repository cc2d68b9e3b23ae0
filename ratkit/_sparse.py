"""Sparse matrices as ratkit computes with them: float64 CSR."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["float64_csr", "index_dtype"]


def float64_csr(matrix: Any, *, copy: bool = True) -> sp.csr_matrix:
    """``matrix`` (any scipy.sparse format) as a float64 CSR matrix, whatever its dtype.

    The values are cast before the format changes: scipy's COO → CSR conversion sums a
    COO's repeated entries in the matrix's own dtype, so that two uint8 entries 128 + 128
    became 0 (and 200 + 100 became 44) before the cast to float64. ``copy=False`` lets a
    float64 CSR input be returned as it is.
    """
    if matrix.dtype != np.float64:
        return sp.csr_matrix(matrix.astype(np.float64))
    return sp.csr_matrix(matrix, dtype=np.float64, copy=copy)


def index_dtype(*bounds: int) -> type[np.int32] | type[np.int64]:
    """The integer type for ids or positions that stay below every bound: int32 when each
    bound is below 2³¹ − 1 (4 bytes an entry instead of 8), else int64."""
    return np.int32 if all(int(b) < np.iinfo(np.int32).max for b in bounds) else np.int64
