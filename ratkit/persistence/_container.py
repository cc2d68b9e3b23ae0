"""The model file's container: a zip archive of ``manifest.json``, its checksum and ``.npy``
members, written atomically and read with guards against zip bombs and edited archives.

The container knows members, sizes and checksums, not what the manifest means: reading takes
a function that parses the manifest (and refuses one of another format or version), and gives
back the parsed manifest and the bytes of the array members it lists, each checked against its
SHA-256.
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ratkit import limits
from ratkit._files import atomic_write, is_file
from ratkit.exceptions import MissingDataError, ModelFormatError, ParameterTypeError, PathIsFolderError

__all__ = ["MANIFEST", "MANIFEST_SUM", "model_path", "read_archive", "write_archive"]

MANIFEST, MANIFEST_SUM = "manifest.json", "manifest.sha256"
#: Deflate's largest possible expansion (about 1032:1): a member declaring more uncompressed
#: bytes than this times its compressed size (plus a little for tiny members) cannot be genuine.
_DEFLATE_RATIO = 1032
#: Whatever :data:`ratkit.limits.MAX_EXPANSION` allows, a file may expand to this many bytes
#: more: a small file of mostly zeros loads whatever its ratio.
_EXPANSION_FLOOR = 2**28  # 256 MiB
#: Members are decompressed in chunks of this many bytes, never past their declared size.
_CHUNK = 2**20


def model_path(path: Any, owner: str) -> Path:
    """``path`` as the Path of an existing file: ParameterTypeError for a value that is not a
    path, PathIsFolderError for a folder, MissingDataError for nothing there."""
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise ParameterTypeError(
            f"The 'path' parameter of {owner} must be the path of a model file (a str or os.PathLike). "
            f"Got {path!r:.80} instead."
        )
    p = Path(path)
    if is_file(p):
        return p
    expected = "expected a model file written by save(), ratkit.save_model or 'ratkit train -o'"
    try:
        folder = p.is_dir()
    except OSError:
        folder = False
    if folder:
        raise PathIsFolderError(f"Model file {str(path)!r} is a folder, not a file; {expected}.")
    raise MissingDataError(f"Model file {str(path)!r} not found; {expected}.")


def write_archive(target: Path, manifest: bytes, blobs: Mapping[str, bytes]) -> None:
    """Write the archive of ``manifest`` (its checksum beside it) and the ``blobs`` members to
    ``target`` through a temporary file renamed over it: a failed write leaves what was there
    (atomic_write's one error: "Cannot write the model file '…': <reason>. Any file that was
    there is unchanged.")."""
    with atomic_write(target, "wb", encoding=None, what="model file") as fh:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(MANIFEST, manifest)
            zf.writestr(MANIFEST_SUM, hashlib.sha256(manifest).hexdigest())
            for member, data in blobs.items():
                zf.writestr(member, data)


def _check_members(zf: zipfile.ZipFile, path: Path, expansion: float) -> None:
    """Refuse, before anything is decompressed, a member with an unsafe name (absolute, or
    with a ``..`` part) and sizes no genuine model file declares: more than deflate can expand
    its compressed bytes to, or a total past ``expansion`` × the file's size (a zip bomb)."""
    infos = zf.infolist()
    seen: set[str] = set()
    for info in infos:
        name = info.filename
        if name in seen:  # zipfile reads the last of them: an appended, edited copy would win
            raise ModelFormatError(
                f"{path}: the archive holds two members named {name!r}; a model file holds each member once. The "
                "file is corrupted or was tampered with (a second copy appended to the archive)."
            )
        seen.add(name)
        parts = name.replace("\\", "/").split("/")
        if name.startswith(("/", "\\")) or ".." in parts or re.match(r"^[A-Za-z]:", name):
            raise ModelFormatError(
                f"{path}: the archive holds a member named {name!r}, a path outside the archive; a ratkit "
                "model file holds manifest.json, manifest.sha256 and arrays/*.npy only. The file is not a "
                "ratkit model (or was tampered with)."
            )
        stored = info.compress_type == zipfile.ZIP_STORED
        most = info.compress_size if stored else _DEFLATE_RATIO * info.compress_size + 1024
        if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) and info.file_size > most:
            raise ModelFormatError(
                f"{path}: the member {name!r} declares {info.file_size:,} bytes uncompressed "
                f"({limits.format_bytes(info.file_size)}) from {info.compress_size:,} compressed bytes, more than "
                f"{'a stored member holds' if stored else 'deflate can produce (1032:1)'}: the file is corrupted "
                "or a zip bomb."
            )
    total = sum(info.file_size for info in infos)
    size = path.stat().st_size
    bound = expansion * size + _EXPANSION_FLOOR
    if total > bound:
        biggest = max(infos, key=lambda info: info.file_size)
        raise ModelFormatError(
            f"{path}: its members declare {total:,} bytes uncompressed ({limits.format_bytes(total)}; the largest, "
            f"{biggest.filename!r}, {biggest.file_size:,} bytes) from a file of {size:,} bytes: more than "
            f"{expansion:g}× the file's size plus {limits.format_bytes(_EXPANSION_FLOOR)} (max_expansion). The file "
            "is corrupted or a zip bomb; if it is a genuine model that compresses that well (arrays of mostly "
            "zeros), load it with a larger max_expansion."
        )
    limits.check_bytes(2 * total, f"Reading the model file {str(path)!r} ({limits.format_bytes(total)} uncompressed)")


