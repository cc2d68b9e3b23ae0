"""Diagnostics: is a kernel PDS or NDS on a sample? Proposition 3 / Fig. 8 of the survey.

References
----------
A. Ghose, *Rational kernels: a survey*, Definitions 5–6, Theorem 3, Proposition 3, Fig. 8.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratkit.automata.kernels.base import Kernel, as_collection

__all__ = [
    "PDSReport",
    "min_eigenvalue",
    "check_pds",
    "nds_max_eigenvalue",
    "check_nds",
    "edit_distance_min_eigenvalues",
]


def _gram(kernel: Kernel | np.ndarray, X: Any) -> np.ndarray:
    if isinstance(kernel, np.ndarray):
        G = np.asarray(kernel, dtype=np.float64)
    else:
        G = kernel.gram(as_collection(X))
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"A Gram matrix must be square; got shape {G.shape}.")
    return G


def min_eigenvalue(kernel: Kernel | np.ndarray, X: Any = None) -> float:
    """The smallest eigenvalue of the (symmetrised) Gram matrix of ``kernel`` on X."""
    G = _gram(kernel, X)
    return float(np.linalg.eigvalsh((G + G.T) / 2)[0])


@dataclass(frozen=True)
class PDSReport:
    """Outcome of :func:`check_pds` or :func:`check_nds` on one sample."""

    holds: bool
    symmetric: bool
    eigenvalue: float  # smallest eigenvalue (PDS) or largest on the sum-zero subspace (NDS)
    tolerance: float


def check_pds(kernel: Kernel | np.ndarray, X: Any = None, rtol: float = 1e-8) -> PDSReport:
    """PDS on the sample: symmetric and λ_min ≥ −rtol · trace (Definition 5)."""
    G = _gram(kernel, X)
    sym = bool(np.allclose(G, G.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(G).max())))
    lam = min_eigenvalue(G)
    tol = rtol * max(float(np.trace(G)), 1e-300)
    return PDSReport(sym and lam >= -tol, sym, lam, tol)


def nds_max_eigenvalue(kernel: Kernel | np.ndarray, X: Any = None) -> float:
    """max cᵀ K c over unit c with Σ c_i = 0: the largest eigenvalue of P K P, P = I − 11ᵀ/n."""
    G = _gram(kernel, X)
    n = G.shape[0]
    P = np.eye(n) - np.full((n, n), 1.0 / n)
    M = P @ ((G + G.T) / 2) @ P
    return float(np.linalg.eigvalsh(M)[-1])


def check_nds(kernel: Kernel | np.ndarray, X: Any = None, rtol: float = 1e-8) -> PDSReport:
    """NDS on the sample: symmetric and Σ c_i c_j K(x_i, x_j) ≤ 0 whenever Σ c_i = 0 (Definition 6)."""
    G = _gram(kernel, X)
    sym = bool(np.allclose(G, G.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(G).max())))
    lam = nds_max_eigenvalue(G)
    tol = rtol * max(float(np.abs(G).sum()) / max(G.shape[0], 1), 1e-300)
    return PDSReport(sym and lam <= tol, sym, lam, tol)


def edit_distance_min_eigenvalues(n_max: int = 8, alphabet: str = "ab", t: float = 1.0) -> dict[int, float]:
    """{n: λ_min(M_n)} with M_n = (exp(−t · d_e(x_i, x_j))) over all x ∈ alphabetⁿ (Fig. 8)."""
    from ratkit.automata.kernels.algebra import exp_kernel
    from ratkit.automata.kernels.edit_distance import edit_distance

    k = exp_kernel(edit_distance("tropical"), t)
    out = {}
    for n in range(1, n_max + 1):
        strings = ["".join(p) for p in itertools.product(alphabet, repeat=n)]
        out[n] = min_eigenvalue(k, strings)
    return out
