"""What the random-walk kernel prepares once per graph: adjacency, p, q, ρ(A), eigenpairs.

:class:`_Prepared` holds one graph's (normalised) adjacency and its transpose, the start
and stop vectors p and q, its spectral radius ρ(A), for the spectral method the
eigenvalues and coefficients (pᵀu_a)(u_aᵀq) of a symmetric form of A, and with edge labels
one adjacency per label. :func:`_prepared` keeps them in a per-process cache, so that a Gram
matrix computed in blocks does not prepare a graph again for every block.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ratkit.automata.graphs import Graph
from ratkit.automata.graphs.automaton import walk_vector
from ratkit.exceptions import ParameterError, SolverError

if TYPE_CHECKING:
    from ratkit.automata.kernels.random_walk import RandomWalkKernel

#: The largest product size whose spectral radius is computed densely (else by ARPACK).
_DENSE_RADIUS_MAX = 1000


class _Prepared:
    """What every pair needs of one graph: its (normalised) adjacency, p, q, labels, ρ(A),
    and, for the spectral method, its eigenvalues and the coefficients (pᵀu_a)(u_aᵀq)."""

    __slots__ = ("graph", "A", "AT", "p", "q", "undirected", "radius", "eig", "edge_mats")

    def __init__(
        self, graph: Graph, kernel: RandomWalkKernel, index: int, spectral: bool, p: np.ndarray, q: np.ndarray
    ) -> None:
        labels = kernel.labels
        if labels in ("node", "both") and graph.node_labels is None:
            raise ParameterError(f"labels={labels!r} needs node labels, but graph {index} has none.")
        if labels in ("edge", "both") and graph.edge_labels is None:
            raise ParameterError(f"labels={labels!r} needs edge labels, but graph {index} has none.")
        g = graph.normalized() if kernel.adjacency == "normalized" else graph
        self.graph = g
        self.A = g.adjacency
        self.AT = sp.csr_matrix(self.A.T)
        self.p = p
        self.q = q
        self.undirected = (abs(graph.adjacency - graph.adjacency.T) > 0).nnz == 0
        self.radius = _radius(self.A)
        self.eig = _eigen(graph, self, kernel.adjacency) if spectral and self.undirected else None
        #: one adjacency per edge label (with labels "edge" or "both"; else empty)
        self.edge_mats: dict[Any, sp.csr_matrix] = {}
        if labels in ("edge", "both"):
            src, dst, w = g.edges()
            el = graph.require_edge_labels(f"labels={labels!r}")
            lab = [el[(int(i), int(j))] for i, j in zip(src, dst, strict=True)]
            n = g.n_nodes
            groups: dict[Any, list[int]] = {}
            for k, x in enumerate(lab):
                groups.setdefault(x, []).append(k)
            self.edge_mats = {x: sp.csr_matrix((w[ks], (src[ks], dst[ks])), shape=(n, n)) for x, ks in groups.items()}


#: Prepared graphs kept per process, least recently used dropped first: a Gram computed in
#: blocks (``gram(..., out=..., block_bytes=...)``) hands every block the graphs of its
#: columns again, and preparing them (ρ(A), eigenvectors) costs more than most pairs.
_PREPARED_MAX = 4096


_prepared_cache: OrderedDict[tuple[Any, ...], _Prepared] = OrderedDict()


def _prepared(graph: Graph, kernel: RandomWalkKernel, index: int, spectral: bool) -> _Prepared:
    """``_Prepared(graph, …)``, from the per-process cache when this graph (by content) was
    prepared under the same labels, adjacency, spectral choice and the same p and q (by value:
    a callable start or stop is called again, so that one freed callable's reused address, or
    a callable object changed in place, never serves another's p and q)."""
    p = _walk(graph, kernel.start, "start")
    q = _walk(graph, kernel.stop, "stop")
    key = (graph, kernel.labels, kernel.adjacency, p.tobytes(), q.tobytes(), spectral)
    hit = _prepared_cache.get(key)
    if hit is not None:
        _prepared_cache.move_to_end(key)
        return hit
    prepared = _Prepared(graph, kernel, index, spectral, p, q)
    _prepared_cache[key] = prepared
    if len(_prepared_cache) > _PREPARED_MAX:
        _prepared_cache.popitem(last=False)
    return prepared


def _walk(G: Graph, spec: Any, what: str) -> np.ndarray:
    """p or q of G: ``"uniform"``, ``"ones"``, a callable G → n non-negative weights, or one
    array of n weights for graphs of n nodes."""
    if callable(spec):
        return walk_vector(G, spec(G), what)
    if not isinstance(spec, str) and np.shape(spec) != (G.n_nodes,):
        raise ParameterError(
            f"{what} is an array of {np.size(spec)} weights, but a graph has {G.n_nodes} nodes: one array serves only "
            f"graphs of its length. For graphs of several sizes give a callable, e.g. {what}=lambda G: weights_of(G)."
        )
    return walk_vector(G, spec, what)


def _radius(A: sp.csr_matrix) -> float:
    """ρ(A) of a non-negative matrix (its Perron root)."""
    n = A.shape[0]
    if A.nnz == 0:
        return 0.0
    if n <= _DENSE_RADIUS_MAX:
        return _dense_radius(A)
    return _arpack_radius(spla.aslinearoperator(A), n, "the adjacency")


def _arpack_radius(op: spla.LinearOperator, n: int, what: str) -> float:
    try:
        vals = spla.eigs(op, k=1, which="LM", tol=1e-12, maxiter=20 * n, return_eigenvectors=False)
    except spla.ArpackNoConvergence:
        raise SolverError(
            f"ARPACK did not converge on the spectral radius of {what} ({n} × {n}), so whether the "
            "geometric series converges is unknown; use a truncation (steps) or method='direct' on smaller graphs."
        ) from None
    return float(np.max(np.abs(vals)))


def _eigen(graph: Graph, prep: _Prepared, adjacency: str) -> tuple[np.ndarray, np.ndarray]:
    """(eigenvalues w_a, coefficients c_a) of a symmetric form of the adjacency with
    pᵀ Aᵗ q = Σ_a c_a w_aᵗ for every t ≥ 0."""
    a = graph.adjacency.toarray()
    p, q = prep.p, prep.q
    if adjacency == "normalized":  # D⁻¹A = D^-½ S D^½ with S = D^-½ A D^-½ (D_vv = 1 where v has no edge)
        d = a.sum(axis=1)
        d[d == 0] = 1.0
        s = np.sqrt(d)
        a = a / s[:, None] / s[None, :]
        p, q = p / s, q * s
    w, U = np.linalg.eigh((a + a.T) / 2)
    return w, (U.T @ p) * (U.T @ q)


def _dense_radius(M: sp.csr_matrix | np.ndarray) -> float:
    """ρ(M) of a non-negative matrix (sparse or dense), by a dense eigendecomposition."""
    dense = M if isinstance(M, np.ndarray) else M.toarray()
    return float(np.max(np.abs(np.linalg.eigvals(dense)))) if dense.any() else 0.0
