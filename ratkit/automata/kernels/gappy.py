"""The gappy n-gram kernel with decay λ.

T(x, z) = Σ over i1 < … < in with x[ik] = zk of λ^((in − i1 + 1) − n), so for x = abcd:
T(x, ab) = 1, T(x, ac) = λ, T(x, ad) = λ²; the kernel is K = Ψ(T ∘ T⁻¹). Features of
strings come from a DP over positions in memory bounded by the number of patterns, not
by |x| (:func:`_pattern_table`); the feature automata Φ_x it falls back to have
O(|x|²·n) arcs, so an oversized fallback is refused before OpenFst is asked for it.

References
----------
A. Ghose, *Rational kernels: a survey*, §II item 2 (Figs. 3 and 4); H. Lodhi et al.,
"Text classification using string kernels", JMLR 2 (2002).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ratkit._jit import njit
from ratkit._validation import check_int, check_real
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._paths import TooManyPaths, max_code_length
from ratkit.automata.kernels._windows import encode
from ratkit.automata.kernels.rational import RationalKernel, Strategy
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.plugins import register

__all__ = ["GappyKernel", "gappy", "gappy_counter", "gappy_pair_transducer"]

# Memory limits. The DP keeps one dense table T of v^n entries per sequence (v its distinct
# symbols; 8 bytes each, ≈ 160 MB at the limit) and two block tables of at most
# _BLOCK_ENTRIES entries; above _MAX_DENSE it falls back to the feature automata Φ_x, which
# are refused beyond ratkit.limits.MAX_PHI_ARCS arcs (by _feature_automaton_arcs).
_MAX_DENSE = 20_000_000
_BLOCK_ENTRIES = 1 << 21


def gappy_counter(n: int, decay: float, alphabet: Alphabet) -> Transducer:
    """T(x, z) of the module docstring (Fig. 3 generalised): free prefix and suffix
    (σ:ε / 1), n copied symbols (σ:σ / 1), each skipped symbol between them σ:ε / λ."""
    arcs = []
    for s in alphabet:
        arcs.append((0, s, "", 1.0, 0))
        arcs.append((n, s, "", 1.0, n))
        arcs += [(q, s, s, 1.0, q + 1) for q in range(n)]
        arcs += [(q, s, "", decay, q) for q in range(1, n)]
    return from_arcs(arcs, 0, {n: 1.0}, PROBABILITY, alphabet)


def gappy_pair_transducer(n: int, decay: float, alphabet: Alphabet) -> Transducer:
    """Fig. 4: one transducer S reading x and y at once, without composition.

    S(x, y) = Σ_{u ∈ Σⁿ} Σ_{i: x[i] = u} Σ_{j: y[j] = u} λ^{l(i)} λ^{l(j)} with l the span
    i_n − i_1 + 1: each matched pair costs λ², each skipped symbol inside a span λ.
    Within every gap the x-skips come before the y-skips, so each pair of index tuples
    has exactly one path. Since l(i) − n is T's exponent, S = λ^{2n} · (T ∘ T⁻¹).
    """
    lam, arcs = decay, []

    # states: ("gap", k, side) for k matched symbols; side 0 = skipping x, 1 = skipping y
    def st(k: int, side: int) -> tuple:
        return ("gap", k, side)

    for k in range(n + 1):
        inner = 0 < k < n
        w = lam if inner else 1.0
        for s in alphabet:
            arcs.append((st(k, 0), s, "", w, st(k, 0)))
            arcs.append((st(k, 0), "", s, w, st(k, 1)))
            arcs.append((st(k, 1), "", s, w, st(k, 1)))
            if k < n:
                arcs.append((st(k, 0), s, s, lam * lam, st(k + 1, 0)))
                arcs.append((st(k, 1), s, s, lam * lam, st(k + 1, 0)))
    finals: dict[Hashable, float] = {st(n, 0): 1.0, st(n, 1): 1.0}
    return from_arcs(arcs, st(0, 0), finals, PROBABILITY, alphabet)


@register("kernel", "gappy")
class GappyKernel(RationalKernel):
    """K(x, y) = Σ_z T(x, z) T(y, z), T the gappy n-gram counter with decay λ (see module).

    Parameters
    ----------
    n
        Pattern length, ≥ 1.
    decay
        λ ∈ (0, 1]: the weight of each skipped symbol inside a pattern's span.
    """

    semiring = PROBABILITY
    _spec_required = ("n", "decay")

    def __init__(
        self,
        n: int = 2,
        decay: float = 0.5,
        *,
        strategy: Strategy = "auto",
        n_jobs: int | None = None,
        show_progress: bool = False,
    ) -> None:
        self.n = n
        self.decay = decay
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    def _validate_params(self) -> None:
        check_int(self.n, "n", "gappy", low=1)
        check_real(self.decay, "decay", "gappy", low=0.0, high=1.0, low_open=True)

    def _build_factor(self, alphabet: Alphabet) -> Transducer:
        self._validate_params()
        return gappy_counter(self.n, float(self.decay), alphabet)

    def pair_transducer(self, alphabet: Any) -> Transducer:
        """The Fig. 4 transducer S with S(x, y) = λ^{2n} K(x, y) (see :func:`gappy_pair_transducer`)."""
        self._validate_params()
        return gappy_pair_transducer(self.n, float(self.decay), self._as_alphabet(alphabet))

    def _feature_automaton_arcs(self, length: int, n_symbols: int) -> int:
        """Arcs of the ε-removed Φ_x = Π2(X ∘ T) of a string of ``length`` symbols: with
        m = |x| − n + 1, m from the start plus (n − 1)·m(m + 1)/2 between inner states
        (each state (p, q) of X ∘ T reaches every later position of its level by ε-arcs)."""
        m = max(int(length) - self.n + 1, 0)
        return m + (self.n - 1) * m * (m + 1) // 2

    def _specialized_features(
        self, sequences: list[Any], symbols: dict[str, int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """COO triplets of T(x, z) = Σ_{i: x[i] = z} λ^((i_n − i_1 + 1) − n) for every n-pattern z.

        By the DP of :func:`_pattern_table`: O(|x|·v^(n−1)) time and O(v^n) memory for the v
        distinct symbols of x, whatever |x|. When some sequence has v^n > ``_MAX_DENSE``,
        None: the base class then builds the feature automata Φ_x instead.

        Raises
        ------
        ResourceLimitError
            When that fallback would build a Φ_x of more than ``MAX_PHI_ARCS`` arcs.
        TooManyPaths
            When pattern codes do not fit in an int64 (the base class then intersects Φ_x's).
        """
        self._validate_params()
        n, lam, base = self.n, float(self.decay), len(symbols) + 1
        labels, offsets = encode(sequences, symbols)
        if n > max_code_length(len(symbols)):
            reason = f"the codes of {n}-patterns over {len(symbols)} symbols do not fit in an int64"
            self._check_feature_automata(sequences, held=False, reason=reason)
            raise TooManyPaths(reason)
        # Symbols outside the vocabulary (label 0) are gaps like any other symbol, but no
        # pattern holds them: the DP runs over the distinct known symbols of each sequence.
        plans = []
        for i in range(len(sequences)):
            lab = labels[offsets[i] : offsets[i + 1]]
            local, inv = np.unique(lab, return_inverse=True)
            sym = inv.astype(np.int64) - int(local.size > 0 and local[0] == 0)  # label 0 → −1
            local = local[local > 0]
            if np.count_nonzero(sym >= 0) < n:
                continue
            if local.size**n > _MAX_DENSE:
                self._check_feature_automata(
                    sequences,
                    held=False,
                    reason=f"the DP needs a dense table of {local.size**n:,} entries for a sequence with "
                    f"{local.size} distinct symbols ({local.size}^{n}; limit of {_MAX_DENSE:,} entries)",
                )
                return None
            plans.append((i, local, sym))
        rows, codes, vals = [], [], []
        # The DP makes many small matrix products (one per symbol and block): BLAS threads cost
        # more than they save there, and on a loaded machine they spin
        # (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)'),
        # so BLAS runs on one thread meanwhile.
        with threadpool_limits(limits=1, user_api="blas"):
            for i, local, sym in plans:
                for c, w in _sequence_features(sym, local, n, lam, base):
                    rows.append(np.full(c.size, i, dtype=np.int64))
                    codes.append(c)
                    vals.append(w)
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(rows), np.concatenate(codes), np.concatenate(vals)


# -- the DP, in blocks of positions ----------------------------------------------------


def _sequence_features(
    sym: np.ndarray, local: np.ndarray, n: int, lam: float, base: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(codes, values) of the nonzero T(x, z) of one sequence, in chunks of at most
    ``_BLOCK_ENTRIES`` patterns; ``local[s]`` is the global label of local symbol s."""
    if n == 1:
        yield local.astype(np.int64), np.bincount(sym[sym >= 0], minlength=local.size).astype(np.float64)
        return
    v = local.size
    T = _pattern_table(sym, v, n, lam)  # T[a, idx(u), b]: pattern u·a·b
    # code(u·a·b) = (code(u)·base + a)·base + b, code(u) for every u ∈ Σ^(n−2) from its digits
    head = np.zeros(v ** (n - 2), dtype=np.int64)
    iu = np.arange(head.size)
    for t in range(n - 2):
        head = head * base + local[(iu // v**t) % v]
    tail = (head[:, None] * base * base + local[None, :]).ravel()
    chunk = max(1, _BLOCK_ENTRIES // tail.size)  # symbols a read at a time: bounded index arrays
    for a in range(0, v, chunk):
        flat = T[a : a + chunk].ravel()
        nz = np.flatnonzero(flat)
        yield tail[nz % tail.size] + local[a + nz // tail.size] * base, flat[nz]


def _pattern_table(sym: np.ndarray, v: int, n: int, lam: float) -> np.ndarray:
    """T[a, idx(u), b] = T(x, u·a·b) for every u ∈ Σ^(n−2) and symbols a, b (n ≥ 2).

    With D_k(i) = Σ over k-tuples i1 < … < ik < i of λ^((i − i1) − k) (indexed by the
    pattern they spell) and G_b(i) = Σ_{j > i, x_j = b} λ^(j − i − 1), every n-tuple is a
    (n − 2)-tuple before its (n − 1)th position i, then x_i = a, then its last position j:

        T(x, u·a·b) = Σ_{i: x_i = a} D_{n−2}(i)[u] · G_b(i),

    for each a one matrix product over the positions holding a. D is carried forward
    (D_k(i + 1) = λ D_k(i) + D_{k−1}(i) ⊗ e_{x_i}, D_0 = 1) and G backward (G(i − 1) =
    λ G(i) + e_{x_i}) through blocks of positions, so besides T (v^n entries) the memory
    is two block tables of at most ``_BLOCK_ENTRIES`` entries. ``sym`` holds symbols
    0..v − 1, and −1 for a gap that no pattern holds; idx(u) = Σ_t u_t v^(t−1).
    """
    depth = n - 2
    width = v**depth
    size = sym.size
    step = max(1, _BLOCK_ENTRIES // max(width, v))
    starts = np.arange(0, size, step, dtype=np.int64)
    ends = np.minimum(starts + step, size)
    g_ends = _suffix_checkpoints(sym, lam, v, ends)
    state = np.zeros(sum(v**k for k in range(1, depth + 1)) or 1)
    T = np.zeros((v, width, v))
    for block, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        part = sym[s:e]
        D = np.empty((e - s, width))
        G = np.empty((e - s, v))
        _prefix_rows(part, lam, v, depth, state, D)
        _suffix_rows(part, lam, g_ends[block], G)
        order = np.argsort(part, kind="stable")
        ordered = part[order]
        cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
        for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), ordered.size]):
            a = int(ordered[lo])
            if a >= 0:
                at = order[lo:hi]
                T[a] += D[at].T @ G[at]
    return T


@njit
def _prefix_rows(sym, lam, v, depth, state, out):  # pragma: no cover - compiled
    """out[i] = D_depth(s + i) for the block's positions, advancing ``state`` (D_1..D_depth
    after the previous block, concatenated) over the block."""
    sizes = np.ones(depth + 1, dtype=np.int64)
    offs = np.zeros(depth + 1, dtype=np.int64)
    total = 0
    for k in range(1, depth + 1):
        sizes[k] = sizes[k - 1] * v
        offs[k] = total
        total += sizes[k]
    for i in range(sym.shape[0]):
        if depth == 0:
            out[i, 0] = 1.0
            continue
        o = offs[depth]
        for t in range(sizes[depth]):
            out[i, t] = state[o + t]
        b = sym[i]
        for k in range(depth, 0, -1):  # downwards: D_{k−1} is still the one before position i
            o = offs[k]
            for t in range(sizes[k]):
                state[o + t] *= lam
            if b >= 0:
                if k == 1:
                    state[b] += 1.0
                else:
                    sub = sizes[k - 1]
                    src = offs[k - 1]
                    dst = o + b * sub  # idx(u·b) = idx(u) + b·v^(k−1)
                    for t in range(sub):
                        state[dst + t] += state[src + t]


@njit
def _suffix_checkpoints(sym, lam, v, ends):  # pragma: no cover - compiled
    """G(e − 1) for every block end e (ascending), by one backward sweep."""
    out = np.zeros((ends.shape[0], v))
    g = np.zeros(v)
    k = ends.shape[0] - 1
    for i in range(sym.shape[0] - 1, -1, -1):
        while k >= 0 and ends[k] - 1 == i:  # g = G(i)
            out[k] = g
            k -= 1
        for t in range(v):
            g[t] *= lam
        if sym[i] >= 0:
            g[sym[i]] += 1.0
    return out


@njit
def _suffix_rows(sym, lam, g_end, out):  # pragma: no cover - compiled
    """out[i] = G(s + i) for the block's positions, from G at its last position."""
    last = sym.shape[0] - 1
    v = g_end.shape[0]
    for t in range(v):
        out[last, t] = g_end[t]
    for i in range(last - 1, -1, -1):
        for t in range(v):
            out[i, t] = lam * out[i + 1, t]
        if sym[i + 1] >= 0:
            out[i, sym[i + 1]] += 1.0


def gappy(n: int = 2, decay: float = 0.5, **options: Any) -> GappyKernel:
    """The gappy n-gram kernel with decay λ (see :class:`GappyKernel`)."""
    k = GappyKernel(n, decay, **options)
    k._validate_params()
    k._validate_options()
    return k
