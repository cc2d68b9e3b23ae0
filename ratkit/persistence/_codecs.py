"""Values to tagged JSON and ``.npy`` arrays, and back: the built-in encodings and the codec registry.

A value is written as a JSON object with one tag (``{"array": "arrays/coef_.npy"}``,
``{"json": 2.0}``, …; a sequence also carries ``"tuple": true`` when it was a tuple). The
container's own encodings cover numpy arrays and scalars, sparse matrices, JSON values,
sequences of strings or tokens, lists, tuples and string-keyed mappings of any of these; every
other type registers a codec (:func:`register_codec`) in its own module, under a tag of its own.
"""

from __future__ import annotations

import builtins
import io
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import scipy.sparse as sp

from ratkit._json import plain
from ratkit.exceptions import ModelFormatError, ParameterError, ParameterTypeError

__all__ = [
    "UnknownCodecError",
    "Codec",
    "EncodeContext",
    "DecodeContext",
    "register_codec",
    "codecs",
    "BASE_VERSION",
    "VERSION",
]

T = TypeVar("T")

#: The newest version written. 5: numpy scalars; 4: graphs; 3: any registered plugin, values by codec;
#: 2: manifest.sha256 covers the manifest.
VERSION = 5
#: The version a file is written in when nothing it holds needs a newer one (a version-3 reader reads it).
BASE_VERSION = 3
_JSON_SCALARS = (type(None), bool, int, float, str, np.generic)
#: The numpy scalars written as 0-d arrays (version 5), so that they come back of their dtype.
_NUMPY_SCALARS = (np.number, np.bool_)
#: The container's own tags (and the flag ``tuple``): no codec may take them.
_BUILT_IN_TAGS = ("json", "array", "scalar", "objects", "csr", "sequences", "items", "mapping", "tuple")


class UnknownCodecError(ModelFormatError):
    """A value of a file is encoded by a codec no installed package registers: reported as it is,
    not as a corrupted file, since installing a package fixes it."""


class Writer:
    """Collects the array members of one manifest under names derived from where they are,
    and the oldest format version that holds what was encoded so far."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.version = BASE_VERSION

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


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


class EncodeContext:
    """What a codec's ``encode`` is given besides the value: where the value is in the model
    (``where``, e.g. ``"feature_map_"``), the model's class name (``owner``), and the
    container's services for the JSON body it returns."""

    def __init__(self, where: str, owner: str, out: Writer) -> None:
        self.where = where
        self.owner = owner
        self._out = out

    def array(self, key: str, value: np.ndarray) -> str:
        """Store ``value`` (booleans, numbers or fixed-width strings, never objects) as an
        ``.npy`` member; put the name returned in the body, and give it to
        :meth:`DecodeContext.array` to read the array back."""
        return self._out.add(_join(self.where, key), np.asarray(value))

    def value(self, key: str, value: Any) -> dict[str, Any]:
        """Any value a model file holds (an array, a sparse matrix, a type with a codec, …),
        encoded for the body; :meth:`DecodeContext.value` gives it back."""
        return encode(value, _join(self.where, key), self.owner, self._out)

    def json(self, value: Any) -> Any:
        """``value`` as plain JSON (numpy scalars as numbers, tuples and arrays as lists);
        ModelFormatError naming where it is when it has no JSON form."""
        return as_json(value, self.where, self.owner)

    def refuse(self, reason: str) -> ModelFormatError:
        """The error to raise when the value cannot be saved: ``Cannot save <owner>: <where> <reason>``."""
        return ModelFormatError(f"Cannot save {self.owner}: {self.where} {reason}")


class DecodeContext:
    """What a codec's ``decode`` is given besides the JSON body: where the value is
    (``where``) and the arrays of the file."""

    def __init__(self, where: str, arrays: Mapping[str, np.ndarray]) -> None:
        self.where = where
        self._arrays = arrays

    def array(self, member: Any) -> np.ndarray:
        """The array :meth:`EncodeContext.array` stored under ``member``."""
        if not isinstance(member, str) or member not in self._arrays:
            raise self.refuse(f"names the array {member!r}, which the file does not hold")
        return self._arrays[member]

    def value(self, key: str, encoded: Any) -> Any:
        """The value :meth:`EncodeContext.value` encoded."""
        return decode(encoded, _join(self.where, key), self._arrays)

    def refuse(self, reason: str) -> ModelFormatError:
        """The error for a malformed body: ``<where> <reason>`` (the loader names the file)."""
        return ModelFormatError(f"{self.where} {reason}")


@dataclass(frozen=True)
class Codec(Generic[T]):
    """How values of ``type`` are written under ``tag``; see :func:`register_codec`."""

    type: type
    tag: str
    encode: Callable[[T, EncodeContext], Any]
    decode: Callable[[Any, DecodeContext], T]
    since: int = VERSION


_by_tag: dict[str, Codec[Any]] = {}
_by_type: dict[type, Codec[Any]] = {}


