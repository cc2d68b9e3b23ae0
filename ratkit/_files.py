"""Writing files so that a failed write never destroys what was there.

Every file ratkit writes (models, predictions, recommender files, transducers, specs)
goes to a temporary file in the target's own folder, is flushed to disk, and is then
renamed over the target (``os.replace``, atomic on POSIX and Windows). If anything
fails before the rename — a value that cannot be serialised, a full disk, an interrupt —
the temporary file is removed and the target keeps its old content.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from ratkit.exceptions import (
    MissingDataError,
    NotAFolderError,
    OutputPathError,
    ParameterError,
    ParameterTypeError,
    PathIsFolderError,
)

__all__ = ["is_file", "check_input_file", "check_output_path", "atomic_path", "atomic_write"]


def is_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` names an existing file; False, not an OSError, for a name the system
    refuses (e.g. longer than 255 bytes: a JSON spec or AT&T text passed as a string)."""
    try:
        return Path(path).is_file()
    except (OSError, TypeError, ValueError):  # ValueError: a NUL byte in the name
        return False


def _as_path(path: object, what: str) -> Path:
    """``path`` as a Path, or a ParameterTypeError naming ``what`` when it is no path at all."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterTypeError(
            f"The {what} must be a path (a str or os.PathLike); got {path!r} of type {type(path).__name__}."
        )
    try:
        p = Path(path)
    except TypeError as exc:  # an os.PathLike whose __fspath__ returns no str
        raise ParameterTypeError(f"The {what} must be a path (a str or os.PathLike); got {path!r}.") from exc
    if "\0" in str(p):
        raise ParameterError(f"The {what} {str(path)!r} contains a NUL character, which no file name may hold.")
    return p


def check_input_file(path: str | os.PathLike, what: str, expected: str = "") -> Path:
    """``path`` as a Path if it names an existing file; else PathIsFolderError (IsADirectoryError) when
    it names a folder, NotAFolderError (NotADirectoryError) when a component of it is a file, and
    MissingDataError (FileNotFoundError) when it does not exist — each naming the ``what`` and, when
    given, what was ``expected``."""
    p = _as_path(path, what)
    if is_file(p):
        return p
    tail = f"; expected {expected}" if expected else ""
    try:
        folder = p.is_dir()
    except OSError:
        folder = False
    if folder:
        raise PathIsFolderError(f"{what} {str(path)!r} is a folder, not a file{tail}.")
    for parent in p.parents:
        if is_file(parent):
            raise NotAFolderError(f"{what} {str(path)!r} cannot exist: {str(parent)!r} is a file, not a folder{tail}.")
    raise MissingDataError(f"{what} {str(path)!r} does not exist{tail}.")


def check_output_path(path: str | os.PathLike, what: str = "output file") -> Path:
    """``path`` as a Path if a file can be written there, else an OutputPathError saying why.

    Checked before any work is done, so that a long computation does not end in an
    unwritable output: the path must not be a folder, and its folder must exist.
    """
    p = _as_path(path, what)
    if str(path) == "" or p.is_dir():
        raise OutputPathError(
            f"The {what} {str(path)!r} is a folder; give the path of a file to write (e.g. {str(p / 'out')!r})."
        )
    parent = p.parent
    if not parent.exists():
        raise OutputPathError(
            f"Cannot write the {what} {str(path)!r}: its folder {str(parent)!r} does not exist. Create it first."
        )
    if not parent.is_dir():
        raise OutputPathError(f"Cannot write the {what} {str(path)!r}: {str(parent)!r} is not a folder.")
    if not os.access(parent, os.W_OK):
        raise OutputPathError(f"Cannot write the {what} {str(path)!r}: the folder {str(parent)!r} is not writable.")
    return p


def _final_mode(path: Path) -> int:
    """The permissions the written file gets: the old file's, else 0o666 less the umask."""
    with suppress(OSError):
        return path.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def atomic_path(path: str | os.PathLike, what: str = "output file") -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix) for a writer that takes a file name;
    renamed over ``path`` when the block succeeds, removed when it raises."""
    target = check_output_path(path, what)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=f"{target.suffix}.part")
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, _final_mode(target))
        os.replace(tmp_path, target)
    except BaseException:
        with suppress(OSError):
            tmp_path.unlink()
        raise


@contextmanager
def atomic_write(
    path: str | os.PathLike, mode: str = "w", *, encoding: str | None = "utf-8", what: str = "output file"
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing (``mode`` "w" or "wb"); it replaces
    ``path`` when the block succeeds and is removed when it raises."""
    if mode not in ("w", "wb"):
        raise ParameterError(f"atomic_write opens files for writing only ('w' or 'wb'); got mode {mode!r}.")
    with atomic_path(path, what) as tmp:
        kwargs = {"encoding": encoding, "newline": ""} if mode == "w" else {}
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
