"""A learner plugin that is a plain scikit-learn estimator (no ratkit base class, no save
method), declaring only its fitted attributes: 'ratkit train -o' writes it, 'ratkit predict'
and load_model serve it (-o called model.save, which only ratkit's mixin has: an internal
error after the whole training run)."""

from __future__ import annotations

import numpy as np

from ratkit import load_model
from ratkit.cli._main import main
from tests.thirdparty import installed_distribution

_SOURCE = '''
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone


class NearestMean(ClassifierMixin, BaseEstimator):
    """The class whose training sequences have the largest mean kernel value."""

    _fitted_attributes = ("classes_", "kernel_", "X_", "y_")

    def __init__(self, kernel=None):
        self.kernel = kernel

    def fit(self, X, y):
        self.kernel_ = clone(self.kernel)
        self.X_, self.y_ = list(X), np.asarray(y)
        self.classes_ = np.unique(self.y_)
        return self

    def predict(self, X):
        G = self.kernel_.gram(list(X), self.X_)
        return self.classes_[np.stack([G[:, self.y_ == c].mean(axis=1) for c in self.classes_], axis=1).argmax(axis=1)]
'''


def test_train_writes_and_predict_serves_a_plain_estimator_plugin(tmp_path, capsys):
    data = tmp_path / "d.tsv"
    rows = [("up", "ab" * (i % 5 + 1)) if i % 2 else ("down", "ba" * (i % 4 + 1) + "a") for i in range(20)]
    data.write_text("".join(f"{label}\t{seq}\n" for label, seq in rows))
    with installed_distribution(
        tmp_path / "site",
        "tp-plain",
        {"tp_plain.py": _SOURCE},
        {"ratkit.learners": {"nearest-mean": "tp_plain:NearestMean"}},
    ):
        spec = '{"family": "ngram", "n": 2}'
        code = main(
            [
                "train",
                "--learner",
                "nearest-mean",
                "--kernel",
                spec,
                "--data",
                str(data),
                "-o",
                str(tmp_path / "m.zip"),
                "--quiet",
            ]
        )
        assert code == 0, capsys.readouterr().err
        model = load_model(tmp_path / "m.zip")
        assert type(model).__name__ == "NearestMean"
        X = [seq for _, seq in rows]
        G = model.kernel_.gram(X, model.X_)  # the oracle: the nearest class mean, computed here
        means = np.stack([G[:, model.y_ == c].mean(axis=1) for c in model.classes_], axis=1)
        np.testing.assert_array_equal(model.predict(X), model.classes_[means.argmax(axis=1)])
        assert (
            main(["predict", "--model", str(tmp_path / "m.zip"), "--data", str(data), "-o", str(tmp_path / "p.tsv")])
            == 0
        )
        assert len((tmp_path / "p.tsv").read_text().splitlines()) == len(rows)
