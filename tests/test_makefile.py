"""The Makefile says what its first run does: which environment it creates, what it installs.

``make -n`` prints the commands a fresh environment would run (nothing is executed), with
``VENV`` pointed at a folder that does not exist.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest

from tests.conftest import REPOSITORY


def _dry_run(target: str, venv) -> list[str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", f"VENV={venv}", f"{venv}/{target}"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.replace("\\\n", " ").splitlines()


@pytest.mark.parametrize(
    ("target", "extra"), [(".ratkit-installed", "test,plot,dask"), (".ratkit-docs-installed", "docs")]
)
def test_installs_are_announced_and_show_progress(tmp_path, target, extra):
    venv = tmp_path / "fresh"
    lines = _dry_run(target, venv)
    installs = [i for i, line in enumerate(lines) if "pip install" in line and f".[{extra}]" in line]
    assert len(installs) == 1, lines
    install = shlex.split(lines[installs[0]])
    assert "--quiet" not in install and "-q" not in install, "pip's progress is silenced"
    said = [line for line in lines[: installs[0]] if line.lstrip().startswith("echo ")]
    assert any("install" in line and str(venv) in line for line in said), lines


def test_creating_the_environment_is_announced(tmp_path):
    venv = tmp_path / "fresh"
    (creating,) = [line for line in _dry_run(".ratkit-installed", venv) if "-m venv" in line]
    assert "echo" in creating and "creating" in creating


def test_lint_runs_ruff_then_mypy_then_the_import_contracts(tmp_path):
    """``make lint`` (run by .ci/run): ruff's rules and format on the repository, mypy with its
    pyproject configuration, then lint-imports with the folder of the custom contract type on the
    path, given relative to the repository (a clean clone anywhere runs it)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path / "fresh"
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", f"VENV={venv}", "lint"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.replace("\\\n", " ").splitlines()
    runs = [shlex.split(line) for line in lines if line.startswith(("PYTHONPATH=", f"{venv}/bin/"))]
    checks = [run for run in runs if run[0] != f"{venv}/bin/python"]  # not the installs
    assert checks == [
        [f"{venv}/bin/ruff", "check", "."],
        [f"{venv}/bin/ruff", "format", "--check", "."],
        [f"{venv}/bin/mypy"],
        ["PYTHONPATH=.ci", f"{venv}/bin/lint-imports"],
    ], lines
    assert (REPOSITORY / ".ci" / "import_contracts.py").is_file()
    install = next(line for line in lines if "pip install" in line and ".[lint]" in line)
    assert "--quiet" not in shlex.split(install)
