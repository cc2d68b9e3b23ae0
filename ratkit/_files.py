"""Writing files so that a failed write never destroys what was there.

Every file ratkit writes (models, predictions, recommender files, transducers, specs)
goes to a temporary file in the target's own folder, is flushed to disk, and is then
renamed over the target (``os.replace``, atomic on POSIX and Windows). If anything
fails before the rename — a value that cannot be serialised, a full disk, an interrupt —
the temporary file is removed and the target keeps its old content.

One write message: a write that fails (a full disk, a file-size limit, a folder made
read-only meanwhile) raises :class:`~ratkit.exceptions.OutputPathError`
``Cannot write the <what> '<path>': <reason>. Any file that was there is unchanged.``
(:func:`write_error`), whichever writer it was.

One locking rule: a writer holds an exclusive lock on its target for the whole write
(:func:`locked`: ``fcntl.flock`` on ``<target>.lock`` beside it, removed afterwards), so of
two processes writing one file at once, one writes it whole and the other gets an
OutputPathError naming the file and the process holding it. The lock is advisory (other
programs do not see it) and ends with its process: a killed writer leaves no stale lock.
"""

from __future__ import annotations

import os
import tempfile
import time
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
    RatkitError,
)

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, writes stay atomic
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "is_file",
    "check_input_file",
    "check_output_path",
    "atomic_path",
    "atomic_write",
    "locked",
    "lock_path",
    "write_error",
]


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


#: What a failed write that leaves the target as it was adds to its message.
UNCHANGED = "Any file that was there is unchanged."


def write_error(exc: OSError, path: str | os.PathLike, what: str, kept: str = UNCHANGED) -> OutputPathError:
    """The one error of a failed write: ``Cannot write the <what> '<path>': <reason>. <kept>``
    (an OutputPathError with ``exc``'s ``errno``, chained to ``exc`` by the caller's ``raise …
    from exc``). ``kept``
    says what is left: by default that any file already at ``path`` is unchanged."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    error = OutputPathError(f"Cannot write the {what} {os.fspath(path)!r}: {reason.rstrip('.')}. {kept}")
    error.errno = exc.errno  # ENOSPC, EFBIG…, for callers that test it (the message stays this one)
    return error


def lock_path(path: str | os.PathLike) -> Path:
    """The lock file of writes to ``path``: ``<path>.lock`` beside it."""
    p = Path(path)
    return p.with_name(p.name + ".lock")


def _holder(fd: int, wait: float = 0.5) -> str:
    """Who holds the lock open at ``fd``, as recorded in the lock file ("pid N"). The holder
    writes its pid just after taking the lock, so a writer refused in between waits up to
    ``wait`` seconds for it; then the holder goes unnamed."""
    deadline = time.monotonic() + wait
    while True:
        with suppress(OSError, ValueError):
            text = os.pread(fd, 64, 0).decode("ascii").strip()
            if text.isdigit():
                return f" (pid {int(text)})"
        if time.monotonic() >= deadline:
            return ""
        time.sleep(0.01)


@contextmanager
def locked(path: str | os.PathLike, what: str = "output file") -> Iterator[None]:
    """Hold the exclusive lock on writing ``path`` for the block, or raise OutputPathError
    at once when another process holds it (``path`` "is being written by another process
    (pid N)"). The lock file ``<path>.lock`` records the holder's pid and is removed on exit.

    After taking the lock, the lock file is checked to still be the one at its path: another
    writer may have removed it between our open and our lock (it removes the file while it
    still holds the lock), and then the lock is taken again on the new file."""
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    name = lock_path(path)
    while True:
        try:
            fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise write_error(exc, path, what) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            holder = _holder(fd)
            os.close(fd)
            raise OutputPathError(
                f"The {what} {os.fspath(path)!r} is being written by another process{holder}; wait for it to finish, "
                f"or write to another path. (Its lock file is {str(name)!r}; a process that ends releases it.)"
            ) from exc
        except OSError:  # a file system without locks (ENOLCK, EOPNOTSUPP): the write is atomic, not locked
            lockable = False
        else:
            lockable = True
        if not lockable:
            os.close(fd)
            with suppress(OSError):
                name.unlink()
            yield
            return
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(name))
        except OSError:  # removed by the writer that held it just before
            same = False
        if same:
            break
        os.close(fd)
    try:
        with suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        with suppress(OSError):  # while still held: a waiting writer then sees it gone and retries
            name.unlink()
        os.close(fd)


def _flush_to_disk(path: Path) -> None:
    """The written file's data on disk before it is renamed over the target (where a full disk
    may show only now: a file system that allocates blocks when it flushes them)."""
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def atomic_path(path: str | os.PathLike, what: str = "output file") -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix) for a writer that takes a file name;
    renamed over ``path`` when the block succeeds, removed when it raises. The target is
    :func:`locked` for the whole write; a failed write raises :func:`write_error`'s
    OutputPathError (a RatkitError raised in the block passes unchanged)."""
    target = check_output_path(path, what)
    with locked(target, what):
        try:
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=f"{target.suffix}.part")
        except OSError as exc:
            raise write_error(exc, path, what) from exc
        os.close(fd)
        tmp_path = Path(tmp)
        try:
            yield tmp_path
            _flush_to_disk(tmp_path)
            os.chmod(tmp_path, _final_mode(target))
            os.replace(tmp_path, target)
        except BaseException as exc:
            with suppress(OSError):
                tmp_path.unlink()
            if isinstance(exc, OSError) and not isinstance(exc, RatkitError):
                raise write_error(exc, path, what) from exc
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
        kwargs: dict[str, Any] = {"encoding": encoding, "newline": ""} if mode == "w" else {}
        with open(tmp, mode, **kwargs) as fh:
            yield fh
