"""``ratkit recsys recommend --model FILE --users … -N 10``: recommendations from a saved model,
by the raw ids of the data file (issue 34). The oracle is the Python ``model.recommend`` on the
loaded model, mapped to raw ids through maps built here from the file's text."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import load_model
from ratkit.datasets import load_movielens
from ratkit.recsys import PureSVD
from ratkit.recsys.evaluation import prepare_leave_k_out
from tests.cli._helpers import run

#: raw ids far from row numbers: gaps, large values, not starting at 0 or 1
USERS = [7, 19, 23, 101, 250, 251, 900, 1000, 4242, 5000, 7777, 31337]
ITEMS = list(range(3, 300, 11))


@pytest.fixture
def udata(tmp_path):
    """A u.data-like file (user, item, rating, timestamp; tab-separated) of the raw ids above."""
    rng = np.random.default_rng(5)
    rows = []
    for user in USERS:
        for item in rng.choice(ITEMS, 14, replace=False):
            rows.append(f"{user}\t{item}\t{rng.integers(1, 6)}\t{rng.integers(10**8)}")
    path = tmp_path / "u.data"
    path.write_text("\n".join(rows) + "\n")
    return path


def _file_ids(path, min_positives):
    """(kept raw user ids, raw item ids), sorted, from the file's text: the users with at least
    ``min_positives`` ratings ≥ 4, and every item of the file."""
    triples = [tuple(int(x) for x in line.split("\t")[:3]) for line in path.read_text().splitlines()]
    positives = {}
    for user, _, rating in triples:
        positives[user] = positives.get(user, 0) + (rating >= 4)
    users = sorted(u for u, count in positives.items() if count >= min_positives)
    return users, sorted({item for _, item, _ in triples})


def _fit_by_command(udata, tmp_path, capsys):
    target = tmp_path / "model.zip"
    argv = ["recsys", "evaluate", "--data", udata, "--model", "puresvd", "--param", "n_factors=3"]
    argv += ["--min-positives", "4", "--n-test", "1", "-k", "2", "--quiet", "-o", target]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    return target


def _parse(out, scores=False):
    """{raw user: ([raw items], [scores])} from the TSV lines."""
    parsed = {}
    for line in out.splitlines():
        user, *rest = line.split("\t")
        items = rest[0::2] if scores else rest
        values = [float(v) for v in rest[1::2]] if scores else []
        parsed[user] = (items, values)
    return parsed


def test_recommend_prints_the_python_recommendations_by_raw_ids(udata, tmp_path, capsys):
    target = _fit_by_command(udata, tmp_path, capsys)
    users, items = _file_ids(udata, 4)
    assert len(users) >= 5
    asked = [users[3], users[0], users[-1]]  # in this order, not the rows' order
    code, out, err = run(["recsys", "recommend", "--model", target, "--users", *map(str, asked), "-N", "5"], capsys)
    assert code == 0, err
    assert err == ""  # the file keeps ids and training rows: nothing to warn about
    lines = out.splitlines()
    assert [line.split("\t")[0] for line in lines] == [str(u) for u in asked]

    model = load_model(target)
    train, _, _ = prepare_leave_k_out(load_movielens(udata), threshold=4, min_positives=4, n_test=1, random_state=0)
    for line, user in zip(lines, asked):
        row = users.index(user)
        ids, _ = model.recommend(row, train[row], N=5)
        assert line.split("\t")[1:] == [str(items[i]) for i in ids]
        liked = {items[i] for i in train[row].indices}
        assert not liked & {int(x) for x in line.split("\t")[1:]}  # training items left out

    code, out, err = run(["recsys", "recommend", "--model", target, "--users", "all", "-N", "3", "--scores"], capsys)
    assert code == 0, err
    parsed = _parse(out, scores=True)
    assert list(parsed) == [str(u) for u in users]
    for row, user in enumerate(users):
        ids, values = model.recommend(row, train[row], N=3)
        assert parsed[str(user)][0] == [str(items[i]) for i in ids]
        np.testing.assert_allclose(parsed[str(user)][1], values, rtol=1e-5)


def test_users_file_lists_raw_ids_one_per_line(udata, tmp_path, capsys):
    target = _fit_by_command(udata, tmp_path, capsys)
    users, _ = _file_ids(udata, 4)
    listing = tmp_path / "users.txt"
    listing.write_text(f"{users[1]}\n\n{users[0]}\n")
    code, by_file, err = run(["recsys", "recommend", "--model", target, "--users-file", listing], capsys)
    assert code == 0, err
    code, by_args, _ = run(["recsys", "recommend", "--model", target, "--users", users[1], users[0]], capsys)
    assert by_file == by_args and len(by_file.splitlines()) == 2
    assert all(len(line.split("\t")) == 11 for line in by_file.splitlines())  # the user and -N 10 items


def test_unknown_raw_user_ids_are_named_in_one_line(udata, tmp_path, capsys):
    target = _fit_by_command(udata, tmp_path, capsys)
    users, _ = _file_ids(udata, 4)
    code, out, err = run(["recsys", "recommend", "--model", target, "--users", users[0], "8", "99999"], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "2 user id(s) not in the model" in err and "'8', '99999'" in err and str(users[0]) + "'" not in err


def test_a_file_without_id_maps_numbers_users_and_items_by_row(tmp_path, capsys):
    """A model fitted on a bare matrix (as every model file before the id maps): users and items
    are 0-based rows and columns, said on standard error, and liked items cannot be left out."""
    rng = np.random.default_rng(2)
    X = sp.csr_matrix((rng.random((15, 12)) < 0.3).astype(float))
    model = PureSVD(n_factors=2, random_state=0).fit(X)
    assert not hasattr(model, "user_ids_")
    target = model.save(tmp_path / "old.zip")
    code, out, err = run(["recsys", "recommend", "--model", target, "--users", "4", "0", "-N", "4"], capsys)
    assert code == 0, err
    assert "keeps no raw ids" in err and "0-based row and column numbers" in err
    assert "keeps no training rows" in err
    for line, user in zip(out.splitlines(), (4, 0)):
        ids, _ = model.recommend(user, N=4, filter_already_liked_items=False)
        assert line.split("\t") == [str(user), *map(str, ids)]
    code, _, err = run(["recsys", "recommend", "--model", target, "--users", "15", "-1"], capsys)
    assert code == 2 and "'15', '-1'" in err and "row numbers 0 to 14" in err


def test_string_ids_of_a_csv_come_back_as_written(tmp_path, capsys):
    rng = np.random.default_rng(9)
    lines = ["user,item,rating"]
    for u in range(12):
        for i in rng.choice(20, 8, replace=False):
            lines.append(f"user-{u * 3},film {i}x,5")
    data = tmp_path / "events.csv"
    data.write_text("\n".join(lines) + "\n")
    target = tmp_path / "m.zip"
    argv = ["recsys", "evaluate", "--data", data, "--format", "csv", "--model", "popularity", "--quiet"]
    code, _, err = run([*argv, "--min-positives", "2", "--n-test", "1", "-k", "1", "-o", target], capsys)
    assert code == 0, err
    code, out, err = run(["recsys", "recommend", "--model", target, "--users", "user-3", "-N", "3"], capsys)
    assert code == 0, err
    user, *items = out.strip().split("\t")
    assert user == "user-3" and len(items) == 3
    assert all(item.startswith("film ") and item.endswith("x") for item in items)
    had = {line.split(",")[1] for line in lines[1:] if line.startswith("user-3,")}
    assert len(had & set(items)) <= 1  # every item of user-3 but the held-out one was in training
