"""Every bad input of ratkit.automata.pt that a user can hit, with the message it gives."""

from __future__ import annotations

import pickle

import pytest

from ratkit.automata import BOOLEAN, Alphabet, acceptor, closure, from_arcs, minimize
from ratkit.automata.pt import (
    BoundExceededError,
    DecisionList,
    DecisionListError,
    EmptyAlphabetError,
    NotPiecewiseTestableError,
    decision_list,
    ideal,
    sample,
    shuffle_ideal,
    subsequences,
)
from ratkit.exceptions import AlphabetMismatchError, OperationError, RatkitError, UnknownSymbolError

# -- not piecewise testable / bound exceeded: an error, never a list --------------------------
AB_STAR = minimize(closure(acceptor("ab")))
EVEN_A = from_arcs([(0, "a", True, 1), (1, "a", True, 0), (0, "b", True, 0), (1, "b", True, 1)], 0, {0: True}, BOOLEAN)
ENDS_IN_A = from_arcs(
    [(0, "a", True, 1), (0, "b", True, 0), (1, "a", True, 1), (1, "b", True, 0)], 0, {1: True}, BOOLEAN
)


@pytest.mark.parametrize("lang", [AB_STAR, EVEN_A, ENDS_IN_A], ids=["(ab)*", "even-a", "ends-in-a"])
@pytest.mark.parametrize("max_len", [2, 8, 20])
def test_not_pt_raises_a_clear_error_whatever_the_bound(lang, max_len):
    with pytest.raises(NotPiecewiseTestableError, match="not piecewise testable") as info:
        decision_list(lang, "ab", max_len=max_len)
    assert "does not depend on max_len" in str(info.value) and info.value.step == 1
    assert isinstance(info.value, DecisionListError) and isinstance(info.value, ValueError)


def test_not_pt_after_some_chopping_names_the_step():
    # Over Σ = {a, b, c}, EVEN_A (inferred alphabet {a, b}) rejects every string with c, so
    # D_1 = {c}; on the rest, {a, b}*, it is "an even number of a's", which is not PT.
    msg = r"After chopping off Ψ\(D_1\), every string u of the rest V_2 ≠ ∅ has supersequences"
    with pytest.raises(NotPiecewiseTestableError, match=msg) as info:
        decision_list(EVEN_A, "abc")
    assert info.value.step == 2


def test_bound_exceeded_says_so_and_suggests_the_bound_that_suffices():
    msg = r"longer than max_len=3: D_1.* holds 'abab' of length 4.*max_len=4\) or larger"
    with pytest.raises(BoundExceededError, match=msg) as info:
        decision_list(ideal("abab"), "ab", max_len=3)
    assert info.value.needed == 4 and isinstance(info.value, DecisionListError)
    assert decision_list(ideal("abab"), "ab", max_len=info.value.needed)  # the suggestion works


def test_bound_exceeded_on_a_later_step_gives_the_bound_for_the_whole_list():
    # Ψ(aab) xor Ψ(bba): D_1 holds strings of length 5 (both as subsequences), D_2 = {aab, bba}
    with pytest.raises(BoundExceededError, match=r"max_len=4: D_1.*length 5.*needs length 5"):
        decision_list(ideal("aab") ^ ideal("bba"), "ab", max_len=4)


@pytest.mark.parametrize("bad", [-1, 2.5, "8", True])
def test_max_len_must_be_a_non_negative_int(bad):
    msg = r"The 'max_len' parameter of decision_list must be an int ≥ 0. Got"
    with pytest.raises(ValueError, match=msg):
        decision_list(ideal("a"), "ab", max_len=bad)


# -- inputs that are not a DFA over Σ ----------------------------------------------------------
def test_non_deterministic_acceptor():
    nfa = from_arcs([(0, "a", True, 1), (0, "a", True, 2), (1, "b", True, 2)], 0, {2: True}, BOOLEAN)
    msg = r"deterministic acceptor \(a DFA\), but state 0 has 2 arcs labelled 'a'. Determinize it"
    with pytest.raises(OperationError, match=msg):
        decision_list(nfa, "ab")


def test_acceptor_with_epsilon_arcs_is_not_deterministic():
    eps = from_arcs([(0, "", True, 1), (1, "a", True, 2)], 0, {2: True}, BOOLEAN)
    with pytest.raises(OperationError, match="state 0 has an ε-arc. Determinize it first"):
        decision_list(eps, "ab")


def test_transducer_is_not_a_language():
    t = from_arcs([(0, "a", "b", True, 1)], 0, {1: True}, BOOLEAN)
    with pytest.raises(OperationError, match="must be an acceptor .* this is a transducer"):
        decision_list(t, "ab")


