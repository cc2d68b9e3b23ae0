"""The tables of :mod:`bench.recsys.scale`: data statistics, fits, ``recommend`` and a 10⁸ estimate.

A result is one child's JSON line (:func:`bench.recsys.scale.child`): ``seconds`` (fit),
``peak_growth`` and ``matrix_bytes`` (bytes), ``recommend_1000`` (best of 3, seconds) and
``recommend_all`` (all users in batches, total seconds), ``users``, ``items``, ``nnz``, ``factors``,
and ``load`` (the 1-minute load average at the fit's start, its end and the end of the
``recommend`` timings); or ``{"error": text}``.
"""

from __future__ import annotations

from typing import Any

Results = dict[str, dict[int, dict[str, Any]]]

NOTE_FITS = (
    "(fit: wall seconds of one `fit` in a fresh process after a warm-up fit; × BPR: over implicit BPR's at the "
    "same size. Peak RSS growth: VmHWM during the fit − VmRSS before it, MB = 2²⁰ bytes. Fit growth / nnz growth: "
    "(fit at the largest size / fit at the smallest) / (its nnz / the smallest's); 1 = linear. Load: the 1-minute "
    "load average at the fit's start / end. With --repeats: each timing's least over the repeats, the largest peak, "
    "the fastest fit's loads.)"
)
NOTE_RECOMMEND = (
    "(`recommend(userids, user_items[userids], N=10)`, liked items filtered, as implicit's API takes it, on the "
    "matrix the model was fitted on. 1 000 users: a fixed seeded draw of users with ≥ 1 interaction, best of 3 "
    "calls. All users: every user in batches of `--batch` users, one pass, total seconds. × ALS: over implicit "
    "ALS's in the same run and at the same size. Load: the 1-minute load average after the timings.)"
)


def print_statistics(rows: dict[str, dict[str, float]]) -> None:
    """One row per data set of :func:`bench.recsys.scale.statistics`."""
    keys = list(next(iter(rows.values())))
    print("| data | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for name, row in rows.items():
        cells = [f"{row[k]:.3g}" if isinstance(row[k], float) else str(row[k]) for k in keys]
        print(f"| {name} | " + " | ".join(cells) + " |")


def _ratio(r: dict[str, Any], ref: dict[str, Any], key: str) -> str:
    return f" ({r[key] / ref[key]:.2f}×)" if key in ref and ref[key] > 0 else ""


def _load(r: dict[str, Any], which: slice) -> str:
    return " / ".join(f"{x:.1f}" for x in r.get("load", [])[which]) or "—"


def print_fits(results: Results, sizes: list[int], labels: dict[str, str]) -> None:
    """Fit seconds (× BPR) and peak RSS growth per model and size; growth against nnz."""
    print("\n### Fits\n")
    head = " | ".join(f"fit at {s:.0e} (× BPR) | peak RSS growth at {s:.0e} (× matrix) | load" for s in sizes)
    growth = len(sizes) > 1
    print(f"| model | {head} |" + (" fit growth / nnz growth |" if growth else ""))
    print("|---|" + "---|---|---|" * len(sizes) + ("---|" if growth else ""))
    bpr = results.get("bpr", {})
    for name, by_size in results.items():
        cells = []
        for s in sizes:
            r = by_size[s]
            if "error" in r:
                cells += [r["error"], "—", "—"]
                continue
            times = f" ({r['peak_growth'] / r['matrix_bytes']:.2f}×)"
            cells += [
                f"{r['seconds']:.2f} s{_ratio(r, bpr.get(s, {}), 'seconds')}",
                f"{r['peak_growth'] / 2**20:.0f} MB{times}",
                _load(r, slice(0, 2)),
            ]
        if growth:
            a, b = by_size[sizes[0]], by_size[sizes[-1]]
            ok = "seconds" in a and "seconds" in b
            cells.append(f"{(b['seconds'] / a['seconds']) / (sizes[-1] / sizes[0]):.2f}" if ok else "—")
        print(f"| {labels.get(name, name)} | " + " | ".join(cells) + " |")
    print("\n" + NOTE_FITS)


def print_recommend(results: Results, sizes: list[int], labels: dict[str, str]) -> None:
    """``recommend`` for 1 000 users and for all users, seconds and × implicit ALS, per size."""
    print("\n### recommend\n")
    head = " | ".join(f"1 000 users at {s:.0e} (× ALS) | all users at {s:.0e} (× ALS) | load" for s in sizes)
    print(f"| model | {head} |")
    print("|---|" + "---|---|---|" * len(sizes))
    als = results.get("als", {})
    for name, by_size in results.items():
        cells = []
        for s in sizes:
            r, ref = by_size[s], als.get(s, {})
            if "recommend_1000" not in r:
                cells += ["—", "—", "—"]
                continue
            cells += [
                f"{r['recommend_1000']:.4f} s{_ratio(r, ref, 'recommend_1000')}",
                f"{r['recommend_all']:.2f} s{_ratio(r, ref, 'recommend_all')}",
                _load(r, slice(2, 3)),
            ]
        print(f"| {labels.get(name, name)} | " + " | ".join(cells) + " |")
    print("\n" + NOTE_RECOMMEND)


def _duration(seconds: float) -> str:
    if seconds < 600:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 36_000 else f"{seconds / 3600:.0f} h"


def print_estimate(results: Results, size: int, labels: dict[str, str], target: int = 10**8) -> None:
    """An estimate at ``target`` interactions from the costs measured at ``size``: fit and peak RSS
    growth linear in nnz; ``recommend`` per user ∝ items (the issue's shapes grow users and items
    10× each from 10⁷ to 10⁸: 1 250 000 × 166 660), so all users ∝ users × items."""
    scale = target / size
    print(f"\n### ESTIMATE at {target:.0e} interactions (from the measured costs at {size:.0e}; not measured)\n")
    print("| model | fit (est.) | peak RSS growth (est.) | recommend 1 000 users (est.) | all users (est.) |")
    print("|---|---|---|---|---|")
    for name, by_size in results.items():
        r = by_size.get(size, {})
        if "seconds" not in r:
            continue
        rec = r.get("recommend_1000")
        cells = [
            _duration(r["seconds"] * scale),
            f"{r['peak_growth'] * scale / 2**30:.1f} GB",
            f"{rec * 10:.2f} s" if rec is not None else "—",
            _duration(r["recommend_all"] * 100) if rec is not None else "—",
        ]
        print(f"| {labels.get(name, name)} | " + " | ".join(cells) + " |")
    print(
        f"\n(ESTIMATE: fit seconds and peak RSS growth × {scale:g} (linear in nnz, as measured from 10⁵ to 10⁶ "
        "for the models whose growth is near 1); `recommend` × 10 for 1 000 users (10× the items) and × 100 for "
        "all users (10× the users, 10× the items). Memory-bound effects (caches) are not modelled; the rating "
        f"matrix itself is {12 * target / 2**30:.1f} GB (float64 values, int32 indices).)"
    )
