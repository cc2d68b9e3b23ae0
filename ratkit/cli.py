"""The ``ratkit`` command line: parses arguments, calls library functions, prints.

Each part of the package contributes its own subcommands through a
``register_commands(subparsers)`` function; this module only assembles them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ratkit import __version__
from ratkit.exceptions import RatkitError

__all__ = ["main", "build_parser"]

# Modules that contribute subcommands, each with ``register_commands(subparsers)``.
_COMMAND_MODULES: tuple[str, ...] = (
    "ratkit.plugins.commands",
    "ratkit.automata.commands",
    "ratkit.recsys.commands",
    "ratkit.learners.commands",
    "ratkit.learners.commands_kernel_qp",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ratkit",
        description="Weighted finite-state transducers, rational kernels and learners.",
    )
    parser.add_argument("--version", action="version", version=f"ratkit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register_commands(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ratkit`` console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RatkitError as exc:
        print(f"ratkit {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
