"""PT languages (survey §IV-A): ⊑, shuffle ideals, formulas, decision lists and their weights.

Every check is against the brute-force oracles of ``test_oracle`` (the definitions),
never against values produced by the code under test.
"""

from __future__ import annotations

import itertools
import random

import pytest

import ratkit.automata.pt as pt
from ratkit.automata import minimize
from ratkit.automata.pt import (
    DecisionList,
    decision_list,
    ideal,
    is_subsequence,
    shuffle_ideal,
    subsequences,
)
from ratkit.automata.pt.examples import EXAMPLES

from .test_oracle import Dfa, all_subseqs, member, score, strings, subseq

TARGETS = sorted(EXAMPLES)


def test_contract_names():
    for name in ("is_subsequence", "shuffle_ideal", "DecisionList", "decision_list"):
        assert name in pt.__all__ and callable(getattr(pt, name))
    assert callable(pt.DecisionList.to_weights)


# -- ⊑ and subsequences ----------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_is_subsequence_matches_position_choices(seed):
    rng = random.Random(seed)
    for _ in range(200):
        x = "".join(rng.choice("abc") for _ in range(rng.randint(0, 7)))
        u = "".join(rng.choice("abc") for _ in range(rng.randint(0, 4)))
        assert is_subsequence(u, x) == subseq(u, x), (u, x)


def test_is_subsequence_on_tokens():
    assert is_subsequence(["the", "cat"], ["the", "fat", "cat"])
    assert not is_subsequence(["cat", "the"], ["the", "fat", "cat"])
    assert not is_subsequence(["th"], ["the"])  # tokens are symbols, not characters


@pytest.mark.parametrize("x", ["", "a", "abab", "abcab", "aaaa", "bacabcb"])
@pytest.mark.parametrize("max_len", [None, 0, 1, 2, 3])
def test_subsequences_are_all_distinct_subsequences_up_to_length(x, max_len):
    want = {u for u in all_subseqs(x) if max_len is None or len(u) <= max_len}
    assert subsequences(x, max_len) == want


def test_subsequences_of_tokens_are_tuples():
    assert subsequences(["a", "bc"], 1) == {(), ("a",), ("bc",)}


# -- shuffle ideals --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "u,sigma", [("", "ab"), ("a", "ab"), ("ab", "ab"), ("aba", "ab"), ("cab", "abc"), ("dd", "abcd")]
)
def test_shuffle_ideal_is_the_minimal_dfa_of_psi(u, sigma):
    t = shuffle_ideal(u, sigma)
    run = Dfa(t, sigma)
    for x in strings(sigma, 6 if len(sigma) <= 2 else 4):
        assert run(x) == subseq(u, x), x
    # deterministic, complete, |u| + 1 states, and OpenFst's minimisation removes none
    assert t.num_states == len(u) + 1 == minimize(t).num_states
    assert t.num_arcs == (len(u) + 1) * len(sigma)
    assert t.alphabet.closed and set(t.alphabet) == set(sigma)


def test_shuffle_ideal_over_tokens():
    t = shuffle_ideal(["the", "cat"], ["the", "cat", "sat"])
    run = Dfa(t, ["the", "cat", "sat"])
    assert run(["sat", "the", "sat", "cat"]) and not run(["cat", "the"])


# -- formulas --------------------------------------------------------------------------------
FORMULAS = {
    "ab&~ba": ("ab", ideal("ab") & ~ideal("ba")),
    "ab-ba": ("ab", ideal("ab") - ideal("ba")),
    "xor": ("ab", ideal("aab") ^ ideal("bba")),
    "union": ("abc", ideal("abc") | ideal("bb") | ideal("ca")),
    "multi": ("abc", ideal("ab", "c") - (ideal("cc") & ~ideal("a"))),
    "all": ("ab", ideal("")),
    "none": ("ab", ideal()),
    "not-all": ("ab", ~ideal("")),
}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_formula_call_and_minimal_dfa_agree_with_the_definition(name):
    sigma, f = FORMULAS[name]
    t = f.to_dfa(sigma)
    run = Dfa(t, sigma)
    for x in strings(sigma, 7 if len(sigma) == 2 else 5):
        want = member(f, x)
        assert f(x) == want and run(x) == want, x
    assert minimize(t).num_states == t.num_states


def test_formula_minimal_dfa_of_ab_not_ba_is_a_plus_b_plus():
    # Ψ(ab) − Ψ(ba) over {a, b} is a⁺b⁺: 3 states (start, a⁺, a⁺b⁺), the dead state trimmed.
    t = (ideal("ab") - ideal("ba")).to_dfa("ab")
    assert t.num_states == 3 and t.num_arcs == 4