def test_not_an_automaton():
    with pytest.raises(TypeError, match="must be a DFA .* got int"):
        decision_list(3, "ab")


def test_alphabet_mismatch_symbols_outside_sigma():
    msg = r"uses symbols \['c'\] that are not in the alphabet"
    with pytest.raises(AlphabetMismatchError, match=msg):
        decision_list(shuffle_ideal("ca", "abc"), "ab")
    with pytest.raises(AlphabetMismatchError, match=r"uses symbols \['c'\]"):
        decision_list(acceptor("abc"), "ab")


def test_alphabet_mismatch_declared_alphabet_smaller_than_sigma():
    msg = r"declared over the alphabet \['a', 'b'\], but Σ = \['a', 'b', 'c'\] also has \['c'\]"
    with pytest.raises(AlphabetMismatchError, match=msg):
        decision_list(shuffle_ideal("ab", "ab"), "abc")


def test_formula_symbols_outside_sigma():
    msg = "Symbol 'c' at position 0 of the string of the formula"
    with pytest.raises(UnknownSymbolError, match=msg):
        decision_list(ideal("ab") | ideal("c"), "ab")


# -- empty alphabet ----------------------------------------------------------------------------
@pytest.mark.parametrize("empty", ["", [], Alphabet([])])
@pytest.mark.parametrize("call", ["shuffle_ideal", "decision_list", "to_dfa", "DecisionList", "sample"])
def test_empty_alphabet(empty, call):
    run = {
        "shuffle_ideal": lambda: shuffle_ideal("", empty),
        "decision_list": lambda: decision_list(ideal("a"), empty),
        "to_dfa": lambda: ideal("").to_dfa(empty),
        "DecisionList": lambda: DecisionList([({""}, True)], alphabet=empty),
        "sample": lambda: sample(ideal(""), empty, 4, max_len=3),
    }[call]
    with pytest.raises(EmptyAlphabetError, match="The alphabet Σ is empty") as info:
        run()
    assert isinstance(info.value, ValueError) and isinstance(info.value, RatkitError)


def test_missing_alphabet():
    with pytest.raises(TypeError, match="The alphabet Σ is required"):
        decision_list(ideal("a"), None)


# -- strings with symbols outside Σ -------------------------------------------------------------
def test_shuffle_ideal_of_a_string_outside_sigma():
    msg = r"Symbol 'd' at position 2 of the string u = 'abd' is not in the alphabet Σ = \{'a', 'b',"
    with pytest.raises(UnknownSymbolError, match=msg):
        shuffle_ideal("abd", "abc")


def test_decision_list_called_on_a_string_outside_sigma():
    dl = decision_list(ideal("ab"), "ab")
    msg = "Symbol 'c' at position 1 of the string x = 'acb'"
    with pytest.raises(UnknownSymbolError, match=msg):
        dl("acb")


def test_decision_list_with_strings_outside_its_alphabet():
    msg = "Symbol 'z' at position 1 of the string of D_2 = 'az'"
    with pytest.raises(UnknownSymbolError, match=msg):
        DecisionList([({"a"}, True), ({"az"}, False)], alphabet="ab")


# -- malformed decision lists -----------------------------------------------------------------
def test_decision_list_entries_are_checked():
    msg = r"D_1 of the decision list is the str 'ab'; .* write \{'ab'\}"
    with pytest.raises(TypeError, match=msg):
        DecisionList([("ab", True)])
    with pytest.raises(TypeError, match="Entry 2 of the decision list is 'x'; expected a pair"):
        DecisionList([({"a"}, True), "x"])
    with pytest.raises(TypeError, match="The sign σ_1 of the decision list must be True or False"):
        DecisionList([({"a"}, "yes")])
    with pytest.raises(ValueError, match="needs at least one entry"):
        DecisionList([])
    with pytest.raises(ValueError, match="no alphabet; pass one"):
        DecisionList([({"a"}, True)]).to_dfa()


def test_subsequences_max_len_is_checked():
    msg = "The 'max_len' parameter of subsequences must be an int ≥ 0"
    with pytest.raises(ValueError, match=msg):
        subsequences("ab", -1)


def test_errors_pickle():
    for err in (BoundExceededError("m", needed=3), NotPiecewiseTestableError("m", step=2)):
        again = pickle.loads(pickle.dumps(err))
        assert type(again) is type(err) and str(again) == "m"
    assert pickle.loads(pickle.dumps(BoundExceededError("m", needed=3))).needed == 3
