"""The ratkit command line: --help everywhere, plugins list."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from ratkit.cli._main import build_parser, main


def _commands(parser, prefix=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name)
                yield from _commands(sub, (*prefix, name))


@pytest.mark.parametrize("command", [(), *list(_commands(build_parser()))], ids=" ".join)
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*command, "--help"])
    assert exc.value.code == 0
    assert "usage: ratkit" in capsys.readouterr().out


def test_plugins_list(capsys):
    assert main(["plugins", "list"]) == 0
    out = capsys.readouterr().out
    for kind in ("kernel", "learner", "recommender"):
        assert kind in out


def test_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "ratkit.cli._main", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("ratkit ")
