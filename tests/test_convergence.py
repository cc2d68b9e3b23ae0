"""Every iterative model that stops at its iteration cap before its stopping rule holds warns
with scikit-learn's ConvergenceWarning, from Python and from the ``ratkit`` command (issue 34).

Models with a stopping rule (``tol``): RationalSVC and LinearDCDSVC (dual coordinate
descent), MFAUC, CCCF, DCF. Each is fitted with ``max_iter=1`` (warns, naming the model and
``max_iter``) and with enough iterations (no warning, and for the models that report it
``converged_`` is True). The warning points at the caller's line (this file), not at
ratkit's internals. Models run for a fixed budget with no stopping rule (TJSL, FISM: a number
of epochs) have nothing to converge to and never warn; PureSVD's ARPACK raises SolverError
when it does not converge (ratkit._convergence says which does what).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

import ratkit
from ratkit.learners import LinearDCDSVC, RationalSVC
from ratkit.recsys import CCCF, DCF, FISM, MFAUC, TJSL, PureSVD
from tests.recsys.synthetic import random_one_class


def _ratings(seed: int = 0, m: int = 40, n: int = 30) -> sp.csr_matrix:
    """Explicit 1–5 ratings, half the cells rated, every user and item rated."""
    rng = np.random.default_rng(seed)
    rated = rng.random((m, n)) < 0.5
    rated[np.arange(m), np.arange(m) % n] = True
    rated[np.arange(n) % m, np.arange(n)] = True
    return sp.csr_matrix(np.where(rated, rng.integers(1, 6, (m, n)), 0).astype(float))


def _strings(seed: int = 0) -> tuple[list[str], list[int]]:
    rng = np.random.default_rng(seed)
    X = ["".join(rng.choice(list("ab" if k % 2 else "bc"), 10)) for k in range(40)]
    return X, [k % 2 for k in range(40)]


def _dense(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((60, 5))
    return X, np.where(X[:, 0] + 0.3 * rng.standard_normal(60) > 0, 1, -1)


# (name, make(max_iter), data) for every model with a stopping rule
MODELS = [
    ("RationalSVC", lambda it: RationalSVC(max_iter=it, random_state=0), _strings),
    ("LinearDCDSVC", lambda it: LinearDCDSVC(max_iter=it, random_state=0), _dense),
    (
        "MFAUC",
        lambda it: MFAUC(n_factors=4, max_iter=it, tol=1e-2, random_state=0),
        lambda: random_one_class(30, 25, 0.3, 0),
    ),
    ("CCCF", lambda it: CCCF(n_components=2, n_bits=4, max_iter=it, tol=1e-3, random_state=0), _ratings),
    ("DCF", lambda it: DCF(n_bits=4, max_iter=it, tol=1e-3, random_state=0), _ratings),
]


def _fit(model, data):
    args = data()
    return model.fit(*args) if isinstance(args, tuple) else model.fit(args)


@pytest.mark.parametrize("name, make, data", MODELS, ids=[m[0] for m in MODELS])
def test_stopping_at_max_iter_warns(name, make, data):
    with pytest.warns(
        ConvergenceWarning, match=rf"^{name}\b.*did not converge in max_iter=1 \w+: .*Increase max_iter"
    ) as record:
        model = _fit(make(1), data)
    assert [Path(w.filename).resolve() for w in record if issubclass(w.category, ConvergenceWarning)] == [
        Path(__file__).resolve()
    ]  # the caller's line, not ratkit's
    if hasattr(model, "converged_"):
        assert model.converged_ is False


@pytest.mark.parametrize("name, make, data", MODELS, ids=[m[0] for m in MODELS])
def test_a_converged_fit_does_not_warn(name, make, data):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = _fit(make(1000), data)
    if hasattr(model, "converged_"):
        assert model.converged_ is True
    if hasattr(model, "objective_history_"):  # CCCF, DCF: stopped by the rule, before the cap
        assert len(model.objective_history_) - 1 < 1000


@pytest.mark.parametrize(
    "model",
    [TJSL(n_factors=4, n_rounds=1, n_epochs=1, random_state=0), FISM(n_factors=4, n_epochs=1, random_state=0)],
    ids=["TJSL", "FISM"],
)
def test_a_fixed_number_of_epochs_is_not_a_convergence_failure(model):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(random_one_class(30, 25, 0.3, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        PureSVD(n_factors=3, random_state=0).fit(random_one_class(30, 25, 0.3, 0))


# -- the command line ----------------------------------------------------------------------------
def _ratkit(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    """``ratkit ARGV`` in a fresh interpreter (the package under test first on the path)."""
    root = str(Path(ratkit.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    env.pop("PYTHONWARNINGS", None)
    code = "import sys; from ratkit.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture
def data_files(tmp_path: Path) -> Path:
    X, y = _strings()
    (tmp_path / "train.tsv").write_text("".join(f"{c}\t{s}\n" for s, c in zip(X, y, strict=True)))
    R = _ratings(m=40, n=30).tocoo()
    (tmp_path / "ratings.csv").write_text(
        "user,item,rating\n" + "".join(f"{u},{i},{int(r)}\n" for u, i, r in zip(R.row, R.col, R.data, strict=True))
    )
    return tmp_path


@pytest.mark.slow
def test_the_command_line_shows_the_warning(data_files):
    train = _ratkit("train", "--data", "train.tsv", "--max-iter", "1", "--quiet", cwd=data_files)
    assert train.returncode == 0, train.stderr
    # one line per warning (the command line's format): the message, then its category
    assert re.search(
        r"^ratkit train: warning: RationalSVC .* did not converge in max_iter=1 .*\(ConvergenceWarning\)$",
        train.stderr,
        re.M,
    ), train.stderr
    ok = _ratkit("train", "--data", "train.tsv", "--quiet", cwd=data_files)
    assert ok.returncode == 0 and "ConvergenceWarning" not in ok.stderr, ok.stderr

    argv = ["recsys", "evaluate", "--data", "ratings.csv", "--format", "csv", "--min-positives", "3", "--quiet"]
    short = _ratkit(*argv, "--model", "mfauc", "dcf", "--param", "max_iter=1", cwd=data_files)
    assert short.returncode == 0, short.stderr
    for name in ("MFAUC", "DCF"):
        line = rf"^ratkit recsys evaluate: warning: {name} did not converge in max_iter=1 .*\(ConvergenceWarning\)$"
        assert re.search(line, short.stderr, re.M), short.stderr
    enough = _ratkit(*argv, "--model", "dcf", "--param", "max_iter=1000", "--param", "tol=0.001", cwd=data_files)
    assert enough.returncode == 0 and "ConvergenceWarning" not in enough.stderr, enough.stderr


def test_mfauc_defaults_converge_on_data_of_movielens_shape():
    """A default that stops short warns on every run: at max_iter=50 MFAUC() stopped before
    its tol on MovieLens 100K (and on this matrix of its shape and density); 200 suffices."""
    X = random_one_class(900, 1600, 0.03, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = MFAUC(random_state=0).fit(X)
    assert model.converged_
    with pytest.warns(ConvergenceWarning):
        MFAUC(max_iter=50, random_state=0).fit(X)
