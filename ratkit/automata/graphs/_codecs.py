"""How model files hold graphs (see :func:`ratkit.persistence.register_codec`; model-file
version 4 added them).

A :class:`~ratkit.automata.graphs.Graph` is written as its CSR adjacency, its node labels and
its edge labels (one per stored entry of the adjacency, in CSR order) as JSON, and whether it
has self-loops. Labels of the types JSON gives back exactly (str, int, finite float, bool,
None) are kept; anything else is refused by name, before anything is written.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit.automata.graphs._graph import Graph
from ratkit.persistence import DecodeContext, EncodeContext, register_codec

__all__ = ["encode_graph", "decode_graph"]

#: The label types JSON gives back as themselves (a float only when finite).
_LABEL_TYPES = (str, int, float, bool, type(None))
_KEYS = {"adjacency", "node_labels", "edge_labels", "self_loops"}


def _label(value: Any, what: str, ctx: EncodeContext) -> Any:
    """A graph label as JSON, or ModelFormatError when JSON would not give back the same value
    of the same type (a tuple would come back a list, a NaN not at all)."""
    if type(value) in _LABEL_TYPES and not (isinstance(value, float) and not math.isfinite(value)):
        return value
    raise ctx.refuse(
        f"has {what.format(f'{value!r:.60} (a {type(value).__name__})')}, which a model file cannot keep "
        "exactly: graph labels are saved as JSON, which gives back str, int, finite float, bool and None labels "
        "as they were. Map the labels to one of those types (e.g. a str) before fitting, so that the model is "
        "saved with the labels it was trained on."
    )


def encode_graph(g: Graph, ctx: EncodeContext) -> dict[str, Any]:
    """{adjacency (CSR), node_labels, edge_labels (in the CSR order of the adjacency), self_loops}."""
    a = g.adjacency  # float64 CSR with sorted indices and no stored zeros (Graph's invariant)
    node_labels = g.node_labels
    edge_labels = g.edge_labels
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    return {
        "adjacency": ctx.value("adjacency", a),
        "node_labels": None
        if node_labels is None
        else [_label(v, f"the node label {{}} of node {k}", ctx) for k, v in enumerate(node_labels)],
        "edge_labels": None
        if edge_labels is None
        else [
            _label(edge_labels[(i, j)], f"the edge label {{}} of the edge {i} → {j}", ctx)
            for i, j in zip(rows.tolist(), a.indices.tolist(), strict=True)
        ],
        "self_loops": bool(a.diagonal().any()),
    }


def decode_graph(body: Any, ctx: DecodeContext) -> Graph:
    """The Graph :func:`encode_graph` described; a Graph that refuses it (e.g. node labels of the
    wrong length) raises its own ValueError, which the loader reports as a corrupted file."""
    if not isinstance(body, dict) or set(body) != _KEYS:
        raise ctx.refuse("is not an encoded graph")
    a = ctx.value("adjacency", body["adjacency"])
    if not sp.issparse(a):
        raise ctx.refuse("is not an encoded graph: its adjacency is not a sparse matrix")
    a = sp.csr_matrix(a)
    node_labels, edge_labels = body["node_labels"], body["edge_labels"]
    if node_labels is not None and not isinstance(node_labels, list):
        raise ctx.refuse("is not an encoded graph: its node labels are not a list")
    labels = None
    if edge_labels is not None:
        if not isinstance(edge_labels, list) or len(edge_labels) != a.nnz:
            got = len(edge_labels) if isinstance(edge_labels, list) else type(edge_labels).__name__
            raise ctx.refuse(f"has {got} edge labels for {a.nnz} edges: the file is corrupted")
        rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
        labels = dict(zip(zip(rows.tolist(), a.indices.tolist(), strict=True), edge_labels, strict=True))
    return Graph(a, node_labels, labels, self_loops="allow" if body["self_loops"] is True else "error")


register_codec(Graph, "graph", encode_graph, decode_graph, since=4)
