"""Issue 34: ``ratkit gram --plot`` drew an almost uniformly dark heatmap — a linear colour
scale up to the maximum 1467 of a matrix whose 99th percentile was 39. The scale is now
linear between the 1st and 99th percentiles of the entries, clipped beyond, and the title
says so."""

from __future__ import annotations

import numpy as np
import pytest

from ratkit.datasets import write_tsv
from tests.cli._helpers import needs_matplotlib, run

pytestmark = needs_matplotlib


def _skewed_gram(n=60, seed=0):
    """K = X Xᵀ of 3-gram-like counts, with two long repetitive strings whose self-similarity
    dwarfs the rest (as the diagonal of long documents does)."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.4, size=(n, 64)).astype(float)
    X[3, 5] = X[40, 7] = 38.0
    return X @ X.T


@pytest.fixture
def drawn(monkeypatch):
    """Every AxesImage and Axes that imshow draws on, kept for inspection."""
    from matplotlib.axes import Axes

    seen = []
    real = Axes.imshow

    def imshow(self, *args, **kwargs):
        image = real(self, *args, **kwargs)
        seen.append((self, image))
        return image

    monkeypatch.setattr(Axes, "imshow", imshow)
    return seen


def test_the_colour_limits_are_the_percentiles_and_the_title_says_so(drawn, tmp_path):
    from ratkit.plots import plot_gram

    K = _skewed_gram()
    low, high = np.percentile(K.ravel(), [1, 99], method="linear")
    assert K.max() > 5 * high  # the skew of the issue
    data = plot_gram(K, tmp_path / "k.png", labels=["a"] * 30 + ["b"] * 30, title="my kernel")
    (ax, image) = drawn[0]
    assert image.norm.vmin == pytest.approx(low) and image.norm.vmax == pytest.approx(high)
    assert data["limits"] == (pytest.approx(low), pytest.approx(high))
    title = ax.get_title()
    assert title.startswith("my kernel\n")
    assert "1st–99th percentile" in title and "clipped" in title and f"{K.max():.4g}" in title
    colourbar = ax.figure.axes[-1]
    assert "clipped" in colourbar.get_ylabel()
    # what a reader sees: the median entry takes a middle colour, not the bottom tenth
    shown = image.norm(np.median(K))
    assert 0.15 < shown < 0.85
    assert image.norm(np.median(K)) > 2 * (np.median(K) - K.min()) / (K.max() - K.min())


def test_a_matrix_with_no_outliers_keeps_its_full_range(drawn, tmp_path):
    from ratkit.plots import plot_gram

    K = np.array([[1.0, 0.0], [0.0, 1.0]])  # the percentiles are 0 and 1: nothing to clip
    data = plot_gram(K, tmp_path / "k.png")
    (ax, image) = drawn[0]
    assert (image.norm.vmin, image.norm.vmax) == (0.0, 1.0) == data["limits"]
    assert "full range" in ax.get_title() and "clipped" not in ax.get_title()
    constant = np.full((3, 3), 2.0)
    plot_gram(constant, tmp_path / "c.png")
    assert "full range [2, 2]" in drawn[1][0].get_title()


def test_ratkit_gram_plot_says_the_scale(drawn, tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = ["".join(rng.choice(list("acgt"), size=12)) for _ in range(30)] + ["ac" * 60]
    write_tsv(tmp_path / "d.tsv", X, ["x"] * 15 + ["y"] * 16)
    argv = ["gram", "--kernel", '{"family": "ngram", "n": 3}', "--data", tmp_path / "d.tsv", "-o", tmp_path / "k.npy"]
    code, out, err = run([*argv, "--quiet", "--plot", tmp_path / "k.png"], capsys)
    assert code == 0, err
    K = np.load(tmp_path / "k.npy")
    low, high = np.percentile(K, [1, 99])
    (ax, image) = drawn[0]
    assert (image.norm.vmin, image.norm.vmax) == (pytest.approx(low), pytest.approx(high))
    assert f"colour: linear, 1st–99th percentile [{low:.4g}, {high:.4g}], clipped beyond (max {K.max():.4g})" in out
    assert ax.get_title().endswith(out.strip().splitlines()[-1].strip())
