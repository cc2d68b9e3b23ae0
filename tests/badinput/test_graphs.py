"""Bad inputs of ratkit.automata.graphs (issue 21): Graph, from_edges, load_tu, the product graph.

Each case asserts the ratkit exception class (which also derives from the matching builtin)
and the words of its message that name the bad thing. The size refusals are checked against
an independent oracle where the product is small enough to build: ``np.kron`` of the
adjacencies.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import ratkit.limits
from ratkit.automata.graphs import Graph, from_edges, graph_automaton, product_graph
from ratkit.automata.graphs.product import product_adjacency
from ratkit.automata.kernels import random_walk
from ratkit.datasets import load_tu
from ratkit.exceptions import (
    DataFormatError,
    MissingDataError,
    NotAFolderError,
    ParameterError,
    ParameterTypeError,
    RatkitError,
    ResourceLimitError,
)

# -- Graph(adjacency, ...) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((None,), {}, ParameterTypeError, "adjacency.*NoneType"),
        ((5,), {}, ParameterTypeError, "adjacency.*int 5"),
        ((2.5,), {}, ParameterTypeError, "adjacency.*float"),
        (("ab",), {}, ParameterTypeError, "adjacency.*str"),
        ((b"ab",), {}, ParameterTypeError, "adjacency.*bytes"),
        (([["a", "b"], ["c", "d"]],), {}, ParameterTypeError, "adjacency must be a numeric"),
        ((np.array([[0, 1j], [1j, 0]]),), {}, ParameterTypeError, "adjacency must be a real.*complex"),
        ((sp.csr_matrix(np.array([[0, 1j], [1j, 0]])),), {}, ParameterTypeError, "adjacency must be a real.*complex"),
        (([],), {}, ParameterError, r"2-d.*shape \(0,\)"),
        ((np.zeros((0, 0)),), {}, ParameterError, "empty"),
        (([0, 1],), {}, ParameterError, r"2-d.*shape \(2,\)"),
        ((np.zeros((2, 2, 2)),), {}, ParameterError, r"2-d.*shape \(2, 2, 2\)"),
        ((np.zeros((2, 3)),), {}, ParameterError, "square.*2 × 3"),
        ((np.zeros((3, 2)),), {}, ParameterError, "square.*3 × 2"),
        (([[0, np.nan], [1, 0]],), {}, ParameterError, "non-finite weight nan at edge 0 → 1"),
        (([[0, np.inf], [1, 0]],), {}, ParameterError, "non-finite weight inf at edge 0 → 1"),
        (([[0, 1], [-np.inf, 0]],), {}, ParameterError, "non-finite weight -inf at edge 1 → 0"),
        (([[0, -1], [1, 0]],), {}, ParameterError, "negative weight -1.0 at edge 0 → 1"),
        (([[1, 0], [0, 0]],), {}, ParameterError, "self-loop at node 0"),
        (([[0, 1], [1, 0]],), {"self_loops": "maybe"}, ParameterError, "self_loops.*'maybe'"),
        (([[0, 1], [1, 0]],), {"node_labels": ["a"]}, ParameterError, "node_labels has 1 labels.*2 nodes"),
        (([[0, 1], [1, 0]],), {"node_labels": "ab"}, ParameterTypeError, "node_labels.*single string"),
        (([[0, 1], [1, 0]],), {"node_labels": [[1], [2]]}, ParameterTypeError, "Node label 0.*not hashable"),
        (([[0, 1], [1, 0]],), {"edge_labels": {(0, 1): "x"}}, ParameterError, "Edge 1 → 0 has no edge label"),
        (([[0, 1], [1, 0]],), {"edge_labels": {(0, 5): "x"}}, ParameterError, r"\(0, 5\) names a node outside"),
        (([[0, 1], [1, 0]],), {"edge_labels": {"ab": "x"}}, ParameterTypeError, "key 'ab' is not a pair"),
        (([[0, 1], [1, 0]],), {"edge_labels": np.zeros((3, 3))}, ParameterError, r"shape \(2, 2\); got \(3, 3\)"),
    ],
)
def test_graph_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Graph(*args, **kwargs)


def test_graph_wrong_types_are_type_errors_and_value_errors():
    """ParameterTypeError is both: ``except TypeError`` and ``except ValueError`` catch it."""
    with pytest.raises(TypeError):
        Graph(None)
    with pytest.raises(ValueError):
        Graph(None)


# -- from_edges ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((-1, []), {}, ParameterError, "'n' parameter of from_edges.*≥ 1.*Got -1"),
        ((0, []), {}, ParameterError, "'n' parameter of from_edges.*empty.*Got 0"),
        ((2.5, []), {}, ParameterTypeError, "'n' parameter of from_edges must be an int.*2.5"),
        ((None, []), {}, ParameterTypeError, "'n' parameter of from_edges must be an int.*None"),
        ((True, []), {}, ParameterTypeError, "'n' parameter of from_edges must be an int.*True"),
        (("3", []), {}, ParameterTypeError, "'n' parameter of from_edges must be an int.*'3'"),
        ((3, None), {}, ParameterTypeError, "edges must be a list of pairs.*NoneType"),
        ((3, 5), {}, ParameterTypeError, "edges must be a list of pairs.*int"),
        ((3, "01"), {}, ParameterTypeError, "edges must be a list of pairs.*str"),
        ((3, [5]), {}, ParameterTypeError, "Edge 0 is 5; expected a pair"),
        ((3, ["01"]), {}, ParameterTypeError, "Edge 0 is '01'; expected a pair"),
        ((3, [(0, 1, 2)]), {}, ParameterTypeError, r"Edge 0 is \(0, 1, 2\); expected a pair"),
        ((3, [(0, 1.5)]), {}, ParameterTypeError, r"Edge 0 is \(0, 1.5\)"),
        ((3, [(0, None)]), {}, ParameterTypeError, r"Edge 0 is \(0, None\)"),
        ((3, [(0, 3)]), {}, ParameterError, r"Edge 0 \(0, 3\) names a node outside 0 … 2"),
        ((3, [(-1, 0)]), {}, ParameterError, r"Edge 0 \(-1, 0\) names a node outside"),
        ((3, [(0, 1), (1, 0)]), {}, ParameterError, r"Edge 1 \(1, 0\) repeats"),
        ((3, [(0, 1)]), {"weights": [1.0, 2.0]}, ParameterError, "weights has 2 entries for 1 edges"),
        ((3, [(0, 1)]), {"weights": []}, ParameterError, "weights has 0 entries for 1 edges"),
        ((3, [(0, 1)]), {"weights": [[1.0]]}, ParameterError, "weights has 1 entries for 1 edges"),
        ((3, [(0, 1)]), {"weights": ["heavy"]}, ParameterTypeError, "weights must be 1 numbers"),
        ((3, [(0, 1)]), {"weights": [np.nan]}, ParameterError, "non-finite weight nan at edge 0 → 1"),
        ((3, [(0, 1)]), {"weights": [np.inf]}, ParameterError, "non-finite weight inf"),
        ((3, [(0, 1)]), {"weights": [-np.inf]}, ParameterError, "non-finite weight -inf"),
        ((3, [(0, 1)]), {"weights": [-2.0]}, ParameterError, "negative weight -2.0"),
        ((3, [(0, 1)]), {"edge_labels": ["a", "b"]}, ParameterError, "edge_labels has 2 labels for 1 edges"),
        ((3, [(0, 1)]), {"edge_labels": 5}, ParameterTypeError, "edge_labels must be a sequence of 1 labels.*int"),
        ((3, [(0, 1)]), {"edge_labels": "a"}, ParameterTypeError, "edge_labels must be a sequence.*str"),
        ((3, [(0, 1)]), {"edge_labels": [None]}, ParameterError, "edge label None"),
        ((2, [(0, 0)]), {}, ParameterError, "self-loop at node 0"),
        ((2, [(0, 1)]), {"node_labels": ["a"]}, ParameterError, "node_labels has 1 labels for a graph of 2"),
    ],
)
def test_from_edges_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        from_edges(*args, **kwargs)


def test_from_edges_accepts_numpy_edges_and_labels():
    """The type checks keep what worked: numpy integer pairs, a numpy array of labels."""
    g = from_edges(np.int64(3), np.array([[0, 1], [1, 2]]), edge_labels=np.array(["x", "y"]))
    assert g.n_edges == 4 and g.edge_labels[(2, 1)] == "y"


def test_from_edges_refuses_a_huge_node_count_before_allocating():
    t0 = time.perf_counter()
    with ratkit.limits.limits(max_bytes=2**30), pytest.raises(ResourceLimitError, match="n = 1,000,000,000,000 nodes"):
        from_edges(10**12, [(0, 1)])
    assert time.perf_counter() - t0 < 2.0


# -- product graph: refused from an estimate, before allocating -----------------------------


def _ring(n: int, labels=None) -> Graph:
    return from_edges(n, [(i, (i + 1) % n) for i in range(n)], node_labels=labels)


def test_the_product_of_two_6000_node_graphs_is_refused_quickly():
    """The probe's case: nnz(A)·nnz(A′) ≈ 5.8·10⁸ product edges (tens of GiB) were allocated
    until MemoryError; now refused from nnz(A)·nnz(A′) before any array is made."""
    n = 6000
    edges = {tuple(sorted((i, (i * 7 + 1) % n))) for i in range(n) if (i * 7 + 1) % n != i}
    big = from_edges(n, sorted(edges | {tuple(sorted((i, (i + 1) % n))) for i in range(n)}))
    t0 = time.perf_counter()
    with ratkit.limits.limits(max_bytes=4 * 2**30):
        with pytest.raises(ResourceLimitError, match=r"direct product G × H .*36,000,000 nodes.*limit"):
            product_graph(big, big)
        with pytest.raises(ResourceLimitError, match="nnz.*method='sylvester'"):
            product_adjacency(big, big)
    assert time.perf_counter() - t0 < 2.0


def test_the_direct_random_walk_is_refused_by_the_limit():
    g = _ring(200)
    with ratkit.limits.limits(max_bytes=2**20):
        with pytest.raises(ResourceLimitError, match="direct product G × H"):
            random_walk(0.01, method="direct")(g, g)
        assert np.isfinite(random_walk(0.01, method="sylvester")(g, g))  # the method the message advises


def test_a_product_within_the_limit_is_the_kronecker_product():
    """The check does not refuse what fits: A× = A ⊗ A′ (numpy's kron, an independent oracle)."""
    g, h = _ring(5), from_edges(3, [(0, 1), (1, 2)], weights=[2.0, 3.0], directed=True)
    with ratkit.limits.limits(max_bytes=2**20):
        got = product_graph(g, h).adjacency.toarray()
    np.testing.assert_array_equal(got, np.kron(g.adjacency.toarray(), h.adjacency.toarray()))


def test_a_labelled_product_is_judged_by_the_edges_it_keeps():
    """With labels, the mask of edge pairs is checked first, then the edges kept: the same
    pair of rings is refused when every label matches and built when none does."""
    n = 200
    same, other = _ring(n, ["a"] * n), _ring(n, ["b"] * n)
    with ratkit.limits.limits(max_bytes=2**20):
        with pytest.raises(ResourceLimitError, match="direct product"):
            product_graph(same, same, labels="node")
        assert product_graph(same, other, labels="node").n_edges == 0
    with ratkit.limits.limits(max_bytes=2**16), pytest.raises(ResourceLimitError, match="direct product"):
        product_graph(same, other, labels="node")  # even the mask is too big now


# -- graph_automaton ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"start": None}, ParameterTypeError, 'start must be "uniform", "ones" or an array of 2 weights; got NoneType'),
        ({"start": 5}, ParameterTypeError, "start must be .* got int 5"),
        ({"stop": True}, ParameterTypeError, "stop must be .* got bool True"),
        ({"start": ["a", "b"]}, ParameterTypeError, "start must be .*'a', 'b'"),
        ({"start": "flat"}, ParameterError, "start must be .*got 'flat'"),
        ({"start": [1.0]}, ParameterError, r"start has shape \(1,\) for a graph of 2 nodes"),
        ({"start": [[1.0, 1.0]]}, ParameterError, r"start has shape \(1, 2\)"),
        ({"start": [np.nan, 1.0]}, ParameterError, "start must hold finite non-negative weights"),
        ({"stop": [np.inf, 1.0]}, ParameterError, "stop must hold finite non-negative weights"),
        ({"stop": [-np.inf, 1.0]}, ParameterError, "stop must hold finite non-negative weights"),
        ({"start": [-1.0, 1.0]}, ParameterError, "start must hold finite non-negative weights"),
    ],
)
def test_graph_automaton_bad_walk_vectors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        graph_automaton(Graph(np.array([[0, 1], [1, 0]])), labels="none", **kwargs)


