"""The model file of every learner and recommender: a zip of JSON and ``.npy`` arrays, no pickle.

A model file is a zip archive holding

``manifest.json``
    ``{"format": "ratkit-model", "version": 4, "kind": "learner", "plugin": "rational-svc",
    "class": ..., "params": {...}, "attributes": {...}, "metadata": {...},
    "arrays": {member: sha256}}`` — which registered plugin the model is (kind and name:
    :mod:`ratkit.plugins` finds the class again, a third party's included), its
    constructor parameters and its fitted attributes, each value encoded as below, any
    JSON metadata, and the SHA-256 of every array file;
``manifest.sha256``
    the SHA-256 of ``manifest.json``, so that an edited manifest is refused like a
    corrupted array;
``arrays/<name>.npy``
    the numpy arrays, read back with ``allow_pickle=False``.

What is saved is what the class declares: its parameters (``get_params(deep=False)``) and
its fitted attributes — every public attribute whose name ends in ``_`` that ``fit`` set
(scikit-learn's convention); a class may list in ``_fitted_attributes`` those a complete
model must have. Each value is written by the first codec that takes it: a ratkit kernel
as its spec (``to_spec(inline=True)``, read back by ``from_spec``); a vocabulary as its
state (``to_state()``, read back by ``vocabulary_from_state``); a numpy array as an
``.npy`` member (an object array of JSON values as JSON); a sparse matrix as its CSR
arrays; a numpy scalar as a 0-d ``.npy`` member (its dtype kept); a list of strings or token
tuples as JSON sequences; JSON scalars, lists and
string-keyed mappings as JSON (recursively, so a mapping may hold arrays); a
:class:`~ratkit.automata.graphs.Graph` as its CSR adjacency, its node labels and its edge
labels (one per stored entry of the adjacency, in CSR order) as JSON, and whether it has
self-loops — labels of the types JSON keeps exactly (str, int, finite float, bool, None),
anything else refused by name; a pair of graphs as a tuple of two of them; an estimator
(a parameter such as a base model, or a fitted part) as a registered learner or recommender
plugin with its own parameters and fitted attributes, recursively. Anything else
is refused with :class:`~ratkit.exceptions.ModelFormatError` naming the attribute and its
type. A random generator parameter is written as None (only a refit would draw again).

Everything is serialised in memory first, then written to a temporary file beside the
target and renamed over it: a failed save never destroys an existing model file (an OS error
while writing, e.g. a full disk, is an :class:`~ratkit.exceptions.OutputPathError`). Saving an
object that is not a registered plugin raises :class:`~ratkit.exceptions.ParameterTypeError`.

Loading refuses a path that is not a str or os.PathLike
(:class:`~ratkit.exceptions.ParameterTypeError`), a missing file
(:class:`~ratkit.exceptions.MissingDataError`) and a folder
(:class:`~ratkit.exceptions.PathIsFolderError`). It refuses, before anything is decompressed,
an archive whose member names leave the archive (absolute, or with a ``..`` part), a member
declaring more bytes than deflate can produce from its compressed size (1032:1), and members
whose declared sizes sum to more than ``max_expansion`` (default :data:`MAX_EXPANSION`, 200)
times the file's size plus 256 MiB (a zip bomb; ratkit's model files expand far less), all with
:class:`~ratkit.exceptions.ModelFormatError`; an uncompressed total whose reading would pass
:func:`ratkit.limits.max_bytes` raises :class:`~ratkit.exceptions.ResourceLimitError`. Members
are then read in chunks, never past their declared size, and one that ends short of it is
refused. An archive holding two members of one name is refused (zipfile would read the last:
an edited copy appended to a genuine file). Each array member's ``.npy`` header is read before
the array (:func:`ratkit._npy.read_npy`): a dtype other than booleans, numbers and fixed-width
strings (never objects), or a shape whose bytes are not exactly the member's bytes after the
header, is refused before anything is allocated; arrays come back in native byte order (a
file written on a big-endian machine loads). Kernel specs are built with
``from_spec(spec, files=False)``: a spec naming a file (a transducer's ``path``, or a spec that
is a file name) is refused, so a model file never reads outside itself; a transducer is kept
in the file as AT&T text. Loading refuses, with a
:class:`~ratkit.exceptions.ModelFormatError` naming the file, anything that is not such an
archive, a manifest holding a key twice (naming the key), a manifest of another format or
version, a plugin that is not installed, a manifest or arrays whose checksum does not match (a corrupted or
edited file), a file lacking a declared fitted attribute, and whatever the class's own
check of the restored state refuses (:meth:`PersistenceMixin._check_restored`: for
RationalSVC, a vocabulary of patterns the saved kernel cannot produce). Files of version 2
(written by ratkit before version 3) still load; recommender files of the former ``.npz``
format are refused with a message saying so.

A file is written in the oldest version that holds it: version 3 unless it holds a graph
(version 4 adds the graph codec) or a numpy scalar (version 5 writes it as a 0-d array, so
that it comes back of its own dtype: as JSON, ``np.float32(1e8)`` came back a Python float
and a plugin computing in float32 changed its outputs), so that an older ratkit still reads
every file it can, and refuses the others by their version number.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ratkit import limits
from ratkit._files import atomic_write, check_output_path, is_file
from ratkit._json import loads_strict, plain
from ratkit._npy import read_npy
from ratkit.exceptions import (
    MissingDataError,
    ModelFormatError,
    NotFittedError,
    ParameterTypeError,
    PathIsFolderError,
    UnknownPluginError,
)

if TYPE_CHECKING:
    from ratkit.automata.graphs import Graph

__all__ = [
    "FORMAT",
    "VERSION",
    "MAX_EXPANSION",
    "PersistenceMixin",
    "save_model",
    "load_model",
    "read_metadata",
    "fitted_attributes",
    "plugin_of",
]

FORMAT = "ratkit-model"
#: The newest version written. 5: numpy scalars; 4: graphs; 3: any registered plugin, values by codec;
#: 2: manifest.sha256 covers the manifest.
VERSION = 5
_READS = (2, 3, 4, 5)
#: The version a file holding no graph is written in (a version-3 reader reads it).
_BASE_VERSION = 3
#: The plugin kinds a model file can hold.
KINDS = ("learner", "recommender")
_MANIFEST, _MANIFEST_SUM = "manifest.json", "manifest.sha256"
_JSON_SCALARS = (type(None), bool, int, float, str, np.generic)
#: The numpy scalars written as 0-d arrays (version 5), so that they come back of their dtype.
_NUMPY_SCALARS = (np.number, np.bool_)
#: Deflate's largest possible expansion (about 1032:1): a member declaring more uncompressed
#: bytes than this times its compressed size (plus a little for tiny members) cannot be genuine.
_DEFLATE_RATIO = 1032
#: The most a model file may expand when read (``load_model``'s default ``max_expansion``): its
#: members' declared uncompressed sizes may sum to at most this multiple of the file's size, plus
#: :data:`_EXPANSION_FLOOR` bytes. ratkit's model files hold numbers, JSON and sequences, which
#: expand far less; a file declaring more is a corrupted file or a zip bomb, refused before
#: anything is decompressed.
MAX_EXPANSION = 200
_EXPANSION_FLOOR = 2**28  # 256 MiB: a small file of mostly zeros loads whatever its ratio
#: Members are decompressed in chunks of this many bytes, never past their declared size.
_CHUNK = 2**20
_GENERATORS = (np.random.RandomState, np.random.Generator)


class PersistenceMixin:
    """``save(path)`` for an estimator, and the two hooks of its model file.

    Any scikit-learn-style estimator registered as a ``learner`` plugin can be written by
    :func:`save_model` and read by :func:`load_model`; this mixin gives it the ``save``
    method and declares what the file format asks of a class.
    """

    #: Fitted attributes a complete model must have: saving an estimator without one says it
    #: is not fitted, loading a file without one says it is incomplete. Every other public
    #: ``name_`` attribute present after ``fit`` is saved too.
    _fitted_attributes: ClassVar[tuple[str, ...]] = ()

    def save(self, path: str | os.PathLike, metadata: Mapping[str, Any] | None = None) -> Path:
        """Write the fitted model to ``path`` (a zip of JSON and ``.npy`` arrays, no pickle);
        ``ratkit.load_model(path)`` reads it back. Returns the path written."""
        return save_model(self, path, metadata)

    def _check_restored(self) -> None:
        """Raise ModelFormatError when the state read from a file is inconsistent (arrays of
        the wrong shapes, a kernel that does not fit the vocabulary); :func:`load_model`
        prefixes the file's name. The default checks nothing."""


