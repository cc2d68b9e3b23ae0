"""The W′ structures — trie, numbered minimal automaton, minimal weighted size — by brute force."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ratkit.learners.wprime import PatternTrie
from ratkit.learners.wprime._automaton import PatternAutomaton, minimal_weighted_size
from ratkit.learners.wprime._patterns import code_labels


def _random_patterns(rng: random.Random):
    L = rng.randint(1, 3)
    pats = {tuple(rng.randint(1, L) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 15))}
    return L + 1, sorted(pats)


def _code(p, base):
    return sum(d * base ** (len(p) - 1 - k) for k, d in enumerate(p))


def _right_language(pats, q):
    return frozenset(p[len(q) :] for p in pats if p[: len(q)] == q)


@pytest.mark.parametrize("seed", range(150))
def test_trie_and_minimal_automaton_against_brute_force(seed):
    rng = random.Random(seed)
    base, pats = _random_patterns(rng)
    codes = np.array([_code(p, base) for p in pats], dtype=np.int64)
    trie = PatternTrie.from_codes(codes, base)
    prefixes = {p[:k] for p in pats for k in range(len(p) + 1)} | {()}
    assert trie.n_states == len(prefixes) and trie.size == 2 * len(prefixes) - 1
    assert [trie.final[trie.nodes_of(np.array([_code(q, base)]))[0]] for q in sorted(prefixes)] == [
        q in pats for q in sorted(prefixes)
    ]
    assert PatternTrie.count_states(codes, base) == len(prefixes)
    aut = PatternAutomaton.from_trie(trie)
    # Myhill–Nerode: the minimal DFA (with its dead state removed) has one state per
    # distinct non-empty right language of a prefix, plus the empty one if reachable.
    assert aut.n_states == len({_right_language(pats, q) for q in prefixes})
    assert aut.n_paths == len(pats)
    labels, lengths = code_labels(codes, base)
    # the slot of a pattern is its rank in lexicographic order (a minimal perfect hash)
    assert aut.slots(labels, lengths).tolist() == list(range(len(pats)))  # pats are sorted
    assert aut.slots(np.array([[base, 0, 0, 0, 0]]), np.array([1])).tolist() == [-1]  # not a label


@pytest.mark.parametrize("seed", range(150))
def test_minimal_weighted_size_against_brute_force(seed):
    """States = distinct futures up to a non-zero factor; arcs = their live continuations."""
    rng = random.Random(1000 + seed)
    base, pats = _random_patterns(rng)
    weights = {p: rng.choice([0.0, 1.0, -2.0, 0.5, 3.0]) for p in pats}
    codes = np.array([_code(p, base) for p in pats], dtype=np.int64)
    trie = PatternTrie.from_codes(codes, base)
    node_w = np.zeros(trie.n_states)
    node_w[trie.nodes_of(codes)] = [weights[p] for p in pats]

    def future(q):
        items = sorted((p[len(q) :], w) for p, w in weights.items() if p[: len(q)] == q and w != 0)
        return tuple((z, round(w / items[0][1], 9)) for z, w in items) if items else None

    reps = {}
    for q in sorted({p[:k] for p in pats for k in range(len(p) + 1)} | {()}):
        if future(q) is not None:
            reps.setdefault(future(q), q)
    arcs = sum(
        len({p[len(q)] for p, w in weights.items() if p[: len(q)] == q and len(p) > len(q) and w})
        for q in reps.values()
    )
    assert minimal_weighted_size(trie, node_w) == (len(reps), arcs)


def test_minimal_weighted_automaton_merges_proportional_suffixes():
    """ab ↦ 2, bb ↦ 2·(−1.5)... futures of a and b are proportional: one state for both."""
    base = 3
    pats = {(1, 1): 2.0, (1, 2): 4.0, (2, 1): -3.0, (2, 2): -6.0}
    codes = np.array([_code(p, base) for p in pats])
    trie = PatternTrie.from_codes(codes, base)
    w = np.zeros(trie.n_states)
    w[trie.nodes_of(codes)] = list(pats.values())
    # root, {a, b} merged, one final state: 3 states; arcs root→·(a), root→·(b), ·→f (a), ·→f (b)
    assert minimal_weighted_size(trie, w) == (3, 4)
    assert trie.n_states == 7


@pytest.mark.parametrize("seed", range(60))
def test_count_states_of_one_length_patterns_against_brute_force(seed):
    """The fast path (every pattern of one length, with or without ε) counts the prefixes."""
    rng = random.Random(seed)
    L, n = rng.randint(1, 4), rng.randint(1, 5)
    pats = {tuple(rng.randint(1, L) for _ in range(n)) for _ in range(rng.randint(1, 30))}
    with_root = rng.random() < 0.5
    codes = np.array([_code(p, L + 1) for p in pats] + ([0] if with_root else []), dtype=np.int64)
    prefixes = {p[:k] for p in pats for k in range(n + 1)}
    assert PatternTrie.count_states(codes, L + 1) == len(prefixes)
