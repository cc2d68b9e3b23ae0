"""Scoring labelled data against a model: labels the model never saw are named, not sklearn's error.

Regression (review, issue 20): ``ratkit predict`` on a file with a label unknown to the model
ended in scikit-learn's "Target is multiclass but average='binary'".
"""

from __future__ import annotations

import pytest

from ratkit.exceptions import RatkitError, TrainingDataError
from ratkit.learners._workflow import scores


class _Model:
    classes_ = ("neg", "pos")


def test_an_unknown_label_is_named_with_the_known_classes():
    with pytest.raises(TrainingDataError, match=r"'other'.*knows 'neg', 'pos'") as info:
        scores(_Model(), ["pos", "neg", "other"], ["pos", "neg", "pos"])
    assert isinstance(info.value, RatkitError) and isinstance(info.value, ValueError)


def test_known_labels_score_as_before():
    acc, f1, what = scores(_Model(), ["pos", "neg", "pos"], ["pos", "neg", "neg"])
    assert acc == pytest.approx(2 / 3) and f1 == pytest.approx(2 / 3) and what == "F1 of 'pos'"
