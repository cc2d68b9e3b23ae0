"""How RationalSVC sees a kernel: explicit features Φ′, feature automata, or kernel rows.

Everything is asked of the kernel through the hooks of
:class:`~ratkit.automata.kernels.Kernel` (``fit_features``, ``transform_features``,
``feature_automata``, ``gram_with``, ``diag``, ``is_pds``), so a combined or third-party
kernel is seen exactly as a built-in one; besides ratkit kernels, RationalSVC takes
``"linear"`` (a numeric matrix) and plain callables ``K(X, Y)``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pynini
import scipy.sparse as sp

from ratkit._sparse import float64_csr
from ratkit.automata.alphabet import symbol_listing
from ratkit.automata.kernels import Kernel, TooManyPaths, Vocabulary
from ratkit.automata.kernels._features import row_sq_norms
from ratkit.exceptions import SolverError

__all__ = [
    "describe",
    "check_finite",
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


def is_pds(kernel: Any) -> bool | None:
    """The kernel's PDS flag (True, False, or None when unknown); ``"linear"`` is PDS."""
    if isinstance(kernel, Kernel):
        return kernel.is_pds
    return True if isinstance(kernel, str) and kernel == "linear" else None


def explicit_features(
    kernel: Any, X: list, n_jobs: int | None, show_progress: bool
) -> tuple[Vocabulary, sp.csr_matrix] | None:
    """(vocabulary, Φ′) with ⟨Φ′_i, Φ′_j⟩ = K(x_i, x_j) (:meth:`Kernel.fit_features`); None
    when K has no finite feature map."""
    if not isinstance(kernel, Kernel):
        return None
    try:
        vocabulary, F = kernel.fit_features(X, n_jobs=n_jobs, show_progress=show_progress)
    except TooManyPaths:
        return None
    F = float64_csr(F, copy=False)
    check_finite(F.data, kernel, "feature values")
    F.sort_indices()
    return vocabulary, F


def warn_if_foreign(symbols: Sequence[str], X: list) -> None:
    """Warn when no symbol of the inputs X occurs in the training alphabet ``symbols``: every
    pattern is then unseen, every score is the intercept, and the predictions are one class —
    the mark of inputs in another form than in training (characters for a model of tokens,
    such as the positional tokens of ``ratkit train --positional`` and the demo)."""
    if not symbols or not X or not all(isinstance(x, (str, tuple)) for x in X):
        return  # no alphabet to compare with (a vocabulary of other kinds), or lattices
    seen: set[str] = set()
    for x in X:
        seen.update(x)
    if not seen or not seen.isdisjoint(symbols):
        return
    warnings.warn(
        f"None of the symbols of the {len(X)} input(s) ({symbol_listing(seen)}) occurs in the model's training "
        f"alphabet ({symbol_listing(symbols)}): every pattern is unseen and every input gets the same score. The "
        "inputs are not in the form the model was trained on: a model of positional tokens (ratkit train "
        "--positional, the demo) needs them tokenised as in training; 'ratkit predict' does it.",
        UserWarning,
        stacklevel=4,
    )


def transform_features(kernel: Any, fmap: Vocabulary, X: list, n_jobs: int | None) -> sp.csr_matrix:
    """Φ′ of new sequences on the fitted vocabulary (unseen features have W′ weight 0;
    :meth:`Kernel.transform_features`)."""
    return float64_csr(kernel.transform_features(fmap, X, n_jobs=n_jobs), copy=False)


def feature_automata(kernel: Any, X: list) -> tuple[list[pynini.Fst], bool] | None:
    """(Φ′_i = Π2(X_i ∘ T) as olabel-sorted log64 acceptors, cosine), or None without them
    (:meth:`Kernel.feature_automata`)."""
    return kernel.feature_automata(X) if isinstance(kernel, Kernel) else None


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
        return (
            lambda idx: kernel.gram([X[i] for i in idx], X),
            lambda: kernel.gram_with(X, n_jobs=n_jobs, show_progress=show_progress),
            lambda: kernel.diag(X),
        )
    return (
        lambda idx: np.asarray(kernel([X[i] for i in idx], X), dtype=np.float64),
        lambda: np.asarray(kernel(X, X), dtype=np.float64),
        lambda: np.array([float(np.asarray(kernel([x], [x])).ravel()[0]) for x in X]),
    )
