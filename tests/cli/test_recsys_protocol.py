"""One protocol, one answer: the user guide's Python recommender example (docs/guide/recsys.rst,
formerly in the README) and ``ratkit recsys evaluate`` print the same numbers, with the same
protocol, on the same data (issue 20)."""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
from pathlib import Path

import numpy as np

from tests.cli._helpers import run

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "recsys.rst"


def rst_python_blocks(text: str) -> list[str]:
    """The ``.. code-block:: python`` blocks of a reStructuredText page, dedented."""
    return [
        textwrap.dedent(body) for body in re.findall(r"^\.\. code-block:: python\n\n((?:(?: {3}.*)?\n)+)", text, re.M)
    ]


def _readme_example() -> str:
    blocks = rst_python_blocks(GUIDE.read_text(encoding="utf-8"))
    (example,) = [b for b in blocks if "prepare_leave_k_out" in b and "print(report.to_text())" in b]
    return example


def test_rst_python_blocks_are_read_whole():
    page = "x\n\n.. code-block:: python\n\n   a = 1\n\n   b = 2\nText.\n\n.. code-block:: sh\n\n   ls\n"
    assert rst_python_blocks(page) == ["a = 1\n\nb = 2\n"]


def _movielens(tmp_path):
    r = np.random.default_rng(1)
    rows = [
        f"{u}\t{i}\t{r.integers(1, 6) if r.random() < 0.8 else 5}\t{u * 100 + i}"
        for u in range(1, 61)
        for i in range(1, 41)
        if r.random() < 0.5
    ]
    folder = tmp_path / "ml-100k"
    folder.mkdir()
    (folder / "u.data").write_text("\n".join(rows) + "\n")
    return folder


def test_readme_example_and_cli_print_the_same_report(tmp_path, capsys):
    folder = _movielens(tmp_path)
    code = _readme_example().replace("path/to/ml-100k", str(folder))
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, str(GUIDE), "exec"), {})
    python_out = buffer.getvalue().strip()
    status, cli_out, err = run(["recsys", "evaluate", "--model", "mfauc", "--data", folder], capsys)
    assert status == 0, err
    assert cli_out.strip() == python_out
    # the protocol is printed once, above the numbers, and it is the documented one
    protocol_line, model_line, header, *rows = python_out.splitlines()
    assert protocol_line.startswith("protocol: ") and "rating >= 4" in protocol_line
    assert "users with >= 10 positives" in protocol_line
    assert "leave-5-out" in protocol_line and "seed=0" in protocol_line
    assert sum("seed=0" in line for line in python_out.splitlines()) == 1
    from ratkit.recsys import MFAUC

    assert model_line.startswith("model MFAUC: MFAUC(")
    assert "random_state=0" in model_line  # the model is seeded too, with its default loss
    assert f"loss={MFAUC().loss!r}" in model_line
    assert header.split() == ["metric", "MFAUC"]
    values = [re.fullmatch(r"(\w+(?:@\d+)?) +([0-9.]+)", row) for row in rows]
    assert all(values) and len(values) == 19  # 6 metrics at k = 1, 3, 5, and AUC


def test_the_other_protocol_is_reached_by_the_documented_changes(tmp_path, capsys):
    """What the guide says to change (min_positives=0 / --min-positives 0, the loss) changes
    both sides alike."""
    folder = _movielens(tmp_path)
    code = (
        _readme_example()
        .replace("path/to/ml-100k", str(folder))
        .replace("min_positives=10", "min_positives=0")
        .replace("MFAUC(random_state=0)", 'MFAUC(loss="logistic", random_state=0)')
    )
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, str(GUIDE), "exec"), {})
    argv = ["recsys", "evaluate", "--data", folder, "--min-positives", "0", "--param", 'loss="logistic"']
    status, cli_out, err = run(argv, capsys)
    assert status == 0, err
    assert cli_out.strip() == buffer.getvalue().strip()
    assert "users with >= 0 positives" in cli_out and "logistic" in cli_out
