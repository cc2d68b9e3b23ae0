"""Training a hashed :class:`~ratkit.learners.RationalSVC` on a Dask cluster (CoCoA+).

Inside ``ratkit.compute_on(client=...)``, ``RationalSVC(kernel, n_features=2**k).fit(X, y)``
calls :func:`fit_distributed`: the sequences X (a list, a ``dask.bag.Bag`` or a
``dask.dataframe.Series``) are split into K blocks, each hashed into its CSR rows *on a
worker* (:func:`~ratkit.learners.svm.hashing.hashed_features` needs no vocabulary) and kept
there; the L1-loss SVM dual on those rows — the problem the single-process hashed fit solves,
the bias included as the column of value s — is solved in CoCoA+ rounds
(:mod:`ratkit.learners.dcd.cocoa`). Each round sends w to every worker once, each block runs
``local_passes`` DCD passes on its subproblem (σ′ = 1 by default: each block improves its α as
if it were alone) and returns Δα and A_kΔα on its own columns; this process keeps α (n floats)
and w, and takes the step γ·Δα that maximises the dual along the round's direction
(:func:`~ratkit.learners.dcd.cocoa.take_step`). γ = 1/K, CoCoA's averaging, is one of the
steps it weighs, so a round gains at least what averaging gains (with σ′ = K, CoCoA+'s adding,
at least what γ = 1 gains). A block is built by a task that holds its sequences
(or by the Bag's or Series' own graph), so a worker that dies loses nothing Dask cannot
recompute: the round is rescheduled.

Stopping: each round also returns Σ hinge at the round's w, so the duality gap
P(w) − D(α) = ‖w‖² + C Σ hinge − Σ α of the iterate that entered the round is known; the fit
stops when it is at most ``tol`` × P(w) — the estimator's ``tol`` read as a *relative
duality gap*, which guarantees P(w) ≤ (1 + tol) P(w*) — and returns that certified iterate.
"""

from __future__ import annotations

import importlib
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from ratkit._convergence import warn_not_converged
from ratkit._parallel import _direct_to_workers, _lost_worker_errors, active_client, scatter_to_all
from ratkit.exceptions import DistributedError, ParameterError, TrainingDataError
from ratkit.learners.dcd.cocoa import (
    ACTIVE_MARGIN,
    FinishResult,
    LocalRows,
    active_rows,
    duality_gap,
    finish,
    local_round,
    local_rows,
    rows_on_columns,
    take_round,
)
from ratkit.learners.svm import hashing

__all__ = [
    "LOCAL_PASSES",
    "SIGMA",
    "fit_distributed",
    "is_collection",
    "training_client",
    "decision_function",
    "predict",
]

log = logging.getLogger(__name__)

