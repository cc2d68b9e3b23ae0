"""Saving and loading fitted learners without pickle: a zip of JSON and ``.npy`` arrays.

A model file is a zip archive holding

``manifest.json``
    ``{"format": "ratkit-model", "version": 1, "estimator": ..., "params": ...,
    "kernel": <kernel spec>, "attributes": {...}, "sequences": [...],
    "arrays": {name: sha256}}`` — the estimator's class (one of ratkit's learners), its
    parameters, the kernel as a spec (:func:`ratkit.automata.kernels.to_spec`), scalar
    fitted attributes, the support sequences of a kernel-expansion model, and the
    SHA-256 of every array file;
``manifest.sha256``
    the SHA-256 of ``manifest.json``, so that an edited manifest is refused like a
    corrupted array;
``arrays/<name>.npy``
    one numpy array per fitted array attribute, read back with ``allow_pickle=False``.

Everything is serialised in memory first, then written to a temporary file beside the
target and renamed over it: a failed save never destroys an existing model file.

Loading refuses, with :class:`~ratkit.exceptions.ModelFormatError` naming the file,
anything that is not such an archive, a manifest of another format or version, an
unknown estimator, a manifest or arrays whose checksum does not match (a corrupted or
edited file), and a vocabulary of patterns the saved kernel cannot produce (the kernel
in the manifest is not the one the arrays were trained with).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit._files import atomic_write, check_output_path
from ratkit._json import plain
from ratkit.automata.kernels import FeatureMap, Kernel, RationalKernel
from ratkit.exceptions import ModelFormatError, RatkitError
from ratkit.learners.svm._base import DualSVCBase
from ratkit.learners.svm._kernel_view import unwrap

__all__ = ["save_model", "load_model", "read_metadata", "FORMAT", "VERSION"]

FORMAT = "ratkit-model"
VERSION = 2  # 2: manifest.sha256 covers the manifest
_MANIFEST, _MANIFEST_SUM = "manifest.json", "manifest.sha256"
#: How many vocabulary patterns of non-zero weight a load checks against the saved kernel.
_SUPPORT_SAMPLE = 32
_ARRAYS = (
    "alpha_",
    "coef_",
    "intercept_",
    "classes_",
    "support_",
    "dual_coef_",
    "support_vectors_",
    "feature_names_in_",
)
_SCALARS = ("n_iter_", "converged_", "representation_", "shift_", "n_features_in_", "wprime_size_", "fit_time_")


def _classes() -> dict[str, type]:
    from ratkit.learners.svm._linear import LinearDCDSVC
    from ratkit.learners.svm._rational import RationalSVC

    return {"LinearDCDSVC": LinearDCDSVC, "RationalSVC": RationalSVC}


def _kernel_spec(kernel: Any) -> Any:
    """The fitted kernel as a self-contained spec (transducer files inlined as AT&T text)."""
    if isinstance(kernel, str) and kernel == "linear":
        return kernel
    if isinstance(kernel, Kernel):
        return kernel.to_spec(inline=True)
    raise ModelFormatError(
        f"Cannot save a model whose kernel is {type(kernel).__name__}: only ratkit kernels (with "
        "a spec), kernel specs and 'linear' can be written. Build the kernel from a spec to save the model."
    )


def _sequence_to_json(x: Any) -> Any:
    if isinstance(x, str):
        return x
    if isinstance(x, (tuple, list)) and all(isinstance(t, str) for t in x):
        return {"tokens": list(x)}
    raise ModelFormatError(
        f"Cannot save a support sequence of type {type(x).__name__}: only strings and token "
        "sequences can be written (weighted-automaton inputs cannot yet)."
    )


def _sequence_from_json(x: Any) -> Any:
    return tuple(x["tokens"]) if isinstance(x, dict) else x


def save_model(model: DualSVCBase, path: str | os.PathLike, metadata: dict[str, Any] | None = None) -> None:
    """Write a fitted LinearDCDSVC or RationalSVC to ``path`` (see the module docstring).

    ``metadata`` is any JSON-serialisable mapping stored alongside (e.g. how the inputs
    were prepared); :func:`read_metadata` returns it.
    """
    model._check_fitted()
    target = check_output_path(path, "model file")
    name = type(model).__name__
    if name not in _classes():
        raise ModelFormatError(f"save_model writes ratkit learners only; got {name}.")
    params = model.get_params(deep=False)
    params.pop("kernel", None)
    if not isinstance(params.get("random_state"), (int, type(None))):
        params["random_state"] = None  # a RandomState object cannot be written; the fit is saved anyway
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "estimator": name,
        "params": params,
        "metadata": dict(metadata or {}),
    }
    if name == "RationalSVC":
        manifest["kernel"] = _kernel_spec(model.kernel_)  # what was fitted, not a file that may change
    manifest["attributes"] = {k: getattr(model, k) for k in _SCALARS if hasattr(model, k)}
    arrays: dict[str, np.ndarray] = {}
    for key in _ARRAYS:
        value = getattr(model, key, None)
        if value is None:
            continue
        if key == "support_vectors_" and not (isinstance(value, np.ndarray) or sp.issparse(value)):
            manifest["sequences"] = [_sequence_to_json(x) for x in value]
            continue
        value = value.toarray() if sp.issparse(value) else np.asarray(value)
        if value.dtype == object:
            manifest.setdefault("object_arrays", {})[key] = value.tolist()
            continue
        arrays[key] = value
    fmap = getattr(model, "feature_map_", None)
    if fmap is not None:
        manifest["feature_map_symbols"] = list(fmap.symbols)
        arrays["feature_map_codes"] = np.asarray(fmap.codes)
    blobs = {}
    for key, value in arrays.items():
        buf = io.BytesIO()
        np.save(buf, value, allow_pickle=False)
        blobs[f"arrays/{key}.npy"] = buf.getvalue()
    manifest["arrays"] = {member: hashlib.sha256(data).hexdigest() for member, data in blobs.items()}
    try:
        raw = json.dumps(plain(manifest, "the model"), indent=1, sort_keys=True).encode("utf-8")
    except TypeError as exc:
        raise ModelFormatError(f"Cannot save the model to {str(path)!r}: {exc}") from None
    # every byte is ready before the target is touched; the rename makes the write all-or-nothing
    with atomic_write(target, "wb", encoding=None, what="model file") as fh:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(_MANIFEST, raw)
            zf.writestr(_MANIFEST_SUM, hashlib.sha256(raw).hexdigest())
            for member, data in blobs.items():
                zf.writestr(member, data)


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``metadata`` mapping a model file was saved with (checked like :func:`load_model`)."""
    return dict(_open(Path(path))[0].get("metadata") or {})


