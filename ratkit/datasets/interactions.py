"""Interaction data sets: MovieLens 100K/1M, Last.fm HetRec 2011 and generic CSV.

Every loader returns an :class:`Interactions`: a users × items CSR matrix plus the raw
ids of its rows and columns (the id maps). A missing file raises
:class:`~ratkit.exceptions.MissingDataError` and a malformed one
:class:`~ratkit.exceptions.DataFormatError`; both name the file and the format expected.

Header lines are recognised by their content, never by their position alone: MovieLens
``u.data``/``ratings.dat`` have none (a file that starts with one is refused), the HetRec
``user_artists.dat`` may start with ``userID<TAB>artistID<TAB>weight`` (a file without it
loses no row), and :func:`load_interactions_csv` detects one unless told (see its ``header`` parameter).

The data itself is never shipped with ratkit (MovieLens forbids redistribution): pass the
path of your own copy.
"""

from __future__ import annotations

import csv
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from numbers import Integral
from typing import Literal

import numpy as np
import scipy.sparse as sp

from ratkit.exceptions import (
    DataFormatError,
    MissingDataError,
    ParameterError,
    ParameterTypeError,
    PathIsFolderError,
)

__all__ = ["Interactions", "load_movielens", "load_lastfm", "load_interactions_csv", "from_triples"]

log = logging.getLogger(__name__)

_ML100K = "u.data"
_ML1M = "ratings.dat"
_ML100K_FORMAT = "MovieLens 100K u.data: tab-separated user, item, rating, timestamp"
_ML1M_FORMAT = "MovieLens 1M ratings.dat: user::item::rating::timestamp"
_LASTFM = "user_artists.dat"
_LASTFM_HEADER = ("userID", "artistID", "weight")
_LASTFM_FORMAT = (
    "HetRec 2011 Last.fm user_artists.dat: tab-separated userID, artistID, weight, "
    "after an optional header line 'userID<TAB>artistID<TAB>weight'"
)

#: Column names that header lines of interaction files use, once normalised by :func:`_column_name`
#: ("User_ID", "userId" and "user id" all become "userid").
_HEADER_NAME = re.compile(
    r"(?:user|item|artist|movie|product|customer|song|track|book|tag|uid|iid|id)(?:id|ids|s|name)?"
    r"|(?:rating|value|count|weight|score|timestamp|time|date|play|playcount|label)s?"
)
#: A decimal number (digits, optional sign, point and exponent); "nan" and "inf" are not ids.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


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

    def __repr__(self) -> str:
        """One line: users, items, interactions (as :meth:`describe` counts them) and the source."""
        m, n = self.matrix.shape
        source = f", source={self.source!r}" if self.source else ""
        count = int(self.matrix.count_nonzero())
        return f"{type(self).__name__}(n_users={m}, n_items={n}, n_interactions={count}{source})"

    def replace(self, matrix: sp.spmatrix, users: np.ndarray | None = None) -> Interactions:
        """A new Interactions with ``matrix`` (rows ``users`` of this one, when given)."""
        user_ids = self.user_ids if users is None else self.user_ids[users]
        return Interactions(sp.csr_matrix(matrix), user_ids, self.item_ids, self.source)

    def describe(self) -> str:
        """Users, items and interactions, as the models and metrics count them: a stored zero (a
        CSV row of value 0) is no interaction."""
        m, n = self.matrix.shape
        count = int(self.matrix.count_nonzero())
        density = count / max(m * n, 1)
        return f"{self.source or 'interactions'}: {m} users × {n} items, {count} interactions (density {density:.4f})"


