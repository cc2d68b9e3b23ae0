"""Scale-out benchmarks (issue 19): Gram matrices on 1 process, 2 local processes and a 2-worker
Dask ``LocalCluster`` (``python -m bench.scale.gram --help``), and a memory-mapped, resumable Gram
whose peak RSS is checked against its budget (``python -m bench.scale.memory --help``).

Run both with their defaults: ``python -m bench scale``. Results and the plan for l = 10⁶
documents: "Scale-out on Dask (issue 19)" in bench/RESULTS.md.

This module also holds what both share: the Reuters bodies and the run's context line.
"""

from __future__ import annotations

import os
import platform
import re
import time

__all__ = ["main", "DEFAULT_REUTERS", "reuters_bodies", "context"]

#: ModApte lives here, relative to the repository root (the benchmarks run from there).
DEFAULT_REUTERS = "../shared/data/reuters21578"


def reuters_bodies(path: str, docs: int = 0) -> list[str]:
    """The bodies of the ModApte training stories (``docs`` > 0: the first ``docs``), whitespace
    runs collapsed to one space, as in bench.learners.reuters."""
    from ratkit.datasets import reuters_modapte

    train = reuters_modapte(path, "train")
    bodies = [re.sub(r"\s\s+", " ", d.body) for d in train]
    return bodies[:docs] if docs > 0 else bodies


def context() -> str:
    """Commit, date, machine and load: printed at the head of every run."""
    from bench.graphs import commit

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"commit {commit()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.machine()}, "
        f"{os.cpu_count()} cores, load average {load} at start; Python {platform.python_version()}"
    )


def main() -> int:
    """Both benchmarks with their default options (what ``python -m bench scale`` runs)."""
    from bench.scale import gram, memory

    return gram.main([]) | memory.main([])
