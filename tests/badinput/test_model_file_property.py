"""A model file is untrusted input (issue 35): a property test over edited genuine files.

Hypothesis edits genuine model files (a RationalSVC on a transducer kernel, a LinearDCDSVC, a
PureSVD) as an attacker would: the ``.npy`` headers and bodies of the array members, members
appended twice, dropped or added, the manifest's tables, encodings and kernel specs (a file
path planted where the transducer's AT&T text was), keys written twice, and — usually — both
checksums recomputed, so that the edit gets past the SHA-256 checks. For every edited file:

* ``load_model`` either raises a :class:`~ratkit.exceptions.RatkitError`, or returns a model
  that predicts exactly like the original (an edit that changes nothing the model computes
  with: a byte-swapped or Fortran-ordered array, an added member, a valid version number);
* memory traced while loading and predicting stays under ``max_bytes``, set to a small budget
  (the edits declare arrays of up to 10¹² elements);
* no file is opened but the model file (an audit hook on ``open`` events; the planted paths
  name genuine files beside the model, whose reading would even give the same model).

:func:`test_container_edits` covers the container (ratkit/persistence/_container.py, ratkit/_npy.py).
:func:`test_fitted_attribute_edits` edits the values of fitted attributes into ones no ``fit``
produces (NaN, complex or string arrays, a label twice, an int written as a string, arrays of
another shape): refusing those is the per-estimator validation of fitted attributes.
"""

from __future__ import annotations

import copy
import io
import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ratkit import limits
from ratkit.automata import kernels, to_att
from ratkit.exceptions import RatkitError
from ratkit.learners import LinearDCDSVC, RationalSVC, load_model
from ratkit.recsys import PureSVD
from tests.badinput import _model_files as mf

pytestmark = pytest.mark.slow

#: The memory a load and a prediction may trace (the genuine files need well under 1 MiB).
BUDGET = 4 * 2**20

_XS = ["ab", "ba", "aab", "bba", "abab", "bbb", "aaa", "baba", "b", "abba"]
_YS = [1, 0, 1, 0, 1, 0, 1, 0, 0, 1]
_VECTORS = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0], [1.0, 1.0], [-1.0, 3.0]])


def _rational_outputs(model: Any) -> list[np.ndarray]:
    return [np.asarray(model.predict(_XS)), np.asarray(model.decision_function(_XS))]


def _linear_outputs(model: Any) -> list[np.ndarray]:
    return [np.asarray(model.predict(_VECTORS)), np.asarray(model.decision_function(_VECTORS))]


def _recommender_outputs(model: Any) -> list[np.ndarray]:
    users = np.arange(20)
    ids, scores = model.recommend(users, sp.csr_matrix((20, 12)), N=5)
    return [np.asarray(ids), np.asarray(scores), np.asarray(model.score(users, users % 12))]


_OUTPUTS = {"rational": _rational_outputs, "linear": _linear_outputs, "puresvd": _recommender_outputs}


