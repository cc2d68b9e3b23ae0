"""The random-walk kernel as a rational kernel Ψ(S ∘ T ∘ U) (survey §III-2, Theorem 7).

S = :func:`~ratkit.automata.graphs.graph_automaton` (G) and U = graph_automaton(G′) are
weighted acceptors in which a string of length t carries the total weight of the walks of
length t with that label sequence. T is the identity on Σ* weighted by the walk length,
⟦T⟧(α, α) = μ(|α|), so

    Ψ(S ∘ T ∘ U) = Σ_α S(α) μ(|α|) U(α) = Σ_t μ(t) Σ_s φ_{t,s}(G) φ_{t,s}(G′),

the sum over pairs of walks of equal length and equal labels: the walks of the product
graph, i.e. Σ_t μ(t) p×ᵀ A×ᵗ q×. The composition is pynini's and the sum over the composed
machine's paths is :func:`~ratkit.automata.shortest_distance`: no product graph and no
Kronecker product, the independent route to the value the linear-algebra methods compute.

What an arc reads, by the kernel's ``labels``: ``"none"``, one symbol; ``"edge"``, the edge
label; ``"node"``, the pair (ℓ(v), ℓ(w)) of its end labels; ``"both"``, the triple
(ℓ(v), edge label, ℓ(w)). Two walks of length t ≥ 1 then read the same string exactly when
the product graph's filter (eq. (19)) keeps every step of their pairing, so their first
vertices match too. Walks of length 0 read ε, and with node labels the survey's V× holds
only the matched vertex pairs: the sum is then split by the label ℓ of the first vertex,
Σ_ℓ Ψ(S_ℓ ∘ T ∘ U_ℓ) with S_ℓ, U_ℓ started only at the vertices labelled ℓ, so that pairs of
walks whose first vertices differ in label (of length 0 in particular) are not counted.
Without that split (``match_start=False``, GraKeL's convention) the t = 0 term is p×ᵀ q×
over all n·n′ pairs. (Reading the label of each vertex entered, graph_automaton's
``"node"``, would leave v₀ unmatched.)

μ must be rational for T to exist: geometric (one state with a λ-weighted loop per symbol)
or a finite sequence (a chain). The exponential series λᵗ/t! is not the weight of any
finite automaton (its generating function is not rational), so only its truncations are.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import numpy as np

from ratkit.automata.construct import from_arcs
from ratkit.automata.distance import shortest_distance
from ratkit.automata.graphs import Graph, graph_automaton
from ratkit.automata.graphs.automaton import label_symbol, label_symbols
from ratkit.automata.graphs.product import check_label_kinds
from ratkit.automata.operations import compose
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError

__all__ = ["walk_length_transducer", "rational_walk_value"]


def walk_length_transducer(
    symbols: Iterable[str],
    *,
    decay: float | None = None,
    coefficients: Sequence[float] | np.ndarray | None = None,
) -> Transducer:
    """T on Σ = ``symbols`` with ⟦T⟧(α, α) = μ(|α|) and ⟦T⟧(α, β) = 0 for α ≠ β
    (probability semiring).

    Give ``decay`` λ for the geometric μ(t) = λᵗ (one final state with a loop of weight λ
    per symbol) or ``coefficients`` μ(0) … μ(T) ≥ 0 for a finite sum (a chain of T + 1
    states, state t final with weight μ(t)).
    """
    sigma = list(dict.fromkeys(symbols))
    if (decay is None) == (coefficients is None):
        raise ParameterError("walk_length_transducer needs exactly one of decay (geometric μ) or coefficients.")
    arcs: list[tuple] = []
    if decay is not None:
        arcs += [(0, a, a, float(decay), 0) for a in sigma]
        finals = {0: 1.0}
    else:
        mu = np.asarray(coefficients, dtype=np.float64)
        if np.any(mu < 0):
            t = int(np.flatnonzero(mu < 0)[0])
            raise ParameterError(
                f"μ({t}) = {mu[t]!r} < 0: the rational form of the random-walk kernel needs μ(t) ≥ 0 "
                "(its weights are probabilities); use a linear-algebra method for signed μ."
            )
        arcs += [(k, a, a, 1.0, k + 1) for k in range(mu.size - 1) for a in sigma]
        finals = {t: float(m) for t, m in enumerate(mu) if m > 0}
    return from_arcs(arcs, start=0, finals=finals, semiring=PROBABILITY)


def rational_walk_value(
    G: Graph,
    H: Graph,
    labels: str,
    p: tuple[np.ndarray, np.ndarray],
    q: tuple[np.ndarray, np.ndarray],
    *,
    decay: float | None = None,
    coefficients: Sequence[float] | np.ndarray | None = None,
    match_start: bool = True,
) -> float:
    """Ψ(S ∘ T ∘ U) with S, U the walk automata of G and H (start vectors ``p``, stop
    vectors ``q``, one per graph) and T :func:`walk_length_transducer`: the random-walk
    kernel Σ_t μ(t) (p ⊗ p′)ᵀ A×ᵗ (q ⊗ q′) through composition and a path sum.

    With node labels and ``match_start`` (the survey's V×), the sum runs over the labels ℓ
    the two graphs share, Σ_ℓ Ψ(S_ℓ ∘ T ∘ U_ℓ), S_ℓ and U_ℓ with p zeroed outside the
    vertices labelled ℓ; without it, the walks of length 0 of all vertex pairs count."""
    starts = [p]
    if labels in ("node", "both"):
        g_nodes, h_nodes = G.require_node_labels(f"labels={labels!r}"), H.require_node_labels(f"labels={labels!r}")
        check_label_kinds(g_nodes, h_nodes, "node labels")
        label_symbols([*g_nodes, *h_nodes], "node labels")  # one symbol, one label
        if match_start:
            starts = [(_only(p[0], g_nodes, x), _only(p[1], h_nodes, x)) for x in _shared(g_nodes, h_nodes)]
    if labels in ("edge", "both"):
        g_edges, h_edges = G.require_edge_labels(f"labels={labels!r}"), H.require_edge_labels(f"labels={labels!r}")
        check_label_kinds(g_edges.values(), h_edges.values(), "edge labels")
        label_symbols([*g_edges.values(), *h_edges.values()], "edge labels")
    mode: Literal["edge", "none"] = "none" if labels == "none" else "edge"
    G_steps, H_steps = _step_labelled(G, labels), _step_labelled(H, labels)
    total = 0.0
    for pg, ph in starts:
        if not (pg.any() and ph.any()):
            continue
        S = graph_automaton(G_steps, mode, start=pg, stop=q[0])
        U = graph_automaton(H_steps, mode, start=ph, stop=q[1])
        symbols = [*S.alphabet.symbols, *U.alphabet.symbols]
        T = walk_length_transducer(symbols, decay=decay, coefficients=coefficients)
        total += float(shortest_distance(compose(compose(S, T), U)))
    return total


def _shared(ours: Sequence[Hashable], theirs: Sequence[Hashable]) -> list[Hashable]:
    """The node labels two graphs have in common (each once, in the first graph's order)."""
    other = set(theirs)
    return [x for x in dict.fromkeys(ours) if x in other]


def _only(p: np.ndarray, node_labels: Sequence, label: object) -> np.ndarray:
    """p with the weights of the vertices not labelled ``label`` set to 0."""
    return p * np.array([x == label for x in node_labels], dtype=np.float64)


def _step_labelled(G: Graph, labels: str) -> Graph:
    """G itself for ``"none"``/``"edge"``; for ``"node"``/``"both"``, G with each edge v → w
    labelled by the JSON array of the symbols of (ℓ(v), ℓ(w)) or (ℓ(v), edge label, ℓ(w))."""
    if labels in ("none", "edge"):
        return G
    node = [label_symbol(x, f"node {k}") for k, x in enumerate(G.require_node_labels(f"labels={labels!r}"))]
    src, dst, _ = G.edges()
    el = G.require_edge_labels(f"labels={labels!r}") if labels == "both" else {}
    steps = {}
    for i, j in zip(src.tolist(), dst.tolist(), strict=True):
        middle = [] if labels == "node" else [label_symbol(el[(i, j)], f"edge {i} → {j}")]
        steps[(i, j)] = json.dumps([node[i], *middle, node[j]])
    return Graph(G.adjacency, edge_labels=steps, self_loops="allow")
