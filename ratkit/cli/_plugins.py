"""``ratkit plugins ...`` subcommands."""

from __future__ import annotations

import argparse

from ratkit.plugins.registry import KINDS, available, get, refresh

__all__ = ["register_commands"]


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    plugins = subparsers.add_parser("plugins", help="Inspect the plugin registry.")
    sub = plugins.add_subparsers(dest="plugins_command", metavar="SUBCOMMAND")
    sub.required = True
    listing = sub.add_parser("list", help="List every registered plugin, built-in and third-party.")
    listing.add_argument("--kind", choices=KINDS, help="Only list plugins of this kind.")
    listing.set_defaults(func=_list)


def _list(args: argparse.Namespace) -> int:
    refresh()
    for kind in [args.kind] if args.kind else KINDS:
        names = available(kind)
        print(f"{kind} ({len(names)}):")
        for name in names:
            obj = get(kind, name)
            where = f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"
            print(f"  {name:<20} {where}")
    return 0
