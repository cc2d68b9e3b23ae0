"""ratkit.automata.graphs: labelled, weighted graphs for random-walk kernels (survey §III).

:class:`Graph` holds an adjacency (``[i, j]`` = weight of the edge i → j, the transpose of
the survey's Ã), optional node and edge labels; build one from arrays, from an edge list
(:func:`from_edges`), from networkx (:func:`from_networkx`, optional dependency) or from a
TU Dortmund data set folder (:func:`ratkit.datasets.load_tu`). :func:`product_graph` is the
direct product G × G′ of eq. (18)–(19) and :func:`graph_automaton` the weighted acceptor of a
graph's walks (§III-2); their modules :mod:`ratkit.automata.graphs.product` and
:mod:`ratkit.automata.graphs.automaton` also hold the pieces the random-walk kernel reuses
(the product's adjacency and matched vertex pairs, start/stop vectors, label symbols).
"""

from typing import Any

from ratkit.automata.graphs import _codecs  # noqa: F401  (registers the graph codec of model files)
from ratkit.automata.graphs._graph import Graph, SelfLoops, from_edges, from_networkx
from ratkit.automata.graphs.automaton import graph_automaton
from ratkit.automata.graphs.product import product_graph

__all__ = ["Graph", "SelfLoops", "from_edges", "from_networkx", "product_graph", "graph_automaton"]


def __getattr__(name: str) -> Any:
    if name == "load_tu":  # moved to ratkit.datasets (issue 36); the old spelling warns for one release
        import warnings

        warnings.warn(
            "ratkit.automata.graphs.load_tu is deprecated and will be removed in ratkit 0.3; "
            "import it from ratkit.datasets (from ratkit.datasets import load_tu).",
            DeprecationWarning,
            stacklevel=2,
        )
        from ratkit.datasets.graphs import load_tu  # deprecated shim, removed in 0.3; import-linter ignore

        return load_tu
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
