"""Structural checks on FST arrays: useful states, cycles, ε-cycles.

Whether a cyclic path sum converges is decided where it is computed, by the same linear
solve (:mod:`ratkit.automata.distance`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ratkit.automata.fst_arrays import FstArrays
from ratkit.exceptions import NotRegulatedError

__all__ = ["useful_states", "check_regulated", "cycle_state"]


def _graph(n: int, src: np.ndarray, dst: np.ndarray) -> sp.csr_matrix:
    return sp.csr_matrix((np.ones(src.shape[0], dtype=np.int32), (src, dst)), shape=(n, n))


def useful_states(a: FstArrays) -> np.ndarray:
    """Boolean mask of states that are both accessible (from the start) and co-accessible."""
    n = a.n_states
    mask = np.zeros(n, dtype=bool)
    if n == 0 or a.start < 0:
        return mask
    # An arc of weight 0̄ (+∞) is no arc; −∞ and NaN (traces of an overflow) are kept, so
    # that the path sums that meet them can report them instead of reading them as 0̄.
    live = a.weight != np.inf
    src, dst = a.src[live], a.dst[live]
    g = _graph(n, src, dst)
    fwd = csgraph.breadth_first_order(g, a.start, directed=True, return_predecessors=False)
    finals = np.flatnonzero(a.final != np.inf)
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
    eps = (a.ilabel == 0) & (a.olabel == 0) & (a.weight != np.inf)
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
