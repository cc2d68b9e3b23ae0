"""Issue 34: the error for an unknown ``train --learner`` listed ``linear-dcd`` and
``kernel-learner``, which ``train`` then refuses. It lists only the learners it accepts."""

from __future__ import annotations

import inspect
import re

import pytest

from ratkit import plugins
from ratkit.datasets import write_tsv
from ratkit.plugins import registry
from tests.cli._helpers import run


@pytest.fixture
def clean_registry():
    registry._load_builtins()
    saved = {k: dict(v) for k, v in registry._registry.items()}
    plugins.refresh()
    yield
    registry._registry.clear()
    registry._registry.update(saved)
    plugins.refresh()


def _usable(name):
    """Independently of the CLI: the plugin is a class with a ``kernel`` parameter and a ``predict``."""
    cls = plugins.get("learner", name)
    return (
        isinstance(cls, type)
        and "kernel" in inspect.signature(cls).parameters
        and callable(getattr(cls, "predict", None))
    )


def test_an_unknown_learner_lists_only_what_train_accepts(clean_registry, tmp_path, capsys):
    @plugins.register("learner", "zz-kernel-predictor")
    class KernelPredictor:  # accepted: takes a kernel and predicts
        def __init__(self, kernel=None):
            self.kernel = kernel

        def predict(self, X):
            return X

    @plugins.register("learner", "zz-no-kernel")
    class NoKernel:  # refused by train
        def predict(self, X):
            return X

    write_tsv(tmp_path / "d.tsv", ["ab", "ba"], ["x", "y"])
    code, out, err = run(["train", "--data", tmp_path / "d.tsv", "--learner", "nope", "-o", tmp_path / "m.zip"], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    m = re.fullmatch(
        r"ratkit train: error: No learner plugin named 'nope'\. 'ratkit train' takes a learner plugin that takes "
        r"a kernel and predicts labels: (.*) \('ratkit plugins list' shows every plugin\)\.\n",
        err,
    )
    assert m, err
    listed = m.group(1).split(", ")
    expected = sorted(name for name in plugins.available("learner") if _usable(name))
    assert listed == expected
    assert "rational-svc" in listed and "zz-kernel-predictor" in listed
    assert not {"linear-dcd", "kernel-learner", "zz-no-kernel"} & set(listed)
    for refused in ("linear-dcd", "kernel-learner"):  # and train does refuse those it leaves out
        code, _, err = run(["train", "--data", tmp_path / "d.tsv", "--learner", refused], capsys)
        assert code == 2 and f"learner {refused!r}" in err
