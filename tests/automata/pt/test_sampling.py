"""sample: seeded, balanced, labelled correctly, uniform over lengths and within a length."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy import stats

from ratkit.automata.pt import decision_list, ideal, sample
from ratkit.automata.pt.examples import EXAMPLES

from .test_oracle import member


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_sample_is_balanced_labelled_and_within_the_lengths(name):
    target = EXAMPLES[name]
    xs, ys = sample(target.definition, target.alphabet, 301, max_len=12, min_len=1, seed=7)
    assert len(xs) == 301 and ys.dtype == bool
    assert ys.sum() == 150  # ⌊n/2⌋ positives, the rest negatives
    assert all(1 <= len(x) <= 12 and set(x) <= set(target.alphabet) for x in xs)
    assert [member(target.definition, x) for x in xs] == ys.tolist()


def test_sample_is_reproducible_with_a_seed_and_varies_without():
    f = ideal("ab") - ideal("ba")
    a = sample(f, "ab", 50, max_len=10, seed=3)
    b = sample(f, "ab", 50, max_len=10, seed=3)
    c = sample(f, "ab", 50, max_len=10, seed=4)
    assert a[0] == b[0] and np.array_equal(a[1], b[1]) and a[0] != c[0]


def test_sample_takes_any_language_form():
    f = ideal("ab") - ideal("ba")
    want = sample(f, "ab", 20, max_len=6, seed=1)
    for lang in (f.to_dfa("ab"), decision_list(f, "ab")):
        got = sample(lang, "ab", 20, max_len=6, seed=1)
        assert got[0] == want[0] and np.array_equal(got[1], want[1])


def test_lengths_are_uniform_over_the_lengths_each_class_has():
    # L = a⁺b⁺: positives exist from length 2 on, negatives at every length 0..5
    xs, ys = sample(ideal("ab") - ideal("ba"), "ab", 6000, max_len=5, seed=11)
    for label, lengths in ((True, range(2, 6)), (False, range(0, 6))):
        counts = Counter(len(x) for x, y in zip(xs, ys) if y == label)
        assert set(counts) == set(lengths)
        assert stats.chisquare([counts[k] for k in lengths]).pvalue > 1e-3


def test_strings_are_uniform_within_a_length():
    # the 3 strings of length 4 in a⁺b⁺ and the 13 outside it are equally likely
    xs, ys = sample(ideal("ab") - ideal("ba"), "ab", 8000, max_len=4, min_len=4, seed=5)
    for label, n_strings in ((True, 3), (False, 13)):
        counts = Counter(x for x, y in zip(xs, ys) if y == label)
        assert len(counts) == n_strings
        assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_sample_over_tokens_gives_tuples():
    xs, ys = sample(ideal(["the", "cat"]), ["the", "cat", "sat"], 6, max_len=4, seed=0)
    assert all(isinstance(x, tuple) for x in xs)
    assert [member(ideal(["the", "cat"]), x) for x in xs] == ys.tolist()


def test_a_class_without_strings_in_the_range_is_an_error():
    msg = r"No string of length 0..3 over Σ is outside L, so a balanced sample cannot be drawn"
    with pytest.raises(ValueError, match=msg):
        sample(ideal(""), "ab", 10, max_len=3)
    with pytest.raises(ValueError, match=r"No string of length 0..2 over Σ is in L"):
        sample(ideal("aaa"), "ab", 10, max_len=2)


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        ({"n": -1}, "The 'n' parameter of sample must be an int ≥ 0. Got -1"),
        ({"max_len": 2.0}, "The 'max_len' parameter of sample must be an int ≥ 0. Got 2.0"),
        ({"min_len": 5}, "The 'min_len' parameter of sample must be ≤ max_len=4. Got 5"),
    ],
)
def test_sample_parameters_are_checked(kwargs, msg):
    args = {"n": 4, "max_len": 4, **kwargs}
    with pytest.raises(ValueError, match=msg):
        sample(ideal("a"), "ab", args.pop("n"), **args)
