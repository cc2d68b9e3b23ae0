"""``python -m bench``: run every suite, i.e. each ``bench/<suite>/`` package's ``main()``."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import bench


def main() -> int:
    status = 0
    for info in sorted(pkgutil.iter_modules(bench.__path__), key=lambda i: i.name):
        if info.ispkg:
            suite = importlib.import_module(f"bench.{info.name}")
            if hasattr(suite, "main"):
                status |= int(suite.main() or 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
