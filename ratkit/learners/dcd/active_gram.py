"""Dual coordinate descent that switches to cached inner products once shrinking has
narrowed the active coordinates.

On indexed rows (:class:`~ratkit.learners.dcd.rows.IndexedRows`) a step on
coordinate i reads and writes the nnz(x_i) entries of W′ that x_i touches (eq. (53)–(54)):
scattered memory accesses. Late in a run, shrinking leaves a small active set A of
coordinates that is swept again and again (hundreds of passes on Reuters n-grams). With
Q_AA = [y_a y_b ⟨x_a, x_b⟩] in memory, the same step costs |A| contiguous multiply-adds:
keep the gradient G_A = Q_A· α − 1 (eq. (41)) as a vector and, on a step Δα_i, add
Δα_i Q_{A,i} to it — the kernel-row update of SMO solvers. The coordinates, their order
and the rule of each step are those of Algorithm 3/4.

Q is stored in float32 (half the memory traffic of a pass), its sums taken in float64, so
the cached passes see gradients within about 1e-7 (relative) of the exact ones and may
take slightly different steps. The stopping rule is only ever met on a pass over every
coordinate, which runs on the indexed rows with exact gradients: the result meets the
same tolerance as a run without the cache.

Building Q_AA costs about Σ_z df_A(z)² / 2 multiply-adds (df_A(z): rows of A holding
pattern z), which a long run repays and a short one does not. The switch is a ski-rental
rule: the cache is built once the shrunk passes on the rows have read as many entries as
building it would cost (:func:`build_cost`), so a run spends at most about twice what
the better of the two strategies would — provided a pass on the cache is much cheaper
than one on the rows, which is not so when the active rows are many and short (a cached
step costs one multiply-add per cached row): the cache is built only when
:func:`pays_per_pass` predicts a pass on it cheaper than one on the rows. The cache keeps
the rows it has (S ⊇ A); when an unshrink brings coordinates back, only the rows of
newcomers are added, and the cache is dropped when it would outgrow ``capacity`` or twice the active set.

W′ is left behind while the cached passes run and brought up to date
(W′ += Σ_{i∈S} Δα_i y_i x_i) before any pass on the indexed rows and at the end.

References
----------
C.-J. Hsieh et al., "A dual coordinate descent method for large-scale linear SVM",
ICML 2008 (§3.2, shrinking). R.-E. Fan, P.-H. Chen, C.-J. Lin, "Working set selection
using second order information for training SVM", JMLR 6, 2005 (kernel-row updates of
the gradient). A. R. Karlin et al., "Competitive randomized algorithms for nonuniform
problems", Algorithmica 11, 1994 (ski rental).
"""

from __future__ import annotations

import numpy as np

from ratkit._jit import njit
from ratkit.learners.dcd.epochs import _advance, coordinate, dual_change, epoch_indexed
from ratkit.learners.dcd.rows import IndexedRows

__all__ = ["ActiveGramEpoch", "active_gram", "cache_capacity", "pays_per_pass"]

#: Costs in units of one entry x_i(z) read by a pass on indexed rows (≈ 2.5–2.9 ns on
#: Reuters character 7-grams on this project's machines), measured with
#: ``python -m bench.learners.active_gram_costs``: building Q_AA costs ENTRY_COST per
#: entry of the rows of A (laying out the postings; measured 7–13) and PAIR_COST per pair
#: of rows sharing a pattern (a multiply-add; measured 0.8–1.1); a visit in a pass on the
#: cache costs VISIT_CELL_COST per cached row (measured 0.04–0.05).
ENTRY_COST = 10.0
PAIR_COST = 1.0
VISIT_CELL_COST = 0.05
#: What the build decision charges a step on the cache, per cached row (in pass entries).
#: Measured within fits (``RationalSVC.fit``, one thread: a cached pass's time per visit
#: and cached row, over a pass on the rows' time per entry), Q visited in the solver's
#: random order: 0.09–0.11 on 300-character Reuters windows, 5-grams, at n = 10⁴, 2·10⁴,
#: 4·10⁴ (m ≈ 2 000, 3 200, 4 700; Q 16–87 MB), about 0.1 on ModApte 6- and 7-grams, up
#: to 0.2 with the other core busy. The calibration bench's passes (sorted sets) give 0.05.
STEP_CELL_COST = 0.1
#: The cache is built only if a pass on it is predicted to cost at most this fraction of
#: a pass on the rows it replaces (:func:`pays_per_pass`).
PASS_GAIN = 1.0


def cache_capacity(cache_mb: float, n: int) -> int:
    """The largest m with an m × m float32 matrix within ``cache_mb`` megabytes (≤ n)."""
    return int(min(n, np.sqrt(max(cache_mb, 0.0) * 2**20 / 4.0)))


