"""The first numba compilation of ratkit code says so, once; a warm cache says nothing.

Each run is a fresh interpreter with its own ``NUMBA_CACHE_DIR`` (numba's first cache
location), so the first run compiles and a second run with the same folder loads.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ratkit._console import show_notes_on_stderr
from ratkit._jit import COMPILING

# Two ratkit functions, one calling the other, and a plain numba one; each called twice.
_SCRIPT = """
import logging, sys
if sys.argv[1] == "info":
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
import numba
from ratkit._jit import njit

@njit
def inner(x):
    return x + 1

@njit(reassociate=True)
def outer(x):
    return inner(x) * 2.0

@numba.njit(cache=True)
def foreign(x):
    return x - 1

for _ in range(2):
    print(outer(1.0), foreign(1))
"""


def _run(command: list[str], cache: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    pythonpath = os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH")) if p)
    env["PYTHONPATH"] = pythonpath
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def test_library_logs_the_first_compilation_once_at_info(tmp_path):
    script = tmp_path / "kernels.py"
    script.write_text(textwrap.dedent(_SCRIPT))
    cache = tmp_path / "cache"
    cold = _run([sys.executable, str(script), "info"], cache, tmp_path)
    assert cold.stdout.splitlines() == ["4.0 0", "4.0 0"]
    assert cold.stderr.splitlines() == [f"ratkit._jit: {COMPILING}"]
    warm = _run([sys.executable, str(script), "info"], cache, tmp_path)
    assert warm.stdout.splitlines() == ["4.0 0", "4.0 0"]
    assert warm.stderr == ""


def test_library_is_silent_without_logging_configured(tmp_path):
    script = tmp_path / "kernels.py"
    script.write_text(textwrap.dedent(_SCRIPT))
    cold = _run([sys.executable, str(script), "quiet"], tmp_path / "cache", tmp_path)
    assert cold.stdout.splitlines() == ["4.0 0", "4.0 0"]
    assert cold.stderr == ""


@pytest.mark.slow
def test_command_line_shows_the_note_on_stderr_on_a_cold_cache_only(tmp_path):
    command = [sys.executable, "-c", "from ratkit.cli import main; raise SystemExit(main())"]
    command += ["kernels", "eval", "--kernel", '{"family": "edit-distance"}', "abab", "abba"]
    cold = _run(command, tmp_path / "cache", tmp_path)
    assert cold.stdout == "2.0\n"  # two substitutions turn abab into abba
    assert cold.stderr == f"ratkit: {COMPILING}\n"
    warm = _run(command, tmp_path / "cache", tmp_path)
    assert warm.stdout == "2.0\n"
    assert warm.stderr == ""


@pytest.mark.slow
def test_command_line_quiet_hides_the_note(tmp_path):
    (tmp_path / "reads.txt").write_text("abab\nabba\nbaab\n")
    command = [sys.executable, "-c", "from ratkit.cli import main; raise SystemExit(main())", "gram"]
    command += ["--kernel", '{"family": "edit-distance"}', "--data", "reads.txt", "--format", "lines", "-o", "g.npy"]
    quiet = _run([*command, "--quiet"], tmp_path / "cache", tmp_path)  # a cold cache: it compiles
    assert quiet.stderr == ""
    assert "written to g.npy" in quiet.stdout


def test_notes_follow_the_current_stderr_and_respect_a_configured_logger(capsys):
    logger = logging.getLogger("ratkit._jit")
    saved = logger.handlers[:], logger.level
    try:
        logger.handlers.clear()
        logger.setLevel(logging.WARNING)
        undo = show_notes_on_stderr()
        assert show_notes_on_stderr()  # a second call adds no second handler
        assert len(logger.handlers) == 1
        logger.info("a note")
        logger.debug("not shown")
        assert capsys.readouterr().err == "ratkit: a note\n"
        logger.info("another")  # the stream is looked up at each record (capsys replaced it)
        assert capsys.readouterr().err == "ratkit: another\n"
        undo()  # the end of a command: logging as it was
        assert logger.handlers == [] and logger.level == logging.WARNING

        show_notes_on_stderr(quiet=True)
        assert logger.handlers == []

        mine = logging.NullHandler()
        logger.handlers[:] = [mine]
        show_notes_on_stderr()()
        assert logger.handlers == [mine]
    finally:
        logger.handlers[:], logger.level = saved
