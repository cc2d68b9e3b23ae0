"""input_key, when two kernel inputs are one input (issue 35, class 3): the same answer as
the kernels, checked against the tuples of symbols, the weighted languages written by hand,
and the kernels' own values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.automata import acceptor
from ratkit.automata import kernels as K
from ratkit.automata.graphs import Graph
from ratkit.automata.kernels.identity import input_key
from ratkit.exceptions import UnsupportedOperationError

TOKENS = st.lists(st.sampled_from(["a", "b", "é", "ab", "ba", "xyz"]), max_size=5)


def spellings(tokens: list[str]) -> list:
    """Every way a user can write the token sequence ``tokens`` (a str only when each token
    is one character, since a str is read one symbol per character)."""
    out = [tuple(tokens), list(tokens), np.array(tokens, dtype=object), acceptor(tuple(tokens))]
    if tokens:
        out.append(np.array(tokens))
    if all(len(t) == 1 for t in tokens):
        out.append("".join(tokens))
    return out


@settings(max_examples=60, deadline=None)
@given(TOKENS, TOKENS)
def test_equal_keys_exactly_for_equal_symbol_sequences(x, z):
    same = tuple(x) == tuple(z)  # the oracle: the sequences of symbols
    for a in spellings(x):
        for b in spellings(z):
            assert (input_key(a) == input_key(b)) is same, (a, b)
            if same:
                assert hash(input_key(a)) == hash(input_key(b))


def test_a_multicharacter_token_is_one_symbol():
    assert input_key("ab") == input_key(("a", "b")) == input_key(["a", "b"]) == input_key(np.array(["a", "b"]))
    assert input_key("ab") != input_key(("ab",))
    assert input_key("") == input_key(()) == input_key([]) == input_key(np.array([], dtype=str))


def test_a_lattice_is_its_weighted_language():
    # {ab: 0.25} ⊕ {ab: 0.25} = {ab: 0.5}: two paths, one string (written by hand)
    two_paths = acceptor("ab", weight=0.25) | acceptor("ab", weight=0.25)
    one_path = acceptor("ab", weight=0.5)
    assert input_key(two_paths) == input_key(one_path)
    assert input_key(one_path) != input_key("ab")  # weight 0.5, not 1̄
    assert input_key(acceptor("ab", weight=0.5) | acceptor("ab", weight=0.5)) == input_key("ab")
    # the union in either order, and a pynini Fst of the same machine
    assert input_key(acceptor("ab") | acceptor("b")) == input_key(acceptor("b") | acceptor("ab"))
    assert input_key(acceptor("ab").to_pynini()) == input_key("ab")
    assert input_key(acceptor("ab") | acceptor("b")) != input_key(acceptor("ab"))
    # the kernels agree: equal keys, equal values against any input
    k = K.ngram(1)
    for y in ["ab", "b", "abba"]:
        assert k(two_paths, y) == pytest.approx(k(one_path, y), rel=1e-12)


def test_semirings_compare_their_own_weights():
    # tropical: ⊕ = min, so {ab: 1} ⊕ {ab: 3} = {ab: 1}
    assert input_key(acceptor("ab", "tropical", 1.0) | acceptor("ab", "tropical", 3.0)) == input_key(
        acceptor("ab", "tropical", 1.0)
    )
    assert input_key(acceptor("ab", "tropical", 0.0)) == input_key("ab")  # 1̄ of the tropical semiring is 0
    assert input_key(acceptor("ab", "log", 1.0)) != input_key(acceptor("ab", "tropical", 1.0))


def test_graphs_by_content_arrays_by_value():
    a = np.array([[0, 1], [1, 0]], dtype=float)
    assert input_key(Graph(a, ["x", "y"])) == input_key(Graph(a.copy(), ["x", "y"]))
    assert input_key(Graph(a, ["x", "y"])) != input_key(Graph(a, ["y", "x"]))
    assert input_key(np.array([1.0, 2.0])) == input_key(np.array([1.0, 2.0]))
    assert input_key(np.array([1.0, 2.0])) != input_key(np.array([1, 2]))


def test_undecidable_equality_is_refused_by_name():
    with pytest.raises(UnsupportedOperationError, match=r"X\[2\] equals another input: it is a cyclic lattice"):
        input_key(acceptor("a", weight=0.5).closure(), "X[2]")
    with pytest.raises(UnsupportedOperationError, match=r"Cannot tell whether X\[0\] \(dict\).*not hashable"):
        input_key({"a": 1}, "X[0]")
