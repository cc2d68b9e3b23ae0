"""A memory-mapped Gram in ≥ 50 blocks: peak RSS against its budget, and an interrupted-then-resumed run (issue 19).

Usage: ``python -m bench.scale.memory [--n 5] [--docs 6000] [--blocks 64] [--kill-after 0.4]``

1. ``ngram(n).gram(X, out=<tmp>/gram.npy, block_bytes=B, n_jobs=1)`` on the first ``--docs`` ModApte
   training stories, B giving ``--blocks`` row blocks, run in a fresh child process so that its memory is
   its own. The child reads its resident set from ``/proc/self/status``: VmRSS just before the call
   (the baseline: interpreter, imports, the stories; read after a warm-up call on 20 stories, so that
   the modules and caches the call sets up on first use — ≈ 40 MiB, whatever the matrix's size — are in
   it, the warm-up's freed memory handed back with ``malloc_trim``; the VmRSS before the warm-up is
   shown too), then the high-water mark VmHWM of the feature stage
   and of the block loop separately (the mark is reset between them by writing 5 to
   ``/proc/self/clear_refs``), and ``resource.getrusage`` ru_maxrss for itself and its children over its
   whole life. Budget = baseline + the CSR features the blocks read + in-flight × B, with in-flight = 2
   (the tile being computed and the one being written and checked; n_jobs = 1). The file is compared with the
   in-memory ``kernel.gram(X)`` computed here.
2. The same call in a child process killed with SIGKILL once ``--kill-after`` of the blocks are listed in
   ``gram.npy.manifest.json``; then ``resume=True`` here. Checked: after the kill no ``gram.npy`` exists
   (only the ``.partial`` file and the manifest), the resumed run computes only the blocks the manifest
   does not list, and its matrix equals the in-memory one. Timed against an uninterrupted run into a
   fresh file in this process.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from threadpoolctl import threadpool_limits

from bench.process_memory import reset_peak, status
from bench.scale import DEFAULT_REUTERS, context, reuters_bodies
from bench.scale.gram import block_bytes_for, compare
from ratkit._memory import trim_heap

_ROOT = Path(__file__).resolve().parents[2]
MiB = 2**20


def _csr_bytes(F: Any) -> int:
    return int(F.data.nbytes + F.indices.nbytes + F.indptr.nbytes)


def child(args: argparse.Namespace) -> int:
    """The measured run (``--child OUT``): prints one JSON line of memory figures."""
    from ratkit.automata.kernels import blocked as _blocked
    from ratkit.automata.kernels import gram_file, ngram

    docs = reuters_bodies(args.reuters, args.docs)
    k = ngram(args.n)
    B = block_bytes_for(len(docs), len(docs), args.blocks)
    marks: dict[str, Any] = {}
    real_block_work = _blocked._block_work

    def block_work(*a: Any, **kw: Any) -> Any:
        work, shared, mirror = real_block_work(*a, **kw)
        marks["features peak"] = status("VmHWM")
        marks["features bytes"] = _csr_bytes(shared[0].value)
        features.extend(s.value for s in shared)
        marks["rss after features"] = status("VmRSS")
        reset_peak()
        return work, shared, mirror

    out = Path(args.child)
    features: list[Any] = []
    marks["baseline, cold"] = status("VmRSS")
    # what the call imports and fills on first use (joblib's machinery, scipy.sparse, the n-gram
    # extractor): a warm-up call on a few stories with another kernel object, its file removed and
    # the memory it freed handed back to the system, before the baseline is read
    warm = out.with_name("warm-up.npy")
    ngram(args.n).gram(docs[:20], n_jobs=1, out=warm, block_bytes=block_bytes_for(20, 20, 4), show_progress=False)
    for path in (warm, gram_file.manifest_path(warm)):
        path.unlink()
    gc.collect()
    trim_heap()
    marks["baseline"] = status("VmRSS")
    reset_peak()
    start = time.perf_counter()
    with mock.patch.object(_blocked, "_block_work", block_work):
        G = k.gram(docs, n_jobs=1, out=out, block_bytes=B, show_progress=False)
    marks["seconds"] = time.perf_counter() - start
    marks["blocks peak"] = status("VmHWM")
    marks["blocks"] = len(json.loads(gram_file.manifest_path(out).read_text())["done"])
    marks["block bytes"] = B
    marks["shape"] = list(G.shape)
    del G
    # the first (widest) block alone: how much one block's product needs above the resident set
    rows = -(-len(docs) // args.blocks)
    before = status("VmRSS")
    reset_peak()
    tile = _blocked._feature_block(features[0], features[1], 0, rows, 0)
    marks["one block transient"] = status("VmHWM") - before
    marks["tile bytes"] = int(tile.nbytes)
    del tile
    marks["ru_maxrss self"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    marks["ru_maxrss children"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(json.dumps(marks))
    return 0


def _child_command(args: argparse.Namespace, out: Path, mode: str) -> list[str]:
    return [
        sys.executable, "-m", "bench.scale.memory", mode, str(out), "--reuters", args.reuters,
        "--n", str(args.n), "--docs", str(args.docs), "--blocks", str(args.blocks),
    ]  # fmt: skip


def run_to_kill(args: argparse.Namespace) -> int:
    """``--child-run OUT``: the plain run that the parent kills."""
    from ratkit.automata.kernels import ngram

    docs = reuters_bodies(args.reuters, args.docs)
    B = block_bytes_for(len(docs), len(docs), args.blocks)
    ngram(args.n).gram(docs, n_jobs=1, out=Path(args.child_run), block_bytes=B, show_progress=False)
    return 0


def _done_blocks(manifest: Path) -> int:
    with contextlib.suppress(OSError, ValueError):
        return len(json.loads(manifest.read_text(encoding="utf-8"))["done"])
    return 0


def memory_section(args: argparse.Namespace, folder: Path, reference: np.ndarray) -> bool:
    out = folder / "measured.npy"
    proc = subprocess.run(_child_command(args, out, "--child"), cwd=_ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(proc.stderr)
        raise SystemExit("the measured child failed")
    m = json.loads(proc.stdout.strip().splitlines()[-1])
    diff, rel = compare(np.load(out, mmap_mode="r"), reference)
    in_flight = 2
    budget = m["baseline"] + m["features bytes"] + in_flight * m["block bytes"]
    cold_budget = m["baseline, cold"] + m["features bytes"] + in_flight * m["block bytes"]
    n = m["shape"][0]
    print(f"\n### Memory-mapped Gram, {n} stories, {m['blocks']} blocks of {m['block bytes']:,} bytes (n_jobs=1)\n")
    print(f"Matrix {n}² × 8 = {n * n * 8 / MiB:.0f} MiB on disk; run {m['seconds']:.2f} s in the child.\n")
    print("| quantity | MiB |")
    print("|---|---|")
    rows = [
        ("VmRSS before the warm-up call (the baseline of the first runs)", m["baseline, cold"]),
        ("budget with that baseline", cold_budget),
        ("baseline VmRSS before the call, after the warm-up (interpreter, imports, stories)", m["baseline"]),
        ("CSR features the blocks read", m["features bytes"]),
        (f"in-flight blocks: {in_flight} × block_bytes", in_flight * m["block bytes"]),
        ("**budget** = baseline + features + in-flight blocks", budget),
        ("peak VmHWM, feature stage (extraction transients included)", m["features peak"]),
        ("VmRSS after the feature stage", m["rss after features"]),
        ("**peak VmHWM, block loop**", m["blocks peak"]),
        ("ru_maxrss self, whole child life (includes parsing the SGML files)", m["ru_maxrss self"]),
        ("first block's product alone, peak above the resident set (`_feature_block`)", m["one block transient"]),
        ("of which the tile itself", m["tile bytes"]),
        ("ru_maxrss children", m["ru_maxrss children"]),
        ("the whole matrix in memory, for scale", n * n * 8),
    ]
    for label, value in rows:
        print(f"| {label} | {value / MiB:.1f} |")
    within = m["blocks peak"] <= budget
    print(
        f"\nBlock loop peak {m['blocks peak'] / MiB:.1f} MiB against budget {budget / MiB:.1f} MiB: "
        f"{'within' if within else 'OVER'} ({(m['blocks peak'] - m['baseline']) / MiB:.1f} MiB above the baseline; "
        f"{'within' if m['blocks peak'] <= cold_budget else 'over'} the budget without the warm-up, "
        f"{cold_budget / MiB:.1f} MiB); "
        f"feature-stage peak {m['features peak'] / MiB:.1f} MiB "
        f"({'within' if m['features peak'] <= budget else 'over'} the budget). "
        f"File against the in-memory Gram: max abs diff {diff:.1e}, max rel diff {rel:.1e}."
    )
    return rel <= 1e-9


def resume_section(args: argparse.Namespace, folder: Path, docs: list[str], reference: np.ndarray) -> bool:
    from ratkit.automata.kernels import blocked as _blocked
    from ratkit.automata.kernels import gram_file, ngram

    k = ngram(args.n)
    n = len(docs)
    B = block_bytes_for(n, n, args.blocks)
    total = -(-n // -(-n // args.blocks))
    fresh = folder / "fresh.npy"
    start = time.perf_counter()
    k.gram(docs, n_jobs=1, out=fresh, block_bytes=B, show_progress=False)
    t_fresh = time.perf_counter() - start

    out = folder / "resumed.npy"
    manifest = gram_file.manifest_path(out)
    want = max(1, int(args.kill_after * total))
    proc = subprocess.Popen(_child_command(args, out, "--child-run"), cwd=_ROOT)
    while proc.poll() is None and _done_blocks(manifest) < want:
        time.sleep(0.005)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    code = proc.wait()
    listed = _done_blocks(manifest)
    partial = gram_file.partial_path(out).exists()
    looks_complete = out.exists()

    computed: list[int] = []
    real_map = _blocked.parallel_map

    def counting_map(func: Any, tasks: Any, **kw: Any) -> Any:
        computed.append(len(tasks))
        return real_map(func, tasks, **kw)

    start = time.perf_counter()
    with mock.patch.object(_blocked, "parallel_map", counting_map):
        G = k.gram(docs, n_jobs=1, out=out, block_bytes=B, resume=True, show_progress=False)
    t_resume = time.perf_counter() - start
    diff, rel = compare(np.asarray(G), reference)
    redone = computed[0] if computed else 0
    print(f"\n### Interrupted, then resumed ({n} stories, {total} blocks, n_jobs=1)\n")
    print("| step | value |")
    print("|---|---|")
    print(f"| uninterrupted run into a fresh file | {t_fresh:.2f} s |")
    print(f"| child killed (SIGKILL) once ≥ {want} blocks were listed; exit code | {code} |")
    print(f"| blocks listed in the manifest after the kill | {listed} of {total} |")
    print(f"| after the kill: `.partial` exists / `gram.npy` exists | {partial} / {looks_complete} |")
    print(f"| blocks computed by `resume=True` | {redone} (expected {total - listed}) |")
    print(f"| resumed run | {t_resume:.2f} s ({t_resume / t_fresh:.2f}× the uninterrupted run) |")
    print(f"| resumed file against the in-memory Gram: max abs diff, max rel diff | {diff:.1e}, {rel:.1e} |")
    return rel <= 1e-9 and not looks_complete and redone == total - listed and code == -signal.SIGKILL


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.scale.memory", description=__doc__.split("\n\n")[0])
    p.add_argument("--reuters", default=DEFAULT_REUTERS)
    p.add_argument("--n", type=int, default=5, help="n-gram order (default 5)")
    p.add_argument("--docs", type=int, default=6000, help="first this many ModApte training stories (default 6000)")
    p.add_argument("--blocks", type=int, default=64, help="row blocks, ≥ 50 (default 64)")
    p.add_argument("--kill-after", type=float, default=0.4, help="kill once this fraction of blocks is listed")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--child-run", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    threadpool_limits(1)
    if args.child:
        return child(args)
    if args.child_run:
        return run_to_kill(args)
    if args.blocks < 50:
        p.error(f"--blocks must be at least 50 (the brief's size); got {args.blocks}")
    from ratkit.automata.kernels import ngram

    print(f"# Memory-mapped Gram (issue 19): {context()}", flush=True)
    docs = reuters_bodies(args.reuters, args.docs)
    reference = ngram(args.n).gram(docs)
    with tempfile.TemporaryDirectory(prefix="ratkit-bench-") as tmp:
        ok = memory_section(args, Path(tmp), reference)
        ok &= resume_section(args, Path(tmp), docs, reference)
    print(f"\nAll checks passed: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
