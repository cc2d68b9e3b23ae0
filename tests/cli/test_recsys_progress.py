"""``ratkit recsys evaluate`` shows the fit's progress on standard error (issue 20): a model with a
``show_progress`` parameter draws its bar with the iteration count and the objective, one
without gets the "fitting …" line only, and ``--quiet`` silences both without changing a number."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ratkit.testing._planted import planted_ratings
from tests.cli._helpers import run


@pytest.fixture(scope="module")
def ratings(tmp_path_factory):
    """ratkit.testing's planted 1–5 ratings as user,item,rating rows."""
    m = planted_ratings(seed=0).matrix.tocoo()
    path = tmp_path_factory.mktemp("recsys-progress") / "planted.csv"
    path.write_text("".join(f"{u},{i},{r:g}\n" for u, i, r in zip(m.row, m.col, m.data)))
    return path


def _argv(ratings, *more):
    data = ["--data", ratings, "--format", "csv", "--threshold", "4", "--min-positives", "5"]
    return ["recsys", "evaluate", *data, *more]


def test_mfauc_fit_shows_its_iterations_and_objective_on_stderr(ratings, tmp_path, capsys):
    from ratkit import load_model

    model_file = tmp_path / "mfauc.zip"
    code, out, err = run(_argv(ratings, "--model", "mfauc", "--param", "max_iter=30", "-o", model_file), capsys)
    assert code == 0, err
    assert "fitting mfauc on " in err
    shown = re.findall(r"MFAUC: (\d+) iter \[[^\]]*objective=([-0-9.e+]+), change=[-0-9.e+]+, tol=1\.0e-04", err)
    assert shown, err
    model = load_model(model_file)  # the model the command fitted: the oracle of the last bar state
    n_iter, objective = shown[-1]
    assert int(n_iter) == model.n_iter_ > 1
    np.testing.assert_allclose(float(objective), model.objective_[-1], rtol=1e-5)
    # progress is the command's display, not a parameter of the reported or saved model
    assert "show_progress=False" in out.splitlines()[1]  # the model line, below the protocol
    assert model.show_progress is False
    assert "precision@1" not in err and "objective" not in out


def test_quiet_prints_nothing_on_stderr_and_the_same_numbers(ratings, capsys):
    argv = _argv(ratings, "--model", "mfauc", "--param", "max_iter=30", "--param", "tol=0.01")  # converges: no warning
    code, loud, err = run(argv, capsys)
    assert code == 0 and "objective=" in err
    code, quiet, err = run([*argv, "--quiet"], capsys)
    assert code == 0
    assert err == ""
    assert quiet == loud


def test_a_model_without_progress_option_gets_the_fitting_line_only(ratings, capsys):
    code, out, err = run(_argv(ratings, "--model", "popularity", "puresvd"), capsys)
    assert code == 0, err
    fitting = r"fitting (popularity|puresvd) on 56 users × 32 items .*"
    assert [bool(re.fullmatch(fitting, line)) for line in err.splitlines()] == [True, True]
    code, _, err = run([*_argv(ratings, "--model", "popularity", "puresvd"), "--quiet"], capsys)
    assert code == 0 and err == ""


def test_an_explicit_show_progress_param_is_the_users_choice(ratings, capsys):
    argv = _argv(ratings, "--model", "mfauc", "--param", "max_iter=5", "--param", "show_progress=false")
    code, out, err = run(argv, capsys)
    assert code == 0
    assert "objective=" not in err and "fitting mfauc" in err
