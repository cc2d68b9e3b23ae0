"""Notes for the person at a terminal: the library's INFO records that the ``ratkit`` command shows.

Inside the library, notes go through :mod:`logging` (silent unless the caller configures
it); the command line routes the loggers named in :data:`NOTE_LOGGERS` to standard error.
Only :mod:`logging` and :mod:`sys` are imported, so the command line stays quick to start.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

__all__ = ["NOTE_LOGGERS", "show_notes_on_stderr"]

#: Loggers whose INFO records are notes for the user: ``ratkit._jit`` says when numba compiles.
NOTE_LOGGERS = ("ratkit._jit",)


class _StderrHandler(logging.Handler):
    """Writes each record as one line to ``sys.stderr`` as it is when the record is emitted,
    through ``tqdm.write``, so that a progress bar being drawn is not cut by the line."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("ratkit: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from tqdm import tqdm

            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:  # logging's convention: a failing handler reports, never raises
            self.handleError(record)


def show_notes_on_stderr(*, quiet: bool = False) -> Callable[[], None]:
    """Show the INFO records of :data:`NOTE_LOGGERS` on standard error, one line each, after ``ratkit: ``.

    Returns the function that undoes it, for the end of the command (so that calling the
    command line in-process leaves logging as it was). With ``quiet`` (a command's
    ``--quiet``) nothing is shown. A logger that already has a handler (configured by the
    caller) is left as it is."""
    added: list[tuple[logging.Logger, logging.Handler, int]] = []
    for name in () if quiet else NOTE_LOGGERS:
        logger = logging.getLogger(name)
        if not logger.handlers:
            handler = _StderrHandler()
            added.append((logger, handler, logger.level))
            logger.addHandler(handler)
            logger.setLevel(logging.INFO)

    def undo() -> None:
        for logger, handler, level in added:
            logger.removeHandler(handler)
            logger.setLevel(level)

    return undo
