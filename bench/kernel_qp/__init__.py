"""Kernel learning by the QP (63) (issue 6): survey Table IV on Reuters-21578.

Run: ``python -m bench.kernel_qp`` (options: ``python -m bench.kernel_qp --help``); the
experiment itself is :mod:`bench.kernel_qp.reuters`.
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    from bench.kernel_qp import reuters

    return reuters.main(argv if argv is not None else [])
