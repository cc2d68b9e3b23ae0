"""Bad inputs of the data loaders (issue 21), all in ratkit.datasets: interactions (MovieLens, Last.fm, CSV,
from_triples, Interactions) and labelled sequences (TSV, lines, UCI splice, Reuters-21578,
load_sequences).

Each case asserts the ratkit exception class (a missing file: MissingDataError, a
FileNotFoundError; a folder where a file belongs: PathIsFolderError, an IsADirectoryError;
a file where a folder belongs: NotAFolderError; no path at all: ParameterTypeError; a
malformed file: DataFormatError naming the file and line) and the words that name the bad
thing. Cases whose ids start with ``silent-`` were silent wrong answers before issue 21.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.datasets import (
    Interactions,
    from_triples,
    load_interactions_csv,
    load_lastfm,
    load_lines,
    load_movielens,
    load_reuters,
    load_sequences,
    load_splice,
    load_tsv,
    write_tsv,
)
from ratkit.exceptions import (
    DataFormatError,
    MissingDataError,
    NotAFolderError,
    OutputPathError,
    ParameterError,
    ParameterTypeError,
    PathIsFolderError,
)

GOOD_UDATA = b"1\t1\t5\t0\n1\t2\t3\t0\n2\t1\t4\t0\n"


def _write(folder: Path, name: str, content: bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


# ------------------------------------------------------------------------------------ MovieLens
MOVIELENS_FILES = [
    ("silent-nan", b"1\t1\t5\t0\n1\t2\tnan\t0\n", r"u\.data, line 2: the value 'nan' is not a finite number"),
    ("silent-inf", b"1\t1\t5\t0\n1\t2\tinf\t0\n", r"u\.data, line 2: the value 'inf' is not a finite number"),
    ("silent-minus-inf", b"1\t1\t-inf\t0\n", r"u\.data, line 1: the value '-inf' is not a finite"),
    ("silent-3-fields", b"1\t1\t5\n", r"u\.data, line 1 \(3 fields, expected 4\): expected MovieLens 100K"),
    ("silent-5-fields", b"1\t1\t5\t0\t9\n", r"u\.data, line 1 \(5 fields, expected 4\)"),
    ("truncated", GOOD_UDATA + b"3\t1\t", r"u\.data, line 4 \(3 fields, expected 4\)"),
    ("empty", b"", r"u\.data holds no data line"),
    ("blank", b"\n\n  \n", r"u\.data holds no data line"),
    ("header", b"user\titem\trating\ttimestamp\n" + GOOD_UDATA, r"line 1: .* looks like a column header"),
    ("text", b"hello world\n", r"u\.data, line 1"),
    ("float-id", b"1.5\t1\t5\t0\n", r"u\.data, line 1: expected MovieLens 100K u\.data"),
    ("non-utf8", b"1\t1\t5\t0\n\xff\xfe\t1\t5\t0\n", r"u\.data, line 2: expected MovieLens"),
    ("binary", bytes(range(256)) * 4, r"u\.data, line 1"),
    ("duplicate", b"1\t1\t5\t0\n1\t1\t3\t0\n", r"user 1 has item 1 more than once"),
    ("commas", b"1,1,5,0\n", r"u\.data, line 1"),
]


@pytest.mark.parametrize("case, content, match", MOVIELENS_FILES, ids=[c[0] for c in MOVIELENS_FILES])
def test_malformed_movielens_files_name_file_and_line(tmp_path, case, content, match):
    _write(tmp_path, "ml/u.data", content)
    with pytest.raises(DataFormatError, match=match):
        load_movielens(tmp_path / "ml")


def test_movielens_1m_nan_and_fields(tmp_path):
    _write(tmp_path, "ml1m/ratings.dat", b"1::1::5::0\n1::2::nan::0\n")
    with pytest.raises(DataFormatError, match=r"ratings\.dat, line 2: the value 'nan' is not a finite number"):
        load_movielens(tmp_path / "ml1m")
    _write(tmp_path, "ml1m/ratings.dat", b"1::1::5\n")
    with pytest.raises(DataFormatError, match=r"ratings\.dat, line 1 \(3 fields, expected 4\)"):
        load_movielens(tmp_path / "ml1m")


def test_good_movielens_still_loads(tmp_path):
    data = load_movielens(_write(tmp_path, "u.data", GOOD_UDATA))
    np.testing.assert_array_equal(data.matrix.toarray(), [[5, 3], [4, 0]])


MOVIELENS_PATHS = [
    ("missing", lambda t: t / "nope", MissingDataError, r"MovieLens file '.*nope' not found.*tab-separated"),
    ("folder-without", lambda t: t, MissingDataError, r"MovieLens folder .* holds no u\.data or ratings\.dat"),
    ("none", lambda t: None, ParameterTypeError, r"MovieLens path must be a str or os\.PathLike; got NoneType"),
    ("int", lambda t: 5, ParameterTypeError, r"got int"),
]


@pytest.mark.parametrize("case, path, error, match", MOVIELENS_PATHS, ids=[c[0] for c in MOVIELENS_PATHS])
def test_movielens_paths(tmp_path, case, path, error, match):
    with pytest.raises(error, match=match):
        load_movielens(path(tmp_path))


@pytest.mark.parametrize("variant", ["10m", "", None, 100])
def test_movielens_variant(tmp_path, variant):
    _write(tmp_path, "u.data", GOOD_UDATA)
    with pytest.raises(ParameterError, match=rf"'variant' parameter of load_movielens .*Got {variant!r}"):
        load_movielens(tmp_path, variant=variant)


def test_movielens_file_name_that_is_a_folder(tmp_path):
    (tmp_path / "ml" / "u.data").mkdir(parents=True)
    with pytest.raises(MissingDataError, match=r"holds no u\.data"):
        load_movielens(tmp_path / "ml")


# ------------------------------------------------------------------------------------- Last.fm
LASTFM_FILES = [
    ("silent-nan", b"userID\tartistID\tweight\n1\t2\tnan\n", r"user_artists\.dat, line 2: the value 'nan'"),
    ("silent-inf", b"1\t2\tinf\n", r"line 1: the value 'inf' is not a finite number"),
    ("silent-4-fields", b"1\t2\t3\t4\n", r"line 1 is neither the header .* \(4 fields, expected 3\)"),
    ("silent-4-fields-later", b"1\t2\t3\n1\t3\t3\t4\n", r"line 2 \(4 fields, expected 3\)"),
    ("bad-line", b"userID\tartistID\tweight\n1\t2\n", r"line 2 \(2 fields, expected 3\)"),
    ("bad-header", b"user\tartist\n1\t2\t3\n", r"line 1 is neither the header"),
    ("empty", b"", r"holds no data line"),
    ("header-only", b"userID\tartistID\tweight\n", r"holds no data line"),
]


@pytest.mark.parametrize("case, content, match", LASTFM_FILES, ids=[c[0] for c in LASTFM_FILES])
def test_malformed_lastfm_files(tmp_path, case, content, match):
    _write(tmp_path, "user_artists.dat", content)
    with pytest.raises(DataFormatError, match=match):
        load_lastfm(tmp_path)


@pytest.mark.parametrize(
    "case, path, error, match",
    [
        ("missing", lambda t: t / "nope", MissingDataError, r"Last\.fm file .*nope' not found.*userID, artistID"),
        ("folder-without", lambda t: t, MissingDataError, r"user_artists\.dat' not found"),
        ("none", lambda t: None, ParameterTypeError, r"Last\.fm path must be a str"),
    ],
    ids=["missing", "folder-without", "none"],
)
def test_lastfm_paths(tmp_path, case, path, error, match):
    with pytest.raises(error, match=match):
        load_lastfm(path(tmp_path))


# ------------------------------------------------------------------------------------------ CSV
CSV_FILES = [
    ("silent-nan", b"1,1,5\n1,2,nan\n", r"ok\.csv, line 2: the value 'nan' is not a finite number"),
    ("silent-inf", b"1,1,inf\n", r"ok\.csv, line 1: the value 'inf' is not a finite number"),
    ("silent-minus-inf", b"u,i,v\n1,1,-inf\n", r"line 2: the value '-inf'"),
    ("bad-row", b"1,1,5\n4,5,6,7\n", r"ok\.csv, line 2: expected a ','-separated file"),
    ("empty-id", b"1,1,5\n,2,3\n", r"line 2: expected"),
    ("value-text", b"1,1,5\n1,2,high\n", r"line 2: expected"),
    ("empty", b"", r"holds no data row"),
    ("header-only", b"user,item,rating\n", r"holds no data row after its header line 1"),
    ("non-utf8", b"1,1,5\n\xff,2,3\n", r"ok\.csv: not UTF-8 text"),
    ("truncated-quote", b'1,1,5\n"2,1,5\n', r"ok\.csv, line"),
]


@pytest.mark.parametrize("case, content, match", CSV_FILES, ids=[c[0] for c in CSV_FILES])
def test_malformed_csv_files(tmp_path, case, content, match):
    path = _write(tmp_path, "ok.csv", content)
    with pytest.raises(DataFormatError, match=match):
        load_interactions_csv(path)


CSV_CALLS = [
    ("missing", lambda t: load_interactions_csv(t / "nope.csv"), MissingDataError, r"CSV file '.*nope\.csv' not found"),
    ("folder", lambda t: load_interactions_csv(t), PathIsFolderError, r"CSV file '.*' is a folder, not a file"),
    (
        "none",
        lambda t: load_interactions_csv(None),
        ParameterTypeError,
        r"CSV path must be a str or os\.PathLike; got NoneType",
    ),
    (
        "delim-empty",
        lambda t: load_interactions_csv(t / "ok.csv", delimiter=""),
        ParameterError,
        r"'delimiter' .*Got ''",
    ),
    (
        "delim-long",
        lambda t: load_interactions_csv(t / "ok.csv", delimiter=",,"),
        ParameterError,
        r"'delimiter' .*Got ',,'",
    ),
    (
        "delim-quote",
        lambda t: load_interactions_csv(t / "ok.csv", delimiter='"'),
        ParameterError,
        r"'delimiter' .*a quote",
    ),
    (
        "delim-newline",
        lambda t: load_interactions_csv(t / "ok.csv", delimiter="\n"),
        ParameterError,
        r"'delimiter' .*line break",
    ),
    (
        "delim-letter",
        lambda t: load_interactions_csv(t / "ok.csv", delimiter="a"),
        ParameterError,
        r"'delimiter' .*Got 'a'",
    ),
    (
        "delim-int",
        lambda t: load_interactions_csv(t / "ok.csv", delimiter=5),
        ParameterTypeError,
        r"'delimiter' .*Got 5",
    ),
    (
        "header",
        lambda t: load_interactions_csv(t / "ok.csv", header="yes"),
        ParameterError,
        r"'header' parameter .*'yes'",
    ),
    (
        "duplicates",
        lambda t: load_interactions_csv(t / "ok.csv", duplicates="max"),
        ParameterError,
        r"'duplicates' .*'max'",
    ),
]


@pytest.mark.parametrize("case, call, error, match", CSV_CALLS, ids=[c[0] for c in CSV_CALLS])
def test_csv_calls(tmp_path, case, call, error, match):
    _write(tmp_path, "ok.csv", b"1,1,5\n")
    with pytest.raises(error, match=match):
        call(tmp_path)


def test_csv_tab_delimiter_still_works(tmp_path):
    data = load_interactions_csv(_write(tmp_path, "t.tsv", b"a\tx\t2\nb\ty\t3\n"), delimiter="\t")
    np.testing.assert_array_equal(data.matrix.toarray(), [[2, 0], [0, 3]])


# --------------------------------------------------------------------------- from_triples, Interactions
TRIPLES = [
    ("lengths", ([1, 2], [1], [1.0, 2.0]), DataFormatError, r"one length; got lengths 2, 1 and 2"),
    ("values-length", ([1, 2], [1, 2], [1.0]), DataFormatError, r"lengths 2, 2 and 1"),
    ("silent-nan", ([1], [1], [np.nan]), DataFormatError, r"NaN or infinite .*position 0: user 1, item 1"),
    ("silent-inf", ([1, 2], [1, 1], [1.0, np.inf]), DataFormatError, r"the first, inf, at position 1"),
    ("2-d", ([[1, 2]], [[1, 2]], [[1.0, 1.0]]), DataFormatError, r"users must be a 1-D array; got shape \(1, 2\)"),
    ("scalar", (1, 1, 1.0), DataFormatError, r"users must be a 1-D array; got shape \(\)"),
    ("text-values", ([1], [1], ["high"]), ParameterTypeError, r"values must be a 1-D array of numbers"),
    ("ragged", ([[1], [1, 2]], [1, 2], [1.0, 1.0]), ParameterTypeError, r"users must be a 1-D array of ids"),
]


@pytest.mark.parametrize("case, args, error, match", TRIPLES, ids=[c[0] for c in TRIPLES])
def test_from_triples(case, args, error, match):
    with pytest.raises(error, match=match):
        from_triples(*(np.asarray(a, dtype=object) if case == "ragged" and i == 0 else a for i, a in enumerate(args)))


def test_from_triples_duplicates_option():
    with pytest.raises(ParameterError, match=r"'duplicates' parameter of from_triples"):
        from_triples([1], [1], [1.0], duplicates="max")
    with pytest.raises(DataFormatError, match=r"user 1 has item 1 more than once"):
        from_triples([1, 1], [1, 1], [1.0, 2.0], duplicates="error")


def test_interactions_transposed():
    with pytest.raises(DataFormatError, match=r"shape \(3, 2\) but the id maps give 2 users × 3 items.*transposed"):
        Interactions(sp.csr_matrix((3, 2)), np.arange(2), np.arange(3))


# ------------------------------------------------------------------------------ labelled sequences
SEQUENCE_FILES = [
    ("tsv-empty", load_tsv, b"", r"no examples found"),
    ("tsv-no-tab", load_tsv, b"EI\tACGT\nbroken\n", r"d\.txt, line 2: no TAB"),
    ("tsv-non-utf8", load_tsv, b"EI\t\xff\xfe\n", r"d\.txt: not UTF-8 text"),
    ("tsv-truncated", load_tsv, b"EI\tACGT\nN\t", r"d\.txt, line 2: empty sequence"),
    ("lines-empty", load_lines, b"\n\n", r"no sequences found"),
    ("lines-non-utf8", load_lines, b"\xff\n", r"not UTF-8 text"),
    ("splice-bad", load_splice, b"EI, X, ACGT\nbroken\n", r"d\.txt, line 2: expected 'CLASS, NAME, SEQUENCE'"),
    ("splice-non-ascii", load_splice, "EI, X, ACGTü\n".encode(), r"not ASCII text"),
    ("splice-header", load_splice, b"class, name, sequence\n", r"looks like a column header"),
]


@pytest.mark.parametrize("case, loader, content, match", SEQUENCE_FILES, ids=[c[0] for c in SEQUENCE_FILES])
def test_malformed_sequence_files(tmp_path, case, loader, content, match):
    with pytest.raises(DataFormatError, match=match):
        loader(_write(tmp_path, "d.txt", content))


SEQUENCE_PATHS = [
    ("tsv-missing", lambda t: load_tsv(t / "nope.tsv"), MissingDataError, r"nope\.tsv' not found"),
    ("tsv-folder", lambda t: load_tsv(t), PathIsFolderError, r"is a folder, not a file; expected a UTF-8 text"),
    ("tsv-none", lambda t: load_tsv(None), ParameterTypeError, r"labelled sequence file path must be a str"),
    ("lines-folder", lambda t: load_lines(t), PathIsFolderError, r"is a folder, not a file; expected one sequence"),
    ("lines-missing", lambda t: load_lines(t / "x"), MissingDataError, r"Sequence file .* not found"),
    ("splice-folder-without", lambda t: load_splice(t), MissingDataError, r"splice\.data' not found"),
    ("splice-none-is-bundled", None, None, None),
    ("reuters-file", lambda t: load_reuters(t / "ok.tsv"), NotAFolderError, r"is a file; Reuters-21578 is read"),
    ("reuters-missing", lambda t: load_reuters(t / "nope"), MissingDataError, r"No Reuters-21578 SGML files"),
    ("reuters-none", lambda t: load_reuters(None), ParameterTypeError, r"Reuters-21578 path must be a str"),
    ("sequences-none", lambda t: load_sequences(None), ParameterTypeError, r"data path must be a str"),
    ("sequences-format", lambda t: load_sequences(t, "xml"), ParameterError, r"'format' parameter .*'xml'"),
    ("sequences-folder", lambda t: load_sequences(t), DataFormatError, r"is a folder without Reuters-21578"),
    ("sequences-tsv-folder", lambda t: load_sequences(t, "tsv"), PathIsFolderError, r"is a folder, not a file"),
]


@pytest.mark.parametrize("case, call, error, match", SEQUENCE_PATHS, ids=[c[0] for c in SEQUENCE_PATHS])
def test_sequence_paths(tmp_path, case, call, error, match):
    if call is None:
        assert len(load_splice(None)) == 3190  # None means the bundled copy, not an error
        return
    _write(tmp_path, "ok.tsv", b"EI\tACGT\n")
    with pytest.raises(error, match=match):
        call(tmp_path)


WRITE_TSV = [
    ("folder", lambda t: write_tsv(t, ["ab"], ["x"]), OutputPathError, r"is a folder; give the path of a file"),
    ("none", lambda t: write_tsv(None, ["ab"], ["x"]), ParameterTypeError, r"must be a path"),
    ("lengths", lambda t: write_tsv(t / "a.tsv", ["ab", "c"], ["x"]), DataFormatError, r"2 sequences but 1 labels"),
    ("seqs-none", lambda t: write_tsv(t / "a.tsv", None, ["x"]), ParameterTypeError, r"sequences must be a list"),
    ("seqs-str", lambda t: write_tsv(t / "a.tsv", "ab", ["x", "y"]), ParameterTypeError, r"got str"),
    ("seq-int", lambda t: write_tsv(t / "a.tsv", [5], ["x"]), ParameterTypeError, r"sequence 0 is 5, not a str"),
    ("labels-none", lambda t: write_tsv(t / "a.tsv", ["ab"], None), ParameterTypeError, r"labels must be a list"),
    ("line-break", lambda t: write_tsv(t / "a.tsv", ["a\nb"], ["x"]), DataFormatError, r"example 0: .*line break"),
    # load_tsv drops a byte-order mark at the start of a file, so it did not read back (written before)
    ("bom", lambda t: write_tsv(t / "a.tsv", ["ab"], ["\ufeffA"]), DataFormatError, r"example 0: .*U\+FEFF"),
]


def test_write_tsv_keeps_a_later_label_that_starts_with_u_feff(tmp_path):
    write_tsv(tmp_path / "b.tsv", ["ab", "cd"], ["A", "\ufeffB"])
    assert load_tsv(tmp_path / "b.tsv").labels == ["A", "\ufeffB"]


@pytest.mark.parametrize("case, call, error, match", WRITE_TSV, ids=[c[0] for c in WRITE_TSV])
def test_write_tsv_refuses_and_keeps_the_old_file(tmp_path, case, call, error, match):
    old = _write(tmp_path, "a.tsv", b"EI\tACGT\n")
    with pytest.raises(error, match=match):
        call(tmp_path)
    assert old.read_bytes() == b"EI\tACGT\n"


def test_splice_data_that_is_a_folder(tmp_path):
    (tmp_path / "splice.data").mkdir()
    with pytest.raises(PathIsFolderError, match=r"splice\.data' is a folder, not a file"):
        load_splice(tmp_path)
