"""The :class:`Graph` value type and its constructors from edge lists and networkx graphs."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from ratkit._sparse import float64_csr
from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError
from ratkit.limits import check_bytes

__all__ = ["Graph", "from_edges", "from_networkx"]

SelfLoops = Literal["error", "allow"]


class Graph:
    """A weighted graph with optional node and edge labels (survey §III).

    Parameters
    ----------
    adjacency
        An n × n dense array or scipy sparse matrix; ``adjacency[i, j]`` is the weight
        w_ij > 0 of the edge i → j and 0 means no edge. The survey's Ã is its transpose
        (Ã_ij = w_ji). An undirected graph has a symmetric adjacency.
    node_labels
        A sequence of n hashable labels, or None.
    edge_labels
        A mapping ``{(i, j): label}`` with one entry per edge (each direction of an
        undirected edge is its own entry), or an n × n array whose entries at the edges are
        the labels (entries at non-edges are ignored), or None.
    self_loops
        ``"error"`` (the default) refuses edges i → i, which the survey's graphs exclude;
        ``"allow"`` keeps them (an edge i → i is then a walk step from i to itself, as in
        GraKeL).

    The adjacency is stored as a float64 CSR matrix, copied from the input. Weights must
    be finite and non-negative, and a graph has at least one node. A graph is directed
    when its adjacency is not symmetric or some edge label differs from that of its
    reverse edge. Graphs compare equal when adjacency, node labels and edge labels are
    equal.
    """

    __slots__ = ("_adjacency", "_node_labels", "_edge_labels", "_directed", "_hash")

    def __init__(
        self,
        adjacency: Any,
        node_labels: Sequence[Hashable] | None = None,
        edge_labels: Mapping[tuple[int, int], Hashable] | Any | None = None,
        *,
        self_loops: SelfLoops = "error",
    ) -> None:
        if self_loops not in ("error", "allow"):
            raise ParameterError(f'self_loops must be "error" or "allow"; got {self_loops!r}.')
        a = _as_adjacency(adjacency)
        n = a.shape[0]
        if self_loops == "error":
            loops = np.flatnonzero(a.diagonal())
            if loops.size:
                raise ParameterError(
                    f"The graph has a self-loop at node {int(loops[0])} (edge {int(loops[0])} → {int(loops[0])}); "
                    'the survey\'s graphs have none. Pass self_loops="allow" to keep self-loops.'
                )
        self._adjacency = a
        self._node_labels = _as_node_labels(node_labels, n)
        self._edge_labels = _as_edge_labels(edge_labels, a)
        self._directed = _is_directed(a, self._edge_labels)
        self._hash: int | None = None

    # -- properties ----------------------------------------------------------------
    @property
    def adjacency(self) -> sp.csr_matrix:
        """A copy of the n × n float64 CSR adjacency, ``[i, j]`` = weight of i → j."""
        return self._adjacency.copy()

    @property
    def n_nodes(self) -> int:
        """The number n of vertices."""
        return self._adjacency.shape[0]

    @property
    def n_edges(self) -> int:
        """The number of directed edges (nonzero entries); an undirected edge counts twice."""
        return int(self._adjacency.nnz)

    @property
    def is_directed(self) -> bool:
        """False iff the adjacency is symmetric and every edge has its reverse's label."""
        return self._directed

    @property
    def node_labels(self) -> tuple[Hashable, ...] | None:
        """The n node labels, or None."""
        return self._node_labels

    @property
    def edge_labels(self) -> dict[tuple[int, int], Hashable] | None:
        """A copy of the mapping (i, j) → label of edge i → j, or None."""
        return None if self._edge_labels is None else dict(self._edge_labels)

    def require_node_labels(self, what: str) -> tuple[Hashable, ...]:
        """The n node labels; ParameterError ``"{what} needs node labels, but the graph has
        none."`` when the graph has none.

        >>> Graph(np.zeros((2, 2)), node_labels=["a", "b"]).require_node_labels("labels='node'")
        ('a', 'b')
        """
        if self._node_labels is None:
            raise ParameterError(f"{what} needs node labels, but the graph has none.")
        return self._node_labels

    def require_edge_labels(self, what: str) -> dict[tuple[int, int], Hashable]:
        """A copy of the mapping (i, j) → label of edge i → j; ParameterError ``"{what} needs
        edge labels, but the graph has none."`` when the graph has none."""
        if self._edge_labels is None:
            raise ParameterError(f"{what} needs edge labels, but the graph has none.")
        return dict(self._edge_labels)

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges as arrays ``(sources, targets, weights)`` in row-major order."""
        coo = self._adjacency.tocoo()
        order = np.lexsort((coo.col, coo.row))
        return coo.row[order].astype(np.int64), coo.col[order].astype(np.int64), coo.data[order]

    def normalized(self) -> Graph:
        """The graph with each vertex's out-weights scaled to sum to one: w_ij / Σ_k w_ik.

        This is the transpose of the survey's A = ÃD⁻¹ (column-stochastic there, row-stochastic
        here). A vertex without out-edges keeps a zero row (its walks stop there). Labels are kept.
        """
        out = np.asarray(self._adjacency.sum(axis=1)).ravel()
        scale = np.divide(1.0, out, out=np.zeros_like(out), where=out > 0)
        new = object.__new__(Graph)
        new._adjacency = sp.csr_matrix(sp.diags(scale) @ self._adjacency, dtype=np.float64)
        new._node_labels = self._node_labels
        new._edge_labels = self._edge_labels
        new._directed = _is_directed(new._adjacency, new._edge_labels)
        new._hash = None
        return new

    # -- value semantics -----------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        if self._adjacency.shape != other._adjacency.shape:
            return False
        if (self._adjacency != other._adjacency).nnz:
            return False
        return self._node_labels == other._node_labels and self._edge_labels == other._edge_labels

    def __hash__(self) -> int:
        """A hash of the content, so that equal graphs are one key (δ of the Cartesian pairwise
        kernel, sets, dict keys) whether or not they are the same object — e.g. after a model
        file is read back. Graphs are immutable: the hash is computed once."""
        cached = self._hash
        if cached is None:
            a = self._adjacency
            edges = None if self._edge_labels is None else tuple(self._edge_labels.items())
            cached = self._hash = hash(
                (
                    a.shape[0],
                    a.indptr.astype(np.int64).tobytes(),
                    a.indices.astype(np.int64).tobytes(),
                    a.data.tobytes(),
                    self._node_labels,
                    edges,
                )
            )
        return cached

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        parts = [f"{self.n_nodes} nodes", f"{self.n_edges} edges", kind]
        if self._node_labels is not None:
            parts.append("node labels")
        if self._edge_labels is not None:
            parts.append("edge labels")
        return f"Graph({', '.join(parts)})"


# -- validation helpers ---------------------------------------------------------------


def _as_adjacency(adjacency: Any) -> sp.csr_matrix:
    """A validated float64 CSR copy of ``adjacency`` (square, n ≥ 1, finite, ≥ 0)."""
    if _is_complex(adjacency):  # float64 conversion would drop the imaginary parts, and with them edges
        raise ParameterTypeError(
            "The adjacency must be a real n × n array or sparse matrix; got complex weights. Pass their "
            "real parts or moduli explicitly (np.real(a), np.abs(a))."
        )
    if sp.issparse(adjacency):
        try:
            a = float64_csr(adjacency)
        except (TypeError, ValueError) as exc:  # a sparse matrix of objects, strings or complex numbers
            raise ParameterTypeError(f"The adjacency must be a numeric n × n sparse matrix: {exc}") from None
    else:
        if adjacency is None or isinstance(adjacency, (str, bytes, numbers.Number)):
            raise ParameterTypeError(
                f"The adjacency must be a numeric n × n array or sparse matrix; got {type(adjacency).__name__} "
                f"{adjacency!r:.40}."
            )
        try:
            dense = np.array(adjacency, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ParameterTypeError(f"The adjacency must be a numeric n × n array or sparse matrix: {exc}") from None
        if dense.ndim != 2:
            raise ParameterError(f"The adjacency must be a 2-d n × n matrix; got an array of shape {dense.shape}.")
        a = sp.csr_matrix(dense)
    if a.shape[0] != a.shape[1]:
        raise ParameterError(f"The adjacency must be square (n × n); got shape {a.shape[0]} × {a.shape[1]}.")
    if a.shape[0] == 0:
        raise ParameterError("The graph is empty (0 nodes); a graph needs at least one node.")
    a.sum_duplicates()
    bad = ~np.isfinite(a.data)
    if bad.any():
        i, j = _entry_of(a, int(np.flatnonzero(bad)[0]))
        raise ParameterError(f"The adjacency has a non-finite weight {float(a.data[bad][0])!r} at edge {i} → {j}.")
    neg = a.data < 0
    if neg.any():
        i, j = _entry_of(a, int(np.flatnonzero(neg)[0]))
        raise ParameterError(
            f"The adjacency has a negative weight {float(a.data[neg][0])!r} at edge {i} → {j}; weights must be ≥ 0."
        )
    a.eliminate_zeros()
    a.sort_indices()
    return a


def _is_complex(adjacency: Any) -> bool:
    if sp.issparse(adjacency):
        return adjacency.dtype.kind == "c"
    try:
        return bool(np.iscomplexobj(adjacency))
    except (TypeError, ValueError):  # ragged or odd input: the float conversion reports it
        return False


def _entry_of(a: sp.csr_matrix, k: int) -> tuple[int, int]:
    """The (row, column) of the k-th stored entry of a CSR matrix."""
    row = int(np.searchsorted(a.indptr, k, side="right") - 1)
    return row, int(a.indices[k])


def _as_node_labels(node_labels: Sequence[Hashable] | None, n: int) -> tuple[Hashable, ...] | None:
    if node_labels is None:
        return None
    if isinstance(node_labels, (str, bytes)):
        raise ParameterTypeError("node_labels must be a sequence of n labels, not a single string.")
    labels = tuple(x.item() if isinstance(x, np.generic) else x for x in node_labels)
    if len(labels) != n:
        raise ParameterError(f"node_labels has {len(labels)} labels for a graph of {n} nodes; expected {n}.")
    for k, lab in enumerate(labels):
        try:
            hash(lab)
        except TypeError:
            raise ParameterTypeError(f"Node label {k} is {lab!r}, which is not hashable.") from None
    return labels


def _as_edge_labels(edge_labels: Any, a: sp.csr_matrix) -> dict[tuple[int, int], Hashable] | None:
    """The mapping (i, j) → label, one entry per edge of ``a``, checked."""
    if edge_labels is None:
        return None
    n = a.shape[0]
    rows, cols = a.nonzero()
    if isinstance(edge_labels, Mapping):
        edges = set(zip(rows.tolist(), cols.tolist(), strict=True))
        out: dict[tuple[int, int], Hashable] = {}
        for key, lab in edge_labels.items():
            if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(v, (int, np.integer)) for v in key)):
                raise ParameterTypeError(f"Edge label key {key!r} is not a pair (i, j) of node indices.")
            i, j = int(key[0]), int(key[1])
            if not (0 <= i < n and 0 <= j < n):
                raise ParameterError(f"Edge label key ({i}, {j}) names a node outside 0 … {n - 1}.")
            if (i, j) not in edges:
                raise ParameterError(f"An edge label is given for ({i}, {j}), which is not an edge of the graph.")
            out[(i, j)] = _hashable(lab, (i, j))
        if len(out) != len(rows):
            missing = next((int(i), int(j)) for i, j in zip(rows, cols, strict=True) if (i, j) not in out)
            raise ParameterError(f"Edge {missing[0]} → {missing[1]} has no edge label; every edge needs one.")
        return {k: out[k] for k in sorted(out)}
    try:
        arr = np.asarray(edge_labels, dtype=object)
    except (TypeError, ValueError) as exc:  # pragma: no cover - numpy accepts almost anything as object
        raise ParameterTypeError(f"edge_labels must be a mapping or an n × n array: {exc}") from None
    if arr.shape != (n, n):
        raise ParameterError(f"edge_labels as an array must have shape ({n}, {n}); got {arr.shape}.")
    order = np.lexsort((cols, rows))
    return {
        (int(i), int(j)): _hashable(arr[i, j], (int(i), int(j))) for i, j in zip(rows[order], cols[order], strict=True)
    }


def _hashable(lab: Any, edge: tuple[int, int]) -> Hashable:
    if isinstance(lab, np.generic):
        lab = lab.item()
    if lab is None:
        raise ParameterError(f"Edge {edge[0]} → {edge[1]} has the edge label None; every edge needs a label.")
    try:
        hash(lab)
    except TypeError:
        raise ParameterTypeError(
            f"The label of edge {edge[0]} → {edge[1]} is {lab!r}, which is not hashable."
        ) from None
    return lab


def _is_directed(a: sp.csr_matrix, edge_labels: dict[tuple[int, int], Hashable] | None) -> bool:
    if (a != a.T).nnz:
        return True
    if edge_labels is None:
        return False
    return any(edge_labels[(j, i)] != lab for (i, j), lab in edge_labels.items())


# -- constructors ---------------------------------------------------------------------


def from_edges(
    n: int,
    edges: Iterable[tuple[int, int]],
    weights: Sequence[float] | None = None,
    node_labels: Sequence[Hashable] | None = None,
    edge_labels: Sequence[Hashable] | None = None,
    directed: bool = False,
    *,
    self_loops: SelfLoops = "error",
) -> Graph:
    """A graph on nodes 0 … n − 1 from a list of edges (i, j).

    ``weights`` and ``edge_labels`` are per edge of the list (weight 1 by default). An
    undirected edge {i, j} (``directed=False``) gives both i → j and j → i, with the same
    weight and label. An edge listed twice is an error.
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise ParameterTypeError(
            f"The 'n' parameter of from_edges must be an int (the number of nodes). Got {n!r:.40}."
        )
    if n < 1:
        raise ParameterError(
            f"The 'n' parameter of from_edges must be an int ≥ 1 (the number of nodes; a graph cannot be empty). "
            f"Got {n!r} instead."
        )
    check_bytes(
        48.0 * (n + 1),
        f"A graph of n = {n:,} nodes",
        "Number the nodes 0 … n − 1 of the graph itself, not of a larger id space.",
    )
    if edges is None or isinstance(edges, (str, bytes)) or not isinstance(edges, Iterable):
        raise ParameterTypeError(f"edges must be a list of pairs (i, j) of node indices; got {type(edges).__name__}.")
    pairs = [tuple(e) if isinstance(e, Iterable) and not isinstance(e, (str, bytes)) else e for e in edges]
    for k, e in enumerate(pairs):
        if not isinstance(e, tuple) or len(e) != 2 or not all(isinstance(v, (int, np.integer)) for v in e):
            raise ParameterTypeError(f"Edge {k} is {e!r}; expected a pair (i, j) of node indices.")
        if not (0 <= e[0] < n and 0 <= e[1] < n):
            raise ParameterError(f"Edge {k} {e!r} names a node outside 0 … {n - 1}.")
    m = len(pairs)
    try:
        w = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterTypeError(f"weights must be {m} numbers, one per edge; got {weights!r:.80}.") from None
    if w.shape != (m,):
        raise ParameterError(f"weights has {w.size} entries for {m} edges; expected one per edge.")
    if edge_labels is not None and (
        isinstance(edge_labels, (str, bytes)) or not isinstance(edge_labels, (Sequence, np.ndarray))
    ):
        raise ParameterTypeError(
            f"edge_labels must be a sequence of {m} labels, one per edge; got {type(edge_labels).__name__}."
        )
    if edge_labels is not None and len(edge_labels) != m:
        raise ParameterError(f"edge_labels has {len(edge_labels)} labels for {m} edges; expected one per edge.")
    src, dst, wts, labels = [], [], [], {}
    for k, (i, j) in enumerate(pairs):
        i, j = int(i), int(j)
        directions = [(i, j)] if directed or i == j else [(i, j), (j, i)]
        for d in directions:
            if d in labels:
                raise ParameterError(f"Edge {k} ({i}, {j}) repeats an edge listed before.")
            labels[d] = None if edge_labels is None else edge_labels[k]
            src.append(d[0])
            dst.append(d[1])
            wts.append(w[k])
    a = sp.csr_matrix((np.asarray(wts, dtype=np.float64), (src, dst)), shape=(n, n))
    return Graph(a, node_labels, None if edge_labels is None else labels, self_loops=self_loops)


