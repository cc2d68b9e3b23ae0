"""ratkit.datasets.graphs: the TU Dortmund graph format, on small generated folders and on MUTAG.

The MUTAG test checks the published statistics (../shared/data/tudataset/PROVENANCE.md,
README.txt), an oracle independent of the loader.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ratkit.datasets import load_tu
from ratkit.exceptions import DataFormatError, MissingDataError


def write_tu(
    folder: Path, name: str = "TOY", *, a=None, indicator=None, graph_labels=None, node_labels=None, edge_labels=None
) -> Path:
    """A small TU data set: graph 1 = path 1–2–3, graph 2 = edge 4–5."""
    folder.mkdir(parents=True, exist_ok=True)
    if a is None:
        a = ["1, 2", "2, 1", "2, 3", "3, 2", "4, 5", "5, 4"]
    if indicator is None:
        indicator = ["1", "1", "1", "2", "2"]
    if graph_labels is None:
        graph_labels = ["1", "-1"]
    files = {
        "A": a,
        "graph_indicator": indicator,
        "graph_labels": graph_labels,
        "node_labels": node_labels,
        "edge_labels": edge_labels,
    }
    for part, lines in files.items():
        if lines is not None:
            (folder / f"{name}_{part}.txt").write_text("\n".join(lines) + "\n")
    return folder


def test_load_tu_small_folder(tmp_path):
    folder = write_tu(
        tmp_path / "toy", node_labels=["0", "1", "0", "2", "2"], edge_labels=["5", "5", "6", "6", "7", "7"]
    )
    graphs, y = load_tu(folder)
    np.testing.assert_array_equal(y, [1, -1])
    assert [g.n_nodes for g in graphs] == [3, 2]
    np.testing.assert_array_equal(graphs[0].adjacency.toarray(), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    assert graphs[0].node_labels == (0, 1, 0) and graphs[1].node_labels == (2, 2)
    assert graphs[0].edge_labels == {(0, 1): 5, (1, 0): 5, (1, 2): 6, (2, 1): 6}
    assert graphs[1].edge_labels == {(0, 1): 7, (1, 0): 7}
    assert not any(g.is_directed for g in graphs)


def test_load_tu_without_optional_files_and_unsorted_indicator(tmp_path):
    # nodes of graph 1 are 1, 3 and 5 (indicator not sorted); edges 1–3 and 2–4
    folder = write_tu(tmp_path / "t", a=["1, 3", "3, 1", "2, 4", "4, 2"], indicator=["1", "2", "1", "2", "1"])
    graphs, _ = load_tu(folder)
    assert graphs[0].node_labels is None and graphs[0].edge_labels is None
    np.testing.assert_array_equal(graphs[0].adjacency.toarray(), [[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(graphs[1].adjacency.toarray(), [[0, 1], [1, 0]])


@pytest.mark.parametrize("part", ["A", "graph_indicator", "graph_labels"])
def test_load_tu_missing_required_file(tmp_path, part):
    folder = write_tu(tmp_path / "t")
    if part == "A":
        (folder / "TOY_A.txt").unlink()
        match = "NAME_A.txt"
    else:
        (folder / f"TOY_{part}.txt").unlink()
        match = f"TOY_{part}.txt"
    with pytest.raises(MissingDataError, match=match):
        load_tu(folder)


def test_load_tu_missing_folder(tmp_path):
    with pytest.raises(MissingDataError, match="does not exist"):
        load_tu(tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"a": ["1, 2", "2, 1", "3, 4", "4, 3"]}, r"TOY_A.txt, line 3: edge 3, 4 joins graph 1 to graph 2"),
        ({"a": ["1, 2", "2, x"]}, r"TOY_A.txt, line 2: 'x' is not an integer"),
        ({"a": ["1, 2", "2"]}, r"TOY_A.txt, line 2: '2' has 1 field"),
        ({"a": ["1, 2", "2, 9"]}, r"TOY_A.txt, line 2: node id outside 1 … 5"),
        ({"a": ["1, 2", "1, 2"]}, r"TOY_A.txt, lines 1 and 2: the same edge"),
        ({"a": ["1, 1"]}, r"TOY_A.txt: graph 1: .*self-loop"),
        ({"indicator": ["1", "1", "1", "3", "3"]}, r"TOY_graph_indicator.txt, line 4: graph id 3 is outside 1 … 2"),
        ({"indicator": ["1", "1", "1", "1", "1"], "a": ["1, 2"]}, r"graph 2 has no node"),
        ({"graph_labels": ["1", "one"]}, r"TOY_graph_labels.txt, line 2: 'one' is not an integer"),
        ({"node_labels": ["0", "1"]}, r"TOY_node_labels.txt has 2 lines but TOY_graph_indicator.txt has 5"),
        ({"edge_labels": ["0"]}, r"TOY_edge_labels.txt has 1 lines but TOY_A.txt has 6"),
    ],
)
def test_load_tu_inconsistent_files(tmp_path, kwargs, match):
    folder = write_tu(tmp_path / "t", **kwargs)
    with pytest.raises(DataFormatError, match=match):
        load_tu(folder)


def test_load_tu_mutag_published_counts(shared_data):
    # PROVENANCE.md / README: 188 graphs, 3371 nodes, labels 125 × 1 and 63 × −1,
    # 7442 A entries (3721 undirected edges), 7 node labels 0 … 6, 4 edge labels 0 … 3.
    graphs, y = load_tu(shared_data("tudataset/MUTAG"))
    assert len(graphs) == 188 and y.shape == (188,)
    assert sum(g.n_nodes for g in graphs) == 3371
    assert sum(g.n_edges for g in graphs) == 7442
    assert sorted(set(y.tolist())) == [-1, 1]
    assert (y == 1).sum() == 125 and (y == -1).sum() == 63
    assert set().union(*(g.node_labels for g in graphs)) == set(range(7))
    assert set().union(*(g.edge_labels.values() for g in graphs)) == set(range(4))
    assert not any(g.is_directed for g in graphs)
    assert min(g.n_nodes for g in graphs) == 10 and max(g.n_nodes for g in graphs) == 28
