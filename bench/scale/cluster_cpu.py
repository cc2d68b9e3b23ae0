"""Where a 2-worker LocalCluster's time goes on the 5-gram Gram of the ModApte stories (issue 19).

Two measurements, each on a fresh cluster in this process:

1. The CPU an idle cluster burns: user + system CPU-seconds a second of the calling process (the
   scheduler, the client and the nannies run on its event loop) and of each worker process, over
   ``--idle`` seconds with nothing submitted; for distributed's defaults and for
   :data:`bench.scale.gram.TUNED_DASK_CONFIG`.
2. ``--calls`` calls of ``kernel.gram(X, block_bytes=B)`` (32 blocks) on the tuned cluster: the
   call's timeline (feature stage, broadcast of the features, each worker's first and last block
   from the task stream, its compute seconds and idle gaps) and the CPU-seconds of the calling
   process (by thread: the main thread and the event loop) and of each worker.

Usage: ``python -m bench.scale.cluster_cpu [--reuters PATH] [--idle 10] [--calls 3]`` (about 2 minutes).
"""

from __future__ import annotations

import argparse
import time
from typing import Any
from unittest import mock

import joblib
import psutil
from threadpoolctl import threadpool_limits

from bench.scale import DEFAULT_REUTERS, reuters_bodies
from bench.scale.gram import TUNED_DASK_CONFIG, block_bytes_for, local_cluster


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def idle_cpu(config: dict[str, Any] | None, seconds: float) -> list[float]:
    """CPU-seconds a second of the calling process, then of each worker, on an idle cluster."""
    me = psutil.Process()
    with threadpool_limits(1), local_cluster(config):
        time.sleep(3)  # past start-up
        processes = [me, *me.children(recursive=True)]
        before = [_cpu(p) for p in processes]
        time.sleep(seconds)
        return [(_cpu(p) - b) / seconds for p, b in zip(processes, before, strict=True)]


def calls(docs: list[str], n_calls: int) -> list[dict[str, Any]]:
    """The timeline and CPU of ``n_calls`` Gram calls on the tuned cluster."""
    import distributed

    import ratkit._parallel as parallel
    import ratkit.automata.kernels.blocked as blocked
    from ratkit.automata.kernels import ngram

    n, kernel = len(docs), ngram(5)
    B = block_bytes_for(n, n, 32)
    marks: dict[str, float] = {}
    real_work, real_broadcast = blocked._block_work, parallel._broadcast

    def work(*args: Any, **kwargs: Any) -> Any:
        result = real_work(*args, **kwargs)
        marks["features"] = time.time()
        return result

    class Broadcast:
        def __init__(self, shared: Any) -> None:
            self.context = real_broadcast(shared)

        def __enter__(self) -> Any:
            entered = self.context.__enter__()
            marks["broadcast"] = time.time()
            return entered

        def __exit__(self, *exc: Any) -> Any:
            return self.context.__exit__(*exc)

    me = psutil.Process()
    out = []
    with threadpool_limits(1), local_cluster(TUNED_DASK_CONFIG) as client:
        with joblib.parallel_config(backend="dask", client=client):  # warm-up: imports, connections
            kernel.gram(docs[:300], block_bytes=block_bytes_for(300, 300, 4))
        workers = me.children(recursive=True)
        for _ in range(n_calls):
            threads0 = {t.id: t.user_time + t.system_time for t in me.threads()}
            cpu0 = [_cpu(p) for p in (me, *workers)]
            with (
                mock.patch.object(blocked, "_block_work", work),
                mock.patch.object(parallel, "_broadcast", Broadcast),
                distributed.get_task_stream(client) as stream,
                joblib.parallel_config(backend="dask", client=client),
            ):
                t0 = time.time()
                kernel.gram(docs, block_bytes=B)
                t1 = time.time()
            cpu1 = [_cpu(p) for p in (me, *workers)]
            threads1 = {t.id: t.user_time + t.system_time for t in me.threads()}
            per_worker: dict[str, dict[str, float]] = {}
            for task in stream.data:
                for s in task["startstops"]:
                    if s["action"] == "compute":
                        w = per_worker.setdefault(task["worker"], {"first": 1e30, "last": 0.0, "compute": 0.0})
                        w["first"], w["last"] = min(w["first"], s["start"]), max(w["last"], s["stop"])
                        w["compute"] += s["stop"] - s["start"]
            out.append(
                {
                    "wall": t1 - t0,
                    "features": marks["features"] - t0,
                    "broadcast": marks["broadcast"] - t0,
                    "workers": [
                        {
                            "first": w["first"] - t0,
                            "last": w["last"] - t0,
                            "compute": w["compute"],
                            "idle": w["last"] - w["first"] - w["compute"],
                        }
                        for w in per_worker.values()
                    ],
                    "cpu": [b - a for a, b in zip(cpu0, cpu1, strict=True)],
                    "threads": sorted((threads1[t] - threads0.get(t, 0.0) for t in threads1), reverse=True)[:2],
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.scale.cluster_cpu", description=__doc__.split("\n\n")[0])
    p.add_argument("--reuters", default=DEFAULT_REUTERS)
    p.add_argument("--idle", type=float, default=10.0, help="seconds of idle measurement per cluster (default 10)")
    p.add_argument("--calls", type=int, default=3, help="Gram calls on the tuned cluster (default 3)")
    args = p.parse_args(argv)
    for name, config in (("distributed's defaults", None), ("tuned", TUNED_DASK_CONFIG)):
        rates = idle_cpu(config, args.idle)
        print(
            f"idle cluster ({name}): calling process {rates[0]:.3f} CPU-s/s, workers "
            + ", ".join(f"{r:.3f}" for r in rates[1:])
            + f"; total {sum(rates):.3f}",
            flush=True,
        )
    docs = reuters_bodies(args.reuters, 0)
    print(f"\n5-gram Gram of {len(docs)} stories, 32 blocks, tuned 2-worker LocalCluster (s from the call start)")
    for k, c in enumerate(calls(docs, args.calls), start=1):
        workers = " | ".join(
            f"worker: first block {w['first']:.2f}, last done {w['last']:.2f}, compute {w['compute']:.2f}, "
            f"idle {w['idle']:.2f}"
            for w in c["workers"]
        )
        print(
            f"call {k}: wall {c['wall']:.2f}, features done {c['features']:.2f}, broadcast done {c['broadcast']:.2f}; "
            f"{workers}\n   CPU-s: calling process {c['cpu'][0]:.2f} (busiest threads "
            + ", ".join(f"{t:.2f}" for t in c["threads"])
            + "), workers "
            + ", ".join(f"{x:.2f}" for x in c["cpu"][1:]),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
