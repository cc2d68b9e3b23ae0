"""Graphs as inputs outside the kernels: in model files (labels kept exactly, self-loops kept,
unkeepable labels refused), as single inputs of ``is_single`` / ``as_collection``, and in
:class:`ratkit.testing.KernelContract`'s pairwise-call check (graphs and pairs of graphs).

The decision values of a reloaded model are compared with those of the model that was saved;
the graphs read back are compared with the graphs given, label by label and type by type.
"""

from __future__ import annotations

import enum
import hashlib
import json
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.automata import kernels as K
from ratkit.automata.graphs import Graph
from ratkit.automata.kernels.inputs import as_collection, is_single
from ratkit.automata.pairwise import pairwise
from ratkit.exceptions import ModelFormatError
from ratkit.learners import RationalSVC, load_model
from ratkit.testing import KernelContract


def _random_graph(rng: np.random.Generator, n: int, *, loops: bool = False, edge_labels: bool = True) -> Graph:
    a = (rng.random((n, n)) < 0.5) * rng.uniform(0.25, 1.5, (n, n))
    if not loops:
        np.fill_diagonal(a, 0.0)
    if n > 1 and not a.any():
        a[0, 1] = 1.0
    el = {(int(i), int(j)): ["C-C", "C=O", "N"][int(rng.integers(3))] for i, j in zip(*np.nonzero(a), strict=True)}
    nl = [int(rng.integers(0, 3)) for _ in range(n)]
    return Graph(a, nl, el if edge_labels else None, self_loops="allow" if loops else "error")


def _same_graph(got: Graph, want: Graph) -> None:
    """Equal adjacency (entry by entry, the CSR layout included) and labels of the same types."""
    assert isinstance(got, Graph)
    a, b = got.adjacency, want.adjacency
    assert a.shape == b.shape
    for key in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
    assert got.is_directed == want.is_directed
    for labels_got, labels_want in ((got.node_labels, want.node_labels), (got.edge_labels, want.edge_labels)):
        if labels_want is None:
            assert labels_got is None
            continue
        items_got = list(labels_got.items()) if isinstance(labels_want, dict) else list(enumerate(labels_got))
        items_want = list(labels_want.items()) if isinstance(labels_want, dict) else list(enumerate(labels_want))
        assert [(k, type(v), v) for k, v in items_got] == [(k, type(v), v) for k, v in items_want]


def _fit(kernel: K.Kernel, X: list, y: list) -> RationalSVC:
    return RationalSVC(kernel, C=1.0, max_iter=200, random_state=0).fit(X, y)


def _manifest(path) -> dict:
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("manifest.json"))


