"""``--plot FILE.png`` on train, gram, kernel-learner and recsys evaluate: a valid PNG, and the
data drawn (what the ratkit.plots function returned) equal the numbers the command printed."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from ratkit.datasets import write_tsv
from tests.cli._helpers import needs_matplotlib, png_size, record_plots, run

pytestmark = needs_matplotlib


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("plots-cli")
    rng = random.Random(3)
    X = ["".join(rng.choice("acgt") for _ in range(rng.randint(8, 14))) for _ in range(40)]
    y = ["pos" if x.count("ga") > x.count("tc") else "neg" for x in X]
    write_tsv(d / "labelled.tsv", X, y)
    write_tsv(d / "signs.tsv", X, ["+1" if lab == "pos" else "-1" for lab in y])
    r = np.random.default_rng(0)
    lines = [f"{u}\t{i}\t{r.integers(1, 6)}\t0" for u in range(1, 41) for i in range(1, 31) if r.random() < 0.6]
    (d / "u.data").write_text("\n".join(lines) + "\n")
    return d


def test_train_plot_draws_the_dcd_convergence_it_prints(files, tmp_path, monkeypatch, capsys):
    calls = record_plots(monkeypatch, "plot_dcd_convergence")
    png = tmp_path / "dcd.png"
    code, out, err = run(["train", "--data", files / "labelled.tsv", "--quiet", "--plot", png], capsys)
    assert code == 0, err
    assert png_size(png)[0] >= 300 and len(calls) == 1
    m = re.search(
        r"DCD convergence: (\d+) passes, last dual objective (\S+), last projected-gradient gap (\S+) "
        r"\(tol (\S+)\)",
        out,
    )
    data = calls[0]["data"]
    passes = int(m.group(1))
    assert len(data["dual_objective"]) == len(data["pg_gap"]) == passes
    assert passes == int(re.search(r": (\d+) passes", out).group(1))  # the trained-in line, from n_iter_
    assert float(m.group(2)) == pytest.approx(data["dual_objective"][-1], rel=1e-5)
    assert float(m.group(3)) == pytest.approx(data["pg_gap"][-1], rel=1e-5)
    assert float(m.group(4)) == data["tol"] == 1e-3
    assert data["pg_gap"][-1] <= data["tol"]  # it printed 'converged'
    assert "converged" in out and f"convergence plot written to {png}" in out


def test_gram_plot_sorts_the_classes_of_the_matrix_it_wrote(files, tmp_path, monkeypatch, capsys):
    calls = record_plots(monkeypatch, "plot_gram")
    out_npy, png = tmp_path / "k.npy", tmp_path / "k.png"
    argv = ["gram", "--kernel", '{"family": "ngram", "n": 2}', "--data", files / "labelled.tsv", "-o", out_npy]
    code, out, err = run([*argv, "--quiet", "--plot", png], capsys)
    assert code == 0, err
    assert png_size(png)[0] >= 300
    K = np.load(out_npy)
    labels = [line.split("\t")[0] for line in (files / "labelled.tsv").read_text().splitlines()]
    order = sorted(range(len(labels)), key=lambda i: labels[i])  # stable: file order within a class
    data = calls[0]["data"]
    assert list(data["order"]) == order
    np.testing.assert_array_equal(data["matrix"], K[np.ix_(order, order)])
    assert list(data["labels"]) == sorted(labels)
    counts = f"neg {labels.count('neg')}, pos {labels.count('pos')}"
    assert f"sorted by class ({counts}), written to {png}" in out


def test_kernel_learner_plot_draws_the_weights_of_the_printed_spec(files, tmp_path, monkeypatch, capsys):
    pytest.importorskip("cvxpy")
    calls = record_plots(monkeypatch, "plot_kernel_weights")
    png = tmp_path / "mu.png"
    code, out, err = run(["kernel-learner", "--data", files / "signs.tsv", "--top", "12", "--plot", png], capsys)
    assert code == 0, err
    assert png_size(png)[0] >= 300
    spec = json.loads(out.strip().splitlines()[0])
    mu = {"".join(p) if isinstance(p, list) else p: w**2 for p, w in zip(spec["patterns"], spec["weights"])}
    data = calls[0]["data"]
    assert list(data["weights"]) == sorted(data["weights"], reverse=True)  # largest first
    for pattern, weight in zip(data["patterns"], data["weights"]):
        assert weight == pytest.approx(mu[pattern], rel=1e-9, abs=1e-12)
    assert set(data["patterns"]) <= set(mu) and len(data["patterns"]) == min(30, len(mu))
    assert f"weights μ plotted to {png}" in err


def _printed_metrics(out):
    """[{metric: {k: value}}, one per model column] from the printed table, in column order."""
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("metric "))
    reports = [{} for _ in lines[header].split()[1:]]
    for line in lines[header + 1 :]:
        m = re.match(r"^(\w+)@(\d+)\s+(.*)$", line)
        if m:
            for report, value in zip(reports, m.group(3).split()):
                report.setdefault(m.group(1), {})[int(m.group(2))] = float(value)
    return reports


def test_recsys_evaluate_plots_one_line_per_model_with_the_printed_numbers(files, tmp_path, monkeypatch, capsys):
    calls = record_plots(monkeypatch, "plot_metrics_at_k")
    png = tmp_path / "at-k.png"
    argv = ["recsys", "evaluate", "--data", files / "u.data", "--min-positives", "5", "-k", "1", "3", "5"]
    code, out, err = run([*argv, "--model", "popularity", "puresvd", "--plot", png], capsys)
    assert code == 0, err
    assert png_size(png)[0] >= 300
    printed = dict(zip(["popularity", "puresvd"], _printed_metrics(out)))
    data = calls[0]["data"]
    assert data["models"] == ["popularity", "puresvd"]
    for model, metrics in printed.items():
        assert set(metrics) == set(data["metrics"]) and len(metrics) >= 5
        for metric, points in metrics.items():
            line = data["curves"][model][metric]
            assert list(line["k"]) == [1, 3, 5]
            np.testing.assert_allclose(line["value"], [points[k] for k in (1, 3, 5)], atol=5e-5)
    assert printed["popularity"] != printed["puresvd"]
    assert f"metrics@k plot (popularity, puresvd) written to {png}" in out
