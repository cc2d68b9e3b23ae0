"""The ``.npy`` file a Gram matrix's blocks are written into, by the tasks that compute them.

A float64 C-order ``.npy`` file whose header padding holds a random stamp of the run: a task
writes its block into the file itself (positioned writes, or a shared map of a file in shared
memory) only when the file it sees at that path holds the stamp, and reports the block's
CRC-32, which the calling process confirms by reading the block back. See
:mod:`ratkit.automata.kernels.blocked` for the run, :mod:`ratkit.automata.kernels.gram_file`
for the manifest.
"""

from __future__ import annotations

import contextlib
import dataclasses
import mmap
import os
import secrets
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ratkit.exceptions import DataFormatError

#: Bytes of one matrix entry (float64).
_ITEMSIZE = 8
#: Rows of G_J per sparse product in a feature block, and per transposed copy in
#: :func:`_write_tile`: what bounds a block's transients beyond its tile.
_CHUNK_ROWS = 128

# -- the file the blocks are written into ---------------------------------------------------

#: What marks a run's file in its header padding (a comment to the header's dict), then hex digits.
_STAMP_PREFIX = b"#ratkit-run:"
_STAMP_DIGITS = 24  # 96 random bits


@dataclasses.dataclass(frozen=True)
class _Sink:
    """A float64 C-order ``.npy`` file that a block's task may write into itself: ``path`` as
    the calling process sees it, its ``size`` in bytes, the data ``offset``, ``n_cols``, and
    the run's ``stamp`` at byte ``stamp_at`` (empty: the header has no room, tasks return
    their tiles). ``durable``: flushed to disk before a block is reported written.
    ``mapped``: in shared memory, written through a shared map."""

    path: str
    size: int
    offset: int
    n_cols: int
    stamp_at: int
    stamp: bytes
    durable: bool
    mapped: bool = False


def _create_npy(path: Path, shape: tuple[int, int]) -> None:
    """A new (zero-filled, sparse) float64 ``.npy`` file at ``path`` whose header padding has
    room for a stamp; a file already there is unlinked first, so that a task of an earlier run
    that still holds it open writes into that file, not into this one."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    header = repr({"descr": "<f8", "fortran_order": False, "shape": tuple(shape)}).encode("latin1")
    header += b" " * (2 + len(_STAMP_PREFIX) + _STAMP_DIGITS)
    magic = np.lib.format.magic(1, 0)
    length = len(magic) + 2 + len(header) + 1
    header += b" " * (-length % 64) + b"\n"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        _pwrite_all(fd, magic + len(header).to_bytes(2, "little") + header, 0)
        os.ftruncate(fd, len(magic) + 2 + len(header) + shape[0] * shape[1] * _ITEMSIZE)
    finally:
        os.close(fd)


def _stamped(path: Path, fd: int, shape: tuple[int, int], durable: bool, mapped: bool = False) -> _Sink:
    """The sink of the ``.npy`` file open at ``fd``, with a fresh stamp written into its header
    (after the dict, where only spaces or an earlier stamp may be) when there is room."""
    start = _pread_all(fd, 12, 0)
    width = 2 if start[6] == 1 else 4  # the header length: 2 bytes in format 1.0, 4 in 2.0 and 3.0
    offset = 8 + width + int.from_bytes(start[8 : 8 + width], "little")
    head = _pread_all(fd, offset, 0)
    at = head.rindex(b"}") + 2
    padding = head[at - 1 : offset - 1]
    stamp = _STAMP_PREFIX + secrets.token_hex(_STAMP_DIGITS // 2).encode("ascii")
    rest = padding.strip(b" ")
    if offset - 1 - at < len(stamp) or (rest and not rest.startswith(_STAMP_PREFIX)):
        stamp = b""
    else:
        _pwrite_all(fd, stamp.ljust(offset - 1 - at), at)
    size = offset + shape[0] * shape[1] * _ITEMSIZE
    return _Sink(str(path.resolve()), size, offset, shape[1], at, stamp, durable, mapped)


def _blank_stamp(fd: int, sink: _Sink) -> None:
    """Spaces over the stamp: the finished file has a plain ``.npy`` header."""
    if sink.stamp:
        _pwrite_all(fd, b" " * len(sink.stamp), sink.stamp_at)


def _open_sink(sink: _Sink) -> int | None:
    """A descriptor open for writing on the sink's file when the file at its path, as this
    process sees it, is that file (its size and stamp), else None."""
    if not sink.stamp:
        return None
    try:
        fd = os.open(sink.path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        if os.fstat(fd).st_size == sink.size and _pread_all(fd, len(sink.stamp), sink.stamp_at) == sink.stamp:
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _write_tile(fd: int, sink: _Sink, tile: np.ndarray, start: int, first: int, mirror: bool) -> None:
    """Positioned writes of the block at rows [start, …), columns [first, …) and, with
    ``mirror``, of its part right of the diagonal square, transposed, below it."""
    rows, width = tile.shape
    if rows == 0 or width == 0:
        return
    n, at = sink.n_cols, sink.offset
    if width == n:
        _pwrite_all(fd, tile, at + start * n * _ITEMSIZE)
    else:
        for i in range(rows):
            _pwrite_all(fd, tile[i], at + ((start + i) * n + first) * _ITEMSIZE)
    if mirror:
        for a in range(rows, width, _CHUNK_ROWS):
            lower = np.ascontiguousarray(tile[:, a : a + _CHUNK_ROWS].T)
            for j in range(lower.shape[0]):
                _pwrite_all(fd, lower[j], at + ((start + a + j) * n + start) * _ITEMSIZE)


def _map_tile(fd: int, sink: _Sink, tile: np.ndarray, start: int, first: int, mirror: bool) -> None:
    """:func:`_write_tile` through a shared map of the sink's file."""
    rows, width = tile.shape
    if rows == 0 or width == 0:
        return
    pages = mmap.mmap(fd, sink.size)
    try:
        matrix = np.frombuffer(pages, dtype=np.float64, offset=sink.offset).reshape(-1, sink.n_cols)
        matrix[start : start + rows, first:] = tile
        if mirror:  # in strips of columns, so that what the transpose reads stays in cache
            for a in range(rows, width, _CHUNK_ROWS):
                matrix[start + a : start + a + _CHUNK_ROWS, start : start + rows] = tile[:, a : a + _CHUNK_ROWS].T
        del matrix
    finally:
        pages.close()


