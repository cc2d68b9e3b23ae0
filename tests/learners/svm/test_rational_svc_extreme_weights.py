"""RationalSVC on a cosine-normalised kernel with extreme weights (issue 35, class 2).

Before: cosine(count_based(…, [1e-170] * k)) gave an all-zero Gram (and features), 1e160 an
all-NaN one, and RationalSVC predicted one class. The cosine is scale-invariant, so the
model must be the one of weights 1: here, LinearDCDSVC on the unit-normalised pattern
counts (counted by brute force, normalised by scikit-learn), the very same solver steps;
with weights of unrelated scales in one kernel, on its exactly normalised feature rows.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from sklearn.preprocessing import normalize

from ratkit.automata.kernels import cosine, count_based
from ratkit.learners import LinearDCDSVC, RationalSVC

PATTERNS = ["a", "b", "ab", "ba"]


def _strings(seed: int, m: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice("abc") for _ in range(rng.randint(1, 10))) for _ in range(m)]


def _counts(X: list[str]) -> np.ndarray:
    return np.array(
        [[sum(x[i : i + len(p)] == p for i in range(len(x) - len(p) + 1)) for p in PATTERNS] for x in X], dtype=float
    )


def _unit_features(X: list[str], weights: list[float]) -> np.ndarray:
    """The rows w_k |x|_k divided by their norm, in exact arithmetic (each entry rounded once):
    with weights 1e-170 and 1e160 in one row, the light entries are ≈ 1e-330, i.e. 0."""
    out = np.zeros((len(X), len(PATTERNS)))
    for i, row in enumerate(_counts(X)):
        v = [Fraction(w) * int(c) for w, c in zip(weights, row)]
        norm2 = sum(e * e for e in v)
        for k, e in enumerate(v):
            if e:
                q = e * e / norm2  # the squared entry, scaled by 4^t into the normal range
                t = (q.denominator.bit_length() - q.numerator.bit_length()) // 2
                out[i, k] = math.ldexp(math.sqrt(float(q * Fraction(4) ** t)), -t)
    return out


@pytest.mark.parametrize("representation", ["trie", "automaton", "naive", "rows"])
@pytest.mark.parametrize(
    "weights",
    [[1e-170] * 4, [1e160] * 4, [1e300] * 4, [1e-170, 1e-170, 1e160, 1e160]],
    ids=["1e-170", "1e160", "1e300", "mixed"],
)
def test_rational_svc_on_a_cosine_of_extreme_weights_is_the_model_of_its_unit_features(representation, weights):
    """Uniform weights: the model of weights 1 (normalised counts, scikit-learn). Weights
    1e-170 and 1e160 in one kernel (no common scale to take out): rows normalised by their
    own scale, each K(x, x) (1e-340 or 1e320) being no float."""
    X, Xt = _strings(3, 24), _strings(4, 12)
    y = np.array([1 if x.count("a") > x.count("b") else -1 for x in X])
    if len(set(weights)) == 1:
        np.testing.assert_allclose(_unit_features(X, weights), normalize(_counts(X)), rtol=1e-15)
    kw = dict(C=1.0, tol=1e-3, max_iter=1000, shrinking=False, random_state=7)
    ref = LinearDCDSVC(fit_intercept=False, **kw).fit(_unit_features(X, weights), y)
    m = RationalSVC(cosine(count_based(PATTERNS, weights)), representation=representation, **kw)
    m.fit(X, y)
    expected = ref.decision_function(_unit_features(Xt, weights))
    assert len(set(ref.predict(_unit_features(Xt, weights)))) == 2  # it separates: one class would be wrong
    np.testing.assert_allclose(m.decision_function(Xt), expected, atol=1e-8)
    np.testing.assert_array_equal(m.predict(Xt), ref.predict(_unit_features(Xt, weights)))
