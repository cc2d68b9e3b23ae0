"""Recommender benchmarks (issues 7, 17, 18 and 34): ``python -m bench.recsys.ml100k --help`` (MFAUC),
``python -m bench.recsys.cccf --help`` (CCCF/DCF), ``python -m bench.recsys.cccf_validated --help``
(CCCF against DCF, each with its settings chosen by validation),
``python -m bench.recsys.cccf_defaults --help`` (``CCCF()`` against ``DCF(n_bits=64)``, both at
their defaults, issue 34), ``python -m bench.recsys.tjsl --help`` (TJSL/FISM),
``python -m bench.recsys.mfauc_speed --help`` (compiled MFAUC against numpy and BPR, issue 22) and
``python -m bench.recsys.top_k --help`` (the compiled top-n against the argsort and implicit, issue 36)."""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The recommender comparisons with their default options (what ``python -m bench`` runs)."""
    from bench.recsys.cccf import main as run_cccf
    from bench.recsys.cccf_defaults import main as run_cccf_defaults
    from bench.recsys.mfauc_speed import main as run_mfauc_speed
    from bench.recsys.ml100k import main as run_ml100k
    from bench.recsys.tjsl import main as run_tjsl
    from bench.recsys.top_k import main as run_top_k

    status = 0
    for run in (run_ml100k, run_cccf, run_cccf_defaults, run_tjsl, run_mfauc_speed, run_top_k):
        status |= run(argv)
    return status
