"""Bad inputs of the model files (issue 21): load_model, read_metadata and save_model.

Each case asserts the ratkit exception class and the words naming the bad thing. The zip bombs
are built here: one whose headers declare a size deflate cannot reach, one that really inflates
to more than the memory a capped child process has; both must be refused from the declared
sizes, before anything is decompressed. A member that ends short of its declared size, or
would inflate past it, is refused while it is read.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import re
import struct
import sys
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import limits
from ratkit.exceptions import (
    MissingDataError,
    ModelFormatError,
    NotFittedError,
    OutputPathError,
    ParameterError,
    ParameterTypeError,
    PathIsFolderError,
    ResourceLimitError,
    SpecError,
    SpecTypeError,
)
from ratkit.learners import LinearDCDSVC, load_model, save_model
from ratkit.persistence import read_metadata
from ratkit.recsys import PureSVD
from tests.badinput import _model_files as mf
from tests.isolated import run_python


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0]])
    return LinearDCDSVC(random_state=0).fit(X, [0, 1, 0, 1]).save(folder / "model.zip")


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def _rezip(src, dst, extra=(), replace=None):
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in _members(src).items():
            zf.writestr(name, (replace or {}).get(name, data))
        for name, data in extra:
            zf.writestr(name, data)
    return dst


def _raw_zip(path, members):
    """A zip written byte by byte: ``members`` is a list of (name, method, payload, crc, size),
    ``payload`` already compressed (raw deflate for method 8), ``size`` what the headers declare."""
    local, central, offset = [], [], 0
    for name, method, payload, crc, size in members:
        raw = name.encode()
        head = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0, crc, len(payload), size, len(raw), 0)
        local.append(head + raw + payload)
        central.append(
            struct.pack(
                "<4sHHHHHHIIIHHHHHII",
                *(b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc, len(payload), size, len(raw), 0, 0, 0, 0, 0, offset),
            )
            + raw
        )
        offset += len(local[-1])
    directory = b"".join(central)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), offset, 0)
    Path(path).write_bytes(b"".join(local) + directory + end)
    return path


def _zeros_deflated(n_chunks, chunk=2**24):
    """Raw deflate of n_chunks × chunk zero bytes, made by repeating one fully flushed block
    (cheap: compressing gigabytes of zeros would take seconds), and the CRC-32 of the data."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(b"\0" * chunk) + c.flush(zlib.Z_FULL_FLUSH)
    tail = zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)  # an empty final block
    crc, zero = 0, b"\0" * chunk
    for _ in range(n_chunks):
        crc = zlib.crc32(zero, crc)
    return block * n_chunks + tail, crc


def _with_member(src, dst, name, method, payload, crc, size):
    """``src`` with member ``name`` replaced by the given raw member (the others stored)."""
    parts = [(n, 0, d, zlib.crc32(d), len(d)) for n, d in _members(src).items() if n != name]
    return _raw_zip(dst, [*parts, (name, method, payload, crc, size)])


def _array_member(path):
    return next(n for n in _members(path) if n.startswith("arrays/"))


# -- paths ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", [load_model, read_metadata])
@pytest.mark.parametrize(
    ("value", "error", "words"),
    [
        (None, ParameterTypeError, r"'path' parameter of (load_model|read_metadata) must be the path .* Got None"),
        (5, ParameterTypeError, r"'path' parameter .* Got 5 instead"),
        (b"model.zip", ParameterTypeError, r"'path' parameter .* Got b'model.zip'"),
        (["m.zip"], ParameterTypeError, r"'path' parameter .* Got \['m.zip'\]"),
    ],
)
def test_a_path_of_the_wrong_type(reader, value, error, words):
    with pytest.raises(error, match=words):
        reader(value)


@pytest.mark.parametrize("reader", [load_model, read_metadata])
def test_missing_file_and_folder(reader, tmp_path):
    with pytest.raises(MissingDataError, match=r"Model file '.*nothing\.zip' not found; expected a model file"):
        reader(tmp_path / "nothing.zip")
    with pytest.raises(PathIsFolderError, match=r"Model file '.*' is a folder, not a file") as info:
        reader(tmp_path)
    assert "not found" not in str(info.value)
    assert isinstance(info.value, IsADirectoryError)


