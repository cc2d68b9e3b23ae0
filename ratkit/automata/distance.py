"""The generalized shortest distance and the value of a transducer on a pair of sequences.

The total ⊕_{π ∈ P(I, F)} w[π] ⊗ ρ(n[π]) is computed from the exact (native) weights of
the FST's binary form, in float64, by one of three exact methods:

- acyclic machines (after dropping the states off every accepting path): one forward
  pass in topological order, d[r] ⊕= d[q] ⊗ w(q → r), with ⊕ = log-add-exp on log weights
  and min on tropical costs;
- cyclic probability/log machines: the linear system (I − M) d = f, M the arc
  probabilities and f the final ones, after a diagonal rescaling by the tropical
  distances to the final states (so that no entry over- or underflows), solved by a
  sparse LU, or above 1 000 states by LGMRES with iterative refinement to the residual of
  a backward-stable solve (LU when that fails); the same solve decides convergence;
- cyclic tropical/boolean machines: Dijkstra's algorithm (Johnson's when some cost is
  negative, which also finds negative cycles).

OpenFst's own shortest distance (and ``push``) stops relaxing when a distance changes by
less than its ``delta``: on a slowly converging cycle it stops early (Σ 0.999999ᵏ came out
as 999 998.999) or runs for minutes (Σ 0.99999999ᵏ), and it drops small terms even on
acyclic machines. It is not used here.

Accuracy, measured against closed forms and exact rational arithmetic on the stored
weights (tests/automata/test_distance.py): acyclic totals to ≤ 4e-15 relative (3 000
random machines; a chain of 10 000 steps); cyclic totals to ≲ 10 ε/(1 − ρ) relative, with
ε = 2.2e-16 and ρ the probability of the slowest cycle (the conditioning of I − M): a
single loop stays at ≤ 2e-15 however close p is to 1 (its 1 − p is formed as −expm1 of
the log weight: Σ 0.999999ᵏ to 4e-16), rings, nested loops and dense 4-state machines of
total probability 1 − δ measured 2e-14 … 3e-14 (δ = 1e-2), 4e-13 … 8e-12 (1e-4),
5e-11 … 5e-10 (1e-6), 3e-9 … 2e-7 (1e-8). Tropical totals are float64 sums of the
float32 costs, then checked against the float32 range.

References
----------
A. Ghose, *Rational kernels: a survey*, §II-B eq. (16); M. Mohri, "Semiring frameworks
and algorithms for shortest-distance problems", J. Autom. Lang. Comb. 7 (2002).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, NoReturn

import numpy as np
import pynini
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (sp.linalg)
from scipy.sparse import csgraph

from ratkit._jit import njit
from ratkit.automata._checks import cycle_state, useful_states
from ratkit.automata.alphabet import SequenceLike
from ratkit.automata.construct import _chain, as_transducer
from ratkit.automata.fst_arrays import FstArrays
from ratkit.automata.semirings import TROPICAL_MAX, Semiring
from ratkit.automata.semirings import log_plus as _log_plus
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import DivergentSumError, ParameterTypeError, WeightOverflowError

__all__ = ["shortest_distance", "evaluate", "total_native"]

_DIVERGENT = (
    "The sum over the paths of this automaton diverges: it has a cycle whose total probability is ≥ 1 "
    "(spectral radius of its arc weights ≥ 1). Lower the weights on the cycle so that each cycle has "
    "probability < 1."
)
_NEGATIVE_CYCLE = (
    "The tropical shortest distance is -inf: a cycle has negative total cost. Make the cost of every cycle "
    "non-negative."
)


def total_native(t: Transducer) -> float:
    """⊕_{π ∈ P(I, F)} w[π] ⊗ ρ(n[π]) as a native OpenFst float (−ln of a probability, a cost).

    Exact to float64 round-off: measured ≤ 4e-15 relative on acyclic machines and
    ≲ 10 ε/(1 − ρ) on cyclic ones, ε = 2.2e-16 and ρ the probability of the slowest
    cycle; a single loop ≤ 2e-15 for any p < 1 (see the module docstring for the methods
    and the measurements). +∞ (0̄) when no path is accepting.

    Raises
    ------
    DivergentSumError
        A useful cycle of probability ≥ 1, or of negative tropical cost.
    WeightOverflowError
        The ⊗-product along an accepting path leaves float64 (log weights), or the
        tropical total leaves float32; also an arc or final weight that an earlier
        operation overflowed (−∞ or NaN).
    """
    a = t.arrays()
    sr = t.semiring
    if t.is_acyclic:
        return _acyclic_total(a, np.arange(a.n_states), sr)
    useful = useful_states(a)
    if not useful.any():
        return math.inf  # no accepting path: 0̄ in every encoding
    part, states = _restrict(a, useful)
    if cycle_state(part.n_states, part.src, part.dst) is None:
        return _acyclic_total(part, states, sr)
    _refuse_non_weights(part, states, sr)
    if sr.idempotent:
        return _cyclic_min(part, states, sr)
    return _cyclic_sum(part, states, sr)


def shortest_distance(t: Any) -> Any:
    """The total weight ⊕_{π ∈ P(I, F)} w[π] ⊗ ρ(n[π]) of all accepting paths (eq. (16)).

    Returned in the semiring's natural domain: a probability, a log value, a tropical
    cost, or a bool. 0̄ when no path is accepting. Cyclic machines are summed exactly, by
    solving the linear system of their path sums (probability/log) or by Dijkstra's
    algorithm (tropical/boolean); a divergent sum (a cycle of probability ≥ 1, a negative
    tropical cycle) raises DivergentSumError, an ε-cycle NotRegulatedError, a total outside
    the range of the encoding (a probability above 1.8e308, a tropical cost beyond
    float32) WeightOverflowError.

    The result is exact to float64 round-off: measured ≤ 4e-15 relative on acyclic
    machines and ≲ 10 ε/(1 − ρ) on cyclic ones, ε = 2.2e-16 and ρ the probability of the
    slowest cycle (e.g. 4e-16 for a single loop, Σ 0.999999ᵏ = 999 999.999 97…; 1.5e-12
    for a ring of probability 1 − 1e-4). Tropical totals are float64 sums of the stored
    float32 costs.
    """
    t = as_transducer(t)
    return t.semiring.from_native(total_native(t))


def evaluate(t: Any, x: SequenceLike, y: SequenceLike | None = None) -> Any:
    """⟦T⟧(x, y) for a transducer, or ⟦A⟧(x) for an acceptor when ``y`` is omitted.

    Computed as the shortest distance of X ∘ T ∘ Y, with X and Y the acceptors of x and
    y (survey §II-B). Symbols of x or y outside T's alphabet raise UnknownSymbolError
    (they are outside Σ*, where T is defined).
    """
    t = as_transducer(t, what="transducer")
    if y is None and not t.is_acceptor:
        raise ParameterTypeError(
            "evaluate(T, x) needs an acceptor; this is a transducer, so give the output "
            "sequence too: evaluate(T, x, y)."
        )
    sr, ab = t.semiring, t.alphabet
    xl = ab.labels(x, "input sequence x")
    f = pynini.compose(_chain(xl, xl, sr, ab, sr.one)._fst, pynini.arcsort(t._fst.copy(), sort_type="ilabel"))
    if y is not None:
        yl = ab.labels(y, "output sequence y")
        f = pynini.compose(pynini.arcsort(f, sort_type="olabel"), _chain(yl, yl, sr, ab, sr.one)._fst)
    return sr.from_native(total_native(Transducer(f, sr, ab)))


# -- the useful part -----------------------------------------------------------------


def _restrict(a: FstArrays, useful: np.ndarray) -> tuple[FstArrays, np.ndarray]:
    """The useful states (renumbered 0 … m − 1) and the live arcs among them, with the
    original number of each state."""
    states = np.flatnonzero(useful)
    keep = useful[a.src] & useful[a.dst] & (a.weight != math.inf)
    pos = np.full(a.n_states, -1, dtype=np.int64)
    pos[states] = np.arange(states.size)
    part = FstArrays(
        arc_type=a.arc_type,
        start=int(pos[a.start]),
        final=a.final[states],
        src=pos[a.src[keep]],
        ilabel=a.ilabel[keep],
        olabel=a.olabel[keep],
        weight=a.weight[keep],
        dst=pos[a.dst[keep]],
    )
    return part, states


# -- overflow diagnostics ------------------------------------------------------------


def _weight_text(sr: Semiring, native: float) -> str:
    if sr.real_plus and not sr.log_weights and math.isfinite(native):  # natural values are p = e^{−v}
        return f"probability e^{-native:g} (log weight {native:g})"
    return f"weight {native:g}"


def _range_text(sr: Semiring) -> str:
    return "float32" if sr.arc_type == "standard" else "float64"


def _refuse_non_weights(a: FstArrays, states: np.ndarray, sr: Semiring) -> None:
    """Raise WeightOverflowError for a −∞ or NaN arc or final weight (no OpenFst weight:
    an earlier ⊗ overflowed)."""
    bad = np.flatnonzero(~(a.weight > -math.inf))
    if bad.size:
        k = int(bad[0])
        _overflow_at_arc(sr, int(states[a.src[k]]), int(states[a.dst[k]]), float(a.weight[k]))
    bad = np.flatnonzero(~(a.final > -math.inf))
    if bad.size:
        _overflow_at_final(sr, int(states[bad[0]]), float(a.final[bad[0]]))


def _overflow_at_arc(sr: Semiring, q: int, r: int, native: float) -> NoReturn:
    """Raise WeightOverflowError for the arc q → r (original state numbers) where a path sum left the range."""
    if not native > -math.inf:
        raise WeightOverflowError(
            f"The arc {q} → {r} has weight {native!r}, which is no {sr.name} weight: an earlier operation "
            f"(compose, concat, intersect) overflowed {_range_text(sr)} in a ⊗-product. Rescale the weights "
            "of its operands."
        )
    raise WeightOverflowError(
        f"The {sr.name} shortest distance overflows {_range_text(sr)} at the arc {q} → {r} of "
        f"{_weight_text(sr, native)}: the ⊗-product along a path through it passes the largest "
        f"{_range_text(sr)}. Rescale the weights."
    )


def _overflow_at_final(sr: Semiring, q: int, native: float) -> NoReturn:
    """Raise WeightOverflowError for the final weight of state q where a path sum left the range."""
    if not native > -math.inf:
        raise WeightOverflowError(
            f"The final weight of state {q} is {native!r}, which is no {sr.name} weight: an earlier operation "
            f"overflowed {_range_text(sr)} in a ⊗-product. Rescale the weights of its operands."
        )
    raise WeightOverflowError(
        f"The {sr.name} shortest distance overflows {_range_text(sr)} at the final weight of state {q} "
        f"({_weight_text(sr, native)}): the ⊗-product along a path ending there passes the largest "
        f"{_range_text(sr)}. Rescale the weights."
    )


def _in_range(total: float, sr: Semiring) -> float:
    """``total``, checked against the range of the semiring's arcs (float32 for tropical costs)."""
    if sr.arc_type == "standard" and math.isfinite(total) and abs(total) > TROPICAL_MAX:
        raise WeightOverflowError(
            f"The {sr.name} shortest distance {total:g} lies outside the range of {sr.name} weights (float32, "
            f"|x| ≤ {TROPICAL_MAX:.8g}): the sum of the costs along the best path overflows. Rescale the costs "
            "(e.g. divide them all by a constant)."
        )
    return total