@njit
def _slot_counts(members, m, indptr, slots, n_slots):
    """df(z): how many of the rows ``members[:m]`` hold pattern z."""
    df = np.zeros(n_slots, dtype=np.int64)
    for a in range(m):
        i = members[a]
        for p in range(indptr[i], indptr[i + 1]):
            df[slots[p]] += 1
    return df


def pays_per_pass(m: int, mean_length: float) -> bool:
    """Whether a pass on a cache of m rows is predicted to cost at most PASS_GAIN of a pass
    on m rows of ``mean_length`` entries: a step on the cache costs m cells, a visit on
    the rows its row's entries (STEP_CELL_COST · m ≤ PASS_GAIN · mean_length).

    Measured (m / mean length at the build; a cached visit's time over a visit's on the
    rows; solver time with the cache over without): ModApte stories, 6- and 7-grams,
    m / L = 2.0–3.0 (solver × 0.6–0.8); 300-character Reuters windows, 5-grams, 7.8 at
    n = 10⁴ (visit 0.74, solver × 0.9), 12.2 at 2·10⁴ (1.15, × 1.2), 17.4 at 4·10⁴ (1.98,
    × 1.7–1.8). The threshold is m ≤ 10 × the mean length.

    >>> pays_per_pass(1830, 605.0), pays_per_pass(4670, 268.0)
    (True, False)
    """
    return STEP_CELL_COST * m <= PASS_GAIN * mean_length


def build_cost(df: np.ndarray) -> float:
    """The cost of :func:`_gram_rows` on rows with pattern counts ``df`` (see ENTRY_COST)."""
    f = df[df >= 2].astype(np.float64)
    return ENTRY_COST * float(df.sum()) + PAIR_COST * float((f * (f - 1.0)).sum() / 2.0)


@njit
def _store_row(Q, t, acc, members, m, y, sq_norms):
    """Q[t, :m] = y_t y_b acc[b], with ‖x_t‖² on the diagonal, in Q's precision."""
    i = members[t]
    yi = y[i]
    row = Q[t]
    for b in range(m):
        row[b] = acc[b] * (yi * y[members[b]])
    row[t] = sq_norms[i]


@njit
def _mirror(Q, first, m):
    """Q[b, t] = Q[t, b] for the pairs rows t ≥ ``first`` computed (b > t or b < first),
    by 32 × 32 tiles so that the column writes reuse cache lines."""
    B = 32
    for t0 in range(first, m, B):
        t1 = min(t0 + B, m)
        for b0 in range(0, m, B):
            b1 = min(b0 + B, m)
            if b1 <= t0 and b0 >= first:
                continue  # pairs (t, b) with first ≤ b < t: the mirror of these tiles is written
            for b in range(b0, b1):
                out = Q[b]
                for t in range(t0, t1):
                    if b > t or b < first:
                        out[t] = Q[t, b]


@njit
def _gram_rows(first, members, m, indptr, slots, data, sq_norms, y, df, Q):
    """Rows and columns ``first..m-1`` of Q = [y_a y_b ⟨x_a, x_b⟩] over the rows
    ``members[:m]``, rows ``0..first-1`` among themselves being there already (first = 0:
    all of Q; first > 0: the rows of newcomers to the cache). ``df`` counts the patterns
    over the m rows; only the patterns two rows or more hold are walked.

    Patterns are numbered by first occurrence (rows in order), so the postings of the
    patterns row t brings in lie side by side; each entry keeps where it sits in its
    pattern's postings (ascending positions) and where they start and end, so the walk to
    its partners b > t — and, for a newcomer, b < ``first`` — needs no search, and the
    last occurrence of a pattern reads nothing."""
    local = np.full(df.shape[0], -1, dtype=np.int64)
    start = np.zeros(df.shape[0] + 1, dtype=np.int64)
    k = 0
    nnz = 0
    for a in range(m):
        i = members[a]
        for p in range(indptr[i], indptr[i + 1]):
            z = slots[p]
            if df[z] >= 2:
                nnz += 1
                if local[z] < 0:
                    local[z] = k
                    start[k + 1] = df[z]
                    k += 1
    for u in range(k):
        start[u + 1] += start[u]
    fill = start[:k].copy()
    pos = np.empty(nnz, dtype=np.int32)
    val = np.empty(nnz, dtype=np.float64)
    ent_ptr = np.empty(m + 1, dtype=np.int64)
    ent_q = np.empty(nnz, dtype=np.int64)
    ent_start = np.empty(nnz, dtype=np.int64)
    ent_end = np.empty(nnz, dtype=np.int64)
    e = 0
    for a in range(m):
        ent_ptr[a] = e
        i = members[a]
        for p in range(indptr[i], indptr[i + 1]):
            u = local[slots[p]]
            if u >= 0:
                q = fill[u]
                fill[u] = q + 1
                pos[q] = a
                val[q] = data[p]
                ent_q[e] = q
                ent_start[e] = start[u]
                ent_end[e] = start[u + 1]
                e += 1
    ent_ptr[m] = e
    acc = np.empty(m, dtype=np.float64)
    for t in range(first, m):
        acc[:] = 0.0
        for e in range(ent_ptr[t], ent_ptr[t + 1]):
            q0 = ent_q[e]
            v = val[q0]
            if first > 0:  # partners among the rows already cached
                q = ent_start[e]
                while q < q0 and pos[q] < first:
                    acc[pos[q]] += v * val[q]
                    q += 1
            for q in range(q0 + 1, ent_end[e]):
                acc[pos[q]] += v * val[q]
        _store_row(Q, t, acc, members, m, y, sq_norms)
    _mirror(Q, first, m)


