"""The tables of :mod:`bench.learners.distributed` (issue 37), from the measurements it writes as JSON:
``python -m bench.learners.distributed --report FILE`` prints them again."""

from __future__ import annotations

from typing import Any

from bench.learners.scale import MiB

__all__ = ["blocks_of", "report_memory", "report_speedup"]


def _problem(res: dict[str, Any]) -> dict[str, Any]:
    """The convergence record of the (first) binary problem of a distributed fit, or {}."""
    conv = res.get("convergence")
    if isinstance(conv, dict) and conv.get("problems"):
        return dict(conv["problems"][0])
    return {}


def blocks_of(res: dict[str, Any]) -> int:
    conv = res.get("convergence")
    return int(conv.get("n_partitions", 1)) if isinstance(conv, dict) else 1


def _stats(res: dict[str, Any]) -> dict[str, Any]:
    """Each worker's CPU seconds and peak RSS during the fit ("workers" in files of 3b02c78)."""
    stats = res.get("worker_stats", res.get("workers"))
    return stats if isinstance(stats, dict) else {}


def _gap(res: dict[str, Any]) -> str:
    gaps = _problem(res).get("relative_gap")
    return f"{gaps[-1]:.1e}" if gaps else "–"


def _rounds(res: dict[str, Any]) -> str:
    return str(res.get("n_iter", "–"))


def _finishes(res: dict[str, Any]) -> list[dict[str, Any]]:
    """The finishes on the active rows that were made (records of fits since the finish)."""
    return [f for f in _problem(res).get("finishes", []) if f.get("rows")]


def report_speedup(rows: list[dict[str, Any]]) -> str:
    out = [
        "| n | 1 process fit s | 2 workers fit s | speed-up | cluster start-up s | passes / rounds | gap (2 workers) | "
        "primal 1 process | primal 2 workers | rel. diff. | test acc. 1 process | 2 workers | load before → after |",
        "|" + "---|" * 13,
    ]
    for r in rows:
        s, c, e = r["single"], r["cluster"], r["evaluate"]
        if "fit_seconds" not in s or "fit_seconds" not in c or "models" not in e:
            out.append(
                f"| {r['n']:,} | failed: single exit {s['exit']}, cluster exit {c['exit']}, evaluate exit {e['exit']} |"
            )
            continue
        ps, pc = e["models"]["single"]["primal"], e["models"]["cluster2"]["primal"]
        load = f"{s['load_before'][0]:.1f} → {c['load_after'][0]:.1f}"
        out.append(
            f"| {r['n']:,} | {s['fit_seconds']:.1f} | {c['fit_seconds']:.1f} | "
            f"{s['fit_seconds'] / c['fit_seconds']:.2f}× | "
            f"{c['startup_seconds']:.1f} | {s['n_iter']} / {_rounds(c)} | {_gap(c)} | {ps:,.2f} | {pc:,.2f} | "
            f"{(pc - ps) / ps:+.1e} | {100 * e['models']['single']['test_accuracy']:.2f} | "
            f"{100 * e['models']['cluster2']['test_accuracy']:.2f} | {load} |"
        )
    out += ["", "CPU seconds during the fit (the client process runs the scheduler too) and the Dask task stream:", ""]
    out.append(
        "| n | 1 process CPU s | client CPU s | worker CPU s | task compute s | transfer s | tasks | "
        "worker peak RSS MB | 1 process peak growth MB |"
    )
    out.append("|" + "---|" * 9)
    for r in rows:
        s, c = r["single"], r["cluster"]
        if not _stats(c):
            continue
        ws = _stats(c).values()
        ts = c.get("task_stream", {})
        out.append(
            f"| {r['n']:,} | {s['cpu_seconds']:.1f} | {c['client_cpu_seconds']:.1f} | "
            + " + ".join(f"{w['cpu_seconds']:.1f}" for w in ws)
            + f" | {ts.get('compute_s', 0):.1f} | {ts.get('transfer_s', 0):.1f} | {ts.get('tasks', 0)} | "
            + " + ".join(f"{w['peak_rss_mb']:,.0f}" for w in ws)
            + f" | {s['peak_rss_growth_mb']:,.0f} |"
        )
    out += ["", "Where the fit's time goes (``fit_time_``; the rounds' critical path from the task stream):", ""]
    out.append(
        "| n | 1 process: hashing s | W′ build s | solver s | passes | s / pass | 2 workers: hashing s | rounds s | "
        "rounds | finish: rows, s | s / round | slowest local solve / round s | rest / round s |"
    )
    out.append("|" + "---|" * 13)
    for r in rows:
        s, c = r["single"], r["cluster"]
        if "fit_seconds" not in c or "fit_seconds" not in s:
            continue
        fs, fc, ts = s["fit_time_"], c["fit_time_"], c.get("task_stream", {})
        rounds = max(int(c.get("n_iter", 0)), 1)
        made = _finishes(c)
        finish_s = sum(f.get("seconds", 0.0) for f in made)
        finish = " + ".join(f"{100 * f['fraction']:.0f} %, {f.get('seconds', 0):.1f}" for f in made) or "–"
        per = (fc.get("rounds", 0.0) - finish_s) / rounds  # the finishes' seconds apart
        slow = ts.get("round_critical_s", 0.0) / rounds
        out.append(
            f"| {r['n']:,} | {fs.get('hashing', 0):.1f} | {fs.get('features', 0):.1f} | {fs.get('solver', 0):.1f} | "
            f"{s['n_iter']} | {fs.get('solver', 0) / max(s['n_iter'], 1):.3f} | {fc.get('hashing', 0):.1f} | "
            f"{fc.get('rounds', 0):.1f} | {rounds} | {finish} | {per:.3f} | {slow:.3f} | {per - slow:.3f} |"
        )
    return "\n".join(out)


