"""Top-k ranking metrics and the exact per-user AUC.

Definitions (binary relevance; ``T`` is the user's set of test items, ``hit_r`` is 1 when
the item at rank ``r`` of the recommended list is in ``T``; ranks beyond the end of a
list shorter than ``k`` count as misses):

* precision@k ``= Σ_{r≤k} hit_r / k``
* recall@k ``= Σ_{r≤k} hit_r / |T|``
* F1@k ``= 2·P·R / (P + R)`` (0 when both are 0), per user
* NDCG@k ``= DCG / IDCG`` with ``DCG = Σ_{r≤k} hit_r / log₂(r + 1)`` and IDCG the DCG
  of ``min(k, |T|)`` hits at the top
* AP@k ``= Σ_{r≤k} P@r · hit_r / min(k, |T|)``; MAP@k is its mean over users
* RR@k ``= 1 / (rank of the first hit)`` if it is ≤ k, else 0; MRR@k is its mean
* AUC ``= (1 / (|T|·|N|)) Σ_{p∈T} Σ_{q∈N} [s_p > s_q] + ½ [s_p = s_q]`` over *all*
  negatives ``N`` (candidate items not in ``T``): exact, not sampled.

The ``*_at_k`` functions score one user's ranked list; the evaluation protocol uses the
same code on many users at once.

Against ``implicit.evaluation.ranking_metrics_at_k`` (which runs on ratkit models, since
they follow implicit's ``recommend`` convention), over the users with a test item:

* precision differs by definition: ratkit averages ``|top-k ∩ T_u| / k`` over users;
  implicit divides the total hits by the total of ``min(k, |T_u|)``, so
  ``P_implicit = k · n_users · P_ratkit / Σ_u min(k, |T_u|)`` (equal when every user has at
  least k test items);
* NDCG@k and MAP@k are the same numbers (both normalise by ``min(k, |T_u|)`` and average
  over users);
* implicit's ``AUC_at_k`` is truncated: it looks at the top k only, places every positive
  outside them halfway among the negatives outside them, and counts the user's training
  items as negatives; ratkit's AUC is exact over all candidate items (training items left
  out).

tests/recsys/test_implicit_compat.py checks each of these numerically.

References
----------
K. Järvelin and J. Kekäläinen. Cumulated gain-based evaluation of IR techniques.
ACM TOIS 20(4), 2002 (NDCG). J. A. Hanley and B. J. McNeil. The meaning and use of the
area under a ROC curve. Radiology 143, 1982 (AUC as the Mann–Whitney statistic).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from numbers import Integral

import numpy as np
from scipy.stats import rankdata

from ratkit._validation import check_int
from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError
from ratkit.recsys._validation import check_ids

__all__ = [
    "RANKING_METRICS",
    "precision_at_k",
    "recall_at_k",
    "f1_at_k",
    "ndcg_at_k",
    "average_precision_at_k",
    "reciprocal_rank_at_k",
    "auc_score",
    "ranking_scores",
    "auc_rows",
]

#: Names of the top-k metrics :func:`ranking_scores` returns, in report order.
RANKING_METRICS: tuple[str, ...] = ("precision", "recall", "f1", "ndcg", "map", "mrr")


def ranking_scores(hits: np.ndarray, n_relevant: np.ndarray, k: int) -> dict[str, np.ndarray]:
    """Per-user top-k metrics from a hit matrix.

    Parameters
    ----------
    hits : ndarray of bool, shape (users, ≥k)
        ``hits[u, r]`` is true when the item at rank ``r + 1`` for user ``u`` is relevant.
    n_relevant : ndarray of int, shape (users,)
        ``|T_u|``, each at least 1.
    k : int
        Cutoff.

    Returns
    -------
    dict
        One array of per-user values for each name in :data:`RANKING_METRICS`.
    """
    k = check_int(k, "k", "ranking_scores", low=1)
    hits = _array(hits, "hits", bool)
    n_relevant = _array(n_relevant, "n_relevant", np.float64)
    if hits.ndim != 2:
        raise DataFormatError(f"ranking_scores: hits must be a 2-D (users × ranks) array; got shape {hits.shape}.")
    if n_relevant.shape != (hits.shape[0],):
        raise DataFormatError(
            f"ranking_scores: n_relevant must hold one count per row of hits, shape ({hits.shape[0]},); got shape "
            f"{n_relevant.shape}."
        )
    if not np.isfinite(n_relevant).all():
        raise DataFormatError("ranking_scores: n_relevant holds NaN or infinite counts; expected ints ≥ 1.")
    if hits.shape[1] < k:  # short lists: the missing ranks are misses
        hits = np.pad(hits, ((0, 0), (0, k - hits.shape[1])))
    hits = hits[:, :k].astype(np.float64)
    if (hits.sum(axis=1) > n_relevant).any():
        user = int(np.flatnonzero(hits.sum(axis=1) > n_relevant)[0])
        raise DataFormatError(
            f"ranking_scores: row {user} has {int(hits[user].sum())} hits in its top {k} but n_relevant says "
            f"{n_relevant[user]:g} relevant items; a list cannot hit more items than are relevant."
        )
    if n_relevant.size and n_relevant.min() < 1:
        user = int(np.argmin(n_relevant))
        raise DataFormatError(
            f"ranking_scores needs at least one relevant item per user; user row {user} has "
            f"{n_relevant[user]:g}. Leave users without test items out (recall and NDCG are undefined for them)."
        )
    ranks = np.arange(1, k + 1, dtype=np.float64)
    n_hits = hits.sum(axis=1)
    precision = n_hits / k
    recall = n_hits / n_relevant
    denominator = precision + recall
    f1 = np.divide(2 * precision * recall, denominator, out=np.zeros_like(denominator), where=denominator > 0)
    discounts = 1.0 / np.log2(ranks + 1)
    ideal_count = np.minimum(k, n_relevant).astype(np.int64)
    ndcg = (hits @ discounts) / np.cumsum(discounts)[ideal_count - 1]
    precision_at_r = np.cumsum(hits, axis=1) / ranks
    average_precision = (precision_at_r * hits).sum(axis=1) / ideal_count
    first = np.argmax(hits > 0, axis=1)
    reciprocal_rank = np.where(n_hits > 0, 1.0 / (first + 1), 0.0)
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "ndcg": ndcg,
        "map": average_precision,
        "mrr": reciprocal_rank,
    }


def auc_rows(scores: np.ndarray, positive: np.ndarray, candidate: np.ndarray) -> np.ndarray:
    """Exact AUC of each row: positives against every other candidate, ties counting ½.

    Parameters
    ----------
    scores : ndarray, shape (users, items)
        Finite model scores.
    positive, candidate : ndarray of bool, same shape
        Which items are relevant, and which take part at all (e.g. not training items).
        Positives must be candidates.

    Returns
    -------
    ndarray
        One AUC per row; NaN for a row without a positive or without a negative.

    Notes
    -----
    Uses the Mann–Whitney form ``(Σ_p rank_p − P(P+1)/2) / (P·N)`` with average ranks
    among the candidates.
    """
    scores = _array(scores, "scores", np.float64)
    positive = _array(positive, "positive", bool)
    candidate = _array(candidate, "candidate", bool)
    if scores.ndim != 2:
        raise DataFormatError(f"auc_rows: scores must be a 2-D (users × items) array; got shape {scores.shape}.")
    for name, mask in (("positive", positive), ("candidate", candidate)):
        if mask.shape != scores.shape:
            raise DataFormatError(f"auc_rows: {name} must have the shape of scores, {scores.shape}; got {mask.shape}.")
    bad = ~np.isfinite(scores) & candidate
    if bad.any():
        user, item = (int(i[0]) for i in np.nonzero(bad))
        raise DataFormatError(
            f"auc_rows: scores holds {int(bad.sum())} NaN or infinite value(s) for candidate items (the first: "
            f"row {user}, item {item}, {scores[user, item]}); expected finite scores."
        )
    masked = np.where(candidate, scores, -np.inf)
    ranks = rankdata(masked, axis=1, method="average")
    n_excluded = (~candidate).sum(axis=1)
    ranks = ranks - n_excluded[:, None]  # excluded items all rank below every candidate
    n_pos = (positive & candidate).sum(axis=1).astype(np.float64)
    n_neg = candidate.sum(axis=1) - n_pos
    rank_sum = np.where(positive & candidate, ranks, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    auc[(n_pos == 0) | (n_neg == 0)] = np.nan
    return auc


def _array(value: object, name: str, dtype: type) -> np.ndarray:
    """``value`` as an array of ``dtype`` (ParameterTypeError naming ``name`` when it is not one)."""
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ParameterTypeError(
            f"{name} must be an array of {np.dtype(dtype).name}; got {value!r:.80} ({exc})."
        ) from exc


def _single(ranked: Sequence[int], relevant: Collection[int], k: int, key: str) -> float:
    name = {"map": "average_precision", "mrr": "reciprocal_rank"}.get(key, key) + "_at_k"
    k = check_int(k, "k", name, low=1)
    relevant = set(_item_ids(relevant, "relevant", name))
    if not relevant:
        raise ParameterError(f"{name} needs at least one relevant item; got an empty set.")
    ranked = _item_ids(ranked, "ranked", name)[:k]
    if len(set(ranked)) != len(ranked):
        repeated = next(r for r in ranked if ranked.count(r) > 1)
        raise ParameterError(f"{name}: the ranked list repeats an item ({repeated}); each item may appear once.")
    hits = np.array([[item in relevant for item in ranked]], dtype=bool).reshape(1, len(ranked))
    return float(ranking_scores(hits, np.array([len(relevant)]), k)[key][0])


def _item_ids(ids: object, what: str, owner: str) -> list[int]:
    """``ids`` as a list of ints: ParameterTypeError for a non-iterable, a str or a non-integer id."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise ParameterTypeError(f"{owner}: {what} must be a sequence of item ids (ints); got {ids!r:.80}.")
    out = []
    for r in ids:
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, (Integral, np.integer)):
            raise ParameterTypeError(f"{owner}: {what} must hold item ids (ints); got {r!r}.")
        out.append(int(r))
    return out


