"""AT&T text and OpenFst binary files: round trips and malformed input."""

from __future__ import annotations

import math
import random

import pynini
import pytest

from ratkit.automata import (
    Alphabet,
    evaluate,
    from_arcs,
    read_att,
    read_fst,
    to_att,
    write_att,
    write_fst,
)
from ratkit.exceptions import FstFormatError, NotRegulatedError

from .oracle import close, random_arcs, strings

ATT = """\
0\t1\ta\tb\t0.5
1\t2\tb\t<eps>\t0.25
0\t2\ta\tb\t0.5
2\t1.0
"""


def test_att_text_reads_the_documented_layout():
    t = read_att(ATT)
    assert evaluate(t, "ab", "b") == pytest.approx(0.125)
    assert evaluate(t, "a", "b") == pytest.approx(0.5)


@pytest.mark.parametrize("semiring", ["probability", "tropical", "log", "boolean"])
@pytest.mark.parametrize("seed", range(5))
def test_att_and_binary_round_trips(tmp_path, semiring, seed):
    arcs, start, finals = random_arcs(random.Random(seed), semiring)
    t = from_arcs(arcs, start, finals, semiring, Alphabet("ab"))
    write_att(t, tmp_path / "t.att")
    write_fst(t, tmp_path / "t.fst")
    u = read_att(tmp_path / "t.att", semiring, alphabet=Alphabet("ab"))
    v = read_fst(tmp_path / "t.fst")  # semiring recorded in the file
    assert v.semiring is t.semiring
    for x in strings(max_len=3):
        for y in strings(max_len=3):
            want = evaluate(t, x, y)
            assert close(evaluate(u, x, y), want, semiring) and close(evaluate(v, x, y), want, semiring)


def test_acceptor_layout_and_openfst_weights():
    text = "0 1 a 0.6931471805599453\n1 2 b\n2\n"
    t = read_att(text, "probability", weights="openfst")  # −ln p as fstprint writes it
    assert t.is_acceptor and evaluate(t, "ab") == pytest.approx(0.5)
    assert "a\ta\t0.5" in to_att(t) and "0.6931471805599453" in to_att(t, weights="openfst")


def test_binary_from_other_tools_needs_semiring_or_uses_arc_type(tmp_path):
    f = pynini.accep("ab", weight=1.5)
    f.write(str(tmp_path / "p.fst"))
    t = read_fst(tmp_path / "p.fst")  # standard arcs, no ratkit table: tropical
    assert t.semiring.name == "tropical" and evaluate(t, "ab") == pytest.approx(1.5)


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "0 1 a b c d e\n1\n",
            r"line 1: expected 'src dst ilabel olabel \[weight\]' or 'state \[weight\]', got 7 fields",
        ),
        ("0 x a b\n", r"line 1: state 'x' is not a non-negative integer"),
        ("0 1 a b\n-1 2 a b\n", r"line 2: state '-1' is not a non-negative integer"),
        ("0 1 a b heavy\n1\n", r"line 1: weight 'heavy' is not a number"),
        ("0 1 a b -0.5\n1\n", r"line 1: The probability semiring holds non-negative reals; got -0.5"),
        ("# only a comment\n\n", r"no states or arcs found"),
        ("0 1 <eps> <eps>\n1 0 <eps> <eps>\n1\n", r"not regulated: state [01] lies on a cycle"),
    ],
)
def test_malformed_att_files_are_reported_with_their_line(tmp_path, text, message):
    path = tmp_path / "bad.att"
    path.write_text(text)
    err = NotRegulatedError if "regulated" in message else FstFormatError
    with pytest.raises(err, match=message):
        read_att(path)


def test_att_errors_for_missing_and_binary_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="AT&T file 'nowhere.att' does not exist"):
        read_att("nowhere.att")
    (tmp_path / "b.fst").write_bytes(bytes(range(256)))
    with pytest.raises(FstFormatError, match="not a UTF-8 text file; is it a binary FST"):
        read_att(tmp_path / "b.fst")
    (tmp_path / "t.att").write_text(ATT)
    with pytest.raises(FstFormatError, match="not a readable OpenFst binary file"):
        read_fst(tmp_path / "t.att")
    with pytest.raises(FileNotFoundError, match="FST file .* does not exist"):
        read_fst(tmp_path / "missing.fst")


def test_tropical_infinity_and_symbols_with_spaces():
    t = from_arcs([(0, "a", 2.0, 1)], 0, {1: 0.0}, "tropical")
    assert read_att(to_att(t), "tropical").finals() == {1: 0.0}
    with pytest.raises(FstFormatError, match="contains whitespace"):
        to_att(from_arcs([(0, "new york", 1.0, 1)], 0, {1: 1.0}))
    assert math.isinf(evaluate(read_att(to_att(t), "tropical"), "aa"))


def test_a_symbol_spelt_epsilon_survives_att():
    t = from_arcs([(0, "ε", "ε", 0.5, 1)], 0, {1: 1.0})
    back = read_att(to_att(t))
    assert back.alphabet.symbols == ("ε",)
    assert evaluate(back, "ε", "ε") == pytest.approx(0.5)
