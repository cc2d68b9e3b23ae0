"""Shared by the tests of the command line: run a command, record what ratkit.plots drew, read PNGs."""

from __future__ import annotations

import struct

import pytest

from ratkit.cli._main import main


def run(argv, capsys):
    """(exit code, stdout, stderr) of ``ratkit ARGV`` in this process."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def record_plots(monkeypatch, name):
    """Wrap ``ratkit.plots.NAME`` so that every call's arguments and returned data are kept."""
    from ratkit import plots

    calls = []
    real = getattr(plots, name)

    def wrapper(*args, **kwargs):
        data = real(*args, **kwargs)
        calls.append({"args": args, "kwargs": kwargs, "data": data})
        return data

    monkeypatch.setattr(plots, name, wrapper)
    return calls


def png_size(path):
    """(width, height) of a PNG file, after checking its signature and IHDR chunk."""
    raw = path.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    assert raw[12:16] == b"IHDR"
    return struct.unpack(">II", raw[16:24])


needs_matplotlib = pytest.mark.skipif(
    __import__("importlib.util").util.find_spec("matplotlib") is None, reason="needs the plot extra"
)
