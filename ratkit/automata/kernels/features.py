"""Sparse feature matrices of finite-feature kernels, with a stable vocabulary.

A pattern z (a string over the alphabet) is identified by its code in base L + 1 with
digits 1..L (``symbols`` numbers the alphabet 1..L; no digit is 0, so codes are unique
and the empty string is 0). A :class:`FeatureMap`
freezes a vocabulary (the patterns seen when it was fitted) so that later sequences are
mapped onto the same columns; patterns outside it are dropped, which leaves every inner
product with a fitted feature vector unchanged.

Every vocabulary follows one protocol (:class:`Vocabulary`): its number of columns, the
pattern of each column as a code (what the trie and automaton representations of W′
read), and a state of JSON and arrays from which :func:`vocabulary_from_state` rebuilds
it. Combined kernels have combined vocabularies: :class:`BlockVocabulary` (the columns of
the parts of a sum, side by side) and :class:`PairVocabulary` (the pairs of columns of the
two factors of a product that occurred together in training).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from ratkit._jit import njit
from ratkit._memory import trim_heap
from ratkit._sparse import index_dtype
from ratkit.automata.kernels._paths import TooManyPaths
from ratkit.exceptions import OperationError, VocabularyError

__all__ = [
    "Vocabulary",
    "VocabularyError",
    "FeatureMap",
    "BlockVocabulary",
    "PairVocabulary",
    "code_columns",
    "tensor_rows",
    "coo_to_csr",
    "chunked_vocabulary_matrix",
    "inner_products",
    "inverse_norms",
    "recode_patterns",
    "restrict_columns",
    "row_sq_norms",
    "sorted_unique",
    "uniform_values",
    "vocabulary_matrix",
    "vocabulary_from_state",
]


def sorted_unique(values: np.ndarray, *, presorted: bool = False) -> np.ndarray:
    """The distinct values of an integer array, ascending, found by sorting.

    ``np.unique`` (numpy ≥ 2.3) hashes when no inverse is asked for, which on the
    millions of pattern codes of a text corpus is much slower than a sort
    (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)').
    ``presorted=True`` skips the sort for input already in ascending order.
    """
    a = np.asarray(values).ravel()
    if not presorted:
        a = np.sort(a)
    if a.size < 2:
        return a.copy()
    keep = np.empty(a.shape, dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def uniform_values(n: int, value: float = 1.0) -> np.ndarray:
    """n copies of ``value`` as a read-only float64 array that takes no memory (stride 0).

    Count features give every window the value 1; a materialised array of ones for the
    millions of windows of a corpus costs its allocation and page faults
    (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)')
    and is then read only to find that all values are equal.
    """
    return np.broadcast_to(np.float64(value), (int(n),))


def inverse_norms(sq_norms: np.ndarray) -> np.ndarray:
    """1/√s for each squared norm s > 0, and 0 where s ≤ 0 (the cosine normalisation factors)."""
    d = np.asarray(sq_norms, dtype=np.float64)
    return np.divide(1.0, np.sqrt(d, where=d > 0, out=np.ones_like(d)), where=d > 0, out=np.zeros_like(d))


def row_sq_norms(F: sp.spmatrix) -> np.ndarray:
    """‖F_i‖² for every row of a sparse matrix (one pass over the stored values; F unchanged)."""
    F = sp.csr_matrix(F)  # shares a CSR input's arrays: canonicalise a copy, never the caller's
    if not F.has_canonical_format:
        F = F.copy()
        F.sum_duplicates()
    out = np.zeros(F.shape[0])
    nonempty = np.diff(F.indptr) > 0
    if F.nnz:
        out[nonempty] = np.add.reduceat(np.square(F.data, dtype=np.float64), F.indptr[:-1][nonempty])
    return out


def coo_to_csr(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """Sum duplicate (row, col) entries into a CSR matrix of float64."""
    m = sp.csr_matrix((values.astype(np.float64, copy=False), (rows, cols)), shape=shape)
    m.sum_duplicates()
    return m


@njit
def _count_sorted_keys(keys, span, row_counts):  # pragma: no cover - compiled
    """Over sorted keys code · span + row: add each row's distinct keys to
    ``row_counts[row + 1]``; return the number of distinct codes."""
    n_codes = 0
    prev_key = -1
    prev_code = -1
    for t in range(keys.shape[0]):
        k = keys[t]
        if k != prev_key:
            code = k // span
            row_counts[k - code * span + 1] += 1
            if code != prev_code:
                n_codes += 1
                prev_code = code
            prev_key = k
    return n_codes


@njit
def _fill_sorted_keys(keys, span, value, indptr, indices, data, uniq):  # pragma: no cover - compiled
    """Second pass: each run of equal keys is one entry (value · run length) of row
    ``key % span`` in the column of code ``key // span``; columns come in increasing
    order, so every row's indices are sorted."""
    fill = indptr[:-1].copy()
    col = -1
    prev_code = -1
    t = 0
    m = keys.shape[0]
    while t < m:
        k = keys[t]
        s = t
        while t < m and keys[t] == k:
            t += 1
        code = k // span
        if code != prev_code:
            col += 1
            uniq[col] = code
            prev_code = code
        p = fill[k - code * span]
        indices[p] = col
        data[p] = value * (t - s)
        fill[k - code * span] = p + 1


