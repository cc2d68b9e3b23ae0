"""A compiled evaluator of Φ_x = Π2(X ∘ T) for strings x and a regulated transducer T.

T is exported once to flat arrays (:func:`export_transducer`): its input-consuming arcs
sorted by (state, input label), and for every state q its ε-closure — every path of
ε-input arcs from q, summed by (end state, output string) — with weights in the natural
domain (p = e^{−w} for the probability and log semirings). For each sequence x a dynamic
programme over (position, state) then produces the strings z of Φ_x and ⟦T⟧(x, z) in
float64 (:func:`evaluate`), as the pattern codes of :mod:`._features`.

Each accepting path of X ∘ T is split at its last output-producing arc: before it, a
prefix read forwards and held as hypotheses (state, output so far), merged when equal;
after it, a suffix that outputs nothing, whose total from (position i, state q) is the
backward sum β(i, q). A hypothesis whose state can no longer produce output is dropped
once it has been emitted, so counting transducers keep a few hypotheses per position.

Φ_x is finite unless an output-producing cycle can be taken without reading input (an
ε-input cycle). States that reach such a cycle through ε-input arcs are marked; a
sequence whose hypotheses reach one, or whose hypotheses or outputs exceed the bounds,
is reported as not evaluated and is left to the OpenFst path.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ratkit._jit import njit
from ratkit.automata._checks import useful_states
from ratkit.automata.kernels._paths import max_code_length
from ratkit.automata.transducer import Transducer

__all__ = ["ExportedTransducer", "EvaluatorUnavailable", "export_transducer", "evaluate", "STATUS_REASONS"]

#: The most closure entries (ε-input paths summed by end state and output) an export holds.
MAX_CLOSURE_ENTRIES = 1_000_000
#: The most hypotheses (state, output prefix) held at one position of one sequence.
MAX_HYPOTHESES = 1_000_000
#: The most (state, input label) cells of the dense table of arcs (beyond: binary search).
MAX_DENSE_CELLS = 1 << 22
#: The most (position, reachable state) cells of the backward table β of one sequence.
MAX_BACKWARD_CELLS = 50_000_000

_OK, _EPS_CYCLE, _TOO_MANY, _TOO_LONG, _TOO_BIG, _RANGE = 0, 1, 2, 3, 4, 5
#: |ln| of the largest partial product the float64 evaluator may form (e^±700 is in range).
_LOG_RANGE = 700.0
#: Why a sequence was not evaluated, by the status :func:`evaluate` returns.
STATUS_REASONS = {
    _EPS_CYCLE: "its paths reach an output-producing cycle that reads no input (Φ_x is infinite)",
    _TOO_MANY: "it has more feature paths than the enumeration bound",
    _TOO_LONG: "its output strings are longer than an int64 pattern code holds",
    _TOO_BIG: f"its backward table would exceed {MAX_BACKWARD_CELLS:,} (position, reachable state) cells",
    _RANGE: "it is long enough for a product of T's weights (some above 1) to leave float64's range midway",
}


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
    any input, else max(ln f_max, ln 1/f_min) for the length bound of :func:`_range_guard`.
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

    Raises :class:`EvaluatorUnavailable` for a semiring other than probability and log, or
    when the ε-closures exceed :data:`MAX_CLOSURE_ENTRIES` entries.
    """
    if t.semiring.name not in ("probability", "log"):
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
    if n * (n_in + 1) <= MAX_DENSE_CELLS:
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
    """:attr:`ExportedTransducer.range_spread`, computed once per T (see :func:`_range_guard`)."""
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
            if total > MAX_CLOSURE_ENTRIES:
                raise EvaluatorUnavailable(f"the ε-closures of T exceed {MAX_CLOSURE_ENTRIES:,} entries")
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


