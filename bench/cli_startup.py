"""Start-up time of the ``ratkit`` command line (issue 20): ``--help`` must answer in < 0.5 s.

Protocol. Each command line ``.venv/bin/ratkit [COMMAND ...] --help`` — ``ratkit --help`` and
the ``--help`` of every command and subcommand the parser declares (aliases left out) — runs
``--repeats`` times in a fresh subprocess; the wall time of each run (process start to exit,
``time.perf_counter`` around ``subprocess.run``) is recorded and the best and the median are
printed. For reference, the same run times ``python -c "import ratkit.automata.kernels,
ratkit.learners, ratkit.recsys"`` (what every command imported at start-up before the lazy
imports), and each row gives its best as a fraction of that import's best.

Run from the repository root::

    .venv/bin/python -m bench.cli_startup               # 5 runs per command line, a Markdown table
    .venv/bin/python -m bench.cli_startup --repeats 10
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

#: The target of issue 20: best of 5 under this many seconds for every --help.
TARGET_S = 0.5
#: The import every command paid at start-up before the lazy imports.
REFERENCE_IMPORT = "import ratkit.automata.kernels, ratkit.learners, ratkit.recsys"


def _executable(name: str) -> str:
    """``name`` next to the running interpreter (``.venv/bin/ratkit`` under ``.venv/bin/python``)."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        raise SystemExit(f"bench.cli_startup: {path} not found; run 'make venv' first.")
    return str(path)


def command_lines() -> list[list[str]]:
    """``[]`` (``ratkit --help``) and every command and subcommand of the parser, depth first."""
    from ratkit.cli._main import build_parser

    found: list[list[str]] = [[]]

    def walk(parser: argparse.ArgumentParser, prefix: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                seen: set[int] = set()
                for name, sub in action.choices.items():
                    if id(sub) in seen:  # an alias of a command already listed
                        continue
                    seen.add(id(sub))
                    found.append([*prefix, name])
                    walk(sub, [*prefix, name])

    walk(build_parser(), [])
    return found


def wall_times(argv: Sequence[str], repeats: int) -> list[float]:
    """Wall seconds of ``repeats`` subprocess runs of ``argv`` (each must exit with status 0)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"bench.cli_startup: {' '.join(argv)} exited with {done.returncode}: {done.stderr!r}")
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli_startup", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per command line (default: 5)")
    args = parser.parse_args(argv)
    ratkit = _executable("ratkit")
    reference = wall_times([sys.executable, "-c", REFERENCE_IMPORT], args.repeats)
    ref_best = min(reference)
    rows = []
    for words in command_lines():
        times = wall_times([ratkit, *words, "--help"], args.repeats)
        rows.append((" ".join(["ratkit", *words, "--help"]), min(times), statistics.median(times)))
    print(f"python {sys.version.split()[0]} on {sys.platform}; {args.repeats} runs each; wall time per process")
    print()
    print("| command | best s | median s | best / import best |")
    print("|---|---|---|---|")
    for line, best, median in rows:
        print(f"| `{line}` | {best:.3f} | {median:.3f} | {best / ref_best:.2f} |")
    print(
        f'| reference: `python -c "{REFERENCE_IMPORT}"` | {ref_best:.3f} | {statistics.median(reference):.3f} | 1.00 |'
    )
    worst = max(rows, key=lambda r: r[1])
    verdict = "met" if worst[1] < TARGET_S else "MISSED"
    print()
    print(
        f"target < {TARGET_S} s best of {args.repeats} for every --help: {verdict} "
        f"(slowest: `{worst[0]}`, {worst[1]:.3f} s)"
    )
    return 0 if worst[1] < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
