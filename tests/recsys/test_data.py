"""Loaders and feedback conversions on generated files (the real data is never needed)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.exceptions import DataFormatError, MissingDataError
from ratkit.recsys.datasets import Interactions, load_csv, load_lastfm, load_movielens
from ratkit.recsys.feedback import keep_users_with, preferred_examined, to_one_class


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
    data = load_csv(path, header=True)
    assert data.user_ids.tolist() == ["alice", "bob"]
    np.testing.assert_array_equal(data.matrix.toarray(), [[3, 0], [0, 1]])  # duplicates summed
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("a,b\nc,b\n")
    assert load_csv(pairs).matrix.sum() == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,notanumber\n")
    with pytest.raises(DataFormatError, match=r"bad.csv, line 1: expected a ','-separated"):
        load_csv(bad)
    with pytest.raises(DataFormatError, match="more than once"):
        load_csv(path, header=True, duplicates="error")


def test_interactions_reject_a_transposed_matrix():
    with pytest.raises(DataFormatError, match=r"shape \(3, 2\).*2 users × 3 items.*transposed"):
        Interactions(sp.csr_matrix(np.ones((3, 2))), np.arange(2), np.arange(3))


RATINGS = sp.csr_matrix(np.array([[5, 3, 0, 4], [1, 0, 2, 0], [4, 4, 5, 0]], dtype=float))


def test_to_one_class_keeps_ratings_at_or_above_threshold():
    np.testing.assert_array_equal(to_one_class(RATINGS, 4).toarray(), [[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0]])


def test_preferred_and_examined_partition_the_rated_items():
    preferred, examined = preferred_examined(RATINGS, 5)
    np.testing.assert_array_equal(preferred.toarray(), [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]])
    np.testing.assert_array_equal(examined.toarray(), [[0, 1, 0, 1], [1, 0, 1, 0], [1, 1, 0, 0]])


def test_keep_users_with_cuts_the_id_map_too():
    data = Interactions(RATINGS, np.array([10, 20, 30]), np.arange(4), "toy")
    kept = keep_users_with(to_one_class(data, 4), 2)
    assert kept.user_ids.tolist() == [10, 30] and kept.shape == (2, 4)


def test_conversions_reject_nan():
    bad = RATINGS.copy()
    bad.data[0] = np.nan
    with pytest.raises(DataFormatError, match=r"NaN .*the first at user 0, item 0"):
        to_one_class(bad, 4)