def report_memory(row: dict[str, Any]) -> str:
    e = row.get("evaluate", {})
    size = f"{e['matrix_bytes'] / MiB:,.0f} MB ({e['nnz']:,} nnz)" if "matrix_bytes" in e else "not measured"
    tol = row.get("cluster", {}).get("tol")
    out = [
        f"n = {row['n']:,} windows in {row['parts']} partitions; worker memory limit {row['limit']}; "
        f"whole hashed matrix {size}; cluster fits' tol {tol if tol is not None else 'default'}.",
        "",
        "| route | exit | fit s | outcome | rounds | worker peak RSS MB | test acc. | primal |",
        "|---|---|---|---|---|---|---|---|",
    ]
    models = e.get("models", {})
    k = row["workers"]
    routes = (
        ("cluster", f"cluster{k}", f"{k} workers"),
        ("one_worker", "cluster1", "1 worker"),
        ("single", "single", "1 process, no limit"),
    )
    for key, name, label in routes:
        r = row.get(key)
        if r is None:
            continue
        if "fit_error" in r:
            outcome = r["fit_error"][:200]
        elif "fit_seconds" in r:
            outcome = "trained"
        else:
            outcome = f"no result ({r['exit']}; last: {r.get('last_progress')})"
        outcome += f"; nanny memory events: {r['nanny_memory_events']}" if r.get("nanny_memory_events") else ""
        peaks = " + ".join(f"{w['peak_rss_mb']:,.0f}" for w in _stats(r).values()) or "–"
        m = models.get(name if key != "single" else "single", {})
        acc = m.get("test_accuracy", r.get("test_accuracy_in_child"))
        acc = f"{100 * acc:.2f}" if acc is not None else "–"
        primal = f"{m['primal']:,.2f}" if m else "–"
        fit = f"{r['fit_seconds']:.1f}" if "fit_seconds" in r else "–"
        out.append(f"| {label} | {r['exit']} | {fit} | {outcome} | {_rounds(r)} | {peaks} | {acc} | {primal} |")
    return "\n".join(out)