#: Seconds a fit waits for its tasks while the cluster has no worker at all before it raises
#: DistributedError (a nanny restarts a dead worker within seconds).
NO_WORKERS_SECONDS = 60.0
#: Local DCD passes per block per round: 1, 3 and 10 passes took the same number of rounds on
#: the scale benchmark's Reuters windows (n = 2·10⁴ and 10⁵, two blocks), so one.
LOCAL_PASSES = 1
#: σ′ of the local subproblems: with the line-searched step, σ′ = 1 took 170 rounds to a
#: relative gap of 10⁻³ where σ′ = K took 261 (K = 2), and 165 rounds to 3·10⁻³ where σ′ = K
#: took 346 (K = 8), on the scale benchmark's 10⁵ Reuters windows
#: (bench/learners/distributed_rounds.py, bench/RESULTS.md).
SIGMA = 1.0
#: The duality gap (a pass of x_iᵀw over every row) is computed at round 1 and then after a
#: tenth of the rounds so far, at most every :data:`MAX_CHECK_INTERVAL` rounds: so a fit runs
#: at most 10 % (and 9 rounds) past the first round the gap would have certified. Every round
#: cost about 1.6× as much with it on the scale benchmark's windows.
CHECK_FRACTION = 0.1
MAX_CHECK_INTERVAL = 10
#: Once a checked round's relative duality gap is at most this (and still above tol), the fit
#: *finishes on the active rows*: the rows with α_i > 0 or a margin below 1 +
#: :data:`~ratkit.learners.dcd.cocoa.ACTIVE_MARGIN` are sent to one worker, which solves their
#: problem by DCD passes (:func:`~ratkit.learners.dcd.cocoa.finish`); the next round computes
#: the whole problem's gap. On the scale benchmark's 10⁵ Reuters windows (2 blocks) rounds
#: reached 3·10⁻² after 13 rounds and 10⁻³ only after 135 to over 200; DCD passes on the active
#: 23 % of the rows took it from 3·10⁻² to 5·10⁻⁴ in 1.2 s of one process (bench/RESULTS.md).
FINISH_GAP = 3e-2
#: A finish is skipped while the active rows are more than this fraction of all rows (it
#: would then gather most of the data on one worker), and tried again once the gap has halved.
MAX_FINISH_FRACTION = 0.5
#: A finish solves the active rows' problem to this share of tol, leaving the rest of the
#: relative gap to the hinge of the rows it left out.
FINISH_TOL_SHARE = 0.5
#: Finishes made per problem (a finish that misses rows is followed by a round and another).
MAX_FINISHES = 3
#: Bytes a worker may need per stored entry of the active rows it finishes on: the rows it
#: receives (12 bytes an entry), their stacked copy and the solver's copy with local column ids.
FINISH_BYTES_PER_ENTRY = 40
#: A finish goes to the worker with the most free memory, and only if the estimate above is at
#: most this fraction of that worker's free memory (workers without a limit: no check).
FINISH_MEMORY_FRACTION = 0.5


def is_collection(X: Any) -> bool:
    """Whether X is a Dask collection of sequences: a ``dask.bag.Bag`` or a ``dask.dataframe.Series``."""
    module = type(X).__module__
    return (module.startswith("dask.bag") or module.startswith("dask.dataframe")) and hasattr(X, "to_delayed")


def training_client(estimator: Any, X: Any) -> Any:
    """The client ``estimator.fit(X, y)`` trains on, or None to train in this process.

    A hashed fit (``n_features`` set) of sequences under an active Dask backend trains on
    its client; a Bag or Series needs both, and is refused (ParameterError) without."""
    collection = is_collection(X)
    kind = type(X).__name__
    if estimator.n_features is None:
        if collection:
            raise ParameterError(
                f"{type(estimator).__name__}.fit got X as a Dask {kind}, which trains on the cluster with hashed "
                "features only: set n_features (e.g. n_features=2**20). Exact features (n_features=None) need a "
                "global vocabulary and train in one process on a list of sequences."
            )
        return None
    client = active_client()
    if collection and client is None:
        raise ParameterError(
            f"{type(estimator).__name__}.fit got X as a Dask {kind} but no Dask client is active: fit inside "
            "`with ratkit.compute_on(client=client):` (or joblib.parallel_config(backend='dask')), or give X as a list."
        )
    if client is None or estimator._reads_vectors():
        return None
    return client


@dataclass
class _Block:
    """A block of rows on a worker: its CSR rows (:class:`LocalRows`) and the sizes of the
    partitions of X it was made of."""

    rows: LocalRows
    sizes: list[int]


def _as_list(part: Any) -> list[Any]:
    """A partition of X (a list, an iterator of a Bag, a pandas Series) as a list."""
    return list(part.tolist() if hasattr(part, "tolist") else part)


def _build_block(kernel: Any, n_features: int, bias: float, *parts: Any) -> _Block:
    """Hash the sequences of ``parts`` (on a worker) into one block of rows, with the bias column."""
    import scipy.sparse as sp

    seqs = [_as_list(p) for p in parts]
    X = [s for part in seqs for s in part]
    H = hashing.hashed_features(kernel, X, n_features) if X else sp.csr_matrix((0, n_features))
    if bias:
        H = sp.hstack([H, sp.csr_matrix(np.full((H.shape[0], 1), bias))], format="csr")
    return _Block(local_rows(H), [len(p) for p in seqs])