class _Genuine:
    """A genuine model file's members and the outputs of the model it holds."""

    def __init__(self, name: str, path: Path) -> None:
        self.name, self.path = name, path
        self.manifest = mf.manifest_of(path)
        self.arrays = mf.arrays_of(path)
        self.outputs = _OUTPUTS[name](load_model(path))

    def __repr__(self) -> str:
        return f"<genuine {self.name} file>"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The genuine files, the folder edited files are written to, and planted files outside it."""
    root = tmp_path_factory.mktemp("property35")
    outside, inside = root / "outside", root / "inside"
    outside.mkdir()
    inside.mkdir()
    fst = outside / "bigram.att"
    fst.write_text(to_att(kernels.ngram(2).factor("ab")))
    (outside / "spec.json").write_text(json.dumps({"family": "ngram", "n": 2}))
    rng = np.random.default_rng(0)
    user_items = sp.csr_matrix((rng.random((20, 12)) < 0.3).astype(float))
    models = {
        "rational": RationalSVC(kernels.from_transducer(str(fst)), random_state=0).fit(_XS, _YS),
        "linear": LinearDCDSVC(random_state=0).fit(_VECTORS, [0, 1, 0, 1, 1, 0]),
        "puresvd": PureSVD(n_factors=3).fit(user_items),
    }
    genuine = {name: _Genuine(name, model.save(root / f"{name}.zip")) for name, model in models.items()}
    for g in genuine.values():  # warm up: every lazy import is done before opens are recorded
        _check(g, g.path, outside)
    return {"genuine": genuine, "inside": inside, "outside": outside}


# -- edits ------------------------------------------------------------------------------------------
# An edit is a tuple (kind, arguments...) so that Hypothesis prints and shrinks it readably; _apply
# performs it on a mutable file state. Members and manifest nodes are chosen by index modulo
# the number there is, so one strategy serves every genuine file.

_HUGE = [10**10, 120_000_000, 2**40, 10**12, 2**31, 2**63 // 8]
_SHAPE = st.lists(st.one_of(st.integers(0, 12), st.sampled_from(_HUGE)), max_size=3).map(tuple)
#: dtypes no model array may have (objects, records, dates, raw bytes) and ones of other item sizes
_DESCRS = ["|O", "<M8[s]", "|V8", [("a", "<f8")], "<f4", "<c16", "|S3", "<U1", "<i2", "|b1", ">f2", "<U0"]

_container_edit = st.one_of(
    st.tuples(st.just("shape"), st.integers(0, 9), _SHAPE),
    st.tuples(st.just("descr"), st.integers(0, 9), st.sampled_from(range(len(_DESCRS)))),
    st.tuples(st.just("body"), st.integers(0, 9), st.one_of(st.integers(-64, -1), st.integers(1, 64))),
    st.tuples(st.just("magic"), st.integers(0, 9), st.binary(min_size=1, max_size=10)),
    st.tuples(st.just("byteswap"), st.integers(0, 9)),
    st.tuples(st.just("fortran"), st.integers(0, 9)),
    st.tuples(st.just("append"), st.integers(0, 12), st.booleans()),
    st.tuples(st.just("drop"), st.integers(0, 9)),
    st.tuples(st.just("extra"), st.sampled_from(["notes.txt", "arrays/extra.npy", "manifest.json.bak"])),
    st.tuples(st.just("dupkey"), st.integers(0, 10**6)),
    st.tuples(
        st.just("table"),
        st.sampled_from(["format", "version", "kind", "plugin", "arrays", "params", "attributes", "metadata", "class"]),
        st.one_of(
            st.none(),
            st.integers(-3, 9),
            st.text(max_size=8),
            st.lists(st.integers(), max_size=2),
            st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        ),
    ),
    st.tuples(st.just("tag"), st.integers(0, 10**6), st.sampled_from(["unknown", "two", "not-a-dict", "empty"])),
    st.tuples(st.just("plant"), st.sampled_from(["path", "nested", "list", "spec-file", "array-name"])),
)

_attribute_edit = st.one_of(
    st.tuples(
        st.just("nonfinite"),
        st.integers(0, 9),
        st.integers(0, 10**6),
        st.sampled_from([float("nan"), float("inf"), -float("inf")]),
    ),
    st.tuples(st.just("cast"), st.integers(0, 9), st.sampled_from(["complex128", "<U8", "|S8", "bool"])),
    st.tuples(st.just("reshape"), st.integers(0, 9), st.sampled_from(["column", "row", "flat"])),
    st.tuples(st.just("swap"), st.integers(0, 9), st.integers(0, 9)),
    st.tuples(st.just("labels"), st.sampled_from([[1, 1], [0, 1, 2], [0], []])),
    st.tuples(st.just("retype"), st.integers(0, 10**6), st.sampled_from(["string", "null", "list", "float", "bool"])),
)


def _member(state: dict[str, Any], index: int) -> str | None:
    names = sorted(state["arrays"])
    return names[index % len(names)] if names else None


def _encodings(node: Any, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every encoded value (a dict with one tag) in the params and attributes tables, in order."""
    if isinstance(node, dict):
        for value in node.values():
            if isinstance(value, dict) and len(value) >= 1 and next(iter(value)) in _TAGS:
                out.append(value)
            _encodings(value, out)
    elif isinstance(node, list):
        for value in node:
            _encodings(value, out)
    return out


