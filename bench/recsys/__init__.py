"""Recommender benchmarks (issues 7, 17 and 18): ``python -m bench.recsys.ml100k --help`` (MFAUC),
``python -m bench.recsys.cccf --help`` (CCCF/DCF) and ``python -m bench.recsys.tjsl --help``
(TJSL/FISM)."""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The recommender comparisons with their default options (what ``python -m bench`` runs)."""
    from bench.recsys.cccf import main as run_cccf
    from bench.recsys.ml100k import main as run_ml100k
    from bench.recsys.tjsl import main as run_tjsl

    status = 0
    for run in (run_ml100k, run_cccf, run_tjsl):
        status |= run(argv)
    return status