def active_gram(rows: IndexedRows, members: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Q = [y_a y_b ⟨x_a, x_b⟩] for the rows ``members`` (a dense (m, m) float32 array)."""
    members = np.asarray(members, dtype=np.int64)
    m = members.shape[0]
    Q = np.empty((m, m), dtype=np.float32)
    df = _slot_counts(members, m, rows.indptr, rows.slots, rows.n_slots)
    _gram_rows(0, members, m, rows.indptr, rows.slots, rows.data, rows.sq_norms, y, df, Q)
    return Q


@njit
def _gradients(members, m, indptr, slots, data, own, y, alpha, w, g, alpha0):
    """G_a = y_i ⟨w, x_i⟩ + α_i own_i − 1 for i = members[a]; remember α_i in ``alpha0``."""
    for a in range(m):
        i = members[a]
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += w[slots[p]] * data[p]
        g[a] = y[i] * s + alpha[i] * own[i] - 1.0
        alpha0[a] = alpha[i]


@njit
def _flush(members, m, indptr, slots, data, y, alpha, alpha0, w):
    """W′ += Σ_a (α_i − α0_a) y_i x_i for i = members[a] (eq. (53)); α0 ← α."""
    for a in range(m):
        i = members[a]
        d = (alpha[i] - alpha0[a]) * y[i]
        if d != 0.0:
            for p in range(indptr[i], indptr[i + 1]):
                w[slots[p]] += d * data[p]
        alpha0[a] = alpha[i]


@njit
def epoch_cached(active, size, max_old, min_old, where, Q, m, g, qinv, C, alpha):
    """One pass of Algorithm 3 over ``active[:size]`` with G read from the vector g over
    the cached rows (coordinate i is row ``where[i]`` of Q); a step Δα_i adds
    Δα_i Q[where[i], :m] to g. Returns (max ∇^P, min ∇^P, new size, Δf), Δf as G read from g
    (float32 Q: within about 1e-7, relative, of the exact change)."""
    pgmax = -np.inf
    pgmin = np.inf
    df = 0.0
    s = 0
    while s < size:
        i = active[s]
        a = where[i]
        shrink, PG, new = coordinate(g[a], alpha[i], qinv[i], C, max_old, min_old)
        if not shrink:
            df += dual_change(g[a], alpha[i], new, qinv[i])
            d = new - alpha[i]
            alpha[i] = new
            if d != 0.0:
                row = Q[a]
                for b in range(m):
                    g[b] += d * row[b]
        s, size, pgmax, pgmin = _advance(active, s, size, shrink, PG, pgmax, pgmin)
    return pgmax, pgmin, size, df


class ActiveGramEpoch:
    """The ``epoch`` of :func:`ratkit.learners.dcd._solver.solve` for one binary problem on indexed
    rows: passes on the rows and W′ while many coordinates are active, passes on cached
    Q_SS once the ski-rental rule says so (see the module docstring).

    ``alpha`` and ``w`` are updated in place; call :meth:`finish` after the run to bring
    W′ up to date and free the cache. ``capacity`` bounds the cached rows (0: never cache).
    ``builds``, ``extensions`` and ``drops`` count what the cache went through;
    ``visit_cost`` tells :func:`~ratkit.learners.dcd._solver.solve` what the last pass's visits
    cost relative to visits of a pass on all the rows (1 on the rows).
    """

    def __init__(
        self,
        rows: IndexedRows,
        y: np.ndarray,
        qinv: np.ndarray,
        C: float,
        alpha: np.ndarray,
        w: np.ndarray,
        capacity: int,
    ) -> None:
        self.rows, self.y, self.qinv, self.C, self.alpha, self.w = rows, y, qinv, C, alpha, w
        n = y.shape[0]
        self.n = n
        self.capacity = min(int(capacity), n)
        self.lengths = np.diff(rows.indptr)
        self.where = np.full(n, -1, dtype=np.int64)
        self.members = np.empty(self.capacity, dtype=np.int64)
        self.m = 0
        self.Q: np.ndarray | None = None
        self.g = np.empty(self.capacity)
        self.alpha0 = np.empty(self.capacity)
        self.fresh = False  # g holds the gradients and W′ lags by the steps since alpha0
        self.spent = 0.0  # entries read by shrunk passes on the rows since the cache was last dropped
        self.bound, self.bound_size = 0.0, 0  # the cost of building Q for a set of that size
        self.builds = self.extensions = self.drops = 0  # what the cache went through
        self.mean_length = max(float(self.lengths.mean()) if n else 1.0, 1.0)
        self.visit_cost = 1.0  # of the last pass's visits, relative to a visit of a full pass

    def __call__(
        self, active: np.ndarray, size: int, max_old: float, min_old: float
    ) -> tuple[float, float, int, float]:
        if size < self.n and self.Q is not None and self._cover(active[:size]):
            if not self.fresh:
                r = self.rows
                _gradients(
                    self.members,
                    self.m,
                    r.indptr,
                    r.slots,
                    r.data,
                    r.own,
                    self.y,
                    self.alpha,
                    self.w,
                    self.g,
                    self.alpha0,
                )
                self.fresh = True
            self.visit_cost = VISIT_CELL_COST * self.m / self.mean_length
            return epoch_cached(
                active, size, max_old, min_old, self.where, self.Q, self.m, self.g, self.qinv, self.C, self.alpha
            )
        self._sync()
        self.visit_cost = 1.0
        r = self.rows
        out = epoch_indexed(
            active,
            size,
            max_old,
            min_old,
            r.indptr,
            r.slots,
            r.data,
            r.own,
            self.y,
            self.qinv,
            self.C,
            self.alpha,
            self.w,
        )
        if size < self.n and self.Q is None and size <= self.capacity:
            self._maybe_build(active[:size])
        return out

    def finish(self) -> None:
        """End of the run: bring W′ up to date and free the cache."""
        self._sync()
        self.where[self.members[: self.m]] = -1
        self.Q, self.m = None, 0

    def _sync(self) -> None:
        """Bring W′ up to date with the steps taken on cached rows."""
        if self.fresh:
            r = self.rows
            _flush(self.members, self.m, r.indptr, r.slots, r.data, self.y, self.alpha, self.alpha0, self.w)
            self.fresh = False

    # -- the cache ----------------------------------------------------------------------
    def _maybe_build(self, visited: np.ndarray) -> None:
        """Ski rental: build Q once the shrunk passes have cost as much as building it."""
        r = self.rows
        self.spent += float(self.lengths[visited].sum())
        m = visited.shape[0]
        if not pays_per_pass(m, float(self.lengths[visited].mean())):
            return  # a pass on the cache would cost about as much as one on the rows, or more
        if self.bound_size and self.spent < self.bound * (m / self.bound_size) ** 2:
            return  # not even the last estimate, scaled down to this set as m², is paid yet
        members = np.sort(visited)  # row order: the patterns' postings are then read in order
        df = _slot_counts(members, m, r.indptr, r.slots, r.n_slots)
        self.bound, self.bound_size = build_cost(df), m
        if self.spent < self.bound:
            return
        self.members[:m] = members
        self.where[members] = np.arange(m)
        self.Q = np.empty((self.capacity, self.capacity), dtype=np.float32)
        self.builds += 1
        _gram_rows(0, members, m, r.indptr, r.slots, r.data, r.sq_norms, self.y, df, self.Q)
        self.m = m
        self.fresh = False

    def _cover(self, active: np.ndarray) -> bool:
        """Add the rows of active coordinates the cache lacks; False (cache dropped) when
        they do not fit or the cache has grown to more than twice the active set."""
        new = active[self.where[active] < 0]
        if new.size == 0:
            return True
        m = self.m + new.shape[0]
        if m > self.capacity or m > 2 * active.shape[0] + 64:
            self.finish()
            self.spent, self.bound, self.bound_size = 0.0, 0.0, 0
            self.drops += 1
            return False
        self._sync()
        self.extensions += 1
        self.members[self.m : m] = new
        self.where[new] = np.arange(self.m, m)
        self._extend(m)
        return True

    def _extend(self, m: int) -> None:
        """Fill Q for members ``self.m..m-1``; g is recomputed before the next cached pass."""
        r = self.rows
        df = _slot_counts(self.members, m, r.indptr, r.slots, r.n_slots)
        _gram_rows(self.m, self.members, m, r.indptr, r.slots, r.data, r.sq_norms, self.y, df, self.Q)
        self.m = m
        self.fresh = False