def test_formula_repr_degree_and_words():
    f = (ideal("ab") | ideal("c")) - ideal("ba")
    assert repr(f) == "(Ψ('ab') | Ψ('c')) - Ψ('ba')"
    assert repr(~ideal("a", "b")) == "~(Ψ('a') | Ψ('b'))"
    assert f.degree == 2 and f.words == {("a", "b"), ("c",), ("b", "a")}


def test_formula_operands_must_be_formulas():
    with pytest.raises(TypeError, match="operands of & must be Formula objects"):
        ideal("a") & "b"


# -- decision lists: Algorithm 2 and eq. (31)-(32) -------------------------------------------
def test_decision_list_of_ab_not_ba_by_hand():
    """Worked by hand from Theorem 6 for L = Ψ(ab) − Ψ(ba) = a⁺b⁺ over {a, b}.

    V₁ = Σ*: ba is negative-decisive (Ψ(ba) ∩ L = ∅) and no other string is minimal
    decisive (Ψ(u) ∋ u·ba for all u; Ψ(a), Ψ(b), Ψ(bb), Ψ(aa), Ψ(ab) meet L and Lᶜ).
    V₂ = a*b*: V₂ ∩ Ψ(ab) = a⁺b⁺ = L, so ab is positive; a, b, ε are not decisive.
    V₃ = a* ∪ b* ⊆ Lᶜ: ε is negative-decisive. Weights (N = 3 down to 1): w_ε = −1,
    w_ab = |−1| + 1 = 2, w_ba = −(2 + 1) = −3.
    """
    dl = decision_list(ideal("ab") - ideal("ba"), "ab")
    assert dl.entries == (({"ba"}, False), ({"ab"}, True), ({""}, False))
    assert dl.to_weights() == {"ba": -3, "ab": 2, "": -1}
    assert repr(dl) == ("DecisionList([({'ba'}, False), ({'ab'}, True), ({''}, False)], alphabet='ab')")


def _decisive_in_window(u, v_members, lang, window):
    """Brute force on a finite window: the signs s with V ∩ Ψ(u) ⊆ L (True) / ⊆ Lᶜ (False)."""
    seen = {lang[x] for x in window if v_members(x) and subseq(u, x)}
    return {s for s in (True, False) if seen <= {s}}


@pytest.mark.slow
@pytest.mark.parametrize("name", TARGETS)
def test_decision_list_equals_the_language_exhaustively_up_to_length_8(name):
    target = EXAMPLES[name]
    sigma = target.alphabet
    dfa = target.dfa()
    run = Dfa(dfa, sigma)
    dl = decision_list(dfa, sigma)
    w = dl.to_weights()
    for x in strings(sigma, 8):
        want = member(target.definition, x)
        assert run(x) == want, x
        assert dl(x) == want, x
        assert (score(w, x) > 0) == want, (x, score(w, x))


@pytest.mark.parametrize("name", TARGETS)
def test_decision_list_has_the_structure_of_theorem_6(name):
    """Disjoint D_i, alternating signs, D_N = {ε}; every u ∈ D_i decisive modulo V_i and
    minimal. On a finite window of strings, decisiveness can only be refuted, so the window
    must find a counterexample for every strict subsequence of u (a proof that it is not
    decisive), and none for u itself (a necessary condition)."""
    target = EXAMPLES[name]
    sigma = target.alphabet
    dl = decision_list(target.dfa(), sigma)
    entries = dl.entries
    assert entries[-1][0] == {""}
    assert all(entries[i][1] != entries[i + 1][1] for i in range(len(entries) - 1))
    all_words = [u for d, _ in entries for u in d]
    assert len(all_words) == len(set(all_words))

    window = list(strings(sigma, 7 if len(sigma) <= 3 else 5))
    lang = {x: member(target.definition, x) for x in window}
    chopped: list[str] = []
    for d, sign in entries:

        def in_v(x, chopped=tuple(chopped)):
            return not any(subseq(s, x) for s in chopped)

        for u in d:
            assert in_v(u), u  # D_i ⊆ V_i (Lemma 8)
            assert sign in _decisive_in_window(u, in_v, lang, window), (u, sign)
            for k in range(len(u)):
                for idx in itertools.combinations(range(len(u)), k):
                    v = "".join(u[i] for i in idx)
                    assert not _decisive_in_window(v, in_v, lang, window), (v, u)
        chopped.extend(d)


