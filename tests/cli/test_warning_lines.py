"""Issue 34: the command line prints each warning on one line, ``ratkit <command>: warning:
… (Category)``, without Python's file:line prefix and the library source line under it (the
README's ``train --kernel '{"family":"ngram","n":4}'`` printed ``fitted = self._train(…)``
under each of its three ConvergenceWarnings)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import warnings

from ratkit.datasets import write_tsv
from tests.cli._helpers import run

LINE = re.compile(
    r"ratkit train: warning: RationalSVC on NgramKernel\(n=2\) did not converge in max_iter=1 passes: .*"
    r"\(ConvergenceWarning\)"
)


def _unconverging(tmp_path):
    """Random labels on random strings: one pass of DCD cannot converge."""
    rng = random.Random(0)
    X = ["".join(rng.choice("acgt") for _ in range(12)) for _ in range(24)]
    write_tsv(tmp_path / "d.tsv", X, [rng.choice("xyz") for _ in X])
    return ["train", "--data", str(tmp_path / "d.tsv"), "--kernel", '{"family": "ngram", "n": 2}']


def _check(stderr):
    lines = stderr.splitlines()
    assert lines, "no warning printed"
    for line in lines:
        assert LINE.fullmatch(line), line
    assert ".py:" not in stderr and "self._train" not in stderr
    return lines


def test_a_convergence_warning_is_one_line_in_this_process(tmp_path, capsys):
    before = warnings.showwarning
    code, out, err = run([*_unconverging(tmp_path), "--max-iter", "1", "--quiet", "--test-size", "0"], capsys)
    assert code == 0, err
    assert len(_check(err)) == 3  # one per one-vs-rest problem
    assert "NOT converged" in out
    assert warnings.showwarning is before  # the caller's display is restored


def test_a_convergence_warning_is_one_line_from_the_console_script(tmp_path):
    code = "import sys; from ratkit.cli._main import main; sys.exit(main())"
    argv = [*_unconverging(tmp_path), "--max-iter", "1", "--quiet", "--test-size", "0"]
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(_check(done.stderr)) == 3