# -- foreign, truncated, corrupted files -----------------------------------------------------------


def _text(tmp_path, model_file):
    (tmp_path / "t.zip").write_text("this is not a zip file\n")
    return tmp_path / "t.zip"


def _truncated(tmp_path, model_file):
    (tmp_path / "t.zip").write_bytes(model_file.read_bytes()[: model_file.stat().st_size // 2])
    return tmp_path / "t.zip"


def _empty(tmp_path, model_file):
    (tmp_path / "t.zip").write_bytes(b"")
    return tmp_path / "t.zip"


def _foreign(tmp_path, model_file):
    with zipfile.ZipFile(tmp_path / "t.zip", "w") as zf:
        zf.writestr("hello.txt", "hi")
    return tmp_path / "t.zip"


def _non_utf8_manifest(tmp_path, model_file):
    return _rezip(model_file, tmp_path / "t.zip", replace={"manifest.json": b"\xff\xfe{"})


def _traversal(tmp_path, model_file):
    return _rezip(model_file, tmp_path / "t.zip", extra=[("../evil.txt", b"x")])


def _absolute(tmp_path, model_file):
    return _rezip(model_file, tmp_path / "t.zip", extra=[("/tmp/evil.txt", b"x")])


def _old_npz(tmp_path, model_file):
    np.savez(tmp_path / "t.npz", a=np.arange(3))
    return tmp_path / "t.npz"


def _flipped(tmp_path, model_file):
    data = bytearray(model_file.read_bytes())
    for i in range(60, 90):
        data[i] ^= 0x5A
    (tmp_path / "t.zip").write_bytes(bytes(data))
    return tmp_path / "t.zip"


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (_text, r"t\.zip is not a ratkit model \(not a readable zip archive"),
        (_truncated, r"t\.zip is not a ratkit model|t\.zip.*corrupted"),
        (_empty, r"t\.zip is not a ratkit model"),
        (_foreign, r"t\.zip is a zip archive but not a ratkit model: it has no manifest\.json"),
        (_non_utf8_manifest, r"t\.zip: manifest\.json is not valid JSON"),
        (_traversal, r"t\.zip: the archive holds a member named '\.\./evil\.txt', a path outside the archive"),
        (_absolute, r"t\.zip: the archive holds a member named '/tmp/evil\.txt'"),
        (_old_npz, r"t\.npz is a zip archive but not a ratkit model"),
        (_flipped, r"t\.zip"),
    ],
)
def test_foreign_and_corrupted_files(make, words, tmp_path, model_file):
    path = make(tmp_path, model_file)
    with pytest.raises(ModelFormatError, match=words):
        load_model(path)
    assert not (tmp_path.parent / "evil.txt").exists()


# -- zip bombs ----------------------------------------------------------------------------------------


def test_a_member_declaring_more_than_deflate_can_produce_is_refused_before_reading(tmp_path, model_file):
    member = _array_member(model_file)
    data = _members(model_file)[member]
    packed = zlib.compressobj(6, zlib.DEFLATED, -15)
    payload = packed.compress(data) + packed.flush()
    bomb = _with_member(model_file, tmp_path / "declared.zip", member, 8, payload, zlib.crc32(data), 4_000_000_000)
    with pytest.raises(ModelFormatError, match=rf"declared\.zip: the member '{member}' declares 4,000,000,000 bytes"):
        load_model(bomb)


def test_a_stored_member_declaring_more_than_it_holds_is_refused(tmp_path, model_file):
    member = _array_member(model_file)
    data = _members(model_file)[member]
    bomb = _with_member(model_file, tmp_path / "stored.zip", member, 0, data, zlib.crc32(data), 10**6)
    with pytest.raises(ModelFormatError, match=r"declares 1,000,000 bytes .* more than a stored member holds"):
        load_model(bomb)


