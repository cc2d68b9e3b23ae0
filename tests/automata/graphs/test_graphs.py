"""ratkit.automata.graphs: Graph validation, constructors, product graph, walk automaton.

Oracles are independent of the code under test: brute-force double loops for the product
graph, and enumeration of walks and closed forms (pᵀWᵗq, pᵀ(I − λW)⁻¹q) for the automaton.
The TU loader's tests are in tests/datasets/test_graphs.py.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.automata import evaluate, from_arcs, intersect, shortest_distance
from ratkit.automata.graphs import Graph, from_edges, from_networkx, graph_automaton, product_graph
from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError, RatkitError
from tests.seeds import stable_seed

# -- helpers --------------------------------------------------------------------------


def random_graph(
    rng: np.random.Generator,
    n: int,
    density: float = 0.5,
    directed: bool = True,
    node_alphabet: str = "ab",
    edge_alphabet: str = "xy",
) -> Graph:
    """A random loop-free labelled graph with weights in (0.1, 1)."""
    mask = rng.random((n, n)) < density
    np.fill_diagonal(mask, False)
    w = rng.uniform(0.1, 1.0, (n, n)) * mask
    labels = rng.choice(list(edge_alphabet), (n, n))
    if not directed:
        w = np.triu(w, 1)
        w = w + w.T
        labels = np.triu(labels, 1)
        labels = np.where(np.tril(np.ones((n, n), bool), -1), labels.T, labels)
    nodes = list(rng.choice(list(node_alphabet), n))
    return Graph(w, nodes, labels)


def walks(g: Graph, t: int):
    """Every walk v0 … vt with t arcs, by brute force over vertex sequences."""
    a = g.adjacency.toarray()
    for seq in itertools.product(range(g.n_nodes), repeat=t + 1):
        weight = 1.0
        for u, v in itertools.pairwise(seq):
            weight *= a[u, v]
        if weight > 0:
            yield seq, weight


def strings_of_length(symbols: list[str], t: int):
    """The acceptor of Σᵗ (weight 1 per string)."""
    arcs = [(k, s, 1.0, k + 1) for k in range(t) for s in symbols]
    return from_arcs(arcs, start=0, finals={t: 1.0})


def geometric_sigma_star(symbols: list[str], lam: float):
    """The acceptor of Σ* with weight λ^|x|."""
    return from_arcs([(0, s, lam, 0) for s in symbols], start=0, finals={0: 1.0})


# -- Graph construction and validation ----------------------------------------------------


def test_graph_stores_csr_copy_and_properties():
    a = np.array([[0, 2.0, 0], [2.0, 0, 1], [0, 1, 0]])
    g = Graph(a, ["C", "N", "O"], {(0, 1): 1, (1, 0): 1, (1, 2): 2, (2, 1): 2})
    a[0, 1] = 5.0  # the graph copied its input
    assert sp.isspmatrix_csr(g.adjacency) and g.adjacency.dtype == np.float64
    assert g.adjacency[0, 1] == 2.0
    assert (g.n_nodes, g.n_edges, g.is_directed) == (3, 4, False)
    assert g.node_labels == ("C", "N", "O")
    assert g.edge_labels == {(0, 1): 1, (1, 0): 1, (1, 2): 2, (2, 1): 2}
    assert repr(g) == "Graph(3 nodes, 4 edges, undirected, node labels, edge labels)"
    assert Graph(sp.coo_matrix(np.array([[0, 2.0, 0], [2.0, 0, 1], [0, 1, 0]])), ["C", "N", "O"], g.edge_labels) == g


def test_directed_by_weights_or_by_edge_labels():
    assert Graph([[0, 1], [0, 0]]).is_directed
    assert not Graph([[0, 1], [1, 0]]).is_directed
    assert Graph([[0, 1], [1, 0]], edge_labels={(0, 1): "a", (1, 0): "b"}).is_directed
    assert Graph([[0, 1], [2, 0]]).is_directed


def test_edge_labels_as_array_ignore_non_edges():
    labels = np.array([["?", "a"], ["b", "?"]], dtype=object)
    g = Graph([[0, 1], [1, 0]], edge_labels=labels)
    assert g.edge_labels == {(0, 1): "a", (1, 0): "b"}


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"adjacency": np.zeros((2, 3))}, ParameterError, "square"),
        ({"adjacency": np.zeros((0, 0))}, ParameterError, "empty"),
        ({"adjacency": np.zeros(3)}, ParameterError, "2-d"),
        ({"adjacency": [[0, np.nan], [0, 0]]}, ParameterError, "non-finite"),
        ({"adjacency": [[0, np.inf], [0, 0]]}, ParameterError, "non-finite"),
        ({"adjacency": [[0, -1.0], [0, 0]]}, ParameterError, "negative weight -1.0 at edge 0 → 1"),
        ({"adjacency": [[1.0, 0], [0, 0]]}, ParameterError, "self-loop at node 0"),
        ({"adjacency": [[0, 1], [1, 0]], "node_labels": ["a"]}, ParameterError, "1 labels for a graph of 2"),
        (
            {"adjacency": [[0, 1], [0, 0]], "edge_labels": {(0, 1): "a", (1, 0): "b"}},
            ParameterError,
            r"\(1, 0\), which is not an edge",
        ),
        ({"adjacency": [[0, 1], [1, 0]], "edge_labels": {(0, 1): "a"}}, ParameterError, "1 → 0 has no edge label"),
        ({"adjacency": [[0, 1], [1, 0]], "edge_labels": {(0, 5): "a"}}, ParameterError, "outside"),
        ({"adjacency": [[0, 1], [1, 0]], "edge_labels": np.zeros((3, 3))}, ParameterError, "shape"),
        ({"adjacency": [[0, 1], [1, 0]], "node_labels": [[1], [2]]}, ParameterTypeError, "not hashable"),
        ({"adjacency": [["a", "b"], ["c", "d"]]}, ParameterTypeError, "numeric"),
    ],
)
def test_bad_graphs_are_refused_with_named_problem(kwargs, error, match):
    with pytest.raises(error, match=match) as info:
        Graph(**kwargs)
    assert isinstance(info.value, RatkitError) and isinstance(info.value, ValueError)


def test_self_loops_allowed_on_request():
    g = Graph([[0.5, 1], [1, 0]], self_loops="allow")
    assert g.adjacency[0, 0] == 0.5 and g.n_edges == 3
    with pytest.raises(ParameterError, match="self_loops"):
        Graph([[0, 1], [1, 0]], self_loops="maybe")


def test_sparse_input_with_explicit_zeros_and_duplicates():
    m = sp.coo_matrix(([1.0, 1.0, 0.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    g = Graph(m)
    assert g.n_edges == 1 and g.adjacency[0, 1] == 2.0


def test_normalized_scales_out_weights_and_keeps_sinks():
    g = Graph([[0, 1.0, 3.0], [2.0, 0, 0], [0, 0, 0]], node_labels=list("abc"))
    h = g.normalized()
    np.testing.assert_allclose(h.adjacency.toarray(), [[0, 0.25, 0.75], [1.0, 0, 0], [0, 0, 0]])
    assert h.node_labels == ("a", "b", "c")
    assert g.adjacency[0, 2] == 3.0  # the original is unchanged


def test_from_edges_undirected_gives_both_directions():
    g = from_edges(3, [(0, 1), (1, 2)], weights=[2.0, 3.0], node_labels=list("abc"), edge_labels=["s", "d"])
    expected = np.array([[0, 2, 0], [2, 0, 3], [0, 3, 0]], dtype=float)
    np.testing.assert_array_equal(g.adjacency.toarray(), expected)
    assert g.edge_labels == {(0, 1): "s", (1, 0): "s", (1, 2): "d", (2, 1): "d"}
    assert not g.is_directed
    d = from_edges(3, [(0, 1), (1, 2)], directed=True)
    np.testing.assert_array_equal(d.adjacency.toarray(), [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert d.is_directed


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((3, [(0, 3)]), {}, "outside"),
        ((3, [(0, 1), (1, 0)]), {}, "repeats"),
        ((3, [(0, 1)]), {"weights": [1.0, 2.0]}, "one per edge"),
        ((3, [(0, 1)]), {"edge_labels": ["a", "b"]}, "one per edge"),
        ((0, []), {}, "empty"),
        ((2, [(0, 0)]), {}, "self-loop"),
    ],
)
def test_from_edges_bad_input(args, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        from_edges(*args, **kwargs)


def test_from_networkx():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_node("u", label="C")
    G.add_node("v", label="O")
    G.add_node("w", label="C")
    G.add_edge("u", "v", label=1, weight=0.5)
    G.add_edge("v", "w", label=2)
    g = from_networkx(G)
    np.testing.assert_array_equal(g.adjacency.toarray(), [[0, 0.5, 0], [0.5, 0, 1], [0, 1, 0]])
    assert g.node_labels == ("C", "O", "C") and not g.is_directed
    assert g.edge_labels == {(0, 1): 1, (1, 0): 1, (1, 2): 2, (2, 1): 2}
    D = nx.DiGraph([(0, 1), (1, 2)])
    d = from_networkx(D)
    assert d.is_directed and d.node_labels is None and d.edge_labels is None
    np.testing.assert_array_equal(d.adjacency.toarray(), [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    G.nodes["w"].pop("label")
    with pytest.raises(DataFormatError, match="missing on 1"):
        from_networkx(G)
    with pytest.raises(ParameterTypeError):
        from_networkx([[0, 1], [1, 0]])


# -- product graph -------------------------------------------------------------------------


def brute_product(G: Graph, H: Graph, labels: str) -> np.ndarray:
    a, b = G.adjacency.toarray(), H.adjacency.toarray()
    n, m = a.shape[0], b.shape[0]
    out = np.zeros((n * m, n * m))
    for i, j, k, k2 in itertools.product(range(n), range(n), range(m), range(m)):
        if a[i, j] == 0 or b[k, k2] == 0:
            continue
        if labels in ("node", "both") and (
            G.node_labels[i] != H.node_labels[k] or G.node_labels[j] != H.node_labels[k2]
        ):
            continue
        if labels in ("edge", "both") and G.edge_labels[(i, j)] != H.edge_labels[(k, k2)]:
            continue
        out[i * m + k, j * m + k2] = a[i, j] * b[k, k2]
    return out


@pytest.mark.parametrize("labels", ["none", "node", "edge", "both"])
@pytest.mark.parametrize("directed", [True, False])
def test_product_graph_equals_brute_force(labels, directed):
    rng = np.random.default_rng(stable_seed(labels, directed))
    for _ in range(5):
        G = random_graph(rng, int(rng.integers(1, 5)), directed=directed)
        H = random_graph(rng, int(rng.integers(1, 5)), directed=directed)
        P = product_graph(G, H, labels)
        np.testing.assert_array_equal(P.adjacency.toarray(), brute_product(G, H, labels))
        if labels == "none":
            np.testing.assert_array_equal(P.adjacency.toarray(), np.kron(G.adjacency.toarray(), H.adjacency.toarray()))
        if labels in ("node", "both"):
            m = H.n_nodes
            for i, k in itertools.product(range(G.n_nodes), range(m)):
                shared = G.node_labels[i] if G.node_labels[i] == H.node_labels[k] else None
                assert P.node_labels[i * m + k] == shared
        if labels in ("edge", "both"):
            m = H.n_nodes
            for (s, d), lab in P.edge_labels.items():
                assert lab == G.edge_labels[(s // m, d // m)] == H.edge_labels[(s % m, d % m)]


def test_product_graph_bad_labels():
    G = Graph([[0, 1], [1, 0]], node_labels=[1, 2], edge_labels={(0, 1): 1, (1, 0): 1})
    H = Graph([[0, 1], [1, 0]], node_labels=["1", "2"])
    with pytest.raises(ParameterTypeError, match="mismatched types"):
        product_graph(G, H, "node")
    with pytest.raises(ParameterError, match="second graph has none"):
        product_graph(G, H, "edge")
    with pytest.raises(ParameterError, match="labels must be one of"):
        product_graph(G, G, "vertex")
    with pytest.raises(ParameterTypeError):
        product_graph(G, np.eye(2), "none")


# -- graph automaton -----------------------------------------------------------------------


def walk_symbols(g: Graph, seq: tuple[int, ...], labels: str) -> tuple[str, ...]:
    if labels == "edge":
        return tuple(str(g.edge_labels[(u, v)]) for u, v in itertools.pairwise(seq))
    if labels == "node":
        return tuple(str(g.node_labels[v]) for v in seq[1:])
    return ("*",) * (len(seq) - 1)


@pytest.mark.parametrize("labels", ["edge", "node", "none"])
@pytest.mark.parametrize("vectors", ["uniform", "ones", "given"])
def test_graph_automaton_walk_weights_equal_brute_force(labels, vectors):
    rng = np.random.default_rng(7)
    for _ in range(3):
        g = random_graph(rng, int(rng.integers(2, 5)), density=0.6)
        n = g.n_nodes
        if vectors == "given":
            p, q = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
            p[0] = 0.0
            start, stop = p, q
        else:
            p = np.full(n, 1 / n) if vectors == "uniform" else np.ones(n)
            q = p
            start = stop = vectors
        aut = graph_automaton(g, labels, start=start, stop=stop)
        symbols = list(aut.alphabet.symbols)
        W = g.adjacency.toarray()
        for t in range(4):
            brute = sum(p[s[0]] * w * q[s[-1]] for s, w in walks(g, t))
            closed = p @ np.linalg.matrix_power(W, t) @ q
            assert brute == pytest.approx(closed, rel=1e-12, abs=1e-300)
            total = shortest_distance(intersect(aut, strings_of_length(symbols, t))) if symbols or t == 0 else 0.0
            assert total == pytest.approx(brute, rel=1e-10, abs=1e-300)
        # per-string weights: a walk's string gets exactly the weights of the walks reading it
        t = 2
        by_string: dict[tuple[str, ...], float] = {}
        for s, w in walks(g, t):
            key = walk_symbols(g, s, labels)
            by_string[key] = by_string.get(key, 0.0) + p[s[0]] * w * q[s[-1]]
        for key, weight in by_string.items():
            assert evaluate(aut, list(key)) == pytest.approx(weight, rel=1e-10)


def test_graph_automaton_geometric_sum_equals_closed_form():
    rng = np.random.default_rng(3)
    for _ in range(5):
        g = random_graph(rng, int(rng.integers(2, 6)), density=0.7, directed=bool(rng.integers(2)))
        W = g.adjacency.toarray()
        rho = max(abs(np.linalg.eigvals(W)))
        lam = 0.5 / rho if rho > 0 else 0.5
        n = g.n_nodes
        p = np.full(n, 1 / n)
        aut = graph_automaton(g, "edge")
        total = shortest_distance(intersect(aut, geometric_sigma_star(list(aut.alphabet.symbols), lam)))
        closed = p @ np.linalg.solve(np.eye(n) - lam * W, p)
        assert total == pytest.approx(closed, rel=1e-9)


def test_graph_automaton_bad_input():
    g = Graph([[0, 1], [1, 0]])
    with pytest.raises(ParameterError, match="needs edge labels"):
        graph_automaton(g, "edge")
    with pytest.raises(ParameterError, match="needs node labels"):
        graph_automaton(g, "node")
    with pytest.raises(ParameterError, match="labels must be"):
        graph_automaton(g, "vertex")
    with pytest.raises(ParameterError, match=r"start has shape \(3,\)"):
        graph_automaton(g, "none", start=[1, 1, 1])
    with pytest.raises(ParameterError, match="non-negative"):
        graph_automaton(g, "none", stop=[1, -1])
    with pytest.raises(ParameterError, match='"uniform", "ones"'):
        graph_automaton(g, "none", stop="half")
    with pytest.raises(ParameterError, match="reserved for ε"):
        graph_automaton(Graph([[0, 1], [1, 0]], node_labels=["", "a"]), "node")
