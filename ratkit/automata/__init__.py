"""ratkit.automata: weighted finite-state transducers over four semirings, on pynini.

The pipeline stages are public so that a user can step down a level: build
(:func:`from_arcs`, :func:`acceptor`, :func:`from_pynini`, :mod:`~ratkit.automata.io`),
combine (:func:`union`, :func:`concat`, :func:`closure`, :func:`compose`, :func:`invert`,
:func:`project`, :func:`intersect`), optimise (:func:`rmepsilon`, :func:`determinize`,
:func:`minimize`) and measure (:func:`shortest_distance`, :func:`evaluate`).
"""

from ratkit.automata import semirings
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import acceptor, as_transducer, from_arcs, from_pynini
from ratkit.automata.distance import evaluate, shortest_distance
from ratkit.automata.io import read_att, read_fst, to_att, write_att, write_fst
from ratkit.automata.operations import (
    closure,
    complement,
    compose,
    concat,
    determinize,
    difference,
    intersect,
    invert,
    minimize,
    project,
    rmepsilon,
    sigma_star,
    union,
)
from ratkit.automata.semirings import BOOLEAN, LOG, PROBABILITY, TROPICAL, Semiring
from ratkit.automata.transducer import Arc, Transducer

__all__ = [
    "semirings",
    "Semiring",
    "BOOLEAN",
    "PROBABILITY",
    "LOG",
    "TROPICAL",
    "Alphabet",
    "Arc",
    "Transducer",
    "from_arcs",
    "acceptor",
    "from_pynini",
    "as_transducer",
    "read_att",
    "write_att",
    "to_att",
    "read_fst",
    "write_fst",
    "union",
    "concat",
    "closure",
    "compose",
    "invert",
    "project",
    "intersect",
    "rmepsilon",
    "determinize",
    "minimize",
    "difference",
    "complement",
    "sigma_star",
    "shortest_distance",
    "evaluate",
]