def _read_member(zf: zipfile.ZipFile, name: str, path: Path) -> bytes:
    """The bytes of member ``name``, decompressed in chunks and never past its declared size
    (a stream that inflates further, or ends short of it, is a corrupted file)."""
    info = zf.getinfo(name)
    declared = info.file_size
    chunks, got = [], 0
    with zf.open(info) as fh:
        while True:
            chunk = fh.read(min(_CHUNK, declared - got + 1))
            if not chunk:
                break
            got += len(chunk)
            if got > declared:
                raise ModelFormatError(
                    f"{path}: the member {name!r} inflates past the {declared:,} bytes its header declares: the "
                    "file is corrupted or a zip bomb."
                )
            chunks.append(chunk)
    if got != declared:
        raise ModelFormatError(
            f"{path}: the member {name!r} holds {got:,} bytes but its header declares size {declared:,}: the "
            "file is corrupted."
        )
    return b"".join(chunks)


def read_archive(
    path: Path, expansion: float, parse: Callable[[bytes, Path], dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """(manifest, {member: bytes}): the manifest as ``parse(raw, path)`` reads it, once its
    checksum matched, and the members its ``arrays`` table lists, each matching its checksum."""
    try:
        with zipfile.ZipFile(path) as zf:
            _check_members(zf, path, expansion)
            names = set(zf.namelist())
            if MANIFEST not in names:
                if "__ratkit_model__.npy" in names:
                    raise ModelFormatError(
                        f"{path} is a recommender file of the former .npz format (Recommender.save before "
                        "model-file version 3), which this ratkit no longer reads. Fit the model "
                        "again and save it."
                    )
                raise ModelFormatError(f"{path} is a zip archive but not a ratkit model: it has no manifest.json.")
            raw = _read_member(zf, MANIFEST, path)
            manifest = parse(raw, path)
            digest = (
                _read_member(zf, MANIFEST_SUM, path).decode("ascii", "replace").strip()
                if MANIFEST_SUM in names
                else None
            )
            if digest != hashlib.sha256(raw).hexdigest():
                raise ModelFormatError(
                    f"{path}: manifest.json does not match its checksum ({MANIFEST_SUM}"
                    f"{' is missing' if digest is None else ''}): the model file was edited or is corrupted. "
                    "Save the model again."
                )
            blobs = {}
            for member, digest in manifest["arrays"].items():
                if member not in names:
                    raise ModelFormatError(f"{path}: the model is incomplete: {member} is missing.")
                data = _read_member(zf, member, path)
                if hashlib.sha256(data).hexdigest() != digest:
                    raise ModelFormatError(
                        f"{path}: {member} does not match its checksum: the model file is corrupted. "
                        "Save the model again."
                    )
                blobs[member] = data
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise ModelFormatError(
            f"{path} is not a ratkit model (not a readable zip archive: {exc}); expected a file "
            "written by a model's save(), ratkit.save_model or 'ratkit train -o'."
        ) from None
    return manifest, blobs