def evaluate(
    e: ExportedTransducer, labels: np.ndarray, offsets: np.ndarray, max_paths: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rows, codes, values, status) of Φ_x for the sequences ``labels[offsets[k]:offsets[k + 1]]``.

    Row k of the triplets is sequence k; a code may repeat within a row (the values add up).
    ``status[k]`` is 0 when sequence k was evaluated, else a key of :data:`STATUS_REASONS`
    (its triplets are then absent). ``max_paths`` bounds the triplets of one sequence.
    """
    pows = np.ones(e.max_len + 1, dtype=np.int64)
    for k in range(1, e.max_len + 1):
        pows[k] = pows[k - 1] * e.base
    rows, codes, vals, status = _evaluate(
        np.ascontiguousarray(labels, dtype=np.int64),
        np.ascontiguousarray(offsets, dtype=np.int64),
        e.start,
        e.base,
        e.max_len,
        pows,
        e.final,
        e.arc_off,
        e.arc_ilabel,
        e.arc_olabel,
        e.arc_weight,
        e.arc_dst,
        e.n_in,
        e.lab_lo,
        e.lab_hi,
        e.clo_off,
        e.clo_dst,
        e.clo_code,
        e.clo_len,
        e.clo_all,
        e.clo_fresh,
        e.clo_trivial,
        e.can_output,
        e.bad,
        int(max_paths),
        MAX_HYPOTHESES,
        MAX_BACKWARD_CELLS,
    )
    return _range_guard(e, offsets, rows, codes, vals, status)


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


def _range_guard(
    e: ExportedTransducer,
    offsets: np.ndarray,
    rows: np.ndarray,
    codes: np.ndarray,
    vals: np.ndarray,
    status: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mark ``_RANGE`` (and drop the triplets of) the sequences on which a partial product of
    T's weights could leave float64's range while the whole path stays in it.

    A path over x of length m multiplies at most 2m + 2 factors (an ε-closure and an arc per
    position, the closure at the start, the final weight), each in [f_min, f_max] over the
    non-zero arc, closure and final weights. With every factor ≤ 1 the products only shrink,
    so a product that underflows belongs to a path whose weight underflows too (the OpenFst
    path gives 0 as well); otherwise x is safe while (2m + 2)·max(ln f_max, ln 1/f_min) stays
    below :data:`_LOG_RANGE`. (The evaluator multiplies natural weights left to right; OpenFst
    adds −ln weights and exponentiates once.)
    """
    lengths = np.diff(np.asarray(offsets, dtype=np.int64))
    # a value that overflowed (sums over many parallel paths can grow even when every weight
    # is ≤ 1) marks its sequence whatever T's weights
    unsafe = np.zeros(lengths.size, dtype=bool)
    unsafe[rows[~np.isfinite(vals)]] = True
    if e.range_spread > 0.0:
        unsafe |= (2 * lengths + 2) * e.range_spread >= _LOG_RANGE
    if not unsafe.any():
        return rows, codes, vals, status
    status = status.copy()
    status[unsafe & (status == _OK)] = _RANGE
    keep = ~unsafe[rows]
    return rows[keep], codes[keep], vals[keep], status


