"""Rules about the repository itself: no machine paths in the tests, argparse only in ``ratkit/cli``.

Each rule is a function over a folder, run on the repository and, with a planted offender,
on a copy in ``tmp_path`` (so that the rule is seen to catch what it is meant to catch).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPOSITORY, SHARED_DATA, shared_data_path

# Top folders of this machine's (and other machines') home and work trees; spelled without
# their slashes so that this file does not contain what it looks for.
_MACHINE_ROOTS = ("work", "home", "Users")
_MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:" + "|".join(_MACHINE_ROOTS) + ")/")


def _text_files(root: Path):
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:  # binary fixtures (zip files) hold no source text
                continue


def machine_path_literals(root: Path) -> list[str]:
    """``file:line: text`` of every absolute path into a machine's home or work tree in the
    files under ``root``: in string literals of Python files, anywhere in other text files."""
    found = []
    for path, text in _text_files(root):
        if path.suffix == ".py":
            strings = [
                (node.lineno, node.value)
                for node in ast.walk(ast.parse(text, filename=str(path)))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
            ]
        else:
            strings = list(enumerate(text.splitlines(), start=1))
        found += [f"{path.relative_to(root)}:{line}: {s!r}" for line, s in strings if _MACHINE_PATH.search(s)]
    return found


def argparse_imports(package: Path) -> list[str]:
    """``file:line`` of every import of argparse in the modules of ``package`` outside its ``cli`` folder."""
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative.parts[0] == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module or ""]
            else:
                continue
            if any(m == "argparse" or m.startswith("argparse.") for m in modules):
                found.append(f"{relative}:{node.lineno}")
    return found


def test_no_test_names_an_absolute_path_of_this_machine():
    offenders = machine_path_literals(REPOSITORY / "tests")
    assert not offenders, (
        "Tests must not name absolute paths of a machine; find the benchmark data with "
        "tests.conftest.shared_data_path(name) (../shared/data beside the repository), or use tmp_path:\n"
        + "\n".join(offenders)
    )


def test_library_modules_do_not_import_argparse():
    offenders = argparse_imports(REPOSITORY / "ratkit")
    assert not offenders, "argparse belongs to ratkit/cli; imported by:\n" + "\n".join(offenders)


def test_a_planted_machine_path_is_caught(tmp_path):
    root = "/" + _MACHINE_ROOTS[0] + "/shared/data/reuters21578"
    home = "/" + _MACHINE_ROOTS[1] + "/someone/data"
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_bad.py").write_text(
        f"from pathlib import Path\n\nDATA = Path({root!r})\n\n\ndef test():\n    open(f'{home}/x')\n"
    )
    (tmp_path / "notes.txt").write_text(f"first line\nsee {home}\n")
    (tmp_path / "test_fine.py").write_text(
        "# a comment is not a literal\nDATA = 'shared/data/work/x'\nURL = 'https://example.org/home/page'\n"
    )
    (tmp_path / "blob.zip").write_bytes(b"PK\x03\x04\xff\xfe" + root.encode())
    offenders = machine_path_literals(tmp_path)
    assert [o.split(": ", 1)[0] for o in offenders] == ["notes.txt:2", "sub/test_bad.py:3", "sub/test_bad.py:7"]


def test_a_planted_argparse_import_is_caught(tmp_path):
    package = tmp_path / "pkg"
    (package / "cli").mkdir(parents=True)
    (package / "sub").mkdir()
    (package / "cli" / "_main.py").write_text("import argparse\n")  # allowed: the command line
    (package / "fine.py").write_text("'''Mentions argparse in a docstring.'''\nimport argparsers\nimport os\n")
    (package / "bad.py").write_text("import os, argparse as ap\n")
    (package / "sub" / "worse.py").write_text("def f():\n    from argparse import ArgumentParser\n")
    assert argparse_imports(package) == ["bad.py:1", "sub/worse.py:2"]


def test_shared_data_is_found_beside_the_repository():
    assert (REPOSITORY / "pyproject.toml").is_file() and (REPOSITORY / "tests" / "conftest.py").is_file()
    assert SHARED_DATA == REPOSITORY.parent / "shared" / "data"
    if not (SHARED_DATA / "reuters21578").is_dir():
        pytest.skip(f"no Reuters-21578 at {SHARED_DATA / 'reuters21578'}")
    assert shared_data_path("reuters21578") == SHARED_DATA / "reuters21578"


def test_missing_shared_data_skips_naming_the_path_looked_at():
    with pytest.raises(pytest.skip.Exception, match=r"'no-such-set' is not at .*shared/data/no-such-set"):
        shared_data_path("no-such-set")
