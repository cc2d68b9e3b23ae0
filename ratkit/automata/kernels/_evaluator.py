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

import numpy as np

from ratkit import limits
from ratkit.automata.kernels._evaluator_export import EvaluatorUnavailable, ExportedTransducer, export_transducer
from ratkit.automata.kernels._evaluator_forward import _evaluate

__all__ = ["ExportedTransducer", "EvaluatorUnavailable", "export_transducer", "evaluate", "STATUS_REASONS"]

_OK, _EPS_CYCLE, _TOO_MANY, _TOO_LONG, _TOO_BIG, _RANGE = 0, 1, 2, 3, 4, 5
#: |ln| of the largest partial product the float64 evaluator may form (e^±700 is in range).
_LOG_RANGE = 700.0
#: Why a sequence was not evaluated, by the status :func:`evaluate` returns.
STATUS_REASONS = {
    _EPS_CYCLE: "its paths reach an output-producing cycle that reads no input (Φ_x is infinite)",
    _TOO_MANY: "it has more feature paths than the enumeration bound",
    _TOO_LONG: "its output strings are longer than an int64 pattern code holds",
    _TOO_BIG: f"its backward table would exceed {limits.MAX_BACKWARD_CELLS:,} (position, reachable state) cells",
    _RANGE: "it is long enough for a product of T's weights (some above 1) to leave float64's range midway",
}


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
        limits.MAX_HYPOTHESES,
        limits.MAX_BACKWARD_CELLS,
    )
    return _range_guard(e, offsets, rows, codes, vals, status)


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
        unsafe |= np.multiply(2 * lengths + 2, e.range_spread) >= _LOG_RANGE
    if not unsafe.any():
        return rows, codes, vals, status
    status = status.copy()
    status[unsafe & (status == _OK)] = _RANGE
    keep = ~unsafe[rows]
    return rows[keep], codes[keep], vals[keep], status
