"""Manifests of former format versions, rewritten as the manifest of today's format that holds
the same model, so that the loader reads one format.

Version 2 (ratkit before version 3) named the class itself and kept scalars, arrays and the
kernel in tables of their own; versions 3, 4 and 5 differ only in which encodings they may use
(4 adds graphs, 5 numpy scalars), so they need no rewriting. Version 1 had no checksum over its
manifest and is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ratkit.exceptions import ModelFormatError

__all__ = ["migrate"]

#: Version 2 named the class itself; the two learners it wrote, by plugin name.
_V2_ESTIMATORS = {"LinearDCDSVC": "linear-dcd", "RationalSVC": "rational-svc"}
_V2_KERNEL_MODELS = ("RationalSVC",)


def _from_version_2(manifest: dict[str, Any], path: Path) -> dict[str, Any]:
    """A manifest of version 2 (LinearDCDSVC and RationalSVC only, scalars, arrays and the
    kernel in tables of their own) as the version-3 manifest of the same model."""
    estimator = manifest.get("estimator")
    if estimator not in _V2_ESTIMATORS:
        raise ModelFormatError(
            f"{path}: unknown estimator {estimator!r} in a model of format version 2; expected one of "
            f"{', '.join(_V2_ESTIMATORS)}."
        )
    params = {key: {"json": value} for key, value in manifest["params"].items()}
    attributes: dict[str, Any] = {key: {"json": value} for key, value in (manifest.get("attributes") or {}).items()}
    for member in manifest["arrays"]:
        key = member[len("arrays/") : -len(".npy")]
        if key != "feature_map_codes":
            attributes[key] = {"array": member}
    for key, values in (manifest.get("object_arrays") or {}).items():
        attributes[key] = {"objects": values}
    if "sequences" in manifest:
        attributes["support_vectors_"] = {"sequences": manifest["sequences"]}
    if estimator in _V2_KERNEL_MODELS:
        spec = manifest.get("kernel")
        kernel = {"kernel": spec} if isinstance(spec, dict) else {"json": spec}
        params["kernel"] = attributes["kernel_"] = kernel  # version 2 saved the fitted kernel only
        attributes["feature_map_"] = {"json": None}
        if "arrays/feature_map_codes.npy" in manifest["arrays"]:
            state = {"type": "patterns", "symbols": manifest.get("feature_map_symbols")}
            attributes["feature_map_"] = {
                "vocabulary": {"state": state, "arrays": {"codes": "arrays/feature_map_codes.npy"}}
            }
        for key in ("coef_", "support_", "dual_coef_", "support_vectors_"):
            attributes.setdefault(key, {"json": None})
    return {
        **manifest,
        "kind": "learner",
        "plugin": _V2_ESTIMATORS[estimator],
        "params": params,
        "attributes": attributes,
    }


#: Format version → the rewriting of its manifest into the current format.
_MIGRATIONS: dict[int, Callable[[dict[str, Any], Path], dict[str, Any]]] = {2: _from_version_2}


def migrate(manifest: dict[str, Any], path: Path) -> dict[str, Any]:
    """``manifest`` in the format the loader reads (itself for versions 3 and later)."""
    rewrite = _MIGRATIONS.get(manifest["version"])
    return manifest if rewrite is None else rewrite(manifest, path)
