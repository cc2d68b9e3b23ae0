"""``ratkit demo`` says where its model went (issue 20): with ``-o MODEL.zip`` the model is kept
there and the path printed; without it, the command says the model was written to a temporary
folder for the reload check and deleted, and how to keep it, and leaves no file behind."""

from __future__ import annotations

import contextlib
import io
import re
import tempfile

import numpy as np
import pytest

from ratkit import load_model
from ratkit.cli._main import main
from ratkit.datasets import load_splice
from ratkit.demo import run_demo
from ratkit.exceptions import OutputPathError
from ratkit.workflow import prepare, split_dataset
from tests.cli._helpers import run


def _accuracy(out):
    return float(re.search(r"held-out accuracy ([0-9.]+)", out).group(1))


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """(stdout, model file) of ``ratkit demo -o MODEL.zip --quiet``."""
    path = tmp_path_factory.mktemp("demo") / "splice.zip"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["demo", "-o", str(path), "--quiet"])
    assert code == 0, err.getvalue()
    return out.getvalue(), path


def test_demo_keeps_the_model_at_the_given_path_and_prints_it(kept):
    out, path = kept
    assert path.is_file()
    assert f"saved the model to {path} (" in out
    assert out.splitlines()[-1] == f"model written to {path}"
    # the kept file is the model that was evaluated: its held-out accuracy is the printed one
    test = split_dataset(load_splice(), 0.25, 0)[1]
    model = load_model(path)
    predicted = model.predict(prepare(test.sequences, True))
    assert np.mean(predicted == np.asarray(test.labels)) == pytest.approx(_accuracy(out), abs=5e-5)


def test_demo_without_output_says_the_model_was_deleted_and_how_to_keep_it(kept, tmp_path, monkeypatch, capsys):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    code, out, err = run(["demo", "--quiet"], capsys)
    assert code == 0, err
    assert "saved the model to a temporary folder (" in out
    last = out.splitlines()[-1]
    assert "temporary folder for the reload check and deleted" in last and "ratkit demo -o MODEL.zip" in last
    assert list(scratch.iterdir()) == []  # nothing left behind
    # make demo's numbers do not depend on where the model is saved
    kept_out = kept[0]
    for pattern in (r"held-out accuracy \S+, macro F1 \S+", r"\d+ passes", r"trie of \d+ states"):
        assert re.search(pattern, out).group(0) == re.search(pattern, kept_out).group(0)


def test_an_unwritable_output_fails_before_training(tmp_path, capsys):
    code, out, err = run(["demo", "-o", tmp_path / "missing" / "m.zip"], capsys)
    assert code == 2 and out == ""
    assert "ratkit demo: error: argument -o/--output:" in err and "missing' does not exist" in err
    printed = []
    with pytest.raises(OutputPathError, match="folder"):
        run_demo(output=tmp_path, print_fn=printed.append)  # a folder, not a file
    assert printed == []  # refused before the data were even read


def test_run_demo_returns_the_kept_path(tmp_path):
    path = tmp_path / "small.zip"
    result = run_demo(limit=60, output=path, print_fn=lambda line: None)
    assert result["model_path"] == path and path.is_file() and result["reload_identical"]
    assert run_demo(limit=60, print_fn=lambda line: None)["model_path"] is None
