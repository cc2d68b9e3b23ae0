"""The gappy n-gram kernel with decay λ.

T(x, z) = Σ over i1 < … < in with x[ik] = zk of λ^((in − i1 + 1) − n), so for x = abcd:
T(x, ab) = 1, T(x, ac) = λ, T(x, ad) = λ²; the kernel is K = Ψ(T ∘ T⁻¹).

References
----------
A. Ghose, *Rational kernels: a survey*, §II item 2 (Figs. 3 and 4); H. Lodhi et al.,
"Text classification using string kernels", JMLR 2 (2002).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.signal import lfilter

from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._paths import TooManyPaths, max_code_length
from ratkit.automata.kernels._validation import check_int, check_real
from ratkit.automata.kernels._windows import encode
from ratkit.automata.kernels.base import RationalKernel, Strategy
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.plugins import register

__all__ = ["GappyKernel", "gappy", "gappy_counter", "gappy_pair_transducer"]

# Dense per-sequence DP tables above this many entries fall back to the automata path.
_MAX_DENSE = 20_000_000


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
    lam, arcs, finals = decay, [], {}

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
    finals = {st(n, 0): 1.0, st(n, 1): 1.0}
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

    def _validate(self) -> None:
        check_int(self.n, "n", "gappy", low=1)
        check_real(self.decay, "decay", "gappy", 0.0, 1.0, low_open=True)

    def _build_factor(self, alphabet: Alphabet) -> Transducer:
        self._validate()
        return gappy_counter(self.n, float(self.decay), alphabet)

    def pair_transducer(self, alphabet: Any) -> Transducer:
        """The Fig. 4 transducer S with S(x, y) = λ^{2n} K(x, y) (see :func:`gappy_pair_transducer`)."""
        self._validate()
        return gappy_pair_transducer(self.n, float(self.decay), self._as_alphabet(alphabet))

    def _specialized_features(self, sequences: list[Any], symbols: dict[str, int]):
        """Exact DP: D_k(j) = Σ_{i<j} λ^{j−i−1} R_k(i), R_{k+1}(j) = D_k(j) ⊗ e_{x_j}."""
        self._validate()
        n, lam, base = self.n, float(self.decay), len(symbols) + 1
        if n > max_code_length(len(symbols)):
            raise TooManyPaths(f"gappy {n}-grams over {len(symbols)} symbols have codes beyond int64")
        labels, offsets = encode(sequences, symbols)
        rows, codes, vals = [], [], []
        for i in range(len(sequences)):
            lab = labels[offsets[i] : offsets[i + 1]]
            lab = lab[lab > 0] if n == 1 else lab
            if lab.size < n:
                continue
            # Symbols outside the vocabulary (label 0) are skipped with decay like any other
            # symbol; patterns holding them are dropped below.
            local, inv = np.unique(lab, return_inverse=True)
            v = local.size
            if lab.size * v ** (n - 1) > _MAX_DENSE:
                return None
            onehot = np.zeros((lab.size, v))
            onehot[np.arange(lab.size), inv] = 1.0
            R = onehot  # R_k(j): decayed matches of length k ending exactly at j, shape (L, v^k)
            for step in range(1, n):
                # D(j) = Σ_{i<j} λ^{j-i-1} R(i): filter the sequence shifted by one
                shifted = np.vstack([np.zeros((1, R.shape[1])), R[:-1]])
                D = lfilter([1.0], [1.0, -lam], shifted, axis=0)
                if step < n - 1:
                    R = (D[:, :, None] * onehot[:, None, :]).reshape(lab.size, -1)
            # the last step needs no R_n: total[:, b] = Σ_{j: x_j = b} D(j), summed by symbol
            if n > 1:
                order = np.argsort(inv, kind="stable")
                starts = np.searchsorted(inv[order], np.arange(v))
                total = np.add.reduceat(D[order], starts, axis=0).T.ravel()
            else:
                total = onehot.sum(axis=0)
            nz = np.flatnonzero(total)
            # pattern index → digits in the local alphabet → global code
            digits = np.array(np.unravel_index(nz, (v,) * n)) if n > 1 else nz[None, :]
            glabels = local[digits]
            ok = np.all(glabels > 0, axis=0)
            code = np.zeros(nz.size, dtype=np.int64)
            for d in glabels:
                code = code * base + d
            rows.append(np.full(int(ok.sum()), i, dtype=np.int64))
            codes.append(code[ok])
            vals.append(total[nz][ok])
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(rows), np.concatenate(codes), np.concatenate(vals)


def gappy(n: int = 2, decay: float = 0.5, **options: Any) -> GappyKernel:
    """The gappy n-gram kernel with decay λ (see :class:`GappyKernel`)."""
    k = GappyKernel(n, decay, **options)
    k._validate()
    return k
