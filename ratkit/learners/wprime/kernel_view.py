"""How RationalSVC sees a kernel: explicit features Φ′, feature automata, or kernel rows.

Everything is asked of the kernel through the hooks of
:class:`~ratkit.automata.kernels.Kernel` (``fit_features``, ``transform_features``,
``feature_automata``, ``gram_with``, ``diag``, ``is_pds``), so a combined or third-party
kernel is seen exactly as a built-in one; besides ratkit kernels, RationalSVC takes plain
callables ``K(X, Y)``. A :class:`~ratkit.automata.kernels.LinearKernel` is told by its type
(:func:`reads_vectors`): its inputs are the rows of a numeric matrix and are their own
features (:meth:`~ratkit.automata.kernels.LinearKernel.features`), on the columns of X.
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
from ratkit.automata.kernels import Kernel, LinearKernel, TooManyPaths, Vocabulary
from ratkit.exceptions import SolverError

__all__ = [
    "reads_vectors",
    "n_rows",
    "take",
    "kernel_matrix",
    "describe",
    "check_finite",
    "is_pds",
    "explicit_features",
    "transform_features",
    "feature_automata",
    "gram_function",
]


def reads_vectors(kernel: Any) -> bool:
    """Whether the kernel's inputs are numeric feature vectors (the rows of a 2-D array or sparse
    matrix) that are their own features: a :class:`~ratkit.automata.kernels.LinearKernel`."""
    return isinstance(kernel, LinearKernel)


def n_rows(X: Any) -> int:
    """The number of inputs: rows of a matrix, items of a list."""
    return int(X.shape[0]) if isinstance(X, np.ndarray) or sp.issparse(X) else len(X)


def take(X: Any, idx: Any) -> Any:
    """The inputs ``idx`` of X: rows of a matrix, or a list of the items."""
    if isinstance(X, np.ndarray) or sp.issparse(X):
        return X[np.asarray(idx, dtype=np.int64)]
    return [X[i] for i in idx]


def kernel_matrix(kernel: Any, X: Any, Y: Any) -> np.ndarray:
    """[K(x_i, y_j)] of two collections of inputs (an (n, 0) matrix when Y is empty)."""
    if isinstance(kernel, Kernel):
        return kernel.gram(X, Y) if n_rows(Y) else np.zeros((n_rows(X), 0))
    return np.asarray(kernel(X, Y), dtype=np.float64)


def describe(kernel: Any) -> str:
    """The kernel as a user wrote it: the repr of a ratkit kernel (its family and parameters),
    or the name of a callable."""
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
    """The kernel's PDS flag (True, False, or None when unknown: a plain callable)."""
    return kernel.is_pds if isinstance(kernel, Kernel) else None


def explicit_features(
    kernel: Any, X: Any, n_jobs: int | None, show_progress: bool
) -> tuple[Vocabulary | None, sp.csr_matrix] | None:
    """(vocabulary, Φ′) with ⟨Φ′_i, Φ′_j⟩ = K(x_i, x_j) (:meth:`Kernel.fit_features`); None
    when K has no finite feature map. The vocabulary is None when the features are the inputs
    themselves (:func:`reads_vectors`): column j of Φ′ is column j of X."""
    if reads_vectors(kernel):
        return None, sp.csr_matrix(kernel.features(X))
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


def transform_features(kernel: Any, fmap: Vocabulary | None, X: Any, n_jobs: int | None) -> np.ndarray | sp.csr_matrix:
    """Φ′ of new inputs on the fitted vocabulary (unseen features have W′ weight 0;
    :meth:`Kernel.transform_features`); the inputs themselves for a kernel that reads vectors."""
    if reads_vectors(kernel):
        return kernel.features(X)
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
    if isinstance(kernel, Kernel):
        return (
            lambda idx: kernel.gram(take(X, idx), X),
            lambda: kernel.gram_with(X, n_jobs=n_jobs, show_progress=show_progress),
            lambda: kernel.diag(X),
        )
    return (
        lambda idx: np.asarray(kernel(take(X, idx), X), dtype=np.float64),
        lambda: np.asarray(kernel(X, X), dtype=np.float64),
        lambda: np.array([float(np.asarray(kernel([x], [x])).ravel()[0]) for x in X]),
    )