def _gather(client: Any, futures: list[Any], owner: str) -> list[Any]:
    """``client.gather(futures)``, or DistributedError once the cluster has had no worker for
    :data:`NO_WORKERS_SECONDS` (Dask would wait for one for ever)."""
    alone = 0.0
    poll = 2.0
    for future in futures:
        while True:
            try:
                future.result(timeout=poll)  # the future's own client (it need not be the default one)
                break
            except TimeoutError:
                alone = alone + poll if not client.nthreads() else 0.0
                if alone >= NO_WORKERS_SECONDS:
                    raise DistributedError(
                        f"{owner}: the Dask cluster has had no worker for {alone:g} s while training; start "
                        "workers (or check why they died: their memory limit, their logs) and fit again."
                    ) from None
    return list(client.gather(futures))


def _block_info(block: _Block) -> tuple[list[int], np.ndarray]:
    return block.sizes, block.rows.cols


def _symbols(part: Any) -> set[str]:
    """The symbols of the sequences of a partition (a string's characters)."""
    from ratkit.automata.alphabet import as_symbols

    out: set[str] = set()
    for x in _as_list(part):
        out.update(x if isinstance(x, str) else as_symbols(x))
    return out


def _round(
    block: _Block,
    w: np.ndarray,
    alpha: np.ndarray,
    y: np.ndarray,
    C: float,
    sigma: float,
    passes: int,
    seed: int,
    shrinking: bool,
    key: int,
    with_hinge: bool,
) -> tuple[np.ndarray, np.ndarray, float, int]:
    rows = block.rows
    rng = np.random.RandomState(seed)
    w_cols = w[rows.cols]
    res = local_round(
        rows, y, alpha, w_cols, C, sigma, passes=passes, rng=rng, shrinking=shrinking, key=key, with_hinge=with_hinge
    )
    return res.delta_alpha, res.delta_w, res.hinge, res.visits


def _needs_alphabet(kernel: Any) -> bool:
    """Whether a part of the kernel may fix something from its training data (its family
    overrides :meth:`~ratkit.automata.kernels.Kernel.learned_params`, e.g. a mismatch
    kernel's Σ): then X's symbols are gathered first and the kernel learns them."""
    from ratkit.automata.kernels import Kernel

    return any(type(part).learned_params is not Kernel.learned_params for part in hashing.hashable_parts(kernel))


def _pieces(X: Any, n_blocks: int) -> tuple[list[Any], bool]:
    """(the partitions of X, whether they are Dask delayed objects)."""
    if is_collection(X):
        return list(X.to_delayed()), True
    from ratkit.automata.kernels.inputs import as_collection

    X = X if isinstance(X, list) else as_collection(X, "X")
    bounds = np.linspace(0, len(X), n_blocks + 1).astype(int)
    return [X[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)], False


def _labels(y: Any, client: Any, owner: str) -> tuple[np.ndarray, list[int] | None]:
    """(all labels in order, the size of each of y's partitions or None for an array-like y)."""
    if is_collection(y) or type(y).__module__.startswith("dask.array"):
        import dask

        parts = list(np.ravel(np.asarray(y.to_delayed(), dtype=object)))
        values = _gather(client, client.compute([dask.delayed(np.asarray)(p) for p in parts]), owner)
        values = [np.ravel(v) for v in values]
        return (np.concatenate(values) if values else np.zeros(0)), [len(v) for v in values]
    if y is None:
        raise TrainingDataError(f"{owner}: y is None; give one class label per sequence.")
    return np.asarray(y), None


def _check_aligned(x_sizes: list[int], y_sizes: list[int] | None, n_labels: int, owner: str) -> None:
    n = sum(x_sizes)
    if y_sizes is not None and len(y_sizes) != len(x_sizes):
        raise TrainingDataError(
            f"{owner}: X has {len(x_sizes)} partitions but y has {len(y_sizes)}; give y with the same partitions "
            "as X (e.g. both mapped from one Bag), or y as an array of n labels."
        )
    if y_sizes is not None:
        for i, (a, b) in enumerate(zip(x_sizes, y_sizes, strict=True)):
            if a != b:
                raise TrainingDataError(
                    f"{owner}: partition {i} of X has {a} sequences but partition {i} of y has {b} labels; y must "
                    "be aligned with X, partition by partition (e.g. both mapped from one Bag)."
                )
    if n_labels != n:
        raise TrainingDataError(f"{owner}: X has {n} samples but y has {n_labels} labels; give one label per sample.")


