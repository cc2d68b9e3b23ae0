"""The one compiled top-n against the full argsort it replaced and against implicit (issue 36).

Three tables, all from one process, single thread (the script sets ``OMP_NUM_THREADS``,
``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` and ``NUMBA_NUM_THREADS`` to 1 unless they are
set, and runs under ``threadpool_limits(1)``; implicit with ``num_threads=1``):

1. **Selection alone**, the top ``N`` of an ``m × n`` float64 score matrix (``U @ Vᵀ`` of
   random Gaussian factors, ``d`` factors): :func:`argsort_top_n`, a copy of the
   ``ratkit.recsys._ranking.top_n`` of commit aef44d4 (a stable argsort of every row), against
   today's :func:`ratkit.recsys._ranking.top_n` (a compiled bounded heap per row).
2. **recommend end to end** for ``m`` users of a :class:`~ratkit.recsys.FactorRecommender`
   holding those factors (scoring, filtering each user's liked items, top-``N``, int32 ids):
   before (the same code with :func:`argsort_top_n` put back in ``_ranking``) and after,
   against implicit's ``AlternatingLeastSquares.recommend`` on the same factors (float64,
   as ratkit's) with the same liked items filtered, and implicit's bare
   ``implicit.cpu.topk.topk`` (scoring and selection, no filter).
3. **How many places**: selection alone for ``N`` from 10 up to the whole row, which is
   where :func:`~ratkit.recsys._ranking.top_n` switches to sorting the row.

Every timing is the least of ``--repeats`` rounds, the candidates interleaved within each
round; the answers are compared (ids equal between the two ratkit versions; implicit's ids
equal to ratkit's wherever the scores have no ties at the N-th place, which random float
factors guarantee). Run from the repository root::

    .venv/bin/python -m bench.recsys.top_k              # about 4 minutes
    .venv/bin/python -m bench.recsys.top_k --quick      # the 1 000 × 16 666 case only
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402 - the thread settings must come before numpy is imported
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import ratkit.recsys._ranking as ranking  # noqa: E402
from ratkit.recsys import FactorRecommender  # noqa: E402

#: (users m, items n) of tables 1 and 2; the first is issue 36's case.
SIZES = [(1_000, 16_666), (10_000, 16_666), (1_000, 1_000), (1_000, 10_000), (1_000, 100_000)]
#: Places asked for in table 3 (on 1 000 × 16 666), as fractions of the row where not ints.
PLACES = [10, 100, 1_000, 4_000, 16_666]


def argsort_top_n(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The reference: ``ratkit.recsys._ranking.top_n`` as it was before the compiled one
    (commit aef44d4), a stable argsort of every row, kept here verbatim."""
    order = np.argsort(-scores, axis=1, kind="stable")[:, :n]
    return order, np.take_along_axis(scores, order, axis=1)


class GivenFactors(FactorRecommender):
    """A FactorRecommender whose factors are set, not learned (``fit`` is not used here)."""

    def _fit(self, user_items: sp.csr_matrix) -> None:  # pragma: no cover - never fitted
        raise NotImplementedError

    @classmethod
    def holding(cls, U: np.ndarray, V: np.ndarray) -> GivenFactors:
        model = cls()
        model.n_users_, model.n_items_ = U.shape[0], V.shape[0]
        model.user_factors_, model.item_factors_ = U, V
        return model


@contextmanager
def argsort_in_ranking() -> Iterator[None]:
    """``recommend`` as before: ``_ranking.select`` ranks with :func:`argsort_top_n`."""
    today = ranking.top_n
    ranking.top_n = argsort_top_n
    try:
        yield
    finally:
        ranking.top_n = today


def least_times(candidates: dict[str, Callable[[], Any]], repeats: int) -> tuple[dict[str, float], dict[str, Any]]:
    """The least seconds of each candidate over ``repeats`` interleaved rounds, and its last answer."""
    best = {name: float("inf") for name in candidates}
    answers: dict[str, Any] = {}
    for _ in range(repeats):
        for name, run in candidates.items():
            start = time.perf_counter()
            answers[name] = run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best, answers


def problem(m: int, n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix]:
    """Gaussian factors (m × d, n × d) and each user's liked items (about 20 a user)."""
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((m, d))
    V = rng.standard_normal((n, d)) / np.sqrt(d)
    liked = sp.random(m, n, density=min(20 / n, 0.5), format="csr", random_state=seed, data_rvs=np.ones)
    return U, V, liked


def implicit_als(U: np.ndarray, V: np.ndarray) -> Any:
    from implicit.cpu.als import AlternatingLeastSquares

    model = AlternatingLeastSquares(factors=U.shape[1], dtype=np.float64, num_threads=1)
    model.user_factors, model.item_factors = U, V
    return model


