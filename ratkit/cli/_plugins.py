"""``ratkit plugins ...`` subcommands."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ratkit.cli._common import PLUGIN_KINDS

if TYPE_CHECKING:
    from ratkit.plugins.registry import PluginInfo

__all__ = ["register_commands"]

_HEADER = ("KIND", "NAME", "DISTRIBUTION", "SUMMARY")


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    plugins = subparsers.add_parser("plugins", help="Inspect the plugin registry.")
    sub = plugins.add_subparsers(dest="plugins_command", metavar="SUBCOMMAND")
    sub.required = True
    listing = sub.add_parser(
        "list",
        help="List every registered plugin, built-in and third-party: kind, name, providing distribution, summary.",
    )
    listing.add_argument("--kind", choices=PLUGIN_KINDS, help="Only list plugins of this kind (default: every kind).")
    listing.set_defaults(func=_list)


def _row(info: PluginInfo) -> tuple[str, str, str, str]:
    return info.kind, info.name, info.distribution or "-", info.summary


def _list(args: argparse.Namespace) -> int:
    from ratkit.plugins.registry import describe_all, refresh

    refresh()
    rows = [_HEADER, *map(_row, describe_all(args.kind))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER) - 1)]
    for row in rows:
        print("  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[-1]]).rstrip())
    return 0
