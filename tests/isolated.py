"""Run a snippet of Python in a fresh interpreter, for regression tests of crashes and hangs.

A defect that aborts the interpreter (an OpenFst ``std::length_error``, ``std::bad_alloc``)
or loops forever would take the whole test run with it; such tests run the code in a
child process with a timeout and, where the defect is a runaway allocation, a cap on the
child's address space.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap
from dataclasses import dataclass

__all__ = ["Outcome", "run_python"]


@dataclass
class Outcome:
    """How the child ended: its exit status (negative: killed by that signal), its output,
    and whether it was stopped at the timeout."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool


def run_python(code: str, *, timeout: float = 60.0, memory_mb: int | None = None) -> Outcome:
    """Run ``code`` (dedented) with this interpreter; stop it after ``timeout`` seconds.

    ``memory_mb`` caps the child's virtual memory (RLIMIT_AS), so a runaway allocation
    ends in ``MemoryError``/``std::bad_alloc`` instead of exhausting the machine.
    """

    def limit() -> None:  # pragma: no cover - runs in the child
        if memory_mb is not None:
            size = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired as exc:
        return Outcome(None, _text(exc.stdout), _text(exc.stderr), True)
    return Outcome(done.returncode, done.stdout, done.stderr, False)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")
