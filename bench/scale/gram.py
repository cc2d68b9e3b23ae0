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
   (``ratkit.automata.kernels.base.EXTRACTION_SECONDS_PER_BYTE``); when it stays in this process it
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
once, so that all see the same load from other processes on the machine), in two phases: 1 process and 2
local processes before this process has started any Dask cluster, then, with one LocalCluster, 1 process
again and the cluster set-ups, each speed-up against the 1-process run of its own phase (a started
cluster leaves threads in this process that slow what runs beside them). Worker start-up is excluded (an
untimed warm-up on a small input before each set-up).
BLAS is held to 1 thread in this process (loky and the Dask nanny do the same in the workers). A last,
diagnostic set-up repeats the LocalCluster one with ``Shared`` given a ``dask.sizeof`` (see
``_shared_sized``): ratkit as committed does not do that.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import joblib
import numpy as np
from threadpoolctl import threadpool_limits

from bench.scale import DEFAULT_REUTERS, context, reuters_bodies

SETUPS = (
    "1 process",
    "2 local processes",
    "1 process, beside the cluster",
    "2-worker LocalCluster",
    "2-worker LocalCluster, Shared sized",
)
#: The set-ups measured before any Dask cluster exists in this process, and those measured with one.
LOCAL, BESIDE_DASK = SETUPS[:2], SETUPS[2:]


def reference_of(name: str) -> str:
    """The 1-process set-up a set-up's speed-up is measured against: the one of its own phase."""
    return SETUPS[0] if name in LOCAL else SETUPS[2]


