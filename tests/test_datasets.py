"""Sequence data loaders and the demo."""

from __future__ import annotations

import pytest

from ratkit.datasets import load_splice
from ratkit.demo import run_demo
from ratkit.exceptions import DataFormatError, MissingDataError


def test_bundled_splice_counts():
    data = load_splice()
    assert len(data) == 3190
    assert {c: data.labels.count(c) for c in set(data.labels)} == {"EI": 767, "IE": 768, "N": 1655}
    assert all(len(s) == 60 for s in data.sequences)


def test_missing_and_malformed_splice(tmp_path):
    with pytest.raises(MissingDataError, match="splice.data.*not found; expected 'splice.data' with lines 'CLASS, NAME, SEQUENCE'"):
        load_splice(tmp_path)
    (tmp_path / "splice.data").write_text("EI, X1, ACGT\nbroken line\n")
    with pytest.raises(DataFormatError, match="line 2: expected 'CLASS, NAME, SEQUENCE'"):
        load_splice(tmp_path)


def test_demo_agrees_with_direct_counting():
    lines = []
    assert run_demo(per_class=2, print_fn=lines.append) < 1e-9
    assert any("smallest eigenvalue" in line for line in lines)
