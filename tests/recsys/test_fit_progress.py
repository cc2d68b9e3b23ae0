"""Progress bars of the iterative recommender fits: they count the iterations done (no bar to
``max_iter``), show the current objective (the number the fit records) and stay on screen."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import plugins
from ratkit.recsys import CCCF, MFAUC, TJSL
from tests.recsys.synthetic import random_one_class


def _last_line(err: str) -> str:
    return err.replace("\r", "\n").strip().splitlines()[-1]


def _ratings(seed: int = 0, m: int = 40, n: int = 30) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    mask = rng.random((m, n)) < 0.3
    mask[np.arange(m), rng.integers(0, n, m)] = True
    return sp.csr_matrix(np.where(mask, rng.integers(1, 6, (m, n)).astype(float), 0.0))


def test_mfauc_bar_shows_iterations_and_the_recorded_objective(capsys):
    X = random_one_class(40, 30, 0.2, seed=0)
    m = MFAUC(n_factors=4, max_iter=200, tol=1e-3, random_state=0, show_progress=True).fit(X)
    last = _last_line(capsys.readouterr().err)
    assert m.converged_ and m.n_iter_ < 200  # stopped on tol, so a bar to max_iter would have lied
    assert last.startswith(f"MFAUC: {m.n_iter_} iter ")
    assert f"objective={m.objective_[-1]:.6g}" in last
    change = abs(m.objective_[-1] - m.objective_[-2]) / abs(m.objective_[-2])
    assert f"change={change:.1e}" in last and "tol=1.0e-03" in last
    assert "/200" not in last


def test_mfauc_bar_names_the_beta_stage(capsys):
    X = random_one_class(30, 20, 0.2, seed=1)
    MFAUC(n_factors=3, loss="logistic", beta=[1.0, 4.0], max_iter=6, tol=0.0, random_state=0, show_progress=True).fit(X)
    assert "stage=2/2" in _last_line(capsys.readouterr().err)


def test_cccf_bar_shows_iterations_and_the_recorded_objective(capsys):
    m = CCCF(3, 5, bandwidth=1.0, random_state=0, max_iter=6, tol=0.0, show_progress=True).fit(_ratings())
    last = _last_line(capsys.readouterr().err)
    history = m.objective_history_
    assert last.startswith(f"CCCF: {len(history) - 1} iter ")
    assert f"objective={history[-1]:.6g}" in last and "tol=0.0e+00" in last and "flips=" in last


def test_tjsl_bar_counts_epochs_with_the_round_and_loss(capsys):
    X = random_one_class(30, 20, 0.2, seed=2)
    TJSL(n_factors=4, n_rounds=2, n_average=1, n_epochs=3, random_state=0, show_progress=True).fit(X)
    last = _last_line(capsys.readouterr().err)
    assert "6/6" in last and "round=2/2" in last
    loss = float(last.split("loss=")[1].rstrip("]").split(",")[0])
    assert np.isfinite(loss) and loss > 0  # ½(r − r̂)² of pairs with targets 1 and 0


def test_bars_are_off_by_default(capsys):
    X = random_one_class(30, 20, 0.2, seed=3)
    MFAUC(n_factors=3, max_iter=3, random_state=0).fit(X)
    CCCF(3, 5, bandwidth=1.0, random_state=0, max_iter=2).fit(_ratings())
    TJSL(n_factors=3, n_rounds=1, n_average=1, n_epochs=2, random_state=0).fit(X)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("name", plugins.available("recommender"))
def test_every_registered_recommender_takes_show_progress_in_fit(name, capsys):
    """implicit's ``fit(user_items, show_progress=...)``: accepted by every recommender, for that
    fit only (get_params unchanged); True draws the bar of a model that has one, False draws
    nothing even when the model's own parameter says True."""
    cls = plugins.get("recommender", name)
    data = _ratings(m=40, n=30) if cls.feedback == "explicit" else random_one_class(40, 30, 0.2, seed=4)
    fast = {"max_iter": 3, "n_epochs": 1, "n_rounds": 1, "n_average": 1, "n_factors": 3, "n_bits": 8}
    params = {key: value for key, value in fast.items() if key in cls._get_param_names()}
    if "random_state" in cls._get_param_names():
        params["random_state"] = 0
    has_bar = "show_progress" in cls._get_param_names()
    for flag in (True, False):
        model = cls(**params)
        if has_bar:
            model.set_params(show_progress=not flag)
        before = model.get_params()
        capsys.readouterr()
        assert model.fit(data, show_progress=flag) is model
        err = capsys.readouterr().err
        assert model.get_params() == before
        assert (cls.__name__ in err) == (flag and has_bar), err
