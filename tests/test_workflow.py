"""Scoring labelled data against a model: labels the model never saw are named, not sklearn's error.

Regression (review, issue 20): ``ratkit predict`` on a file with a label unknown to the model
ended in scikit-learn's "Target is multiclass but average='binary'".
"""

from __future__ import annotations

import pytest

from ratkit.exceptions import RatkitError, TrainingDataError
from ratkit.workflow import scores


class _Model:
    classes_ = ("neg", "pos")


def test_an_unknown_label_is_named_with_the_known_classes():
    with pytest.raises(TrainingDataError, match=r"'other'.*knows 'neg', 'pos'") as info:
        scores(_Model(), ["pos", "neg", "other"], ["pos", "neg", "pos"])
    assert isinstance(info.value, RatkitError) and isinstance(info.value, ValueError)


def test_known_labels_score_as_before():
    acc, f1, what = scores(_Model(), ["pos", "neg", "pos"], ["pos", "neg", "neg"])
    assert acc == pytest.approx(2 / 3) and f1 == pytest.approx(2 / 3) and what == "F1 of 'pos'"


def test_a_positive_class_the_model_lacks_is_refused_not_swapped():
    """Regression (audit): a positive class outside classes_ was replaced by classes_[1] in silence."""
    from ratkit.exceptions import ParameterError

    with pytest.raises(ParameterError, match=r"positive class 'Pos' is not a class of the model \('neg', 'pos'\)"):
        scores(_Model(), ["pos", "neg"], ["pos", "neg"], positive="Pos")
    # the negative class may be the positive one: its F1 (oracle: 1 of 2 'neg' found, no false 'neg')
    acc, f1, what = scores(_Model(), ["pos", "neg", "neg"], ["pos", "neg", "pos"], positive="neg")
    assert what == "F1 of 'neg'" and f1 == pytest.approx(2 / 3)
