"""Regression (audit): a model trained on tokens (ratkit train --positional, the demo) and given
plain strings, the form ratkit.load_model users pass, saw every pattern as unseen and predicted
one class for every input (the demo's model: 52 % accuracy instead of 96 %), without a word."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ratkit.learners import RationalSVC
from ratkit.workflow import positional_tokens

X = ["acgtac", "acgaac", "tgcatg", "tgcttg", "acgtaa", "tgcatc"]
y = ["a", "a", "t", "t", "a", "t"]


@pytest.fixture(scope="module")
def positional():
    return RationalSVC({"family": "ngram", "n": 2}, random_state=0).fit(positional_tokens(X), y)


def test_strings_given_to_a_model_of_tokens_are_warned_about(positional):
    with pytest.warns(UserWarning, match="None of the symbols of the 6 input"):
        constant = positional.decision_function(X)
    assert np.ptp(constant) == 0  # what the warning is about: one score for every input


def test_inputs_in_the_training_form_are_not_warned_about(positional):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(positional.predict(positional_tokens(X))) == y
        model = RationalSVC({"family": "ngram", "n": 2}, random_state=0).fit(X, y)
        model.predict(["zzzz", "acgt"])  # some unseen symbols are ordinary