def test_a_member_ending_short_of_its_declared_size_is_refused_while_reading(tmp_path, model_file):
    member = _array_member(model_file)
    data = _members(model_file)[member]
    packed = zlib.compressobj(6, zlib.DEFLATED, -15)
    payload = packed.compress(data) + packed.flush()
    # the declared size is plausible (within deflate's ratio) but the stream holds less
    short = _with_member(model_file, tmp_path / "short.zip", member, 8, payload, zlib.crc32(data), len(data) + 5)
    with pytest.raises(ModelFormatError, match=rf"'{member}' holds {len(data)} bytes but its header declares size"):
        load_model(short)


def test_a_real_bomb_is_refused_from_its_declared_sizes_in_a_capped_process(tmp_path, model_file):
    """1.25 GiB of zeros in about 1.3 MB: the child has 1 GiB of address space, so reading the
    member at all would end in MemoryError; it must be refused from its header first."""
    member = _array_member(model_file)
    payload, crc = _zeros_deflated(80)
    bomb = _with_member(model_file, tmp_path / "real.zip", member, 8, payload, crc, 80 * 2**24)
    assert bomb.stat().st_size < 2 * 2**20
    outcome = run_python(
        f"""
        from ratkit.exceptions import ModelFormatError
        from ratkit.learners import load_model
        try:
            load_model({str(bomb)!r})
        except ModelFormatError as exc:
            print("REFUSED", exc)
        """,
        timeout=60,
        memory_mb=1024,
    )
    assert not outcome.timed_out
    assert outcome.returncode == 0, outcome.stderr[-2000:]
    assert "REFUSED" in outcome.stdout
    assert "real.zip: its members declare 1,342," in outcome.stdout
    assert f"the largest, '{member}', 1,342,177,280 bytes" in outcome.stdout
    assert "zip bomb" in outcome.stdout


def test_a_model_within_the_expansion_bound_but_past_max_bytes_is_refused(tmp_path, model_file):
    with limits.limits(max_bytes=100):
        with pytest.raises(ResourceLimitError, match=r"Reading the model file .*model\.zip.* limit of 100 B"):
            load_model(model_file)
    assert load_model(model_file).predict([[0.0, 3.0]]).tolist() == [0]


# -- saving ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "error", "words"),
    [
        (object(), ParameterTypeError, r"Cannot save object: it is not a registered learner or recommender plugin"),
        (42, ParameterTypeError, r"Cannot save int: it is not a registered"),
        (None, ParameterTypeError, r"Cannot save NoneType"),
        (PureSVD(), NotFittedError, r"This PureSVD instance is not fitted yet"),
        (LinearDCDSVC(), NotFittedError, r"This LinearDCDSVC instance is not fitted yet"),
    ],
)
def test_save_refuses_what_is_not_a_fitted_plugin(model, error, words, tmp_path):
    with pytest.raises(error, match=words):
        save_model(model, tmp_path / "m.zip")
    assert not (tmp_path / "m.zip").exists()


def test_save_refuses_bad_output_paths(tmp_path, model_file):
    model = load_model(model_file)
    with pytest.raises(OutputPathError, match=r"The model file '.*' is a folder"):
        save_model(model, tmp_path)
    with pytest.raises(OutputPathError, match=r"its folder '.*nodir' does not exist"):
        save_model(model, tmp_path / "nodir" / "m.zip")


def test_save_refuses_unsavable_metadata(tmp_path, model_file):
    model = load_model(model_file)
    with pytest.raises(ModelFormatError, match=r"metadata.x is nan"):
        save_model(model, tmp_path / "m.zip", metadata={"x": float("nan")})
    with pytest.raises(ModelFormatError, match=r"has the key 1; JSON keys are strings"):
        save_model(model, tmp_path / "m.zip", metadata={"d": {1: 2}})


