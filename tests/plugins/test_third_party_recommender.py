"""A recommender ratkit does not contain, from a throwaway distribution's entry point, without
edits to ratkit: it passes the public contract, ``ratkit recsys evaluate --model NAME`` runs it
on a generated file and writes it, and ``ratkit.load_model`` restores it with equal scores."""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import plugins
from ratkit.cli._main import main
from ratkit.recsys import Recommender
from ratkit.testing import RecommenderContract
from tests.thirdparty import installed_distribution

NAME = "damped-popularity"
MODULE = "ratkit_tp_damped"

_SOURCE = '''\
from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from ratkit.recsys import Recommender


class DampedPopularity(Recommender):
    """Item popularity with damping: s(u, i) = (Σ_v X_vi) / (|{v : X_vi > 0}| + damping)."""

    _fitted_attributes: ClassVar[tuple[str, ...]] = ("item_scores_",)

    def __init__(self, damping: float = 2.0) -> None:
        self.damping = damping

    def _validate_params(self) -> None:
        if not self.damping > 0:
            raise ValueError(f"The 'damping' parameter of DampedPopularity must be > 0. Got {self.damping!r} instead.")

    def _fit(self, user_items: sp.csr_matrix) -> None:
        n_items = user_items.shape[1]
        totals = np.bincount(user_items.indices, weights=user_items.data, minlength=n_items)
        counts = np.bincount(user_items.indices, minlength=n_items)
        self.item_scores_ = totals / (counts + self.damping)

    def _score_users(self, users: np.ndarray) -> np.ndarray:
        return np.broadcast_to(self.item_scores_, (len(users), len(self.item_scores_)))
'''


@pytest.fixture(scope="module")
def distribution(tmp_path_factory):
    """``ratkit-tp-recsys`` on sys.path, with the entry point ratkit.recommenders: damped-popularity."""
    with installed_distribution(
        tmp_path_factory.mktemp("site"),
        "ratkit-tp-recsys",
        {f"{MODULE}.py": _SOURCE},
        {"ratkit.recommenders": {NAME: f"{MODULE}:DampedPopularity"}},
    ) as root:
        yield root


@pytest.fixture
def subprocess_env(distribution, monkeypatch):
    """PYTHONPATH naming the distribution, for a ratkit run in another interpreter."""
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(distribution), os.environ.get("PYTHONPATH")])))
    return dict(os.environ)


@pytest.fixture
def events_file(tmp_path):
    """A generic CSV of ``user,item`` events: 25 users, 15 items, two taste groups."""
    rng = np.random.default_rng(3)
    rows = ["user,item"]
    for user in range(25):
        liked = range(0, 8) if user < 15 else range(6, 15)
        rows += [f"u{user},i{item}" for item in liked if rng.random() < 0.7]
    path = tmp_path / "events.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def _oracle(matrix: sp.csr_matrix, damping: float) -> np.ndarray:
    """s(i) = Σ_u X_ui / (n_i + d), by brute force over the dense matrix."""
    dense = matrix.toarray()
    return np.array([dense[:, i].sum() / ((dense[:, i] > 0).sum() + damping) for i in range(dense.shape[1])])


def test_the_entry_point_is_a_recommender_plugin(distribution):
    model_cls = plugins.get("recommender", NAME)
    assert issubclass(model_cls, Recommender) and model_cls.__module__ == MODULE
    assert NAME in plugins.available("recommender")
    assert plugins.describe("recommender", NAME).distribution == "ratkit-tp-recsys"


@pytest.mark.usefixtures("distribution")
class TestDampedPopularityContract(RecommenderContract):
    """The public contract runs on the third party's model as on ratkit's own."""

    personalised = False

    def make_model(self):
        return importlib.import_module(MODULE).DampedPopularity(damping=0.5)


def test_evaluate_runs_the_third_party_model_and_load_model_restores_it(distribution, events_file, tmp_path, capsys):
    from ratkit import load_model
    from ratkit.datasets import load_interactions_csv
    from ratkit.recsys.evaluation import prepare_leave_k_out

    target = tmp_path / "damped.zip"
    argv = ["recsys", "evaluate", "--data", str(events_file), "--format", "csv", "--model", NAME]
    argv += ["--param", "damping=3", "--min-positives", "3", "--n-test", "1", "-k", "2", "--seed", "4"]
    assert main([*argv, "-o", str(target)]) == 0
    out = capsys.readouterr().out
    assert "\nmodel DampedPopularity: DampedPopularity(damping=3)\n" in out
    assert "auc" in out and "seed=4" in out
    written = out.rsplit("wrote the fitted model to ", 1)[1].strip()

    loaded = load_model(written)
    assert type(loaded).__name__ == "DampedPopularity" and loaded.damping == 3
    train, _, _ = prepare_leave_k_out(
        load_interactions_csv(events_file), threshold=None, min_positives=3, n_test=1, random_state=4
    )
    users, items = np.meshgrid(np.arange(train.shape[0]), np.arange(train.shape[1]), indexing="ij")
    np.testing.assert_allclose(loaded.score(users, items), np.tile(_oracle(train, 3.0), (train.shape[0], 1)))


@pytest.mark.slow
def test_evaluate_in_a_fresh_interpreter_finds_the_plugin(subprocess_env, events_file, tmp_path):
    """What a user types: another process discovers the entry point through importlib.metadata."""
    target = tmp_path / "fresh.zip"
    code = "import sys; from ratkit.cli._main import main; sys.exit(main(sys.argv[1:]))"
    argv = ["recsys", "evaluate", "--data", str(events_file), "--format", "csv", "--model", NAME]
    argv += ["--min-positives", "3", "--n-test", "1", "-k", "2", "-o", str(target)]
    run = subprocess.run(
        [sys.executable, "-c", code, *argv], env=subprocess_env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert "\nmodel DampedPopularity: DampedPopularity(damping=2.0)\n" in run.stdout
    check = (
        "import sys, numpy as np; from ratkit import load_model; m = load_model(sys.argv[1]); "
        "print(type(m).__name__, m.damping, float(np.max(m.item_scores_)))"
    )
    run = subprocess.run(
        [sys.executable, "-c", check, run.stdout.rsplit("wrote the fitted model to ", 1)[1].strip()],
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    name, damping, best = run.stdout.split()
    assert (name, float(damping)) == ("DampedPopularity", 2.0) and 0 < float(best) < 1


def test_a_plugin_that_is_not_a_recommender_class_is_refused(tmp_path, events_file, capsys):
    with installed_distribution(
        tmp_path / "site",
        "ratkit-tp-bad-recsys",
        {"ratkit_tp_bad.py": "def not_a_model():\n    '''A function, not a Recommender.'''\n"},
        {"ratkit.recommenders": {"tp-function": "ratkit_tp_bad:not_a_model"}},
    ):
        argv = ["recsys", "evaluate", "--data", str(events_file), "--format", "csv", "--model", "tp-function"]
        assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ratkit recsys evaluate: error: The recommender plugin 'tp-function' is <function")
    assert "not a subclass of ratkit.recsys.Recommender" in err
