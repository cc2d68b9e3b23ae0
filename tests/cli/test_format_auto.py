"""--format auto on tab-free files: one sequence per line, said on stderr; labelled-looking files refused.

Regression (review, issue 20): a CSV-labelled file (``pos,ababab``) was read as unlabelled
lines under --format auto, the label glued into each sequence, with exit status 0.
"""

from __future__ import annotations

import pytest

from ratkit.cli._common import SEQUENCE_FORMATS, resolve_format
from ratkit.exceptions import DataFormatError


def test_a_csv_labelled_file_is_refused_naming_the_separator(tmp_path):
    path = tmp_path / "reads.txt"
    path.write_text("pos,ababab\nneg,acacac\npos,abab\nneg,caca\n")
    with pytest.raises(DataFormatError, match=r"splits at ','.*'neg', 'pos'.*--format lines"):
        resolve_format(str(path), "auto", SEQUENCE_FORMATS)
    assert resolve_format(str(path), "lines", SEQUENCE_FORMATS) == "lines"


def test_plain_sequences_are_read_as_lines_and_it_is_said(tmp_path, capsys):
    path = tmp_path / "reads.txt"
    path.write_text("ababab\nacacac\nthe cat, the dog, the end\n")
    assert resolve_format(str(path), "auto", SEQUENCE_FORMATS) == "lines"
    assert "as unlabelled sequences, one per line" in capsys.readouterr().err


def test_sentences_with_commas_are_not_mistaken_for_labels(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("".join(f"sentence {i}, with a comma in it\n" for i in range(10)))
    assert resolve_format(str(path), "auto", SEQUENCE_FORMATS) == "lines"