# -- what a class declares ---------------------------------------------------------------------


def plugin_of(model: Any) -> tuple[str, str]:
    """(kind, name) under which the model's class is registered as a learner or recommender plugin."""
    from ratkit import plugins

    cls = type(model)
    for kind in KINDS:
        for name in plugins.available(kind):
            if plugins.get(kind, name) is cls:
                return kind, name
    raise ParameterTypeError(
        f"Cannot save {cls.__name__}: it is not a registered learner or recommender plugin, so a model "
        "file could not name the class to rebuild. Register it with @ratkit.plugins.register('learner', "
        "NAME) or an entry point in the group ratkit.learners (ratkit.recsys for a recommender)."
    )


def fitted_attributes(model: Any) -> list[str]:
    """The fitted attributes a model file holds: the public ``name_`` attributes ``fit`` set.

    Raises NotFittedError when one of the class's declared ``_fitted_attributes`` is missing.
    """
    names = sorted(k for k in vars(model) if k.endswith("_") and not k.startswith("_"))
    missing = [k for k in _declared(type(model)) if k not in names]
    if missing or not names:
        raise NotFittedError(
            f"This {type(model).__name__} instance is not fitted yet (it lacks "
            f"{', '.join(missing) or 'any fitted attribute'}). Call 'fit' before saving it."
        )
    return names


