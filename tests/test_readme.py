"""The README is an introduction whose examples run as written (issue 34).

Its Python blocks run in order in one namespace, as a reader pasting them into one session
would run them, in an empty working folder, with every warning an error (an example must run
cleanly as shown). Then each ``ratkit ...`` line of its shell blocks runs, in the same folder,
on the files those blocks wrote: exit status 0 and nothing on standard error that looks like a
warning or a traceback.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import warnings
from pathlib import Path

import pytest

from ratkit.cli._main import main

README = Path(__file__).resolve().parents[1] / "README.md"

#: An introduction, not a reference manual: the reference lives on the documentation site.
MAX_LINES = 220


def python_blocks(text: str) -> list[str]:
    """The ```python fenced blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)


def shell_commands(text: str) -> list[list[str]]:
    """The arguments of every ``ratkit ...`` line of the ```sh blocks (indented ones included),
    comments dropped."""
    commands = []
    for _, body in re.findall(r"^( *)```sh\n(.*?)^\1```", text, re.M | re.S):
        for line in body.splitlines():
            words = shlex.split(line, comments=True)
            if words[:1] == ["ratkit"]:
                commands.append(words[1:])
    return commands


def run_python_blocks(blocks: list[str]) -> dict:
    namespace: dict = {"__name__": "__main__"}
    for number, code in enumerate(blocks, 1):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, f"README.md, Python block {number}", "exec"), namespace)
    return namespace


def test_python_and_shell_blocks_are_found():
    text = "x\n```python\na = 1\n```\n- item\n\n  ```sh\n  ratkit demo   # comment\n  make test\n  ```\n"
    assert python_blocks(text) == ["a = 1\n"]
    assert shell_commands(text) == [["demo"]]


def test_readme_is_an_introduction():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; the reference belongs in docs/guide"
    headings = [line for line in lines if line.startswith("## ")]
    for section in ("## Install", "## Two commands", "## A five-minute tour", "## Where to go next"):
        assert section in headings


@pytest.fixture(scope="module")
def readme_session(tmp_path_factory):
    """The README's Python blocks run in order in one namespace, in a fresh folder."""
    folder = tmp_path_factory.mktemp("readme")
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    with contextlib.chdir(folder), warnings.catch_warnings():
        warnings.simplefilter("error")
        namespace = run_python_blocks(blocks)
    return folder, blocks, namespace


def test_readme_python_blocks_run_as_written(readme_session):
    folder, blocks, namespace = readme_session
    assert len(blocks) >= 4  # one per part of the tour
    # what the blocks say they produce
    assert namespace["model"] is not None
    assert {"splice.zip", "splice.tsv", "ratings.csv"} <= {p.name for p in folder.iterdir()}


def test_readme_shell_commands_run_cleanly(readme_session, capsys):
    folder, _, _ = readme_session
    commands = shell_commands(README.read_text(encoding="utf-8"))
    assert len(commands) >= 5
    for argv in commands:
        with contextlib.chdir(folder), warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                status = main(argv)
            except SystemExit as exc:
                status = exc.code
        err = capsys.readouterr().err
        assert status in (0, None), f"ratkit {shlex.join(argv)} exited {status}: {err}"
        assert not re.search(r"Warning|Traceback|error:", err), f"ratkit {shlex.join(argv)} printed: {err}"
