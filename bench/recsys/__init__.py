"""Recommender benchmarks (issue 7): ``python -m bench.recsys.ml100k --help``."""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The MovieLens 100K comparison with its default options (what ``python -m bench`` runs)."""
    from bench.recsys.ml100k import main as run

    return run(argv)
