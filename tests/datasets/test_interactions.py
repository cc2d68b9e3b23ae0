"""ratkit.datasets.interactions: the loaders on generated files (the real data is never needed)."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.datasets import Interactions, load_interactions_csv, load_lastfm, load_movielens
from ratkit.exceptions import DataFormatError, MissingDataError


def test_movielens_100k_folder_and_file(tmp_path):
    (tmp_path / "u.data").write_text("196\t242\t3\t881250949\n186\t302\t3\t891717742\n196\t302\t5\t881250950\n")
    for path in (tmp_path, tmp_path / "u.data"):
        data = load_movielens(path)
        assert data.user_ids.tolist() == [186, 196] and data.item_ids.tolist() == [242, 302]
        np.testing.assert_array_equal(data.matrix.toarray(), [[0, 3], [3, 5]])
        assert "MovieLens 100K" in data.source


def test_movielens_1m_format(tmp_path):
    (tmp_path / "ratings.dat").write_text("1::1193::5::978300760\n2::1193::4::978298413\n")
    data = load_movielens(tmp_path)
    assert data.shape == (2, 1) and data.matrix.sum() == 9


def test_missing_movielens_names_the_file_and_format(tmp_path):
    with pytest.raises(MissingDataError, match="holds no u.data or ratings.dat.*tab-separated"):
        load_movielens(tmp_path)
    with pytest.raises(MissingDataError, match=r"nothere.*not found.*user, item, rating"):
        load_movielens(tmp_path / "nothere" / "u.data")


def test_malformed_movielens_line_is_named(tmp_path):
    path = tmp_path / "u.data"
    path.write_text("1\t2\t3\t4\n1\tx\t3\t4\n")
    with pytest.raises(DataFormatError, match=r"u.data, line 2: expected MovieLens 100K"):
        load_movielens(path)


def test_duplicate_rating_is_an_error(tmp_path):
    path = tmp_path / "u.data"
    path.write_text("1\t2\t3\t4\n1\t2\t5\t9\n")
    with pytest.raises(DataFormatError, match="user 1 has item 2 more than once"):
        load_movielens(path)


def test_lastfm_crlf_with_header(tmp_path):
    (tmp_path / "user_artists.dat").write_bytes(
        b"userID\tartistID\tweight\r\n2\t51\t13883\r\n2\t52\t11690\r\n4\t51\t7\r\n"
    )
    data = load_lastfm(tmp_path)
    np.testing.assert_array_equal(data.matrix.toarray(), [[13883, 11690], [7, 0]])
    with pytest.raises(MissingDataError, match="missing' not found.*user_artists.dat.*userID, artistID"):
        load_lastfm(tmp_path / "missing")


def test_csv_triples_pairs_and_errors(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text("user,item,value\nalice,x,2\nbob,y,1\nalice,x,1\n")
    data = load_interactions_csv(path, header=True)
    assert data.user_ids.tolist() == ["alice", "bob"]
    np.testing.assert_array_equal(data.matrix.toarray(), [[3, 0], [0, 1]])  # duplicates summed
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("a,b\nc,b\n")
    assert load_interactions_csv(pairs).matrix.sum() == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,1\nc,d,notanumber\n")
    with pytest.raises(DataFormatError, match=r"bad.csv, line 2: expected a ','-separated"):
        load_interactions_csv(bad)
    with pytest.raises(DataFormatError, match="more than once"):
        load_interactions_csv(path, header=True, duplicates="error")


def _dense(rows, users, items):
    """The users × items matrix of (user, item, value) triples, summed by hand: the oracle."""
    out = np.zeros((len(users), len(items)))
    for user, item, value in rows:
        out[users.index(user), items.index(item)] += value
    return out


@pytest.mark.parametrize(
    "head",
    [
        "user,item",  # the example: a two-column header of the usual names
        "UserID,Item_Id",  # names compared case-insensitively, ignoring punctuation
        "customer,product",  # unknown names, but not numbers above a column of numbers
        "u,i,score",  # a value cell that is not a number
    ],
)
def test_csv_header_is_detected_from_its_content(tmp_path, head):
    body = [("1", "10", 2.0), ("2", "10", 1.0), ("1", "30", 4.0)]
    with_value = head.count(",") == 2
    lines = [",".join([u, i, str(v)] if with_value else [u, i]) for u, i, v in body]
    path = tmp_path / "h.csv"
    path.write_text(head + "\n" + "\n".join(lines) + "\n")
    data = load_interactions_csv(path)
    assert data.user_ids.tolist() == ["1", "2"] and data.item_ids.tolist() == ["10", "30"]
    want = _dense([(u, i, v if with_value else 1.0) for u, i, v in body], ["1", "2"], ["10", "30"])
    np.testing.assert_array_equal(data.matrix.toarray(), want)


def test_csv_string_ids_with_a_two_column_header(tmp_path, caplog):
    path = tmp_path / "pairs.csv"
    path.write_text("user,item\nalice,book\nbob,book\nalice,pen\n")
    with caplog.at_level(logging.INFO, logger="ratkit.datasets"):
        data = load_interactions_csv(path)
    assert "pairs.csv, line 1: 'user,item' taken for a header: its cells are the usual column names" in caplog.text
    assert data.user_ids.tolist() == ["alice", "bob"] and data.item_ids.tolist() == ["book", "pen"]
    np.testing.assert_array_equal(data.matrix.toarray(), [[1, 1], [1, 0]])


@pytest.mark.parametrize(
    "text",
    ["1,2\n3,4\n", "alice,x\nbob,y\n", "alice,x,2\nbob,y,1\n", "a,b\n", "a1,b\nc2,d\n", "user,item,5\nb,y,1\n"],
)
def test_csv_first_data_row_is_kept(tmp_path, text):
    path = tmp_path / "d.csv"
    path.write_text(text)
    rows = [line.split(",") for line in text.splitlines()]
    assert load_interactions_csv(path).matrix.nnz == len(rows)
    assert load_interactions_csv(path, header=False).matrix.nnz == len(rows)


def test_csv_header_false_refuses_a_header(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("user,item\na,b\nc,b\n")
    with pytest.raises(
        DataFormatError,
        match=r"h.csv, line 1: 'user,item' looks like a header \(its cells are the usual column names\), "
        r"but header=False says the file has none. Pass header=True",
    ):
        load_interactions_csv(path, header=False)
    path.write_text("a,b,notanumber\n")
    with pytest.raises(DataFormatError, match=r"line 1: 'a,b,notanumber' looks like a header \(its value cell"):
        load_interactions_csv(path, header=False)
    path.write_text("\nbuyer,sku\n1,2\n3,4\n")  # known only once the other rows are read
    with pytest.raises(
        DataFormatError,
        match=r"h.csv, line 2: 'buyer,sku' looks like a header \(its user cell 'buyer' is not a number, unlike that "
        r"of every other row\), but header=False",
    ):
        load_interactions_csv(path, header=False)
    path.write_text("a,b,c,d\nx\n")  # the first bad line is the one named
    with pytest.raises(DataFormatError, match=r"h.csv, line 1: expected a ','-separated .* got 'a,b,c,d'"):
        load_interactions_csv(path)


def test_csv_header_true_refuses_a_data_row(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,2\n3,4\n")
    with pytest.raises(
        DataFormatError,
        match=r"d.csv, line 1: '1,2' is a data row \(its user and item cells are numbers\), "
        r"but header=True says it is a header. Pass header=False",
    ):
        load_interactions_csv(path, header=True)
    path.write_text("alice,x,2\nbob,y,1\n")
    with pytest.raises(DataFormatError, match=r"line 1: 'alice,x,2' is a data row \(its value cell '2' is a number"):
        load_interactions_csv(path, header=True)
    path.write_text("alice,x\nbob,y\n")  # undecidable from the content: header=True is believed
    assert load_interactions_csv(path, header=True).user_ids.tolist() == ["bob"]


def test_csv_with_only_a_header_and_bad_options(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("user,item,rating\n")
    with pytest.raises(DataFormatError, match=r"h.csv holds no data row after its header line 1 'user,item,rating'"):
        load_interactions_csv(path)
    with pytest.raises(
        ValueError, match=r"'header' parameter of load_interactions_csv must be None, True or False. Got 'yes'"
    ):
        load_interactions_csv(path, header="yes")
    path.write_text("a,b\n")
    with pytest.raises(
        ValueError, match=r"'duplicates' parameter of load_interactions_csv must be 'sum' or 'error'. Got 'max'"
    ):
        load_interactions_csv(path, duplicates="max")


def test_csv_byte_order_mark_is_not_part_of_the_first_id(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + b"7,x\n7,y\n")  # Excel's "CSV UTF-8" starts with a BOM
    data = load_interactions_csv(path)
    assert data.user_ids.tolist() == ["7"] and data.item_ids.tolist() == ["x", "y"]
    path.write_bytes(b"u,\xe9\n")
    with pytest.raises(DataFormatError, match=r"excel.csv: not UTF-8 text .*; expected a ','-separated file"):
        load_interactions_csv(path)
    path.write_text("u,i\nv," + "j" * 200_000 + "\n")
    with pytest.raises(DataFormatError, match=r"excel.csv, line 2: field larger than field limit.*; expected a ','"):
        load_interactions_csv(path)


def test_lastfm_without_header_keeps_the_first_row(tmp_path):
    (tmp_path / "user_artists.dat").write_text("2\t51\t13883\n2\t52\t11690\n4\t51\t7\n")
    data = load_lastfm(tmp_path)
    np.testing.assert_array_equal(data.matrix.toarray(), [[13883, 11690], [7, 0]])
    (tmp_path / "user_artists.dat").write_text("\nUserId\tArtistId\tWeight\n2\t51\t5\n")  # any case
    np.testing.assert_array_equal(load_lastfm(tmp_path).matrix.toarray(), [[5]])


@pytest.mark.parametrize("first", ["user\tartist\tplays", "2\tx\t13883", "2 51 13883"])
def test_lastfm_first_line_neither_header_nor_data(tmp_path, first):
    (tmp_path / "user_artists.dat").write_text(first + "\n2\t52\t11690\n")
    with pytest.raises(
        DataFormatError,
        match=r"user_artists.dat, line 1 is neither the header 'userID\\tartistID\\tweight' nor a data line",
    ):
        load_lastfm(tmp_path)


@pytest.mark.parametrize(
    "name, head, row",
    [
        ("u.data", "user\titem\trating\ttimestamp", "1\t2\t3\t4"),
        ("ratings.dat", "UserID::MovieID::Rating::Timestamp", "1::2::3::4"),
    ],
)
def test_movielens_header_line_is_refused_by_name(tmp_path, name, head, row):
    path = tmp_path / name
    path.write_text(head + "\n" + row + "\n")
    with pytest.raises(
        DataFormatError,
        match=rf"{name}, line 1: '.*' looks like a column header, but MovieLens files have no header line.*delete",
    ):
        load_movielens(path)


def test_a_lastfm_file_read_as_movielens_names_the_other_loaders(tmp_path):
    """Reported by an audit: Last.fm's user_artists.dat given to the MovieLens reader (the CLI's
    default --format) was told only to delete its header line."""
    path = tmp_path / "u.data"
    path.write_text("userID\tartistID\tweight\n2\t51\t13883\n")
    with pytest.raises(DataFormatError, match=r"another format \(Last\.fm's user_artists\.dat.*load_lastfm.*--format"):
        load_movielens(path)


def test_interactions_reject_a_transposed_matrix():
    with pytest.raises(DataFormatError, match=r"shape \(3, 2\).*2 users × 3 items.*transposed"):
        Interactions(sp.csr_matrix(np.ones((3, 2))), np.arange(2), np.arange(3))


def test_describe_counts_interactions_as_the_models_do(tmp_path):
    """Reported by an audit: a CSV row of value 0 is a stored zero, which fitting and the
    metrics drop, but describe() counted it as an interaction."""
    path = tmp_path / "events.csv"
    path.write_text("u1,i1,1\nu2,i2,0\nu2,i1,3\n")
    data = load_interactions_csv(path)
    assert "2 users × 2 items, 2 interactions (density 0.5000)" in data.describe()