_TAGS = {
    "json",
    "array",
    "scalar",
    "objects",
    "csr",
    "vocabulary",
    "kernel",
    "sequences",
    "items",
    "mapping",
    "estimator",
    "graph",
}


def _objects(node: Any, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        out.append(node)
        for value in node.values():
            _objects(value, out)
    elif isinstance(node, list):
        for value in node:
            _objects(value, out)
    return out


def _parts(state: dict[str, Any], member: str) -> tuple[dict[str, Any], bytes] | None:
    """(header, body) of a member, None when an earlier edit left no header numpy reads."""
    try:
        return mf.npy_parts(state["arrays"][member])
    except Exception:
        return None


def _rewrite_array(state: dict[str, Any], member: str, change) -> None:
    parts = _parts(state, member)
    if parts is not None:
        state["arrays"][member] = change(*parts)


def _plant(state: dict[str, Any], how: str, outside: Path) -> None:
    fst, spec_file = str(outside / "bigram.att"), str(outside / "spec.json")
    transducer = {"family": "transducer", "path": fst, "pds": True, "semiring": "probability"}
    spec: Any = {
        "path": transducer,
        "nested": {"family": "cosine", "kernel": transducer},
        "list": {"family": "sum", "kernels": [transducer, {"family": "ngram", "n": 1}]},
        "spec-file": spec_file,
    }.get(how)
    manifest = state["manifest"]
    if how == "array-name":
        key = next(iter(sorted(state["arrays"])), None)
        for enc in _encodings(manifest, []):
            if enc.get("array") == key:
                enc["array"] = str(outside / "x.npy")
        return
    for table, key in (("params", "kernel"), ("attributes", "kernel_")):
        if isinstance(manifest.get(table), dict) and key in manifest[table]:
            manifest[table][key] = {"kernel": spec}


def _apply(state: dict[str, Any], edit: tuple, outside: Path) -> None:
    kind, *args = edit
    manifest = state["manifest"]
    member = _member(state, args[0]) if args and isinstance(args[0], int) else None
    if kind == "shape" and member and (parts := _parts(state, member)):
        if np.prod(args[1], dtype=object) != np.prod(parts[0]["shape"], dtype=object):
            _rewrite_array(state, member, lambda h, b: mf.npy_with_header({**h, "shape": args[1]}, b))
    elif kind == "descr" and member and (parts := _parts(state, member)):
        descr = _DESCRS[args[1]]
        own = np.dtype(parts[0]["descr"])
        new = np.dtype(descr) if descr != "<U0" else np.dtype("<U")
        if new.itemsize != own.itemsize or new.kind in "OMV" or new.fields:
            _rewrite_array(state, member, lambda h, b: mf.npy_with_header({**h, "descr": descr}, b))
    elif kind == "body" and member:
        n = args[1]
        _rewrite_array(state, member, lambda h, b: mf.npy_with_header(h, b + b"\x7f" * n if n > 0 else b[:n]))
    elif kind == "magic" and member:
        data = state["arrays"][member]
        state["arrays"][member] = args[1] + data[len(args[1]) :] if data[: len(args[1])] != args[1] else data
    elif kind in ("byteswap", "fortran") and member and state["arrays"][member] != state["genuine_arrays"].get(member):
        return  # only a genuine member is rewritten value for value
    elif kind == "byteswap" and member:
        array = np.load(io.BytesIO(state["arrays"][member]))
        state["arrays"][member] = mf.npy_bytes(array.astype(array.dtype.newbyteorder("S")))
    elif kind == "fortran" and member:
        array = np.load(io.BytesIO(state["arrays"][member]))
        state["arrays"][member] = mf.npy_bytes(np.asfortranarray(array))
    elif kind == "append":
        names = ["manifest.json", "manifest.sha256", *sorted(state["arrays"])]
        state["append"].append((names[args[0] % len(names)], args[1]))
    elif kind == "drop" and member:
        del state["arrays"][member]
    elif kind == "extra":
        state["extra"].append(args[0])
    elif kind == "dupkey":
        objects = [o for o in _objects(manifest, []) if o]
        state["dupkey"] = objects[args[0] % len(objects)] if objects else None
    elif kind == "table":
        if manifest.get(args[0]) != args[1]:
            manifest[args[0]] = args[1]
    elif kind == "tag":
        encs = _encodings(manifest, [])
        if encs:
            enc = encs[args[0] % len(encs)]
            tag = next(iter(enc))
            if args[1] == "unknown":
                enc["pickle"] = enc.pop(tag)
            elif args[1] == "two":
                enc["json" if tag != "json" else "array"] = None
            elif args[1] == "empty":
                enc.clear()
            else:
                enc[tag] = {"not": "this"} if tag in ("json", "array", "kernel") else "text"
                if tag == "json":
                    enc.pop(tag)
                    enc["sequences"] = 5
    elif kind == "plant":
        _plant(state, args[0], outside)
    else:
        _apply_attribute(state, edit)


def _apply_attribute(state: dict[str, Any], edit: tuple) -> None:
    kind, *args = edit
    manifest = state["manifest"]
    member = _member(state, args[0]) if args and isinstance(args[0], int) else None
    if kind in ("nonfinite", "cast", "reshape") and member:
        array = np.load(io.BytesIO(state["arrays"][member]))
        if kind == "nonfinite" and array.dtype.kind == "f" and array.size:
            array = array.copy()
            array.flat[args[1] % array.size] = args[2]
        elif kind == "cast" and array.size:
            if member.endswith("/classes_.npy") and args[1] != "complex128":
                # labels [0, 1] spelled "0"/"1" (or False/True) are a valid model of other labels,
                # which predicts those labels: a relabelling, not an edit any check could refuse
                return
            array = array.astype(args[1]) if array.dtype.kind in "fiub" else array
        elif kind == "reshape" and array.size > 1:
            array = {"column": array.reshape(-1, 1), "row": array.reshape(1, -1), "flat": array.reshape(-1)}[args[1]]
            if array.shape == np.load(io.BytesIO(state["arrays"][member])).shape:
                return
        state["arrays"][member] = mf.npy_bytes(array)
    elif kind == "swap":
        a, b = _member(state, args[0]), _member(state, args[1])
        if a and b and a != b and (parts_a := _parts(state, a)) and (parts_b := _parts(state, b)):
            if parts_a[0]["shape"] != parts_b[0]["shape"]:
                state["arrays"][a], state["arrays"][b] = state["arrays"][b], state["arrays"][a]
    elif kind == "labels" and "arrays/classes_.npy" in state["arrays"]:
        state["arrays"]["arrays/classes_.npy"] = mf.npy_bytes(np.array(args[0], dtype=np.int64))
    elif kind == "retype":
        encs = [
            e
            for e in _encodings(manifest.get("attributes"), [])
            if isinstance(e.get("json"), int) and not isinstance(e.get("json"), bool)
        ]
        if encs:
            enc = encs[args[0] % len(encs)]
            value = enc["json"]
            enc["json"] = {
                "string": str(value),
                "null": None,
                "list": [value],
                "float": value + 0.5,
                "bool": value == 0,
            }[args[1]]


def _write(state: dict[str, Any], path: Path) -> Path:
    manifest = state["manifest"]
    text = None
    if state.get("dupkey"):  # (a later edit may have emptied the chosen object: no key to repeat)
        target = state["dupkey"]
        key = next(iter(target))
        target["\0dup"] = None  # written as a second `key` below
        text = json.dumps(manifest, indent=1)
        text = text.replace('"\\u0000dup": null', f"{json.dumps(key)}: {json.dumps(target[key])}")
        del target["\0dup"]
    members = mf.sealed(text or manifest, state["arrays"])
    if not state["seal"]:
        members["manifest.sha256"] = state["genuine_sum"]
    entries = list(members.items())
    for name, same in state["append"]:
        entries.append((name, members.get(name, b"") if same else members.get(name, b"") + b" "))
    entries += [(name, b"extra") for name in state["extra"] if name not in members]
    return mf.write_zip(path, entries)


def _state(g: _Genuine, seal: bool) -> dict[str, Any]:
    return {
        "manifest": copy.deepcopy(g.manifest),
        "arrays": dict(g.arrays),
        "genuine_arrays": g.arrays,
        "append": [],
        "extra": [],
        "dupkey": None,
        "seal": seal,
        "genuine_sum": mf.members(g.path)["manifest.sha256"],
    }


# -- the property ---------------------------------------------------------------------------------


def _allowed_open(path: str, model: Path) -> bool:
    """Only the model file itself, and Python's own modules (a lazy import), may be opened."""
    if os.path.abspath(path) == str(model):
        return True
    return path.endswith((".py", ".pyc", ".so")) and not path.startswith(str(model.parent.parent))


def _check(g: _Genuine, path: Path, outside: Path) -> str:
    """Load ``path`` and predict; assert the property; say which outcome it was."""
    with mf.recording_opens() as opened, limits.limits(max_bytes=BUDGET):
        tracemalloc.start()
        try:
            try:
                model = load_model(path)
            except RatkitError:
                outcome = "refused"
            else:
                got = _OUTPUTS[g.name](model)
                assert len(got) == len(g.outputs)
                for a, b in zip(got, g.outputs, strict=True):
                    np.testing.assert_array_equal(a, b, strict=True)
                outcome = "same"
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak <= BUDGET, f"traced {limits.format_bytes(peak)} > max_bytes {limits.format_bytes(BUDGET)}"
    strays = sorted(p for p in opened if not _allowed_open(p, path))
    assert not strays, f"load_model opened {strays}"
    assert not any(p.startswith(str(outside)) for p in opened)
    return outcome


_SETTINGS = settings(
    max_examples=int(os.environ.get("RATKIT_PROPERTY_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@_SETTINGS
@given(
    name=st.sampled_from(["rational", "linear", "puresvd"]),
    edits=st.lists(_container_edit, min_size=1, max_size=3),
    seal=st.sampled_from([True, True, True, False]),  # usually past the checksums
)
def test_container_edits(world, name, edits, seal):
    g = world["genuine"][name]
    state = _state(g, seal)
    for edit in edits:
        _apply(state, edit, world["outside"])
    event(_check(g, _write(state, world["inside"] / "edited.zip"), world["outside"]))


@settings(_SETTINGS)
@given(
    name=st.sampled_from(["rational", "linear", "puresvd"]),
    edits=st.lists(_attribute_edit, min_size=1, max_size=2),
)
def test_fitted_attribute_edits(world, name, edits):
    g = world["genuine"][name]
    state = _state(g, True)
    for edit in edits:
        _apply_attribute(state, edit)
    event(_check(g, _write(state, world["inside"] / "attributes.zip"), world["outside"]))


def test_the_genuine_files_pass_unchanged_and_the_checks_can_fail(world):
    """The property's own checks: genuine files give 'same'; a planted path that is read, and an
    allocation past the budget, are caught (run on the check itself, with the guards removed)."""
    for g in world["genuine"].values():
        assert _check(g, g.path, world["outside"]) == "same"
    with mf.recording_opens() as opened:
        (world["outside"] / "bigram.att").read_text()
    assert str(world["outside"] / "bigram.att") in opened
    tracemalloc.start()
    try:
        np.ones(2 * BUDGET // 8)
        assert tracemalloc.get_traced_memory()[1] > BUDGET
    finally:
        tracemalloc.stop()
