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
from tests.isolated import run_python


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


# -- state numbering (issue 14, item 15) ------------------------------------------------


def test_huge_state_ids_are_numbered_sparsely():
    """One AT&T line with state 10⁸ once built a dense map of 10⁸ states (MemoryError);
    the states are now O(distinct ids). Oracle: the closed-form path weights, and the
    same machine written with the ids 0, 1, 2."""
    code = """
    from ratkit.automata import evaluate, from_arcs, read_att
    t = read_att("0 100000000 a b 0.5\\n100000000\\n")
    big, huge = 10**8, 3 * 10**12
    sparse = from_arcs([(0, "a", "b", 0.5, big), (big, "b", "c", 0.25, huge)], 0, {huge: 2.0})
    dense = from_arcs([(0, "a", "b", 0.5, 1), (1, "b", "c", 0.25, 2)], 0, {2: 2.0})
    print(t.num_states, evaluate(t, "a", "b"), sparse.num_states, evaluate(sparse, "ab", "bc"),
          evaluate(dense, "ab", "bc"))
    """
    out = run_python(code, timeout=20, memory_mb=1500)
    assert not out.timed_out and out.returncode == 0, out.stderr[-2000:]
    n_att, w_att, n_sparse, w_sparse, w_dense = out.stdout.split()
    assert (int(n_att), int(n_sparse)) == (2, 3)
    assert float(w_att) == pytest.approx(0.5)
    assert float(w_sparse) == pytest.approx(0.5 * 0.25 * 2.0) == float(w_dense)


def test_sparse_ids_are_numbered_in_increasing_order_and_dense_ids_keep_their_numbers():
    # {5, 1000}: the largest id is not below twice the 2 distinct ids, so 5 → 0, 1000 → 1
    t = from_arcs([(1000, "b", 0.5, 5), (5, "a", 0.25, 1000)], start=5, finals={1000: 1.0})
    assert t.start == 0 and t.num_states == 2
    assert sorted(tuple(a) for a in t.arcs()) == [(0, "a", "a", 0.25, 1), (1, "b", "b", 0.5, 0)]
    assert evaluate(t, "aba") == pytest.approx(0.25 * 0.5 * 0.25)
    # {0, 2, 3}: 3 < 2·3, dense enough: the numbers are kept and state 1 is an unused filler
    u = from_arcs([(2, "a", 0.5, 3), (0, "b", 1.0, 2)], start=0, finals={3: 1.0})
    assert u.num_states == 4 and sorted(tuple(a)[0] for a in u.arcs()) == [0, 2]
    assert evaluate(u, "ba") == pytest.approx(0.5)


def test_arrays_beyond_float32_are_refused_for_tropical_arcs():
    """arrays_to_fst wrote a finite float64 cost such as 1e39 into a float32 field, where it
    became ∞ ("no path") with only a numpy warning."""
    import numpy as np

    from ratkit.automata.fst_arrays import FstArrays, arrays_to_fst
    from ratkit.exceptions import WeightOverflowError

    def arrays(weight, final):
        one = np.array([0], dtype=np.int64)
        return FstArrays("standard", 0, np.array([np.inf, final]), one, one + 1, one + 1, np.array([weight]), one + 1)

    for weight, final in ((1e39, 0.0), (0.0, -4e38)):
        with pytest.raises(WeightOverflowError, match=r"beyond the range of float32"):
            arrays_to_fst(arrays(weight, final))
    assert arrays_to_fst(arrays(3.4e38, np.inf)).num_states() == 2  # within range, ∞ = 0̄: kept


def test_a_byte_mode_pynini_fst_over_non_ascii_text_is_flagged():
    """Reported by an audit: pynini's default token_type="byte" spells "é" as its UTF-8 bytes
    0xC3 0xA9, which from_pynini read as the code points 'Ã', '©' without a word (so "é" then
    had no path). Labels 128–255 of an FST without symbol tables now warn, unless token_type
    says how to read them: "utf8" as code points, "byte" refused."""
    import warnings

    import pynini

    from ratkit.automata import TROPICAL, acceptor, compose, from_pynini, shortest_distance
    from ratkit.exceptions import AlphabetMismatchError, ParameterError

    with pytest.warns(UserWarning, match=r"token_type='byte'.*'é' as 'Ã©'"):
        from_pynini(pynini.accep("é"))
    with pytest.raises(AlphabetMismatchError, match=r"Label (169|195) of this token_type='byte' FST"):
        from_pynini(pynini.accep("é"), token_type="byte")
    with pytest.raises(ParameterError, match=r"'token_type' parameter of from_pynini"):
        from_pynini(pynini.accep("a"), token_type="bytes")
    utf8 = pynini.accep("日本é", token_type="utf8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert set(from_pynini(utf8, token_type="utf8").alphabet.symbols) == {"日", "本", "é"}
        assert from_pynini(pynini.accep("ab")).alphabet.symbols == ("a", "b")  # ASCII: no question
        assert from_pynini(pynini.accep("ab"), token_type="byte").alphabet.symbols == ("a", "b")
        assert shortest_distance(compose(acceptor("日本é", TROPICAL), from_pynini(utf8, token_type="utf8"))) == 0.0
