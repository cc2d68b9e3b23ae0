"""Pairwise-kernel benchmarks (issue 16): pairwise SVMs on the UCI splice-junction sequences.

Run: ``python -m bench pairwise`` (the defaults) or ``python -m bench.pairwise.splice --help``.
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The splice-junction pairwise benchmark with its default options (what ``python -m bench`` runs)."""
    from bench.pairwise.splice import main as run

    return run(argv)