@pytest.mark.parametrize("failure", ["disk", "interrupt"])
def test_a_failed_save_keeps_the_old_file(failure, tmp_path, model_file, monkeypatch):
    target = tmp_path / "keep.zip"
    target.write_bytes(model_file.read_bytes())
    before = target.read_bytes()
    model = load_model(model_file)
    model.coef_ = model.coef_ * 2  # another model: a successful save would change the file

    def boom(self, *args, **kwargs):
        if failure == "disk":
            raise OSError(28, "No space left on device")
        raise KeyboardInterrupt

    monkeypatch.setattr(zipfile.ZipFile, "writestr", boom)
    if failure == "disk":
        with pytest.raises(OutputPathError, match=r"Cannot write the model file '.*keep\.zip': No space left"):
            save_model(model, target)
    else:
        with pytest.raises(KeyboardInterrupt):
            save_model(model, target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.zip"]


def test_a_sparse_and_a_json_round_trip_still_load(tmp_path):
    """The checks refuse bad files only: a model with a sparse fit and metadata loads back."""
    X = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0]]))
    model = LinearDCDSVC(random_state=0).fit(X, [0, 1, 0, 1])
    path = model.save(tmp_path / "m.zip", metadata={"note": "ok"})
    assert read_metadata(path) == {"note": "ok"}
    np.testing.assert_array_equal(load_model(path).coef_, model.coef_)
    assert json.loads(_members(path)["manifest.json"])["plugin"] == "linear-dcd"


def test_a_genuine_model_of_mostly_zeros_loads_with_a_larger_max_expansion(tmp_path, monkeypatch):
    """A model whose weights are 4·10⁶ zeros (32 MB) compresses about 1000:1, past the default
    bound (with the 256 MiB allowance lowered to 1 MiB, so that the test stays small); the
    message says how to load it, and a larger max_expansion does."""
    from ratkit.persistence import _container

    monkeypatch.setattr(_container, "_EXPANSION_FLOOR", 2**20)
    X = sp.csr_matrix(([1.0, 1.0], ([0, 1], [0, 1])), shape=(2, 4_000_000))
    model = LinearDCDSVC(random_state=0).fit(X, [0, 1])
    path = model.save(tmp_path / "zeros.zip")
    with pytest.raises(
        ModelFormatError, match=r"zeros\.zip: its members declare .*load it with a larger max_expansion"
    ):
        load_model(path)
    np.testing.assert_array_equal(load_model(path, max_expansion=2000).coef_, model.coef_)
    assert read_metadata(path, max_expansion=2000) == {}


@pytest.mark.parametrize(
    ("value", "error", "words"),
    [
        (0.5, ParameterError, r"'max_expansion' parameter of load_model must be a float ≥ 1\. Got 0\.5"),
        (float("nan"), ParameterError, r"'max_expansion' parameter .* Got nan"),
        (float("inf"), ParameterError, r"'max_expansion' parameter .* Got inf"),
        ("big", ParameterTypeError, r"'max_expansion' parameter .* Got 'big'"),
        (None, ParameterTypeError, r"'max_expansion' parameter .* Got None"),
    ],
)
def test_a_bad_max_expansion(value, error, words, model_file):
    with pytest.raises(error, match=words):
        load_model(model_file, max_expansion=value)


# -- issue 35: a model file is untrusted input -------------------------------------------------------
# Each edit below recomputes the checksums (tests/badinput/_model_files.py), so that it gets past
# the SHA-256 checks as a deliberate edit would.

_XS = ["ab", "ba", "aab", "bba", "abab", "bbb", "aaa", "baba"]
_YS = [1, 0, 1, 0, 1, 0, 1, 0]


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_a_manifest_nested_too_deep_is_refused(depth, tmp_path, model_file):
    """JSON nested past Python's stack raised a raw RecursionError from json.loads."""
    arrays = mf.arrays_of(model_file)
    manifest = mf.manifest_of(model_file)
    manifest["attributes"]["deep_"] = "PLACE"
    manifest["arrays"] = {name: hashlib.sha256(data).hexdigest() for name, data in arrays.items()}
    deep = '{"items": [' * depth + '{"json": 1}' + "]}" * depth
    bad = mf.write_model(tmp_path / "deep.zip", json.dumps(manifest).replace('"PLACE"', deep), arrays)
    with pytest.raises(ModelFormatError, match=r"deep\.zip: manifest\.json nests too deep to read"):
        load_model(bad)


