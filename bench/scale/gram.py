"""Gram matrices on 1 process, 2 local processes and a 2-worker Dask LocalCluster, in one run (issue 19).

Usage: ``python -m bench.scale.gram [--n 5] [--docs 0] [--blocks 32] [--graphs 200] [--repeat 3]``

1. ``ngram(n)`` Gram of the ModApte training stories (``--docs 0``: all 7 063) through the blocked path
   ``kernel.gram(X, n_jobs=..., block_bytes=B)`` with B giving ``--blocks`` row blocks, on (a) 1 process,
   (b) ``n_jobs=2`` local (loky) processes, (c) a ``distributed.LocalCluster(n_workers=2,
   threads_per_worker=1, processes=True)`` under ``joblib.parallel_config(backend="dask")``. Every result
   is compared with the family's own in-memory ``kernel.gram(X)`` (one process), also timed.
   The wall time is split by wrapping ratkit's internal steps for the run (``unittest.mock``; nothing is
   changed): feature extraction in blocks (``RationalKernel._specialized_in_blocks``, parallel), the
   vocabulary merge (``vocabulary_matrix``, serial), the rest of the feature stage (alphabet, CSR copies,
   serial), and the block loop (``parallel_map`` of the blocks: products F_I F_{[a,n)}ᵀ, the tiles' trip
   back, and their placement into the matrix by this process, ``_place``, which overlaps the workers'
   products and is also shown alone). The extraction runs in blocks only when it is estimated to pay
   (``ratkit.automata.kernels.rational.EXTRACTION_SECONDS_PER_BYTE``); when it stays in this process it
   counts in the serial remainder. Since the workers write their blocks into a file themselves
   (issue 19, second round), what this process still does inside the block loop is shown as placement
   (``_place`` in one process, ``_write_tile`` for a block a worker sent back) and checks
   (``_confirmed``: reading each block back and comparing its CRC-32); reading the finished matrix
   back (a copy-on-write map of the workers' temporary file) comes after the loop, in the serial
   remainder. Parallel part = extraction (when in blocks) + block loop; serial remainder = the rest of the
   wall time;
   the speed-up of the block loop alone is shown too. On Dask the task stream also gives the workers'
   own compute seconds. "No-op blocks" is the same ``parallel_map`` with a task that returns a zero tile
   of the block's shape: the cost of shipping the shared data and the tiles (as before the workers wrote
   the file), without the products.
2. The random-walk Gram (λ = 0.5/ρmax², unlabelled, start = stop = "ones", the settings of
   bench.graphs.scaling) on the first ``--graphs`` PROTEINS graphs, same three set-ups, ``--graph-blocks``
   blocks; this kernel has no finite feature map, so a block is ``kernel.gram(X_I, X_{[a,n)})``.

Every timing is the best of ``--repeat`` interleaved rounds (each round runs every set-up of its phase
once, so that all see the same load from other processes on the machine), in three phases, each in a
fresh child process (``--phase``; a started cluster leaves threads in its process that slow what runs
beside them): 1 process and 2 local processes, with no cluster; 1 process beside a LocalCluster with
distributed's default configuration, and that cluster; 1 process beside a LocalCluster started under
:data:`TUNED_DASK_CONFIG`, and that cluster. Each speed-up is against the 1-process run of its own phase;
one more column gives the block loop's against the 1 process of the first phase (no cluster; measured
minutes earlier, so machine drift enters it). Worker start-up is excluded (an untimed warm-up on a small
input before each set-up). BLAS is held to 1 thread in the parent (loky and the Dask nanny do the same
in the workers).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import joblib
import numpy as np
from threadpoolctl import threadpool_limits

from bench.scale import DEFAULT_REUTERS, context, reuters_bodies

#: The phases of a run, each in a fresh child process (``--phase``), and their set-ups: the
#: first of each is 1 process, the reference of that phase's speed-ups.
PHASES: dict[str, tuple[str, str]] = {
    "local": ("1 process", "2 local processes"),
    "cluster": ("1 process, beside the cluster", "2-worker LocalCluster"),
    "tuned": ("1 process, beside the tuned cluster", "2-worker LocalCluster, tuned"),
}
SETUPS = tuple(name for names in PHASES.values() for name in names)

#: The tuned cluster's Dask configuration (docs/guide/distributed.rst, "Small machines"), against
#: distributed's defaults: the nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536, so glibc
#: hands freed memory back at once and the next block faults it in again (the thread limits are
#: kept); the statistical profiler samples every worker thread each 10 ms; the event loop's
#: health check (20 ms), the system monitor (500 ms) and the memory monitor (100 ms) wake often.
TUNED_DASK_CONFIG: dict[str, Any] = {
    "distributed.nanny.pre-spawn-environ": {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1},
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "200ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def phase_of(name: str) -> str:
    return next(phase for phase, names in PHASES.items() if name in names)


def reference_of(name: str) -> str:
    """The 1-process set-up a set-up's speed-up is measured against: the one of its own phase."""
    return PHASES[phase_of(name)][0]


