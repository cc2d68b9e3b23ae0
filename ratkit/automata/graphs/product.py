"""The direct (tensor) product graph G × G′ with label matching (survey eq. (18)–(19))."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable
from typing import Literal

import numpy as np
import scipy.sparse as sp

from ratkit.automata.graphs._graph import Graph
from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.limits import check_bytes

__all__ = ["product_graph", "product_adjacency", "matched_pairs", "check_label_kinds", "LABEL_MODES"]

LabelMode = Literal["none", "node", "edge", "both"]
LABEL_MODES = ("none", "node", "edge", "both")
#: Bytes per edge of A× while it is built: two pair indices, source, destination and weight
#: (5 × 8), the COO copy scipy makes (3 × 8) and the CSR result (2 × 8).
_BYTES_PER_EDGE = 80.0


def _kind(label: Hashable) -> str:
    """The comparison class of a label: numbers compare with numbers, strings with strings."""
    if isinstance(label, numbers.Number):
        return "number"
    return type(label).__name__


def check_label_kinds(a: Iterable[Hashable], b: Iterable[Hashable], what: str) -> None:
    """Refuse two label sets that share no kind (e.g. ints against strings): they could never match."""
    ka, kb = {_kind(x) for x in a}, {_kind(x) for x in b}
    if ka and kb and not ka & kb:
        raise ParameterTypeError(
            f"The {what} of the two graphs have mismatched types ({', '.join(sorted(ka))} against "
            f"{', '.join(sorted(kb))}), so no label could ever match; convert them to one type."
        )


def product_graph(G: Graph, H: Graph, labels: LabelMode = "none") -> Graph:
    """The direct product G × H: vertex (i, i′) is numbered i·n′ + i′ and

    W×[(i,i′), (j,j′)] = A_ij A′_i′j′ · [labels match],

    i.e. A ⊗ A′ filtered as in eq. (19): ``"none"`` keeps every pair of edges, ``"node"``
    those whose endpoints have equal node labels (ℓ(i) = ℓ′(i′) and ℓ(j) = ℓ′(j′)),
    ``"edge"`` those with equal edge labels, ``"both"`` both conditions. The product's node
    labels (with ``"node"``/``"both"``) are the shared label, None on unmatched pairs; its edge
    labels (with ``"edge"``/``"both"``) are the shared edge label.

    All n·n′ pairs are numbered, so that the numbering does not depend on the labels; with
    node labels the product's vertex set V× proper is the matched pairs (:func:`matched_pairs`),
    and an unmatched pair is an isolated vertex labelled None, on no walk (not even one of
    length 0: the random-walk kernel restricts p× and q× to V×).
    """
    use_nodes, use_edges = _checked_modes(G, H, labels, "product_graph")
    adjacency, src, dst, a = _product_edges(G, H, use_nodes, use_edges)
    n, m = G.n_nodes, H.n_nodes
    gi, gj, _ = G.edges()
    node_labels = None
    if use_nodes:
        g_nodes, h_nodes = G.require_node_labels("product_graph"), H.require_node_labels("product_graph")
        node_labels = [g_nodes[i] if g_nodes[i] == h_nodes[k] else None for i in range(n) for k in range(m)]
    edge_labels = None
    if use_edges:
        g_edges = G.require_edge_labels("product_graph")
        edge_labels = {(int(s), int(d)): g_edges[(int(gi[x]), int(gj[x]))] for s, d, x in zip(src, dst, a, strict=True)}
    return Graph(adjacency, node_labels, edge_labels, self_loops="allow")


def product_adjacency(G: Graph, H: Graph, labels: LabelMode = "none") -> sp.csr_matrix:
    """The adjacency A× of :func:`product_graph` (G × H) alone, without building its labels."""
    return _product_edges(G, H, *_checked_modes(G, H, labels, "product_adjacency"))[0]


def matched_pairs(G: Graph, H: Graph) -> np.ndarray:
    """The vertex set V× of the node-labelled product G × H as a mask: entry i·n′ + i′ is True
    iff ℓ(i) = ℓ′(i′) (the numbering of :func:`product_graph`). Both graphs need node labels;
    label sets of types that can never match are refused (:func:`check_label_kinds`)."""
    for g, name in ((G, "first"), (H, "second")):
        if g.node_labels is None:
            raise ParameterError(f"matched_pairs needs node labels, but the {name} graph has none.")
    g_nodes, h_nodes = G.require_node_labels("matched_pairs"), H.require_node_labels("matched_pairs")
    check_label_kinds(g_nodes, h_nodes, "node labels")
    codes_g, codes_h = _codes(g_nodes, h_nodes)
    return (codes_g[:, None] == codes_h[None, :]).ravel()


def _checked_modes(G: Graph, H: Graph, labels: str, what: str) -> tuple[bool, bool]:
    """(match node labels, match edge labels) for ``labels``, after checking both graphs have them."""
    if not isinstance(G, Graph) or not isinstance(H, Graph):
        raise ParameterTypeError(f"{what} expects two Graph objects; got {type(G).__name__} and {type(H).__name__}.")
    if labels not in LABEL_MODES:
        raise ParameterError(f"labels must be one of {', '.join(map(repr, LABEL_MODES))}; got {labels!r}.")
    use_nodes, use_edges = labels in ("node", "both"), labels in ("edge", "both")
    for g, name in ((G, "first"), (H, "second")):
        if use_nodes and g.node_labels is None:
            raise ParameterError(f"labels={labels!r} needs node labels, but the {name} graph has none.")
        if use_edges and g.edge_labels is None:
            raise ParameterError(f"labels={labels!r} needs edge labels, but the {name} graph has none.")
    return use_nodes, use_edges


def _product_edges(
    G: Graph, H: Graph, use_nodes: bool, use_edges: bool
) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray, np.ndarray]:
    """(A×, sources, destinations, index into G's edges) of the kept product edges."""
    n, m = G.n_nodes, H.n_nodes
    pairs = G.n_edges * H.n_edges
    labelled = use_nodes or use_edges
    # The edge-pair mask (one byte per pair, three while label masks are combined), then per
    # kept edge its pair indices, source, destination and weight, the COO and CSR copies.
    what = (
        f"The direct product G × H ({n:,} × {m:,} = {n * m:,} nodes, up to nnz(A)·nnz(A′) = "
        f"{G.n_edges:,} × {H.n_edges:,} = {pairs:,} edges)"
    )
    hint = (
        "For a random-walk kernel use a method that never forms W× (method='sylvester', or 'spectral' "
        "for unlabelled undirected graphs); else use smaller graphs."
    )
    check_bytes(
        (3.0 if labelled else 1.0) * pairs + (0.0 if labelled else _BYTES_PER_EDGE * pairs) + 8.0 * (n * m + 1),
        what,
        hint,
    )
    gi, gj, gw = G.edges()
    hi, hj, hw = H.edges()
    keep = np.ones((gi.size, hi.size), dtype=bool)
    if use_nodes:
        g_nodes, h_nodes = G.require_node_labels("the product"), H.require_node_labels("the product")
        check_label_kinds(g_nodes, h_nodes, "node labels")
        codes_g, codes_h = _codes(g_nodes, h_nodes)
        keep &= (codes_g[gi][:, None] == codes_h[hi][None, :]) & (codes_g[gj][:, None] == codes_h[hj][None, :])
    if use_edges:
        ge, he = G.require_edge_labels("the product"), H.require_edge_labels("the product")
        check_label_kinds(ge.values(), he.values(), "edge labels")
        eg, eh = _codes(
            [ge[(int(i), int(j))] for i, j in zip(gi, gj, strict=True)],
            [he[(int(i), int(j))] for i, j in zip(hi, hj, strict=True)],
        )
        keep &= eg[:, None] == eh[None, :]
    if labelled:  # only now is the number of kept edges known
        check_bytes(_BYTES_PER_EDGE * float(np.count_nonzero(keep)) + 8.0 * (n * m + 1) + keep.nbytes, what, hint)
    a, b = np.nonzero(keep)
    src = gi[a] * m + hi[b]
    dst = gj[a] * m + hj[b]
    w = gw[a] * hw[b]
    adjacency = sp.csr_matrix((w, (src, dst)), shape=(n * m, n * m))
    return adjacency, src, dst, a


def _codes(a: Iterable[Hashable], b: Iterable[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of two label lists in one shared numbering (equal labels, equal codes)."""
    table: dict[Hashable, int] = {}
    ca = np.array([table.setdefault(x, len(table)) for x in a], dtype=np.int64)
    cb = np.array([table.setdefault(x, len(table)) for x in b], dtype=np.int64)
    return ca, cb
