"""Model files whose fitted attributes were edited, checksums recomputed (issue 35, class 1).

A file that passes its checksums may still have been written by hand. Before, a ``coef_`` of
NaN, ``classes_`` of ``[1, 1]`` or of three labels for a binary model, a complex or string
``coef_`` and an ``n_features_in_`` of ``"2"`` all loaded, and the model then predicted
garbage (one class for everything, the sign of NaN) or failed in numpy. Each is now refused by
:func:`ratkit.load_model` with a ModelFormatError naming the file, the attribute, what it holds
and what was expected; ``ratkit predict`` prints that as one line with exit status 2.

The variant matrix over every estimator and attribute is in tests/fitted/test_fitted.py.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ratkit import load_model, save_model
from ratkit.automata import kernels
from ratkit.datasets import write_tsv
from ratkit.exceptions import ModelFormatError
from ratkit.learners import LinearDCDSVC, RationalSVC
from ratkit.plugins import registry
from tests.cli._helpers import run
from tests.modelfiles import edit_model
from tests.plugins.test_plain_learner import _SOURCE as _PLAIN_PLUGIN_SOURCE

X_NUM = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0], [0.5, 2.5], [2.5, 0.5]])
Y_NUM = [0, 1, 0, 1, 0, 1]
X_STR = ["abab", "abba", "baba", "bbbb", "aaaa", "abaa"] * 2
Y_STR = [1, 1, 1, 0, 0, 0] * 2


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fitted")
    return {
        "linear-dcd": LinearDCDSVC(random_state=0).fit(X_NUM, Y_NUM).save(folder / "linear-dcd.zip"),
        "rational-linear": RationalSVC("linear", random_state=0).fit(X_NUM, Y_NUM).save(folder / "rational-linear.zip"),
        "rational-ngram": RationalSVC(kernels.ngram(2), random_state=0).fit(X_STR, Y_STR).save(folder / "ngram.zip"),
    }


def _coef(path):
    return load_model(path).coef_


# name → (the edit: arrays / attributes for edit_model, given the genuine coef_), the words expected
EXAMPLES = {
    "coef-nan": (
        lambda coef: {"arrays": {"coef_": np.where(np.arange(coef.size).reshape(coef.shape) == 0, np.nan, coef)}},
        r"fitted coef_ holds NaN or infinite values \(nan at index \[0, 0\]\); expected a 2-D array of finite floats",
    ),
    "classes-1-1": (
        lambda coef: {"arrays": {"classes_": np.array([1, 1])}},
        r"fitted classes_ holds the label 1 twice \(\[1, 1\]\); expected a 1-D array of at least 2 distinct class "
        r"labels in sorted order",
    ),
    "three-labels-binary": (
        lambda coef: {"arrays": {"classes_": np.array([0, 1, 2])}},
        r"fitted alpha_ has shape \(1, \d+\), but axis 0 should have 3 \(n_problems, from classes_\)",
    ),
    "coef-complex128": (
        lambda coef: {"arrays": {"coef_": coef.astype(np.complex128)}},
        r"fitted coef_ is an array of dtype complex128; expected a 2-D array of finite floats of shape "
        r"\(n_problems = 1, ",
    ),
    "coef-strings": (
        lambda coef: {"arrays": {"coef_": coef.astype(str)}},
        r"fitted coef_ is an array of dtype <U\d+; expected a 2-D array of finite floats",
    ),
    "n-features-in-json-string": (
        lambda coef: {"attributes": {"n_features_in_": {"json": "2"}}},
        r"fitted n_features_in_ is the str '2'; expected an int ≥ 1",
    ),
}


# a model of sequences has no n_features_in_
CASES = [
    (model, example)
    for model in ("linear-dcd", "rational-linear", "rational-ngram")
    for example in EXAMPLES
    if not (model == "rational-ngram" and example == "n-features-in-json-string")
]


@pytest.mark.parametrize(("model", "example"), CASES, ids=[f"{m}-{e}" for m, e in CASES])
def test_each_example_of_the_issue_is_refused_on_load(model, example, files, tmp_path):
    edit, words = EXAMPLES[example]
    edited = edit_model(files[model], tmp_path / "edited.zip", **edit(_coef(files[model])))
    with pytest.raises(ModelFormatError) as caught:
        load_model(edited)
    message = str(caught.value)
    assert message.startswith(f"{edited}: "), message  # names the file
    assert re.search(words, message), message  # the attribute, what it holds, what was expected


def test_the_genuine_files_still_load_and_predict_the_same(files):
    for key, path in files.items():
        X = X_STR if key == "rational-ngram" else X_NUM
        y = Y_STR if key == "rational-ngram" else Y_NUM
        assert list(load_model(path).predict(X)) == list(y)


def test_ratkit_predict_on_an_edited_file_is_one_error_line_with_exit_2(files, tmp_path, capsys):
    edited = edit_model(files["rational-ngram"], tmp_path / "edited.zip", arrays={"classes_": np.array([1, 1])})
    write_tsv(tmp_path / "data.tsv", X_STR, Y_STR)
    code, out, err = run(["predict", "--model", edited, "--data", tmp_path / "data.tsv"], capsys)
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert re.match(
        r"ratkit predict: error: .*edited\.zip: RationalSVC's fitted classes_ holds the label 1 twice", lines[0]
    )
    assert out == ""


# -- plugins: a subclass inherits the description; a class without one is checked generically --


class MarginSVC(RationalSVC):
    """A third party's RationalSVC subclass with one attribute of its own."""

    def fit(self, X, y):
        super().fit(X, y)
        self.margins_ = np.abs(self.decision_function(X))
        return self


