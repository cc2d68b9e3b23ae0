"""``ratkit --help`` and ``ratkit COMMAND --help`` answer at once: building the parsers imports no
heavy module; the constants the parsers mirror equal the library's."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

HEAVY = ("numpy", "scipy", "sklearn", "pynini", "numba", "joblib", "ratkit.exceptions", "ratkit.plugins")


def test_building_the_parsers_imports_no_heavy_module():
    code = (
        "import sys; from ratkit.cli._main import build_parser; build_parser(); "
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported at start-up: {out.stdout.strip()}"


@pytest.mark.parametrize("command", [(), ("train",), ("kernels", "check-pds"), ("recsys", "evaluate")], ids=" ".join)
def test_help_is_fast(command):
    """Best of 3 under a generous 1.5 s (measured ≈ 0.05 s; the target is 0.5 s)."""
    argv = [sys.executable, "-m", "ratkit.cli._main", *command, "--help"]
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run = subprocess.run(argv, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        assert run.returncode == 0 and "usage: ratkit" in run.stdout
    assert best < 1.5, f"ratkit {' '.join(command)} --help took {best:.2f} s"


def test_mirrored_constants_equal_the_library_values():
    from ratkit.cli import _common
    from ratkit.datasets import _FORMATS
    from ratkit.learners.kernel_learner._qp import QP_SOLVERS
    from ratkit.plugins.registry import KINDS
    from ratkit.workflow import DEFAULT_LEARNER, DEFAULT_SPEC

    assert _common.DEFAULT_SPEC == DEFAULT_SPEC
    assert _common.DEFAULT_LEARNER == DEFAULT_LEARNER
    assert _common.QP_SOLVERS == QP_SOLVERS
    assert _common.PLUGIN_KINDS == KINDS
    assert _common.SEQUENCE_FORMATS == _FORMATS
