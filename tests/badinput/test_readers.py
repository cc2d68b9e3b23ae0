"""Bad inputs of the transducer readers and writers (issue 21): read_att, read_fst, to_att, write_att.

Each case of the matrix asserts the ratkit exception class and the words of the message
that name the bad thing. The property tests flip bits of, and truncate, small valid files:
the readers never let anything but a RatkitError escape. Neither format carries a checksum
(AT&T text is plain text; an OpenFst binary file has none), so a flip inside a weight gives
another valid weight that no reader can detect; the binary property therefore checks the
next best thing, against the byte layout of the file (walked here independently with
``struct``): a flip outside the weight fields never changes a weight, a flip inside one
changes that weight alone, to the value of the flipped bytes, and a truncated file is
always refused.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratkit.automata import Alphabet, evaluate, from_arcs, read_att, read_fst, to_att, write_att, write_fst
from ratkit.exceptions import (
    AlphabetMismatchError,
    FstFormatError,
    MissingDataError,
    NotRegulatedError,
    ParameterError,
    ParameterTypeError,
    RatkitError,
)

ATT = "0\t1\ta\tb\t0.5\n1\t2\tb\t<eps>\t0.25\n0\t2\ta\tb\t0.125\n2\t1.0\n1\t0.5\n"
_FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _machine():
    return from_arcs([(0, "a", "b", 0.5, 1), (1, "b", "a", 0.25, 2), (0, "a", "a", 0.125, 2)], 0, {2: 1.0, 1: 0.5})


# -- read_att -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "kwargs", "exc", "match"),
    [
        (None, {}, ParameterTypeError, "read_att takes a path.*got NoneType"),
        (5, {}, ParameterTypeError, "read_att takes a path.*got int 5"),
        (2.5, {}, ParameterTypeError, "read_att takes a path.*got float"),
        (b"0 1 a a\n1\n", {}, ParameterTypeError, "got bytes. Decode them"),
        (["0 1 a a", 5], {}, ParameterTypeError, "line 2 of the lines given is a int"),
        ([b"0 1 a a"], {}, ParameterTypeError, "line 1 of the lines given is a bytes"),
        ("", {}, FstFormatError, "no states or arcs found"),
        ("\n\n# only a comment\n", {}, FstFormatError, "no states or arcs found"),
        ([], {}, FstFormatError, "<lines>: no states or arcs found"),
        ("x 1 a a\n1\n", {}, FstFormatError, "line 1: state 'x' is not a non-negative integer"),
        ("0 -1 a a\n1\n", {}, FstFormatError, "line 1: state '-1' is not a non-negative integer"),
        ("0 1.5 a a\n1\n", {}, FstFormatError, "line 1: state '1.5'"),
        ("0 1 a a heavy\n1\n", {}, FstFormatError, "line 1: weight 'heavy' is not a number"),
        ("0 1 a a nan\n1\n", {}, FstFormatError, "line 1: NaN is not a weight"),
        ("0 1 a a inf\n1\n", {}, FstFormatError, "line 1: .*got inf"),
        ("0 1 a a -inf\n1\n", {}, FstFormatError, "line 1: .*non-negative.*-inf"),
        ("0 1 a a -0.5\n1\n", {}, FstFormatError, "line 1: .*non-negative reals; got -0.5"),
        ("0 1 a a 1e400\n1\n", {}, FstFormatError, "line 1: .*got inf"),
        ("0 1 a a -inf\n1\n", {"semiring": "tropical"}, FstFormatError, "line 1: -inf is not a weight of the tropical"),
        ("0 1 a a nan\n1\n", {"semiring": "log"}, FstFormatError, "line 1: NaN is not a weight of the log"),
        ("0 1 a a 2\n1\n", {"semiring": "boolean"}, FstFormatError, "line 1: The boolean semiring holds"),
        ("0 1 a a\n1 nan\n", {}, FstFormatError, "line 2: NaN is not a weight"),
        ("0 1 a a 0.5 extra\n1\n", {}, FstFormatError, "line 1: expected .* got 6 fields"),
        ("0 1 a\n1\n", {"acceptor": False}, FstFormatError, "line 1: expected 'src dst ilabel olabel"),
        ("0 1 a a\n1\n", {"weights": "cost"}, ParameterError, "'weights' parameter of read_att.*'cost'"),
        ("0 1 a a\n1\n", {"acceptor": "yes"}, ParameterTypeError, "'acceptor' parameter of read_att.*'yes'"),
        ("0 1 a a\n1\n", {"alphabet": "ab"}, ParameterTypeError, "'alphabet' parameter of read_att.*str 'ab'"),
        # The semiring's own checks (ratkit.automata.semirings.get_semiring) decide the class.
        ("0 1 a a\n1\n", {"semiring": "real"}, RatkitError, "(?i)semiring.*'real'"),
        ("0 1 a a\n1\n", {"semiring": None}, RatkitError, "(?i)semiring.*None"),
        ("0 1 z z\n1\n", {"alphabet": Alphabet("ab")}, AlphabetMismatchError, "<text>: Symbols {'z'}"),
        ("0 0 <eps> <eps>\n0\n", {}, NotRegulatedError, "<text>: The transducer is not regulated"),
    ],
)
def test_read_att_bad_input(source, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        read_att(source, **kwargs)


@pytest.mark.parametrize(
    ("data", "exc", "match"),
    [
        (b"0 1 a a\n\xff\xfe\n", FstFormatError, "not a UTF-8 text file; is it a binary FST"),
        (b"", FstFormatError, "no states or arcs found"),
        (b"0 1 a a 0.", None, None),  # truncated inside a weight: still the number 0.
        # AT&T text has no checksum and no end marker: a file cut at a field boundary is
        # another valid file (an acceptor arc, a final state "0 1"), read as such.
        (b"0 1 a", None, None),
        (b"0 1 a a 0.5\n0 1", None, None),
        (b"0 1 a a 0.5\n0 1 b", FstFormatError, "line 2: expected .* got 3 fields"),
        (b"\xef\xbb\xbf0 1 a a\n1\n", None, None),  # a byte-order mark
    ],
)
def test_read_att_bad_files(tmp_path, data, exc, match):
    path = tmp_path / "t.att"
    path.write_bytes(data)
    if exc is None:
        assert read_att(path).num_states >= 1
        return
    with pytest.raises(exc, match=match):
        read_att(path)


def test_read_att_missing_and_folder_paths(tmp_path):
    with pytest.raises(MissingDataError, match="AT&T file '.*missing.att' does not exist"):
        read_att(tmp_path / "missing.att")
    # The folder case is ratkit._files.check_input_file's (a PathIsFolderError once fixed there).
    with pytest.raises(RatkitError, match="is a folder, not a file"):
        read_att(tmp_path)


def test_a_byte_order_mark_in_text_is_not_part_of_the_first_state():
    assert evaluate(read_att("\ufeff0 1 a b 0.5\n1\n"), "a", "b") == pytest.approx(0.5)


# -- read_fst -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kwargs", "exc", "match"),
    [
        (None, {}, ParameterTypeError, "read_fst takes the path.*NoneType"),
        (5, {}, ParameterTypeError, "read_fst takes the path.*int 5"),
        (b"t.fst", {}, ParameterTypeError, "read_fst takes the path.*bytes"),
        ("GOOD", {"semiring": "real"}, RatkitError, "(?i)semiring.*'real'"),
        ("GOOD", {"alphabet": "ab"}, ParameterTypeError, "'alphabet' parameter of read_fst.*str 'ab'"),
        ("GOOD", {"alphabet": Alphabet("a")}, AlphabetMismatchError, r"t.fst: Symbols \{'b'\}"),
        ("missing.fst", {}, MissingDataError, "FST file '.*missing.fst' does not exist"),
        ("empty.fst", {}, FstFormatError, "empty.fst: .*ends inside the magic number"),
        ("text.att", {}, FstFormatError, "text.att: .*magic number.*read_att"),
        ("random.fst", {}, FstFormatError, "random.fst: not a readable OpenFst binary file"),
        ("cut.fst", {}, FstFormatError, "cut.fst: not a readable OpenFst binary file"),
    ],
)
def test_read_fst_bad_input(tmp_path, path, kwargs, exc, match):
    write_fst(_machine(), tmp_path / "t.fst")
    good = (tmp_path / "t.fst").read_bytes()
    (tmp_path / "empty.fst").write_bytes(b"")
    (tmp_path / "text.att").write_text(ATT)
    (tmp_path / "random.fst").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "cut.fst").write_bytes(good[: len(good) // 2])
    if isinstance(path, str):
        path = tmp_path / ("t.fst" if path == "GOOD" else path)
    if path == tmp_path / "t.fst" and not kwargs:  # pragma: no cover - the table has no such row
        return
    with pytest.raises(exc, match=match):
        read_fst(path, **kwargs)


def test_read_fst_folder_path(tmp_path):
    with pytest.raises(RatkitError, match="is a folder, not a file"):  # PathIsFolderError once _files is fixed
        read_fst(tmp_path)


# -- writers --------------------------------------------------------------------------------


def test_to_att_writes_the_empty_machine_and_reads_it_back(tmp_path):
    """A machine with no arcs and a non-final start state (the empty relation, e.g. an empty
    intersection) could not be written, so even ``str(t)`` raised; it is now its start state
    with the final weight 0̄, which every reader takes for not final."""
    for semiring in ("probability", "log", "tropical", "boolean"):
        t = from_arcs([], start=0, finals={}, semiring=semiring)
        for weights in ("natural", "openfst"):
            back = read_att(to_att(t, weights), semiring, weights=weights)
            assert (back.num_states, back.num_arcs, back.finals()) == (1, 0, {})
        assert str(t).split()[0] == "0"
        write_att(t, tmp_path / "empty.att")
        assert read_att(tmp_path / "empty.att", semiring).finals() == {}


@pytest.mark.parametrize(
    ("args", "exc", "match"),
    [
        ((_machine(), "cost"), ParameterError, "'weights' parameter of to_att.*'cost'"),
        ((from_arcs([(0, "new york", 1.0, 1)], 0, {1: 1.0}),), FstFormatError, "'new york' contains whitespace"),
    ],
)
def test_to_att_bad_input(args, exc, match):
    with pytest.raises(exc, match=match):
        to_att(*args)


def test_writers_refuse_a_folder_and_keep_the_old_file(tmp_path):
    (tmp_path / "keep.att").write_text(ATT)
    with pytest.raises(RatkitError, match="folder"):
        write_att(_machine(), tmp_path)
    with pytest.raises(RatkitError, match="folder"):
        write_fst(_machine(), tmp_path)
    with pytest.raises(ParameterError, match="'weights'"):
        write_att(_machine(), tmp_path / "keep.att", weights="cost")
    assert (tmp_path / "keep.att").read_text() == ATT


# -- property tests: flipped bits and truncations --------------------------------------------


def _read_bytes(tmp_path: Path, data: bytes, reader, name: str):
    path = tmp_path / name
    path.write_bytes(data)
    return reader(path)


@_FUZZ
@given(data=st.data())
def test_flipped_and_truncated_att_files_raise_only_ratkit_errors(tmp_path, data):
    base = ATT.encode()
    kind = data.draw(st.sampled_from(["flip", "cut", "both"]))
    buf = bytearray(base)
    if kind in ("flip", "both"):
        for _ in range(data.draw(st.integers(1, 3))):
            buf[data.draw(st.integers(0, len(buf) - 1))] ^= 1 << data.draw(st.integers(0, 7))
    if kind in ("cut", "both"):
        del buf[data.draw(st.integers(0, len(buf) - 1)) :]
    try:
        t = _read_bytes(tmp_path, bytes(buf), read_att, "f.att")
    except RatkitError as exc:
        assert isinstance(exc, (ValueError, TypeError, LookupError, OSError)), type(exc).__mro__
        return
    assert t.num_states >= 1  # a valid machine: every state and weight it holds was read


def _layout(buf: bytes) -> dict[int, tuple[str, int, int]]:
    """Where the weights of a ``vector`` OpenFst file are: {offset: (kind, index, size)} of
    each weight field ("arc" k or "final" q), from OpenFst's layout (header, optional
    symbol tables, then per state its final weight, int64 #arcs and its arcs (int32
    ilabel, int32 olabel, weight, int32 nextstate))."""
    pos = 0

    def take(fmt: str):
        nonlocal pos
        values = struct.unpack_from(fmt, buf, pos)
        pos += struct.calcsize(fmt)
        return values

    def string() -> None:
        nonlocal pos
        (n,) = take("<i")
        pos += n

    take("<i")
    string()
    n = struct.unpack_from("<i", buf, pos)[0]
    arc_type = buf[pos + 4 : pos + 4 + n].decode()
    string()
    _, flags, _, _, n_states, _ = take("<iiQqqq")
    for bit in (1, 2):
        if flags & bit:
            take("<i")
            string()
            _, size = take("<qq")
            for _ in range(size):
                string()
                take("<q")
    wsize = 8 if arc_type == "log64" else 4
    fields, arc = {}, 0
    for q in range(n_states):
        fields[pos] = ("final", q, wsize)
        pos += wsize
        (k,) = take("<q")
        for _ in range(k):
            fields[pos + 8] = ("arc", arc, wsize)
            arc += 1
            pos += 12 + wsize
    assert pos == len(buf), "the layout walk must cover the whole file"
    return fields


def _weights(t) -> tuple[list[float], list[float]]:
    """(arc weights in file order, final weights) of a transducer read back, native."""
    a = t.arrays()
    return a.weight.tolist(), a.final.tolist()


_FST_BASE = {}


def _fst_base(tmp_path: Path) -> bytes:
    if not _FST_BASE:
        write_fst(_machine(), tmp_path / "base.fst")
        _FST_BASE["bytes"] = (tmp_path / "base.fst").read_bytes()
    return _FST_BASE["bytes"]


@_FUZZ
@given(data=st.data())
def test_a_flipped_bit_of_an_fst_file_changes_at_most_the_weight_it_lands_in(tmp_path, data):
    base = _fst_base(tmp_path)
    fields = _layout(base)
    want_arcs, want_finals = _weights(read_fst(tmp_path / "base.fst"))
    at, bit = data.draw(st.integers(0, len(base) - 1)), data.draw(st.integers(0, 7))
    buf = bytearray(base)
    buf[at] ^= 1 << bit
    try:
        t = _read_bytes(tmp_path, bytes(buf), read_fst, "f.fst")
    except RatkitError as exc:
        assert isinstance(exc, (ValueError, TypeError, LookupError)), type(exc).__mro__
        assert "f.fst" in str(exc)
        return
    got_arcs, got_finals = _weights(t)
    hit = next(((start, f) for start, f in fields.items() if start <= at < start + f[2]), None)
    if hit is not None:  # the flipped weight reads as the value of its flipped bytes; nothing else moves
        start, (kind, index, size) = hit
        (value,) = struct.unpack_from("<d" if size == 8 else "<f", buf, start)
        assert not math.isnan(value) and value != -math.inf  # those are refused
        (want_arcs if kind == "arc" else want_finals)[index] = value
    assert (got_arcs, got_finals) == (want_arcs, want_finals)


@_FUZZ
@given(data=st.data())
def test_a_truncated_fst_file_is_always_refused(tmp_path, data):
    base = _fst_base(tmp_path)
    cut = data.draw(st.integers(0, len(base) - 1))
    with pytest.raises(FstFormatError, match="f.fst: "):
        _read_bytes(tmp_path, base[:cut], read_fst, "f.fst")