def _declared(cls: type) -> tuple[str, ...]:
    """The class's ``_fitted_attributes`` (a declaration, not a method: read as data)."""
    declared = getattr(cls, "_fitted_attributes", ())
    return tuple(declared) if isinstance(declared, (tuple, list)) else ()


# -- values to JSON and arrays -----------------------------------------------------------------


class _Writer:
    """Collects the array members of a manifest under names derived from where they are."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        #: The oldest format version that holds what was encoded so far.
        self.version = _BASE_VERSION

    def add(self, where: str, value: np.ndarray) -> str:
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", where).strip(".") or "array"
        member, k = f"arrays/{stem}.npy", 1
        while member in self.blobs:
            k += 1
            member = f"arrays/{stem}.{k}.npy"
        buf = io.BytesIO()
        np.save(buf, value, allow_pickle=False)
        self.blobs[member] = buf.getvalue()
        return member


def _is_sequence(x: Any) -> bool:
    return isinstance(x, str) or (isinstance(x, tuple) and all(isinstance(t, str) for t in x))


def _encode(value: Any, where: str, owner: str, out: _Writer) -> dict[str, Any]:
    """One value as a tagged JSON object (see the module docstring); arrays go to ``out``."""
    from ratkit.automata.graphs import Graph
    from ratkit.automata.kernels import Kernel, Vocabulary

    if isinstance(value, Kernel):
        try:
            return {"kernel": plain(value.to_spec(inline=True), where)}
        except (TypeError, ValueError) as exc:  # SpecError is a ValueError
            raise ModelFormatError(
                f"Cannot save {owner}: {where} is the kernel {value!r}, which has no spec ({exc}). Build the "
                "kernel from a spec (a family registered as a kernel plugin) to save the model."
            ) from None
    if isinstance(value, _NUMPY_SCALARS):  # as JSON, np.float32(1e8) came back a Python float
        out.version = max(out.version, 5)
        return {"scalar": out.add(where, np.asarray(value))}
    if isinstance(value, _JSON_SCALARS):
        return {"json": _plain(value, where, owner)}
    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return {"array": out.add(where, value)}
        if value.ndim == 1:  # e.g. classes_ of mixed labels: JSON values, never pickled objects
            return {"objects": _plain(value.tolist(), where, owner)}
    if sp.issparse(value):
        m = sp.csr_matrix(value)
        return {
            "csr": {
                "shape": list(m.shape),
                **{key: out.add(f"{where}.{key}", getattr(m, key)) for key in ("data", "indices", "indptr")},
            }
        }
    if isinstance(value, Vocabulary):
        meta, arrays = value.to_state()
        return {
            "vocabulary": {
                "state": _plain(meta, where, owner),
                "arrays": {key: out.add(f"{where}.{key}", np.asarray(a)) for key, a in arrays.items()},
            }
        }
    if isinstance(value, (list, tuple)):
        tag = {"tuple": True} if isinstance(value, tuple) else {}
        if all(isinstance(v, _JSON_SCALARS) and not isinstance(v, _NUMPY_SCALARS) for v in value):
            return {"json": _plain(list(value), where, owner), **tag}
        if all(_is_sequence(v) for v in value):
            return {"sequences": [v if isinstance(v, str) else {"tokens": list(v)} for v in value], **tag}
        return {"items": [_encode(v, f"{where}[{i}]", owner, out) for i, v in enumerate(value)], **tag}
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        return {"mapping": {k: _encode(v, f"{where}.{k}", owner, out) for k, v in value.items()}}
    if isinstance(value, os.PathLike):
        return {"json": os.fspath(value)}
    if isinstance(value, Graph):
        out.version = max(out.version, 4)
        return {"graph": _graph_state(value, where, owner, out)}
    if isinstance(value, BaseEstimator):
        return {"estimator": _estimator_state(value, f"{where}.", owner, out, fitted=None)}
    raise ModelFormatError(
        f"Cannot save {owner}: {where} is a {type(value).__name__} ({value!r:.60}), which a model file cannot "
        "hold. It holds numpy arrays, sparse matrices, JSON values, sequences, ratkit kernels (as specs), "
        "vocabularies and registered learner or recommender plugins (fitted or not)."
    )


def _plain(value: Any, where: str, owner: str) -> Any:
    try:
        return plain(value, where)
    except TypeError as exc:
        raise ModelFormatError(f"Cannot save {owner}: {exc}") from None


def _decode(enc: Any, where: str, arrays: Mapping[str, np.ndarray]) -> Any:
    """The value a tagged JSON object stands for; ModelFormatError (naming ``where``) when malformed."""
    if not isinstance(enc, dict):
        raise ModelFormatError(f"{where} is not an encoded value")
    as_tuple = enc.get("tuple") is True
    tags = [k for k in enc if k != "tuple"]
    if len(tags) != 1:
        raise ModelFormatError(f"{where} is not an encoded value (keys {sorted(enc)})")
    tag, body = tags[0], enc[tags[0]]

    def member(name: Any) -> np.ndarray:
        if name not in arrays:
            raise ModelFormatError(f"{where} names the array {name!r}, which the file does not hold")
        return arrays[name]

    if tag == "json":
        return tuple(body) if as_tuple and isinstance(body, list) else body
    if tag == "array":
        return member(body)
    if tag == "scalar":
        value = member(body)
        if value.ndim != 0:
            raise ModelFormatError(f"{where} is a numpy scalar whose array has shape {value.shape}, not ()")
        return value[()]
    if tag == "objects":
        out = np.empty(len(body), dtype=object)
        for i, v in enumerate(body):
            out[i] = v
        return out
    if tag == "csr":
        data, indices, indptr = (member(body[k]) for k in ("data", "indices", "indptr"))
        return sp.csr_matrix((data, indices, indptr), shape=tuple(body["shape"]))
    if tag == "vocabulary":
        from ratkit.automata.kernels import vocabulary_from_state

        return vocabulary_from_state(body["state"], {k: member(v) for k, v in body["arrays"].items()})
    if tag == "kernel":
        from ratkit.automata.kernels import from_spec

        return from_spec(body, files=False)  # a model file never reads outside itself
    if tag == "sequences":
        seqs = [x if isinstance(x, str) else tuple(x["tokens"]) for x in body]
        return tuple(seqs) if as_tuple else seqs
    if tag == "items":
        items = [_decode(v, f"{where}[{i}]", arrays) for i, v in enumerate(body)]
        return tuple(items) if as_tuple else items
    if tag == "mapping":
        return {k: _decode(v, f"{where}.{k}", arrays) for k, v in body.items()}
    if tag == "estimator":
        return _rebuild_estimator(body, f"{where}.", arrays)
    if tag == "graph":
        return _graph_from_state(body, where, arrays)
    raise ModelFormatError(f"{where} has the unknown encoding {tag!r}")


# -- graphs ----------------------------------------------------------------------------------------

#: The label types JSON gives back as themselves (a float only when finite).
_LABEL_TYPES = (str, int, float, bool, type(None))


def _label(value: Any, what: str, where: str, owner: str) -> Any:
    """A graph label as JSON, or ModelFormatError when JSON would not give back the same value
    of the same type (a tuple would come back a list, a NaN not at all)."""
    if type(value) in _LABEL_TYPES and not (isinstance(value, float) and not math.isfinite(value)):
        return value
    raise ModelFormatError(
        f"Cannot save {owner}: {where} has {what.format(f'{value!r:.60} (a {type(value).__name__})')}, which a "
        "model file cannot keep exactly: graph labels are saved as JSON, which gives back str, int, finite "
        "float, bool and None labels as they were. Map the labels to one of those types (e.g. a str) before "
        "fitting, so that the model is saved with the labels it was trained on."
    )


def _graph_state(g: Graph, where: str, owner: str, out: _Writer) -> dict[str, Any]:
    """{adjacency (CSR), node_labels, edge_labels (in the CSR order of the adjacency), self_loops}."""
    a = g.adjacency  # float64 CSR with sorted indices and no stored zeros (Graph's invariant)
    node_labels = g.node_labels
    edge_labels = g.edge_labels
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    return {
        "adjacency": _encode(a, f"{where}.adjacency", owner, out),
        "node_labels": None
        if node_labels is None
        else [_label(v, f"the node label {{}} of node {k}", where, owner) for k, v in enumerate(node_labels)],
        "edge_labels": None
        if edge_labels is None
        else [
            _label(edge_labels[(i, j)], f"the edge label {{}} of the edge {i} → {j}", where, owner)
            for i, j in zip(rows.tolist(), a.indices.tolist(), strict=True)
        ],
        "self_loops": bool(a.diagonal().any()),
    }


def _graph_from_state(body: Any, where: str, arrays: Mapping[str, np.ndarray]) -> Graph:
    """The Graph :func:`_graph_state` described; a Graph that refuses it (e.g. node labels of the
    wrong length) raises its own ValueError, which the caller reports as a corrupted file."""
    from ratkit.automata.graphs import Graph

    if not isinstance(body, dict) or set(body) != {"adjacency", "node_labels", "edge_labels", "self_loops"}:
        raise ModelFormatError(f"{where} is not an encoded graph")
    a = _decode(body["adjacency"], f"{where}.adjacency", arrays)
    if not sp.issparse(a):
        raise ModelFormatError(f"{where} is not an encoded graph: its adjacency is not a sparse matrix")
    a = sp.csr_matrix(a)
    node_labels, edge_labels = body["node_labels"], body["edge_labels"]
    if node_labels is not None and not isinstance(node_labels, list):
        raise ModelFormatError(f"{where} is not an encoded graph: its node labels are not a list")
    labels = None
    if edge_labels is not None:
        if not isinstance(edge_labels, list) or len(edge_labels) != a.nnz:
            got = len(edge_labels) if isinstance(edge_labels, list) else type(edge_labels).__name__
            raise ModelFormatError(f"{where} has {got} edge labels for {a.nnz} edges: the file is corrupted")
        rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
        labels = dict(zip(zip(rows.tolist(), a.indices.tolist(), strict=True), edge_labels, strict=True))
    return Graph(a, node_labels, labels, self_loops="allow" if body["self_loops"] is True else "error")


# -- estimators: the model itself, and estimators it holds ----------------------------------------


def _estimator_state(model: Any, where: str, owner: str, out: _Writer, fitted: bool | None) -> dict[str, Any]:
    """{kind, plugin, class, params, attributes} of a registered learner or recommender; its
    fitted attributes when ``fitted`` (required), or whatever it has when None (an estimator
    held by another: an unfitted parameter, or a fitted part)."""
    cls = type(model)
    kind, name = plugin_of(model)
    params = {}
    for key, value in model.get_params(deep=False).items():
        if isinstance(value, _GENERATORS):
            value = None  # a generator object is not data; the fit it made is saved anyway
        params[key] = _encode(value, f"{where}params.{key}", owner, out)
    if fitted or (fitted is None and _public_fitted(model)):
        attributes = fitted_attributes(model)
    else:
        attributes = []
    return {
        "kind": kind,
        "plugin": name,
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "params": params,
        "attributes": {key: _encode(getattr(model, key), f"{where}{key}", owner, out) for key in attributes},
    }


def _public_fitted(model: Any) -> list[str]:
    return [k for k in vars(model) if k.endswith("_") and not k.startswith("_")]


def _rebuild_estimator(state: Mapping[str, Any], where: str, arrays: Mapping[str, np.ndarray]) -> Any:
    """The estimator :func:`_estimator_state` described (ModelFormatError naming ``where``)."""
    if not isinstance(state, Mapping) or not all(isinstance(state.get(k), dict) for k in ("params", "attributes")):
        raise ModelFormatError(f"{where or 'the model'} is not an encoded estimator")
    cls = _plugin_class(state, where.rstrip(".") or "the model")
    what = "parameters"
    try:
        params = {key: _decode(enc, f"{where}params.{key}", arrays) for key, enc in state["params"].items()}
        model = cls(**params)
        for key, enc in state["attributes"].items():
            what = f"fitted attribute {where}{key!r}"
            if not (isinstance(key, str) and key.endswith("_") and not key.startswith("_")):
                raise ModelFormatError(f"{key!r} is not the name of a fitted attribute")
            setattr(model, key, _decode(enc, f"{where}{key}", arrays))
    except (TypeError, ValueError, LookupError, AttributeError) as exc:  # SpecError is a ValueError
        raise ModelFormatError(f"the saved {what} cannot be restored for {cls.__name__}: {exc}") from None
    if state["attributes"]:
        missing = [k for k in _declared(cls) if k not in state["attributes"]]
        if missing:
            raise ModelFormatError(f"{where or 'the model '}lacks {', '.join(missing)}: the file is incomplete")
        from ratkit.fitted import check_fitted

        check_fitted(model)  # every attribute against the class's _fitted_schema (ModelFormatError)
        if isinstance(model, PersistenceMixin):
            model._check_restored()
    return model


# -- saving ----------------------------------------------------------------------------------------


def save_model(model: Any, path: str | os.PathLike, metadata: Mapping[str, Any] | None = None) -> Path:
    """Write a fitted learner or recommender to ``path`` (see the module docstring).

    The model's class must be registered as a ``learner`` or ``recommender`` plugin.
    ``metadata`` is any JSON-serialisable mapping stored alongside (e.g. how the inputs
    were prepared); :func:`read_metadata` returns it. Returns the path written.
    """
    target = check_output_path(path, "model file")
    owner = type(model).__name__
    out = _Writer()
    manifest: dict[str, Any] = {
        "format": FORMAT,
        **_estimator_state(model, "", owner, out, fitted=True),
        "metadata": _plain(dict(metadata or {}), "the model's metadata", owner),
    }
    manifest["version"] = out.version
    manifest["arrays"] = {member: hashlib.sha256(data).hexdigest() for member, data in out.blobs.items()}
    try:
        raw = json.dumps(manifest, indent=1, sort_keys=True, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"Cannot save the model to {str(path)!r}: {exc}") from None
    # every byte is ready before the target is touched; the rename makes the write all-or-nothing,
    # and a failed write (a full disk, a folder made read-only meanwhile) is atomic_write's one
    # error: "Cannot write the model file '…': <reason>. Any file that was there is unchanged."
    with atomic_write(target, "wb", encoding=None, what="model file") as fh:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(_MANIFEST, raw)
            zf.writestr(_MANIFEST_SUM, hashlib.sha256(raw).hexdigest())
            for member, data in out.blobs.items():
                zf.writestr(member, data)
    return target


# -- loading ---------------------------------------------------------------------------------------


def read_metadata(path: str | os.PathLike, *, max_expansion: float = MAX_EXPANSION) -> dict[str, Any]:
    """The ``metadata`` mapping a model file was saved with (checked like :func:`load_model`)."""
    expansion = _expansion(max_expansion, "read_metadata")
    return dict(_open(_model_path(path, "read_metadata"), expansion)[0].get("metadata") or {})


def load_model(path: str | os.PathLike, *, max_expansion: float = MAX_EXPANSION) -> Any:
    """Rebuild the learner or recommender a model file holds; refuses foreign or corrupted files.

    The class is the plugin the manifest names (built-in or third-party, found through
    :mod:`ratkit.plugins`); nothing in the file is executed or unpickled. A file whose members
    declare more than ``max_expansion`` times its size (plus 256 MiB) uncompressed is refused as
    a zip bomb before anything is decompressed; raise it for a genuine file that compresses that
    well (e.g. a model whose arrays are mostly zeros).
    """
    expansion = _expansion(max_expansion, "load_model")
    path = _model_path(path, "load_model")
    manifest, blobs = _open(path, expansion)
    # each header is checked against its member's bytes before anything is allocated
    arrays = {member: read_npy(data, f"{path}: {member}", error=ModelFormatError) for member, data in blobs.items()}
    if manifest["version"] == 2:
        manifest = _from_version_2(manifest, path)
    return _rebuild(manifest, arrays, path)


def _expansion(value: Any, owner: str) -> float:
    from ratkit._validation import check_real

    return check_real(value, "max_expansion", owner, low=1.0)


def _model_path(path: Any, owner: str) -> Path:
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


def _open(path: Path, expansion: float = MAX_EXPANSION) -> tuple[dict[str, Any], dict[str, bytes]]:
    try:
        with zipfile.ZipFile(path) as zf:
            _check_members(zf, path, expansion)
            names = set(zf.namelist())
            if _MANIFEST not in names:
                if "__ratkit_model__.npy" in names:
                    raise ModelFormatError(
                        f"{path} is a recommender file of the former .npz format (Recommender.save before "
                        "model-file version 3), which this ratkit no longer reads. Fit the model "
                        "again and save it."
                    )
                raise ModelFormatError(f"{path} is a zip archive but not a ratkit model: it has no manifest.json.")
            raw = _read_member(zf, _MANIFEST, path)
            manifest = _read_manifest(raw, path)
            digest = (
                _read_member(zf, _MANIFEST_SUM, path).decode("ascii", "replace").strip()
                if _MANIFEST_SUM in names
                else None
            )
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


def _read_manifest(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        manifest = loads_strict(raw.decode("utf-8"), f"{path}: {_MANIFEST}", error=ModelFormatError)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(f"{path}: manifest.json is not valid JSON ({exc}): the file is corrupted.") from None
    except RecursionError:
        raise ModelFormatError(f"{path}: manifest.json nests too deep to read: the file is corrupted.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        got = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise ModelFormatError(f"{path} is not a ratkit model: its manifest format is {got!r}, expected {FORMAT!r}.")
    version = manifest.get("version")
    if version not in _READS:
        raise ModelFormatError(
            f"{path} is a ratkit model of format version {version!r}; this ratkit reads versions "
            f"{', '.join(map(str, _READS))}. Retrain the model with this ratkit and save it again."
        )
    if not isinstance(manifest.get("arrays"), dict) or not isinstance(manifest.get("params"), dict):
        raise ModelFormatError(f"{path}: manifest.json lacks its 'arrays' or 'params' table: the file is corrupted.")
    if version >= 3:
        if not isinstance(manifest.get("attributes"), dict):
            raise ModelFormatError(f"{path}: manifest.json lacks its 'attributes' table: the file is corrupted.")
        _plugin_class(manifest, path)  # an unknown plugin is refused before any array is read
    return manifest


def _plugin_class(manifest: Mapping[str, Any], path: Path) -> type:
    from ratkit import plugins

    kind, name = manifest.get("kind"), manifest.get("plugin")
    if kind not in KINDS or not isinstance(name, str):
        raise ModelFormatError(
            f"{path}: the manifest names the plugin {name!r} of kind {kind!r}; a model file holds a "
            f"{' or '.join(KINDS)} plugin."
        )
    try:
        return plugins.get(kind, name)
    except UnknownPluginError as exc:
        raise ModelFormatError(
            f"{path} holds a model of the {kind} plugin {name!r}, which is not installed here ({exc}) "
            "Install the distribution that provides it."
        ) from None


def _rebuild(manifest: dict[str, Any], arrays: Mapping[str, np.ndarray], path: Path) -> Any:
    cls = _plugin_class(manifest, path)
    missing = [k for k in _declared(cls) if k not in manifest["attributes"]]
    if missing or not manifest["attributes"]:
        raise ModelFormatError(
            f"{path}: the model lacks {', '.join(missing) or 'every fitted attribute'}: the file is incomplete."
        )
    try:
        return _rebuild_estimator(manifest, "", arrays)
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


# -- the former format ---------------------------------------------------------------------------

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
