"""Graph data sets: the TU Dortmund graph benchmark text format (Morris et al. 2020).

:func:`load_tu` reads one data set folder (``NAME_A.txt``, ``NAME_graph_indicator.txt``,
``NAME_graph_labels.txt`` and the optional label files) into a list of
:class:`~ratkit.automata.graphs.Graph` and the array of graph labels.

References
----------
C. Morris, N. M. Kriege, F. Bause, K. Kersting, P. Mutzel and M. Neumann. TUDataset: a
collection of benchmark datasets for learning with graphs. ICML 2020 Workshop on Graph
Representation Learning and Beyond.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from ratkit.exceptions import DataFormatError, MissingDataError, NotAFolderError, ParameterTypeError

if TYPE_CHECKING:  # imported by load_tu when called: the recommenders that import ratkit.datasets need no pynini
    from ratkit.automata.graphs import Graph, SelfLoops

__all__ = ["load_tu"]


@functools.cache
def _lines_of(fields: int) -> re.Pattern[str]:
    """Lines of ``fields`` comma-separated integers (spaces and tabs around each), one per line."""
    field = r"[ \t]*[+-]?[0-9]+[ \t]*"
    line = field + ("," + field) * (fields - 1)
    return re.compile(rf"{line}(?:\r?\n{line})*")


def _read_ints(path: Path, fields: int) -> np.ndarray:
    """The integers of a comma-separated file with ``fields`` per line, as an (m, fields) array.

    Parsed in one vectorised pass; on failure the lines are scanned to name the bad one.
    Trailing blank lines are ignored.
    """
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8").rstrip("\n\r ")
    except UnicodeDecodeError as exc:
        lineno = raw.count(b"\n", 0, exc.start) + 1
        raise DataFormatError(
            f"{path.name}, line {lineno}: byte {raw[exc.start]:#04x} is not UTF-8 text; expected {fields} "
            "comma-separated integer(s) per line."
        ) from exc
    if not text:
        return np.zeros((0, fields), dtype=np.int64)
    lines = text.count("\n") + 1
    tokens = text.replace(",", " ").split()
    try:
        if not _lines_of(fields).fullmatch(text):  # lines × fields integers, each line its fields
            raise ValueError
        values = np.array(tokens, dtype=np.int64)
    except (ValueError, OverflowError):
        for k, line in enumerate(text.split("\n"), start=1):
            parts = [s.strip() for s in line.split(",")]
            if len(parts) != fields:
                raise DataFormatError(
                    f"{path.name}, line {k}: {line!r} has {len(parts)} field(s); expected {fields}."
                ) from None
            for s in parts:
                try:
                    int(s)
                except ValueError:
                    raise DataFormatError(f"{path.name}, line {k}: {s!r} is not an integer.") from None
        raise DataFormatError(f"{path.name}: could not be read as {fields} integer(s) per line.") from None
    return values.reshape(lines, fields)


def load_tu(folder: str | os.PathLike, *, self_loops: SelfLoops = "error") -> tuple[list[Graph], np.ndarray]:
    """The graphs and graph labels of one TU data set folder (``NAME_A.txt``, ...).

    Reads ``NAME_A.txt`` (1-based edge lines ``i, j``; undirected data sets list both
    directions), ``NAME_graph_indicator.txt`` (the graph of node i, 1-based),
    ``NAME_graph_labels.txt`` and, when present, ``NAME_node_labels.txt`` and
    ``NAME_edge_labels.txt`` (one integer per line of A). NAME is taken from the one
    ``*_A.txt`` file of the folder. Every edge has weight 1; nodes keep their order within
    their graph. Returns the list of :class:`~ratkit.automata.graphs.Graph` and the array y of graph labels.
    """
    from ratkit.automata.graphs import Graph

    if not isinstance(folder, (str, os.PathLike)):
        raise ParameterTypeError(
            f"load_tu expects the path of a TU data set folder (a str or path); got {type(folder).__name__}."
        )
    folder = Path(folder)
    if folder.is_file():
        raise NotAFolderError(
            f"The TU data set folder {str(folder)!r} is a file, not a folder; give the folder that holds "
            "NAME_A.txt, NAME_graph_indicator.txt and NAME_graph_labels.txt."
        )
    if not folder.is_dir():
        raise MissingDataError(f"The TU data set folder {str(folder)!r} does not exist or is not a folder.")
    candidates = sorted(folder.glob("*_A.txt"))
    if not candidates:
        raise MissingDataError(
            f"No NAME_A.txt in {str(folder)!r}: a TU data set folder holds NAME_A.txt, "
            "NAME_graph_indicator.txt and NAME_graph_labels.txt."
        )
    if len(candidates) > 1:
        raise DataFormatError(
            f"{str(folder)!r} holds several *_A.txt files ({', '.join(p.name for p in candidates)}); "
            "expected one TU data set per folder."
        )
    name = candidates[0].name[: -len("_A.txt")]
    files = {part: folder / f"{name}_{part}.txt" for part in ("A", "graph_indicator", "graph_labels")}
    missing = [p.name for p in files.values() if not p.is_file()]
    if missing:
        raise MissingDataError(f"The TU data set {name!r} in {str(folder)!r} lacks {', '.join(missing)}.")

    edges = _read_ints(files["A"], 2) - 1
    indicator = _read_ints(files["graph_indicator"], 1)[:, 0]
    y = _read_ints(files["graph_labels"], 1)[:, 0]
    n_total, n_graphs = indicator.size, y.size
    if n_graphs == 0:
        raise DataFormatError(f"{files['graph_labels'].name} is empty; expected one label per graph.")
    bad = np.flatnonzero((indicator < 1) | (indicator > n_graphs))
    if bad.size:
        raise DataFormatError(
            f"{files['graph_indicator'].name}, line {bad[0] + 1}: graph id {indicator[bad[0]]} is outside "
            f"1 … {n_graphs} (the number of lines of {files['graph_labels'].name})."
        )
    sizes = np.bincount(indicator - 1, minlength=n_graphs)
    if (sizes == 0).any():
        g = int(np.flatnonzero(sizes == 0)[0]) + 1
        raise DataFormatError(
            f"{files['graph_indicator'].name}: graph {g} has no node (empty graph), though "
            f"{files['graph_labels'].name} lists it."
        )
    bad = np.flatnonzero((edges < 0).any(axis=1) | (edges >= n_total).any(axis=1))
    if bad.size:
        raise DataFormatError(
            f"{files['A'].name}, line {bad[0] + 1}: node id outside 1 … {n_total} "
            f"(the number of lines of {files['graph_indicator'].name})."
        )
    graph_of = indicator - 1
    bad = np.flatnonzero(graph_of[edges[:, 0]] != graph_of[edges[:, 1]])
    if bad.size:
        i, j = edges[bad[0]] + 1
        raise DataFormatError(
            f"{files['A'].name}, line {bad[0] + 1}: edge {i}, {j} joins graph {graph_of[i - 1] + 1} "
            f"to graph {graph_of[j - 1] + 1}; edges must stay within one graph."
        )
    key = edges[:, 0] * n_total + edges[:, 1]
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    if (counts > 1).any():
        dup = key == key[first[np.flatnonzero(counts > 1)[0]]]
        lines = np.flatnonzero(dup)[:2] + 1
        raise DataFormatError(f"{files['A'].name}, lines {lines[0]} and {lines[1]}: the same edge is listed twice.")

    node_labels = _optional(folder / f"{name}_node_labels.txt", n_total, files["graph_indicator"].name)
    edge_labels = _optional(folder / f"{name}_edge_labels.txt", len(edges), files["A"].name)

    # local numbering: the rank of each node among the nodes of its graph
    order = np.argsort(graph_of, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    local = np.empty(n_total, dtype=np.int64)
    local[order] = np.arange(n_total) - offsets[graph_of[order]]
    edge_graph = graph_of[edges[:, 0]]
    edge_order = np.argsort(edge_graph, kind="stable")
    edge_offsets = np.concatenate([[0], np.cumsum(np.bincount(edge_graph, minlength=n_graphs))])
    node_label_list = None if node_labels is None else node_labels.tolist()
    graphs = []
    for g in range(n_graphs):
        n = int(sizes[g])
        e = edge_order[edge_offsets[g] : edge_offsets[g + 1]]
        rows, cols = local[edges[e, 0]], local[edges[e, 1]]
        adjacency = sp.csr_matrix((np.ones(e.size), (rows, cols)), shape=(n, n))
        nodes = order[offsets[g] : offsets[g + 1]]
        labels_g = None if node_label_list is None else [node_label_list[k] for k in nodes]
        elabels_g = None
        if edge_labels is not None:
            elabels_g = dict(zip(zip(rows.tolist(), cols.tolist(), strict=True), edge_labels[e].tolist(), strict=True))
        try:
            graphs.append(Graph(adjacency, labels_g, elabels_g, self_loops=self_loops))
        except ValueError as exc:
            raise DataFormatError(f"{files['A'].name}: graph {g + 1}: {exc}") from None
    return graphs, y


def _optional(path: Path, expected: int, against: str) -> np.ndarray | None:
    """The one-integer-per-line file ``path`` if it exists, checked to have ``expected`` lines."""
    if not path.is_file():
        return None
    values = _read_ints(path, 1)[:, 0]
    if values.size != expected:
        raise DataFormatError(
            f"{path.name} has {values.size} lines but {against} has {expected}; "
            f"expected one label per line of {against}."
        )
    return values