# -- model files ------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_graph_support_vectors_are_read_back_with_their_labels_of_the_same_types(tmp_path):
    rng = np.random.default_rng(3)
    X = [_random_graph(rng, int(rng.integers(2, 6))) for _ in range(16)]
    y = [int(g.n_edges > 6) for g in X]
    model = _fit(K.random_walk(0.05, labels="both"), X, y)
    path = model.save(tmp_path / "m.zip")
    again = load_model(path)
    assert len(again.support_vectors_) == len(model.support_vectors_) > 0
    for got, want in zip(again.support_vectors_, model.support_vectors_, strict=True):
        _same_graph(got, want)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    # the graphs are plain JSON and .npy members (nothing pickled), and need format version 4
    manifest = _manifest(path)
    assert manifest["version"] == 4
    graph = manifest["attributes"]["support_vectors_"]["items"][0]["graph"]
    assert set(graph) == {"adjacency", "node_labels", "edge_labels", "self_loops"}
    assert all(isinstance(v, int) for v in graph["node_labels"])
    assert all(isinstance(v, str) for v in graph["edge_labels"])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_every_label_type_json_keeps_is_kept_exactly(tmp_path):
    """str, int, float, bool and None labels come back as themselves: 1, 1.0 and True stay apart."""
    a = np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 0], [0, 1, 0, 0]], dtype=float)
    labels = {(0, 1): 1, (1, 0): 1.0, (0, 2): True, (2, 0): "1", (1, 2): 2**70, (2, 1): -0.5, (1, 3): "é", (3, 1): 0}
    g1 = Graph(a, [1, 1.0, True, None], labels)
    g2 = Graph(a * 2.0, ["x", "y", 3, 2.5], {k: "e" for k in labels})
    g3 = Graph(a[:3, :3], None, None)
    X = [g1, g2, g3, g1, g2, g3]
    model = _fit(K.random_walk(0.05), X, [0, 1, 0, 0, 1, 1])
    model.save(tmp_path / "m.zip")
    again = load_model(tmp_path / "m.zip")
    for got, want in zip(again.support_vectors_, model.support_vectors_, strict=True):
        _same_graph(got, want)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_graphs_with_self_loops_are_saved_and_load(tmp_path):
    rng = np.random.default_rng(5)
    X = [_random_graph(rng, int(rng.integers(2, 5)), loops=True) for _ in range(12)]
    assert any(g.adjacency.diagonal().any() for g in X)
    y = [int(g.adjacency.diagonal().sum() > 1.0) for g in X]
    model = _fit(K.random_walk(0.05, labels="edge"), X, y)
    model.save(tmp_path / "m.zip")
    again = load_model(tmp_path / "m.zip")
    assert any(g.adjacency.diagonal().any() for g in again.support_vectors_)
    for got, want in zip(again.support_vectors_, model.support_vectors_, strict=True):
        _same_graph(got, want)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_pairs_of_graphs_are_saved_as_pairs(tmp_path):
    rng = np.random.default_rng(7)
    pool = [_random_graph(rng, int(rng.integers(2, 5))) for _ in range(6)]
    P = [(pool[int(rng.integers(6))], pool[int(rng.integers(6))]) for _ in range(20)]
    y = [int(p[0].n_nodes == p[1].n_nodes) for p in P]
    model = _fit(pairwise(K.random_walk(0.05, labels="node"), "TL"), P, y)
    model.save(tmp_path / "m.zip")
    again = load_model(tmp_path / "m.zip")
    for got, want in zip(again.support_vectors_, model.support_vectors_, strict=True):
        assert isinstance(got, tuple) and len(got) == 2
        _same_graph(got[0], want[0])
        _same_graph(got[1], want[1])
    np.testing.assert_array_equal(again.decision_function(P), model.decision_function(P))


class _Bond(enum.IntEnum):
    """An int subclass: JSON would give back a plain int, so it is refused."""

    SINGLE = 1


@pytest.mark.parametrize(
    "node_labels, edge_label, named",
    [
        ([(1, 2), 0, 0], None, r"the node label \(1, 2\) \(a tuple\) of node 0"),
        ([0, frozenset({1}), 0], None, r"the node label frozenset\(\{1\}\) \(a frozenset\) of node 1"),
        ([0, 1, float("nan")], None, r"the node label nan \(a float\) of node 2"),
        ([0, 1, 2], ("C", "C"), r"the edge label \('C', 'C'\) \(a tuple\) of the edge 0 → 1"),
        ([0, 1, 2], b"ab", r"the edge label b'ab' \(a bytes\) of the edge 0 → 1"),
        ([0, 1, 2], _Bond.SINGLE, r"the edge label <_Bond.SINGLE: 1> \(a _Bond\) of the edge 0 → 1"),
    ],
)
def test_labels_a_model_file_cannot_keep_exactly_are_refused(tmp_path, node_labels, edge_label, named):
    a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    edges = {(0, 1): "a", (1, 0): "a", (1, 2): "b", (2, 1): "b"}
    if edge_label is not None:
        edges[(0, 1)] = edge_label
    odd = Graph(a, node_labels, edges)
    plain = [Graph(a, [0, 1, 2], {k: "a" for k in edges}), Graph(a[:2, :2], [0, 0], {(0, 1): "a", (1, 0): "a"})]
    model = _fit(K.random_walk(0.05), [odd, *plain, odd, *plain], [1, 0, 0, 1, 0, 1])
    assert any(g is odd for g in model.support_vectors_)
    with pytest.raises(ModelFormatError, match=rf"Cannot save RationalSVC: support_vectors_\[\d+\] has {named}"):
        model.save(tmp_path / "m.zip")
    assert not (tmp_path / "m.zip").exists()


