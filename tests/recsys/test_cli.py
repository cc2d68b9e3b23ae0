"""``ratkit recsys`` commands: help everywhere, and an evaluation printing its protocol."""

from __future__ import annotations

import numpy as np
import pytest

from ratkit.cli._main import main


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


def test_evaluate_prints_every_number_with_its_protocol(ratings_file, capsys):
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
    lines = [line for line in out.splitlines() if line.startswith("  ")]
    assert len(lines) == 7  # six metrics @2 and the AUC
    for line in lines:
        assert "rating >= 4 | leave-1-out, users with >= 3 positives" in line and "seed=1" in line


def test_errors_are_reported_not_raised(tmp_path, capsys):
    code = main(["recsys", "evaluate", "--data", str(tmp_path), "--model", "popularity"])
    assert code == 2
    assert "holds no u.data" in capsys.readouterr().err