def block_bytes_for(n_rows: int, n_cols: int, blocks: int) -> int:
    """block_bytes that gives ``blocks`` row blocks of a float64 (n_rows, n_cols) matrix."""
    return -(-n_rows // blocks) * n_cols * 8


@contextlib.contextmanager
def local_cluster(config: dict[str, Any] | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` on a 2-worker ``LocalCluster`` (1 thread each, worker processes),
    started under the Dask configuration ``config`` (None: distributed's defaults)."""
    import dask
    import distributed

    with (
        dask.config.set(config or {}),
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@contextlib.contextmanager
def setup(name: str, client: Any) -> Iterator[int | None]:
    """The n_jobs to pass in one of :data:`SETUPS`, with the joblib backend it needs set for the block."""
    if name == reference_of(name):
        yield 1
    elif name == PHASES["local"][1]:
        yield 2
    else:
        with joblib.parallel_config(backend="dask", client=client):
            yield None


class Phases:
    """Wall seconds spent inside some of ratkit's internal steps, accumulated while :meth:`active`."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def _wrap(self, key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[key] += time.perf_counter() - start

        return timed

    def _wrap_generator(self, key: str, fn: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
        """From the call to exhaustion, the consumer's time between items included."""

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Iterator[Any]:
            start = time.perf_counter()
            try:
                yield from fn(*args, **kwargs)
            finally:
                self.seconds[key] += time.perf_counter() - start

        return timed

    @contextlib.contextmanager
    def active(self) -> Iterator[Phases]:
        from ratkit.automata.kernels import blocked as _blocked
        from ratkit.automata.kernels import rational as base

        patches = [
            (base.RationalKernel, "_specialized_in_blocks", self._wrap, "extract"),
            (base, "parallel_map", self._wrap_generator, "extract blocks"),
            (base, "vocabulary_matrix", self._wrap, "vocabulary"),
            (_blocked, "_block_work", self._wrap, "feature stage"),
            (_blocked, "parallel_map", self._wrap_generator, "block loop"),
            (_blocked, "_place", self._wrap, "place"),
            (_blocked, "_write_tile", self._wrap, "place"),
            (_blocked, "_confirmed", self._wrap, "confirm"),
        ]
        with contextlib.ExitStack() as stack:
            for owner, attr, wrap, key in patches:
                stack.enter_context(mock.patch.object(owner, attr, wrap(key, getattr(owner, attr))))
            yield self


def _task_compute_seconds(stream: list[dict[str, Any]]) -> float:
    """Σ of the workers' own compute time over the tasks of a Dask task stream."""
    return sum(s["stop"] - s["start"] for t in stream for s in t["startstops"] if s["action"] == "compute")


def _empty_block(*args: Any) -> np.ndarray:
    """A block task that reads its shared arguments and returns a zero tile of the block's shape
    (args end with start, stop, first; the second shared argument holds the columns: a matrix or a list)."""
    columns, (start, stop, first) = args[1], args[-3:]
    n_cols = columns.shape[0] if hasattr(columns, "shape") else len(columns)
    return np.zeros((stop - start, n_cols - first))


def noop_blocks(shared: tuple[Any, ...], n: int, blocks: int) -> Callable[[int | None], float]:
    """Seconds of one ``parallel_map`` of :func:`_empty_block` over the Gram's row blocks (upper part):
    the framework's cost of shipping the shared data and the tiles, without the products."""
    from ratkit._parallel import Shared, parallel_map

    per = -(-n // blocks)
    tasks = [(a, min(a + per, n), a) for a in range(0, n, per)]

    def run(n_jobs: int | None) -> float:
        start = time.perf_counter()
        for _ in parallel_map(
            _empty_block, tasks, shared=tuple(Shared(x) for x in shared), n_jobs=n_jobs, ordered=False
        ):
            pass
        return time.perf_counter() - start

    return run


def run_phase(
    phase: str,
    own: Callable[[], np.ndarray],
    compute: Callable[[int | None], np.ndarray],
    warm: Callable[[int | None], Any],
    overhead: Callable[[int | None], float],
    repeat: int,
) -> dict[str, Any]:
    """One phase's results (meant for a fresh process: see :func:`main`): ``own()`` (the
    reference values, timed), then ``repeat`` interleaved rounds of the phase's set-ups, with
    its cluster (if any) alive throughout. In each set-up, ``compute(n_jobs)`` is timed with
    its phases, after an untimed ``warm(n_jobs)`` (worker start-up) and before
    ``overhead(n_jobs)``; each figure is the best of its rounds. A Dask cluster leaves threads
    in its process even once closed, so every phase runs in a process of its own: beside them,
    the same 2-process n-gram Gram took 5.25–5.35 s against 4.32–4.86 s in a process that
    never started one."""
    names = PHASES[phase]
    out: dict[str, dict[str, Any]] = {name: {"wall": float("inf"), "no-op": float("inf")} for name in names}
    start = time.perf_counter()
    reference = np.asarray(own())
    t_own = time.perf_counter() - start

    def measure(round_: int, name: str, client: Any) -> None:
        dask = client is not None and name != names[0]
        with setup(name, client) as n_jobs:
            warm(n_jobs)
            phases = Phases()
            with phases.active(), distributed_stream(client if dask else None) as stream:
                start = time.perf_counter()
                G = np.asarray(compute(n_jobs))
                wall = time.perf_counter() - start
            best = out[name]
            if wall < best["wall"]:
                worker = _task_compute_seconds(stream.data) if dask else None
                diff, rel = compare(G, reference)
                best.update(wall=wall, phases=dict(phases.seconds), diff=diff, rel=rel, **{"worker compute": worker})
            del G
            best["no-op"] = min(best["no-op"], overhead(n_jobs))
        print(f"  {phase} round {round_ + 1}, {name}: {wall:.2f} s", flush=True)

    cluster = (
        contextlib.nullcontext() if phase == "local" else local_cluster(TUNED_DASK_CONFIG if phase == "tuned" else None)
    )
    with cluster as client:
        for round_ in range(repeat):
            for name in names:
                measure(round_, name, client)
    return {"setups": out, "own": t_own}


def distributed_stream(client: Any) -> Any:
    """``distributed.get_task_stream(client)`` on Dask, else a context yielding an empty stream."""
    if client is None:
        return contextlib.nullcontext(argparse.Namespace(data=[]))
    import distributed

    return distributed.get_task_stream(client)


def compare(G: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """(max |G − reference|, that over max |reference|)."""
    diff = float(np.max(np.abs(G - reference))) if G.size else 0.0
    return diff, diff / max(float(np.max(np.abs(reference))), 1e-300)


def split(phases: dict[str, float], wall: float) -> dict[str, float]:
    """The wall time as parallel part + serial remainder (see the module docstring)."""
    extract = phases.get("extract", 0.0)
    blocks = phases.get("extract blocks", 0.0)  # 0 when the extraction stayed in this process
    stage = phases.get("feature stage", 0.0)
    vocab = phases.get("vocabulary", 0.0)
    loop = phases.get("block loop", 0.0)
    return {
        "extract": extract,
        "vocabulary": vocab,
        "stage rest": stage - extract - vocab,
        "loop": loop,
        "place": phases.get("place", 0.0),
        "confirm": phases.get("confirm", 0.0),
        "parallel": (extract if blocks else 0.0) + loop,
        "serial": wall - (extract if blocks else 0.0) - loop,
    }


def report(title: str, results: dict[str, dict[str, Any]], own: dict[str, float]) -> bool:
    """Print the table of one kernel; True when every result equals the reference within 1e-9 relative."""

    print(f"\n### {title}\n")
    seconds = ", ".join(f"{t:.2f} s ({phase})" for phase, t in own.items())
    print(f"Family's own in-memory `kernel.gram(X)` (1 process, the reference values of each phase): {seconds}\n")
    print(
        "| set-up | wall s | speed-up | extraction s | vocabulary s | feature stage rest s | block loop s "
        "| of which placement s | of which checks s | speed-up (block loop) | parallel part s "
        "| speed-up (parallel part) | serial remainder s | speed-up (block loop) against 1 process without a cluster "
        "| Dask workers' compute s | no-op blocks s | max abs diff | max rel diff |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    alone = split(results[SETUPS[0]]["phases"], results[SETUPS[0]]["wall"])
    for name in SETUPS:
        r = results[name]
        base = results[reference_of(name)]
        base_split = split(base["phases"], base["wall"])
        s = split(r["phases"], r["wall"])
        ok &= r["rel"] <= 1e-9
        worker = "—" if r["worker compute"] is None else f"{r['worker compute']:.2f}"
        print(
            f"| {name} | {r['wall']:.2f} | {base['wall'] / r['wall']:.2f}× | {s['extract']:.2f} "
            f"| {s['vocabulary']:.2f} | {s['stage rest']:.2f} | {s['loop']:.2f} | {s['place']:.2f} "
            f"| {s['confirm']:.2f} | {base_split['loop'] / max(s['loop'], 1e-9):.2f}× "
            f"| {s['parallel']:.2f} | {base_split['parallel'] / max(s['parallel'], 1e-9):.2f}× | {s['serial']:.2f} "
            f"| {alone['loop'] / max(s['loop'], 1e-9):.2f}× | {worker} | {r['no-op']:.2f} | {r['diff']:.1e} "
            f"| {r['rel']:.1e} |"
        )
    return ok


def ngram_section(args: argparse.Namespace) -> dict[str, Any]:
    from ratkit.automata.kernels import ngram

    docs = reuters_bodies(args.reuters, args.docs)
    n = len(docs)
    k = ngram(args.n)
    B = block_bytes_for(n, n, args.blocks)
    print(
        f"\n## ngram({args.n}) Gram, {n} ModApte training stories (mean {np.mean([len(d) for d in docs]):.0f} chars): "
        f"block_bytes = {B:,} ({-(-n // args.blocks)} rows, {args.blocks} blocks), "
        f"{n}² × 8 = {n * n * 8 / 2**20:.0f} MiB",
        flush=True,
    )
    _, F = k.fit_features(docs)
    small = docs[:300]
    return run_phase(
        args.phase,
        lambda: k.gram(docs),
        lambda jobs: k.gram(docs, n_jobs=jobs, block_bytes=B),
        lambda jobs: k.gram(small, n_jobs=jobs, block_bytes=block_bytes_for(300, 300, 4)),
        noop_blocks((F, F), n, args.blocks),
        args.repeat,
    ) | {"title": f"ngram({args.n}), {n} stories, {args.blocks} blocks"}


def graph_section(args: argparse.Namespace) -> dict[str, Any]:
    from bench.graphs import DEFAULT_DATA, load_dataset, max_radius
    from ratkit.automata.kernels import random_walk

    graphs, _ = load_dataset(args.data or DEFAULT_DATA, "PROTEINS")
    rho = max_radius(graphs)
    sub = graphs[: args.graphs] if args.graphs > 0 else graphs
    m = len(sub)
    nodes = np.array([g.n_nodes for g in sub])
    k = random_walk(0.5 / rho**2, labels="none", adjacency="raw", start="ones", stop="ones")
    B = block_bytes_for(m, m, args.graph_blocks)
    print(
        f"\n## random-walk Gram, the first {m} of {len(graphs)} PROTEINS graphs ({nodes.sum()} nodes, "
        f"max {nodes.max()}), λ = 0.5/ρmax² = {0.5 / rho**2:.6g}: {args.graph_blocks} blocks",
        flush=True,
    )
    small = sub[:20]
    return run_phase(
        args.phase,
        lambda: k.gram(sub),
        lambda jobs: k.gram(sub, n_jobs=jobs, block_bytes=B),
        lambda jobs: k.gram(small, n_jobs=jobs, block_bytes=block_bytes_for(20, 20, 2)),
        noop_blocks((k, sub, sub, {}), m, args.graph_blocks),
        args.repeat,
    ) | {"title": f"random walk, {m} PROTEINS graphs, {args.graph_blocks} blocks"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.scale.gram", description=__doc__.split("\n\n")[0])
    p.add_argument("--reuters", default=DEFAULT_REUTERS)
    p.add_argument("--n", type=int, default=5, help="n-gram order (default 5)")
    p.add_argument("--docs", type=int, default=0, help="first this many stories; 0: all (default)")
    p.add_argument("--blocks", type=int, default=32, help="row blocks of the n-gram Gram (default 32)")
    p.add_argument("--data", default=None, help="data root holding tudataset/ (default ../shared/data)")
    p.add_argument("--graphs", type=int, default=200, help="first this many PROTEINS graphs; 0: all (default 200)")
    p.add_argument("--graph-blocks", type=int, default=8, help="row blocks of the random-walk Gram (default 8)")
    p.add_argument("--repeat", type=int, default=3, help="best of this many runs per set-up (default 3)")
    p.add_argument("--skip", nargs="*", default=[], choices=["ngram", "graphs"])
    p.add_argument("--phase", choices=list(PHASES), help=argparse.SUPPRESS)  # a child's one phase
    args = p.parse_args(argv)
    threadpool_limits(1)
    sections = [
        (name, fn) for name, fn in (("ngram", ngram_section), ("graphs", graph_section)) if name not in args.skip
    ]
    if args.phase is not None:
        for name, section in sections:
            print(_RESULT + json.dumps({"section": name} | section(args)), flush=True)
        return 0
    print(f"# Gram scale-out (issue 19): {context()}", flush=True)
    found: dict[str, dict[str, Any]] = defaultdict(lambda: {"setups": {}, "own": {}})
    for phase in PHASES:
        for line in _child([*(argv if argv is not None else sys.argv[1:]), "--phase", phase]):
            section = found[line["section"]]
            section["setups"].update(line["setups"])
            section["own"][phase] = line["own"]
            section["title"] = line["title"]
    ok = True
    for name, _ in sections:
        ok &= report(found[name]["title"], found[name]["setups"], found[name]["own"])
    print(f"\nEvery result equals the 1-process reference within 1e-9 relative: {ok}")
    return 0 if ok else 1


_RESULT = "RESULT "


def _child(argv: list[str]) -> list[dict[str, Any]]:
    """Run this benchmark's one phase in a fresh process, echoing its progress; its results."""
    proc = subprocess.Popen(
        [sys.executable, "-W", "ignore", "-m", "bench.scale.gram", *argv],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    results = []
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(_RESULT):
            results.append(json.loads(line[len(_RESULT) :]))
        else:
            print(line, end="", flush=True)
    if proc.wait() != 0:
        raise RuntimeError(f"the benchmark's phase {argv[-1]!r} failed (exit code {proc.returncode})")
    return results


if __name__ == "__main__":
    sys.exit(main())