@pytest.mark.parametrize(
    ("graph", "kwargs", "exc", "match"),
    [
        ("x", {}, ParameterTypeError, "graph_automaton expects a Graph; got str"),
        (None, {}, ParameterTypeError, "graph_automaton expects a Graph; got NoneType"),
        (Graph(np.array([[0, 1], [1, 0]])), {"labels": "colour"}, ParameterError, "labels must be .*'colour'"),
        (Graph(np.array([[0, 1], [1, 0]])), {"labels": "node"}, ParameterError, "needs node labels"),
        (Graph(np.array([[0, 1], [1, 0]])), {"labels": "edge"}, ParameterError, "needs edge labels"),
        (Graph(np.array([[0, 1], [1, 0]]), ["<eps>", "b"]), {"labels": "node"}, ParameterError, "reserved for ε"),
        (Graph(np.array([[0, 1], [1, 0]]), [1, "1"]), {"labels": "node"}, ParameterError, "both read as the symbol"),
    ],
)
def test_graph_automaton_bad_input(graph, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        graph_automaton(graph, **kwargs)


# -- load_tu ------------------------------------------------------------------------------

_GOOD = {"A": b"1, 2\n2, 1\n2, 3\n3, 2\n", "graph_indicator": b"1\n1\n1\n", "graph_labels": b"1\n"}


def _tu(folder: Path, **parts: bytes) -> Path:
    folder.mkdir()
    for part, data in {**_GOOD, **parts}.items():
        (folder / f"T_{part}.txt").write_bytes(data)
    return folder


@pytest.mark.parametrize(
    ("parts", "exc", "match"),
    [
        ({"A": b"1, 2\n\xff\xfe, 1\n"}, DataFormatError, r"T_A.txt, line 2: byte 0xff is not UTF-8"),
        ({"graph_labels": b"\x80\n"}, DataFormatError, r"T_graph_labels.txt, line 1: byte 0x80 is not UTF-8"),
        ({"A": b"1, 2\n2, 1\n2"}, DataFormatError, r"T_A.txt, line 3: '2' has 1 field\(s\); expected 2"),
        ({"A": b"1, 2\n2, x\n"}, DataFormatError, r"T_A.txt, line 2: 'x' is not an integer"),
        # the right number of integers in all, the wrong number on a line (read silently before)
        ({"A": b"1, 2, 2\n1\n2, 3\n3, 2\n"}, DataFormatError, r"T_A.txt, line 1: '1, 2, 2' has 3 field\(s\)"),
        ({"node_labels": b"5 6\n\n7\n"}, DataFormatError, r"T_node_labels.txt, line 1: '5 6' is not an integer"),
        ({"A": b"1, 2\n2, 1.5\n"}, DataFormatError, r"T_A.txt, line 2: '1.5' is not an integer"),
        ({"A": b"1, 99999999999999999999\n"}, DataFormatError, "T_A.txt"),
        ({"A": b"1, 2\n2, 9\n"}, DataFormatError, r"T_A.txt, line 2: node id outside 1 … 3"),
        ({"A": b"1, 2\n1, 2\n"}, DataFormatError, "T_A.txt, lines 1 and 2: the same edge is listed twice"),
        ({"A": b"1, 1\n"}, DataFormatError, "T_A.txt: graph 1: .*self-loop"),
        ({"graph_labels": b""}, DataFormatError, "T_graph_labels.txt is empty"),
        ({"graph_indicator": b"1\n1\n2\n"}, DataFormatError, r"T_graph_indicator.txt, line 3: graph id 2 is outside"),
        ({"graph_indicator": b"1\n1\n0\n"}, DataFormatError, "graph id 0 is outside"),
        ({"node_labels": b"1\n2\n"}, DataFormatError, "T_node_labels.txt has 2 lines but T_graph_indicator.txt has 3"),
        ({"edge_labels": b"1\n"}, DataFormatError, "T_edge_labels.txt has 1 lines but T_A.txt has 4"),
    ],
)
def test_load_tu_bad_files(tmp_path, parts, exc, match):
    with pytest.raises(exc, match=match):
        load_tu(_tu(tmp_path / "T", **parts))


def test_load_tu_bad_folders(tmp_path):
    (tmp_path / "file.txt").write_text("1\n")
    with pytest.raises(NotAFolderError, match="'.*file.txt' is a file, not a folder"):
        load_tu(tmp_path / "file.txt")
    with pytest.raises(NotADirectoryError):
        load_tu(tmp_path / "file.txt")
    with pytest.raises(MissingDataError, match="'.*nowhere' does not exist"):
        load_tu(tmp_path / "nowhere")
    with pytest.raises(MissingDataError, match="No NAME_A.txt"):
        load_tu(tmp_path)
    for bad in (None, 5, ["T"]):
        with pytest.raises(ParameterTypeError, match="load_tu expects the path of a TU data set folder"):
            load_tu(bad)
    folder = _tu(tmp_path / "T")
    (folder / "T_graph_labels.txt").unlink()
    with pytest.raises(MissingDataError, match="lacks T_graph_labels.txt"):
        load_tu(folder)


def test_load_tu_reads_the_good_folder(tmp_path):
    graphs, y = load_tu(_tu(tmp_path / "T"))
    assert [g.n_edges for g in graphs] == [4] and y.tolist() == [1]
    with pytest.raises(RatkitError):
        load_tu(_tu(tmp_path / "U", A=b"\xff"))
