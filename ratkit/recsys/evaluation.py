"""The evaluation protocol: seeded splits, full ranking, metrics@k, exact AUC, reports.

Published MovieLens numbers differ fourfold by protocol alone, so every number ratkit
reports carries its protocol: dataset, what counts as positive, the split, k, the seed
and how many users were evaluated.

Ranking is over **all** items, with only the user's training items (and those of the
optional ``exclude`` matrix) left out (no sampled negatives). A user is evaluated when
they have at least one test item.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, overload

import numpy as np
import scipy.sparse as sp

from ratkit._parallel import Shared, concurrent_tasks_here, effective_jobs, parallel_map
from ratkit._validation import check_choice, check_int, check_random_state, check_real
from ratkit.datasets import Interactions
from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError, SolverError
from ratkit.limits import rows_within
from ratkit.recsys._ranking import exclude_rows, top_n
from ratkit.recsys._validation import check_shape_matches, check_user_items
from ratkit.recsys.base import Recommender
from ratkit.recsys.feedback import keep_users_with, to_one_class, users_with
from ratkit.recsys.metrics import RANKING_METRICS, auc_rows, ranking_scores

__all__ = [
    "leave_k_out",
    "ratio_split",
    "ranking_metrics",
    "evaluate",
    "prepare_leave_k_out",
    "Protocol",
    "EvaluationReport",
    "format_reports",
]

log = logging.getLogger(__name__)


def leave_k_out(
    user_items: Any, n_test: int = 5, *, random_state: Any = None, min_train: int = 1
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Per-user leave-k-out split: ``n_test`` random interactions of each user go to test.

    Parameters
    ----------
    user_items : sparse matrix or Interactions
        Users as rows.
    n_test : int
        The k of leave-k-out: how many items each user holds out.
    random_state : None, int or numpy Generator
        Seed of the random choice.
    min_train : int
        Users with fewer than ``n_test + min_train`` interactions keep them all in train
        (and so are not evaluated); their number is logged.

    Returns
    -------
    train, test : scipy.sparse.csr_matrix
        Same shape as the input, disjoint, summing to it.
    """
    n_test = check_int(n_test, "n_test", "leave_k_out", low=1)
    min_train = check_int(min_train, "min_train", "leave_k_out", low=0)
    matrix = check_user_items(user_items)
    rng = check_random_state(random_state)
    counts = np.diff(matrix.indptr)
    rows = np.repeat(np.arange(matrix.shape[0]), counts)
    order = np.lexsort((rng.random(matrix.nnz), rows))  # random order within each row
    position = np.empty(matrix.nnz, dtype=np.int64)
    position[order] = np.arange(matrix.nnz) - matrix.indptr[rows[order]]
    eligible = counts >= n_test + min_train
    skipped = int(((counts > 0) & ~eligible).sum())
    if skipped:
        log.info(
            "leave_k_out: %d users with fewer than %d interactions stay whole in train", skipped, n_test + min_train
        )
    return _split(matrix, (position < n_test) & eligible[rows])