def precision_at_k(ranked: Sequence[int], relevant: Collection[int], k: int) -> float:
    """Precision@k ``= |top-k ∩ T| / k`` of one ranked list (see the module docstring)."""
    return _single(ranked, relevant, k, "precision")


def recall_at_k(ranked: Sequence[int], relevant: Collection[int], k: int) -> float:
    """Recall@k ``= |top-k ∩ T| / |T|`` of one ranked list."""
    return _single(ranked, relevant, k, "recall")


def f1_at_k(ranked: Sequence[int], relevant: Collection[int], k: int) -> float:
    """F1@k ``= 2PR/(P+R)`` of one ranked list (0 when P = R = 0)."""
    return _single(ranked, relevant, k, "f1")


def ndcg_at_k(ranked: Sequence[int], relevant: Collection[int], k: int) -> float:
    """NDCG@k with binary gains ``Σ hit_r / log₂(r+1)``, normalised by the ideal list."""
    return _single(ranked, relevant, k, "ndcg")


def average_precision_at_k(ranked: Sequence[int], relevant: Collection[int], k: int) -> float:
    """AP@k ``= Σ_{r≤k} P@r · hit_r / min(k, |T|)`` of one ranked list."""
    return _single(ranked, relevant, k, "map")


def reciprocal_rank_at_k(ranked: Sequence[int], relevant: Collection[int], k: int) -> float:
    """RR@k ``= 1/r`` for the first relevant rank ``r ≤ k``, else 0."""
    return _single(ranked, relevant, k, "mrr")


