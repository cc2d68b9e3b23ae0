"""Representations of W′ = Σ α_i y_i Φ′_i for dual coordinate descent (survey Table II).

A weighted trie over the patterns (indexed rows), the minimal deterministic automaton of
the patterns, the naive ε-union of the feature automata, and kernel rows with a cache
(the fallback for kernels without a finite feature map).
"""

from ratkit.learners.wprime._automaton import PatternAutomaton, minimal_weighted_size, wprime_sizes
from ratkit.learners.wprime._naive import NaiveUnion
from ratkit.learners.wprime._trie import PatternTrie

__all__ = ["PatternTrie", "PatternAutomaton", "NaiveUnion", "minimal_weighted_size", "wprime_sizes"]
