"""Scoring and ranking in blocks of rows, within :func:`ratkit.limits.max_bytes`.

``recommend``, ``similar_items``, ``similar_users`` and ``score`` (:mod:`ratkit.recsys.base`)
ask a model for dense score rows; for many users at once those rows do not fit, so they
are asked for, ranked and stacked a block of rows at a time. The result does not depend on
the blocks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratkit.exceptions import ParameterTypeError
from ratkit.limits import rows_within

__all__ = ["BYTES_PER_SCORE", "id_array", "in_blocks", "pairs_from_rows"]

#: Bytes per score while a block of rows is ranked: the model's float64 row, ``recommend``'s
#: copy of it, and the top-n's work (a sort of the row when most of it is asked for: its
#: negation and int64 order) or a column subset. ``recommend``, ``similar_*`` and ``score``
#: work in blocks of rows that keep this within :func:`ratkit.limits.max_bytes`.
BYTES_PER_SCORE = 40.0


def id_array(ids: Any, kind: str, owner: str) -> np.ndarray:
    """``ids`` as an array (ParameterTypeError for a ragged nesting numpy cannot hold)."""
    try:
        return np.asarray(ids)
    except ValueError as exc:
        raise ParameterTypeError(
            f"{owner}: {kind} must be an int or an array of ints; got {ids!r:.80} ({exc})."
        ) from exc


def in_blocks(block: Any, n_rows: int, n_columns: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """``block(slice)`` → (ids, scores) of those rows, over ``n_rows`` rows in blocks of as
    many rows of ``n_columns`` scores as :func:`ratkit.limits.max_bytes` allows, stacked in
    order. Refuses (ResourceLimitError, naming ``what``) only when one row does not fit."""
    per = rows_within(BYTES_PER_SCORE * n_columns, what, "Raise the limit: one row must fit.", most=max(n_rows, 1))
    if n_rows <= per:
        return block(slice(0, n_rows))
    parts = [block(slice(start, start + per)) for start in range(0, n_rows, per)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def pairs_from_rows(score_rows: Any, users: np.ndarray, items: np.ndarray, n_items: int, owner: str) -> np.ndarray:
    """s(users[k], items[k]) from the dense rows ``score_rows`` gives for the distinct users,
    asked for in blocks of as many users as :func:`ratkit.limits.max_bytes` allows."""
    users, items = np.ravel(users), np.ravel(items)
    unique, inverse = np.unique(users, return_inverse=True)
    inverse = np.ravel(inverse)
    per = rows_within(
        BYTES_PER_SCORE * n_items, f"{owner} for one user × {n_items} items (a dense row of scores)", most=len(unique)
    )
    if len(unique) <= per:
        return np.array(score_rows(unique)[inverse, items], dtype=np.float64)
    out = np.empty(len(users), dtype=np.float64)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(0, len(unique) + per, per))
    for b, start in enumerate(range(0, len(unique), per)):
        pairs = order[bounds[b] : bounds[b + 1]]
        out[pairs] = np.asarray(score_rows(unique[start : start + per]))[inverse[pairs] - start, items[pairs]]
    return out