def selection_row(m: int, n: int, N: int, d: int, repeats: int, seed: int) -> dict[str, Any]:
    U, V, _ = problem(m, n, d, seed)
    scores = U @ V.T
    ranking.top_n(scores[:2], N)  # compiled (or loaded from numba's cache) outside the timings
    times, answers = least_times(
        {"argsort": lambda: argsort_top_n(scores, N), "compiled": lambda: ranking.top_n(scores, N)}, repeats
    )
    same = all(np.array_equal(a, b) for a, b in zip(answers["argsort"], answers["compiled"]))
    return {"m": m, "n": n, "N": N, **times, "same": same}


def recommend_row(m: int, n: int, N: int, d: int, repeats: int, seed: int, with_implicit: bool) -> dict[str, Any]:
    U, V, liked = problem(m, n, d, seed)
    users = np.arange(m)
    model = GivenFactors.holding(U, V)
    model.recommend(users[:2], liked[:2], N=N)

    def before() -> tuple[np.ndarray, np.ndarray]:
        with argsort_in_ranking():
            return model.recommend(users, liked, N=N)

    candidates: dict[str, Callable[[], Any]] = {
        "before": before,
        "after": lambda: model.recommend(users, liked, N=N),
    }
    if with_implicit:
        from implicit.cpu.topk import topk

        als = implicit_als(U, V)
        candidates["implicit recommend"] = lambda: als.recommend(users, liked, N=N)
        candidates["implicit topk"] = lambda: topk(V, U, N, num_threads=1)
    times, answers = least_times(candidates, repeats)
    row: dict[str, Any] = {"m": m, "n": n, "N": N, **times}
    row["same"] = np.array_equal(answers["before"][0], answers["after"][0])
    if with_implicit:
        row["same"] &= np.array_equal(answers["implicit recommend"][0], answers["after"][0])
        scores = U @ V.T
        row["same"] &= np.array_equal(answers["implicit topk"][0], argsort_top_n(scores, N)[0])
    return row


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
        return out.stdout.strip() or "?"
    except OSError:
        return "?"


def _print_table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recsys.top_k", description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="rounds per timing; the least is kept (default 3)")
    parser.add_argument("--factors", type=int, default=64, help="d, the number of factors (default 64)")
    parser.add_argument("-N", type=int, default=10, help="places recommended in tables 1 and 2 (default 10)")
    parser.add_argument("--quick", action="store_true", help="issue 36's 1 000 × 16 666 case only")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        import implicit

        with_implicit = True
        implicit_version = implicit.__version__
    except ImportError:
        with_implicit, implicit_version = False, "not installed"
    sizes = SIZES[:1] if args.quick else SIZES
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"commit {_commit()}, Python {platform.python_version()}, numpy {np.__version__}, implicit "
        f"{implicit_version}, {platform.machine()}, {os.cpu_count()} cores, load average {load:.2f} at start; "
        f"one thread; d = {args.factors}, N = {args.N}, least of {args.repeats} interleaved rounds\n",
        flush=True,
    )
    with threadpool_limits(1):
        print("Table 1: selection alone (seconds for all m rows)\n")
        rows = []
        for m, n in sizes:
            r = selection_row(m, n, args.N, args.factors, args.repeats, args.seed)
            rows.append(
                [
                    f"{m:,}",
                    f"{n:,}",
                    f"{r['argsort']:.4f}",
                    f"{r['compiled']:.4f}",
                    f"{r['argsort'] / r['compiled']:.1f}×",
                ]
                + ["yes" if r["same"] else "NO"]
            )
        _print_table(["users m", "items n", "argsort (before)", "compiled (after)", "ratio", "same ids"], rows)

        print("Table 2: recommend end to end (seconds for all m users, liked items filtered)\n")
        rows = []
        for m, n in sizes:
            r = recommend_row(m, n, args.N, args.factors, args.repeats, args.seed, with_implicit)
            line = [f"{m:,}", f"{n:,}", f"{r['before']:.4f}", f"{r['after']:.4f}", f"{r['before'] / r['after']:.1f}×"]
            if with_implicit:
                line += [
                    f"{r['implicit recommend']:.4f}",
                    f"{r['after'] / r['implicit recommend']:.2f}",
                    f"{r['implicit topk']:.4f}",
                ]
            rows.append(line + ["yes" if r["same"] else "NO"])
        header = ["users m", "items n", "before", "after", "before/after"]
        if with_implicit:
            header += ["implicit recommend", "after/implicit", "implicit topk (no filter)"]
        _print_table(header + ["same ids"], rows)

        print("Table 3: selection alone by places N (1 000 users × 16 666 items)\n")
        rows = []
        for N in PLACES if not args.quick else PLACES[:1]:
            r = selection_row(1_000, 16_666, N, args.factors, args.repeats, args.seed)
            rows.append(
                [f"{N:,}", f"{r['argsort']:.4f}", f"{r['compiled']:.4f}", f"{r['argsort'] / r['compiled']:.2f}×"]
                + ["yes" if r["same"] else "NO"]
            )
        _print_table(["N", "argsort (before)", "top_n (after)", "ratio", "same ids"], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