def test_values_nested_too_deep_to_rebuild_are_refused(tmp_path, model_file, monkeypatch):
    """Values the parser read but Python's stack cannot rebuild (nested encodings recurse once per
    level) are refused by name, not with a raw RecursionError."""
    from ratkit.persistence import _model_file

    arrays = mf.arrays_of(model_file)
    manifest = mf.manifest_of(model_file)
    value: dict = {"json": 1}
    for _ in range(300):
        value = {"items": [value]}
    manifest["attributes"]["deep_"] = value
    bad = mf.write_model(tmp_path / "deep.zip", manifest, arrays)
    real = _model_file.rebuild_estimator

    def on_a_small_stack(*args):  # the stack left when load_model is called deep inside an application
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(len(inspect.stack()) + 200)
        try:
            return real(*args)
        finally:
            sys.setrecursionlimit(limit)

    monkeypatch.setattr(_model_file, "rebuild_estimator", on_a_small_stack)
    with pytest.raises(ModelFormatError, match=r"deep\.zip: manifest\.json nests values too deep to rebuild"):
        load_model(bad)


@pytest.fixture(scope="module")
def rational_file(tmp_path_factory):
    """A RationalSVC whose kernel is a transducer read from a file (saved in the model as AT&T text)."""
    from ratkit.automata import kernels, to_att
    from ratkit.learners import RationalSVC

    folder = tmp_path_factory.mktemp("rational")
    fst = folder / "bigram.att"
    fst.write_text(to_att(kernels.ngram(2).factor("ab")))
    model = RationalSVC(kernels.from_transducer(str(fst)), random_state=0).fit(_XS, _YS)
    path = model.save(folder / "rational.zip")
    fst.unlink()
    return path


@pytest.fixture(scope="module")
def puresvd_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    user_items = sp.csr_matrix((rng.random((20, 12)) < 0.3).astype(float))
    return PureSVD(n_factors=3).fit(user_items).save(tmp_path_factory.mktemp("puresvd") / "puresvd.zip")


def _edit_array(src, dst, member, make):
    """``src`` with the array member ``member`` replaced by ``make(header, body)``, checksums recomputed."""
    arrays = mf.arrays_of(src)
    arrays[member] = make(*mf.npy_parts(arrays[member]))
    return mf.write_model(dst, mf.manifest_of(src), arrays)


