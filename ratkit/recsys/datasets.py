"""Loaders for interaction data: MovieLens 100K/1M, Last.fm HetRec 2011 and generic CSV.

Every loader returns an :class:`Interactions`: a users × items CSR matrix plus the raw
ids of its rows and columns (the id maps). A missing file raises
:class:`~ratkit.exceptions.MissingDataError` and a malformed one
:class:`~ratkit.exceptions.DataFormatError`; both name the file and the format expected.

The data itself is never shipped with ratkit (MovieLens forbids redistribution): pass the
path of your own copy.
"""

from __future__ import annotations

import csv
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp

from ratkit.exceptions import DataFormatError, MissingDataError

__all__ = ["Interactions", "load_movielens", "load_lastfm", "load_csv", "from_triples"]

log = logging.getLogger(__name__)

_ML100K = "u.data"
_ML1M = "ratings.dat"
_ML100K_FORMAT = "MovieLens 100K u.data: tab-separated user, item, rating, timestamp"
_ML1M_FORMAT = "MovieLens 1M ratings.dat: user::item::rating::timestamp"
_LASTFM = "user_artists.dat"
_LASTFM_FORMAT = "HetRec 2011 Last.fm user_artists.dat: a header line, then tab-separated userID, artistID, weight"


@dataclass(frozen=True)
class Interactions:
    """A users × items matrix with the raw ids of its rows and columns.

    Attributes
    ----------
    matrix : scipy.sparse.csr_matrix
        ``matrix[u, i]`` is the strength (rating, count, 1) of user ``u`` with item ``i``.
    user_ids, item_ids : ndarray
        ``user_ids[u]`` is the raw id of row ``u``; ``item_ids[i]`` of column ``i``.
    source : str
        Where the data came from (file path and format), for reports.
    """

    matrix: sp.csr_matrix
    user_ids: np.ndarray
    item_ids: np.ndarray
    source: str = ""

    def __post_init__(self) -> None:
        expected = (len(self.user_ids), len(self.item_ids))
        if self.matrix.shape != expected:
            hint = (
                " It looks transposed: users must be rows and items columns, so pass matrix.T."
                if self.matrix.shape == expected[::-1]
                else ""
            )
            raise DataFormatError(
                f"The matrix has shape {self.matrix.shape} but the id maps give "
                f"{expected[0]} users × {expected[1]} items.{hint}"
            )

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape

    def replace(self, matrix: sp.spmatrix, users: np.ndarray | None = None) -> Interactions:
        """A new Interactions with ``matrix`` (rows ``users`` of this one, when given)."""
        user_ids = self.user_ids if users is None else self.user_ids[users]
        return Interactions(sp.csr_matrix(matrix), user_ids, self.item_ids, self.source)

    def describe(self) -> str:
        m, n = self.matrix.shape
        density = self.matrix.nnz / max(m * n, 1)
        return (
            f"{self.source or 'interactions'}: {m} users × {n} items, {self.matrix.nnz} "
            f"interactions (density {density:.4f})"
        )


def from_triples(
    users: np.ndarray,
    items: np.ndarray,
    values: np.ndarray,
    *,
    source: str = "",
    duplicates: Literal["sum", "error"] = "sum",
) -> Interactions:
    """Build an :class:`Interactions` from parallel arrays of raw user ids, item ids and values.

    Rows and columns follow the sorted order of the distinct raw ids. Repeated (user,
    item) pairs are summed, or rejected with ``duplicates="error"``.
    """
    users, items = np.asarray(users), np.asarray(items)
    values = np.asarray(values, dtype=np.float64)
    user_ids, rows = np.unique(users, return_inverse=True)
    item_ids, cols = np.unique(items, return_inverse=True)
    if duplicates == "error":
        keys = rows.astype(np.int64) * len(item_ids) + cols
        unique_keys, counts = np.unique(keys, return_counts=True)
        if (counts > 1).any():
            key = int(unique_keys[np.argmax(counts > 1)])
            raise DataFormatError(
                f"{source or 'the data'}: user {user_ids[key // len(item_ids)].item()!r} has item "
                f"{item_ids[key % len(item_ids)].item()!r} more than once; each (user, item) "
                f"pair must appear once in this format."
            )
    matrix = sp.csr_matrix((values, (rows, cols)), shape=(len(user_ids), len(item_ids)), dtype=np.float64)
    matrix.sum_duplicates()
    return Interactions(matrix, user_ids, item_ids, source)


def _open_lines(path: str, what: str, fmt: str) -> Iterator[tuple[int, str]]:
    if not os.path.isfile(path):
        raise MissingDataError(f"{what} file {path!r} not found. Expected {fmt}.")
    with open(path, encoding="latin-1", newline="") as handle:
        for lineno, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if line.strip():
                yield lineno, line


