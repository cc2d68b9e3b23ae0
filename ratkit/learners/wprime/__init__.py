"""Representations of W′ = Σ α_i y_i Φ′_i for dual coordinate descent (survey Table II).

Each follows :class:`WPrime` and is a ``representation`` plugin of :mod:`ratkit.plugins`
(entry-point group ``ratkit.representations``), registered by name: ``"trie"`` (a weighted trie over
the patterns, as indexed rows), ``"automaton"`` (the minimal deterministic automaton of the
patterns), ``"naive"`` (the ε-union of the feature automata) and ``"rows"`` (kernel rows with
a cache, which every kernel has: the fallback of the other three).
"""

# isort: off
# The order of registration is the order the names are listed in (Table II's, the fallback last).
from ratkit.learners.wprime._trie import TrieWPrime
from ratkit.learners.wprime._automaton import AutomatonWPrime, PatternAutomaton, minimal_weighted_size, wprime_sizes
from ratkit.learners.wprime._kernel_rows import KernelRowsWPrime
from ratkit.learners.wprime._naive import NaiveUnion, NaiveWPrime

# isort: on
from ratkit.learners.wprime._patterns import PatternTrie
from ratkit.learners.wprime._protocol import (
    Epoch,
    EpochResult,
    PrimalInputs,
    TrainingSet,
    WPrime,
    dual_solution,
    get_representation,
    primal_inputs,
    register_representation,
    representation_names,
)

__all__ = [
    "WPrime",
    "TrainingSet",
    "Epoch",
    "EpochResult",
    "PrimalInputs",
    "primal_inputs",
    "dual_solution",
    "register_representation",
    "get_representation",
    "representation_names",
    "TrieWPrime",
    "AutomatonWPrime",
    "NaiveWPrime",
    "KernelRowsWPrime",
    "PatternTrie",
    "PatternAutomaton",
    "NaiveUnion",
    "minimal_weighted_size",
    "wprime_sizes",
]
