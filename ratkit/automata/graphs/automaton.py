"""A graph as a weighted acceptor whose paths are its walks (survey §III-2)."""

from __future__ import annotations

import numbers
from typing import Any, Literal

import numpy as np

from ratkit.automata.construct import from_arcs
from ratkit.automata.graphs._graph import Graph
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError, ParameterTypeError

__all__ = ["graph_automaton", "walk_vector", "label_symbol", "label_symbols", "NO_LABEL_SYMBOL"]

NO_LABEL_SYMBOL = "*"  # the one symbol every arc reads with labels="none"


def walk_vector(G: Graph, spec: Any, what: str) -> np.ndarray:
    """A start or stop vector of G: ``"uniform"`` (1/n), ``"ones"``, or n non-negative weights."""
    n = G.n_nodes
    if isinstance(spec, str):
        if spec == "uniform":
            return np.full(n, 1.0 / n)
        if spec == "ones":
            return np.ones(n)
        raise ParameterError(f'{what} must be "uniform", "ones" or an array of {n} weights; got {spec!r}.')
    if spec is None or isinstance(spec, (bytes, numbers.Number)):
        raise ParameterTypeError(
            f'{what} must be "uniform", "ones" or an array of {n} weights; got {type(spec).__name__} {spec!r:.40}.'
        )
    try:
        v = np.array(spec, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterTypeError(
            f'{what} must be "uniform", "ones" or an array of {n} weights; got {spec!r}.'
        ) from None
    if v.shape != (n,):
        raise ParameterError(f"{what} has shape {v.shape} for a graph of {n} nodes; expected ({n},).")
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ParameterError(f"{what} must hold finite non-negative weights; got {v!r}.")
    return v


def label_symbol(label: Any, where: str) -> str:
    """The symbol of a label: numbers by value (1, 1.0 and True all give ``"1"``, as they
    compare equal), any other label by ``str``."""
    if isinstance(label, numbers.Integral):
        s = str(int(label))
    elif isinstance(label, numbers.Real):
        x = float(label)
        s = str(int(x)) if x.is_integer() else repr(x)
    else:
        s = str(label)
    if not s or s == "<eps>":
        raise ParameterError(f"The label {label!r} of {where} gives the symbol {s!r}, which is reserved for ε.")
    return s


def label_symbols(labels: Any, where: str) -> dict[Any, str]:
    """label → symbol for a collection of labels, refusing two unequal labels with one symbol."""
    out: dict[Any, str] = {}
    seen: dict[str, Any] = {}
    for lab in labels:
        if lab in out:
            continue
        s = out[lab] = label_symbol(lab, where)
        if s in seen:
            raise ParameterError(
                f"The {where} {seen[s]!r} and {lab!r} are different labels but both read as the symbol {s!r}; "
                "relabel one of them."
            )
        seen[s] = lab
    return out


def graph_automaton(
    G: Graph,
    labels: Literal["edge", "node", "none"] = "edge",
    start: Any = "uniform",
    stop: Any = "uniform",
) -> Transducer:
    """The weighted acceptor (probability semiring) of the walks of G.

    A walk v₀ → v₁ → … → v_t is one accepting path, of weight p[v₀] · Π_k W[v_k, v_{k+1}] · q[v_t],
    so the total weight of the paths reading t symbols is pᵀ Wᵗ q (= qᵀ Ãᵗ p in the survey's
    notation). The states are the vertices 0 … n − 1 plus an initial state n, with an ε-arc
    n → v of weight p[v]; vertex v has final weight q[v]. The arc v → w reads the symbol of
    the edge label (``"edge"``), of the label of w, the vertex entered (``"node"``: v₀'s label
    is not read), or the one symbol ``"*"`` (``"none"``). Labels become symbols by
    :func:`label_symbol` (numbers by value, else ``str``); two unequal labels of G with one
    symbol are refused. ``start``/``stop`` give p and q: ``"uniform"`` (1/n), ``"ones"`` or an
    array of n non-negative weights.

    With node labels, the product graph's walks match at v₀ too (eq. (19)); the rational
    form of that kernel reads each edge as the pair of its end labels, see
    :func:`ratkit.automata.kernels.random_walk` with ``method="rational"``.
    """
    if not isinstance(G, Graph):
        raise ParameterTypeError(f"graph_automaton expects a Graph; got {type(G).__name__}.")
    if labels not in ("edge", "node", "none"):
        raise ParameterError(f'labels must be "edge", "node" or "none"; got {labels!r}.')
    if labels == "edge" and G.edge_labels is None:
        raise ParameterError('labels="edge" needs edge labels, but the graph has none.')
    if labels == "node" and G.node_labels is None:
        raise ParameterError('labels="node" needs node labels, but the graph has none.')
    p = walk_vector(G, start, "start")
    q = walk_vector(G, stop, "stop")
    n = G.n_nodes
    src, dst, w = G.edges()
    if labels == "edge":
        edge_labels = G.require_edge_labels('labels="edge"')
        edge_of = label_symbols(edge_labels.values(), "edge labels")
        symbols = [edge_of[edge_labels[(int(i), int(j))]] for i, j in zip(src, dst, strict=True)]
    elif labels == "node":
        node_labels = G.require_node_labels('labels="node"')
        node_of = label_symbols(node_labels, "node labels")
        symbols = [node_of[node_labels[j]] for j in dst]
    else:
        symbols = [NO_LABEL_SYMBOL] * src.size
    arcs: list[tuple] = [(n, "", float(p[v]), v) for v in range(n) if p[v] > 0]
    arcs += [(int(i), s, float(x), int(j)) for i, j, x, s in zip(src, dst, w, symbols, strict=True)]
    finals = {v: float(q[v]) for v in range(n) if q[v] > 0}
    return from_arcs(arcs, start=n, finals=finals, semiring=PROBABILITY)
