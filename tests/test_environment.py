"""The RATKIT_* environment variables: one strict reader, bad values refused by name.

Issue 35, class 6: ``RATKIT_MAX_BYTES=inf`` (or ``1e999``) raised a raw OverflowError at
import without naming the variable, ``RATKIT_MAX_BYTES=2.9`` was read as 2 bytes, and
``RATKIT_TRACEBACK=0`` switched tracebacks on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ratkit
import ratkit.limits as limits
from ratkit.exceptions import ParameterError

ROOT = str(Path(ratkit.__file__).resolve().parent.parent)
NAMES = ["RATKIT_MAX_BYTES", "RATKIT_MAX_STATES", "RATKIT_TRACEBACK"]


def _python(code: str, **variables: str) -> subprocess.CompletedProcess:
    """``python -c CODE`` with these RATKIT_* variables (and no others)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RATKIT_")}
    env.update(variables, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


# expected values computed by hand: 2**30 = 1073741824
BYTES = [
    ("1000000", 1_000_000),
    ("1e6", 1_000_000),
    ("4G", 4 * 1073741824),
    ("4g", 4 * 1073741824),
    ("4GiB", 4 * 1073741824),
    ("512M", 512 * 1048576),
    ("1.5G", 1610612736),
    ("64K", 65536),
    (" 77 ", 77),
]
BAD_BYTES = [
    "inf",
    "1e999",
    "2.9",
    "-5",
    "0",
    "abc",
    "nan",
    "4GB",
    "1.5",
    "0x10",
    "1e-3",
    "4 G B",
    "9223372036854775808",
]


@pytest.mark.parametrize(("text", "expected"), BYTES)
def test_max_bytes_reads_whole_numbers_and_binary_units(monkeypatch, text, expected):
    monkeypatch.setenv("RATKIT_MAX_BYTES", text)
    assert limits.max_bytes() == expected


@pytest.mark.parametrize("text", BAD_BYTES)
def test_a_bad_max_bytes_is_refused_by_name_when_the_limit_is_read(monkeypatch, text):
    monkeypatch.setenv("RATKIT_MAX_BYTES", text)
    with pytest.raises(ParameterError) as info:
        limits.max_bytes()
    message = str(info.value)
    assert f"RATKIT_MAX_BYTES is {text!r}" in message and "whole positive number of bytes" in message
    assert "4G" in message  # what is accepted, by example
    with pytest.raises(ParameterError, match="RATKIT_MAX_BYTES"):  # and by every check that reads it
        limits.check_bytes(8, "a thing")


@pytest.mark.parametrize("text", ["", "   "])
def test_a_blank_variable_is_unset(monkeypatch, text):
    monkeypatch.delenv("RATKIT_MAX_BYTES", raising=False)
    unset = limits.max_bytes()
    monkeypatch.setenv("RATKIT_MAX_BYTES", text)
    monkeypatch.setenv("RATKIT_MAX_STATES", text)
    assert limits.max_states() == 10**7
    assert limits.max_bytes() == unset  # the default (re-measured at most once a second)


@pytest.mark.parametrize("text", ["2.9", "4G", "-1", "inf", "many"])
def test_max_states_takes_a_whole_count_without_units(monkeypatch, text):
    monkeypatch.setenv("RATKIT_MAX_STATES", text)
    with pytest.raises(ParameterError, match=f"RATKIT_MAX_STATES is {text!r}; it must be a whole positive number"):
        limits.max_states()


def test_set_limits_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("RATKIT_MAX_BYTES", "1000")
    with limits.limits(max_bytes=5000):
        assert limits.max_bytes() == 5000
    assert limits.max_bytes() == 1000


@pytest.mark.parametrize("text", ["inf", "1e999", "2.9"])
def test_importing_ratkit_with_a_bad_variable_does_not_fail(text):
    """The regression: an OverflowError at import, naming nothing."""
    done = _python("import ratkit, ratkit.limits, ratkit.recsys; print('imported')", RATKIT_MAX_BYTES=text)
    assert done.returncode == 0 and done.stdout.strip() == "imported", done.stderr


# -- the command line ---------------------------------------------------------------------------
_CLI = "import sys; from ratkit.cli import main; sys.exit(main(sys.argv[1:]))"


def _ratkit(*argv: str, **variables: str) -> subprocess.CompletedProcess:
    """``ratkit ARGV`` in a fresh interpreter with these RATKIT_* variables (and no others)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RATKIT_")}
    env.update(variables, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", _CLI, *argv], env=env, capture_output=True, text=True, timeout=300)


def test_every_variable_is_read_by_the_one_reader():
    """No module reads os.environ itself, and every RATKIT_* name in the package is declared."""
    import re

    from ratkit._environment import VARIABLES

    assert sorted(VARIABLES) == NAMES
    package = Path(ratkit.__file__).parent
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name != "_environment.py":
            assert not re.search(r"os\.environ\.get|os\.getenv|os\.environ\[", text), path
        for name in re.findall(r"RATKIT_[A-Z_]*[A-Z]", text):
            assert name in VARIABLES, (path, name)


@pytest.mark.parametrize("name", NAMES)
def test_the_command_line_refuses_a_bad_variable_on_one_line_before_any_work(name):
    done = _ratkit("kernels", "eval", "--kernel", '{"family": "ngram", "n": 1}', "ab", "ab", **{name: "maybe"})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"ratkit kernels eval: error: The environment variable {name} is 'maybe'; it must be")


@pytest.mark.parametrize(
    ("text", "shown"),
    [("0", False), ("1", True), ("true", True), ("FALSE", False), ("yes", True), ("no", False), ("", False)],
)
def test_ratkit_traceback_is_read_as_a_boolean(text, shown):
    done = _ratkit("kernels", "eval", "--kernel", '{"family": "nope"}', "ab", "ab", RATKIT_TRACEBACK=text)
    assert done.returncode == 2
    assert ("Traceback (most recent call last)" in done.stderr) is shown
    assert done.stderr.rstrip().splitlines()[-1].startswith("ratkit kernels eval: error:")


def test_a_bad_ratkit_traceback_is_refused_by_name():
    done = _ratkit("kernels", "eval", "--kernel", '{"family": "nope"}', "ab", "ab", RATKIT_TRACEBACK="maybe")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        "ratkit kernels eval: error: The environment variable RATKIT_TRACEBACK is 'maybe'; it must be one of 1, 0, "
        "true, false, yes, no (any case). Correct it, or unset it for the default."
    )


@pytest.mark.parametrize("text", ["inf", "1e999", "2.9", "-5", "0", "abc"])
def test_the_command_line_names_a_bad_max_bytes(text):
    done = _ratkit("kernels", "eval", "--kernel", '{"family": "ngram", "n": 1}', "ab", "ab", RATKIT_MAX_BYTES=text)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "OverflowError" not in done.stderr
    assert f"RATKIT_MAX_BYTES is {text!r}" in done.stderr


def test_the_command_line_reads_a_unit():
    done = _ratkit("kernels", "eval", "--kernel", '{"family": "ngram", "n": 1}', "ab", "ab", RATKIT_MAX_BYTES="4G")
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == 2.0  # unigram counts: a·a + b·b