def auc_score(scores: Sequence[float], relevant: Collection[int], exclude: Collection[int] = ()) -> float:
    """Exact AUC of one user's score vector: relevant items against all other items.

    Items in ``exclude`` (e.g. the user's training items) take no part. Ties count ½.
    """
    vector = _array(scores, "scores", np.float64)
    if vector.ndim != 1:
        raise DataFormatError(f"auc_score: scores must be one user's 1-D score vector; got shape {vector.shape}.")
    row = vector.reshape(1, -1)
    if not np.isfinite(row).all():
        bad = int(np.flatnonzero(~np.isfinite(row[0]))[0])
        raise DataFormatError(
            f"auc_score needs finite scores; got {float(row[0, bad])!r} at item {bad} (NaN or infinite values)."
        )
    n = row.shape[1]
    positive = np.zeros((1, n), dtype=bool)
    candidate = np.ones((1, n), dtype=bool)
    positive[0, check_ids(list(relevant), n, kind="relevant item")] = True
    candidate[0, check_ids(list(exclude), n, kind="excluded item")] = False
    if (positive & ~candidate).any():
        raise ParameterError("auc_score: an item is both relevant and excluded.")
    value = float(auc_rows(row, positive, candidate)[0])
    if np.isnan(value):
        raise ParameterError("auc_score needs at least one relevant and one other candidate item.")
    return value
