"""save_model, load_model and read_metadata: the manifest of a model file, through the container
(:mod:`._container`), the codecs (:mod:`._codecs`) and the estimator state (:mod:`._estimators`)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ratkit._files import check_output_path
from ratkit._json import loads_strict
from ratkit._npy import read_npy
from ratkit._validation import check_real
from ratkit.exceptions import ModelFormatError
from ratkit.limits import MAX_EXPANSION
from ratkit.persistence._codecs import VERSION, DecodeContext, EncodeContext, UnknownCodecError, Writer, as_json
from ratkit.persistence._container import MANIFEST, model_path, read_archive, write_archive
from ratkit.persistence._estimators import declared, estimator_state, plugin_class, rebuild_estimator
from ratkit.persistence._migrations import migrate

__all__ = ["FORMAT", "READS", "save_model", "load_model", "read_metadata"]

FORMAT = "ratkit-model"
#: The format versions this ratkit reads (version 1 had no checksum over its manifest).
READS: tuple[int, ...] = tuple(range(2, VERSION + 1))


def save_model(model: Any, path: str | os.PathLike[str], metadata: Mapping[str, Any] | None = None) -> Path:
    """Write a fitted learner or recommender to ``path`` (see :mod:`ratkit.persistence`).

    The model's class must be registered as a ``learner`` or ``recommender`` plugin.
    ``metadata`` is any JSON-serialisable mapping stored alongside (e.g. how the inputs
    were prepared); :func:`read_metadata` returns it. Returns the path written.
    """
    target = check_output_path(path, "model file")
    owner = type(model).__name__
    out = Writer()
    manifest: dict[str, Any] = {
        "format": FORMAT,
        **estimator_state(model, EncodeContext("", owner, out), fitted=True),
        "metadata": as_json(dict(metadata or {}), "the model's metadata", owner),
    }
    manifest["version"] = out.version
    manifest["arrays"] = {member: hashlib.sha256(data).hexdigest() for member, data in out.blobs.items()}
    try:
        raw = json.dumps(manifest, indent=1, sort_keys=True, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"Cannot save the model to {str(path)!r}: {exc}") from None
    # every byte is ready before the target is touched; the rename makes the write all-or-nothing
    write_archive(target, raw, out.blobs)
    return target


def read_metadata(path: str | os.PathLike[str], *, max_expansion: float = MAX_EXPANSION) -> dict[str, Any]:
    """The ``metadata`` mapping a model file was saved with (checked like :func:`load_model`)."""
    expansion = _expansion(max_expansion, "read_metadata")
    return dict(read_archive(model_path(path, "read_metadata"), expansion, _read_manifest)[0].get("metadata") or {})


def load_model(path: str | os.PathLike[str], *, max_expansion: float = MAX_EXPANSION) -> Any:
    """Rebuild the learner or recommender a model file holds; refuses foreign or corrupted files.

    The class is the plugin the manifest names (built-in or third-party, found through
    :mod:`ratkit.plugins`); nothing in the file is executed or unpickled. A file whose members
    declare more than ``max_expansion`` times its size (plus 256 MiB) uncompressed is refused as
    a zip bomb before anything is decompressed; raise it for a genuine file that compresses that
    well (e.g. a model whose arrays are mostly zeros).
    """
    expansion = _expansion(max_expansion, "load_model")
    file = model_path(path, "load_model")
    manifest, blobs = read_archive(file, expansion, _read_manifest)
    # each header is checked against its member's bytes before anything is allocated
    arrays = {member: read_npy(data, f"{file}: {member}", error=ModelFormatError) for member, data in blobs.items()}
    return _rebuild(migrate(manifest, file), arrays, file)


def _expansion(value: Any, owner: str) -> float:
    return check_real(value, "max_expansion", owner, low=1.0)


def _read_manifest(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        manifest = loads_strict(raw.decode("utf-8"), f"{path}: {MANIFEST}", error=ModelFormatError)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(f"{path}: manifest.json is not valid JSON ({exc}): the file is corrupted.") from None
    except RecursionError:
        raise ModelFormatError(f"{path}: manifest.json nests too deep to read: the file is corrupted.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        got = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise ModelFormatError(f"{path} is not a ratkit model: its manifest format is {got!r}, expected {FORMAT!r}.")
    version = manifest.get("version")
    if version not in READS:
        raise ModelFormatError(
            f"{path} is a ratkit model of format version {version!r}; this ratkit reads versions "
            f"{', '.join(map(str, READS))}. Retrain the model with this ratkit and save it again."
        )
    if not isinstance(manifest.get("arrays"), dict) or not isinstance(manifest.get("params"), dict):
        raise ModelFormatError(f"{path}: manifest.json lacks its 'arrays' or 'params' table: the file is corrupted.")
    if version >= 3:
        if not isinstance(manifest.get("attributes"), dict):
            raise ModelFormatError(f"{path}: manifest.json lacks its 'attributes' table: the file is corrupted.")
        plugin_class(manifest, path)  # an unknown plugin is refused before any array is read
    return manifest


def _rebuild(manifest: dict[str, Any], arrays: Mapping[str, np.ndarray], path: Path) -> Any:
    cls = plugin_class(manifest, path)
    missing = [k for k in declared(cls) if k not in manifest["attributes"]]
    if missing or not manifest["attributes"]:
        raise ModelFormatError(
            f"{path}: the model lacks {', '.join(missing) or 'every fitted attribute'}: the file is incomplete."
        )
    try:
        return rebuild_estimator(manifest, DecodeContext("", arrays))
    except UnknownCodecError as exc:  # not a corrupted file: a package is missing
        raise ModelFormatError(f"{path}: {exc}") from None
    except ModelFormatError as exc:
        raise ModelFormatError(
            f"{path}: {exc} (the file is corrupted, or was written for another version of the plugin)."
        ) from None
    except ValueError as exc:  # _check_restored: the state read is inconsistent
        raise ModelFormatError(f"{path}: {exc}") from None
    except RecursionError:  # values nested deeper than Python's stack (the JSON parser refuses most first)
        raise ModelFormatError(
            f"{path}: manifest.json nests values too deep to rebuild: the file is corrupted."
        ) from None