def _check_duplicates(duplicates: str, caller: str) -> None:
    if duplicates not in ("sum", "error"):
        raise ParameterError(
            f"The 'duplicates' parameter of {caller} must be 'sum' or 'error'. Got {duplicates!r} instead."
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
    _check_duplicates(duplicates, "from_triples")
    where = source or "from_triples"
    columns = {}
    for name, column in (("users", users), ("items", items), ("values", values)):
        try:
            array = np.asarray(column, dtype=np.float64 if name == "values" else None)
        except (TypeError, ValueError) as exc:
            raise ParameterTypeError(
                f"{where}: {name} must be a 1-D array of {'numbers' if name == 'values' else 'ids'}; got "
                f"{column!r:.80} ({exc})."
            ) from exc
        if array.ndim != 1:
            raise DataFormatError(f"{where}: {name} must be a 1-D array; got shape {array.shape}.")
        if array.dtype == object:
            odd = next((x for x in array if not isinstance(x, (str, Integral))), None)
            if odd is not None:
                raise ParameterTypeError(
                    f"{where}: {name} must be a 1-D array of ids (ints or strs); got the element {odd!r:.80}."
                )
        columns[name] = array
    users, items, values = columns["users"], columns["items"], columns["values"]
    if not len(users) == len(items) == len(values):
        raise DataFormatError(
            f"{where}: users, items and values are parallel arrays and must have one length; got lengths "
            f"{len(users)}, {len(items)} and {len(values)}."
        )
    bad = ~np.isfinite(values)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise DataFormatError(
            f"{where}: {int(bad.sum())} value(s) are NaN or infinite (the first, {float(values[k])!r}, at "
            f"position {k}: user {users[k].item()!r}, item {items[k].item()!r}); every value must be a finite number."
        )
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


def _column_name(cell: str) -> str:
    """``cell`` case-folded, with everything but letters and digits removed."""
    return re.sub(r"[^0-9a-z]", "", cell.casefold())


def _is_header_name(cell: str) -> bool:
    """Whether ``cell`` is one of the usual column names of interaction files (user, itemID, rating ...)."""
    return _HEADER_NAME.fullmatch(_column_name(cell)) is not None


def _is_number(cell: str) -> bool:
    return _NUMBER.fullmatch(cell.strip()) is not None


def _is_float(cell: str) -> bool:
    """Whether ``cell`` parses as the value of a data row."""
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _file_path(path: object, what: str, fmt: str) -> str:
    """``path`` as a str naming an existing file: ParameterTypeError for no path at all,
    PathIsFolderError for a folder, MissingDataError for nothing there."""
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterTypeError(f"The {what} path must be a str or os.PathLike; got {type(path).__name__}.")
    path = os.fspath(path)
    if not isinstance(path, str):
        raise ParameterTypeError(f"The {what} path must be a str or os.PathLike of str; got {path!r}.")
    if os.path.isdir(path):
        raise PathIsFolderError(f"{what} file {path!r} is a folder, not a file. Expected {fmt}.")
    if not os.path.isfile(path):
        raise MissingDataError(f"{what} file {path!r} not found. Expected {fmt}.")
    return path


def _open_lines(path: str, what: str, fmt: str) -> Iterator[tuple[int, str]]:
    path = _file_path(path, what, fmt)
    with open(path, encoding="latin-1", newline="") as handle:
        for lineno, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if line.strip():
                yield lineno, line


def _parse_rows(
    path: str, what: str, fmt: str, sep: str, n_fields: int, *, header: tuple[str, ...] = ()
) -> tuple[list[int], list[int], list[float]]:
    """The (user, item, value) columns of a ``sep``-separated file of integer ids and numeric values.

    Every data line has exactly ``n_fields`` fields and a finite value (NaN and ±inf are
    refused with the file and line: a NaN rating would silently poison every score).

    ``header`` holds the column names of the header line the format may start with (compared
    as :func:`_column_name` does); the line is recognised by its content, so a file without it
    loses no row. A first line that is neither data nor that header is refused, and so is a
    header-like first line in a format that has no header (``header=()``).
    """
    users: list[int] = []
    items: list[int] = []
    values: list[float] = []
    first = True
    for lineno, line in _open_lines(path, what, fmt):
        fields = line.split(sep)
        try:
            if len(fields) != n_fields:
                raise ValueError
            user, item, value = int(fields[0]), int(fields[1]), float(fields[2])
        except ValueError:
            count = f" ({len(fields)} fields, expected {n_fields})" if len(fields) != n_fields else ""
            if first and header:
                if [_column_name(f) for f in fields] == [_column_name(f) for f in header]:
                    first = False
                    continue
                raise DataFormatError(
                    f"{path}, line {lineno} is neither the header {sep.join(header)!r} nor a data line{count}; "
                    f"expected {fmt}; got {line[:80]!r}."
                ) from None
            if first and (any(map(_is_header_name, fields)) or (len(fields) > 1 and not any(map(_is_number, fields)))):
                raise DataFormatError(
                    f"{path}, line {lineno}: {line[:80]!r} looks like a column header, but {what} files have no "
                    f"header line (expected {fmt}). If this is a {what} file, delete that line; if it is another "
                    "format (Last.fm's user_artists.dat, a CSV), read it with its own loader (load_lastfm, "
                    "load_interactions_csv; --format on the command line)."
                ) from None
            raise DataFormatError(f"{path}, line {lineno}{count}: expected {fmt}; got {line[:80]!r}.") from None
        if not np.isfinite(value):
            raise DataFormatError(
                f"{path}, line {lineno}: the value {fields[2]!r} is not a finite number; expected {fmt}."
            )
        first = False
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
        raise ParameterError(
            f"The 'variant' parameter of load_movielens must be one of 'auto', '100k', '1m'. Got {variant!r} instead."
        )
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterTypeError(f"The MovieLens path must be a str or os.PathLike; got {type(path).__name__}.")
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
    users, items, values = _parse_rows(path, "MovieLens", fmt, sep, 4)
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
    accepted. The HetRec file starts with the header ``userID<TAB>artistID<TAB>weight``
    (any case); it is recognised by its content and skipped, so a copy without it loses no
    row, and a first line that is neither that header nor a data line is refused.

    References
    ----------
    I. Cantador, P. Brusilovsky and T. Kuflik. 2nd Workshop on Information
    Heterogeneity and Fusion in Recommender Systems (HetRec 2011), RecSys 2011.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterTypeError(f"The Last.fm path must be a str or os.PathLike; got {type(path).__name__}.")
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, _LASTFM)
    users, items, values = _parse_rows(path, "Last.fm", _LASTFM_FORMAT, "\t", 3, header=_LASTFM_HEADER)
    data = from_triples(
        np.array(users),
        np.array(items),
        np.array(values),
        source=f"Last.fm HetRec 2011 ({os.path.basename(path)})",
        duplicates="error",
    )
    log.info("loaded %s", data.describe())
    return data