def ratio_split(
    user_items: Any, test_ratio: float = 0.2, *, random_state: Any = None
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Random split of the interactions: each goes to test with probability ``test_ratio``."""
    test_ratio = check_real(test_ratio, "test_ratio", "ratio_split", low=0.0, high=1.0, low_open=True)
    matrix = check_user_items(user_items)
    rng = check_random_state(random_state)
    return _split(matrix, rng.random(matrix.nnz) < test_ratio)


def _split(matrix: sp.csr_matrix, in_test: np.ndarray) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    coo = matrix.tocoo()

    def part(mask: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix((coo.data[mask], (coo.row[mask], coo.col[mask])), shape=matrix.shape)

    return part(~in_test), part(in_test)


def _per_user(
    model: Recommender,
    train: Any,
    test: Any,
    ks: Sequence[int],
    batch_size: int,
    n_jobs: int | None,
    owner: str,
    exclude: Any = None,
) -> tuple[dict[str, np.ndarray], int]:
    """Per-user metric arrays (``"precision@5"``…, ``"auc"``) over the evaluated users, in
    user order, computed in blocks of ``batch_size`` users over ``n_jobs`` processes (or the
    active joblib backend, e.g. a Dask cluster); each user's numbers depend on that user's
    row alone, so they are the same for any ``n_jobs``. ``exclude``: items left out of the
    candidates besides ``train``'s (None: none)."""
    if not isinstance(model, Recommender):
        raise ParameterTypeError(
            f"The 'model' parameter of {owner} must be a fitted ratkit Recommender. Got {type(model).__name__} instead."
        )
    batch_size = check_int(batch_size, "batch_size", owner, low=1)
    effective_jobs(n_jobs)
    model._check_fitted()
    # stored zeros dropped: they are not training items; a model of ratings is evaluated on ratings
    train_m = check_user_items(train, name="train", ratings=model.feedback == "explicit")
    test_m = check_user_items(test, name="test")
    for name, matrix in (("train", train_m), ("test", test_m)):
        check_shape_matches(matrix, model.n_users_, model.n_items_, name=name, fitted_on="the fitted model")
    n_items = model.n_items_
    for k in ks:
        check_int(k, "k", owner, low=1)
        if k > n_items:
            raise ParameterError(
                f"The 'k' parameter of {owner}: k={k} exceeds the number of items ({n_items}); choose k <= {n_items}."
            )
    # per block: the dense scores, their ranks (auc_rows) and the boolean masks of its users;
    # batch_size is lowered to what ratkit.limits.max_bytes allows (refused: one user too many),
    # shared by the blocks that run at once in this machine's processes
    rows = rows_within(26.0 * n_items, f"{owner} for one user × {n_items} items", most=batch_size)
    batch_size = max(1, rows // concurrent_tasks_here(n_jobs))
    overlap = train_m.multiply(test_m).nnz
    if overlap:
        raise DataFormatError(
            f"train and test share {overlap} (user, item) pairs; a test item must not be a "
            f"training item. Split with leave_k_out or ratio_split."
        )
    exclude_m = None if exclude is None else _checked_exclude(exclude, train_m, test_m, model, owner)
    users = np.flatnonzero(np.diff(test_m.indptr) > 0)
    batches = [users[start : start + batch_size] for start in range(0, len(users), batch_size)]
    blocks = parallel_map(
        _block_metrics,
        # a task carries its users' rows of exclude (together one copy of it), None without
        [(batch, tuple(ks), None if exclude_m is None else exclude_m[batch]) for batch in batches],
        shared=(Shared(model), Shared(train_m), Shared(test_m)),
        n_jobs=n_jobs,
        desc="evaluation blocks",
        unit="user",
        sizes=[len(batch) for batch in batches],
    )
    out: dict[str, list[np.ndarray]] = {f"{m}@{k}": [] for k in ks for m in RANKING_METRICS}
    out["auc"] = []
    for block in blocks:  # in user order
        for key, values in block.items():
            out[key].append(values)
    arrays = {key: np.concatenate(parts) if parts else np.array([]) for key, parts in out.items()}
    return arrays, len(users)


def _checked_exclude(
    exclude: Any, train_m: sp.csr_matrix, test_m: sp.csr_matrix, model: Recommender, owner: str
) -> sp.csr_matrix:
    """``exclude`` as CSR, checked: sparse (or Interactions), of train's and test's shape, no
    test item in it."""
    exclude_m = check_user_items(exclude, name="exclude", ratings=model.feedback == "explicit", allow_empty=True)
    if exclude_m.shape != train_m.shape:
        hint = (
            " It looks transposed: users must be rows and items columns."
            if exclude_m.shape == train_m.shape[::-1]
            else ""
        )
        raise ParameterError(
            f"The 'exclude' parameter of {owner} has shape {exclude_m.shape}, but train and test are "
            f"{train_m.shape[0]} users × {train_m.shape[1]} items; pass a users × items matrix of that shape.{hint}"
        )
    overlap = exclude_m.multiply(test_m).nnz
    if overlap:
        raise DataFormatError(
            f"The 'exclude' parameter of {owner} holds {overlap} test (user, item) pair(s); a test item must be a "
            "candidate. Leave the test items out of 'exclude'."
        )
    return exclude_m


def _block_metrics(
    model: Recommender,
    train_m: sp.csr_matrix,
    test_m: sp.csr_matrix,
    batch: np.ndarray,
    ks: tuple[int, ...],
    excluded: sp.csr_matrix | None = None,
) -> dict[str, np.ndarray]:
    """The per-user metric arrays of one block of users (a task of :func:`_per_user`): scored from
    ``train_m``'s rows, ranked over the items in neither ``train_m``'s rows nor ``excluded``'s
    (the block's rows of ``exclude``, one per user of ``batch``; None: none)."""
    # the scores recommend(batch, train[batch]) ranks by (FISM and TJSL build the users from these rows)
    scores = np.array(model._score_users_from(batch, train_m[batch]), dtype=np.float64)
    if not np.isfinite(scores).all():
        raise SolverError(
            f"{type(model).__name__} produced NaN or infinite scores; the fit diverged. "
            f"Refit with a smaller learning rate or stronger regularisation."
        )
    relevant = test_m[batch].toarray() > 0
    candidate = np.ones_like(relevant)
    exclude_rows(scores, train_m, batch)
    if excluded is not None:
        exclude_rows(scores, excluded, np.arange(len(batch)))
    candidate &= np.isfinite(scores)
    ranked, _ = top_n(scores, max(ks))
    hits = np.take_along_axis(relevant, ranked, axis=1) & np.isfinite(np.take_along_axis(scores, ranked, axis=1))
    n_relevant = relevant.sum(axis=1)
    out: dict[str, np.ndarray] = {}
    for k in ks:
        for name, values in ranking_scores(hits, n_relevant, k).items():
            out[f"{name}@{k}"] = values
    out["auc"] = auc_rows(np.where(candidate, scores, 0.0), relevant, candidate)
    return out


def _means(per_user: dict[str, np.ndarray]) -> dict[str, float]:
    means = {}
    for key, values in per_user.items():
        defined = values[~np.isnan(values)]
        means[key] = float(defined.mean()) if defined.size else float("nan")
    return means


def ranking_metrics(
    model: Recommender,
    train: Any,
    test: Any,
    k: int = 10,
    *,
    batch_size: int = 512,
    n_jobs: int | None = None,
    exclude: sp.spmatrix | sp.sparray | Interactions | None = None,
) -> dict[str, float]:
    """Mean precision, recall, F1, NDCG, MAP, MRR @k and exact AUC over the test users.

    Each user with at least one test item is ranked over all items except their
    training items (see :mod:`ratkit.recsys.metrics` for the definitions), by the scores
    ``model.recommend(users, train[users], filter_already_liked_items=True)`` ranks by:
    a model that builds the user from their items (FISM, TJSL) builds them from ``train``'s
    rows, as in ``recommend`` and in implicit's evaluation. With ``exclude``, user u's
    candidates are C_u = I ∖ (train_u ∪ exclude_u), still scored from ``train_u`` alone.

    Parameters
    ----------
    model : Recommender
        A fitted model.
    train, test : sparse matrix or Interactions
        Disjoint users × items matrices of the model's shape.
    exclude : sparse matrix, Interactions or None
        Users × items, of ``train``'s shape, disjoint from ``test``: each user's stored
        (non-zero) items are also left out of their candidates, but do not enter the
        rows the user is scored from (e.g. examined items never to be recommended, where
        ``train`` holds the preferred ones). None: only ``train``'s items are left out.
    k : int
        Cutoff, at most the number of items. A user with fewer than ``k`` candidate
        items gets a shorter list; the missing ranks count as misses.
    batch_size : int
        Users per block, at most: lowered to what :func:`ratkit.limits.max_bytes` allows
        (about 26 bytes per user and item), never refused unless one user does not fit.
        The numbers do not depend on it.

    Returns
    -------
    dict
        Keys ``precision``, ``recall``, ``f1``, ``ndcg``, ``map``, ``mrr``, ``auc``.
    """
    per_user, _ = _per_user(model, train, test, [k], batch_size, n_jobs, "ranking_metrics", exclude)
    means = _means(per_user)
    return {name: means[f"{name}@{k}"] for name in RANKING_METRICS} | {"auc": means["auc"]}


@dataclass(frozen=True)
class Protocol:
    """What a number means: data, positives, split, cutoffs, seed and users evaluated."""

    dataset: str
    positives: str = "every interaction"
    split: str = "given"
    seed: Any = None
    n_users: int | None = None
    ks: tuple[int, ...] = (1, 3, 5)

    def tag(self, k: int | None = None) -> str:
        parts = [self.dataset, self.positives, self.split]
        if k is not None:
            parts.append(f"k={k}")
        parts += [f"seed={self.seed}", f"users={self.n_users}"]
        return " | ".join(parts)


@dataclass(frozen=True)
class EvaluationReport:
    """Metric means (``"precision@5"``, …, ``"auc"``) with the protocol that produced them."""

    model: str
    protocol: Protocol
    metrics: dict[str, float] = field(default_factory=dict)

    def to_text(self) -> str:
        """The report as :func:`format_reports` prints it: the protocol once, the model, then
        one line per metric."""
        return format_reports([self])


def _column(model: str) -> str:
    """A report's column header: the class name of its model's repr (``MFAUC(...)`` → ``MFAUC``)."""
    return model.split("(", 1)[0].strip() or "model"


def format_reports(reports: Sequence[EvaluationReport]) -> str:
    """One table of several reports: the protocol once, each model's full parameters once, then
    one row per metric (``precision@1``, …, ``auc``) and one column per model.

    The layout, for parsing::

        protocol: <Protocol.tag()>
        model <Name>: <repr of the model>          one line per column
        metric        <Name> <Name2> ...           the header row
        precision@1   0.1234 0.2345 ...            values with 4 decimals, nan when undefined

    Columns are named by the model's class (``MFAUC``; ``PureSVD#2`` for a second model of
    one class). Reports whose protocols differ (a model of ratings trains on every other
    rating) get one ``protocol (<Names>): …`` line per protocol. A metric a report lacks
    (other cutoffs) shows ``-``. Fields are separated by runs of spaces: no name holds a space.
    """
    if isinstance(reports, EvaluationReport) or not reports:
        raise ParameterError(f"format_reports needs a non-empty sequence of EvaluationReport; got {reports!r:.60}.")
    names: list[str] = []
    for report in reports:
        base = _column(report.model)
        name, copy = base, 1
        while name in names:
            copy += 1
            name = f"{base}#{copy}"
        names.append(name)
    protocols: dict[Protocol, list[str]] = {}
    for name, report in zip(names, reports):
        protocols.setdefault(report.protocol, []).append(name)
    lines = []
    for protocol, which in protocols.items():
        label = "protocol" if len(protocols) == 1 else f"protocol ({', '.join(which)})"
        lines.append(f"{label}: {protocol.tag()}")
    lines += [f"model {name}: {report.model}" for name, report in zip(names, reports)]
    keys: list[str] = []
    for report in reports:
        keys += [key for key in report.metrics if key not in keys]
    width = max(len("metric"), *(len(key) for key in keys))
    columns = [max(len(name), 6) for name in names]
    lines.append("  ".join([f"{'metric':<{width}}", *(f"{n:>{w}}" for n, w in zip(names, columns))]))
    for key in keys:
        cells = [f"{r.metrics[key]:.4f}" if key in r.metrics else "-" for r in reports]
        lines.append("  ".join([f"{key:<{width}}", *(f"{c:>{w}}" for c, w in zip(cells, columns))]))
    return "\n".join(lines)


def evaluate(
    model: Recommender,
    train: Any,
    test: Any,
    protocol: Protocol,
    *,
    batch_size: int = 512,
    n_jobs: int | None = None,
    exclude: sp.spmatrix | sp.sparray | Interactions | None = None,
) -> EvaluationReport:
    """Every metric at each of ``protocol.ks``, plus AUC, as a report carrying the protocol;
    ``batch_size``, ``n_jobs`` and ``exclude`` as in :func:`ranking_metrics`: user u is scored
    from ``train_u`` and ranks the candidates C_u = I ∖ (train_u ∪ exclude_u)."""
    if not isinstance(protocol, Protocol):
        raise ParameterTypeError(
            f"The 'protocol' parameter of evaluate must be a ratkit.recsys.evaluation.Protocol. Got "
            f"{type(protocol).__name__} instead."
        )
    if isinstance(protocol.ks, (str, bytes)) or not isinstance(protocol.ks, Sequence) or not protocol.ks:
        raise ParameterError(
            f"The protocol's cutoffs 'ks' must be a non-empty tuple of ints ≥ 1. Got {protocol.ks!r} instead."
        )
    per_user, n_users = _per_user(model, train, test, list(protocol.ks), batch_size, n_jobs, "evaluate", exclude)
    metrics = _means(per_user)
    order = [f"{m}@{k}" for m in RANKING_METRICS for k in protocol.ks] + ["auc"]
    return EvaluationReport(
        model=repr(model),
        protocol=replace(protocol, n_users=n_users),
        metrics={key: metrics[key] for key in order},
    )


@overload
def prepare_leave_k_out(
    data: Interactions,
    *,
    threshold: float | None,
    min_positives: int,
    n_test: int,
    random_state: int,
    feedback: str = ...,
    as_interactions: Literal[False] = ...,
) -> tuple[sp.csr_matrix, sp.csr_matrix, Protocol]: ...


@overload
def prepare_leave_k_out(
    data: Interactions,
    *,
    threshold: float | None,
    min_positives: int,
    n_test: int,
    random_state: int,
    feedback: str = ...,
    as_interactions: Literal[True],
) -> tuple[Interactions, Interactions, Protocol]: ...


def prepare_leave_k_out(
    data: Interactions,
    *,
    threshold: float | None,
    min_positives: int,
    n_test: int,
    random_state: int,
    feedback: str = "implicit",
    as_interactions: bool = False,
) -> tuple[sp.csr_matrix, sp.csr_matrix, Protocol] | tuple[Interactions, Interactions, Protocol]:
    """The one-class leave-k-out protocol: positives, user filter, split, and its description.

    Positives are ratings ``≥ threshold`` (every interaction when ``threshold`` is None);
    users with fewer than ``min_positives`` positives are dropped; each remaining user
    holds out ``n_test`` random positives (seeded by ``random_state``). With
    ``feedback="explicit"`` (a model of ratings, see ``Recommender.feedback``) the training
    matrix is every rating of the kept users but the held-out ones, low ratings included;
    otherwise it is their remaining positives.

    ``train`` and ``test`` are CSR matrices whose rows are the kept users; with
    ``as_interactions=True`` they are :class:`~ratkit.datasets.Interactions` carrying
    the kept users' and the items' raw ids, so that a model fitted on ``train`` keeps them
    (``user_ids_``, ``item_ids_``, ``user_items_``: what ``ratkit recsys recommend`` reads).
    """
    check_choice(feedback, "feedback", "prepare_leave_k_out", ("implicit", "explicit"))
    if threshold is None:
        positives = data.replace((check_user_items(data, name="data") > 0).astype(np.float64))
    else:
        positives = to_one_class(data, threshold)
        if check_user_items(positives, name="positives", allow_empty=True).nnz == 0:
            raise DataFormatError(
                f"No rating of {data.source or 'the data'} is >= threshold={threshold!r}, so no "
                "user has a positive; lower the threshold."
            )
    kept = keep_users_with(positives, min_positives)
    if kept.matrix.nnz == 0:
        raise DataFormatError(
            f"No user of {data.source or 'the data'} has {min_positives} or more positives; "
            f"lower min_positives or the threshold."
        )
    train, test = leave_k_out(kept, n_test, random_state=random_state)
    trained_on = ""
    if feedback == "explicit":
        rows = users_with(check_user_items(positives, name="positives"), min_positives)
        ratings = check_user_items(data, name="data", ratings=True)[rows]
        train = ratings - ratings.multiply(test > 0)
        train.eliminate_zeros()
        trained_on = ", trained on every other rating"
    protocol = Protocol(
        dataset=data.source or "interactions",
        positives=("every interaction" if threshold is None else f"rating >= {threshold:g}") + trained_on,
        split=f"leave-{n_test}-out, users with >= {min_positives} positives, {kept.matrix.shape[1]} items ranked",
        seed=random_state,
    )
    if as_interactions:
        return kept.replace(train), kept.replace(test), protocol
    return train, test, protocol