def _peak_bytes(call):
    """(what ``call()`` raised or returned, the peak of the memory traced meanwhile); numpy
    reports its array buffers to tracemalloc."""
    tracemalloc.start()
    try:
        try:
            outcome = call()
        except Exception as exc:
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("shape", [(10**10,), (1, 120_000_000)])
def test_a_declared_shape_is_checked_against_the_member_before_allocating(shape, tmp_path, rational_file):
    """A 2-KB file whose coef_ header declares (10¹⁰,) made load_model allocate 74.5 GiB; one declaring
    (1, 1.2·10⁸) allocated 916 MiB before the member was found short."""
    bad = _edit_array(
        rational_file,
        tmp_path / "shape.zip",
        "arrays/coef_.npy",
        lambda h, body: mf.npy_with_header({**h, "shape": shape}, body),
    )
    assert bad.stat().st_size < 4000
    outcome, peak = _peak_bytes(lambda: load_model(bad))
    assert isinstance(outcome, ModelFormatError), repr(outcome)
    need = f"{np.prod(shape, dtype=object) * 8:,}"
    assert re.search(
        rf"shape\.zip: arrays/coef_\.npy declares the shape {re.escape(str(shape))} of '<f8' \({need} bytes\) "
        r"but holds \d+ bytes after its header",
        str(outcome),
    ), str(outcome)
    assert peak < 16 * 2**20, limits.format_bytes(peak)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (
            lambda h, body: mf.npy_with_header({**h, "shape": (1,)}, body),
            r"declares the shape \(1,\) .* but holds \d+ bytes",
        ),
        (lambda h, body: mf.npy_with_header(h, body + b"\0" * 8), r"declares the shape .* but holds \d+ bytes"),
        (
            lambda h, body: mf.npy_with_header({**h, "descr": "|O"}, body),
            r"declares the dtype '\|O'.*never Python objects",
        ),
        (lambda h, body: mf.npy_with_header({**h, "descr": [("a", "<f8")]}, body), r"declares the dtype"),
        (lambda h, body: mf.npy_with_header({**h, "descr": "<M8[s]"}, body), r"declares the dtype '<M8\[s\]'"),
        (lambda h, body: mf.npy_with_header({**h, "descr": "|V8"}, body), r"declares the dtype '\|V8'"),
        (lambda h, body: mf.npy_with_header({**h, "descr": "<U0"}, b""), r"declares the dtype '<U0'|not a numpy array"),
        (
            lambda h, body: mf.npy_with_header({**h, "shape": (-1,)}, body),
            r"declares the dtype .<f8. and shape \(-1,\), which no array has",
        ),
        (
            lambda h, body: b"\x93NUMPY\x03\x00" + (10).to_bytes(4, "little") + b"{}        " + body,
            r"is not a numpy array file \(header version 3\.0",
        ),
        (lambda h, body: b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f8'  }" + body, r"is not a numpy array file"),
        (lambda h, body: b"not a numpy file at all", r"is not a numpy array file"),
    ],
    ids=["short", "long", "object", "record", "datetime", "void", "empty-items", "negative", "v3", "header", "garbage"],
)
def test_array_members_the_header_check_refuses(make, words, tmp_path, model_file):
    bad = _edit_array(model_file, tmp_path / "npy.zip", "arrays/coef_.npy", make)
    with pytest.raises(ModelFormatError, match=rf"npy\.zip: arrays/coef_\.npy (?:{words})"):
        load_model(bad)


def test_duplicate_member_names_are_refused(tmp_path, model_file):
    """zipfile reads the last of two members of one name: a second manifest.json, manifest.sha256 and
    coef_ appended after the genuine ones made load_model read the edited model."""
    genuine = load_model(model_file)
    arrays = mf.arrays_of(model_file)
    arrays["arrays/coef_.npy"] = mf.npy_bytes(-genuine.coef_)
    edited = mf.sealed(mf.manifest_of(model_file), arrays)
    appended = [(name, edited[name]) for name in ("manifest.json", "manifest.sha256", "arrays/coef_.npy")]
    bad = mf.write_zip(tmp_path / "twice.zip", [*mf.members(model_file).items(), *appended])
    with pytest.raises(ModelFormatError, match=r"twice\.zip: the archive holds two members named 'manifest\.json'"):
        load_model(bad)
    with pytest.raises(ModelFormatError, match=r"two members named 'manifest\.json'"):
        read_metadata(bad)


def test_a_duplicated_key_in_the_manifest_is_refused_by_name(tmp_path, model_file):
    """json.loads keeps the last of duplicated keys: a second 'coef_' entry, after the genuine one,
    naming an edited array made the model load with it."""
    arrays = mf.arrays_of(model_file)
    arrays["arrays/evil.npy"] = mf.npy_bytes(-load_model(model_file).coef_)
    manifest = mf.manifest_of(model_file)
    manifest["attributes"]["zzz"] = "PLACEHOLDER"
    manifest["arrays"] = {name: hashlib.sha256(data).hexdigest() for name, data in arrays.items()}
    text = json.dumps(manifest, indent=1, sort_keys=True).replace(
        '"zzz": "PLACEHOLDER"', '"coef_": {"array": "arrays/evil.npy"}'
    )
    assert text.count('"coef_"') == 2
    bad = mf.write_model(tmp_path / "dupkey.zip", text, arrays)
    with pytest.raises(
        ModelFormatError,
        match=r"dupkey\.zip: manifest\.json: the key 'coef_' appears twice in the object at attributes",
    ):
        load_model(bad)