def _csv_first_row(
    first: list[str], users: list[str], items: list[str]
) -> tuple[Literal["header", "data", "unknown"], str]:
    """Whether the first row of a user, item[, value] CSV is a header, a data row, or undecided; and why.

    The rules are those documented in :func:`load_interactions_csv`; ``users`` and ``items`` are the id
    cells of the other rows (the rule that compares with them is skipped while they are empty).
    """
    if len(first) not in (2, 3) or not first[0] or not first[1]:
        return "unknown", ""
    if len(first) == 3:
        if _is_float(first[2]):
            return "data", f"its value cell {first[2]!r} is a number"
        return "header", f"its value cell {first[2]!r} is not a number"
    if _is_header_name(first[0]) and _is_header_name(first[1]):
        return "header", "its cells are the usual column names"
    for cell, column, what in ((first[0], users, "user"), (first[1], items, "item")):
        if column and not _is_number(cell) and all(map(_is_number, column)):
            return "header", f"its {what} cell {cell!r} is not a number, unlike that of every other row"
    if _is_number(first[0]) and _is_number(first[1]):
        return "data", "its user and item cells are numbers"
    return "unknown", ""


def _csv_skips_first(path: str, lineno: int, shown: str, header: bool | None, judged: tuple[str, str]) -> bool:
    """Whether the first row is skipped as a header: ``header=`` when given, else its content (``judged``).

    A DataFormatError naming the line when ``header=`` and the content contradict each other.
    """
    kind, why = judged
    if header is False and kind == "header":
        raise DataFormatError(
            f"{path}, line {lineno}: {shown!r} looks like a header ({why}), but header=False says the file "
            "has none. Pass header=True (or header=None to detect it), or delete the line."
        )
    if header is True and kind == "data":
        raise DataFormatError(
            f"{path}, line {lineno}: {shown!r} is a data row ({why}), but header=True says it is a header. "
            "Pass header=False (or header=None to detect it)."
        )
    if header is None and kind == "header":
        log.info("%s, line %d: %r taken for a header: %s", path, lineno, shown, why)
    return header is True or kind == "header"


