"""A graph as a weighted acceptor whose paths are its walks (survey §III-2)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ratkit.automata.construct import from_arcs
from ratkit.automata.graphs._graph import Graph
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError, ParameterTypeError

__all__ = ["graph_automaton", "walk_vector", "NO_LABEL_SYMBOL"]

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


def _symbol(label: Any, where: str) -> str:
    s = str(label)
    if not s or s == "<eps>":
        raise ParameterError(f"The label {label!r} of {where} gives the symbol {s!r}, which is reserved for ε.")
    return s


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
    n → v of weight p[v]; vertex v has final weight q[v]. The arc v → w reads ``str`` of the
    edge label (``"edge"``), of the label of w, the vertex entered (``"node"``: v₀'s label is
    not read), or the one symbol ``"*"`` (``"none"``). ``start``/``stop`` give p and q:
    ``"uniform"`` (1/n), ``"ones"`` or an array of n non-negative weights.
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
        el = G.edge_labels
        symbols = [_symbol(el[(int(i), int(j))], f"edge {i} → {j}") for i, j in zip(src, dst, strict=True)]
    elif labels == "node":
        node_symbols = [_symbol(lab, f"node {k}") for k, lab in enumerate(G.node_labels)]
        symbols = [node_symbols[j] for j in dst]
    else:
        symbols = [NO_LABEL_SYMBOL] * src.size
    arcs: list[tuple] = [(n, "", float(p[v]), v) for v in range(n) if p[v] > 0]
    arcs += [(int(i), s, float(x), int(j)) for i, j, x, s in zip(src, dst, w, symbols, strict=True)]
    finals = {v: float(q[v]) for v in range(n) if q[v] > 0}
    return from_arcs(arcs, start=n, finals=finals, semiring=PROBABILITY)