def vocabulary_matrix(
    rows: np.ndarray, codes: np.ndarray, values: np.ndarray, n_rows: int, *, overwrite_codes: bool = False
) -> tuple[np.ndarray, sp.csr_matrix]:
    """(sorted distinct codes, the (n_rows, #codes) CSR matrix of the COO triplets on them).

    Duplicate (row, code) triplets are summed. When every value is the same (counts,
    the common case) and code · n_rows fits in int64, one sort of the keys
    code · n_rows + row does the work of an argsort: runs of equal keys are the
    entries, in column-major order, and two compiled passes over them write the CSR
    arrays (with sorted indices). ``overwrite_codes=True`` lets the keys be formed in
    ``codes``' own memory (a caller that drops its arrays saves a copy of their size).
    """
    rows = np.asarray(rows, dtype=np.int64)
    codes = np.asarray(codes, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    span = max(int(n_rows), 1)
    uniform = codes.size > 0 and (values.strides == (0,) or bool(np.all(values == values[0])))
    if not uniform or int(codes.min()) < 0 or int(codes.max()) >= np.iinfo(np.int64).max // span:
        uniq, cols = np.unique(codes, return_inverse=True)
        return uniq, coo_to_csr(rows, cols, values, (n_rows, uniq.shape[0]))
    if overwrite_codes and codes.flags.writeable:
        keys = codes
        keys *= span
    else:
        keys = codes * span
    keys += rows
    keys.sort()
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    n_codes = _count_sorted_keys(keys, span, indptr)
    np.cumsum(indptr, out=indptr)
    nnz = int(indptr[-1])
    index = index_dtype(nnz, n_codes)
    indices = np.empty(nnz, dtype=index)
    data = np.empty(nnz, dtype=np.float64)
    uniq = np.empty(n_codes, dtype=np.int64)
    _fill_sorted_keys(keys, span, float(values[0]), indptr, indices, data, uniq)
    F = sp.csr_matrix((data, indices, indptr.astype(index, copy=False)), shape=(n_rows, n_codes))
    F.has_sorted_indices = True
    return uniq, F


Triplets = tuple[np.ndarray, np.ndarray, np.ndarray]


def chunked_vocabulary_matrix(
    triplets: Callable[[int, int], Triplets], sizes: Sequence[int], work_bytes: int, *, show_progress: bool = False
) -> tuple[np.ndarray, sp.csr_matrix]:
    """:func:`vocabulary_matrix` of the COO triplets of ``len(sizes)`` rows, built from
    consecutive ranges of rows with about ``work_bytes`` of working memory beyond the result.

    ``triplets(a, b)`` gives the triplets of rows [a, b), numbered from 0; ``sizes[i]``
    (a sequence's length) predicts row i's share of the work. Two passes over the ranges:
    the first merges their distinct codes into the vocabulary and counts each row's
    entries, the second recomputes every range and writes its rows into the CSR arrays,
    its columns mapped onto the vocabulary (a monotone map: every row stays sorted). The
    result is the one-pass matrix: the same entries, each the sum over the same triplets
    (as a product value · count where a range's values are all equal, which may round
    differently from their sum when the whole's are not). Ranges grow or shrink to the
    bytes per unit of size the last one used: its triplets and its CSR matrix. One progress
    bar counts the sizes of both passes.
    """
    n_rows = len(sizes)
    ends = np.cumsum(np.asarray(sizes, dtype=np.int64))
    total = int(ends[-1]) if n_rows else 0
    with tqdm(total=2 * total, desc="features, 2 passes", unit="sym", disable=not show_progress, leave=False) as bar:
        return _two_passes(triplets, n_rows, ends, work_bytes, bar)


def _two_passes(
    triplets: Callable[[int, int], Triplets], n_rows: int, ends: np.ndarray, work_bytes: int, bar: Any
) -> tuple[np.ndarray, sp.csr_matrix]:
    """The two passes of :func:`chunked_vocabulary_matrix` (``ends``: cumulative sizes)."""
    per_unit = 36.0  # an n-gram window's bytes: label, row and code (8 each), its CSR entry (12)
    counts = np.zeros(n_rows + 1, dtype=np.int64)
    vocabulary = np.zeros(0, dtype=np.int64)
    ranges: list[tuple[int, int]] = []
    a = 0
    while a < n_rows:
        done = int(ends[a - 1]) if a else 0
        b = int(np.searchsorted(ends, done + max(work_bytes / per_unit, 1.0), side="right"))
        b = min(max(b, a + 1), n_rows)
        rows, codes, values = triplets(a, b)
        used = rows.nbytes + codes.nbytes + values.nbytes
        uniq, F = vocabulary_matrix(rows, codes, values, b - a, overwrite_codes=True)
        del rows, codes, values
        used += F.data.nbytes + F.indices.nbytes + uniq.nbytes
        per_unit = max(used / max(int(ends[b - 1]) - done, 1), 1.0)
        if a == 0 and b == n_rows:  # one range: that was the one pass
            return uniq, F
        bar.update(int(ends[b - 1]) - done)
        counts[a + 1 : b + 1] = np.diff(F.indptr)
        vocabulary = sorted_unique(np.concatenate((vocabulary, uniq)))
        ranges.append((a, b))
        a = b
    trim_heap()  # what the first pass freed, before the result's pages are written
    indptr = np.cumsum(counts)
    nnz = int(indptr[-1])
    index = index_dtype(nnz, vocabulary.shape[0])
    indices = np.empty(nnz, dtype=index)
    data = np.empty(nnz, dtype=np.float64)
    for a, b in ranges:
        uniq, F = vocabulary_matrix(*triplets(a, b), b - a, overwrite_codes=True)
        lo, hi = int(indptr[a]), int(indptr[b])
        if F.nnz != hi - lo:
            raise OperationError(
                f"The features of sequences [{a}, {b}) changed between two extractions of them: this kernel's "
                "feature map is not deterministic, and a Gram matrix written to a file needs it to be. Compute "
                "the matrix in memory (without out=)."
            )
        np.take(np.searchsorted(vocabulary, uniq).astype(index), F.indices, out=indices[lo:hi])
        data[lo:hi] = F.data
        bar.update(int(ends[b - 1]) - (int(ends[a - 1]) if a else 0))
        del uniq, F
        trim_heap()  # the range's transients would otherwise stay resident beside the result
    F = sp.csr_matrix((data, indices, indptr.astype(index, copy=False)), shape=(n_rows, vocabulary.shape[0]))
    F.has_sorted_indices = True
    return vocabulary, F


def inner_products(FX: sp.csr_matrix, FY: sp.csr_matrix | None = None, blocks: int = 8) -> np.ndarray:
    """The dense matrix FX · FYᵀ; with FY None, FX · FXᵀ from its upper block triangle only.

    Symmetric Gram matrices are assembled from the (i ≤ j) row-block products, which
    does a little over half the work of one full sparse product.
    """
    if FY is not None:
        return (FX @ FY.T).toarray()
    n = FX.shape[0]
    if n < 2 * blocks:
        return (FX @ FX.T).toarray()
    G = np.empty((n, n))
    edges = np.linspace(0, n, blocks + 1).astype(int)
    FT = FX.T.tocsr()
    for b in range(blocks):
        lo, hi = edges[b], edges[b + 1]
        G[lo:hi, lo:] = (FX[lo:hi] @ FT[:, lo:]).toarray()
        G[lo:, lo:hi] = G[lo:hi, lo:].T
    return G


@njit
def _compact_columns(indptr, indices, data, column_map):  # pragma: no cover - compiled
    """Keep the entries p with column_map[indices[p]] ≥ 0, renumbered, moved forward in place
    (row by row, in order); indptr rewritten; return the number kept."""
    q = 0
    start = indptr[0]
    for i in range(indptr.shape[0] - 1):
        end = indptr[i + 1]
        for p in range(start, end):
            c = column_map[indices[p]]
            if c >= 0:
                indices[q] = c
                data[q] = data[p]
                q += 1
        start = end
        indptr[i + 1] = q
    return q


def restrict_columns(F: sp.csr_matrix, column_map: np.ndarray, n_columns: int) -> sp.csr_matrix:
    """F's entries in the columns j with ``column_map[j] ≥ 0``, moved to column column_map[j] of
    an (n, ``n_columns``) CSR matrix, the others dropped: the values unchanged, F's own arrays
    reused (F is consumed: do not use it afterwards). Rows come out with sorted indices when
    the map is increasing on the kept columns and F's were sorted, else they are sorted here."""
    column_map = np.asarray(column_map, dtype=np.int64)
    if column_map.shape != (F.shape[1],):
        raise ValueError(f"column_map has shape {column_map.shape}; expected ({F.shape[1]},), one per column of F")
    kept_map = column_map[column_map >= 0]
    if kept_map.size and (int(kept_map.max()) >= n_columns):
        raise ValueError(f"column_map points beyond the {n_columns} columns of the result")
    sorted_rows = F.has_sorted_indices and bool(np.all(kept_map[1:] > kept_map[:-1]))
    indptr = F.indptr.copy()  # F's indptr may be shared with another matrix
    nnz = _compact_columns(indptr, F.indices, F.data, column_map)
    index = index_dtype(nnz, n_columns)
    arrays = (F.data[:nnz], F.indices[:nnz].astype(index, copy=False), indptr.astype(index, copy=False))
    G = sp.csr_matrix(arrays, shape=(F.shape[0], n_columns), copy=False)
    G.has_sorted_indices = sorted_rows
    if not sorted_rows:
        G.sort_indices()
    return G


def recode_patterns(codes: np.ndarray, source: Sequence[str], target: Sequence[str]) -> np.ndarray | None:
    """The codes over the alphabet ``target`` of the patterns whose codes over ``source`` are
    ``codes`` (digit d ↦ the position of source[d − 1] in target, plus 1); −1 for a pattern with
    a symbol outside ``target``; None when the recoded codes might not fit in an int64."""
    codes = np.asarray(codes, dtype=np.int64)
    if tuple(source) == tuple(target):
        return codes.copy()
    where = {s: i + 1 for i, s in enumerate(target)}
    digit_map = np.array([0] + [where.get(s, -1) for s in source], dtype=np.int64)
    source_base, target_base = len(source) + 1, len(target) + 1
    top = int(codes.max()) if codes.size else 0
    n_digits = 0
    while top:
        top //= source_base
        n_digits += 1
    if n_digits and n_digits * np.log2(float(target_base)) >= 62:
        return None
    rest, out, bad, scale = codes.copy(), np.zeros_like(codes), np.zeros(codes.shape, dtype=bool), 1
    for _ in range(n_digits):
        digit = digit_map[rest % source_base]
        bad |= digit < 0
        out += np.maximum(digit, 0) * scale
        rest //= source_base
        scale *= target_base
    out[bad] = -1
    return out


@runtime_checkable
class Vocabulary(Protocol):
    """What a learner and a model file need of the vocabulary of an explicit feature map."""

    @property
    def n_features(self) -> int:
        """The number of columns."""
        ...

    def pattern_codes(self) -> tuple[np.ndarray, int]:
        """(codes, base): column j is the pattern whose digits in ``base`` spell ``codes[j]``
        (ascending, distinct), the layout the trie and automaton representations read."""
        ...

    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """(one JSON-able dict, one flat dict of arrays) from which :func:`vocabulary_from_state`
        rebuilds the vocabulary."""
        ...


def code_columns(vocabulary: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The column of each code in the sorted distinct ``vocabulary`` codes, −1 when absent."""
    codes = np.asarray(codes, dtype=np.int64)
    n = vocabulary.shape[0]
    if not n or not codes.size:
        return np.full(codes.shape, -1, dtype=np.int64)
    # Look up each distinct code once, in ascending order: a binary search over
    # sorted queries walks memory in order (random queries are slower).
    uniq, inverse = np.unique(codes, return_inverse=True)
    pos = np.minimum(np.searchsorted(vocabulary, uniq), n - 1)
    return np.where(vocabulary[pos] == uniq, pos, -1)[inverse]


def _one_symbol_codes(n: int) -> tuple[np.ndarray, int]:
    """Each of n columns its own one-symbol pattern: codes 1..n in base n + 1."""
    return np.arange(1, n + 1, dtype=np.int64), n + 1


def _check_codes(codes: Any, what: str) -> np.ndarray:
    if not isinstance(codes, np.ndarray) or codes.ndim != 1 or not np.issubdtype(codes.dtype, np.integer):
        raise VocabularyError(f"{what} must be a 1-D integer array of codes.")
    if codes.size and (int(codes[0]) < 0 or bool(np.any(codes[1:] <= codes[:-1]))):
        raise VocabularyError(f"{what} must be sorted, distinct and non-negative.")
    return codes


@dataclass(frozen=True)
class FeatureMap:
    """A frozen vocabulary of patterns: ``codes[j]`` is the pattern of column j.

    Attributes
    ----------
    symbols
        The alphabet, numbered 1..L in this order (the code base is L + 1).
    codes
        Sorted, unique pattern codes; the columns of the feature matrices.
    """

    symbols: tuple[str, ...]
    codes: np.ndarray

    def __post_init__(self) -> None:
        codes = _check_codes(self.codes, "FeatureMap.codes")
        if not self.symbols and codes.size and int(codes[-1]) > 0:
            # over an empty alphabet the only pattern is ε (code 0): digit loops would never end
            raise VocabularyError("A FeatureMap without symbols can only hold the empty pattern (code 0).")

    @property
    def n_features(self) -> int:
        return int(self.codes.shape[0])

    # -- the vocabulary protocol (what a learner and a model file need of any vocabulary) --
    def pattern_codes(self) -> tuple[np.ndarray, int]:
        """(codes, base): column j is the pattern whose digits in ``base`` spell code j
        (ascending, distinct), the layout the trie and automaton representations read."""
        return np.asarray(self.codes, dtype=np.int64), len(self.symbols) + 1

    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """(JSON-able description, arrays) from which :func:`vocabulary_from_state` rebuilds it."""
        return {"type": "patterns", "symbols": list(self.symbols)}, {"codes": np.asarray(self.codes)}

    def patterns(self) -> list[tuple[str, ...]]:
        """The pattern of every column, as a tuple of symbols."""
        # Decode digit by digit, vectorised over columns.
        syms = np.array(("",) + self.symbols, dtype=object)
        base = len(self.symbols) + 1
        codes = self.codes.copy()
        digits = []
        while np.any(codes):
            digits.append(codes % base)
            codes //= base
        return [tuple(syms[d[j]] for d in reversed(digits) if d[j]) for j in range(codes.shape[0])]

    def columns(self, codes: np.ndarray) -> np.ndarray:
        """Column of each code, or −1 when the pattern is not in the vocabulary."""
        return code_columns(self.codes, codes)

    def columns_of(self, other: FeatureMap) -> np.ndarray | None:
        """For each column of ``other``, the column of the same pattern in this vocabulary, −1
        when it has none; None when the patterns of ``other`` cannot be recoded in int64."""
        recoded = recode_patterns(other.codes, other.symbols, self.symbols)
        if recoded is None:
            return None
        out = code_columns(self.codes, np.maximum(recoded, 0))
        out[recoded < 0] = -1
        return out

    def matrix(self, rows: np.ndarray, codes: np.ndarray, values: np.ndarray, n_rows: int) -> sp.csr_matrix:
        """The (n_rows, n_features) matrix of COO triplets, dropping out-of-vocabulary patterns."""
        cols = self.columns(codes)
        keep = cols >= 0
        return coo_to_csr(rows[keep], cols[keep], values[keep], (n_rows, self.n_features))


@dataclass(frozen=True)
class BlockVocabulary:
    """The vocabulary of a sum Σ_i c_i K_i: the columns of part i's vocabulary, in order,
    are columns ``offsets[i]`` to ``offsets[i + 1]`` of the whole."""

    parts: tuple[Vocabulary, ...]

    def __post_init__(self) -> None:
        if not self.parts:
            raise VocabularyError("A BlockVocabulary needs at least one part.")

    @property
    def offsets(self) -> np.ndarray:
        """[0, p_1, p_1 + p_2, …]: where each part's columns start, and the total."""
        return np.concatenate([[0], np.cumsum([v.n_features for v in self.parts])]).astype(np.int64)

    @property
    def n_features(self) -> int:
        return int(self.offsets[-1])

    def pattern_codes(self) -> tuple[np.ndarray, int]:
        """Each column its own one-symbol pattern (the parts' patterns are of different kinds)."""
        return _one_symbol_codes(self.n_features)

    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        metas, arrays = [], {}
        for i, part in enumerate(self.parts):
            meta, arrs = part.to_state()
            metas.append(meta)
            arrays.update({f"{i}.{key}": value for key, value in arrs.items()})
        return {"type": "blocks", "parts": metas}, arrays


@dataclass(frozen=True)
class PairVocabulary:
    """The vocabulary of a product K_1 · K_2 of finite feature maps: column j is the pair
    (a, b) = divmod(pairs[j], right.n_features) of a column a of ``left`` and b of ``right``,
    the pairs that occurred together in some training row (the others add nothing to an
    inner product with a training row)."""

    left: Vocabulary
    right: Vocabulary
    pairs: np.ndarray

    def __post_init__(self) -> None:
        pairs = _check_codes(self.pairs, "PairVocabulary.pairs")
        if pairs.size and int(pairs[-1]) >= self.left.n_features * self.right.n_features:
            raise VocabularyError(
                f"PairVocabulary.pairs holds the pair code {int(pairs[-1])}, beyond the "
                f"{self.left.n_features} × {self.right.n_features} pairs of its factors."
            )

    @property
    def n_features(self) -> int:
        return int(self.pairs.shape[0])

    def pattern_codes(self) -> tuple[np.ndarray, int]:
        """Each column its own one-symbol pattern."""
        return _one_symbol_codes(self.n_features)

    def split(self, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(left columns, right columns) of these columns."""
        return np.divmod(self.pairs[np.asarray(columns, dtype=np.int64)], max(self.right.n_features, 1))

    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        left, left_arrays = self.left.to_state()
        right, right_arrays = self.right.to_state()
        arrays = {f"left.{k}": v for k, v in left_arrays.items()}
        arrays.update({f"right.{k}": v for k, v in right_arrays.items()})
        arrays["pairs"] = np.asarray(self.pairs)
        return {"type": "pairs", "left": left, "right": right}, arrays


def tensor_rows(A: sp.csr_matrix, B: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """COO triplets (row, pair code a·q + b, A[i, a]·B[i, b]) of the row-wise tensor product of
    two CSR matrices with the same rows (q = B's columns): ⟨A_i ⊗ B_i, A_j ⊗ B_j⟩ = ⟨A_i, A_j⟩⟨B_i, B_j⟩.

    Raises :class:`TooManyPaths` when the pair codes would not fit in an int64.
    """
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    if A.shape[1] and B.shape[1] and A.shape[1] > (np.iinfo(np.int64).max - 1) // B.shape[1]:
        raise TooManyPaths(f"{A.shape[1]:,} × {B.shape[1]:,} pairs of features have codes beyond int64")
    n = A.shape[0]
    na, nb = np.diff(A.indptr).astype(np.int64), np.diff(B.indptr).astype(np.int64)
    counts = na * nb
    total = int(counts.sum())
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)
    t = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    per = np.repeat(nb, counts)
    ia = np.repeat(A.indptr[:-1].astype(np.int64), counts) + t // np.maximum(per, 1)
    ib = np.repeat(B.indptr[:-1].astype(np.int64), counts) + t % np.maximum(per, 1)
    codes = A.indices[ia].astype(np.int64) * B.shape[1] + B.indices[ib]
    return rows, codes, A.data[ia] * B.data[ib]


def _prefixed(arrays: Mapping[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    return {key[len(prefix) :]: value for key, value in arrays.items() if key.startswith(prefix)}


def vocabulary_from_state(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> Vocabulary:
    """The vocabulary a ``to_state()`` call described; ValueError when the state is malformed."""
    kind = meta.get("type") if isinstance(meta, Mapping) else None
    if kind == "patterns":
        if "codes" not in arrays or not isinstance(meta.get("symbols"), list):
            raise VocabularyError("a pattern vocabulary needs its 'symbols' list and its 'codes' array")
        return FeatureMap(tuple(str(s) for s in meta["symbols"]), np.asarray(arrays["codes"]))
    if kind == "blocks":
        parts = meta.get("parts")
        if not isinstance(parts, list) or not parts:
            raise VocabularyError("a block vocabulary needs a non-empty 'parts' list")
        return BlockVocabulary(tuple(vocabulary_from_state(m, _prefixed(arrays, f"{i}.")) for i, m in enumerate(parts)))
    if kind == "pairs":
        if "pairs" not in arrays or not all(isinstance(meta.get(k), Mapping) for k in ("left", "right")):
            raise VocabularyError("a pair vocabulary needs its 'left' and 'right' states and its 'pairs' array")
        left = vocabulary_from_state(meta["left"], _prefixed(arrays, "left."))
        right = vocabulary_from_state(meta["right"], _prefixed(arrays, "right."))
        return PairVocabulary(left, right, np.asarray(arrays["pairs"]))
    raise VocabularyError(f"unknown vocabulary type {kind!r}; expected 'patterns', 'blocks' or 'pairs'")
