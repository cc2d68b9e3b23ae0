"""Kernel values within float64's range: an overflow is refused by name, never returned as ±∞ or NaN.

A kernel value computed from representable weights can leave float64's range (about
1.8e308) on the way: K(x, y) = ⟨Φ_x, Φ_y⟩ squares the feature weights, so features of
1e200 give a value of 1e400. Where the value itself is beyond the range, the computation
raises :class:`~ratkit.exceptions.WeightOverflowError` naming the kernel, the entry and the
value's magnitude (:func:`checked`, :func:`feature_products`, :func:`feature_sq_norms`);
where only the route leaves the range but the value does not — a cosine normalisation,
invariant to the scale of each feature row — the rows are normalised first
(:func:`unit_rows`), dividing each by its largest entry before any square is formed.

A true value *below* float64's range (1e-170 squared is 1e-340) rounds to a subnormal or to
0, as IEEE arithmetic does: that is the nearest float, not an overflow.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit._jit import njit
from ratkit._sparse import float64_csr
from ratkit.automata.kernels.features import inner_products
from ratkit.exceptions import WeightOverflowError

__all__ = ["checked", "feature_products", "feature_sq_norms", "rescaled", "times_exp", "unit_rows", "RESCALE_HINT"]

#: What to do about a kernel value beyond float64, said by every refusal.
RESCALE_HINT = (
    "Scale the weights down (a kernel's scale changes no SVM's predictions), or normalise the kernel "
    "with cosine(), which is scale-invariant."
)


def checked(compute: Callable[[], Any], kernel: Any, cause: str) -> np.ndarray:
    """``compute()`` as a float64 array, or WeightOverflowError naming ``kernel``, the first
    non-finite entry (±∞, or NaN from ∞ − ∞ or ∞ · 0) and its index, then ``cause``. numpy's
    overflow warnings are silenced: the error says it instead."""
    with np.errstate(over="ignore", invalid="ignore"):
        values = np.asarray(compute(), dtype=np.float64)
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        where = tuple(int(v) for v in bad[0])
        raise WeightOverflowError(f"{kernel!r} has the non-finite value {float(values[where])!r} at {where}: {cause}")
    return values


def times_exp(values: Any, s: float) -> np.ndarray:
    """values · e^s without forming e^s, which is beyond float64 for |s| > 709: as
    values · e^r · 2^n with s = n ln 2 + r, |r| ≤ ln 2 / 2, so the result is ±∞ only where the
    product itself is beyond float64, and 0 or subnormal only where it is below."""
    n = round(s / math.log(2.0))
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(np.asarray(values, dtype=np.float64) * math.exp(s - n * math.log(2.0)), n)


def rescaled(values: Any, s: float, kernel: Any) -> np.ndarray:
    """values · e^s (:func:`times_exp`): ``kernel``'s values from those of its unit-scale kernel
    (:meth:`~ratkit.automata.kernels.Kernel.split_scale`), or WeightOverflowError naming the
    kernel, the first entry beyond float64 and its magnitude."""
    values = np.asarray(values, dtype=np.float64)
    out = times_exp(values, s)
    bad = np.argwhere(~np.isfinite(out))
    if bad.size:
        where = tuple(int(v) for v in bad[0])
        log10 = (math.log(abs(float(values[where]))) + s) / math.log(10.0)
        raise WeightOverflowError(
            f"{kernel!r}: the value at {where} is about 1e{log10:.0f}, beyond float64's range (about 1.8e308), so "
            f"it has no float value ({bad.shape[0]} of {out.size} entries overflow). {RESCALE_HINT}"
        )
    return out


def _canonical(F: Any) -> sp.csr_matrix:
    """F as float64 CSR with duplicates summed (a copy when they had to be summed)."""
    F = float64_csr(F, copy=False)
    if not F.has_canonical_format:
        F = F.copy()
        F.sum_duplicates()
    return F


def _row_max_abs(F: sp.csr_matrix) -> np.ndarray:
    """max_k |F_ik| of every row (0 for an empty row) of a canonical CSR matrix."""
    out = np.zeros(F.shape[0])
    nonempty = np.diff(F.indptr) > 0
    if F.nnz:
        out[nonempty] = np.maximum.reduceat(np.abs(F.data), F.indptr[:-1][nonempty])
    return out


def _scaled_norms(F: sp.csr_matrix, m: np.ndarray) -> np.ndarray:
    """‖F_i / m_i‖ of every row (m_i = its largest |entry|; 0 for a zero row): between 1 and
    √nnz, so neither the squares nor their sum can leave float64's range."""
    safe = np.where(m > 0, m, 1.0)
    scaled = F.data / np.repeat(safe, np.diff(F.indptr))
    out = np.zeros(F.shape[0])
    nonempty = np.diff(F.indptr) > 0
    if F.nnz:
        out[nonempty] = np.sqrt(np.add.reduceat(scaled * scaled, F.indptr[:-1][nonempty]))
    return out


def _log10_norms(F: sp.csr_matrix) -> np.ndarray:
    """log₁₀ ‖F_i‖ of every row without leaving float64's range (−∞ for a zero row)."""
    m = _row_max_abs(F)
    with np.errstate(divide="ignore"):
        return np.log10(m) + np.log10(np.where(m > 0, _scaled_norms(F, m), 1.0))