def _edit_graph(path, out, edit) -> None:
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(members["manifest.json"])
    edit(manifest["attributes"]["support_vectors_"]["items"][0]["graph"])
    raw = json.dumps(manifest).encode()
    members["manifest.json"], members["manifest.sha256"] = raw, hashlib.sha256(raw).hexdigest().encode()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_an_inconsistent_saved_graph_is_refused_on_loading(tmp_path):
    rng = np.random.default_rng(3)
    X = [_random_graph(rng, int(rng.integers(3, 6))) for _ in range(10)]
    model = _fit(K.random_walk(0.05, labels="both"), X, [i % 2 for i in range(10)])
    path = model.save(tmp_path / "m.zip")
    bad = tmp_path / "bad.zip"

    def drop_edge_label(g):
        g["edge_labels"] = g["edge_labels"][:-1]

    _edit_graph(path, bad, drop_edge_label)
    with pytest.raises(ModelFormatError, match=r"support_vectors_\[0\] has \d+ edge labels for \d+ edges"):
        load_model(bad)
    _edit_graph(path, bad, lambda g: g["node_labels"].append(0))
    with pytest.raises(ModelFormatError, match=r"support_vectors_.*node_labels has \d+ labels for a graph of"):
        load_model(bad)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_models_without_graphs_stay_at_format_version_3(tmp_path):
    """A file is written in the oldest version that holds it: ratkit before graphs reads it."""
    X = ["ab", "ba", "abab", "bb", "aab", "bba"]
    model = _fit(K.ngram(2), X, [1, 0, 1, 0, 1, 0])
    path = model.save(tmp_path / "m.zip")
    assert _manifest(path)["version"] == 3
    np.testing.assert_array_equal(load_model(path).decision_function(X), model.decision_function(X))


# -- single inputs and collections -------------------------------------------------------------


def test_a_graph_is_one_input_and_a_list_of_graphs_a_collection():
    g = Graph(np.array([[0.0, 1.0], [1.0, 0.0]]), ["a", "b"])
    h = Graph(sp.csr_matrix(np.array([[0.0]])))
    assert is_single(g) and is_single(h)
    assert not is_single([g, h]) and not is_single((g, h))
    assert as_collection([g, h]) == [g, h]
    assert as_collection((g, h)) == [g, h]
    with pytest.raises(TypeError, match="X must be a collection of sequences.*got a single Graph"):
        as_collection(g)
    # what was single before still is, and collections still are collections
    assert is_single("ab") and is_single(("a", "b")) and is_single(())
    assert not is_single(["ab"]) and not is_single([("a",), ("b",)])
    with pytest.raises(TypeError, match="X must be a collection of sequences.*got a single str"):
        as_collection("ab")


def _graphs(seed: int, n: int) -> list[Graph]:
    rng = np.random.default_rng(seed)
    return [_random_graph(rng, int(rng.integers(1, 5)), edge_labels=bool(rng.integers(2))) for _ in range(n)]


class _GraphContract(KernelContract):
    """Not collected (no Test prefix): its pairwise-call check is run by the tests below."""

    def make_kernel(self):
        return K.random_walk(0.05, labels="node")

    def make_inputs(self, seed: int = 0, n: int = 10):
        return _graphs(seed, n)


class _GraphPairContract(_GraphContract):
    def make_kernel(self):
        return pairwise(K.random_walk(0.05, labels="node"), "ML")

    def make_inputs(self, seed: int = 0, n: int = 10):
        pool = _graphs(seed, 4)
        return [(pool[i % 4], pool[(3 * i + 1) % 4]) for i in range(n)]


class _TokenPairContract(KernelContract):
    def make_kernel(self):
        return pairwise(K.ngram(2), "TL")

    def make_inputs(self, seed: int = 0, n: int = 10):
        return [(tuple(s), tuple(s[::-1] + "a")) for s in super().make_inputs(seed, n)]


@pytest.mark.parametrize("contract", [_GraphContract, _GraphPairContract, _TokenPairContract])
def test_the_contract_pairwise_call_check_takes_graphs_and_pairs(contract):
    contract().test_gram_equals_pairwise_calls()


def test_the_contract_pairwise_call_check_still_refuses_collections_as_inputs():
    class Nested(_GraphContract):
        def make_inputs(self, seed: int = 0, n: int = 10):
            return [[g] for g in _graphs(seed, n)]

    with pytest.raises(AssertionError, match="make_inputs must give single inputs"):
        Nested().test_gram_equals_pairwise_calls()