def register_codec(
    type: type[T],
    tag: str,
    encode: Callable[[T, EncodeContext], Any],
    decode: Callable[[Any, DecodeContext], T],
    *,
    since: int = VERSION,
) -> None:
    """Let model files hold values of ``type``: ``encode(value, ctx)`` returns the JSON body
    written under ``tag``, and ``decode(body, ctx)`` rebuilds the value from it.

    The contract:

    - ``encode`` returns JSON (dicts with str keys, lists, str, finite numbers, bool, None).
      Arrays go in as the member names :meth:`EncodeContext.array` returns, nested values
      of any type a model file holds as :meth:`EncodeContext.value` encodes them; anything that
      cannot be saved raises ``ctx.refuse("…why…")``.
    - ``decode`` is its inverse: ``ctx.array(name)`` and ``ctx.value(key, body[key])`` read
      them back. A body it cannot use raises ``ctx.refuse(…)``, a ValueError, TypeError or
      LookupError; :func:`~ratkit.persistence.load_model` reports it as a corrupted file,
      naming the file and the attribute. ``decode`` must not read outside the model file.
    - Register in the module that defines ``type``, so that whatever imports the type can
      save it and whatever loads the plugins that use it can read it. A value is written by the
      codec of the nearest class in its MRO with one; ``type`` may also be a runtime-checkable
      protocol or an ABC, which is tried (in registration order) for values no class matched
      and no built-in encoding takes.
    - Tags are unique: a second codec for a tag, or for a type, raises
      :class:`~ratkit.exceptions.ParameterError` (registering the same codec again, e.g. on a
      module reload, is a no-op). A third party's tag should start with its distribution's name
      (``"mypkg.state"``): a file holding a tag no installed package registers is refused with a
      message naming the tag, so that it says what to install.
    - ``since``: the oldest model-file version whose readers know the tag; a file holding such
      a value is written in at least that version. Keep the default (the current version) for a
      new codec.
    """
    if not isinstance(type, builtins.type):
        raise ParameterTypeError(f"register_codec: the type must be a class. Got {type!r:.60} instead.")
    if not isinstance(tag, str) or not tag:
        raise ParameterTypeError(f"register_codec: the tag must be a non-empty str. Got {tag!r:.60} instead.")
    if not (callable(encode) and callable(decode)):
        raise ParameterTypeError(f"register_codec: encode and decode of the tag {tag!r} must be callables.")
    if tag in _BUILT_IN_TAGS:
        raise ParameterError(
            f"The codec tag {tag!r} is one of the model file's own encodings ({', '.join(_BUILT_IN_TAGS)}); "
            "choose another tag, starting with your distribution's name."
        )
    codec: Codec[Any] = Codec(type, tag, encode, decode, since)
    for taken in (_by_tag.get(tag), _by_type.get(type)):
        if taken is not None and not _same(taken, codec):
            what = f"the tag {tag!r}" if taken.tag == tag else f"the type {_name(type)}"
            raise ParameterError(
                f"Cannot register a codec for {_name(type)} under the tag {tag!r}: {what} already has the codec "
                f"of {_name(taken.type)} under the tag {taken.tag!r} (from {taken.encode.__module__}). Each tag and "
                "each type has one codec; choose another tag, starting with your distribution's name."
            )
    for taken in (_by_tag.pop(tag, None), _by_type.pop(type, None)):  # a reload replaces its own codec
        if taken is not None:
            _by_tag.pop(taken.tag, None)
            _by_type.pop(taken.type, None)
    _by_tag[tag] = codec
    _by_type[type] = codec


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _same(old: Codec[Any], new: Codec[Any]) -> bool:
    """The same codec registered again (a module reload makes new objects of the same names)."""
    return old.tag == new.tag and _name(old.type) == _name(new.type) and old.since == new.since


def codecs() -> dict[str, type]:
    """The registered codecs: tag → the type it writes."""
    return {tag: codec.type for tag, codec in _by_tag.items()}


def _codec_of(value: Any) -> Codec[Any] | None:
    for cls in builtins.type(value).__mro__:
        if cls in _by_type:
            return _by_type[cls]
    return None


def _structural_codec_of(value: Any) -> Codec[Any] | None:
    """The codec of a protocol or ABC ``value`` is an instance of (registration order)."""
    for codec in _by_tag.values():
        if isinstance(value, codec.type):
            return codec
    return None


# -- encoding ---------------------------------------------------------------------------------------


def as_json(value: Any, where: str, owner: str) -> Any:
    """``value`` as plain JSON, or ModelFormatError saying why not."""
    try:
        return plain(value, where)
    except TypeError as exc:
        raise ModelFormatError(f"Cannot save {owner}: {exc}") from None


def _is_sequence(x: Any) -> bool:
    return isinstance(x, str) or (isinstance(x, tuple) and all(isinstance(t, str) for t in x))


