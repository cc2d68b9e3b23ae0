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

from ratkit._jit import njit
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
from ratkit.automata.kernels.features import inverse_norms, restrict_columns, row_sq_norms
from ratkit.automata.kernels.inputs import as_collection
from ratkit.exceptions import ParameterError

__all__ = [
    "HASHING_SCHEME",
    "HASHING_VERSION",
    "MAX_BUCKETS",
    "check_hashable",
    "compact_buckets",
    "feature_map_buckets",
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


@njit
def _murmur_codes(codes, base, sym_bytes, sym_off, sep, seed):  # pragma: no cover - compiled
    """Signed MurmurHash3_32 (x86) of each pattern's bytes: its symbols (digits of its code in
    ``base``, most significant first; symbol d is ``sym_bytes[sym_off[d]:sym_off[d + 1]]``)
    joined by the byte ``sep``. The same value as sklearn's ``murmurhash3_32(bytes, seed)``."""
    m32 = np.uint64(0xFFFFFFFF)
    c1 = np.uint64(0xCC9E2D51)
    c2 = np.uint64(0x1B873593)
    longest = np.int64(0)
    for d in range(sym_off.shape[0] - 1):
        longest = max(longest, np.int64(sym_off[d + 1] - sym_off[d]))
    buf = np.empty(64 * (longest + 1) + 8, dtype=np.uint8)
    digits = np.empty(64, dtype=np.int64)
    out = np.empty(codes.shape[0], dtype=np.int64)
    for i in range(codes.shape[0]):
        c = codes[i]
        nd = 0
        while c > 0:
            digits[nd] = c % base
            c //= base
            nd += 1
        n = 0
        for j in range(nd - 1, -1, -1):
            if n > 0:
                buf[n] = sep
                n += 1
            d = digits[j]
            for t in range(sym_off[d], sym_off[d + 1]):
                buf[n] = sym_bytes[t]
                n += 1
        h = np.uint64(seed) & m32
        nblocks = n // 4
        for b in range(nblocks):
            k = (
                np.uint64(buf[4 * b])
                | (np.uint64(buf[4 * b + 1]) << np.uint64(8))
                | (np.uint64(buf[4 * b + 2]) << np.uint64(16))
                | (np.uint64(buf[4 * b + 3]) << np.uint64(24))
            )
            k = (k * c1) & m32
            k = ((k << np.uint64(15)) | (k >> np.uint64(17))) & m32
            k = (k * c2) & m32
            h ^= k
            h = ((h << np.uint64(13)) | (h >> np.uint64(19))) & m32
            h = (h * np.uint64(5) + np.uint64(0xE6546B64)) & m32
        rem = n & 3
        k = np.uint64(0)
        tail = 4 * nblocks
        if rem >= 3:
            k ^= np.uint64(buf[tail + 2]) << np.uint64(16)
        if rem >= 2:
            k ^= np.uint64(buf[tail + 1]) << np.uint64(8)
        if rem >= 1:
            k ^= np.uint64(buf[tail])
            k = (k * c1) & m32
            k = ((k << np.uint64(15)) | (k >> np.uint64(17))) & m32
            k = (k * c2) & m32
            h ^= k
        h ^= np.uint64(n)
        h ^= h >> np.uint64(16)
        h = (h * np.uint64(0x85EBCA6B)) & m32
        h ^= h >> np.uint64(13)
        h = (h * np.uint64(0xC2B2AE35)) & m32
        h ^= h >> np.uint64(16)
        v = np.int64(h)
        out[i] = v - 4294967296 if v >= 2147483648 else v
    return out


def feature_map_buckets(vocabulary: FeatureMap, n_features: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pattern_buckets` of every column of a vocabulary of patterns, computed from the
    codes (compiled; the same values as hashing ``vocabulary.patterns()``)."""
    encoded = [s.encode("utf-8") for s in vocabulary.symbols]
    sym_off = np.zeros(len(encoded) + 2, dtype=np.int64)  # digit 0 (no symbol) is empty
    np.cumsum([len(b) for b in encoded], out=sym_off[2:])
    sym_bytes = np.frombuffer(b"".join(encoded) + b"\0", dtype=np.uint8)
    codes = np.asarray(vocabulary.codes, dtype=np.int64)
    h = _murmur_codes(codes, np.int64(len(encoded) + 1), sym_bytes, sym_off, np.uint8(0x1F), np.int64(seed))
    return np.abs(h) % int(n_features), np.where(h >= 0, 1.0, -1.0)


def hashable_parts(kernel: Any) -> Iterator[Kernel]:
    """The leaves of the kernel tree in depth-first order (the i-th hashes with seed i);
    ParameterError naming the first part that has no finite feature map to hash."""
    if isinstance(kernel, SumKernel):
        for part in kernel.weighted_parts()[0]:
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


def compact_buckets(H: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
    """(H on the buckets in use, their indices ``used``): column ``used[j]`` of H becomes column
    j, the empty columns dropped, rows kept sorted. H is consumed (its arrays are reused).

    The solver needs only these: empty columns change no inner product."""
    used = np.flatnonzero(np.bincount(H.indices, minlength=H.shape[1]))
    column_map = np.full(H.shape[1], -1, dtype=np.int64)
    column_map[used] = np.arange(used.size)
    return restrict_columns(H, column_map, int(used.size)), used


@njit
def _scale_rows(indptr, data, factors):  # pragma: no cover - compiled
    """data of row i *= factors[i], in place."""
    for i in range(indptr.shape[0] - 1):
        for p in range(indptr[i], indptr[i + 1]):
            data[p] *= factors[i]


def _hashed(kernel: Any, X: list, n: int, seed: int, n_jobs: int | None) -> tuple[sp.csr_matrix, int]:
    """(hashed rows of ``kernel`` on X, the next leaf's seed)."""
    if isinstance(kernel, SumKernel):
        parts, weights = kernel.weighted_parts()
        total = sp.csr_matrix((len(X), n))
        for c, part in zip(weights, parts):
            H, seed = _hashed(part, X, n, seed, n_jobs)
            total = total + H * float(np.sqrt(c))
        return sp.csr_matrix(total), seed
    if isinstance(kernel, ScaledKernel):
        c = kernel.scale_factor()
        H, seed = _hashed(kernel.kernel, X, n, seed, n_jobs)
        return sp.csr_matrix(H * float(np.sqrt(c))), seed
    if isinstance(kernel, CosineKernel):
        H, seed = _hashed(kernel.kernel, X, n, seed, n_jobs)
        H.sum_duplicates()
        H.eliminate_zeros()  # opposite signs that cancel in a bucket leave no entry
        _scale_rows(H.indptr, H.data, inverse_norms(row_sq_norms(H)))  # in place: H is ours
        return H, seed
    vocabulary, F = kernel.fit_features(X, n_jobs=n_jobs)
    if not isinstance(vocabulary, FeatureMap):  # pragma: no cover - the leaves all give patterns
        raise ParameterError(f"{kernel!r} gave no vocabulary of patterns to hash.")
    buckets, signs = feature_map_buckets(vocabulary, n, seed)
    F = sp.csr_matrix(F, dtype=np.float64)
    H = sp.csr_matrix((F.data * signs[F.indices], buckets[F.indices], F.indptr), shape=(len(X), n))
    H.sum_duplicates()
    H.eliminate_zeros()  # opposite signs that cancel in a bucket leave no entry
    return H, seed + 1
