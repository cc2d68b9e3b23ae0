"""Feature hashing of finite-feature kernels: Φ′ in a fixed number of buckets, no vocabulary.

``RationalSVC(kernel, n_features=2**20)`` trains on the *hashed* feature map of the kernel,
as scikit-learn's ``HashingVectorizer`` (``alternate_sign=True``) does for token counts: each
pattern z (a tuple of symbols) of a part of the kernel goes to bucket |h(z)| mod n_features
with sign +1 when h(z) ≥ 0 and −1 otherwise, h the signed 32-bit MurmurHash3 of the UTF-8
bytes of the symbols joined by U+001F (the unit separator) with seed s. The hashed
vector of a sequence depends on that sequence alone — there is no global vocabulary — so
blocks of data are featurised independently (and in any order) and give the same rows.

The kernel is read as a tree (:func:`hashable_parts`):

- a leaf is an n-gram, gappy, mismatch or count-based kernel (a finite feature map over
  patterns); the i-th leaf in depth-first order hashes with seed i, so the parts of a sum
  are hashed independently of each other;
- a sum Σ c_i K_i is Σ √c_i H_i (the parts' hashed vectors added in the same buckets);
- a scaling c · K is √c H;
- ``cosine(K)`` divides each hashed row of K by its own norm: the *hashed* kernel's cosine
  (the exact kernel's norm would need the exact features, which hashing does without).

Every other kernel (exp, polynomial, product, random walk, edit distance, a transducer with
a custom Ψ, a callable) is refused by name (:class:`~ratkit.exceptions.ParameterError`).

E[⟨H_x, H_y⟩] = K(x, y) for the signed hash, with variance falling as 1/n_features; with
no collision among the patterns of x and y the hashed inner product is exact.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import murmurhash3_32

from ratkit._validation import check_real
from ratkit.automata.kernels import (
    CosineKernel,
    CountBasedKernel,
    FeatureMap,
    GappyKernel,
    Kernel,
    MismatchKernel,
    NgramKernel,
    ScaledKernel,
    SumKernel,
)
from ratkit.automata.kernels.features import inverse_norms, row_sq_norms
from ratkit.automata.kernels.inputs import as_collection
from ratkit.exceptions import ParameterError

__all__ = [
    "HASHING_SCHEME",
    "HASHING_VERSION",
    "MAX_BUCKETS",
    "check_hashable",
    "hashable_parts",
    "hashed_features",
    "pattern_buckets",
]

#: The name and version of the hashing scheme, saved with a model that uses it: a model file
#: is only read back by a version that hashes patterns the same way.
HASHING_SCHEME = "murmurhash3_32-signed-patterns"
HASHING_VERSION = 1
#: |h| ≤ 2³¹, so more buckets would stay empty.
MAX_BUCKETS = 2**31

#: The separator between the symbols of a pattern in the bytes that are hashed.
_SEPARATOR = "\x1f"
_LEAVES = (NgramKernel, GappyKernel, MismatchKernel, CountBasedKernel)


def pattern_buckets(patterns: Sequence[Sequence[str]], n_features: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(bucket, sign) of each pattern: h = MurmurHash3_32 (signed) of the UTF-8 bytes of its
    symbols joined by U+001F, with ``seed``; bucket |h| mod n_features, sign +1 if h ≥ 0 else −1.

    >>> pattern_buckets([("a", "b")], 2**20)
    (array([...]), array([...]))
    """
    h = np.fromiter(
        (murmurhash3_32(_SEPARATOR.join(p).encode("utf-8"), seed=seed, positive=False) for p in patterns),
        dtype=np.int64,
        count=len(patterns),
    )
    return np.abs(h) % int(n_features), np.where(h >= 0, 1.0, -1.0)