def _by_codec(codec: Codec[Any], value: Any, where: str, owner: str, out: Writer) -> dict[str, Any]:
    out.version = max(out.version, codec.since)
    body = codec.encode(value, EncodeContext(where, owner, out))
    return {codec.tag: as_json(body, where, owner)}  # a codec's numpy numbers or tuples, as JSON


def encode(value: Any, where: str, owner: str, out: Writer) -> dict[str, Any]:
    """One value as a tagged JSON object; its arrays go to ``out``."""
    codec = _codec_of(value)
    if codec is not None:
        return _by_codec(codec, value, where, owner, out)
    if isinstance(value, _NUMPY_SCALARS):  # as JSON, np.float32(1e8) came back a Python float
        out.version = max(out.version, 5)
        return {"scalar": out.add(where, np.asarray(value))}
    if isinstance(value, _JSON_SCALARS):
        return {"json": as_json(value, where, owner)}
    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return {"array": out.add(where, value)}
        if value.ndim == 1:  # e.g. classes_ of mixed labels: JSON values, never pickled objects
            return {"objects": as_json(value.tolist(), where, owner)}
    if sp.issparse(value):
        m = sp.csr_matrix(value)
        arrays = {key: out.add(f"{where}.{key}", getattr(m, key)) for key in ("data", "indices", "indptr")}
        return {"csr": {"shape": list(m.shape), **arrays}}
    codec = _structural_codec_of(value)  # before sequences and mappings, as the vocabulary always was
    if codec is not None:
        return _by_codec(codec, value, where, owner, out)
    if isinstance(value, (list, tuple)):
        tag = {"tuple": True} if isinstance(value, tuple) else {}
        if all(isinstance(v, _JSON_SCALARS) and not isinstance(v, _NUMPY_SCALARS) for v in value):
            return {"json": as_json(list(value), where, owner), **tag}
        if all(_is_sequence(v) for v in value):
            return {"sequences": [v if isinstance(v, str) else {"tokens": list(v)} for v in value], **tag}
        return {"items": [encode(v, f"{where}[{i}]", owner, out) for i, v in enumerate(value)], **tag}
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        return {"mapping": {k: encode(v, f"{where}.{k}", owner, out) for k, v in value.items()}}
    if isinstance(value, os.PathLike):
        return {"json": os.fspath(value)}
    raise ModelFormatError(
        f"Cannot save {owner}: {where} is a {builtins.type(value).__name__} ({value!r:.60}), which a model file "
        "cannot hold. It holds numpy arrays, sparse matrices, JSON values, sequences, registered learner or "
        f"recommender plugins (fitted or not) and the types with a codec ({', '.join(sorted(_by_tag))})."
    )


# -- decoding ---------------------------------------------------------------------------------------


def decode(enc: Any, where: str, arrays: Mapping[str, np.ndarray]) -> Any:
    """The value a tagged JSON object stands for; ModelFormatError (naming ``where``) when malformed."""
    if not isinstance(enc, dict):
        raise ModelFormatError(f"{where} is not an encoded value")
    as_tuple = enc.get("tuple") is True
    tags = [k for k in enc if k != "tuple"]
    if len(tags) != 1:
        raise ModelFormatError(f"{where} is not an encoded value (keys {sorted(enc)})")
    tag, body = tags[0], enc[tags[0]]
    ctx = DecodeContext(where, arrays)
    if tag == "json":
        return tuple(body) if as_tuple and isinstance(body, list) else body
    if tag == "array":
        return ctx.array(body)
    if tag == "scalar":
        value = ctx.array(body)
        if value.ndim != 0:
            raise ModelFormatError(f"{where} is a numpy scalar whose array has shape {value.shape}, not ()")
        return value[()]
    if tag == "objects":
        out = np.empty(len(body), dtype=object)
        for i, v in enumerate(body):
            out[i] = v
        return out
    if tag == "csr":
        data, indices, indptr = (ctx.array(body[k]) for k in ("data", "indices", "indptr"))
        return sp.csr_matrix((data, indices, indptr), shape=tuple(body["shape"]))
    if tag == "sequences":
        seqs = [x if isinstance(x, str) else tuple(x["tokens"]) for x in body]
        return tuple(seqs) if as_tuple else seqs
    if tag == "items":
        items = [decode(v, f"{where}[{i}]", arrays) for i, v in enumerate(body)]
        return tuple(items) if as_tuple else items
    if tag == "mapping":
        return {k: decode(v, f"{where}.{k}", arrays) for k, v in body.items()}
    codec = _by_tag.get(tag)
    if codec is None:
        raise UnknownCodecError(
            f"{where} is encoded by the codec {tag!r}, which no installed package registers (the codecs here: "
            f"{', '.join(sorted(_by_tag))}). Install the distribution that registers it: a third party's tag "
            "starts with its name."
        )
    return codec.decode(body, ctx)
