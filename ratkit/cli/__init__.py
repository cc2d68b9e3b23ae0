"""The ``ratkit`` command line. All argument parsing lives in this package: the library
modules never import argparse. Each ``_<part>.py`` module contributes subcommands through
``register_commands(subparsers)``; :mod:`._main` assembles them."""

from typing import Any

from ratkit.cli._main import build_parser, main

__all__ = ["main", "build_parser", "USER_ERRORS"]


def __getattr__(name: str) -> Any:
    if name == "USER_ERRORS":  # see ratkit.cli._main: built on first use
        from ratkit.cli import _main

        return _main.USER_ERRORS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
