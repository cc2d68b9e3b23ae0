"""Issue 34: ``ratkit predict --scores`` writes the decision values beside the labels.

The values are checked against the model's own ``decision_function`` called from Python,
and the labels against the sign (two classes) or the largest column (more classes)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ratkit import load_model, save_model
from ratkit.automata.kernels import from_spec
from ratkit.datasets import write_tsv
from ratkit.learners import RationalSVC
from tests.cli._helpers import run


def _data(classes, n=30, seed=0):
    rng = random.Random(seed)
    X, y = [], []
    for i in range(n):
        c = classes[i % len(classes)]
        favoured = "acgt"[classes.index(c)]
        X.append("".join(rng.choice("acgt" + favoured * 3) for _ in range(rng.randint(8, 14))))
        y.append(c)
    return X, y


@pytest.mark.parametrize("classes", [["neg", "pos"], ["x", "y", "z"]])
def test_scores_are_the_models_decision_values(classes, tmp_path, capsys):
    X, y = _data(classes)
    model = RationalSVC(kernel=from_spec({"family": "ngram", "n": 2})).fit(X[:20], y[:20])
    save_model(model, tmp_path / "m.zip")
    write_tsv(tmp_path / "new.tsv", X[20:], y[20:])

    argv = ["predict", "--model", tmp_path / "m.zip", "--data", tmp_path / "new.tsv"]
    code, out, err = run([*argv, "--scores", "-o", tmp_path / "p.tsv"], capsys)
    assert code == 0, err
    header, *rows = (tmp_path / "p.tsv").read_text().splitlines()
    columns = ["score:pos"] if classes == ["neg", "pos"] else [f"score:{c}" for c in classes]
    assert header.split("\t") == ["label", *columns, "sequence"]
    fields = [row.split("\t") for row in rows]
    assert [f[-1] for f in fields] == X[20:]
    written = np.array([[float(v) for v in f[1:-1]] for f in fields])

    expected = np.asarray(model.decision_function(X[20:])).reshape(len(rows), -1)  # the Python API
    np.testing.assert_array_equal(written, expected)  # shortest round-trip floats: exact
    np.testing.assert_array_equal(written, load_model(tmp_path / "m.zip").decision_function(X[20:]).reshape(10, -1))
    labels = [f[0] for f in fields]
    if written.shape[1] == 1:
        assert labels == [classes[1] if v > 0 else classes[0] for v in written[:, 0]]
    else:
        assert labels == [classes[j] for j in written.argmax(axis=1)]
    assert labels == [str(p) for p in model.predict(X[20:])]

    # on standard output: the same lines; without --scores: label<TAB>sequence as before
    code, out, _ = run([*argv, "--scores"], capsys)
    assert code == 0 and out.splitlines() == [header, *rows]
    code, out, _ = run(argv, capsys)
    assert code == 0 and out.splitlines() == [f"{lab}\t{x}" for lab, x in zip(labels, X[20:])]
