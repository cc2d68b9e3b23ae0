"""Sequence data loaders, the label<TAB>sequence format, and the demo."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratkit.datasets import (
    load_lines,
    load_sequences,
    load_splice,
    load_tsv,
    reuters_dataset,
    reuters_modapte,
    write_tsv,
)
from ratkit.demo import run_demo
from ratkit.exceptions import DataFormatError, MissingDataError

REUTERS = Path("/work/shared/data/reuters21578")


def test_bundled_splice_counts():
    data = load_splice()
    assert len(data) == 3190
    assert {c: data.labels.count(c) for c in set(data.labels)} == {"EI": 767, "IE": 768, "N": 1655}
    assert all(len(s) == 60 for s in data.sequences)


def test_missing_and_malformed_splice(tmp_path):
    with pytest.raises(
        MissingDataError,
        match="splice.data.*not found; expected 'splice.data' with lines 'CLASS, NAME, SEQUENCE'",
    ):
        load_splice(tmp_path)
    (tmp_path / "splice.data").write_text("EI, X1, ACGT\nbroken line\n")
    with pytest.raises(DataFormatError, match="line 2: expected 'CLASS, NAME, SEQUENCE'"):
        load_splice(tmp_path)


def test_tsv_round_trip(tmp_path):
    seqs = ["ACGT", "a b\tc", "ü-ñ", "x"]  # spaces, a TAB inside the sequence, non-ASCII
    labels = ["EI", "N", "IE", "N"]
    write_tsv(tmp_path / "d.tsv", seqs, labels)
    text = (tmp_path / "d.tsv").read_text(encoding="utf-8")
    assert text.splitlines()[1] == "N\ta b\tc"
    (tmp_path / "d.tsv").write_text("# a comment\n\n" + text, encoding="utf-8")
    data = load_tsv(tmp_path / "d.tsv")
    assert data.sequences == seqs and data.labels == labels


@pytest.mark.parametrize(
    "content, match",
    [
        ("", r"no examples found; expected lines 'label<TAB>sequence'"),
        (
            "EI\tACGT\nno tab here\n",
            r"d.tsv, line 2: no TAB; expected 'label<TAB>sequence', got 'no tab here'",
        ),
        ("\tACGT\n", r"line 1: empty label"),
        ("EI\t\n", r"line 1: empty sequence"),
    ],
)
def test_tsv_errors_name_file_line_and_format(tmp_path, content, match):
    (tmp_path / "d.tsv").write_text(content)
    with pytest.raises(DataFormatError, match=match):
        load_tsv(tmp_path / "d.tsv")


def test_tsv_missing_and_not_utf8(tmp_path):
    with pytest.raises(
        MissingDataError,
        match="nope.tsv' not found; expected a UTF-8 text file with one 'label<TAB>sequence'",
    ):
        load_tsv(tmp_path / "nope.tsv")
    (tmp_path / "b.tsv").write_bytes(b"EI\t\xff\xfe\n")
    with pytest.raises(DataFormatError, match="b.tsv: not UTF-8 text"):
        load_tsv(tmp_path / "b.tsv")
    with pytest.raises(DataFormatError, match="holds a line break"):
        write_tsv(tmp_path / "c.tsv", ["a\nb"], ["x"])
    with pytest.raises(DataFormatError, match="label holds a TAB"):
        write_tsv(tmp_path / "c.tsv", ["ab"], ["x\ty"])


def test_lines_and_the_format_dispatcher(tmp_path):
    (tmp_path / "s.txt").write_text("acgt\n\nggg\n")
    assert load_lines(tmp_path / "s.txt").sequences == ["acgt", "ggg"]
    assert load_sequences(tmp_path / "s.txt", "lines").labels == []
    write_tsv(tmp_path / "d.tsv", ["aa", "bb", "cc"], ["x", "y", "z"])
    assert load_sequences(tmp_path / "d.tsv", target="y").labels == ["not-y", "y", "not-y"]
    splice = load_sequences(Path(load_splice().source), target="EI")
    assert splice.labels.count("EI") == 767 and splice.labels.count("not-EI") == 3190 - 767
    with pytest.raises(ValueError, match="'format' parameter must be one of 'auto', 'tsv'.* Got 'xml' instead"):
        load_sequences(tmp_path / "d.tsv", "xml")
    with pytest.raises(DataFormatError, match="is a folder without Reuters-21578"):
        load_sequences(tmp_path)
    with pytest.raises(DataFormatError, match="no example has label 'q'; labels present: x, y, z"):
        load_sequences(tmp_path / "d.tsv", target="q")


@pytest.mark.skipif(not REUTERS.is_dir(), reason="Reuters-21578 is not available on this machine")
def test_reuters_binary_task():
    with pytest.raises(DataFormatError, match="Reuters-21578 is multi-label: name the topic"):
        load_sequences(REUTERS)
    data = reuters_dataset(REUTERS, "test", "crude")
    docs = reuters_modapte(REUTERS, "test")
    assert data.labels == ["crude" if "crude" in d.topics else "not-crude" for d in docs]
    assert data.sequences == [d.body for d in docs]
    with pytest.raises(DataFormatError, match="no ModApte test story of topic 'zzz'"):
        reuters_dataset(REUTERS, "test", "zzz")


def test_demo_trains_evaluates_and_reloads():
    lines = []
    out = run_demo(limit=120, print_fn=lines.append)
    assert out["reload_identical"]
    assert out["accuracy"] > 0.8  # majority class: 1/3 on this balanced subset
    text = "\n".join(lines)
    assert "training time" in text and "passes" in text and "held-out accuracy" in text and "identical" in text