@njit
def _first_arc(arc_ilabel, lo, hi, label):  # pragma: no cover - compiled
    """The first index in [lo, hi) whose input label is ≥ label (labels ascending)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arc_ilabel[mid] < label:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit
def _grow(a, n):  # pragma: no cover - compiled
    """A copy of ``a`` with room for at least n entries (twice its size or more)."""
    b = np.empty(max(n, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def _reachable(
    x, start, arc_off, arc_ilabel, arc_dst, n_in, lab_lo, lab_hi, clo_off, clo_dst, stamp, rstates, roff
):  # pragma: no cover
    """R_i, the states reachable from the start reading x[:i] (ε-closed), as
    ``rstates[roff[i]:roff[i + 1]]``; returns their total, or −1 when ``rstates`` is too small.
    ``stamp`` holds −1 for every state on entry and on return."""
    m = x.shape[0]
    cap = rstates.shape[0]
    n = 0
    full = False
    roff[0] = 0
    for e in range(clo_off[start], clo_off[start + 1]):
        s = clo_dst[e]
        if stamp[s] != 0:
            if n == cap:
                full = True
                break
            stamp[s] = 0
            rstates[n] = s
            n += 1
    roff[1] = n
    for i in range(m):
        if full:
            break
        a = x[i]
        for idx in range(roff[i], roff[i + 1]):
            q = rstates[idx]
            if n_in >= 0:
                j, hi = (lab_lo[q * (n_in + 1) + a], lab_hi[q * (n_in + 1) + a]) if a <= n_in else (0, 0)
            else:
                hi = arc_off[q + 1]
                j = _first_arc(arc_ilabel, arc_off[q], hi, a)
            while j < hi and arc_ilabel[j] == a:
                r = arc_dst[j]
                if stamp[r] != i + 1:  # r itself (a bad state has an empty closure)
                    if n == cap:
                        full = True
                        break
                    stamp[r] = i + 1
                    rstates[n] = r
                    n += 1
                for e in range(clo_off[r], clo_off[r + 1]):
                    s = clo_dst[e]
                    if stamp[s] != i + 1:
                        if n == cap:
                            full = True
                            break
                        stamp[s] = i + 1
                        rstates[n] = s
                        n += 1
                if full:
                    break
                j += 1
            if full:
                break
        roff[i + 2] = n
    for idx in range(n):
        stamp[rstates[idx]] = -1
    return -1 if full else n


@njit
def _backward(
    x,
    where,
    final,
    arc_off,
    arc_ilabel,
    arc_olabel,
    arc_weight,
    arc_dst,
    n_in,
    lab_lo,
    lab_hi,
    clo_off,
    clo_dst,
    clo_len,
    clo_all,
    rstates,
    roff,
    beta,
    gamma,
):  # pragma: no cover - compiled
    """beta[idx] = β(i, q) for q = rstates[idx] ∈ R_i (:func:`_reachable`): the total weight
    of the paths from state q at position i that read x[i:], output nothing and end in a
    final state (with its final weight). ``where`` maps the states of R_{i+1} to their index."""
    m = x.shape[0]
    for idx in range(roff[m], roff[m + 1]):
        q = rstates[idx]
        b = 0.0
        for e in range(clo_off[q], clo_off[q + 1]):
            if clo_len[e] == 0:
                b += clo_all[e] * final[clo_dst[e]]
        beta[idx] = b
    for i in range(m - 1, -1, -1):
        a = x[i]
        for idx in range(roff[i + 1], roff[i + 2]):
            where[rstates[idx]] = idx
        for idx in range(roff[i], roff[i + 1]):
            s = rstates[idx]
            g = 0.0
            if n_in >= 0:
                j, hi = (lab_lo[s * (n_in + 1) + a], lab_hi[s * (n_in + 1) + a]) if a <= n_in else (0, 0)
            else:
                hi = arc_off[s + 1]
                j = _first_arc(arc_ilabel, arc_off[s], hi, a)
            while j < hi and arc_ilabel[j] == a:
                if arc_olabel[j] == 0:
                    g += arc_weight[j] * beta[where[arc_dst[j]]]
                j += 1
            gamma[s] = g
        for idx in range(roff[i], roff[i + 1]):
            q = rstates[idx]
            b = 0.0
            for e in range(clo_off[q], clo_off[q + 1]):
                if clo_len[e] == 0:
                    b += clo_all[e] * gamma[clo_dst[e]]
            beta[idx] = b


@njit
def _slot(state, code, mask):  # pragma: no cover - compiled
    """The home slot of the key (state, code) in a table of mask + 1 slots (Fibonacci hashing)."""
    h = (np.uint64(code) ^ (np.uint64(state) << np.uint64(40))) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(40)) & mask


@njit
def _forward(
    x,
    row_id,
    start,
    base,
    max_len,
    pows,
    beta,
    where,
    rstates,
    roff,
    arc_off,
    arc_ilabel,
    arc_olabel,
    arc_weight,
    arc_dst,
    n_in,
    lab_lo,
    lab_hi,
    clo_off,
    clo_dst,
    clo_code,
    clo_len,
    clo_all,
    clo_fresh,
    clo_trivial,
    can_output,
    bad,
    cs,
    cc,
    cl,
    cw,
    ns,
    nc,
    nl,
    nw,
    nslot,
    table,
    out_rows,
    out_codes,
    out_vals,
    out_slot,
    etable,
    n_out,
    max_paths,
    max_hyp,
):  # pragma: no cover - compiled
    """Emit the triplets of one sequence from ``n_out`` on; returns (status, new n_out).

    Status 0: done; 1–3: see STATUS_REASONS; −1: the hypothesis buffers, −2: the output
    buffers, −3 / −4: the hash tables are too small (the caller grows them and starts
    again). No array is reassigned here: numba then keeps every access a plain load.
    """
    mask = table.shape[0] - 1
    emask = etable.shape[0] - 1
    hcap = ns.shape[0]
    ocap = out_rows.shape[0]
    seq_out = n_out
    # the sequence's next output index, its distinct codes, whether its triplets are merged
    cnt = np.empty(3, dtype=np.int64)
    cnt[0] = n_out
    cnt[1] = 0
    cnt[2] = 0
    n_next = 0
    for idx in range(roff[0], roff[1]):  # β(0, ·) by state
        where[rstates[idx]] = idx
    # position 0: the closure of the start state; the empty prefix counts as fresh
    for e in range(clo_off[start], clo_off[start + 1]):
        s = clo_dst[e]
        wf = clo_fresh[e] + (1.0 if clo_trivial[e] else 0.0)
        v = wf * beta[where[s]]
        if v > 0.0:
            status = _emit(clo_code[e], v, row_id, seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable)
            if status != 0:
                _clear_outputs(seq_out, cnt[0], out_slot, etable)
                return status, seq_out
        if can_output[s] and clo_all[e] > 0.0:
            if n_next == hcap:
                _clear_outputs(seq_out, cnt[0], out_slot, etable)
                return -1, seq_out
            ns[n_next] = s
            nc[n_next] = clo_code[e]
            nl[n_next] = clo_len[e]
            nw[n_next] = clo_all[e]
            n_next += 1  # the start closure's (state, code) keys are distinct already
    status = 0
    for i in range(x.shape[0]):
        if n_next == 0:
            break
        n_cur = n_next
        for t in range(n_cur):
            cs[t] = ns[t]
            cc[t] = nc[t]
            cl[t] = nl[t]
            cw[t] = nw[t]
        n_next = 0
        a = x[i]
        for idx in range(roff[i + 1], roff[i + 2]):  # β(i + 1, ·) by state
            where[rstates[idx]] = idx
        for h in range(n_cur):
            p = cs[h]
            if n_in >= 0:  # the arcs of (p, a) from the dense table
                j, hi = (lab_lo[p * (n_in + 1) + a], lab_hi[p * (n_in + 1) + a]) if a <= n_in else (0, 0)
            else:  # binary search for the first arc of p reading a
                j, hi = arc_off[p], arc_off[p + 1]
                top = hi
                while j < top:
                    mid = (j + top) >> 1
                    if arc_ilabel[mid] < a:
                        j = mid + 1
                    else:
                        top = mid
            while j < hi and arc_ilabel[j] == a:
                r = arc_dst[j]
                if bad[r]:
                    status = 1
                    break
                o = arc_olabel[j]
                code1 = cc[h]
                len1 = cl[h]
                if o != 0:
                    code1 = code1 * base + o
                    len1 += 1
                w1 = cw[h] * arc_weight[j]
                for e in range(clo_off[r], clo_off[r + 1]):
                    s = clo_dst[e]
                    len2 = len1 + clo_len[e]
                    if len2 > max_len:
                        status = 3
                        break
                    code2 = code1 * pows[clo_len[e]] + clo_code[e]
                    wf = clo_fresh[e]
                    if o != 0 and clo_trivial[e]:
                        wf += 1.0
                    if wf > 0.0:
                        v = w1 * wf * beta[where[s]]
                        if v > 0.0:  # _emit, written out: a call per triplet costs a third of the run
                            n_out = cnt[0]
                            if n_out == ocap:
                                status = -2
                                break
                            eslot = _slot(0, code2, emask)
                            idx = etable[eslot]
                            while idx >= 0 and out_codes[idx] != code2:
                                eslot = (eslot + 1) & emask
                                idx = etable[eslot]
                            if idx >= 0 and cnt[2]:  # merged already: add into the code's triplet
                                out_vals[idx] += v
                            else:
                                if idx < 0:
                                    if 2 * (cnt[1] + 1) > emask + 1:
                                        status = -4
                                        break
                                    etable[eslot] = n_out
                                    out_slot[n_out] = eslot
                                    cnt[1] += 1
                                else:
                                    out_slot[n_out] = -1
                                out_rows[n_out] = row_id
                                out_codes[n_out] = code2
                                out_vals[n_out] = v
                                cnt[0] = n_out + 1
                                if cnt[0] - seq_out >= _COMPACT_AT and cnt[0] - seq_out >= 4 * cnt[1]:
                                    _compact(seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable)
                                if cnt[0] - seq_out > max_paths:
                                    status = 2
                                    break
                    wa = w1 * clo_all[e]
                    if can_output[s] and wa > 0.0:
                        slot = _slot(s, code2, mask)
                        idx = table[slot]
                        while idx >= 0 and not (ns[idx] == s and nc[idx] == code2):
                            slot = (slot + 1) & mask
                            idx = table[slot]
                        if idx >= 0:
                            nw[idx] += wa
                        else:
                            if n_next == hcap:
                                status = -1
                                break
                            if 2 * (n_next + 1) > mask + 1:
                                status = -3
                                break
                            table[slot] = n_next
                            ns[n_next] = s
                            nc[n_next] = code2
                            nl[n_next] = len2
                            nw[n_next] = wa
                            nslot[n_next] = slot
                            n_next += 1
                            if n_next > max_hyp:
                                status = 2
                                break
                if status != 0:
                    break
                j += 1
            if status != 0:
                break
        for t in range(n_next):
            table[nslot[t]] = -1
        if status != 0:
            _clear_outputs(seq_out, cnt[0], out_slot, etable)
            return status, seq_out
    _clear_outputs(seq_out, cnt[0], out_slot, etable)
    return 0, cnt[0]


#: Up to this many states, β is computed for every state at every position (cheaper than
#: finding the reachable ones first).
_ALL_STATES = 32
#: A sequence's triplets are merged by code once there are this many, and 4 per distinct code.
_COMPACT_AT = 4096


@njit
def _emit(code, v, row_id, seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable):  # pragma: no cover
    """Append the triplet (row_id, code, v); ``etable`` maps each code of the sequence to its
    first triplet. Duplicates stay separate (equal values keep the vocabulary's fast path)
    until they are 4 per distinct code, then the sequence's triplets are merged by code and
    later duplicates added in place.
    Returns 0, −2 (output buffers full) or −4 (``etable`` too small)."""
    n_out = cnt[0]
    if n_out == out_rows.shape[0]:
        return -2
    emask = etable.shape[0] - 1
    slot = _slot(0, code, emask)
    idx = etable[slot]
    while idx >= 0 and out_codes[idx] != code:
        slot = (slot + 1) & emask
        idx = etable[slot]
    if idx >= 0 and cnt[2]:
        out_vals[idx] += v
        return 0
    if idx < 0:
        if 2 * (cnt[1] + 1) > emask + 1:
            return -4
        etable[slot] = n_out
        out_slot[n_out] = slot
        cnt[1] += 1
    else:
        out_slot[n_out] = -1
    out_rows[n_out] = row_id
    out_codes[n_out] = code
    out_vals[n_out] = v
    cnt[0] = n_out + 1
    if cnt[0] - seq_out >= _COMPACT_AT and cnt[0] - seq_out >= 4 * cnt[1]:
        _compact(seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable)
    return 0


@njit
def _compact(seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable):  # pragma: no cover - compiled
    """Merge the triplets seq_out … cnt[0] − 1 of one sequence by code, in place; later
    duplicates of the sequence are then added into their code's triplet (cnt[2] = 1)."""
    emask = etable.shape[0] - 1
    n_out = cnt[0]
    for t in range(seq_out, n_out):  # add each duplicate into the first triplet of its code
        if out_slot[t] < 0:
            c = out_codes[t]
            slot = _slot(0, c, emask)
            while out_codes[etable[slot]] != c:
                slot = (slot + 1) & emask
            out_vals[etable[slot]] += out_vals[t]
    w = seq_out
    for t in range(seq_out, n_out):
        if out_slot[t] >= 0:
            out_rows[w] = out_rows[t]
            out_codes[w] = out_codes[t]
            out_vals[w] = out_vals[t]
            out_slot[w] = out_slot[t]
            etable[out_slot[t]] = w
            w += 1
    cnt[0] = w
    cnt[2] = 1


@njit
def _clear_outputs(lo, hi, out_slot, etable):  # pragma: no cover - compiled
    """Empty the slots of ``etable`` that triplets lo … hi − 1 hold."""
    for t in range(lo, hi):
        if out_slot[t] >= 0:
            etable[out_slot[t]] = -1


@njit
def _evaluate(
    labels,
    offsets,
    start,
    base,
    max_len,
    pows,
    final,
    arc_off,
    arc_ilabel,
    arc_olabel,
    arc_weight,
    arc_dst,
    n_in,
    lab_lo,
    lab_hi,
    clo_off,
    clo_dst,
    clo_code,
    clo_len,
    clo_all,
    clo_fresh,
    clo_trivial,
    can_output,
    bad,
    max_paths,
    max_hyp,
    max_cells,
):  # pragma: no cover - compiled
    n_seq = offsets.shape[0] - 1
    nq = final.shape[0]
    status = np.zeros(n_seq, dtype=np.int64)
    out_rows = np.empty(1024, dtype=np.int64)
    out_codes = np.empty(1024, dtype=np.int64)
    out_vals = np.empty(1024, dtype=np.float64)
    out_slot = np.empty(1024, dtype=np.int64)
    etable = np.full(1024, -1, dtype=np.int64)  # code → its first triplet in the current sequence
    n_out = 0
    hcap = 256
    cs = np.empty(hcap, dtype=np.int64)
    cc = np.empty(hcap, dtype=np.int64)
    cl = np.empty(hcap, dtype=np.int64)
    cw = np.empty(hcap, dtype=np.float64)
    ns = np.empty(hcap, dtype=np.int64)
    nc = np.empty(hcap, dtype=np.int64)
    nl = np.empty(hcap, dtype=np.int64)
    nw = np.empty(hcap, dtype=np.float64)
    nslot = np.empty(hcap, dtype=np.int64)
    table = np.full(1024, -1, dtype=np.int64)  # open addressing: (state, code) → index into ns/nc
    gamma = np.zeros(nq, dtype=np.float64)
    beta = np.zeros(0, dtype=np.float64)
    stamp = np.full(nq, -1, dtype=np.int64)
    where = np.zeros(nq, dtype=np.int64)
    rstates = np.empty(1024, dtype=np.int64)
    roff = np.empty(0, dtype=np.int64)
    for k in range(n_seq):
        x = labels[offsets[k] : offsets[k + 1]]
        m = x.shape[0]
        if start < 0:
            continue
        if bad[start]:
            status[k] = 1
            continue
        if roff.shape[0] < m + 2:
            roff = np.empty(m + 2, dtype=np.int64)
        if nq <= _ALL_STATES:  # a small T: every state at every position, without the search
            n_reach = (m + 1) * nq
            if n_reach <= max_cells:
                if rstates.shape[0] < n_reach:
                    rstates = _grow(rstates, n_reach)
                for i in range(m + 2):
                    roff[i] = i * nq
                for t in range(n_reach):
                    rstates[t] = t % nq
        else:
            while True:
                n_reach = _reachable(
                    x, start, arc_off, arc_ilabel, arc_dst, n_in, lab_lo, lab_hi, clo_off, clo_dst, stamp, rstates, roff
                )
                if n_reach >= 0 or rstates.shape[0] > max_cells:
                    break
                rstates = _grow(rstates, 0)
        if n_reach < 0 or n_reach > max_cells:
            status[k] = 4
            continue
        if beta.shape[0] < n_reach:
            beta = np.zeros(rstates.shape[0], dtype=np.float64)
        _backward(
            x,
            where,
            final,
            arc_off,
            arc_ilabel,
            arc_olabel,
            arc_weight,
            arc_dst,
            n_in,
            lab_lo,
            lab_hi,
            clo_off,
            clo_dst,
            clo_len,
            clo_all,
            rstates,
            roff,
            beta,
            gamma,
        )
        while True:
            st, new_out = _forward(
                x,
                k,
                start,
                base,
                max_len,
                pows,
                beta,
                where,
                rstates,
                roff,
                arc_off,
                arc_ilabel,
                arc_olabel,
                arc_weight,
                arc_dst,
                n_in,
                lab_lo,
                lab_hi,
                clo_off,
                clo_dst,
                clo_code,
                clo_len,
                clo_all,
                clo_fresh,
                clo_trivial,
                can_output,
                bad,
                cs,
                cc,
                cl,
                cw,
                ns,
                nc,
                nl,
                nw,
                nslot,
                table,
                out_rows,
                out_codes,
                out_vals,
                out_slot,
                etable,
                n_out,
                max_paths,
                max_hyp,
            )
            if st == -1:
                size = 2 * ns.shape[0]
                cs, cc, cl, cw = _grow(cs, size), _grow(cc, size), _grow(cl, size), _grow(cw, size)
                ns, nc, nl, nw, nslot = (
                    _grow(ns, size),
                    _grow(nc, size),
                    _grow(nl, size),
                    _grow(nw, size),
                    _grow(nslot, size),
                )
            elif st == -2:
                out_rows, out_codes, out_vals = _grow(out_rows, 0), _grow(out_codes, 0), _grow(out_vals, 0)
                out_slot = _grow(out_slot, 0)
            elif st == -3:
                table = np.full(2 * table.shape[0], -1, dtype=np.int64)
            elif st == -4:
                etable = np.full(2 * etable.shape[0], -1, dtype=np.int64)
            else:
                break
        if st == 0:
            n_out = new_out
        else:
            status[k] = st
    return out_rows[:n_out].copy(), out_codes[:n_out].copy(), out_vals[:n_out].copy(), status
