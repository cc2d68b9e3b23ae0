"""Sequence data loaders, the label<TAB>sequence format, and the demo."""

from __future__ import annotations

import logging
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
from ratkit.exceptions import DataFormatError, MissingDataError, OutputPathError
from tests.isolated import run_python


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


@pytest.mark.parametrize("head", ["label\tsequence", "Class\tSeq", "# a comment\n\nLABEL\tTEXT"])
def test_tsv_header_line_is_skipped_and_logged(tmp_path, caplog, head):
    (tmp_path / "d.tsv").write_text(head + "\nEI\tACGT\nN\tlabel\n", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="ratkit.datasets"):
        data = load_tsv(tmp_path / "d.tsv")
    assert data.labels == ["EI", "N"] and data.sequences == ["ACGT", "label"]
    assert "d.tsv, line" in caplog.text and "names the columns; skipped as a header" in caplog.text


@pytest.mark.parametrize("first", ["sequence\tlabel", "label\tACGT", "N\tsequence", "y\tx"])
def test_tsv_first_example_that_only_resembles_a_header_is_kept(tmp_path, first):
    (tmp_path / "d.tsv").write_text(first + "\nEI\tACGT\n", encoding="utf-8")
    assert load_tsv(tmp_path / "d.tsv").labels == [first.split("\t")[0], "EI"]


def test_splice_header_line_is_refused(tmp_path):
    (tmp_path / "splice.data").write_text("CLASS, NAME, SEQUENCE\nEI, X1, ACGT\n")
    with pytest.raises(
        DataFormatError,
        match=r"splice.data, line 1: 'CLASS, NAME, SEQUENCE' looks like a column header, but UCI splice.data "
        r"has no header line. Delete that line",
    ):
        load_splice(tmp_path)


def test_line_separators_other_than_newline_stay_inside_sequences(tmp_path):
    # str.splitlines() also breaks at \v, \f, \x1c-\x1e, \x85, \u2028, \u2029; a text line ends at a newline only.
    seqs = ["a\x0cb", "c\x1cd", "e\x85f", "g\u2028h", "i\x0bj"]
    labels = ["N", "EI", "N", "IE", "N"]
    write_tsv(tmp_path / "d.tsv", seqs, labels)
    data = load_tsv(tmp_path / "d.tsv")
    assert data.sequences == seqs and data.labels == labels
    (tmp_path / "s.txt").write_text("\n".join(seqs) + "\n", encoding="utf-8")
    assert load_lines(tmp_path / "s.txt").sequences == seqs


@pytest.mark.parametrize(
    "seqs, labels, match",
    [
        (["ab", "cd"], ["x"], r"write_tsv got 2 sequences but 1 labels; give one label per sequence"),
        (["ab"], ["#1"], r"example 0: the label '#1' starts with '#', which load_tsv reads as a comment"),
        (["ab", "cd"], ["x", " N"], r"example 1: the label ' N' has leading or trailing white space"),
        (["ab"], [""], r"example 0: the label is empty"),
        (["ab", ""], ["x", "y"], r"example 1: the sequence is empty"),
        (["sequence", "ab"], ["label", "x"], r"example 0: \('label', 'sequence'\) would be read back as a column"),
        (["a\rb"], ["x"], r"example 0: the sequence 'a\\rb' holds a line break"),
        (["ab"], ["x\ty"], r"example 0: the label holds a TAB or line break \('x\\ty'\)"),
    ],
)
def test_write_tsv_refuses_what_load_tsv_cannot_read_back(tmp_path, seqs, labels, match):
    path = tmp_path / "d.tsv"
    path.write_text("OLD\tcontent\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=match):
        write_tsv(path, seqs, labels)
    assert path.read_text(encoding="utf-8") == "OLD\tcontent\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.tsv"]


def test_write_tsv_failing_midway_keeps_the_old_file(tmp_path):
    # A real I/O failure after the output is opened: the child may write at most 4 KiB per file (RLIMIT_FSIZE).
    path = tmp_path / "d.tsv"
    path.write_text("OLD\tcontent\n", encoding="utf-8")
    outcome = run_python(
        f"""
        import resource, signal
        from ratkit.datasets import write_tsv
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        try:
            write_tsv({str(path)!r}, ["acgt" * 1000] * 10, ["N"] * 10)
        except OSError as exc:
            print("OSError", exc.errno)
        """,
        timeout=30,
    )
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stdout.strip() == "OSError 27"  # EFBIG
    assert path.read_text(encoding="utf-8") == "OLD\tcontent\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.tsv"]
    with pytest.raises(OutputPathError, match=r"labelled sequence file .*nowhere/d.tsv.*its folder .* does not exist"):
        write_tsv(tmp_path / "nowhere" / "d.tsv", ["ab"], ["x"])


def test_byte_order_mark_is_not_part_of_the_first_label_or_sequence(tmp_path):
    (tmp_path / "d.tsv").write_bytes(b"\xef\xbb\xbfEI\tACGT\nEI\tGG\n")
    assert load_tsv(tmp_path / "d.tsv").labels == ["EI", "EI"]
    (tmp_path / "s.txt").write_bytes(b"\xef\xbb\xbfacgt\n")
    assert load_lines(tmp_path / "s.txt").sequences == ["acgt"]


def test_lines_and_splice_that_are_not_text_name_the_file(tmp_path):
    (tmp_path / "s.txt").write_bytes(b"acgt\n\xff\xfe\n")
    with pytest.raises(DataFormatError, match=r"s.txt: not UTF-8 text .*; expected one sequence per line"):
        load_lines(tmp_path / "s.txt")
    (tmp_path / "splice.data").write_bytes("EI, X1, ACGT\nN, X2, AC\u00e9T\n".encode())
    with pytest.raises(DataFormatError, match=r"splice.data: not ASCII text .*; expected lines 'CLASS, NAME, SEQ"):
        load_splice(tmp_path)


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


def test_reuters_binary_task(shared_data):
    reuters = shared_data("reuters21578")
    with pytest.raises(DataFormatError, match="Reuters-21578 is multi-label: name the topic"):
        load_sequences(reuters)
    data = reuters_dataset(reuters, "test", "crude")
    docs = reuters_modapte(reuters, "test")
    assert data.labels == ["crude" if "crude" in d.topics else "not-crude" for d in docs]
    assert data.sequences == [d.body for d in docs]
    with pytest.raises(DataFormatError, match="no ModApte test story of topic 'zzz'"):
        reuters_dataset(reuters, "test", "zzz")


def test_demo_trains_evaluates_and_reloads():
    lines = []
    out = run_demo(limit=120, print_fn=lines.append)
    assert out["reload_identical"]
    assert out["accuracy"] > 0.8  # majority class: 1/3 on this balanced subset
    text = "\n".join(lines)
    assert "training time" in text and "passes" in text and "held-out accuracy" in text and "identical" in text