def load_interactions_csv(
    path: str | os.PathLike[str],
    *,
    delimiter: str = ",",
    header: bool | None = None,
    duplicates: Literal["sum", "error"] = "sum",
) -> Interactions:
    """Load a CSV of ``user, item[, value]`` rows as the matrix ``M[u, i] = Σ value`` (value 1 when absent).

    User and item ids are kept as strings in the id maps. Repeated pairs are summed
    (event logs), or rejected with ``duplicates="error"``. Blank rows are skipped.

    Parameters
    ----------
    path : str or PathLike
        The CSV file.
    delimiter : str
        The cell separator.
    header : bool or None
        Whether the first (non-blank) row is a header. ``None`` (the default) decides from
        its content:

        - a row with a value cell is a header exactly when that cell is not a number (a
          data row's value must be one, and a header does not name a column ``5``);
        - a two-column row is a header when its cells are both usual column names (compared
          case-insensitively, ignoring punctuation: ``user``, ``userID``, ``user_id``,
          ``item``, ``itemId``, ``artistID``, ``movie``, ``product`` ...), or when one of
          them is not a number while that cell of every other row is (``buyer,sku`` above
          rows of numeric ids); it is data when both cells are numbers, and otherwise too:
          rows of arbitrary strings (``alice,book``) cannot be told from a header of
          unusual names, so such a header (``buyer,sku`` over string ids) needs
          ``header=True``.

        A header found by detection is logged at INFO level. ``True`` and ``False`` state
        the answer, and a file that contradicts it is refused with a
        :class:`~ratkit.exceptions.DataFormatError` naming the line: ``False`` when the
        rules above find a header, ``True`` when they find data.
    duplicates : {"sum", "error"}
        What to do with a (user, item) pair that occurs more than once.

    Returns
    -------
    Interactions
        Rows are users and columns items, in sorted order of their (string) ids.
    """
    if header not in (None, True, False):
        raise ParameterError(
            f"The 'header' parameter of load_interactions_csv must be None, True or False. Got {header!r} instead."
        )
    _check_duplicates(duplicates, "load_interactions_csv")
    if not isinstance(delimiter, str):
        raise ParameterTypeError(
            "The 'delimiter' parameter of load_interactions_csv must be a one-character str. "
            f"Got {delimiter!r} instead."
        )
    if len(delimiter) != 1 or delimiter in '\r\n"' or delimiter.isalnum():
        raise ParameterError(
            "The 'delimiter' parameter of load_interactions_csv must be one character other than a letter, a digit, "
            f"a quote or a line break (e.g. ',', ';' or '\\t'). Got {delimiter!r} instead."
        )
    fmt = f"a {delimiter!r}-separated file of user, item[, value] rows"
    path = _file_path(path, "CSV", fmt)
    users: list[str] = []
    items: list[str] = []
    values: list[float] = []
    first: list[str] = []  # the first non-blank row, judged header or data by _csv_first_row
    first_line, shown, pending = 0, "", False
    with open(path, encoding="utf-8-sig", newline="") as handle:  # -sig: drop a byte-order mark (Excel)
        reader = csv.reader(handle, delimiter=delimiter)
        try:
            for row in reader:
                cells = [cell.strip() for cell in row]
                if not any(cells):
                    continue
                if not first:
                    first, first_line, shown = cells, reader.line_num, delimiter.join(cells)[:80]
                    judged = _csv_first_row(first, [], [])
                    if _csv_skips_first(path, first_line, shown, header, judged):
                        continue
                    pending = judged[0] != "data"  # kept for now: comparing it with the other rows may undo that
                try:
                    if len(cells) not in (2, 3) or not cells[0] or not cells[1]:
                        raise ValueError
                    value = float(cells[2]) if len(cells) == 3 else 1.0
                except ValueError:
                    raise DataFormatError(
                        f"{path}, line {reader.line_num}: expected {fmt}; got {delimiter.join(row)[:80]!r}."
                    ) from None
                if not np.isfinite(value):
                    raise DataFormatError(
                        f"{path}, line {reader.line_num}: the value {cells[2]!r} is not a finite number; "
                        f"expected {fmt}."
                    )
                users.append(cells[0])
                items.append(cells[1])
                values.append(value)
        except UnicodeDecodeError as exc:
            raise DataFormatError(f"{path}: not UTF-8 text ({exc}); expected {fmt}.") from None
        except csv.Error as exc:  # e.g. a cell beyond csv.field_size_limit()
            raise DataFormatError(f"{path}, line {reader.line_num}: {exc}; expected {fmt}.") from None
    if pending and _csv_skips_first(path, first_line, shown, header, _csv_first_row(first, users[1:], items[1:])):
        del users[0], items[0], values[0]
    if not users:
        after = f" after its header line {first_line} {shown!r}" if first else ""
        raise DataFormatError(f"{path} holds no data row{after}; expected {fmt}.")
    return from_triples(
        np.array(users),
        np.array(items),
        np.array(values),
        source=f"CSV ({os.path.basename(path)})",
        duplicates=duplicates,
    )
