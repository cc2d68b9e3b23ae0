"""decision_list decides piecewise testability exactly: Simon's theorem as the oracle.

A regular language is PT iff its syntactic monoid is J-trivial (I. Simon, 1975). On
random small DFAs, decision_list must raise NotPiecewiseTestableError exactly when the
monoid is not J-trivial, and otherwise return a list equal to the language on every
string up to length 8: never a wrong list.
"""

from __future__ import annotations

import random

import pytest

from ratkit.automata import BOOLEAN, Alphabet, from_arcs
from ratkit.automata.pt import NotPiecewiseTestableError, decision_list, ideal

from .test_oracle import Dfa, is_pt, random_dfa, strings


def _as_acceptor(d: Dfa):
    arcs = [(q, a, True, d.delta[q][a]) for q in range(len(d.delta)) for a in d.symbols]
    return from_arcs(arcs, d.start, {q: True for q in d.finals}, BOOLEAN, Alphabet(d.symbols))


def _check(d: Dfa) -> bool | None:
    """Compare decision_list with Simon's criterion on d; return the verdict (None: skipped)."""
    verdict = is_pt(d)
    if verdict is None:
        return None
    if verdict:
        dl = decision_list(_as_acceptor(d), d.symbols, max_len=30)
        for x in strings(d.symbols, 8 if len(d.symbols) == 2 else 6):
            assert dl(x) == d(x), x
    else:
        with pytest.raises(NotPiecewiseTestableError):
            decision_list(_as_acceptor(d), d.symbols, max_len=30)
    return verdict


def _monotone_dfa(rng: random.Random, symbols: str, n_states: int) -> Dfa:
    """Arcs never go back to a lower state: mostly PT languages, some not (R-trivial ones)."""
    delta = [{a: rng.randrange(q, n_states) for a in symbols} for q in range(n_states)]
    return Dfa.from_table(delta, 0, {q for q in range(n_states) if rng.random() < 0.5}, symbols)


@pytest.mark.parametrize("kind", ["any", "monotone"])
@pytest.mark.parametrize("symbols,n_states", [("ab", 3), ("ab", 4), ("ab", 5), ("abc", 4)])
def test_random_dfas_against_simons_theorem(kind, symbols, n_states):
    rng = random.Random(f"{kind}{symbols}{n_states}")
    make = random_dfa if kind == "any" else _monotone_dfa
    dfas = [make(rng, symbols, n_states) for _ in range(60)]
    verdicts = [_check(d) for d in dfas if len(d.minimal().delta) > 1]  # skip ∅ and Σ*
    # non-trivial languages, mostly non-PT for arbitrary DFAs and mostly PT for monotone ones
    assert verdicts.count(kind == "monotone") >= 20, verdicts


@pytest.mark.parametrize("seed", range(30))
def test_random_formulas_are_pt_by_both(seed):
    """Boolean combinations of shuffle ideals are PT (Lemma 1): J-trivial, and listed exactly."""
    rng = random.Random(seed)

    def word():
        return "".join(rng.choice("ab") for _ in range(rng.randint(0, 3)))

    f = ideal(word())
    for _ in range(rng.randint(1, 4)):
        g = ideal(word())
        f = rng.choice([f & g, f | g, f - g, f ^ g, ~f & g])
    d = Dfa(f.to_dfa("ab"), "ab")
    assert _check(d) is True
