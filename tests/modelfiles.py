"""Edit genuine model files as someone who knows the format would: members replaced, the
manifest changed, and every checksum recomputed, so that only ratkit's own checks of what the
file holds stand between the edit and the model (tests of untrusted model files)."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["rewrite", "edit_model", "npy_bytes", "manifest_of"]


def npy_bytes(array: np.ndarray) -> bytes:
    """``array`` as the bytes of an ``.npy`` member."""
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def manifest_of(path: str | Path) -> dict[str, Any]:
    """The parsed manifest.json of a model file."""
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("manifest.json"))


def rewrite(src: str | Path, dst: str | Path, change: Callable[[str, bytes], Any], resum: bool = True) -> Path:
    """Copy a model archive through ``change(name, data)`` (None drops the member); with
    ``resum``, the manifest's checksum is recomputed (an edit made by someone who knows the
    format)."""
    with zipfile.ZipFile(src) as zin:
        parts = {name: change(name, zin.read(name)) for name in zin.namelist()}
    if resum and parts.get("manifest.json") is not None and "manifest.sha256" in parts:
        manifest = parts["manifest.json"]
        manifest = manifest.encode() if isinstance(manifest, str) else manifest
        parts["manifest.sha256"] = hashlib.sha256(manifest).hexdigest()
    with zipfile.ZipFile(dst, "w") as zout:
        for name, data in parts.items():
            if data is not None:
                zout.writestr(name, data)
    return Path(dst)


def edit_model(
    src: str | Path,
    dst: str | Path,
    *,
    arrays: Mapping[str, np.ndarray] | None = None,
    attributes: Mapping[str, Any] | None = None,
) -> Path:
    """Copy the model file ``src`` to ``dst`` with fitted attributes replaced, every checksum
    recomputed.

    ``arrays`` maps an attribute to the array its member now holds: an attribute saved as an
    array (or a numpy scalar) keeps its member; one saved otherwise (e.g. as JSON) becomes an
    array member; ``"name.key"`` is the array ``key`` of a sparse attribute (``data``,
    ``indices``, ``indptr``). ``attributes`` maps an attribute to its new encoded manifest
    entry, e.g. ``{"json": "2"}``.
    """
    with zipfile.ZipFile(src) as zf:
        parts = {name: zf.read(name) for name in zf.namelist()}
    manifest = json.loads(parts["manifest.json"])
    encoded = manifest["attributes"]
    for key, value in (arrays or {}).items():
        name, _, part = key.partition(".")
        entry = encoded[name]
        if part:
            member = entry["csr"][part]
        elif "array" in entry or "scalar" in entry:
            member = entry.get("array") or entry["scalar"]
        else:
            member = f"arrays/{name}.npy"
            encoded[name] = {"array": member}
        parts[member] = npy_bytes(np.asarray(value))
        manifest["arrays"][member] = hashlib.sha256(parts[member]).hexdigest()
    encoded.update(attributes or {})
    raw = json.dumps(manifest).encode()
    parts["manifest.json"], parts["manifest.sha256"] = raw, hashlib.sha256(raw).hexdigest().encode()
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return Path(dst)
