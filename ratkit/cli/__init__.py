"""The ``ratkit`` command line. All argument parsing lives in this package: the library
modules never import argparse. Each ``_<part>.py`` module contributes subcommands through
``register_commands(subparsers)``; :mod:`._main` assembles them."""

from ratkit.cli._main import USER_ERRORS, build_parser, main

__all__ = ["main", "build_parser", "USER_ERRORS"]
