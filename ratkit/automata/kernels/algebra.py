"""Kernel algebra: sums, products, scaling, polynomials, cosine normalisation, NDS → PDS.

Each combinator is itself a :class:`~ratkit.automata.kernels.base.Kernel` (callable,
Gram-matrix filling, cloneable) computed from the Gram matrices of its parts.

References
----------
A. Ghose, *Rational kernels: a survey*, Theorem 1 (closure of PDS kernels under sum and
product), Theorem 3 (NDS → PDS: exp(−tK) and K′ of eq. (14)).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ratkit._validation import check_int, check_real
from ratkit.automata.kernels._features import inverse_norms
from ratkit.automata.kernels.base import Kernel, as_collection
from ratkit.exceptions import WeightOverflowError

__all__ = [
    "SumKernel",
    "ProductKernel",
    "ScaledKernel",
    "PolynomialKernel",
    "CosineKernel",
    "ExpKernel",
    "CenteredNDSKernel",
    "cosine",
    "exp_kernel",
    "polynomial",
    "nds_to_pds",
]


def _check_kernel(k: Any, owner: str) -> Kernel:
    if not isinstance(k, Kernel):
        raise TypeError(f"{owner} combines ratkit kernels; got {type(k).__name__}.")
    return k


def _finite(compute: Callable[[], np.ndarray], kernel: Kernel) -> np.ndarray:
    """The values ``compute()`` returns for a combination, or WeightOverflowError when one is
    not finite: a sum, product or power of float64 kernel values that overflowed (±∞, or
    ∞·0 = NaN); numpy's overflow warnings are silenced, the error says it instead."""
    with np.errstate(over="ignore", invalid="ignore"):
        values = np.asarray(compute(), dtype=np.float64)
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        where = tuple(int(v) for v in bad[0])
        raise WeightOverflowError(
            f"{kernel!r} has the non-finite value {float(values[where])!r} at {where}: the combination of its "
            "parts' values overflows float64 (about 1.8e308). Normalise the parts (cosine) or lower the factors."
        )
    return values


class SumKernel(Kernel):
    """K(x, y) = Σ_i c_i K_i(x, y), c_i ≥ 0 (default 1): PDS when every K_i is."""

    def __init__(self, kernels: Sequence[Kernel] = (), weights: Sequence[float] | None = None) -> None:
        self.kernels = kernels
        self.weights = weights

    def _parts(self) -> tuple[list[Kernel], np.ndarray]:
        ks = [_check_kernel(k, "SumKernel") for k in self.kernels]
        if not ks:
            raise ValueError("The 'kernels' parameter of SumKernel must hold at least one kernel.")
        w = np.ones(len(ks)) if self.weights is None else np.asarray(self.weights, dtype=np.float64)
        if w.shape != (len(ks),) or np.any(~np.isfinite(w)) or np.any(w < 0):
            raise ValueError(
                f"The 'weights' parameter of SumKernel must hold {len(ks)} finite non-negative "
                f"floats. Got {self.weights!r} instead."
            )
        return ks, w

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        flags = [k.is_pds for k in self._parts()[0]]
        return True if all(f is True for f in flags) else None

    def gram(self, X: Any, Y: Any = None, **kw: Any) -> np.ndarray:
        ks, w = self._parts()
        return _finite(lambda: sum(c * k.gram(X, Y, **kw) for c, k in zip(w, ks)), self)

    def diag(self, X: Any) -> np.ndarray:
        ks, w = self._parts()
        return _finite(lambda: sum(c * k.diag(X) for c, k in zip(w, ks)), self)


class ProductKernel(Kernel):
    """K(x, y) = Π_i K_i(x, y) (pointwise): PDS when every K_i is (Schur product)."""

    def __init__(self, kernels: Sequence[Kernel] = ()) -> None:
        self.kernels = kernels

    def _parts(self) -> list[Kernel]:
        ks = [_check_kernel(k, "ProductKernel") for k in self.kernels]
        if not ks:
            raise ValueError("The 'kernels' parameter of ProductKernel must hold at least one kernel.")
        return ks

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        return True if all(k.is_pds is True for k in self._parts()) else None

    def gram(self, X: Any, Y: Any = None, **kw: Any) -> np.ndarray:
        return _finite(lambda: functools.reduce(np.multiply, [k.gram(X, Y, **kw) for k in self._parts()]), self)

    def diag(self, X: Any) -> np.ndarray:
        return _finite(lambda: functools.reduce(np.multiply, [k.diag(X) for k in self._parts()]), self)


class ScaledKernel(Kernel):
    """K(x, y) = c · K₀(x, y) with c > 0."""

    def __init__(self, kernel: Kernel | None = None, factor: float = 1.0) -> None:
        self.kernel = kernel
        self.factor = factor

    def _c(self) -> float:
        _check_kernel(self.kernel, "ScaledKernel")
        return check_real(self.factor, "factor", "ScaledKernel", low=0.0, low_open=True)

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        return self.kernel.is_pds

    def gram(self, X: Any, Y: Any = None, **kw: Any) -> np.ndarray:
        return _finite(lambda: self._c() * self.kernel.gram(X, Y, **kw), self)

    def diag(self, X: Any) -> np.ndarray:
        return _finite(lambda: self._c() * self.kernel.diag(X), self)