def from_networkx(
    G: Any, node_label: str = "label", edge_label: str = "label", *, self_loops: SelfLoops = "error"
) -> Graph:
    """A graph from a networkx graph: nodes numbered in ``G.nodes`` order.

    Node labels are the ``node_label`` attribute and edge labels the ``edge_label``
    attribute (None when no node, resp. edge, has it; an error when only some have it).
    Weights are the ``"weight"`` edge attribute (default 1). The graph is directed iff
    ``G.is_directed()``; an undirected edge gives both directions. Needs networkx
    (``pip install ratkit[graphs]``).
    """
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "from_networkx needs networkx, an optional dependency: pip install 'ratkit[graphs]' (or networkx>=3)."
        ) from None
    if not isinstance(G, nx.Graph):
        raise ParameterTypeError(f"from_networkx expects a networkx graph; got {type(G).__name__}.")
    if G.is_multigraph():
        raise ParameterTypeError("from_networkx does not take multigraphs: merge parallel edges first.")
    nodes = list(G.nodes)
    index = {v: k for k, v in enumerate(nodes)}
    node_attr = [G.nodes[v].get(node_label) for v in nodes]
    labels = _all_or_none(node_attr, f"node attribute {node_label!r}")
    edges, weights, elabels = [], [], []
    for u, v, data in G.edges(data=True):
        edges.append((index[u], index[v]))
        weights.append(data.get("weight", 1.0))
        elabels.append(data.get(edge_label))
    return from_edges(
        len(nodes),
        edges,
        weights,
        labels,
        _all_or_none(elabels, f"edge attribute {edge_label!r}"),
        directed=G.is_directed(),
        self_loops=self_loops,
    )


def _all_or_none(values: list[Any], what: str) -> list[Any] | None:
    present = [v is not None for v in values]
    if not any(present):
        return None
    if not all(present):
        raise DataFormatError(f"The {what} is set on some elements but missing on {present.count(False)} others.")
    return values