def test_decision_list_accepts_formulas_pynini_and_weighted_acceptors():
    import pynini

    from ratkit.automata import PROBABILITY, from_arcs

    want = decision_list(ideal("ab") - ideal("ba"), "ab")
    # a⁺b⁺ as a pynini acceptor (labels are code points) and as a weighted ratkit DFA
    fst = pynini.union(pynini.accep("a").plus + pynini.accep("b").plus)
    fst = pynini.determinize(pynini.rmepsilon(fst.optimize()))
    assert decision_list(fst, "ab") == want
    weighted = from_arcs(
        [(0, "a", 0.5, 1), (1, "a", 0.25, 1), (1, "b", 0.5, 2), (2, "b", 0.1, 2)], 0, {2: 0.3}, PROBABILITY
    )
    assert decision_list(weighted, "ab") == want
    # an inferred alphabet may be smaller than Σ: strings with c are then outside L
    dl = decision_list(fst, "abc")
    assert all(dl(x) == (set(x) <= {"a", "b"} and member(ideal("ab") - ideal("ba"), x)) for x in strings("abc", 5))


def test_decision_list_of_the_empty_and_full_languages():
    assert decision_list(ideal(), "ab").entries == ((frozenset({""}), False),)
    assert decision_list(ideal(""), "ab").entries == ((frozenset({""}), True),)


def test_decision_list_needs_long_strings_when_the_language_does():
    dl = decision_list(ideal("abab"), "ab", max_len=4)
    assert dl.entries == ((frozenset({"abab"}), True), (frozenset({""}), False))


def test_decision_list_over_tokens():
    sigma = ["the", "cat", "sat"]
    f = ideal(["the", "cat"]) - ideal(["cat", "the"])
    dl = decision_list(f, sigma)
    assert dl.entries[0] == (frozenset({("cat", "the")}), False)
    for n in range(5):
        for x in itertools.product(sigma, repeat=n):
            assert dl(list(x)) == member(f, x), x
    assert set(dl.to_weights()) == {("cat", "the"), ("the", "cat"), ()}


# -- user-built lists ------------------------------------------------------------------------
def test_algorithm_2_final_else_returns_the_last_sign():
    dl = DecisionList([({"ab"}, False), ({"c"}, True)])
    assert dl("ab") is False and dl("c") is True and dl("ba") is True  # no match: σ_N


def _random_list(rng, sigma):
    entries = []
    for _ in range(rng.randint(1, 4)):
        words = {"".join(rng.choice(sigma) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(1, 3))}
        entries.append((words, rng.random() < 0.5))
    return DecisionList(entries, alphabet=sigma)


@pytest.mark.parametrize("seed", range(40))
def test_to_weights_agrees_with_any_list(seed):
    """Overlapping D_i, strings dominated by earlier ones, no ε: the weights still agree."""
    rng = random.Random(seed)
    sigma = "abc"[: rng.randint(2, 3)]
    dl = _random_list(rng, sigma)
    w = dl.to_weights()
    alg2 = {x: member(dl, x) for x in strings(sigma, 6)}
    assert all((score(w, x) > 0) == want for x, want in alg2.items())
    assert all(dl(x) == want for x, want in alg2.items())


@pytest.mark.parametrize("seed", range(20))
def test_decision_list_of_a_user_list_is_equivalent(seed):
    """A user list's language (to_dfa through its formula) → Theorem 6's list, same language."""
    rng = random.Random(100 + seed)
    dl = _random_list(rng, "ab")
    run = Dfa(dl.to_dfa(), "ab")
    again = decision_list(dl, "ab")
    for x in strings("ab", 8):
        assert run(x) == member(dl, x) == again(x), x


def test_decision_list_value_semantics():
    a = DecisionList([({"ab", "c"}, 1), ([""], 0)], alphabet="abc")
    b = DecisionList([(["c", "ab"], True), ({""}, False)], alphabet="cba")
    assert a == b and hash(a) == hash(b) and len(a) == 2 and a.degree == 2
    assert list(a) == [(frozenset({"ab", "c"}), True), (frozenset({""}), False)]
    assert a != DecisionList([({"ab", "c"}, True), ({""}, False)])  # no alphabet
    assert DecisionList([({"ab"}, -1)]).entries[0][1] is False


# -- the subsequence kernel is the inner product of φ ----------------------------------------
@pytest.mark.parametrize("sigma", ["ab", "abc", "abcd"])
def test_subsequence_kernel_is_the_inner_product_of_phi(sigma):
    """K(x, y) = ⟨φ(x), φ(y)⟩ = #{u : u ⊑ x, u ⊑ y} (eq. (33)), φ by brute-force enumeration."""
    from ratkit.automata import kernels

    rng = random.Random(sigma)
    xs = ["".join(rng.choice(sigma) for _ in range(rng.randint(0, 9))) for _ in range(25)]
    phi = [all_subseqs(x) for x in xs]
    k = kernels.subsequence()
    gram = k.gram(xs)
    for i, x in enumerate(xs):
        for j, y in enumerate(xs):
            assert gram[i, j] == len(phi[i] & phi[j]), (x, y)
    pairs = itertools.islice(itertools.product(enumerate(xs), repeat=2), 40)
    assert all(k(x, y) == len(phi[i] & phi[j]) for (i, x), (j, y) in pairs)