def _confirmed(fd: int, sink: _Sink, crc: int, start: int, stop: int, first: int) -> bool:
    """Whether this process's file holds, at rows [start, stop) and columns [first, …), a
    block whose CRC-32 is ``crc`` (what its task reported writing)."""
    width = (sink.n_cols - first) * _ITEMSIZE
    found = 0
    for r in range(start, stop):
        found = zlib.crc32(_pread_all(fd, width, sink.offset + (r * sink.n_cols + first) * _ITEMSIZE), found)
    return found == crc


def _read_matrix(fd: int, sink: _Sink) -> np.ndarray:
    """The matrix of the sink's (temporary) file as an array in memory: on POSIX a private
    copy-on-write map of the file, which outlives its removal (no copy: the pages the tasks
    wrote become the array's); elsewhere read into a new array."""
    shape = ((sink.size - sink.offset) // (_ITEMSIZE * max(sink.n_cols, 1)), sink.n_cols)
    if os.name != "posix" or sink.size == sink.offset:
        return np.fromfile(sink.path, dtype=np.float64, offset=sink.offset).reshape(shape)
    pages = mmap.mmap(fd, sink.size, access=mmap.ACCESS_COPY)
    return np.frombuffer(pages, dtype=np.float64, offset=sink.offset).reshape(shape)


def _pwrite_all(fd: int, buf: Any, offset: int) -> None:
    """All of ``buf`` (bytes, or a C-contiguous array) at byte ``offset`` of ``fd``."""
    if hasattr(os, "pwrite"):  # the common case in one call: a block writes thousands of rows
        written = os.pwrite(fd, buf, offset)
        if written == (buf.nbytes if isinstance(buf, np.ndarray) else len(buf)):
            return
        buf, offset = memoryview(buf).cast("B")[written:], offset + written
    view = memoryview(buf).cast("B")
    while view:
        if hasattr(os, "pwrite"):
            n = os.pwrite(fd, view, offset)
        else:  # pragma: no cover - Windows
            os.lseek(fd, offset, os.SEEK_SET)
            n = os.write(fd, view)
        view, offset = view[n:], offset + n


def _pread_all(fd: int, size: int, offset: int) -> bytes:
    parts = []
    while size > 0:
        if hasattr(os, "pread"):
            chunk = os.pread(fd, size, offset)
        else:  # pragma: no cover - Windows
            os.lseek(fd, offset, os.SEEK_SET)
            chunk = os.read(fd, size)
        if not chunk:
            raise DataFormatError(f"The Gram file ends before byte {offset + size}: it was truncated.")
        parts.append(chunk)
        size, offset = size - len(chunk), offset + len(chunk)
    return b"".join(parts)


def _sync(fd: int) -> None:
    (os.fdatasync if hasattr(os, "fdatasync") else os.fsync)(fd)


def _check_partial(path: Path, shape: tuple[int, int]) -> None:
    """Refuse a partial file that is not a float64 C-order ``.npy`` of ``shape`` and its full
    size, from its header alone (a map of the whole file may exceed the address space)."""
    try:
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
            if version not in read_header:
                raise ValueError(f"unexpected .npy format version {version}")
            header = read_header[version](fh)  # (shape, fortran_order, dtype)
            offset = fh.tell()
        size = os.path.getsize(path)
    except (OSError, ValueError) as exc:
        raise DataFormatError(
            f"The partial Gram file {str(path)!r} cannot be read ({exc}); use overwrite=True."
        ) from exc
    found, fortran, dtype = header
    if tuple(found) != shape or dtype != np.float64 or fortran:
        raise DataFormatError(
            f"The partial Gram file {str(path)!r} holds a {dtype} array of shape {tuple(found)}, not the "
            f"float64 {shape} its manifest describes; use overwrite=True."
        )
    if size < offset + shape[0] * shape[1] * _ITEMSIZE:
        raise DataFormatError(
            f"The partial Gram file {str(path)!r} is {size} bytes, shorter than its header's {shape} float64 "
            "matrix: it was truncated; use overwrite=True."
        )
