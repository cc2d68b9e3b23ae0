"""ratkit.automata.graphs: labelled, weighted graphs for random-walk kernels (survey §III).

:class:`Graph` holds an adjacency (``[i, j]`` = weight of the edge i → j, the transpose of
the survey's Ã), optional node and edge labels; build one from arrays, from an edge list
(:func:`from_edges`), from networkx (:func:`from_networkx`, optional dependency) or from a
TU Dortmund data set folder (:func:`load_tu`). :func:`product_graph` is the direct product
G × G′ of eq. (18)–(19) and :func:`graph_automaton` the weighted acceptor of a graph's walks
(§III-2); their modules :mod:`ratkit.automata.graphs.product` and
:mod:`ratkit.automata.graphs.automaton` also hold the pieces the random-walk kernel reuses
(the product's adjacency and matched vertex pairs, start/stop vectors, label symbols).
"""

from ratkit.automata.graphs._graph import Graph, from_edges, from_networkx
from ratkit.automata.graphs._tu import load_tu
from ratkit.automata.graphs.automaton import graph_automaton
from ratkit.automata.graphs.product import product_graph

__all__ = ["Graph", "from_edges", "from_networkx", "load_tu", "product_graph", "graph_automaton"]
