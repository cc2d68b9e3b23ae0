"""Building transducers, alphabets and the errors users can hit."""

from __future__ import annotations

import pickle

import pynini
import pytest

from ratkit.automata import (
    BOOLEAN,
    PROBABILITY,
    TROPICAL,
    Alphabet,
    Transducer,
    acceptor,
    compose,
    evaluate,
    from_arcs,
    from_pynini,
    shortest_distance,
    union,
)
from ratkit.exceptions import (
    AlphabetMismatchError,
    SemiringError,
    SemiringMismatchError,
    UnknownSymbolError,
)


def test_from_arcs_reads_back_its_arcs_and_finals():
    arcs = [(0, "a", "x", 0.5, 1), (1, "", "y", 0.25, 2)]
    t = from_arcs(arcs, start=0, finals={2: 0.75}, semiring="probability")
    assert [tuple(a) for a in t.arcs()] == arcs
    assert t.finals() == {2: pytest.approx(0.75)}
    assert t.start == 0 and t.num_states == 3 and t.num_arcs == 2 and not t.is_acceptor
    assert evaluate(t, "a", "xy") == pytest.approx(0.5 * 0.25 * 0.75)


def test_from_arcs_with_hashable_state_names():
    t = from_arcs([("s", "a", 2.0, "f")], start="s", finals={"f": 0.5})
    assert evaluate(t, "a") == pytest.approx(1.0)


def test_probability_zero_weight_works():
    t = from_arcs([(0, "a", 0.0, 1), (0, "b", 1.0, 1)], 0, {1: 1.0})
    assert evaluate(t, "a") == 0.0 and evaluate(t, "b") == 1.0
    assert evaluate(acceptor("ab", weight=0.0), "ab") == 0.0


def test_token_sequences_are_symbols():
    a = acceptor(["the", "cat"], weight=0.5)
    assert a.alphabet.symbols == ("the", "cat")
    assert evaluate(a, ["the", "cat"]) == pytest.approx(0.5)
    assert evaluate(a, ["the", "the"]) == 0.0


def test_boolean_and_tropical_acceptors():
    assert evaluate(acceptor("ab", BOOLEAN), "ab") is True
    assert evaluate(acceptor("ab", BOOLEAN, weight=False), "ab") is False
    t = from_arcs([(0, "a", 1.5, 1), (0, "a", 0.5, 1)], 0, {1: 1.0}, TROPICAL)
    assert evaluate(t, "a") == pytest.approx(1.5)  # min over the two paths of 0.5 + 1


def test_from_pynini_reads_code_points_and_symbol_tables():
    f = pynini.accep("abc", weight=2.0)  # tropical; labels are code points
    t = from_pynini(f)
    assert t.semiring is TROPICAL and evaluate(t, "abc") == pytest.approx(2.0)
    g = from_pynini(pynini.arcmap(pynini.accep("ab"), map_type="to_log"), "probability")
    assert g.semiring is PROBABILITY and evaluate(g, "ab") == pytest.approx(1.0)
    # a ratkit export keeps its tokens through the symbol tables
    back = from_pynini(acceptor(["x1", "y2"]).to_pynini(), "probability")
    assert evaluate(back, ["x1", "y2"]) == pytest.approx(1.0)


def test_from_pynini_refuses_a_semiring_that_changes_meaning():
    with pytest.raises(SemiringMismatchError, match="'standard' arcs cannot be read as a probability"):
        from_pynini(pynini.accep("a"), "probability")
    with pytest.raises(SemiringError, match="boolean transducer holds only weights 0"):
        from_pynini(pynini.accep("a", weight=2.0), "boolean")


def test_pickle_round_trip():
    t = from_arcs([(0, "a", "b", 0.5, 1)], 0, {1: 1.0})
    u = pickle.loads(pickle.dumps(t))
    assert u.semiring is PROBABILITY and evaluate(u, "a", "b") == pytest.approx(0.5)


# -- errors --------------------------------------------------------------------------


