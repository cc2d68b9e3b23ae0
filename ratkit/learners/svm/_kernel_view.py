"""How RationalSVC sees a kernel: explicit features Φ′, feature automata, or kernel rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pynini
import scipy.sparse as sp

from ratkit.automata import kernels
from ratkit.automata.kernels import FeatureMap, Kernel, RationalKernel, TooManyPaths
from ratkit.automata.kernels._features import inverse_norms, row_sq_norms
from ratkit.exceptions import SolverError

__all__ = [
    "describe",
    "check_finite",
    "unwrap",
    "is_pds",
    "explicit_features",
    "transform_features",
    "feature_automata",
    "gram_function",
]


def describe(kernel: Any) -> str:
    """The kernel as a user wrote it: the repr of a ratkit kernel (its family and parameters),
    'linear', or the name of a callable."""
    if isinstance(kernel, (Kernel, str)):
        return repr(kernel)
    return getattr(kernel, "__qualname__", type(kernel).__name__)


def check_finite(values: Any, kernel: Any, what: str) -> np.ndarray:
    """``values`` as a float64 array, or a SolverError naming the kernel when one is NaN or ±∞.

    A non-finite kernel value makes every gradient that reads it NaN, and DCD would then
    stop at once on a meaningless "converged" pass.
    """
    arr = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        where = tuple(int(i) for i in np.unravel_index(int(np.flatnonzero(bad)[0]), arr.shape))
        raise SolverError(
            f"The kernel {describe(kernel)} gave {int(bad.sum())} non-finite {what} (the first is "
            f"{float(arr[where])!r}, at index {where}); the SVM dual is undefined. Check the kernel's "
            "parameters and inputs (NaN or infinite weights, overflowing values)."
        )
    return arr


def unwrap(kernel: Any) -> tuple[Any, bool]:
    """(K₀, cosine): a cosine-normalised kernel K₀(x, y)/√(K₀(x, x)K₀(y, y)) gives (K₀, True)."""
    cosine_cls = getattr(kernels, "CosineKernel", None)
    if cosine_cls is not None and isinstance(kernel, cosine_cls):
        return kernel.kernel, True
    return kernel, False


def is_pds(kernel: Any) -> bool | None:
    """The kernel's PDS flag (True, False, or None when unknown)."""
    return getattr(kernel, "is_pds", getattr(kernel, "pds", None))


def _row_normalise(F: sp.csr_matrix, sq_norms: np.ndarray) -> sp.csr_matrix:
    """Row i of F divided by √sq_norms[i], in place (F is a matrix this module just made)."""
    F.data *= np.repeat(inverse_norms(sq_norms), np.diff(F.indptr))
    return F


def explicit_features(
    kernel: Any, X: list, n_jobs: int | None, show_progress: bool
) -> tuple[FeatureMap, sp.csr_matrix] | None:
    """(vocabulary, Φ′) with ⟨Φ′_i, Φ′_j⟩ = K(x_i, x_j); None when K has no finite feature map."""
    base, cosine = unwrap(kernel)
    if not isinstance(base, RationalKernel):
        return None
    try:
        fmap, F = base.fit_features(X, n_jobs=n_jobs, show_progress=show_progress)
    except TooManyPaths:
        return None
    F = sp.csr_matrix(F, dtype=np.float64)
    check_finite(F.data, kernel, "feature values")
    if cosine:  # the vocabulary is X's own: the row norms are the full ‖Φ_x‖
        F = _row_normalise(F, row_sq_norms(F))
    F.sort_indices()
    return fmap, F


def transform_features(kernel: Any, fmap: FeatureMap, X: list, n_jobs: int | None) -> sp.csr_matrix:
    """Φ′ of new sequences on the fitted vocabulary (unseen patterns have W′ weight 0)."""
    base, cosine = unwrap(kernel)
    F = sp.csr_matrix(base.transform_features(fmap, X, n_jobs=n_jobs), dtype=np.float64)
    if cosine:  # normalise by the full norm, unseen patterns included
        F = _row_normalise(F, base.diag(X))
    return F


def feature_automata(kernel: Any, X: list) -> tuple[list[pynini.Fst], bool] | None:
    """(Φ′_i = Π2(X_i ∘ T) as olabel-sorted log64 acceptors, cosine), or None without a factor T."""
    base, cosine = unwrap(kernel)
    if not isinstance(base, RationalKernel):
        return None
    alphabet = base.alphabet_for(X)
    t = base.factor(alphabet)
    if t is None or t.semiring.name != "probability":
        return None
    phis = [pynini.arcsort(base.feature_automaton(x, alphabet)._fst.copy(), sort_type="olabel") for x in X]
    return phis, cosine


def gram_function(
    kernel: Any, X: Any, n_jobs: int | None, show_progress: bool
) -> tuple[Callable[[list[int]], np.ndarray], Callable[[], np.ndarray], Callable[[], np.ndarray]]:
    """(rows(idx) → K[idx, :], full() → K, diag() → [K(x_i, x_i)]) for the training inputs;
    each refuses non-finite kernel values (:func:`check_finite`)."""
    rows, full, diag = _gram_function(kernel, X, n_jobs, show_progress)
    return (
        lambda idx: check_finite(rows(idx), kernel, "kernel values"),
        lambda: check_finite(full(), kernel, "kernel values"),
        lambda: check_finite(diag(), kernel, "kernel values K(x, x)"),
    )


def _gram_function(
    kernel: Any, X: Any, n_jobs: int | None, show_progress: bool
) -> tuple[Callable[[list[int]], np.ndarray], Callable[[], np.ndarray], Callable[[], np.ndarray]]:
    if isinstance(kernel, str):  # "linear": X is a numeric matrix

        def rows(idx: list[int]) -> np.ndarray:
            return np.asarray((X[idx] @ X.T).todense() if sp.issparse(X) else X[idx] @ X.T)

        def diag() -> np.ndarray:
            return row_sq_norms(X) if sp.issparse(X) else np.einsum("ij,ij->i", X, X)

        return rows, lambda: rows(list(range(X.shape[0]))), diag
    if isinstance(kernel, Kernel):
        opts = {"n_jobs": n_jobs, "show_progress": show_progress} if isinstance(kernel, RationalKernel) else {}
        return (
            lambda idx: kernel.gram([X[i] for i in idx], X),
            lambda: kernel.gram(X, **opts),
            lambda: kernel.diag(X),
        )
    return (
        lambda idx: np.asarray(kernel([X[i] for i in idx], X), dtype=np.float64),
        lambda: np.asarray(kernel(X, X), dtype=np.float64),
        lambda: np.array([float(np.asarray(kernel([x], [x])).ravel()[0]) for x in X]),
    )