def block_bytes_for(n_rows: int, n_cols: int, blocks: int) -> int:
    """block_bytes that gives ``blocks`` row blocks of a float64 (n_rows, n_cols) matrix."""
    return -(-n_rows // blocks) * n_cols * 8


@contextlib.contextmanager
def local_cluster() -> Iterator[Any]:
    """A ``distributed.Client`` on a 2-worker ``LocalCluster`` (1 thread each, worker processes)."""
    import distributed

    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@contextlib.contextmanager
def setup(name: str, client: Any) -> Iterator[int | None]:
    """The n_jobs to pass in one of :data:`SETUPS`, with the joblib backend it needs set for the block."""
    if name in (SETUPS[0], SETUPS[2]):
        yield 1
    elif name == SETUPS[1]:
        yield 2
    else:
        with (
            _shared_sized() if name == SETUPS[4] else contextlib.nullcontext(),
            joblib.parallel_config(backend="dask", client=client),
        ):
            yield None


@contextlib.contextmanager
def _shared_sized() -> Iterator[None]:
    """Diagnostic (not ratkit's behaviour): give :class:`ratkit._parallel.Shared` a ``dask.sizeof``, so
    that joblib's Dask backend, which scatters only arguments whose ``sizeof`` exceeds 1 kB, scatters
    the features once instead of sending them with every task (``sizeof(Shared(x))`` is 48 bytes)."""
    from dask.sizeof import sizeof

    from ratkit._parallel import Shared

    sizeof.register(Shared)(lambda s: sizeof(s.value))
    try:
        yield
    finally:
        del sizeof._lookup[Shared]


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
        from ratkit.automata.kernels import _blocked, base

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


def run_setups(
    own: Callable[[], np.ndarray],
    compute: Callable[[int | None], np.ndarray],
    warm: Callable[[int | None], Any],
    overhead: Callable[[int | None], float],
    repeat: int,
) -> tuple[dict[str, dict[str, Any]], np.ndarray, float]:
    """(results per set-up, reference, its seconds), in two phases of ``repeat`` interleaved rounds.

    Phase 1, before this process has started any Dask cluster: ``own()`` (the reference), then 1
    process and 2 local processes. Phase 2, with one LocalCluster for the whole phase: 1 process
    again (the reference of this phase's speed-ups), the cluster, and the diagnostic. A Dask
    cluster leaves threads in this process (the client's event loop) after it is closed: beside
    them, the same 2-process n-gram Gram took 5.25–5.35 s against 4.32–4.86 s in a process that
    never started one. In each set-up, ``compute(n_jobs)`` is timed with its phases, after an
    untimed ``warm(n_jobs)`` (worker start-up) and before ``overhead(n_jobs)``; each figure is the
    best of its rounds."""
    out: dict[str, dict[str, Any]] = {name: {"wall": float("inf"), "no-op": float("inf")} for name in SETUPS}
    t_own, reference = float("inf"), None

    def measure(round_: int, name: str, client: Any) -> None:
        dask = name in BESIDE_DASK[1:]
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
                best.update(wall=wall, phases=dict(phases.seconds), G=G, **{"worker compute": worker})
            best["no-op"] = min(best["no-op"], overhead(n_jobs))
        print(f"  round {round_ + 1}, {name}: {wall:.2f} s", flush=True)

    for round_ in range(repeat):
        start = time.perf_counter()
        reference = np.asarray(own())
        t_own = min(t_own, time.perf_counter() - start)
        for name in LOCAL:
            measure(round_, name, None)
    with local_cluster() as client:
        for round_ in range(repeat):
            for name in BESIDE_DASK:
                measure(round_, name, client)
    return out, reference, t_own


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


def report(title: str, results: dict[str, dict[str, Any]], reference: np.ndarray, t_own: float) -> bool:
    """Print the table of one kernel; True when every result equals the reference within 1e-9 relative."""

    print(f"\n### {title}\n")
    print(f"Family's own in-memory `kernel.gram(X)` (1 process, the reference values): {t_own:.2f} s\n")
    print(
        "| set-up | wall s | speed-up | extraction s | vocabulary s | feature stage rest s | block loop s "
        "| of which placement s | of which checks s | speed-up (block loop) | parallel part s "
        "| speed-up (parallel part) | serial remainder s | Dask workers' compute s | no-op blocks s "
        "| max abs diff | max rel diff |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    for name in SETUPS:
        r = results[name]
        base = results[reference_of(name)]
        base_split = split(base["phases"], base["wall"])
        s = split(r["phases"], r["wall"])
        diff, rel = compare(r["G"], reference)
        ok &= rel <= 1e-9
        worker = "—" if r["worker compute"] is None else f"{r['worker compute']:.2f}"
        print(
            f"| {name} | {r['wall']:.2f} | {base['wall'] / r['wall']:.2f}× | {s['extract']:.2f} "
            f"| {s['vocabulary']:.2f} | {s['stage rest']:.2f} | {s['loop']:.2f} | {s['place']:.2f} "
            f"| {s['confirm']:.2f} | {base_split['loop'] / max(s['loop'], 1e-9):.2f}× "
            f"| {s['parallel']:.2f} | {base_split['parallel'] / max(s['parallel'], 1e-9):.2f}× | {s['serial']:.2f} "
            f"| {worker} | {r['no-op']:.2f} | {diff:.1e} | {rel:.1e} |"
        )
    return ok


def ngram_section(args: argparse.Namespace) -> bool:
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
    results, reference, t_own = run_setups(
        lambda: k.gram(docs),
        lambda jobs: k.gram(docs, n_jobs=jobs, block_bytes=B),
        lambda jobs: k.gram(small, n_jobs=jobs, block_bytes=block_bytes_for(300, 300, 4)),
        noop_blocks((F, F), n, args.blocks),
        args.repeat,
    )
    return report(f"ngram({args.n}), {n} stories, {args.blocks} blocks", results, reference, t_own)


def graph_section(args: argparse.Namespace) -> bool:
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
    results, reference, t_own = run_setups(
        lambda: k.gram(sub),
        lambda jobs: k.gram(sub, n_jobs=jobs, block_bytes=B),
        lambda jobs: k.gram(small, n_jobs=jobs, block_bytes=block_bytes_for(20, 20, 2)),
        noop_blocks((k, sub, sub, {}), m, args.graph_blocks),
        args.repeat,
    )
    return report(f"random walk, {m} PROTEINS graphs, {args.graph_blocks} blocks", results, reference, t_own)


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
    args = p.parse_args(argv)
    threadpool_limits(1)
    print(f"# Gram scale-out (issue 19): {context()}", flush=True)
    ok = True
    if "ngram" not in args.skip:
        ok &= ngram_section(args)
    if "graphs" not in args.skip:
        ok &= graph_section(args)
    print(f"\nEvery result equals the 1-process reference within 1e-9 relative: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
