"""Renamed recommender parameters (issue 36): the former spelling warns and fits the same model.

Regularisation is spelled ``regularization`` (implicit's name), a penalty of one part
``regularization_<part>``; CCCF's smoothing kernel is ``smoothing`` (tests/recsys/test_cccf.py).
The former spellings stay one release, scikit-learn style.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from ratkit.exceptions import ParameterError
from ratkit.recsys import FISM, MFAUC, TJSL

TJSL_RENAMED = {
    "alpha_v": "regularization_candidate",
    "alpha_p": "regularization_preferred",
    "alpha_e": "regularization_examined",
    "beta_u": "regularization_user_bias",
    "beta_v": "regularization_item_bias",
}


def _data(seed: int = 0) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    rng = np.random.default_rng(seed)
    both = rng.random((30, 20))
    P = sp.csr_matrix((both < 0.25).astype(float))
    E = sp.csr_matrix(((both >= 0.25) & (both < 0.4)).astype(float))
    return P, E


def _fit(cls, params, P, E):
    model = cls(n_factors=3, random_state=0, **params)
    return model.fit(P) if cls is not TJSL else model.fit(P, examined=E)


def _same_state(a, b) -> None:
    names = [k for k in vars(a) if k.endswith("_") and not k.startswith("_")]
    assert names == [k for k in vars(b) if k.endswith("_") and not k.startswith("_")]
    for name in names:
        x, y = getattr(a, name), getattr(b, name)
        if sp.issparse(x):
            assert (x != y).nnz == 0, name
        else:
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=name)


CASES = [(MFAUC, "lam", "regularization", 0.03)]
CASES += [(TJSL, old, new, 0.05) for old, new in TJSL_RENAMED.items()]
CASES += [(FISM, old, new, 0.05) for old, new in TJSL_RENAMED.items() if old != "alpha_e"]


@pytest.mark.parametrize("cls, old, new, value", CASES, ids=[f"{c.__name__}-{o}" for c, o, _, _ in CASES])
def test_the_former_spelling_warns_and_fits_the_same_model(cls, old, new, value):
    P, E = _data()
    extra = {"max_iter": 3} if cls is MFAUC else {"n_epochs": 2}
    want = _fit(cls, {new: value, **extra}, P, E)
    with pytest.warns(DeprecationWarning, match=f"'{old}' parameter of {cls.__name__} is deprecated.*'{new}'"):
        got = _fit(cls, {old: value, **extra}, P, E)
    _same_state(got, want)
    assert clone(got).get_params() == got.get_params()
    assert f"{old}=" not in repr(want)  # an unset former spelling stays out of reports


@pytest.mark.parametrize("cls, old, new, value", CASES[:2], ids=["MFAUC", "TJSL"])
def test_both_spellings_together_are_refused_and_bad_values_name_the_given_spelling(cls, old, new, value):
    P, E = _data()
    with pytest.raises(ParameterError, match=f"deprecated spelling of '{new}'"):
        _fit(cls, {old: value, new: 2 * value}, P, E)
    with pytest.warns(DeprecationWarning), pytest.raises(ParameterError, match=f"'{old}' parameter"):
        _fit(cls, {old: -1.0}, P, E)
    with pytest.raises(ParameterError, match=f"'{new}' parameter"):
        _fit(cls, {new: -1.0}, P, E)
