"""``ratkit recsys`` commands: help everywhere, and an evaluation printing its protocol."""

from __future__ import annotations

import numpy as np
import pytest

from ratkit import plugins
from ratkit.cli._main import main
from ratkit.datasets import load_movielens
from ratkit.recsys import PureSVD
from ratkit.recsys.evaluation import prepare_leave_k_out
from ratkit.recsys.metrics import RANKING_METRICS


@pytest.mark.parametrize("argv", [["recsys"], ["recsys", "info"], ["recsys", "evaluate"]])
def test_help_works(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    assert "usage: ratkit recsys" in capsys.readouterr().out


@pytest.fixture
def ratings_file(tmp_path):
    rng = np.random.default_rng(0)
    lines = [f"{u}\t{i}\t{rng.integers(1, 6)}\t0" for u in range(1, 31) for i in range(1, 21) if rng.random() < 0.7]
    path = tmp_path / "u.data"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_info(ratings_file, capsys):
    assert main(["recsys", "info", "--data", str(ratings_file)]) == 0
    assert "30 users × 20 items" in capsys.readouterr().out


def test_evaluate_prints_the_protocol_once_above_its_numbers(ratings_file, capsys):
    code = main(
        [
            "recsys",
            "evaluate",
            "--data",
            str(ratings_file),
            "--model",
            "mfauc",
            "--param",
            "n_factors=2",
            "--param",
            "max_iter=2",
            "--param",
            "loss=square",
            "--min-positives",
            "3",
            "--n-test",
            "1",
            "-k",
            "2",
            "--seed",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    protocol, model, header, *rows = out.splitlines()
    assert protocol.startswith("protocol: ") and "seed=1" in protocol
    assert "rating >= 4 | leave-1-out, users with >= 3 positives" in protocol
    assert model.startswith("model MFAUC: MFAUC(n_factors=2, loss='square'")
    assert header.split() == ["metric", "MFAUC"]
    assert [row.split()[0] for row in rows] == [f"{m}@2" for m in RANKING_METRICS] + ["auc"]


def test_errors_are_reported_not_raised(tmp_path, capsys):
    code = main(["recsys", "evaluate", "--data", str(tmp_path), "--model", "popularity"])
    assert code == 2
    assert "holds no u.data" in capsys.readouterr().err


FAST = {"mfauc": ["n_factors=2", "max_iter=2"], "puresvd": ["n_factors=2"]}


def _evaluate(ratings_file, name, *extra):
    params = [a for p in FAST.get(name, []) for a in ("--param", p)]
    argv = ["recsys", "evaluate", "--data", str(ratings_file), "--model", name, *params]
    return main([*argv, "--min-positives", "3", "--n-test", "1", "-k", "2", *extra])


@pytest.mark.parametrize("name", plugins.available("recommender"))
def test_evaluate_takes_every_registered_recommender(ratings_file, capsys, name):
    assert _evaluate(ratings_file, name) == 0
    out = capsys.readouterr().out
    model_cls = plugins.get("recommender", name)
    assert out.startswith("protocol: ")
    assert f"\nmodel {model_cls.__name__}: {model_cls.__name__}(" in out
    assert "random_state=0" in out or "random_state" not in model_cls().get_params()  # --seed 0 reaches the model
    assert "auc" in out


def test_unknown_model_is_one_line_listing_the_available_ones(ratings_file, capsys):
    assert main(["recsys", "evaluate", "--data", str(ratings_file), "--model", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("ratkit recsys evaluate: error: No recommender plugin named 'nope'.")
    assert all(name in err for name in plugins.available("recommender"))


@pytest.mark.parametrize(
    "params, message",
    [
        (["n_factors=2", "n_factors=3"], "--param n_factors is given twice"),
        (["damping=1"], "MFAUC has no parameter 'damping'; its parameters are batch_size, beta,"),
    ],
)
def test_param_errors_name_the_key(ratings_file, capsys, params, message):
    argv = ["recsys", "evaluate", "--data", str(ratings_file)] + [a for p in params for a in ("--param", p)]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_param_error_for_a_model_without_parameters(ratings_file, capsys):
    argv = ["recsys", "evaluate", "--data", str(ratings_file), "--model", "popularity", "--param", "n_factors=2"]
    assert main(argv) == 2
    assert "Popularity has no parameter 'n_factors'; it takes no parameters." in capsys.readouterr().err


def test_output_writes_the_fitted_model_through_save(ratings_file, capsys, tmp_path):
    from ratkit import load_model

    target = tmp_path / "puresvd.zip"
    assert _evaluate(ratings_file, "puresvd", "-o", str(target)) == 0
    out = capsys.readouterr().out
    assert "wrote the fitted model to" in out
    written = out.rsplit("wrote the fitted model to ", 1)[1].strip()
    model = load_model(written)
    assert isinstance(model, PureSVD) and model.n_factors == 2 and model.random_state == 0
    # the saved model is the one fitted on the training part: refit it independently
    data = load_movielens(ratings_file)
    train, _, _ = prepare_leave_k_out(data, threshold=4.0, min_positives=3, n_test=1, random_state=0)
    again = PureSVD(n_factors=2, random_state=0).fit(train)
    np.testing.assert_allclose(model.user_factors_ @ model.item_factors_.T, again.user_factors_ @ again.item_factors_.T)


def test_output_path_is_checked_before_any_work(ratings_file, capsys, tmp_path):
    argv = ["recsys", "evaluate", "--data", str(ratings_file), "-o", str(tmp_path / "missing" / "m.zip")]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "argument -o/--output" in err and "model:" not in err


def test_a_renamed_param_warns_and_reaches_the_model_under_its_current_name(ratings_file, capsys):
    argv = ["recsys", "evaluate", "--data", str(ratings_file), "--model", "mfauc", "--min-positives", "3"]
    argv += ["--n-test", "1", "-k", "2", "--param", "n_factors=2", "--param", "max_iter=2", "--param", "lam=0.01"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "warning: --param lam is deprecated for MFAUC" in err and "use --param regularization=0.01" in err
    assert "regularization=0.01" in out and "lam=" not in out
    both = argv + ["--param", "regularization=0.1"]
    assert main(both) == 2
    assert "lam is the deprecated spelling of regularization" in capsys.readouterr().err
