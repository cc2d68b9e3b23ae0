"""Diagnostics: is a kernel PDS or NDS on a sample? Proposition 3 / Fig. 8 of the survey.

References
----------
A. Ghose, *Rational kernels: a survey*, Definitions 5–6, Theorem 3, Proposition 3, Fig. 8.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratkit.automata.alphabet import _single_characters
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.inputs import as_collection
from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.limits import check_bytes

__all__ = [
    "PDSReport",
    "min_eigenvalue",
    "check_pds",
    "nds_max_eigenvalue",
    "check_nds",
    "strings_of_length",
    "min_eigenvalue_curve",
    "edit_distance_min_eigenvalues",
]


def _gram(kernel: Kernel | np.ndarray, X: Any) -> np.ndarray:
    """The Gram matrix of ``kernel`` on X, or ``kernel`` itself when it is a matrix: square,
    non-empty and finite, else a :class:`~ratkit.exceptions.ParameterError` saying which."""
    if isinstance(kernel, np.ndarray):
        try:
            G = np.asarray(kernel, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ParameterTypeError(f"A Gram matrix must hold numbers; got an array of {kernel.dtype}.") from exc
    elif isinstance(kernel, Kernel):
        if X is None:
            raise ParameterTypeError("The inputs X are None; give the sample the kernel is checked on (a list).")
        G = np.asarray(kernel.gram(as_collection(X)), dtype=np.float64)
    else:
        raise ParameterTypeError(
            f"The kernel must be a ratkit kernel or a Gram matrix (a numpy array); got {type(kernel).__name__}."
        )
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ParameterError(f"A Gram matrix must be square; got shape {G.shape}.")
    if G.shape[0] == 0:
        raise ParameterError("The sample is empty (a 0 × 0 Gram matrix has no eigenvalues); give at least one input.")
    if not np.isfinite(G).all():
        i, j = np.argwhere(~np.isfinite(G))[0]
        raise ParameterError(f"The Gram matrix holds {G[i, j]} at ({i}, {j}); its eigenvalues need finite entries.")
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


def strings_of_length(alphabet: Sequence[str], n: int, *, up_to: bool = False) -> list[str] | list[tuple[str, ...]]:
    """Every string of Σⁿ (Σ = the symbols of ``alphabet``), or of Σ^{≤n} = ⋃_{m ≤ n} Σᵐ
    with ε when ``up_to``, shortest first and lexicographic in the alphabet's order.

    Over characters the strings are ``str``; over tokens (a symbol of several characters,
    e.g. ``["the", "cat"]``) they are tuples of tokens, since a joined ``str`` would be read
    character by character."""
    symbols = list(dict.fromkeys(alphabet))
    if not symbols:
        raise ParameterError(f"The alphabet must hold at least one symbol. Got {alphabet!r} instead.")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ParameterError(f"The string length n must be an int ≥ 0. Got {n!r} instead.")
    lengths = range(n + 1) if up_to else (n,)
    count = sum(len(symbols) ** m for m in lengths)
    check_bytes(
        count * (50.0 + 4 * n),
        f"The {count:.3g} strings of length {'≤ ' if up_to else ''}{n} over {len(symbols)} symbols",
        "Use a shorter length or a smaller alphabet.",
    )
    words = (p for m in lengths for p in itertools.product(symbols, repeat=m))
    if _single_characters(symbols):
        return ["".join(p) for p in words]
    return list(words)


def min_eigenvalue_curve(
    kernel: Kernel, alphabet: Sequence[str] = "ab", max_len: int = 8, *, up_to: bool = False
) -> dict[int, float]:
    """{n: λ_min(M_n)} for n = 1..max_len, M_n = (K(x_i, x_j)) over x ∈ Σⁿ (the survey's Fig. 8),
    or over x ∈ Σ^{≤n} (ε included) when ``up_to``.

    A negative value proves K is not PDS (Definition 5): M_n is a Gram matrix of K. With
    ``up_to`` the curve is non-increasing in n (M_n is a principal submatrix of M_{n+1},
    Cauchy interlacing), and it is computed from one Gram matrix on Σ^{≤max_len}.
    """
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
        raise ParameterError(f"max_len must be an int ≥ 1. Got {max_len!r} instead.")
    n_symbols = len(dict.fromkeys(alphabet))
    largest = sum(n_symbols**m for m in range(max_len + 1)) if up_to else n_symbols**max_len
    check_bytes(
        8.0 * largest * largest,
        f"The {largest:.3g} × {largest:.3g} Gram matrix of the strings of length {'≤ ' if up_to else ''}{max_len}",
        "Use a smaller max_len or alphabet.",
    )
    if not up_to:
        return {n: min_eigenvalue(kernel, strings_of_length(alphabet, n)) for n in range(1, max_len + 1)}
    strings = strings_of_length(alphabet, max_len, up_to=True)
    G = _gram(kernel, strings)
    sizes = np.cumsum([len(set(alphabet)) ** m for m in range(max_len + 1)])  # |Σ^{≤n}| = Σ_{m ≤ n} |Σ|ᵐ
    return {n: min_eigenvalue(G[: sizes[n], : sizes[n]]) for n in range(1, max_len + 1)}


def edit_distance_min_eigenvalues(n_max: int = 8, alphabet: str = "ab", t: float = 1.0) -> dict[int, float]:
    """{n: λ_min(M_n)} with M_n = (exp(−t · d_e(x_i, x_j))) over all x ∈ alphabetⁿ (Fig. 8)."""
    from ratkit.automata.kernels.algebra import exp_kernel
    from ratkit.automata.kernels.edit_distance import edit_distance

    return min_eigenvalue_curve(exp_kernel(edit_distance("tropical"), t), alphabet, n_max)
