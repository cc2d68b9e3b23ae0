"""The export of a regulated transducer T to the flat arrays the compiled evaluator reads.

:func:`export_transducer` keeps T's useful part, sorts its input-consuming arcs by (state,
input label) — with a dense (state, label) table of them when it fits — and computes every
state's ε-closure: each path of ε-input arcs from q, summed by (end state, output string),
with weights in the natural domain (p = e^{−w} for the probability and log semirings). It
also marks the states that reach an ε-input cycle (Φ_x would be infinite from them) and
measures how far a product of T's weights can stray from 1 (:attr:`ExportedTransducer.range_spread`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ratkit import limits
from ratkit.automata._checks import useful_states
from ratkit.automata.kernels._paths import max_code_length
from ratkit.automata.transducer import Transducer

__all__ = ["ExportedTransducer", "EvaluatorUnavailable", "export_transducer"]


class EvaluatorUnavailable(Exception):
    """T cannot be exported for the compiled evaluator; the message says why (internal:
    the caller falls back to the OpenFst path)."""


@dataclass(frozen=True)
class ExportedTransducer:
    """A regulated transducer T as flat arrays for :func:`evaluate` (weights p = e^{−w}).

    ``arc_*``: the input-consuming arcs, CSR by source state (``arc_off``), input labels
    ascending within a state; when ``n_in`` ≥ 0 the arcs of state q reading label a ≤ n_in
    are ``lab_lo[q·(n_in + 1) + a]`` to ``lab_hi[…]`` (a dense table; n_in = −1: binary
    search in ``arc_off``'s range). ``clo_*``: the ε-closure of each state, CSR by state
    (``clo_off``): entry e is the end state, the output code and length, the total weight of
    the ε-input paths from q to ``clo_dst[e]`` with that output (``clo_all``), the part of
    it on paths whose last arc outputs a symbol (``clo_fresh``), and whether it holds the
    empty path (``clo_trivial``). ``can_output[q]``: some output-producing arc is reachable
    from q. ``bad[q]``: q reaches an ε-input cycle (its closure is infinite).
    ``range_spread``: 0 when no product of T's weights can leave float64's range midway on
    any input, else max(ln f_max, ln 1/f_min) for the length bound of :func:`~._evaluator._range_guard`.
    """

    start: int
    base: int
    max_len: int
    final: np.ndarray
    arc_off: np.ndarray
    arc_ilabel: np.ndarray
    arc_olabel: np.ndarray
    arc_weight: np.ndarray
    arc_dst: np.ndarray
    n_in: int
    lab_lo: np.ndarray
    lab_hi: np.ndarray
    clo_off: np.ndarray
    clo_dst: np.ndarray
    clo_code: np.ndarray
    clo_len: np.ndarray
    clo_all: np.ndarray
    clo_fresh: np.ndarray
    clo_trivial: np.ndarray
    can_output: np.ndarray
    bad: np.ndarray
    n_bad_reason: str
    range_spread: float = 0.0

    @property
    def n_states(self) -> int:
        return int(self.final.shape[0])


def export_transducer(t: Transducer, n_labels: int) -> ExportedTransducer:
    """T's useful part as arrays for :func:`evaluate`, outputs restricted to labels 1..n_labels
    (paths writing another symbol are dropped, as the feature path drops them).

    Raises :class:`EvaluatorUnavailable` for a semiring whose ⊕ is not the sum of reals (not
    probability or log, :attr:`~ratkit.automata.semirings.Semiring.real_plus`), or
    when the ε-closures exceed :data:`ratkit.limits.MAX_CLOSURE_ENTRIES` entries.
    """
    if not t.semiring.real_plus:
        raise EvaluatorUnavailable(f"the {t.semiring.name} semiring has no finite feature map")
    a = t.arrays()
    n = a.n_states
    base = n_labels + 1
    max_len = max_code_length(n_labels)
    useful = useful_states(a) if n else np.zeros(0, dtype=bool)
    with np.errstate(over="ignore"):
        weight = np.exp(-a.weight)
        final = np.where(useful, np.exp(-a.final), 0.0)
    finite = np.isfinite(a.weight)
    if (weight[finite] > 1.0).any() and (((weight == 0) & finite) | np.isinf(weight)).any():
        # an arc below e^−745 (read as 0) next to arcs above 1 could lie on a path whose
        # weight is in range: float64 products cannot carry it
        raise EvaluatorUnavailable("T has weights beyond float64's range next to weights above 1")
    keep = useful[a.src] & useful[a.dst] & (weight > 0) & (a.olabel <= n_labels)
    src, il, ol, w, dst = (v[keep] for v in (a.src, a.ilabel, a.olabel, weight, a.dst))

    eps = il == 0
    cons = ~eps
    order = np.lexsort((il[cons], src[cons]))
    c_src = src[cons][order]
    arc_off = np.searchsorted(c_src, np.arange(n + 1)).astype(np.int64)

    n_in = int(il[cons].max()) if cons.any() else 0
    if n * (n_in + 1) <= limits.MAX_DENSE_CELLS:
        keys = c_src * (n_in + 1) + il[cons][order]
        cells = np.arange(n * (n_in + 1), dtype=np.int64)
        lab_lo = np.searchsorted(keys, cells, side="left").astype(np.int64)
        lab_hi = np.searchsorted(keys, cells, side="right").astype(np.int64)
    else:
        n_in, lab_lo, lab_hi = -1, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    can_output = _reaches(n, src, dst, np.unique(src[ol != 0]))
    bad, reason = _bad_states(n, src[eps], dst[eps], ol[eps])
    clo = _closures(n, src[eps], ol[eps], w[eps], dst[eps], bad, base, max_len)
    exported = ExportedTransducer(
        start=int(a.start) if n and a.start >= 0 and useful[a.start] else -1,
        base=base,
        max_len=int(min(max_len, 62)),
        final=np.ascontiguousarray(final, dtype=np.float64),
        arc_off=arc_off,
        arc_ilabel=np.ascontiguousarray(il[cons][order], dtype=np.int64),
        arc_olabel=np.ascontiguousarray(ol[cons][order], dtype=np.int64),
        arc_weight=np.ascontiguousarray(w[cons][order], dtype=np.float64),
        arc_dst=np.ascontiguousarray(dst[cons][order], dtype=np.int64),
        n_in=n_in,
        lab_lo=lab_lo,
        lab_hi=lab_hi,
        clo_off=clo[0],
        clo_dst=clo[1],
        clo_code=clo[2],
        clo_len=clo[3],
        clo_all=clo[4],
        clo_fresh=clo[5],
        clo_trivial=clo[6],
        can_output=can_output,
        bad=bad,
        n_bad_reason=reason,
    )
    return replace(exported, range_spread=_range_spread(exported))


def _range_spread(e: ExportedTransducer) -> float:
    """:attr:`ExportedTransducer.range_spread`, computed once per T (see :func:`~._evaluator._range_guard`)."""
    factors = np.concatenate([e.arc_weight, e.clo_all, e.final])
    factors = factors[factors > 0]
    if not factors.size or factors.max() <= 1.0 or _bounded_gain(e):
        return 0.0
    return max(float(np.log(factors.max())), float(-np.log(factors.min())))


def _reaches(n: int, src: np.ndarray, dst: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Mask of the states from which some state of ``targets`` is reachable (targets included)."""
    out = np.zeros(n, dtype=bool)
    if not targets.size:
        return out
    # reversed graph with a super-source n pointing at every target
    g = sp.csr_matrix(
        (
            np.ones(dst.size + targets.size, dtype=np.int8),
            (np.concatenate([dst, np.full(targets.size, n)]), np.concatenate([src, targets])),
        ),
        shape=(n + 1, n + 1),
    )
    seen = csgraph.breadth_first_order(g, n, directed=True, return_predecessors=False)
    mask = np.zeros(n + 1, dtype=bool)
    mask[seen] = True
    return mask[:n]


def _bad_states(n: int, src: np.ndarray, dst: np.ndarray, olabel: np.ndarray) -> tuple[np.ndarray, str]:
    """States that reach a cycle of ε-input arcs through ε-input arcs, and what the cycles are.

    T is regulated (no ε:ε cycle on a useful path), so such a cycle outputs a symbol and
    makes Φ_x infinite; an ε:ε cycle of an unchecked T is refused the same way."""
    if not src.size:
        return np.zeros(n, dtype=bool), ""
    g = sp.csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
    n_comp, comp = csgraph.connected_components(g, directed=True, connection="strong")
    sizes = np.bincount(comp, minlength=n_comp)
    cyclic = sizes[comp] > 1
    cyclic[src[src == dst]] = True
    if not cyclic.any():
        return np.zeros(n, dtype=bool), ""
    on_cycle = cyclic[src] & cyclic[dst] & (comp[src] == comp[dst])
    silent = bool(np.any(olabel[on_cycle] == 0))
    reason = "an ε-input cycle that outputs symbols" + (" (or an ε:ε cycle)" if silent else "")
    return _reaches(n, src, dst, np.flatnonzero(cyclic)), reason


def _closures(
    n: int,
    src: np.ndarray,
    olabel: np.ndarray,
    weight: np.ndarray,
    dst: np.ndarray,
    bad: np.ndarray,
    base: int,
    max_len: int,
) -> tuple[np.ndarray, ...]:
    """CSR arrays (off, dst, code, len, all, fresh, trivial) of every state's ε-closure.

    closure(q) = {empty path at q} ∪ {arc q → r (o, w) followed by a path of closure(r)}:
    entries are summed by (end state, output); ``fresh`` is the weight of the paths whose
    last arc writes a symbol (the arc itself when the rest is the empty path and o ≠ 0).
    Bad states get an empty closure (they are never expanded).
    """
    out_arcs: dict[int, list[tuple[int, int, float]]] = {}
    for s, o, w, d in zip(src.tolist(), olabel.tolist(), weight.tolist(), dst.tolist()):
        out_arcs.setdefault(s, []).append((d, o, w))
    memo: dict[int, dict[tuple[int, int], list]] = {}
    total = 0

    def closure(q: int) -> dict[tuple[int, int], list]:
        # iterative post-order over the ε-DAG below q (bad states are excluded by the caller)
        stack = [q]
        while stack:
            p = stack[-1]
            if p in memo:
                stack.pop()
                continue
            pending = [d for d, _, _ in out_arcs.get(p, ()) if d not in memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            entries: dict[tuple[int, int], list] = {(p, 0): [0, 1.0, 0.0, True]}
            for d, o, w in out_arcs.get(p, ()):
                for (s, code), (length, wa, wf, trivial) in memo[d].items():
                    if o:
                        code, length = o * base**length + code, length + 1
                        if length > max_len:
                            raise EvaluatorUnavailable("ε-input paths write strings longer than an int64 code holds")
                    entry = entries.setdefault((s, code), [length, 0.0, 0.0, False])
                    entry[1] += w * wa
                    entry[2] += w * (wf + (1.0 if (o and trivial) else 0.0))
            memo[p] = entries
            nonlocal total
            total += len(entries)
            if total > limits.MAX_CLOSURE_ENTRIES:
                raise EvaluatorUnavailable(f"the ε-closures of T exceed {limits.MAX_CLOSURE_ENTRIES:,} entries")
        return memo[q]

    off = np.zeros(n + 1, dtype=np.int64)
    cols: list[list] = [[], [], [], [], [], []]
    for q in range(n):
        if bad[q]:
            entries: dict = {}
        elif q not in out_arcs:
            entries = {(q, 0): [0, 1.0, 0.0, True]}
        else:
            entries = closure(q)
        for (s, code), (length, wa, wf, trivial) in entries.items():
            for col, v in zip(cols, (s, code, length, wa, wf, trivial)):
                col.append(v)
        off[q + 1] = off[q] + len(entries)
    return (
        off,
        np.array(cols[0], dtype=np.int64),
        np.array(cols[1], dtype=np.int64),
        np.array(cols[2], dtype=np.int64),
        np.array(cols[3], dtype=np.float64),
        np.array(cols[4], dtype=np.float64),
        np.array(cols[5], dtype=np.bool_),
    )


#: ln of the largest total gain (product of the weights above 1 a path can collect) for
#: which T counts as safe on inputs of any length: a prefix that underflows to 0 then stands
#: for a path weight below 1e-308·e^300 ≈ 1e-178, dropped (the OpenFst path keeps it).
_LOG_GAIN = 300.0


def _bounded_gain(e: ExportedTransducer) -> bool:
    """Whether no path of T collects more than e^_LOG_GAIN from weights above 1 however long
    the input: no ε-closure weight is above 1, no arc above 1 lies on a cycle (its two states
    in one strongly connected component of the arcs and ε-closures), and the arcs and final
    weights above 1 multiply to less than e^_LOG_GAIN. Then a product only grows by that
    much after it shrinks, so none overflows and an underflow loses at most ≈ 1e-178."""
    if (e.clo_all > 1.0).any():
        return False
    n = e.final.shape[0]
    arc_src = np.repeat(np.arange(n, dtype=np.int64), np.diff(e.arc_off))
    clo_src = np.repeat(np.arange(n, dtype=np.int64), np.diff(e.clo_off))
    src = np.concatenate([arc_src, clo_src])
    dst = np.concatenate([e.arc_dst, e.clo_dst])
    graph = sp.csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
    _, component = csgraph.connected_components(graph, directed=True, connection="strong")
    gain = e.arc_weight > 1.0
    if (component[arc_src[gain]] == component[e.arc_dst[gain]]).any():
        return False
    total = float(np.log(e.arc_weight[gain]).sum()) + float(np.log(max(e.final.max(initial=0.0), 1.0)))
    return total < _LOG_GAIN
