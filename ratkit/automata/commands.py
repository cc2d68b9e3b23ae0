"""``ratkit demo`` and the automata subcommands."""

from __future__ import annotations

import argparse

__all__ = ["register_commands"]


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser("demo", help="Run the main job on the bundled default data.")
    demo.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    print("ratkit demo: not built yet")
    return 1
