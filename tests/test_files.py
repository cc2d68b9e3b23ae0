"""Writing files: a temporary file beside the target, renamed over it only once complete."""

from __future__ import annotations

import os

import pytest

from ratkit._files import atomic_path, atomic_write, check_output_path
from ratkit.exceptions import OutputPathError


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="half-way"):
        with atomic_write(target) as fh:
            fh.write("new, but not all of it")
            raise RuntimeError("half-way")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["out.txt"]
    with atomic_write(target) as fh:
        fh.write("new")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["out.txt"]


def test_the_written_file_keeps_the_old_permissions_or_gets_the_umask_default(tmp_path):
    old = tmp_path / "old.bin"
    old.write_bytes(b"x")
    os.chmod(old, 0o640)
    with atomic_write(old, "wb", encoding=None) as fh:
        fh.write(b"y")
    assert old.stat().st_mode & 0o777 == 0o640
    umask = os.umask(0o022)
    try:
        with atomic_path(tmp_path / "new.npz") as tmp:
            assert tmp.suffix == ".part" and tmp.name.endswith(".npz.part")
            tmp.write_bytes(b"z")
    finally:
        os.umask(umask)
    assert (tmp_path / "new.npz").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize(
    "path, message",
    [(".", "is a folder"), ("missing/out.zip", "its folder 'missing' does not exist"), ("", "is a folder")],
)
def test_unwritable_output_paths_are_refused_before_any_work(tmp_path, monkeypatch, path, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputPathError, match=message):
        check_output_path(path)
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputPathError, match="'file' is not a folder"):
        check_output_path("file/out.zip")
    with pytest.raises(ValueError, match="for writing only"):
        with atomic_write("x", "a"):
            pass