# -- acyclic: one pass in topological order ------------------------------------------


@njit
def _carry(origin, q, r, k, here):
    """Record in origin[r] where an out-of-range partial sum on a path into r began: the
    origin of q if q has one, else arc k if the sum went out of range ``here``."""
    if origin[r] < 0:
        if origin[q] >= 0:
            origin[r] = origin[q]
        elif here:
            origin[r] = k


@njit
def _dag_pass(start, final, src, weight, dst, idempotent):
    """Forward sums d[r] = ⊕ d[q] ⊗ w over the arcs, states taken in Kahn's topological order.

    Returns (total, low, high, complete). ``low`` and ``high`` are −1, or the arc k (≥ 0)
    or final state q (as −2 − q) where a partial sum on an accepting path first became
    −∞/NaN (``low``) or +∞ from finite terms (``high``); ``complete`` is False when the
    arcs have a cycle.
    """
    n = final.shape[0]
    m = src.shape[0]
    first = np.zeros(n + 1, dtype=np.int64)  # CSR of the arcs by source state
    for k in range(m):
        first[src[k] + 1] += 1
    for q in range(n):
        first[q + 1] += first[q]
    order = np.empty(m, dtype=np.int64)
    fill = first[:n].copy()
    indeg = np.zeros(n, dtype=np.int64)
    for k in range(m):
        order[fill[src[k]]] = k
        fill[src[k]] += 1
        indeg[dst[k]] += 1
    queue = np.empty(n, dtype=np.int64)
    tail = 0
    for q in range(n):
        if indeg[q] == 0:
            queue[tail] = q
            tail += 1
    d = np.full(n, np.inf)
    d[start] = 0.0
    low = np.full(n, -1, dtype=np.int64)
    high = np.full(n, -1, dtype=np.int64)
    total, total_low, total_high = np.inf, -1, -1
    head = 0
    while head < tail:
        q = queue[head]
        head += 1
        dq = d[q]
        if final[q] != np.inf:
            c = dq + final[q] if dq != np.inf else np.inf
            if total_low == -1:
                total_low = low[q] if low[q] >= 0 else (-2 - q if not c > -np.inf else -1)
            if total_high == -1:
                total_high = high[q] if high[q] >= 0 else (-2 - q if c == np.inf and dq != np.inf else -1)
            total = min(total, c) if idempotent else _log_plus(total, c)
        for i in range(first[q], first[q + 1]):
            k = order[i]
            r = dst[k]
            if weight[k] != np.inf:
                c = dq + weight[k] if dq != np.inf else np.inf
                _carry(low, q, r, k, not c > -np.inf)
                _carry(high, q, r, k, c == np.inf and dq != np.inf)
                d[r] = min(d[r], c) if idempotent else _log_plus(d[r], c)
            indeg[r] -= 1
            if indeg[r] == 0:
                queue[tail] = r
                tail += 1
    return total, total_low, total_high, head == n


