"""Structural checks on FST arrays: useful states, ε-cycles, convergence of path sums."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (sp.linalg)
from scipy.sparse import csgraph

from ratkit.automata._fstbytes import FstArrays
from ratkit.exceptions import DivergentSumError, NotRegulatedError

__all__ = ["useful_states", "check_regulated", "check_convergent", "cycle_state"]


def _graph(n: int, src: np.ndarray, dst: np.ndarray) -> sp.csr_matrix:
    return sp.csr_matrix((np.ones(src.shape[0], dtype=np.int32), (src, dst)), shape=(n, n))


def useful_states(a: FstArrays) -> np.ndarray:
    """Boolean mask of states that are both accessible (from the start) and co-accessible."""
    n = a.n_states
    mask = np.zeros(n, dtype=bool)
    if n == 0 or a.start < 0:
        return mask
    live = np.isfinite(a.weight)  # an arc of weight 0̄ is no arc
    src, dst = a.src[live], a.dst[live]
    g = _graph(n, src, dst)
    fwd = csgraph.breadth_first_order(g, a.start, directed=True, return_predecessors=False)
    finals = np.flatnonzero(np.isfinite(a.final))
    if finals.size == 0:
        return mask
    # Co-accessible: reachable from a final state in the reversed graph, via a super-source n.
    rev = _graph(n + 1, np.concatenate([dst, np.full(finals.size, n)]), np.concatenate([src, finals]))
    bwd = csgraph.breadth_first_order(rev, n, directed=True, return_predecessors=False)
    acc = np.zeros(n, dtype=bool)
    acc[fwd] = True
    coacc = np.zeros(n + 1, dtype=bool)
    coacc[bwd] = True
    return acc & coacc[:n]


def cycle_state(n: int, src: np.ndarray, dst: np.ndarray) -> int | None:
    """A state lying on a cycle of the graph (src → dst), or None if the graph is acyclic."""
    if src.size == 0:
        return None
    loops = src[src == dst]
    if loops.size:
        return int(loops[0])
    n_comp, comp = csgraph.connected_components(_graph(n, src, dst), directed=True, connection="strong")
    if n_comp == n:
        return None
    sizes = np.bincount(comp, minlength=n_comp)
    return int(np.flatnonzero(sizes[comp] > 1)[0])


def check_regulated(a: FstArrays, context: str = "The transducer") -> None:
    """Raise NotRegulatedError if a useful part of the FST has a cycle labelled ε:ε."""
    eps = (a.ilabel == 0) & (a.olabel == 0) & np.isfinite(a.weight)
    if not eps.any():
        return
    useful = useful_states(a)
    keep = eps & useful[a.src] & useful[a.dst]
    state = cycle_state(a.n_states, a.src[keep], a.dst[keep])
    if state is not None:
        raise NotRegulatedError(
            f"{context} is not regulated: state {state} lies on a cycle whose arcs are all "
            "labelled ε on both tapes, so the sum over its paths is not well defined. "
            "Remove the cycle or give one of its arcs a non-ε label."
        )


def check_convergent(a: FstArrays, semiring_name: str) -> None:
    """Raise DivergentSumError when the sum over the (cyclic) useful paths diverges.

    Probability/log weights: the path sum d = Σ_k M^k f converges iff the spectral radius
    of M (summed arc probabilities among useful states) is < 1; then (I − M) d = f has a
    non-negative solution, and otherwise it has none (Perron–Frobenius), which is what we
    test. Tropical costs: the minimum is −∞ iff a useful cycle has negative total cost.
    """
    useful = useful_states(a)
    keep = useful[a.src] & useful[a.dst] & np.isfinite(a.weight)
    idx = np.flatnonzero(useful)
    if idx.size == 0:
        return
    pos = np.full(a.n_states, -1, dtype=np.int64)
    pos[idx] = np.arange(idx.size)
    src, dst, w = pos[a.src[keep]], pos[a.dst[keep]], a.weight[keep]
    if cycle_state(idx.size, src, dst) is None:
        return
    m = idx.size
    if semiring_name in ("probability", "log"):
        M = sp.csr_matrix((np.exp(-w), (src, dst)), shape=(m, m))
        f = np.exp(-a.final[idx])
        with warnings.catch_warnings():
            # A singular system (spectral radius exactly 1) yields NaNs: divergent.
            warnings.simplefilter("ignore", sp.linalg.MatrixRankWarning)
            d = sp.linalg.spsolve((sp.identity(m, format="csc") - M).tocsc(), f)
        if not np.all(np.isfinite(d)) or np.any(d < -1e-9 * max(1.0, float(np.abs(d).max()))):
            raise DivergentSumError(
                "The sum over the paths of this automaton diverges: it has a cycle whose "
                "total probability is ≥ 1 (spectral radius of its arc weights ≥ 1). Lower "
                "the weights on the cycle so that each cycle has probability < 1."
            )
    elif semiring_name == "tropical" and np.any(w < 0) and _negative_cycle(m, src, dst, w):
        raise DivergentSumError(
            "The tropical shortest distance is -inf: a cycle has negative total cost. "
            "Make the cost of every cycle non-negative."
        )


def _negative_cycle(n: int, src: np.ndarray, dst: np.ndarray, w: np.ndarray) -> bool:
    """Bellman–Ford from a virtual source joined to every state: still relaxing after n rounds."""
    dist = np.zeros(n)
    for _ in range(n):
        cand = dist[src] + w
        new = dist.copy()
        np.minimum.at(new, dst, cand)
        if np.array_equal(new, dist):
            return False
        dist = new
    return True