def load_model(path: str | os.PathLike) -> DualSVCBase:
    """Read a model written by :func:`save_model`; refuses foreign or corrupted files."""
    path = Path(path)
    manifest, blobs = _open(path)
    arrays = {}
    for member, data in blobs.items():
        try:
            arrays[member[len("arrays/") : -len(".npy")]] = np.load(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise ModelFormatError(
                f"{path}: {member} is not a numpy array file ({exc}): the file is corrupted."
            ) from None
    return _rebuild(manifest, arrays, path)


def _open(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    if not path.is_file():
        raise ModelFormatError(f"Model file {str(path)!r} not found (expected a file written by 'save').")
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if _MANIFEST not in names:
                raise ModelFormatError(f"{path} is a zip archive but not a ratkit model: it has no manifest.json.")
            raw = zf.read(_MANIFEST)
            manifest = _read_manifest(raw, path)
            digest = zf.read(_MANIFEST_SUM).decode("ascii", "replace").strip() if _MANIFEST_SUM in names else None
            if digest != hashlib.sha256(raw).hexdigest():
                raise ModelFormatError(
                    f"{path}: manifest.json does not match its checksum ({_MANIFEST_SUM}"
                    f"{' is missing' if digest is None else ''}): the model file was edited or is corrupted. "
                    "Save the model again."
                )
            blobs = {}
            for member, digest in manifest["arrays"].items():
                if member not in names:
                    raise ModelFormatError(f"{path}: the model is incomplete: {member} is missing.")
                data = zf.read(member)
                if hashlib.sha256(data).hexdigest() != digest:
                    raise ModelFormatError(
                        f"{path}: {member} does not match its checksum: the model file is "
                        "corrupted. "
                        "Save the model again."
                    )
                blobs[member] = data
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ModelFormatError(
            f"{path} is not a ratkit model (not a readable zip archive: {exc}); expected a file "
            "written by RationalSVC.save / LinearDCDSVC.save or 'ratkit train -o'."
        ) from None
    return manifest, blobs


def _read_manifest(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(f"{path}: manifest.json is not valid JSON ({exc}): the file is corrupted.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        got = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise ModelFormatError(f"{path} is not a ratkit model: its manifest format is {got!r}, expected {FORMAT!r}.")
    if manifest.get("version") != VERSION:
        raise ModelFormatError(
            f"{path} is a ratkit model of format version {manifest.get('version')!r}; this ratkit "
            f"reads version {VERSION} (whose manifest is checksummed). Retrain the model and save it again."
        )
    if manifest.get("estimator") not in _classes():
        raise ModelFormatError(
            f"{path}: unknown estimator {manifest.get('estimator')!r}; expected one of {', '.join(_classes())}."
        )
    if not isinstance(manifest.get("arrays"), dict) or not isinstance(manifest.get("params"), dict):
        raise ModelFormatError(f"{path}: manifest.json lacks its 'arrays' or 'params' table: the file is corrupted.")
    return manifest


def _rebuild(manifest: dict[str, Any], arrays: dict[str, np.ndarray], path: Path) -> DualSVCBase:
    cls = _classes()[manifest["estimator"]]
    params = dict(manifest["params"])
    try:
        if manifest["estimator"] == "RationalSVC":
            params["kernel"] = _kernel_from_json(manifest.get("kernel"))
        model = cls(**params)
    except (TypeError, ValueError) as exc:  # SpecError is a ValueError
        raise ModelFormatError(f"{path}: the saved kernel or parameters do not fit {cls.__name__}: {exc}") from None
    for key, value in manifest.get("attributes", {}).items():
        if key in _SCALARS:
            setattr(model, key, value)
    for key, values in manifest.get("object_arrays", {}).items():
        setattr(model, key, np.array(values, dtype=object))
    for key, value in arrays.items():
        if key in _ARRAYS:
            setattr(model, key, value)
    if "sequences" in manifest:
        model.support_vectors_ = [_sequence_from_json(x) for x in manifest["sequences"]]
    if manifest["estimator"] == "RationalSVC":
        model.kernel_ = model._resolve_kernel()
        model.feature_map_ = None
        if "feature_map_codes" in arrays:
            try:
                model.feature_map_ = FeatureMap(tuple(manifest["feature_map_symbols"]), arrays["feature_map_codes"])
            except (KeyError, TypeError, ValueError) as exc:
                raise ModelFormatError(f"{path}: the vocabulary of patterns is malformed ({exc}).") from None
        for key in ("coef_", "support_", "dual_coef_", "support_vectors_"):
            if not hasattr(model, key):
                setattr(model, key, None)
    _check_complete(model, path)
    _check_vocabulary(model, path)
    return model


def _check_vocabulary(model: DualSVCBase, path: Path) -> None:
    """The saved kernel can produce the saved vocabulary: patterns of non-zero weight, a
    spread sample of them, are in the support of its feature map (Π2(T) accepts them).

    A manifest whose kernel was changed (say n = 2 → 5 of an n-gram kernel) with the
    arrays left alone would otherwise load and score every sequence 0.
    """
    fmap = getattr(model, "feature_map_", None)
    kernel = getattr(model, "kernel_", None)
    base = unwrap(kernel)[0]
    if fmap is None or not isinstance(base, RationalKernel) or model.coef_ is None:
        return
    used = np.flatnonzero(np.any(np.asarray(model.coef_) != 0, axis=0))
    if not used.size:
        return
    pick = used[np.unique(np.linspace(0, used.size - 1, min(_SUPPORT_SAMPLE, used.size)).astype(np.int64))]
    patterns = FeatureMap(fmap.symbols, fmap.codes[pick]).patterns()
    try:
        ok = base.feature_support(patterns)
    except (RatkitError, TypeError, ValueError) as exc:
        raise ModelFormatError(
            f"{path}: the saved kernel {kernel!r} cannot read the saved vocabulary ({exc}): the manifest "
            "does not belong to these arrays."
        ) from None
    if not ok.all():
        bad = patterns[int(np.flatnonzero(~ok)[0])]
        shown = "".join(bad) if all(len(s) == 1 for s in bad) else " ".join(bad)
        raise ModelFormatError(
            f"{path}: the saved kernel {kernel!r} cannot produce the pattern {shown!r} of the saved "
            "vocabulary: the manifest does not belong to these arrays (was it edited?). Retrain and save "
            "the model again."
        )


def _check_complete(model: DualSVCBase, path: Path) -> None:
    """Every fitted attribute prediction needs is there, with consistent shapes."""
    need = ["classes_", "alpha_", "intercept_", "n_iter_"]
    explicit = getattr(model, "coef_", None) is not None
    if type(model).__name__ == "LinearDCDSVC":
        need += ["coef_", "n_features_in_"]
    elif getattr(model, "representation_", None) in ("trie", "automaton"):
        need += ["coef_"] + ([] if model.kernel_ == "linear" else ["feature_map_"])
    else:
        need += ["representation_", "support_", "dual_coef_", "support_vectors_"]
    missing = [k for k in need if getattr(model, k, None) is None]
    if missing:
        raise ModelFormatError(f"{path}: the model lacks {', '.join(missing)}: the file is incomplete.")
    n_problems = model.alpha_.shape[0] if model.alpha_.ndim == 2 else -1
    width = None
    if explicit:
        fmap = getattr(model, "feature_map_", None)
        width = fmap.n_features if fmap is not None else getattr(model, "n_features_in_", model.coef_.shape[-1])
    checks = [
        (model.intercept_.shape == (n_problems,), "intercept_", (n_problems,)),
        (not explicit or model.coef_.shape == (n_problems, width), "coef_", (n_problems, width)),
    ]
    if not explicit and getattr(model, "dual_coef_", None) is not None:
        shape = (n_problems, len(model.support_vectors_))
        checks.append((model.dual_coef_.shape == shape, "dual_coef_", shape))
    for ok, key, shape in checks:
        if not ok:
            raise ModelFormatError(
                f"{path}: {key} has shape {getattr(model, key).shape}, expected {shape}: the file is corrupted."
            )


def _kernel_from_json(spec: Any) -> Any:
    if spec is None or spec == "linear":
        return spec
    from ratkit.automata.kernels import from_spec

    return from_spec(spec)