def fit_distributed(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    client: Any = None,
    n_partitions: int | None = None,
    local_passes: int = LOCAL_PASSES,
    shrinking: bool | None = None,
    callback: Callable[[int, float], None] | None = None,
    sigma: float | None = None,
    finish_active: bool = True,
) -> Any:
    """Fit the hashed ``estimator`` (a :class:`~ratkit.learners.RationalSVC` with
    ``n_features``) on X, y with the rows spread over the Dask cluster of ``client`` (the
    active one by default), by CoCoA+ (see the module's description). Returns the estimator.

    ``n_partitions``: K, the number of blocks of a list X (default: the cluster's worker
    threads); a Bag's or Series' partitions are grouped into min(K, their number) blocks of
    consecutive partitions. Fewer blocks converge in fewer rounds. ``local_passes``:
    DCD passes over a block per round. ``shrinking``: skip the rows LIBLINEAR's rule
    shrinks inside a block (default: the estimator's). ``callback(round, relative_gap)``
    runs after every round whose duality gap is computed (round 1, then after a tenth of
    the rounds so far, at most every :data:`MAX_CHECK_INTERVAL`). ``sigma``: σ′ of the
    blocks' subproblems (default :data:`SIGMA` = 1; ``sigma=K`` is CoCoA+'s safe adding,
    which needed more rounds in the measurements). ``finish_active``: once the relative gap is
    at most :data:`FINISH_GAP`, solve the problem of the active rows on one worker (see
    :data:`FINISH_GAP`; skipped while they are more than :data:`MAX_FINISH_FRACTION` of the rows
    or do not fit a worker's free memory); False keeps to rounds. Other settings (C, tol read
    as the relative duality gap, max_iter as the number of rounds and the finish's pass limit,
    fit_intercept, random_state, show_progress) are the estimator's.
    """
    with estimator._fitting():
        return _fit(estimator, X, y, client, n_partitions, local_passes, shrinking, callback, sigma, finish_active)


