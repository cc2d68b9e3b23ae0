"""Notes for the person at a terminal: the library's INFO records that the ``ratkit`` command shows.

Inside the library, notes go through :mod:`logging` (silent unless the caller configures
it); the command line routes the loggers named in :data:`NOTE_LOGGERS` to standard error.
Only :mod:`logging` and :mod:`sys` are imported, so the command line stays quick to start.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["NOTE_LOGGERS", "show_notes_on_stderr"]

#: Loggers whose INFO records are notes for the user: ``ratkit._jit`` says when numba compiles.
NOTE_LOGGERS = ("ratkit._jit",)


class _StderrHandler(logging.StreamHandler):
    """Writes each record to ``sys.stderr`` as it is when the record is emitted (not when created)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("ratkit: %(message)s"))

    @property
    def stream(self):  # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:  # StreamHandler.__init__ sets it; sys.stderr is always used
        pass


def show_notes_on_stderr() -> None:
    """Show the INFO records of :data:`NOTE_LOGGERS` on standard error, one line each, after ``ratkit: ``.

    A logger that already has a handler (configured by the caller, or by an earlier call)
    is left as it is."""
    for name in NOTE_LOGGERS:
        logger = logging.getLogger(name)
        if not logger.handlers:
            logger.addHandler(_StderrHandler())
            logger.setLevel(logging.INFO)