def _acyclic_total(a: FstArrays, states: np.ndarray, sr: Semiring) -> float:
    total, low, high, complete = _dag_pass(a.start, a.final, a.src, a.weight, a.dst, sr.idempotent)
    if not complete:  # pragma: no cover - callers pass acyclic arcs; guard the assumption
        raise RuntimeError("the forward pass met a cycle in a machine taken for acyclic")
    # −∞/NaN always matters; a path whose log weight overflowed to +∞ is negligible unless all are.
    origin = low if low != -1 else high if total == math.inf else -1
    if origin >= 0:
        _overflow_at_arc(sr, int(states[a.src[origin]]), int(states[a.dst[origin]]), float(a.weight[origin]))
    if origin < -1:
        q = -2 - origin
        _overflow_at_final(sr, int(states[q]), float(a.final[q]))
    return _in_range(float(total), sr)


# -- cyclic ---------------------------------------------------------------------------


def _cost_graph(n: int, src: np.ndarray, dst: np.ndarray, cost: np.ndarray) -> sp.csr_matrix:
    """The graph src → dst with, for parallel arcs, the least cost (a sparse matrix would sum them)."""
    key = src * n + dst
    order = np.lexsort((cost, key))
    key, cost = key[order], cost[order]
    first = np.ones(key.size, dtype=bool)
    first[1:] = key[1:] != key[:-1]
    key, cost = key[first], cost[first]
    return sp.csr_matrix((cost, (key // n, key % n)), shape=(n, n))  # explicit zeros are edges in csgraph


def _tropical_distances(g: sp.csr_matrix, source: int, negative: bool, divergent: str) -> np.ndarray:
    """min-plus distances from ``source`` (Bellman–Ford when some cost is ``negative``);
    DivergentSumError with the message ``divergent`` on a negative cycle.

    Not Johnson's algorithm: its Bellman–Ford pass misses a negative cycle of a few ulps (a
    ring of probabilities 0.1 and 10 costs −4.4e-16) and its Dijkstra pass then never ends;
    Bellman–Ford alone stops after its n rounds, and Johnson costs as much for one source."""
    if not negative:
        return csgraph.dijkstra(g, directed=True, indices=source)
    try:
        with np.errstate(invalid="ignore", over="ignore"):  # an overflow to ±inf is diagnosed by the caller
            return csgraph.bellman_ford(g, directed=True, indices=source)
    except csgraph.NegativeCycleError:
        raise DivergentSumError(divergent) from None


def _cyclic_min(a: FstArrays, states: np.ndarray, sr: Semiring) -> float:
    """min over paths of the summed costs: Dijkstra/Johnson to a super-final state m."""
    m = a.n_states
    finals = np.flatnonzero(a.final != math.inf)
    src = np.concatenate([a.src, finals])
    dst = np.concatenate([a.dst, np.full(finals.size, m)])
    cost = np.concatenate([a.weight, a.final[finals]])
    dist = _tropical_distances(_cost_graph(m + 1, src, dst, cost), a.start, bool(np.any(cost < 0)), _NEGATIVE_CYCLE)
    return _in_range(float(dist[-1]), sr)


def _cyclic_sum(a: FstArrays, states: np.ndarray, sr: Semiring) -> float:
    """Solve (I − M) d = f for the path sums d (probability/log), and check convergence.

    d = Σ_k Mᵏ f converges iff the spectral radius of M is < 1, and then (I − M) d = f has
    a non-negative solution; otherwise it has none (Perron–Frobenius). The system is
    rescaled by β, the tropical distances to the final states: with D = diag(e^{−β}),
    d = D d′ and (I − D⁻¹MD) d′ = D⁻¹f, whose entries e^{−(w + β_r − β_q)} are ≤ 1 and
    whose solution is d′ ≥ 1 (each state has a path of reweighted cost 0), so neither
    over- nor underflows. The diagonal 1 − Σ p(loops) is formed as −expm1(ln Σ p): a
    single slow loop p = 1 − δ keeps its δ to full relative precision.
    """
    m = a.n_states
    finals = np.flatnonzero(a.final != math.inf)
    # β: tropical distance of each state to the final states (reversed graph, super-source m)
    g = _cost_graph(
        m + 1,
        np.concatenate([a.dst, np.full(finals.size, m)]),
        np.concatenate([a.src, finals]),
        np.concatenate([a.weight, a.final[finals]]),
    )
    beta = _tropical_distances(g, m, bool(np.any(a.weight < 0) or np.any(a.final < 0)), _DIVERGENT)[:m]
    if not beta[a.start] < math.inf or np.any(~(beta > -math.inf)):  # a ⊗-product left float64
        bad = ~np.isfinite(beta)
        fin = np.flatnonzero(bad & (a.final != math.inf))
        if fin.size:
            _overflow_at_final(sr, int(states[fin[0]]), float(a.final[fin[0]]))
        k = int(np.flatnonzero(bad[a.src] & ~bad[a.dst])[0])
        _overflow_at_arc(sr, int(states[a.src[k]]), int(states[a.dst[k]]), float(a.weight[k]))
    if not np.all(beta < math.inf):  # states whose every path overflowed to +∞: e^{−∞} = 0 exactly
        part, kept = _restrict(a, beta < math.inf)
        return _cyclic_sum(part, states[kept], sr)
    loop = a.src == a.dst
    s, r = a.src[~loop], a.dst[~loop]
    off = np.exp(-(a.weight[~loop] + beta[r] - beta[s]))
    ln_loops = np.full(m, -math.inf)
    np.logaddexp.at(ln_loops, a.src[loop], -a.weight[loop])
    diag = -np.expm1(ln_loops)
    rhs = np.zeros(m)
    rhs[finals] = np.exp(-(a.final[finals] - beta[finals]))
    diagonal = np.arange(m)
    A = sp.csc_matrix(
        (np.concatenate([-off, diag]), (np.concatenate([s, diagonal]), np.concatenate([r, diagonal]))), shape=(m, m)
    )
    d = _solve(A, rhs)
    # Exactly, d′ ≥ 1; a value below ½ (or none) means no non-negative solution.
    if not np.all(np.isfinite(d)) or d.min() < 0.5:
        raise DivergentSumError(_DIVERGENT)
    return float(beta[a.start] - math.log(d[a.start]))


# Above this many states a cyclic system is first given to a Krylov solver: a sparse LU of a
# random (expander-like) machine fills in to O(m²), whereas LGMRES is far faster
# (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)');
# LU stays the exact fallback (e.g. for long rings, where Krylov methods stall and LU is cheap).
_KRYLOV_MIN = 1000
_KRYLOV_ITER = 10  # LGMRES outer iterations per attempt
_REFINE = 2  # steps of iterative refinement of a Krylov solution


def _solve(A: sp.csc_matrix, rhs: np.ndarray) -> np.ndarray:
    """x with A x = rhs: LGMRES with iterative refinement when it reaches round-off, else sparse LU.

    A Krylov solution is accepted only when its residual is at the round-off of a
    backward-stable solve, ‖A x − b‖∞ ≤ 64 ε (‖A‖∞ ‖x‖∞ + ‖b‖∞), the level LU attains.
    """
    if A.shape[0] > _KRYLOV_MIN:
        x = _krylov(A, rhs)
        if x is not None:
            return x
    with warnings.catch_warnings():
        # A singular system (spectral radius exactly 1) yields NaNs: divergent.
        warnings.simplefilter("ignore", sp.linalg.MatrixRankWarning)
        return np.atleast_1d(sp.linalg.spsolve(A, rhs))


def _krylov(A: sp.csc_matrix, rhs: np.ndarray) -> np.ndarray | None:
    norm_a = float(abs(A).sum(axis=1).max())
    x = np.zeros_like(rhs)
    r = rhs
    for step in range(_REFINE + 1):
        e, _ = sp.linalg.lgmres(A, r, rtol=1e-15, atol=0.0, maxiter=_KRYLOV_ITER)
        if not np.all(np.isfinite(e)):
            return None
        x = x + e
        r = rhs - A @ x
        err = float(np.abs(r).max())
        if err <= 64 * np.finfo(float).eps * (norm_a * float(np.abs(x).max()) + float(np.abs(rhs).max())):
            return x
        if step == 0 and err > 1e-8 * float(np.abs(rhs).max()):
            return None  # not converging: leave it to LU
    return None
