"""The ceiling of a 2-process speed-up on this machine for the 5-gram Gram's block products (issue 19).

The same products F_I·F_{[a,n)}ᵀ that ``kernel.gram(X, n_jobs=2)`` computes, split into two halves of
equal work (longest-processing-time assignment of the blocks by entries computed) and run by two
independent processes started together, each reading F from its own file: no joblib, no Dask, nothing
shipped, no tile written. Against one process doing every block, and a pure-CPU compiled loop on 1 and
2 processes (whether the two cores are two cores). Whatever ratkit's parallel layer adds is the gap
between its block loop and this ceiling.

Usage: ``python -m bench.scale.ceiling [--reuters PATH] [--rounds 3]`` (about 1 minute).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import scipy.sparse as sp

from bench.scale import DEFAULT_REUTERS, reuters_bodies

ROWS_PER_BLOCK = 221  # bench.scale.gram's 32 blocks of the 7 063 stories


def _halves(n: int, per: int, parts: int) -> list[list[tuple[int, int]]]:
    """Blocks [a, a + per) of the upper part, assigned to ``parts`` workers by decreasing work."""
    blocks = [(a, min(a + per, n)) for a in range(0, n, per)]
    loads, out = [0] * parts, [[] for _ in range(parts)]
    for a, b in sorted(blocks, key=lambda ab: -(ab[1] - ab[0]) * (n - ab[0])):
        j = loads.index(min(loads))
        out[j].append((a, b))
        loads[j] += (b - a) * (n - a)
    return out


def _work(path: str, blocks: list[tuple[int, int]]) -> float:
    from threadpoolctl import threadpool_limits

    from ratkit.automata.kernels.blocked import _feature_block

    F = sp.load_npz(path).tocsr()
    with threadpool_limits(1):
        start = time.perf_counter()
        for a, b in blocks:
            _feature_block(F, F, a, b, a)
        return time.perf_counter() - start


def _spin(n: int) -> float:
    from ratkit._jit import njit

    @njit
    def loop(n):  # pragma: no cover - compiled
        x = 0.0
        for i in range(n):
            x += (i % 7) * 1e-9
        return x

    loop(10)
    start = time.perf_counter()
    loop(n)
    return time.perf_counter() - start


def _child(args: list[str]) -> None:
    if args[0] == "work":
        print(json.dumps(_work(args[1], json.loads(args[2]))))
    else:
        print(json.dumps(_spin(int(args[1]))))


def _together(commands: list[list[str]]) -> float:
    """The wall time of the slowest of ``commands`` started together (each prints its seconds)."""
    procs = [subprocess.Popen([sys.executable, "-m", "bench.scale.ceiling", "--child", *c], stdout=subprocess.PIPE)
             for c in commands]  # fmt: skip
    return max(float(json.loads(p.communicate()[0])) for p in procs)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        _child(argv[1:])
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.scale.ceiling", description=__doc__)
    parser.add_argument("--reuters", default=DEFAULT_REUTERS)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from ratkit.automata.kernels import ngram

    docs = reuters_bodies(args.reuters, 0)
    F, _ = ngram(5).gram_features(docs, None)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "F.npz")
        sp.save_npz(path, sp.csr_matrix(F))
        n = F.shape[0]
        whole = json.dumps(_halves(n, ROWS_PER_BLOCK, 1)[0])
        halves = [json.dumps(h) for h in _halves(n, ROWS_PER_BLOCK, 2)]
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {n} stories, {F.nnz} features; load {load}")
        products, cpu = [], []
        for _ in range(args.rounds):
            one = _together([["work", path, whole]])
            two = _together([["work", path, h] for h in halves])
            products.append((one, two))
            spin_one = _together([["spin", str(400_000_000)]])
            spin_two = _together([["spin", str(200_000_000)]] * 2)
            cpu.append((spin_one, spin_two))
        for name, rows in (("Gram block products", products), ("pure-CPU loop", cpu)):
            one, two = min(r[0] for r in rows), min(r[1] for r in rows)
            print(f"{name}: 1 process {one:.2f} s, 2 independent processes {two:.2f} s, ceiling {one / two:.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
