"""``python -m bench``: run every benchmark — each ``bench/<suite>/`` package's ``main()`` and
each ``bench/<name>.py`` module's ``main()`` — or only the ones named: ``python -m bench kernels``."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys

import bench

#: Benchmarks inside a suite that the suite's own ``main()`` does not run: ``python -m bench``
#: runs them after the suites, ``python -m bench NAME`` alone. One line per benchmark.
EXTRA = {
    "from_transducer": "bench.kernels.from_transducer",
}


def _call(main) -> int:
    """main() or main([]) — suites with an argparse main take their defaults."""
    params = inspect.signature(main).parameters
    return int((main([]) if params else main()) or 0)


def main(argv: list[str] | None = None) -> int:
    wanted = set(sys.argv[1:] if argv is None else argv)
    status = 0
    for info in sorted(pkgutil.iter_modules(bench.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or (wanted and info.name not in wanted):
            continue
        suite = importlib.import_module(f"bench.{info.name}")
        if hasattr(suite, "main"):
            print(f"\n===== bench.{info.name} =====", flush=True)
            status |= _call(suite.main)
    for name, module in EXTRA.items():
        if not wanted or name in wanted:
            print(f"\n===== {module} =====", flush=True)
            status |= _call(importlib.import_module(module).main)
    return status


if __name__ == "__main__":
    sys.exit(main())