def _parse_rows(
    path: str, what: str, fmt: str, sep: str, *, skip_header: bool = False
) -> tuple[list[int], list[int], list[float]]:
    users: list[int] = []
    items: list[int] = []
    values: list[float] = []
    for lineno, line in _open_lines(path, what, fmt):
        if skip_header and lineno == 1:
            continue
        fields = line.split(sep)
        try:
            if len(fields) < 3:
                raise ValueError
            user, item, value = int(fields[0]), int(fields[1]), float(fields[2])
        except ValueError:
            raise DataFormatError(f"{path}, line {lineno}: expected {fmt}; got {line[:80]!r}.") from None
        users.append(user)
        items.append(item)
        values.append(value)
    if not users:
        raise DataFormatError(f"{path} holds no data line; expected {fmt}.")
    return users, items, values


def load_movielens(path: str | os.PathLike[str], *, variant: Literal["auto", "100k", "1m"] = "auto") -> Interactions:
    """Load MovieLens ratings: 100K ``u.data`` (tab) or 1M ``ratings.dat`` (``::``).

    Parameters
    ----------
    path : str
        The ``u.data``/``ratings.dat`` file, or the folder holding it (``ml-100k/``,
        ``ml-1m/``).
    variant : {"auto", "100k", "1m"}
        Which format to read; ``"auto"`` decides from the file name.

    Returns
    -------
    Interactions
        Ratings 1–5 as values; rows are users and columns movies, in increasing raw id.

    References
    ----------
    F. M. Harper and J. A. Konstan. The MovieLens Datasets: History and Context.
    ACM TiiS 5(4), 2015.
    """
    if variant not in ("auto", "100k", "1m"):
        raise ValueError(
            f"The 'variant' parameter of load_movielens must be one of 'auto', '100k', '1m'. Got {variant!r} instead."
        )
    path = os.fspath(path)
    if os.path.isdir(path):
        names = {"100k": [_ML100K], "1m": [_ML1M], "auto": [_ML100K, _ML1M]}[variant]
        candidates = [os.path.join(path, name) for name in names]
        found = [candidate for candidate in candidates if os.path.isfile(candidate)]
        if not found:
            raise MissingDataError(
                f"MovieLens folder {path!r} holds no {' or '.join(names)}. Expected {_ML100K_FORMAT} or {_ML1M_FORMAT}."
            )
        path = found[0]
    if variant == "auto":
        variant = "1m" if os.path.basename(path).endswith(".dat") else "100k"
    sep, fmt = ("::", _ML1M_FORMAT) if variant == "1m" else ("\t", _ML100K_FORMAT)
    users, items, values = _parse_rows(path, "MovieLens", fmt, sep)
    data = from_triples(
        np.array(users),
        np.array(items),
        np.array(values),
        source=f"MovieLens {variant.upper()} ({os.path.basename(path)})",
        duplicates="error",
    )
    log.info("loaded %s", data.describe())
    return data


def load_lastfm(path: str | os.PathLike[str]) -> Interactions:
    """Load the HetRec 2011 Last.fm ``user_artists.dat``: listening counts per (user, artist).

    ``path`` is the file or the folder holding it. LF and CRLF line endings are both
    accepted; the header line is skipped.

    References
    ----------
    I. Cantador, P. Brusilovsky and T. Kuflik. 2nd Workshop on Information
    Heterogeneity and Fusion in Recommender Systems (HetRec 2011), RecSys 2011.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, _LASTFM)
    users, items, values = _parse_rows(path, "Last.fm", _LASTFM_FORMAT, "\t", skip_header=True)
    data = from_triples(
        np.array(users),
        np.array(items),
        np.array(values),
        source=f"Last.fm HetRec 2011 ({os.path.basename(path)})",
        duplicates="error",
    )
    log.info("loaded %s", data.describe())
    return data


def load_csv(
    path: str | os.PathLike[str],
    *,
    delimiter: str = ",",
    header: bool = False,
    duplicates: Literal["sum", "error"] = "sum",
) -> Interactions:
    """Load a CSV of ``user, item[, value]`` triples (value 1 when the column is absent).

    User and item ids are kept as strings in the id maps. Repeated pairs are summed
    (event logs), or rejected with ``duplicates="error"``.
    """
    path = os.fspath(path)
    fmt = f"a {delimiter!r}-separated file of user, item[, value] rows"
    if not os.path.isfile(path):
        raise MissingDataError(f"CSV file {path!r} not found. Expected {fmt}.")
    users: list[str] = []
    items: list[str] = []
    values: list[float] = []
    with open(path, encoding="utf-8", newline="") as handle:
        for lineno, row in enumerate(csv.reader(handle, delimiter=delimiter), start=1):
            if (header and lineno == 1) or not any(cell.strip() for cell in row):
                continue
            try:
                if len(row) not in (2, 3) or not row[0].strip() or not row[1].strip():
                    raise ValueError
                value = float(row[2]) if len(row) == 3 else 1.0
            except ValueError:
                raise DataFormatError(
                    f"{path}, line {lineno}: expected {fmt}; got {delimiter.join(row)[:80]!r}."
                ) from None
            users.append(row[0].strip())
            items.append(row[1].strip())
            values.append(value)
    if not users:
        raise DataFormatError(f"{path} holds no data row; expected {fmt}.")
    return from_triples(
        np.array(users),
        np.array(items),
        np.array(values),
        source=f"CSV ({os.path.basename(path)})",
        duplicates=duplicates,
    )