def test_a_subclass_of_rational_svc_inherits_its_description(tmp_path, monkeypatch):
    monkeypatch.setitem(registry._registry["learner"], "margin-svc", MarginSVC)
    path = MarginSVC(kernels.ngram(2), random_state=0).fit(X_STR, Y_STR).save(tmp_path / "m.zip")
    assert type(load_model(path)) is MarginSVC
    edited = edit_model(path, tmp_path / "nan.zip", arrays={"coef_": np.full_like(_coef(path), np.nan)})
    with pytest.raises(ModelFormatError, match=r"MarginSVC's fitted coef_ holds NaN"):
        load_model(edited)
    # its own attribute, which the description does not cover, is checked generically
    edited = edit_model(path, tmp_path / "objects.zip", attributes={"margins_": {"objects": [[1, 2], [3]]}})
    with pytest.raises(ModelFormatError, match=r"MarginSVC's fitted margins_ is an object array holding a list"):
        load_model(edited)
    edited = edit_model(path, tmp_path / "complex.zip", arrays={"margins_": np.ones(12, dtype=np.complex128)})
    assert load_model(edited).margins_.dtype == np.complex128  # a plugin may hold complex numbers


# A plain scikit-learn estimator (no ratkit base class, no description): the third-party plugin
# of tests/plugins/test_plain_learner.py, the same source.
_plugin: dict = {}
exec(_PLAIN_PLUGIN_SOURCE, _plugin)
NearestMean = _plugin["NearestMean"]


def test_a_learner_without_a_description_still_loads_and_is_checked_generically(tmp_path, monkeypatch):
    monkeypatch.setitem(registry._registry["learner"], "nearest-mean-test", NearestMean)
    model = NearestMean(kernels.ngram(2)).fit(X_STR, Y_STR)
    path = save_model(model, tmp_path / "p.zip")
    again = load_model(path)
    assert list(again.predict(X_STR)) == list(model.predict(X_STR))
    edited = edit_model(path, tmp_path / "bad.zip", attributes={"y_": {"objects": [{"a": 1}] * len(Y_STR)}})
    with pytest.raises(ModelFormatError, match=r"NearestMean's fitted y_ is an object array holding a dict"):
        load_model(edited)