def _fit(
    est: Any,
    X: Any,
    y: Any,
    client: Any,
    n_partitions: int | None,
    local_passes: int,
    shrinking: bool | None,
    callback: Callable[[int, float], None] | None,
    sigma: float | None,
    finish_active: bool,
) -> Any:
    from ratkit._validation import check_int, check_real

    owner = type(est).__name__
    client = client if client is not None else active_client()
    if client is None:
        raise ParameterError(
            f"{owner}: fit_distributed needs a Dask client: pass client= or use ratkit.compute_on(client=...)."
        )
    C, tol, max_iter = est._check_solver_params()
    rng = est._random_state()
    scale = check_real(est.intercept_scaling, "intercept_scaling", owner, low=0.0, low_open=True)
    passes = check_int(local_passes, "local_passes", "fit_distributed", low=1)
    sigma = SIGMA if sigma is None else check_real(sigma, "sigma", "fit_distributed", low=0.0, low_open=True)
    kernel = est._resolve_kernel()
    n_features = est._check_n_features(kernel)
    if n_features is None:
        raise ParameterError(f"{owner}: training on Dask needs hashed features; set n_features (e.g. 2**20).")
    shrink = bool(est.shrinking if shrinking is None else shrinking)
    bias = scale if est.fit_intercept else 0.0
    lost = _lost_worker_errors()
    blocks: list[Any] = []
    try:
        t0 = time.perf_counter()
        workers = sum(client.nthreads().values()) or 1
        K = workers if n_partitions is None else check_int(n_partitions, "n_partitions", "fit_distributed", low=1)
        pieces, delayed = _pieces(X, K)
        labels, y_sizes = _labels(y, client, owner)
        if y_sizes is not None and delayed and len(y_sizes) != len(pieces):
            _check_aligned([0] * len(pieces), y_sizes, 0, owner)  # refused before any hashing
        if _needs_alphabet(kernel):
            kernel.learn([tuple(sorted(_alphabet(client, pieces, delayed)))])
        groups = [g for g in np.array_split(np.arange(len(pieces)), min(K, max(len(pieces), 1))) if g.size]
        blocks = _build(client, kernel, n_features, bias, pieces, groups, delayed)
        infos = _gather(client, [client.submit(_block_info, b, pure=False) for b in blocks], owner)
        x_sizes = [s for sizes, _ in infos for s in sizes]
        _check_aligned(x_sizes, y_sizes, labels.shape[0], owner)
        Y = est._encode_targets(labels, sum(x_sizes))
        est.kernel_ = kernel
        t1 = time.perf_counter()
        run = _Rounds(client, blocks, [cols for _, cols in infos], C, tol, max_iter, passes, shrink, rng, sigma)
        run.show_progress, run.callback, run.owner = bool(est.show_progress), callback, est._problem_name()
        run.finish_active = bool(finish_active)
        dim = n_features + (1 if bias else 0)
        alphas, W, records = np.zeros(Y.shape), np.zeros((Y.shape[0], dim)), []
        for c in range(Y.shape[0]):
            records.append(run.solve(c, Y[c], alphas[c], W[c], f"CoCoA+ problem {c + 1}/{Y.shape[0]}"))
        t2 = time.perf_counter()
    except lost as exc:
        raise DistributedError(
            f"{owner}: a Dask worker died for good while training on the cluster ({type(exc).__name__}: {exc}). "
            "Check the workers' memory limit (each holds its blocks of hashed rows), or use more partitions."
        ) from exc
    finally:
        if blocks and client.status == "running":
            client.cancel(blocks)
    est.shift_ = bias * bias
    est.alpha_ = alphas
    est.intercept_ = bias * W[:, n_features] if bias else np.zeros(Y.shape[0])
    est.coef_ = np.ascontiguousarray(W[:, :n_features])
    est.feature_map_ = None
    est.support_ = est.support_vectors_ = est.dual_coef_ = None
    est.representation_ = "cocoa+"
    est.wprime_size_ = {}
    est.n_iter_ = int(max(r["rounds"] for r in records))
    est.converged_ = bool(all(r["converged"] for r in records))
    est.convergence_ = {
        "solver": "cocoa+",
        "tol": float(tol),
        "n_partitions": len(blocks),
        "partition_sizes": [int(sum(x_sizes[i] for i in g)) for g in groups],
        "local_passes": passes,
        "sigma": sigma,
        "finish_active": bool(finish_active),
        "problems": records,
    }
    est.fit_time_ = {"hashing": t1 - t0, "rounds": t2 - t1}
    est.hashing_ = {"scheme": hashing.HASHING_SCHEME, "version": hashing.HASHING_VERSION, "n_features": n_features}
    return est


def _alphabet(client: Any, pieces: list[Any], delayed: bool) -> set[str]:
    """The symbols of all of X, as a map over its partitions and a union here."""
    if delayed:
        import dask

        parts = _gather(client, client.compute([dask.delayed(_symbols)(p) for p in pieces]), "fit_distributed")
    else:
        parts = _gather(client, [client.submit(_symbols, p, pure=False) for p in pieces], "fit_distributed")
    return set().union(*parts)


def _build(
    client: Any,
    kernel: Any,
    n_features: int,
    bias: float,
    pieces: list[Any],
    groups: list[np.ndarray],
    delayed: bool,
) -> list[Any]:
    """Futures of the blocks, one per group of pieces, each built on a worker by a task that
    holds its pieces (or depends on the collection's graph), so that Dask can rebuild it."""
    if delayed:
        import dask

        build = dask.delayed(_build_block, pure=True)
        return list(client.compute([build(kernel, n_features, bias, *[pieces[i] for i in g]) for g in groups]))
    return [client.submit(_build_block, kernel, n_features, bias, *[pieces[i] for i in g], pure=False) for g in groups]