class PolynomialKernel(Kernel):
    """K(x, y) = (scale · K₀(x, y) + coef0)^degree: PDS when K₀ is, coef0 ≥ 0, scale > 0."""

    def __init__(self, kernel: Kernel | None = None, degree: int = 2, coef0: float = 1.0, scale: float = 1.0) -> None:
        self.kernel = kernel
        self.degree = degree
        self.coef0 = coef0
        self.scale = scale

    def _check(self) -> None:
        _check_kernel(self.kernel, "PolynomialKernel")
        check_int(self.degree, "degree", "polynomial", low=1)
        check_real(self.coef0, "coef0", "polynomial", low=0.0)
        check_real(self.scale, "scale", "polynomial", low=0.0, low_open=True)

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        return self.kernel.is_pds

    def gram(self, X: Any, Y: Any = None, **kw: Any) -> np.ndarray:
        self._check()
        return _finite(lambda: (self.scale * self.kernel.gram(X, Y, **kw) + self.coef0) ** self.degree, self)

    def diag(self, X: Any) -> np.ndarray:
        self._check()
        return _finite(lambda: (self.scale * self.kernel.diag(X) + self.coef0) ** self.degree, self)


class CosineKernel(Kernel):
    """K(x, y) = K₀(x, y) / √(K₀(x, x) K₀(y, y)), and 0 when either norm is 0."""

    def __init__(self, kernel: Kernel | None = None) -> None:
        self.kernel = kernel

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        return self.kernel.is_pds

    def gram(self, X: Any, Y: Any = None, **kw: Any) -> np.ndarray:
        k = _check_kernel(self.kernel, "CosineKernel")
        X = as_collection(X)
        G = k.gram(X, None if Y is None else Y, **kw)
        dx = np.diag(G).copy() if Y is None else k.diag(X)
        dy = dx if Y is None else k.diag(Y)
        return _normalise(G, dx, dy)

    def diag(self, X: Any) -> np.ndarray:
        d = _check_kernel(self.kernel, "CosineKernel").diag(X)
        return (d > 0).astype(np.float64)


def _normalise(G: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """G_ij / √(dx_i dy_j), 0 where dx_i or dy_j is ≤ 0; scales G (a fresh matrix) in place."""
    G = np.asarray(G, dtype=np.float64)
    G *= inverse_norms(dx)[:, None]
    G *= inverse_norms(dy)[None, :]
    return G


class ExpKernel(Kernel):
    """K(x, y) = exp(−t · K₀(x, y)), t > 0: PDS for every t iff K₀ is NDS (Theorem 3.1)."""

    is_pds = None

    def __init__(self, kernel: Kernel | None = None, t: float = 1.0) -> None:
        self.kernel = kernel
        self.t = t

    def _t(self) -> float:
        _check_kernel(self.kernel, "ExpKernel")
        return check_real(self.t, "t", "exp_kernel", low=0.0, low_open=True)

    def gram(self, X: Any, Y: Any = None, **kw: Any) -> np.ndarray:
        return np.exp(-self._t() * self.kernel.gram(X, Y, **kw))

    def diag(self, X: Any) -> np.ndarray:
        return np.exp(-self._t() * self.kernel.diag(X))


class CenteredNDSKernel(Kernel):
    """K′(x, y) = K(x, x0) + K(y, x0) − K(x, y) − K(x0, x0): PDS iff K is NDS (Theorem 3.2, eq. (14))."""

    is_pds = None

    def __init__(self, kernel: Kernel | None = None, x0: Any = "") -> None:
        self.kernel = kernel
        self.x0 = x0

    def gram(self, X: Any, Y: Any = None, **kw: Any) -> np.ndarray:
        k = _check_kernel(self.kernel, "CenteredNDSKernel")
        X = as_collection(X)
        Ys = X if Y is None else as_collection(Y)
        G = k.gram(X, None if Y is None else Ys, **kw)
        a = k.gram(X, [self.x0], **kw)[:, 0]
        b = a if Y is None else k.gram(Ys, [self.x0], **kw)[:, 0]
        k00 = k.value(self.x0, self.x0)
        return a[:, None] + b[None, :] - G - k00


def cosine(kernel: Kernel) -> CosineKernel:
    """Cosine normalisation K(x, y) / √(K(x, x) K(y, y)) of ``kernel``."""
    return CosineKernel(_check_kernel(kernel, "cosine"))


def exp_kernel(kernel: Kernel, t: float = 1.0) -> ExpKernel:
    """exp(−t · K) (Theorem 3.1), e.g. of an edit distance."""
    k = ExpKernel(_check_kernel(kernel, "exp_kernel"), t)
    k._t()
    return k


def polynomial(kernel: Kernel, degree: int = 2, coef0: float = 1.0, scale: float = 1.0) -> PolynomialKernel:
    """(scale · K + coef0)^degree."""
    k = PolynomialKernel(_check_kernel(kernel, "polynomial"), degree, coef0, scale)
    k._check()
    return k


def nds_to_pds(kernel: Kernel, x0: Any = "") -> CenteredNDSKernel:
    """K′ of eq. (14) around the point x0 (the empty string by default)."""
    return CenteredNDSKernel(_check_kernel(kernel, "nds_to_pds"), x0)
