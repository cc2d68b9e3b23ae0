"""Recommender benchmarks (issues 7 and 17): ``python -m bench.recsys.ml100k --help`` (MFAUC) and
``python -m bench.recsys.cccf --help`` (CCCF/DCF)."""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The MovieLens 100K comparisons with their default options (what ``python -m bench`` runs)."""
    from bench.recsys.cccf import main as run_cccf
    from bench.recsys.ml100k import main as run

    status = run(argv)
    status |= run_cccf(argv)
    return status