class _Rounds:
    """The CoCoA+ rounds of one binary problem after another on the blocks."""

    show_progress = False
    callback: Callable[[int, float], None] | None = None
    owner = "RationalSVC"
    finish_active = True

    def __init__(
        self,
        client: Any,
        blocks: list[Any],
        cols: Sequence[np.ndarray],
        C: float,
        tol: float,
        max_iter: int,
        passes: int,
        shrinking: bool,
        rng: np.random.RandomState,
        sigma: float,
    ) -> None:
        self.client, self.blocks, self.cols = client, blocks, list(cols)
        self.C, self.tol, self.max_iter, self.passes, self.shrinking, self.rng = (
            C,
            tol,
            max_iter,
            passes,
            shrinking,
            rng,
        )
        self.sigma = sigma
        self.direct = _direct_to_workers(client)

    def solve(self, c: int, y: np.ndarray, alpha: np.ndarray, w: np.ndarray, desc: str) -> dict[str, Any]:
        """Rounds on problem ``c`` (labels ``y``), updating α and w in place, until the relative
        duality gap of the iterate entering a checked round is ≤ tol (that iterate is kept) or
        max_iter rounds. The gap is checked at round 1, then every max(1, min(MAX_CHECK_INTERVAL,
        ⌊CHECK_FRACTION · round⌋)) rounds, and at the last allowed round; the record lists the
        gaps, relative gaps and P at the checked rounds (``checked_rounds``) and every round's step."""
        client = self.client
        gaps: list[float] = []
        rel: list[float] = []
        primal: list[float] = []
        converged = False
        bar = tqdm(total=None, desc=desc, disable=not self.show_progress, unit=" rounds", leave=True)
        bounds: list[tuple[int, int]] = []
        steps: list[float] = []
        checked: list[int] = []
        finishes: list[dict[str, Any]] = []
        finish_below = FINISH_GAP
        next_check = 1
        try:
            for r in range(self.max_iter):
                check = r + 1 >= next_check or r + 1 == self.max_iter
                wf = scatter_to_all(client, w, direct=self.direct)
                seeds = self.rng.randint(0, 2**31 - 1, size=len(self.blocks))
                if not bounds:
                    bounds = self._bounds()
                futures = [
                    client.submit(
                        _round,
                        b,
                        wf,
                        alpha[lo:hi],
                        y[lo:hi],
                        self.C,
                        self.sigma,
                        self.passes,
                        int(s),
                        self.shrinking,
                        c,
                        check,
                        pure=False,
                    )
                    for b, (lo, hi), s in zip(self.blocks, bounds, seeds, strict=True)
                ]
                results = _gather(client, futures, self.owner)
                client.cancel([wf])
                bar.update(1)
                if not check:
                    steps.append(self._step(w, alpha, results))
                    continue
                checked.append(r + 1)
                next_check = r + 1 + max(1, min(MAX_CHECK_INTERVAL, int(CHECK_FRACTION * (r + 1))))
                hinge = float(sum(res[2] for res in results))
                wsq = float(np.dot(w, w))
                gap = duality_gap(wsq, hinge, float(alpha.sum()), self.C)
                p = 0.5 * wsq + self.C * hinge
                d = float(alpha.sum()) - 0.5 * wsq
                gaps.append(gap)
                primal.append(p)
                rel.append(gap / (d if d > 0 else p))  # D ≤ 0 at α = 0 only: then gap/P = 1
                bar.set_postfix({"gap": f"{rel[-1]:.2e}", "tol": f"{self.tol:.1e}", "P": f"{p:.6g}"}, refresh=False)
                if self.callback is not None:
                    self.callback(r + 1, rel[-1])
                if not math.isfinite(gap):
                    raise DistributedError(f"{self.owner}: the duality gap of round {r + 1} is {gap!r}.")
                if rel[-1] <= self.tol:
                    converged = True
                    break
                steps.append(self._step(w, alpha, results))
                made = sum(1 for f in finishes if f["rows"])
                if self.finish_active and made < MAX_FINISHES and rel[-1] <= finish_below:
                    bar.set_postfix({"gap": f"{rel[-1]:.2e}", "finishing": "active rows"}, refresh=True)
                    finishes.append(self._finish(y, alpha, w, bounds, r + 1))
                    if finishes[-1]["rows"]:
                        next_check = r + 2  # the next round computes the whole problem's gap
                    else:  # too many active rows: try again once the gap has halved
                        finish_below = rel[-1] / 2
        finally:
            bar.close()
        if not converged:
            warn_not_converged(
                self.owner,
                self.max_iter,
                "rounds",
                f"the relative duality gap is still {rel[-1]:.3g} > tol={self.tol:g}",
                "Increase max_iter, or raise tol.",
            )
        return {
            "converged": converged,
            "rounds": len(steps) + converged,
            "checked_rounds": checked,
            "duality_gap": gaps,
            "relative_gap": rel,
            "primal_objective": primal,
            "step": steps,
            "finishes": finishes,
        }

    def _finish(
        self, y: np.ndarray, alpha: np.ndarray, w: np.ndarray, bounds: list[tuple[int, int]], after: int
    ) -> dict[str, Any]:
        """Finish on the active rows (see :data:`FINISH_GAP`): α and w updated in place.
        Returns the record of the attempt (``rows`` 0 and a ``skipped`` reason when not made)."""
        client, t0 = self.client, time.perf_counter()
        n = alpha.shape[0]
        wf = scatter_to_all(client, w, direct=self.direct)
        index_f = [
            client.submit(_active_index, b, wf, alpha[lo:hi], y[lo:hi], ACTIVE_MARGIN, pure=False)
            for b, (lo, hi) in zip(self.blocks, bounds, strict=True)
        ]
        parts: list[Any] = []
        try:
            index = _gather(client, index_f, self.owner)
            rows = np.concatenate([lo + i for i, (lo, _) in zip(index, bounds, strict=True)])
            record: dict[str, Any] = {"after_round": after, "rows": int(rows.shape[0]), "fraction": rows.shape[0] / n}
            if not rows.shape[0]:
                return {**record, "skipped": "no active rows"}
            if rows.shape[0] > MAX_FINISH_FRACTION * n:
                return {**record, "rows": 0, "skipped": f"{rows.shape[0]} active rows > {MAX_FINISH_FRACTION:g} n"}
            parts = [
                client.submit(_rows_of, b, i, w.shape[0], pure=False) for b, i in zip(self.blocks, index_f, strict=True)
            ]
            entries = int(sum(_gather(client, [client.submit(_entries, p, pure=False) for p in parts], self.owner)))
            target, reason = _finish_worker(client, entries * FINISH_BYTES_PER_ENTRY)
            if reason:
                return {**record, "rows": 0, "skipped": reason}
            seed = int(self.rng.randint(0, 2**31 - 1))
            future = client.submit(
                _finish_task,
                y[rows],
                alpha[rows],
                wf,
                self.C,
                FINISH_TOL_SHARE * self.tol,
                seed,
                self.max_iter,
                *parts,
                workers=target,
                allow_other_workers=True,
                pure=False,
            )
            res: FinishResult = _gather(client, [future], self.owner)[0]
        finally:
            client.cancel([wf, *index_f, *parts])
        alpha[rows] += res.delta_alpha
        np.clip(alpha, 0.0, self.C, out=alpha)
        w[res.cols] += res.delta_w
        log.info("%s: finished on %d active rows: relative gap %.3g", self.owner, rows.shape[0], res.relative_gap)
        return {
            **record,
            "entries": entries,
            "relative_gap": res.relative_gap,
            "converged": res.converged,
            "visits": res.visits,
            "seconds": time.perf_counter() - t0,
        }

    def _step(self, w: np.ndarray, alpha: np.ndarray, results: list[Any]) -> float:
        """α += γΔα, w += γΣ_k A_kΔα_[k] with the line-searched γ of
        :func:`~ratkit.learners.dcd.cocoa.take_round` (γ = 1 is CoCoA+'s step)."""
        return take_round(alpha, w, self.cols, [res[0] for res in results], [res[1] for res in results], self.C)

    def _bounds(self) -> list[tuple[int, int]]:
        sizes = _gather(self.client, [self.client.submit(_n_rows, b, pure=False) for b in self.blocks], self.owner)
        ends = np.cumsum(sizes)
        return [(int(e - s), int(e)) for s, e in zip(sizes, ends, strict=True)]


