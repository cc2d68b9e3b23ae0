"""Learner benchmarks (issue 4): ``python -m bench.learners.reuters --help``."""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The Reuters-21578 comparison with its default options (what ``python -m bench`` runs)."""
    from bench.learners.reuters import main as run

    return run(argv)
