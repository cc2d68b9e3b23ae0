"""Rows Φ′_i laid out for dual coordinate descent on an indexed weight vector W′.

Two facts about W′ = Σ_j α_j y_j Φ′_j (eq. (44) / (53)) make every pass cheaper without
changing a single step of the solver:

* **A pattern z that only Φ′_i contains** has W′(z) = α_i y_i Φ′_i(z) at every moment, so
  its share of ⟨W′, Φ′_i⟩ is α_i y_i Σ_z Φ′_i(z)² = α_i y_i u_i. Such patterns are
  folded into the scalar u_i; the gradient is G_i = y_i⟨W′_shared, Φ′_i⟩ + α_i u_i − 1,
  and their weights are written out once, after training. (With character 7-grams of
  Reuters most training patterns are in one story each, and W′'s array shrinks;
  measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)'.)
* **The patterns many Φ′_i contain are read by most gradients**: numbering the shared
  patterns by decreasing document frequency keeps those weights on the same cache lines.

An intercept learnt by augmentation (x ← [b, x], b = ``intercept_scaling``) is the
entry of slot 0 in every row.

References
----------
A. Ghose, *Rational kernels: a survey*, §V-B eq. (53)–(54), Table II (the trie / indexed
W′). C.-J. Hsieh et al., "A dual coordinate descent method for large-scale linear SVM",
ICML 2008 (Algorithm 1, the augmented bias).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ratkit._jit import njit
from ratkit._sparse import index_dtype

__all__ = ["IndexedRows", "csr_arrays", "csr_own_arrays"]


def csr_arrays(X: sp.spmatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, data) of X in canonical CSR form as int64, int64, float64 arrays —
    the layout the epochs take (a non-canonical input is canonicalised on a copy, never in place)."""
    indptr, indices, data = csr_own_arrays(X)
    return (
        np.ascontiguousarray(indptr, dtype=np.int64),
        np.ascontiguousarray(indices, dtype=np.int64),
        data,
    )


def csr_own_arrays(X: sp.spmatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, data) of X in canonical CSR form, the indices in X's own integer
    type (scipy's int32 while they fit) and the values as float64: no copy of a canonical
    float64 CSR matrix's arrays, for :meth:`IndexedRows.from_csr`, which reads either index
    type (a non-canonical input is canonicalised on a copy, never in place)."""
    X = sp.csr_matrix(X)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return (
        np.ascontiguousarray(X.indptr),
        np.ascontiguousarray(X.indices),
        np.ascontiguousarray(X.data, dtype=np.float64),
    )


@njit
def _split_entries(
    indptr, cols, data, col_slot, bias, out_indptr, out_slots, out_data, own, sq_norms, own_pos, own_row
):
    """Write the shared entries (slot ≥ 0) of every row, the bias first when ``bias`` > 0,
    u_i = Σ x² over the row's own entries, whose positions and rows go to ``own_pos``
    and ``own_row``, and the squared norm of the whole (augmented) row.
    Returns (number of shared entries, number of own entries)."""
    q = 0
    r = 0
    for i in range(indptr.shape[0] - 1):
        out_indptr[i] = q
        if bias > 0.0:
            out_slots[q] = 0
            out_data[q] = bias
            q += 1
        u = 0.0
        total = bias * bias
        for p in range(indptr[i], indptr[i + 1]):
            s = col_slot[cols[p]]
            x = data[p]
            total += x * x
            if s >= 0:
                out_slots[q] = s
                out_data[q] = x
                q += 1
            else:
                u += x * x
                own_pos[r] = p
                own_row[r] = i
                r += 1
        own[i] = u
        sq_norms[i] = total
    out_indptr[indptr.shape[0] - 1] = q
    return q, r


@dataclass(frozen=True)
class IndexedRows:
    """Φ′ split into the patterns several rows share and the patterns of one row.

    Attributes
    ----------
    indptr, slots, data
        CSR rows over the shared patterns: entry p of row i is Φ′_i(z) = ``data[p]`` for
        the pattern whose weight is ``w[slots[p]]``.
    own
        u_i = Σ_z Φ′_i(z)² over the patterns only Φ′_i contains.
    sq_norms
        ‖Φ′_i‖² of the whole row, the intercept's feature included: Q_ii.
    col_slot
        The slot of every column of the input matrix; −1 for a column of one row.
    n_slots
        Length of the weight array (the intercept's slot 0 included).
    own_rows, own_cols, own_vals
        The entries that were folded into ``own``, to write their weights out.
    """

    indptr: np.ndarray
    slots: np.ndarray
    data: np.ndarray
    own: np.ndarray
    sq_norms: np.ndarray
    col_slot: np.ndarray
    n_slots: int
    own_rows: np.ndarray
    own_cols: np.ndarray
    own_vals: np.ndarray

    @classmethod
    def from_csr(
        cls, indptr: np.ndarray, cols: np.ndarray, data: np.ndarray, n_cols: int, bias: float = 0.0
    ) -> IndexedRows:
        """Lay out the CSR rows (indptr, cols, data) of an (n, ``n_cols``) matrix; ``bias`` > 0
        adds the constant feature ``bias`` to every row (slot 0). ``indptr`` and ``cols`` may
        be int32 (a scipy matrix's own) or int64: the layout is the same."""
        n = indptr.shape[0] - 1
        df = np.bincount(cols, minlength=n_cols)
        shared = df >= 2
        # Decreasing frequency, ties in column order; a stable sort on small unsigned keys is a radix sort.
        key_type = np.uint16 if n < np.iinfo(np.uint16).max else np.uint32
        order = np.argsort((n - df).astype(key_type), kind="stable")[: int(shared.sum())]
        first = 1 if bias > 0 else 0
        col_slot = np.full(n_cols, -1, dtype=np.int64)
        col_slot[order] = np.arange(first, first + order.shape[0])
        nnz = cols.shape[0]
        out_indptr = np.empty(n + 1, dtype=np.int64)
        # int32 slots when they fit: less memory to fill and for every pass to read
        slot_type = index_dtype(first + order.shape[0])
        out_slots = np.empty(nnz + (n if bias > 0 else 0), dtype=slot_type)
        out_data = np.empty(out_slots.shape[0], dtype=np.float64)
        own, sq_norms = np.empty(n, dtype=np.float64), np.empty(n, dtype=np.float64)
        # int32 positions and rows when they fit: 8 bytes an entry instead of 16 at the build's peak
        own_pos = np.empty(nnz, dtype=index_dtype(nnz))
        own_row = np.empty(nnz, dtype=index_dtype(n))
        q, r = _split_entries(
            indptr, cols, data, col_slot, float(bias), out_indptr, out_slots, out_data, own, sq_norms, own_pos, own_row
        )
        return cls(
            out_indptr,
            out_slots[:q],
            out_data[:q],
            own,
            sq_norms,
            col_slot,
            first + order.shape[0],
            own_row[:r].copy(),
            cols[own_pos[:r]],
            data[own_pos[:r]],
        )

    def column_weights(self, w: np.ndarray, alpha: np.ndarray, y: np.ndarray) -> np.ndarray:
        """W′ on the input's columns: the shared weights from ``w``, a one-row pattern's
        weight α_i y_i Φ′_i(z) from the dual variables."""
        out = np.zeros(self.col_slot.shape[0])
        shared = self.col_slot >= 0
        out[shared] = w[self.col_slot[shared]]
        out[self.own_cols] = alpha[self.own_rows] * y[self.own_rows] * self.own_vals
        return out
