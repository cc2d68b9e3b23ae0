"""The inputs of issue 14 that crashed, hung or crawled, timed against a reference checkout.

Each case runs in its own child process (with a timeout and an address-space cap), once
on this checkout and once on ``--reference``, an older checkout of ratkit (e.g. a
``git worktree`` of the commit before the fix), in the same run; the table gives both
times and what each child ended with (its value, an error, a signal or the timeout).

    git worktree add --detach /tmp/ratkit-ref 8309dd2
    python -m bench.kernels.issue14 --reference /tmp/ratkit-ref
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

_SETUP = """
import random, time
rng = random.Random(0)
def text(n, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(n))
"""

#: (name, code printing "result <value>" ; the timed part is the whole child after imports)
CASES: list[tuple[str, str]] = [
    (
        "edit distance 2·10⁴ × 10³, tropical",
        "from ratkit.automata.kernels import edit_distance\nx = text(20000, 'abcd'); y = x[::20]\n"
        "t = time.perf_counter(); v = edit_distance()(x, y); print('result', v, time.perf_counter() - t)",
    ),
    (
        "edit distance Gram, 100 strings of 40–60",
        "from ratkit.automata.kernels import edit_distance\n"
        "X = [text(rng.randint(40, 60), 'acgt') for _ in range(100)]\n"
        "t = time.perf_counter(); v = edit_distance().gram(X).sum(); print('result', v, time.perf_counter() - t)",
    ),
    (
        "gappy(3, 0.5)(x, x[:3]), |x| = 10⁵ over 200 symbols",
        "from ratkit.automata.kernels import gappy\nx = text(100000, [chr(0x4E00 + i) for i in range(200)])\n"
        "t = time.perf_counter(); v = gappy(3, 0.5)(x, x[:3]); print('result', v, time.perf_counter() - t)",
    ),
    (
        "subsequence Gram, 100 strings of 40–60",
        "from ratkit.automata.kernels import subsequence\n"
        "X = [text(rng.randint(40, 60), 'acgt') for _ in range(100)]\n"
        "t = time.perf_counter(); v = subsequence().gram(X).sum(); print('result', v, time.perf_counter() - t)",
    ),
    (
        "mismatch(5, 2) features, |x| = 2·10⁴ over 20 letters",
        "from ratkit.automata.kernels import mismatch\nx = text(20000, 'abcdefghijklmnopqrst')\n"
        "k = mismatch(5, 2, 'abcdefghijklmnopqrst')\n"
        "t = time.perf_counter(); fm, F = k.fit_features([x]); print('result', F.nnz, time.perf_counter() - t)",
    ),
    (
        "Σ 0.99999999ᵏ (a loop of probability 1 − 1e-8)",
        "from ratkit.automata import from_arcs, shortest_distance\n"
        "m = from_arcs([(0, 'a', 0.99999999, 0)], 0, {0: 1.0})\n"
        "t = time.perf_counter(); v = shortest_distance(m); print('result', v, time.perf_counter() - t)",
    ),
    (
        "random cyclic machine, 3·10⁴ states, probability 0.9 per row",
        "import numpy as np\nfrom ratkit.automata import from_arcs, shortest_distance\nn = 30000\n"
        "g = np.random.default_rng(0); arcs = []\n"
        "for q in range(n):\n    d = g.integers(0, n, 3); w = g.random(3); w = 0.9 * w / w.sum()\n"
        "    arcs += [(q, 'a', float(wi), int(di)) for wi, di in zip(w, d)]\n"
        "m = from_arcs(arcs, 0, {q: 0.1 for q in range(n)})\n"
        "t = time.perf_counter(); v = shortest_distance(m); print('result', v, time.perf_counter() - t)",
    ),
]


def _run(root: Path, code: str, timeout: float, memory_mb: int) -> tuple[str, float | None]:
    def limit() -> None:  # pragma: no cover - in the child
        size = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    env = dict(os.environ, PYTHONPATH=str(root))
    source = textwrap.dedent(_SETUP) + code
    try:
        done = subprocess.run(
            [sys.executable, "-c", source],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=limit,
            env=env,
            cwd=root,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:g} s", None
    if done.returncode < 0:
        return f"killed by signal {-done.returncode} ({done.stderr.strip().splitlines()[-1:]})", None
    lines = [line for line in done.stdout.splitlines() if line.startswith("result ")]
    if done.returncode or not lines:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return f"error: {last[:90]}", None
    _, value, seconds = lines[-1].split()
    return f"{float(value):.10g}", float(seconds)


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parents[2]
    p = argparse.ArgumentParser(prog="python -m bench.kernels.issue14", description=__doc__.splitlines()[0])
    p.add_argument("--reference", type=Path, help="an older ratkit checkout to time against (skipped if absent)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per child (default 60)")
    p.add_argument("--memory-mb", type=int, default=3000, help="address-space cap per child (default 3000)")
    args = p.parse_args(argv)
    roots = [("this checkout", here)]
    if args.reference is not None:
        roots.append(("reference", args.reference.resolve()))
    print(f"{'case':<58} " + " | ".join(f"{name:^36}" for name, _ in roots) + " | ratio")
    for case, code in CASES:
        cells, times = [], []
        for _, root in roots:
            outcome, seconds = _run(root, code, args.timeout, args.memory_mb)
            times.append(seconds)
            cells.append(f"{'-' if seconds is None else f'{seconds:8.3f} s'} {outcome[:26]:<26}")
        ratio = ""
        if len(times) == 2 and None not in times:
            ratio = f"{times[1] / times[0]:.1f}×"
        elif len(times) == 2 and times[0] is not None:
            ratio = "reference failed"
        print(f"{case:<58} " + " | ".join(cells) + f" | {ratio}", flush=True)
    return 0


if __name__ == "__main__":
    start = time.perf_counter()
    status = main()
    print(f"({time.perf_counter() - start:.0f} s)")
    sys.exit(status)