def _n_rows(block: _Block) -> int:
    return block.rows.n_rows


def _active_index(block: _Block, w: np.ndarray, alpha: np.ndarray, y: np.ndarray, margin: float) -> np.ndarray:
    return active_rows(block.rows, y, alpha, w[block.rows.cols], margin)


def _rows_of(block: _Block, index: np.ndarray, width: int) -> Any:
    return rows_on_columns(block.rows, index, width)


def _entries(part: Any) -> int:
    return int(part.nnz)


def _finish_task(
    y: np.ndarray, alpha: np.ndarray, w: np.ndarray, C: float, tol: float, seed: int, max_passes: int, *parts: Any
) -> FinishResult:
    import scipy.sparse as sp

    X = sp.vstack(parts, format="csr") if len(parts) > 1 else parts[0]
    del parts
    return finish(X, y, alpha, w, C, tol, rng=np.random.RandomState(seed), max_passes=max_passes)


def _finish_worker(client: Any, need: float) -> tuple[list[str] | None, str]:
    """(the worker to finish on, or None to let Dask choose; a reason not to finish, or '').
    With memory limits, the worker with the most free memory, if ``need`` bytes are at most
    :data:`FINISH_MEMORY_FRACTION` of it."""
    workers = client.scheduler_info().get("workers", {})
    free = {
        a: float(info["memory_limit"]) - float(info.get("metrics", {}).get("memory", 0))
        for a, info in workers.items()
        if info.get("memory_limit")
    }
    if not free or len(free) < len(workers):
        return None, ""
    best = max(free, key=free.__getitem__)
    if need > FINISH_MEMORY_FRACTION * free[best]:
        need_mib, free_mib = need / 2**20, free[best] / 2**20
        return None, f"the active rows need about {need_mib:.0f} MiB; the freest worker has {free_mib:.0f} MiB"
    return [best], ""


