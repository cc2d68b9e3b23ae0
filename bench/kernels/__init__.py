"""Kernel-engine benchmarks (issue 3): Gram-matrix speed and the Fig. 8 experiment; the
issue-14 inputs against an older checkout (`python -m bench.kernels.issue14 --reference DIR`).

Run all: ``python -m bench.kernels`` (or ``make bench``). Each part alone:
``python -m bench.kernels.gram_speed`` and ``python -m bench.kernels.fig8``.
"""

from __future__ import annotations


def main() -> int:
    from bench.kernels import fig8, gram_speed

    status = fig8.main([])
    status |= gram_speed.main([])
    return status
