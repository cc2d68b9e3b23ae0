"""Semiring axioms (property tests), the OpenFst encodings and Ψ."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.automata.fst_arrays import exact_weight
from ratkit.automata.semirings import BOOLEAN, LOG, PROBABILITY, TROPICAL, get_semiring
from ratkit.exceptions import SemiringError, WeightOverflowError

VALUES = {
    BOOLEAN: st.booleans(),
    PROBABILITY: st.one_of(st.just(0.0), st.floats(1e-6, 1e3, allow_nan=False)),
    LOG: st.one_of(st.just(math.inf), st.floats(-30, 30, allow_nan=False)),
    TROPICAL: st.one_of(st.just(math.inf), st.floats(-1e3, 1e3, allow_nan=False)),
}
ALL = list(VALUES)


def eq(a, b):
    if isinstance(a, bool) or math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def triples(sr):
    return st.tuples(VALUES[sr], VALUES[sr], VALUES[sr])


@pytest.mark.parametrize("sr", ALL, ids=repr)
def test_semiring_axioms(sr):
    @settings(max_examples=200, deadline=None)
    @given(triples(sr))
    def check(abc):
        a, b, c = abc
        p, t = sr.plus, sr.times
        assert eq(p(p(a, b), c), p(a, p(b, c)))  # ⊕ associative
        assert eq(p(a, b), p(b, a))  # ⊕ commutative
        assert eq(t(t(a, b), c), t(a, t(b, c)))  # ⊗ associative
        assert eq(t(a, p(b, c)), p(t(a, b), t(a, c)))  # left distributive
        assert eq(t(p(a, b), c), p(t(a, c), t(b, c)))  # right distributive
        assert eq(p(a, sr.zero), a) and eq(p(sr.zero, a), a)  # 0̄ identity of ⊕
        assert eq(t(a, sr.one), a) and eq(t(sr.one, a), a)  # 1̄ identity of ⊗
        assert eq(t(a, sr.zero), sr.zero) and eq(t(sr.zero, a), sr.zero)  # 0̄ annihilates

    check()


@pytest.mark.parametrize("sr", ALL, ids=repr)
def test_encoding_round_trips_through_openfst(sr):
    @settings(max_examples=200, deadline=None)
    @given(VALUES[sr])
    def check(v):
        native = exact_weight(sr.weight(v))  # stored in a pynini Weight, read back exactly
        back = sr.from_native(native)
        if sr is TROPICAL:  # float32 arcs
            assert back == v or math.isclose(back, v, rel_tol=1e-7, abs_tol=1e-30)
        else:
            assert eq(back, v)

    check()


def test_encodings_are_the_documented_ones():
    assert PROBABILITY.to_native(0.0) == math.inf  # p = 0 is the log zero
    assert PROBABILITY.to_native(1.0) == 0.0
    assert PROBABILITY.to_native(math.e) == pytest.approx(-1.0)
    assert BOOLEAN.to_native(True) == 0.0 and BOOLEAN.to_native(False) == math.inf
    assert LOG.to_native(2.5) == 2.5 and TROPICAL.to_native(2.5) == 2.5
    assert PROBABILITY.arc_type == LOG.arc_type == "log64"
    assert BOOLEAN.arc_type == TROPICAL.arc_type == "standard"


@pytest.mark.parametrize("sr", [PROBABILITY, LOG], ids=repr)
def test_psi_is_a_semiring_morphism_to_the_reals(sr):
    @settings(max_examples=200, deadline=None)
    @given(VALUES[sr], VALUES[sr])
    def check(a, b):
        assert math.isclose(sr.psi(sr.plus(a, b)), sr.psi(a) + sr.psi(b), rel_tol=1e-9, abs_tol=1e-300)
        assert math.isclose(sr.psi(sr.times(a, b)), sr.psi(a) * sr.psi(b), rel_tol=1e-9, abs_tol=1e-300)

    check()
    assert sr.psi(sr.zero) == 0.0 and sr.psi(sr.one) == 1.0


def test_psi_of_boolean_and_tropical():
    assert BOOLEAN.psi(True) == 1.0 and BOOLEAN.psi(False) == 0.0
    assert TROPICAL.psi(3.0) == 3.0  # a distance, not a morphism


@pytest.mark.parametrize("value", [-0.5, -1e-300, -math.inf])
def test_negative_probability_is_refused(value):
    with pytest.raises(SemiringError, match=r"probability semiring holds non-negative reals; got -"):
        PROBABILITY.to_native(value)


def test_invalid_values_are_refused_with_the_value_named():
    with pytest.raises(SemiringError, match="NaN is not a weight of the log semiring"):
        LOG.plus(math.nan, 1.0)
    with pytest.raises(SemiringError, match="-inf is not a weight of the tropical semiring"):
        TROPICAL.times(-math.inf, 1.0)
    with pytest.raises(SemiringError, match="boolean semiring holds True/False.*got 0.5"):
        BOOLEAN.plus(0.5, True)
    with pytest.raises(SemiringError, match="'abc' is not a number"):
        PROBABILITY.check("abc")


def test_get_semiring_by_name_and_unknown_name():
    assert get_semiring("Probability") is PROBABILITY
    with pytest.raises(SemiringError, match="Unknown semiring 'real'.*'boolean', 'probability'"):
        get_semiring("real")


def test_infinite_probability_is_refused():
    from ratkit.automata import from_arcs

    with pytest.raises(SemiringError, match="holds finite non-negative reals; got inf"):
        PROBABILITY.to_native(math.inf)
    with pytest.raises(SemiringError, match="got inf"):
        from_arcs([(0, "a", "a", math.inf, 1)], 0, {1: 1.0})


# -- the range of each encoding (issue 14, item 4) --------------------------------------------

F32_MAX = float(np.finfo(np.float32).max)


@pytest.mark.parametrize("value", [1e39, -3.5e38, 2 * F32_MAX])
def test_tropical_costs_beyond_float32_are_refused(value):
    pattern = rf"Tropical costs are stored as float32.*3\.4028235e\+38; got {re.escape(repr(value))}"
    with pytest.raises(SemiringError, match=pattern):
        TROPICAL.to_native(value)  # 1e39 used to become +inf (0̄, "no path") on the arc


def test_a_tropical_arc_beyond_float32_is_refused_naming_it():
    from ratkit.automata import from_arcs

    with pytest.raises(SemiringError, match=r"Arc 0 .*got 1e\+39"):
        from_arcs([(0, "a", 1e39, 1)], 0, {1: 0.0}, "tropical")


def test_the_largest_float32_cost_is_kept_exactly():
    for value in (F32_MAX, -F32_MAX):
        assert exact_weight(TROPICAL.weight(value)) == value


def test_huge_integers_are_refused_as_weights():
    with pytest.raises(SemiringError, match=r"10{400} is beyond the float64 range"):
        LOG.to_native(10**400)  # was a bare OverflowError from float()


def test_probability_beyond_float64_is_an_overflow_when_read_back():
    assert PROBABILITY.from_native(-709.0) == pytest.approx(math.exp(709.0))
    with pytest.raises(WeightOverflowError, match=r"probability e\^800 .*log weight -800.*exceeds the largest float64"):
        PROBABILITY.from_native(-800.0)  # was OverflowError("math range error")
    with pytest.raises(WeightOverflowError, match=r"e\^800 .*exceeds the largest float64"):
        LOG.psi(-800.0)


@pytest.mark.parametrize("sr", ALL, ids=repr)
@pytest.mark.parametrize("native", [-math.inf, math.nan])
def test_non_weights_read_back_from_openfst_are_refused(sr, native):
    """−∞ and NaN are no OpenFst weights (an overflowed ⊗ makes them); they used to decode to
    a value (e.g. LOG −∞, PROBABILITY ∞, BOOLEAN True)."""
    with pytest.raises(WeightOverflowError, match=rf"{native!r} is not a {sr.name} weight"):
        sr.from_native(native)


#: Sample natural values of each semiring, for checking its capability flags by brute force.
SAMPLES = {
    BOOLEAN: [False, True],
    PROBABILITY: [0.0, 1e-3, 0.25, 0.5, 1.0, 2.0, 7.5],
    LOG: [math.inf, -3.0, -0.5, 0.0, 0.25, 1.0, 4.0],
    TROPICAL: [math.inf, -3.0, -0.5, 0.0, 0.25, 1.0, 4.0],
}


@pytest.mark.parametrize("sr", ALL, ids=repr)
def test_capability_flags_match_their_definitions(sr):
    """Each flag holds on every pair of sample values exactly when the semiring has it, and
    a semiring without it has a counterexample among the samples."""
    values = SAMPLES[sr]
    pairs = [(a, b) for a in values for b in values]
    plus, times = sr.plus, sr.times
    facts = {
        "idempotent": all(eq(plus(a, a), a) for a in values),
        "path": all(any(eq(plus(a, b), c) for c in (a, b)) for a, b in pairs),
        "commutative": all(eq(times(a, b), times(b, a)) for a, b in pairs),
        "real_plus": all(math.isclose(sr.psi(plus(a, b)), sr.psi(a) + sr.psi(b), rel_tol=1e-12) for a, b in pairs),
        "two_valued": {sr.to_native(v) for v in values} == {sr.to_native(sr.zero), sr.to_native(sr.one)}
        and _refuses(sr, 0.5),
        "log_weights": all(sr.to_native(v) == v for v in values if not isinstance(v, bool))
        and not isinstance(sr.one, bool),
    }
    assert {name: getattr(sr, name) for name in facts} == facts


def _refuses(sr, value):
    try:
        sr.check(value)
    except SemiringError:
        return True
    return False


def test_capability_flags_of_the_built_in_semirings():
    """The table of the Semiring docstring."""
    table = {
        BOOLEAN: (True, True, True, False, True, False),
        PROBABILITY: (False, False, True, True, False, False),
        LOG: (False, False, True, True, False, True),
        TROPICAL: (True, True, True, False, False, True),
    }
    names = ("idempotent", "path", "commutative", "real_plus", "two_valued", "log_weights")
    for sr, flags in table.items():
        assert tuple(getattr(sr, n) for n in names) == flags, sr