# -- predictions on Dask collections ------------------------------------------------------
def _predict_part(part: Any, model: Any, method: str) -> Any:
    values = getattr(model, method)(_as_list(part))
    if type(part).__module__.startswith("pandas"):  # a partition of a Series: keep its index
        pd = importlib.import_module("pandas")
        if values.ndim == 2:
            return pd.DataFrame(values, index=part.index, columns=list(model.classes_))
        return pd.Series(values, index=part.index)
    return list(values)


def _map(model: Any, X: Any, method: str) -> Any:
    import dask

    held = dask.delayed(model, traverse=False)
    if type(X).__module__.startswith("dask.bag"):
        return X.map_partitions(_predict_part, held, method)
    pd = importlib.import_module("pandas")  # a dask.dataframe.Series comes with pandas
    multi = method == "decision_function" and len(model.classes_) > 2
    if multi:
        meta: Any = pd.DataFrame({c: pd.Series([], dtype="f8") for c in model.classes_})
    elif method == "predict":
        meta = pd.Series([], dtype=np.asarray(model.classes_).dtype)
    else:
        meta = pd.Series([], dtype="f8")
    return X.map_partitions(_predict_part, held, method, meta=meta)


def decision_function(model: Any, X: Any) -> Any:
    """``model.decision_function`` of each partition of a Bag (a Bag of values) or a Series
    (a Series, or a DataFrame with a column per class for one-vs-rest), computed on the
    workers when the result is."""
    model._check_fitted()
    return _map(model, X, "decision_function")


def predict(model: Any, X: Any) -> Any:
    """``model.predict`` of each partition of a Bag (a Bag of labels) or a Series (a Series)."""
    model._check_fitted()
    return _map(model, X, "predict")