def _sentinel_spec(folder):
    """A genuine AT&T file of the same bigram transducer: reading it would even give the right model."""
    from ratkit.automata import kernels, to_att

    sentinel = folder / "outside.att"
    sentinel.write_text(to_att(kernels.ngram(2).factor("ab")))
    return sentinel


@pytest.mark.parametrize(
    "make_spec",
    [
        lambda s: {"family": "transducer", "path": str(s), "pds": True, "semiring": "probability"},
        lambda s: {"family": "cosine", "kernel": {"family": "transducer", "path": str(s), "pds": True}},
        lambda s: {"family": "sum", "kernels": [{"family": "ngram", "n": 1}, {"family": "transducer", "path": str(s)}]},
    ],
    ids=["transducer", "nested", "in-a-list"],
)
def test_a_kernel_spec_naming_a_file_is_refused_without_reading_it(make_spec, tmp_path, rational_file):
    """An edited kernel_ spec {"family": "transducer", "path": ...} made load_model read a file outside the
    archive; a model file never reaches outside itself."""
    sentinel = _sentinel_spec(tmp_path)
    manifest = mf.manifest_of(rational_file)
    for table in ("params", "attributes"):
        manifest[table]["kernel" if table == "params" else "kernel_"] = {"kernel": make_spec(sentinel)}
    bad = mf.write_model(tmp_path / "path.zip", manifest, mf.arrays_of(rational_file))
    words = r"path\.zip: .*\.path names the file '.*outside\.att'.* never reaches outside"
    with mf.recording_opens() as opened, pytest.raises(ModelFormatError, match=words):
        load_model(bad)
    assert str(sentinel) not in opened


def test_a_kernel_spec_that_is_a_file_name_is_refused_without_reading_it(tmp_path, rational_file):
    spec = tmp_path / "outside.json"
    spec.write_text(json.dumps({"family": "ngram", "n": 2}))
    manifest = mf.manifest_of(rational_file)
    manifest["params"]["kernel"] = manifest["attributes"]["kernel_"] = {"kernel": str(spec)}
    bad = mf.write_model(tmp_path / "name.zip", manifest, mf.arrays_of(rational_file))
    with mf.recording_opens() as opened, pytest.raises(ModelFormatError, match=r"name\.zip: .*must be a mapping here"):
        load_model(bad)
    assert str(spec) not in opened


def test_from_spec_without_files_builds_what_reads_no_file(tmp_path):
    """The mechanism load_model uses: from_spec(files=False) refuses a spec naming a file before
    anything is read, and builds every other spec as from_spec does."""
    from ratkit.automata.kernels import from_spec

    sentinel = _sentinel_spec(tmp_path)
    spec = {"family": "transducer", "path": str(sentinel)}
    with mf.recording_opens() as opened:
        with pytest.raises(SpecError, match=r"spec\.path names the file '.*outside\.att', which a transducer kernel"):
            from_spec(spec, files=False)
        with pytest.raises(SpecTypeError, match=r"must be a mapping here, where no file may be read; got PosixPath"):
            from_spec(sentinel, files=False)
    assert str(sentinel) not in opened
    X = ["ab", "ba", "abab"]
    inline = from_spec(spec).to_spec(inline=True)
    np.testing.assert_array_equal(from_spec(inline, files=False).gram(X), from_spec(spec).gram(X))
    assert from_spec({"family": "ngram", "n": 2}, files=False).gram(X)[2, 2] == 5.0  # bigrams ab, ba, ab: 2² + 1²


def test_from_spec_without_files_refuses_a_family_registered_as_a_function(tmp_path):
    """A function registered as a kernel family declares no file keys, so it could read any argument:
    where no file may be read it is refused before it is called (to_spec never writes one)."""
    from ratkit.automata.kernels import from_spec, ngram
    from ratkit.plugins import registry

    calls = []

    @registry.register("kernel", "reads-a-file")
    def reads_a_file(source="x"):
        calls.append(source)
        return ngram(2)

    try:
        assert type(from_spec({"family": "reads-a-file"})) is type(ngram(2)) and calls == ["x"]
        with pytest.raises(SpecError, match=r"spec\.kernel\.family: 'reads-a-file' is registered as a function"):
            from_spec({"family": "cosine", "kernel": {"family": "reads-a-file", "source": "f"}}, files=False)
        assert calls == ["x"]
    finally:
        registry._registry["kernel"].pop("reads-a-file", None)