def hashable_parts(kernel: Any) -> Iterator[Kernel]:
    """The leaves of the kernel tree in depth-first order (the i-th hashes with seed i);
    ParameterError naming the first part that has no finite feature map to hash."""
    if isinstance(kernel, SumKernel):
        for part in _sum_parts(kernel)[0]:
            yield from hashable_parts(part)
    elif isinstance(kernel, (ScaledKernel, CosineKernel)):
        yield from hashable_parts(kernel.kernel)
    elif isinstance(kernel, _LEAVES):
        yield kernel
    else:
        name = repr(kernel) if isinstance(kernel, Kernel) else getattr(kernel, "__qualname__", type(kernel).__name__)
        raise ParameterError(
            f"Feature hashing (n_features) needs a finite feature map of patterns; {name} has none that can "
            "be hashed. Use n-gram, gappy, mismatch or count-based kernels, their sums, scalings and cosine, "
            "or n_features=None."
        )


def check_hashable(kernel: Any) -> None:
    """Raise ParameterError (naming it) unless every part of ``kernel`` can be hashed."""
    for _ in hashable_parts(kernel):
        pass


def hashed_features(kernel: Any, X: Any, n_features: int, *, n_jobs: int | None = None) -> sp.csr_matrix:
    """The (len(X), n_features) CSR matrix of the hashed feature map of ``kernel`` (see the
    module's description); each row depends on its own sequence only."""
    check_hashable(kernel)
    X = as_collection(X, "X")
    H, _ = _hashed(kernel, X, int(n_features), 0, n_jobs)
    H.sum_duplicates()
    H.sort_indices()
    return H


def _sum_parts(kernel: SumKernel) -> tuple[list[Any], np.ndarray]:
    """(parts, weights c_i) of a sum, the weights checked finite and ≥ 0 (default 1)."""
    parts = list(kernel.kernels)
    if not parts:
        raise ParameterError("The 'kernels' parameter of SumKernel must hold at least one kernel.")
    if kernel.weights is None:
        return parts, np.ones(len(parts))
    w = np.asarray(kernel.weights, dtype=np.float64)
    if w.shape != (len(parts),) or np.any(~np.isfinite(w)) or np.any(w < 0):
        raise ParameterError(
            f"The 'weights' parameter of SumKernel must hold {len(parts)} finite non-negative "
            f"floats. Got {kernel.weights!r} instead."
        )
    return parts, w


def _hashed(kernel: Any, X: list, n: int, seed: int, n_jobs: int | None) -> tuple[sp.csr_matrix, int]:
    """(hashed rows of ``kernel`` on X, the next leaf's seed)."""
    if isinstance(kernel, SumKernel):
        parts, weights = _sum_parts(kernel)
        total = sp.csr_matrix((len(X), n))
        for c, part in zip(weights, parts):
            H, seed = _hashed(part, X, n, seed, n_jobs)
            total = total + H * float(np.sqrt(c))
        return sp.csr_matrix(total), seed
    if isinstance(kernel, ScaledKernel):
        c = check_real(kernel.factor, "factor", "ScaledKernel", low=0.0, low_open=True)
        H, seed = _hashed(kernel.kernel, X, n, seed, n_jobs)
        return sp.csr_matrix(H * float(np.sqrt(c))), seed
    if isinstance(kernel, CosineKernel):
        H, seed = _hashed(kernel.kernel, X, n, seed, n_jobs)
        H.sum_duplicates()
        return sp.csr_matrix(sp.diags(inverse_norms(row_sq_norms(H))) @ H), seed
    vocabulary, F = kernel.fit_features(X, n_jobs=n_jobs)
    if not isinstance(vocabulary, FeatureMap):  # pragma: no cover - the leaves all give patterns
        raise ParameterError(f"{kernel!r} gave no vocabulary of patterns to hash.")
    buckets, signs = pattern_buckets(vocabulary.patterns(), n, seed)
    F = sp.csr_matrix(F, dtype=np.float64)
    H = sp.csr_matrix((F.data * signs[F.indices], buckets[F.indices], F.indptr), shape=(len(X), n))
    H.sum_duplicates()
    return H, seed + 1
