"""ratkit.plots: each function writes a valid 640 × 480 PNG, returns the data it drew, refuses
bad input by name, and says which extra to install without matplotlib."""

from __future__ import annotations

import struct
import sys

import numpy as np
import pytest

from ratkit import plots
from ratkit.exceptions import MissingDependencyError, OutputPathError, ParameterError, RatkitError

pytest.importorskip("matplotlib")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(path) -> tuple[int, int]:
    """(width, height) read from the IHDR chunk, after checking the PNG signature."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    assert data[-8:-4] == b"IEND"  # the file is complete
    return width, height


EXPECTED = (round(plots.FIGSIZE[0] * plots.DPI), round(plots.FIGSIZE[1] * plots.DPI))


def test_the_documented_size_is_640_by_480():
    assert EXPECTED == (640, 480)


def test_dcd_convergence_of_a_fitted_learner(tmp_path):
    from ratkit.learners import LinearDCDSVC

    rng = np.random.RandomState(0)
    X = rng.randn(60, 5)
    y = np.sign(X @ rng.randn(5) + 0.3 * rng.randn(60))
    conv = LinearDCDSVC(tol=1e-4, random_state=0).fit(X, y).convergence_
    out = plots.plot_dcd_convergence(conv, tmp_path / "dcd.png")
    assert _png_size(tmp_path / "dcd.png") == EXPECTED
    np.testing.assert_array_equal(out["dual_objective"], conv["dual_objective"])
    np.testing.assert_array_equal(out["pg_gap"], conv["pg_gap"])
    np.testing.assert_array_equal(out["passes"], np.arange(1, len(conv["pg_gap"]) + 1))
    assert out["tol"] == conv["tol"] == 1e-4


def test_dcd_convergence_keeps_zero_gaps_and_nan_duals_in_the_data(tmp_path):
    conv = {"dual_objective": [-1.0, float("nan"), -2.0], "pg_gap": [1.0, 0.0, 1e-5], "tol": 1e-3}
    out = plots.plot_dcd_convergence(conv, tmp_path / "c.png")
    assert _png_size(tmp_path / "c.png") == EXPECTED
    np.testing.assert_array_equal(out["pg_gap"], [1.0, 0.0, 1e-5])
    assert np.isnan(out["dual_objective"][1])


@pytest.mark.parametrize(
    "conv, match",
    [
        ({"pg_gap": [1.0], "tol": 1e-3}, r"convergence lacks 'dual_objective'"),
        (
            {"dual_objective": [1.0, 2.0], "pg_gap": [1.0], "tol": 1e-3},
            r"has 2 passes but convergence\['pg_gap'\] has 1",
        ),
        ({"dual_objective": [1.0], "pg_gap": [-1.0], "tol": 1e-3}, r"pg_gap'\] must be ≥ 0.*entry 0 is -1.0"),
        ({"dual_objective": [1.0], "pg_gap": [float("inf")], "tol": 1e-3}, r"pg_gap'\] must hold finite numbers"),
        (
            {"dual_objective": [1.0], "pg_gap": [1.0], "tol": 0},
            r"convergence\['tol'\] must be a finite number > 0; got 0",
        ),
        ({"dual_objective": [], "pg_gap": [], "tol": 1e-3}, r"dual_objective'\] must be a non-empty sequence"),
        ({"dual_objective": ["x"], "pg_gap": [1.0], "tol": 1e-3}, r"dual_objective'\] must be a sequence of numbers"),
        ({}, r"convergence must be a non-empty mapping"),
    ],
)
def test_dcd_convergence_refuses_bad_records(tmp_path, conv, match):
    with pytest.raises(RatkitError, match=match):
        plots.plot_dcd_convergence(conv, tmp_path / "c.png")
    assert not (tmp_path / "c.png").exists()


def test_gram_sorts_classes_stably(tmp_path):
    rng = np.random.default_rng(1)
    A = rng.normal(size=(7, 3))
    K = A @ A.T
    labels = ["b", "a", "b", "c", "a", "b", "a"]
    out = plots.plot_gram(K, tmp_path / "g.png", labels=labels)
    assert _png_size(tmp_path / "g.png") == EXPECTED
    np.testing.assert_array_equal(out["order"], [1, 4, 6, 0, 2, 5, 3])  # by class, training order within
    assert out["labels"] == ["a", "a", "a", "b", "b", "b", "c"]
    expected = np.array([[K[i, j] for j in out["order"]] for i in out["order"]])
    np.testing.assert_array_equal(out["matrix"], expected)


def test_gram_without_labels_keeps_the_order(tmp_path):
    K = np.array([[2.0, 1.0], [1.0, 3.0]])
    out = plots.plot_gram(K, tmp_path / "g.png", title="K")
    assert _png_size(tmp_path / "g.png") == EXPECTED
    np.testing.assert_array_equal(out["order"], [0, 1])
    np.testing.assert_array_equal(out["matrix"], K)
    assert out["labels"] is None


@pytest.mark.parametrize(
    "K, labels, match",
    [
        (np.ones((2, 3)), None, r"K must be a non-empty square matrix; got shape \(2, 3\)"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), None, r"K must hold finite numbers; K\[0, 1\] is nan"),
        (np.eye(3), ["a", "b"], r"labels has 2 entries but K has 3 rows"),
        (np.eye(2), ["a", 1], r"labels must be comparable values of one type"),
        ([["a", "b"], ["c", "d"]], None, r"K must be a square matrix of numbers"),
    ],
)
def test_gram_refuses_bad_input(tmp_path, K, labels, match):
    with pytest.raises(ParameterError, match=match):
        plots.plot_gram(K, tmp_path / "g.png", labels=labels)


def test_kernel_weights_largest_first_with_their_patterns(tmp_path):
    w = [0.1, 0.5, 0.0, 0.5, 0.3]
    pats = ["a", "ab", "", "ba", "b"]
    out = plots.plot_kernel_weights(w, pats, tmp_path / "w.png", top=4)
    assert _png_size(tmp_path / "w.png") == EXPECTED
    np.testing.assert_array_equal(out["weights"], [0.5, 0.5, 0.3, 0.1])
    assert out["patterns"] == ["ab", "ba", "b", "a"]  # the tie keeps its input order
    np.testing.assert_array_equal(out["order"], [1, 3, 4, 0])
    every = plots.plot_kernel_weights(w, pats, tmp_path / "w.png")
    assert every["patterns"] == ["ab", "ba", "b", "a", ""]


@pytest.mark.parametrize(
    "w, pats, top, match",
    [
        ([1.0, 2.0], ["a"], 30, r"weights has 2 entries but patterns has 1"),
        ([1.0], ["a"], 0, r"top must be an int ≥ 1; got 0"),
        ([float("nan")], ["a"], 30, r"weights must hold finite numbers; entry 0 is nan"),
        ([1.0, 2.0], "ab", 30, r"patterns must be a sequence of patterns, not the single str 'ab'"),
    ],
)
def test_kernel_weights_refuse_bad_input(tmp_path, w, pats, top, match):
    with pytest.raises(ParameterError, match=match):
        plots.plot_kernel_weights(w, pats, tmp_path / "w.png", top=top)


def test_metrics_at_k_one_panel_per_metric_one_line_per_model(tmp_path):
    curves = {
        "MFAUC": {"precision": {5: 0.2, 1: 0.4, 10: 0.1}, "ndcg": {1: 0.4, 5: 0.3}},
        "PureSVD": {"precision": {1: 0.3, 5: 0.25}, "recall": {1: 0.05}},
    }
    out = plots.plot_metrics_at_k(curves, tmp_path / "m.png")
    assert _png_size(tmp_path / "m.png") == EXPECTED
    assert out["models"] == ["MFAUC", "PureSVD"] and out["metrics"] == ["precision", "ndcg", "recall"]
    line = out["curves"]["MFAUC"]["precision"]
    np.testing.assert_array_equal(line["k"], [1, 5, 10])
    np.testing.assert_array_equal(line["value"], [0.4, 0.2, 0.1])
    assert "recall" not in out["curves"]["MFAUC"]


@pytest.mark.parametrize(
    "curves, match",
    [
        ({}, r"curves must be a non-empty mapping"),
        ({"M": {"precision": {0: 0.1}}}, r"curves\['M'\]\['precision'\] must map cut-offs k \(ints ≥ 1\)"),
        ({"M": {"precision": {1: "x"}}}, r"the values of curves\['M'\]\['precision'\] must be a sequence of numbers"),
        ({"M": {"precision": {1: float("inf")}}}, r"must hold finite numbers"),
        ({"M": []}, r"curves\['M'\] must be a non-empty mapping"),
    ],
)
def test_metrics_at_k_refuse_bad_input(tmp_path, curves, match):
    with pytest.raises(ParameterError, match=match):
        plots.plot_metrics_at_k(curves, tmp_path / "m.png")


def test_min_eigenvalue_sorted_by_x(tmp_path):
    out = plots.plot_min_eigenvalue({3: -0.1, 1: 0.5, 2: 0.02}, tmp_path / "e.png", xlabel="max length n")
    assert _png_size(tmp_path / "e.png") == EXPECTED
    np.testing.assert_array_equal(out["x"], [1, 2, 3])
    assert out["x"].dtype.kind == "i"
    np.testing.assert_array_equal(out["min_eigenvalue"], [0.5, 0.02, -0.1])


@pytest.mark.parametrize(
    "curve, match",
    [({}, r"curve must be a non-empty mapping"), ({1: float("nan")}, r"the eigenvalues of curve must hold finite")],
)
def test_min_eigenvalue_refuses_bad_input(tmp_path, curve, match):
    with pytest.raises(ParameterError, match=match):
        plots.plot_min_eigenvalue(curve, tmp_path / "e.png")


def test_an_unwritable_path_is_refused_before_drawing(tmp_path):
    with pytest.raises(OutputPathError, match="folder .* does not exist"):
        plots.plot_min_eigenvalue({1: 0.5}, tmp_path / "missing" / "e.png")
    with pytest.raises(OutputPathError, match="is a folder"):
        plots.plot_min_eigenvalue({1: 0.5}, tmp_path)


def test_a_failed_plot_leaves_the_old_file(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    target = tmp_path / "e.png"
    target.write_bytes(b"old")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        plots.plot_min_eigenvalue({1: 0.5}, target)
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["e.png"]


CALLS = [
    lambda p: plots.plot_dcd_convergence({"dual_objective": [-1.0], "pg_gap": [0.1], "tol": 1.0}, p),
    lambda p: plots.plot_gram(np.eye(2), p),
    lambda p: plots.plot_kernel_weights([1.0], ["a"], p),
    lambda p: plots.plot_metrics_at_k({"M": {"precision": {1: 0.5}}}, p),
    lambda p: plots.plot_min_eigenvalue({1: 0.5}, p),
]


@pytest.mark.parametrize("call", CALLS)
def test_without_matplotlib_the_message_names_the_extra(tmp_path, monkeypatch, call):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ratkit\[plot\]'") as info:
        call(tmp_path / "x.png")
    assert isinstance(info.value, ImportError)
    assert not (tmp_path / "x.png").exists()