def _big_endian(src, dst):
    arrays = {}
    for name, data in mf.arrays_of(src).items():
        header, _ = mf.npy_parts(data)
        array = np.load(io.BytesIO(data))
        arrays[name] = mf.npy_bytes(array.astype(array.dtype.newbyteorder(">")))
        assert mf.npy_parts(arrays[name])[0]["descr"] == header["descr"].replace("<", ">")
    return mf.write_model(dst, mf.manifest_of(src), arrays)


def test_big_endian_recommender_arrays_load_in_native_byte_order(tmp_path, puresvd_file):
    """Arrays written on a big-endian machine ('>f8') loaded as such, and scipy then refused them with a
    raw ValueError; they are converted to native order on load, every value the same."""
    genuine = load_model(puresvd_file)
    model = load_model(_big_endian(puresvd_file, tmp_path / "big.zip"))
    for key in ("user_factors_", "item_factors_"):
        assert getattr(model, key).dtype.isnative
        np.testing.assert_array_equal(getattr(model, key), getattr(genuine, key))
    users = np.arange(genuine.n_users_)
    liked = sp.csr_matrix((genuine.n_users_, genuine.n_items_))
    for got, want in zip(model.recommend(users, liked, N=5), genuine.recommend(users, liked, N=5), strict=True):
        np.testing.assert_array_equal(got, want)


def test_big_endian_learner_arrays_load_in_native_byte_order(tmp_path, model_file):
    genuine = load_model(model_file)
    model = load_model(_big_endian(model_file, tmp_path / "big.zip"))
    X = np.array([[0.0, 3.0], [1.5, -2.0], [4.0, 1.0]])
    assert all(getattr(model, k).dtype.isnative for k in ("coef_", "intercept_", "classes_", "alpha_"))
    np.testing.assert_array_equal(model.decision_function(X), genuine.decision_function(X))


def _cli_bad_files(folder, rational_file):
    """Bad model files of issue 35, each made from a genuine RationalSVC file: name → path."""
    arrays, manifest = mf.arrays_of(rational_file), mf.manifest_of(rational_file)
    shape = _edit_array(
        rational_file,
        folder / "shape.zip",
        "arrays/coef_.npy",
        lambda h, body: mf.npy_with_header({**h, "shape": (10**10,)}, body),
    )
    edited = mf.sealed(manifest, {**arrays, "arrays/coef_.npy": arrays["arrays/alpha_.npy"]})
    twice = mf.write_zip(folder / "twice.zip", [*mf.members(rational_file).items(), *((k, edited[k]) for k in edited)])
    spec = {"kernel": {"family": "transducer", "path": str(_sentinel_spec(folder)), "pds": True}}
    path = mf.write_model(
        folder / "path.zip", {**manifest, "attributes": {**manifest["attributes"], "kernel_": spec}}, arrays
    )
    return {"shape": shape, "twice": twice, "path": path}


def test_the_cli_prints_one_line_for_each_bad_model_file(tmp_path, rational_file, capsys):
    from ratkit.datasets import write_tsv
    from tests.cli._helpers import run

    write_tsv(tmp_path / "x.tsv", _XS, ["pos" if y else "neg" for y in _YS])
    for name, bad in _cli_bad_files(tmp_path, rational_file).items():
        code, out, err = run(["predict", "--model", bad, "--data", tmp_path / "x.tsv"], capsys)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert code == 2, (name, err)
        assert len(lines) == 1 and lines[0].startswith("ratkit predict: error:"), (name, err)
        assert f"{name}.zip" in lines[0] and "Traceback" not in err, (name, err)