def _finite_features(F: sp.csr_matrix, kernel: Any) -> None:
    """WeightOverflowError when a feature weight itself is beyond float64 (or NaN)."""
    bad = np.flatnonzero(~np.isfinite(F.data))
    if bad.size:
        row = int(np.searchsorted(F.indptr, bad[0], side="right") - 1)
        raise WeightOverflowError(
            f"{kernel!r}: a feature weight of input {row} is {float(F.data[bad[0]])!r}, beyond float64's range "
            f"(about 1.8e308). {RESCALE_HINT}"
        )


def feature_sq_norms(F: Any, kernel: Any) -> np.ndarray:
    """K(x_i, x_i) = ‖F_i‖² of every row, or WeightOverflowError naming the kernel, the input
    and the magnitude of its value when one is beyond float64. By Cauchy–Schwarz,
    |⟨F_i, G_j⟩| ≤ max(‖F_i‖², ‖G_j‖²): when every row passes, no inner product of these rows
    overflows either (what a Gram computed block by block relies on)."""
    F = _canonical(F)
    _finite_features(F, kernel)
    with np.errstate(over="ignore"):
        out = np.zeros(F.shape[0])
        nonempty = np.diff(F.indptr) > 0
        if F.nnz:
            out[nonempty] = np.add.reduceat(np.square(F.data), F.indptr[:-1][nonempty])
    bad = np.flatnonzero(~np.isfinite(out))
    if bad.size:
        i = int(bad[0])
        raise WeightOverflowError(
            f"{kernel!r}: K(x, x) of input {i} is about 1e{2 * _log10_norms(F[i])[0]:.0f}, beyond float64's range "
            f"(about 1.8e308), so it has no float value ({bad.size} of {out.size} inputs overflow). {RESCALE_HINT}"
        )
    return out


def feature_products(kernel: Any, FX: Any, FY: Any = None) -> np.ndarray:
    """The dense matrix [⟨FX_i, FY_j⟩] (FY None: FX against itself) of
    :func:`~ratkit.automata.kernels.features.inner_products`, or WeightOverflowError naming
    the kernel, the first pair whose value is beyond float64 and that value's magnitude."""
    FX = _canonical(FX)
    FY = None if FY is None else _canonical(FY)
    _finite_features(FX, kernel)
    if FY is not None:
        _finite_features(FY, kernel)
    G = inner_products(FX, FY)
    bad = np.argwhere(~np.isfinite(G))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        right = FX if FY is None else FY
        a, b = unit_rows(FX[i], kernel), unit_rows(right[j], kernel)
        log10 = _log10_norms(FX[i])[0] + _log10_norms(right[j])[0] + math.log10(float((a @ b.T).toarray()[0, 0]))
        raise WeightOverflowError(
            f"{kernel!r}: K(X[{i}], {'X' if FY is None else 'Y'}[{j}]) is about "
            f"1e{log10:.0f}, beyond float64's range (about 1.8e308), so it has no float value "
            f"({bad.shape[0]} of {G.size} entries overflow). {RESCALE_HINT}"
        )
    return G


@njit
def _divide_rows(indptr, data, m, n):
    """data[p] ← data[p] / m_i / n_i over the entries p of every row i, in that order (the
    two divisions of :func:`unit_rows`, rounded as numpy rounds them), and 0 where m_i = 0."""
    for i in range(indptr.shape[0] - 1):
        mi = m[i]
        ni = n[i]
        if mi > 0.0:
            for p in range(indptr[i], indptr[i + 1]):
                data[p] = data[p] / mi / ni
        else:
            for p in range(indptr[i], indptr[i + 1]):
                data[p] = 0.0


def unit_rows(F: Any, kernel: Any, full: Any = None, *, copy: bool = True) -> sp.csr_matrix:
    """F as a float64 CSR matrix with row i divided by ‖full_i‖ (``full`` F by default),
    and zero rows left 0: the cosine normalisation of a feature map.

    ``copy=True`` (the default) returns a fresh matrix and leaves F as it was;
    ``copy=False`` divides in place when F is already a canonical float64 CSR matrix (and
    returns F itself): for a caller that owns F, whose copy would double the memory held.

    Each norm is that of the row divided by its largest |entry|, and each row is divided by
    that entry first and by the norm second, so no square is formed of a weight beyond 1:
    rows of 1e200 or of 1e-170, whose squares are not floats, get the same unit rows as
    rows of 1. A feature weight that is itself ±∞ or NaN raises WeightOverflowError.
    """
    if copy:
        F = _canonical(F).copy()
    elif not (isinstance(F, sp.csr_matrix) and F.dtype == np.float64 and F.has_canonical_format):
        F = _canonical(F)
    _finite_features(F, kernel)
    if full is None:
        G = F
    else:
        G = _canonical(full)
        _finite_features(G, kernel)
    m = _row_max_abs(G)
    n = _scaled_norms(G, m)
    _divide_rows(F.indptr, F.data, m, n)
    F.eliminate_zeros()
    return F