def test_negative_probability_weight_names_the_arc():
    with pytest.raises(
        SemiringError,
        match=r"Arc 1 \(0, 'b', 'b', -0.5, 1\): The probability semiring holds non-negative reals; got -0.5",
    ):
        from_arcs([(0, "a", "a", 1.0, 1), (0, "b", "b", -0.5, 1)], 0, {1: 1.0})
    with pytest.raises(SemiringError, match="Final weight of state 1: .*got -2"):
        from_arcs([(0, "a", 1.0, 1)], 0, {1: -2})


def test_malformed_arcs():
    with pytest.raises(ValueError, match=r"Arc 0 is \(0, 'a'\); expected \(src, ilabel, olabel, weight, dst\)"):
        from_arcs([(0, "a")], 0, {})
    with pytest.raises(TypeError, match="has label 3; labels must be strings"):
        from_arcs([(0, 3, "a", 1.0, 1)], 0, {1: 1.0})


def test_unknown_symbol_in_evaluate_names_symbol_and_position():
    t = from_arcs([(0, "a", "b", 1.0, 1)], 0, {1: 1.0})
    with pytest.raises(
        UnknownSymbolError,
        match=r"Symbol 'z' at position 1 of the input sequence x is not in the alphabet \{'a', 'b'\}",
    ):
        evaluate(t, "az", "b")


def test_declared_alphabet_refuses_unknown_symbols():
    dna = Alphabet("acgt")
    with pytest.raises(UnknownSymbolError, match="Symbol 'x' at position 2 of the sequence"):
        acceptor("acx", alphabet=dna)
    with pytest.raises(AlphabetMismatchError, match=r"Symbols \{'u'\} are not in the declared alphabet"):
        from_arcs([(0, "u", 1.0, 1)], 0, {1: 1.0}, alphabet=dna)


def test_mismatched_alphabets_in_an_operation():
    dna = acceptor("acgt", alphabet=Alphabet("acgt"))
    protein = acceptor("mkv", alphabet=Alphabet("mkvl"))
    with pytest.raises(
        AlphabetMismatchError,
        match="operands' alphabets do not match: symbols .*'a'.* are not in the declared alphabet",
    ):
        compose(protein, dna)
    with pytest.raises(AlphabetMismatchError):
        union(dna, "xyz")


def test_inferred_alphabets_merge_and_relabel():
    # 'ba' and 'ab' number their symbols differently; the union must still be right
    u = union(acceptor("ba", weight=0.5), acceptor("ab", weight=0.25))
    assert evaluate(u, "ba") == pytest.approx(0.5) and evaluate(u, "ab") == pytest.approx(0.25)
    assert shortest_distance(u) == pytest.approx(0.75)


def test_semiring_mismatch():
    with pytest.raises(
        SemiringMismatchError, match="operand 2 is a tropical transducer but this operation works in the probability"
    ):
        compose(acceptor("a"), acceptor("a", TROPICAL))


def test_bad_sequence_types():
    with pytest.raises(TypeError, match="Token 1 of the sequence is 3; tokens must be non-empty strings"):
        acceptor(["a", 3])
    with pytest.raises(TypeError, match="must be a ratkit Transducer, a pynini.Fst, a str"):
        compose(3.5, acceptor("a"))
    with pytest.raises(TypeError, match="give the output sequence too"):
        evaluate(from_arcs([(0, "a", "b", 1.0, 1)], 0, {1: 1.0}), "a")


def test_transducer_refuses_labels_outside_its_alphabet():
    """Label 97 ('a' as a code point) over a two-symbol alphabet would never match a
    symbol in composition: refused, naming the label and the valid range."""
    fst = pynini.accep("a", token_type="byte")
    with pytest.raises(AlphabetMismatchError, match=r"label 97, but its alphabet has 2 symbols \(labels 1\.\.2"):
        Transducer(fst, TROPICAL, Alphabet(["a", "b"]))
    ok = pynini.accep("[1][2]", token_type="byte")  # labels 1 and 2: the alphabet's a, b
    assert evaluate(Transducer(ok, TROPICAL, Alphabet(["a", "b"])), "ab") == 0.0
