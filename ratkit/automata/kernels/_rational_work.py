"""The work of rational kernels outside the class: OpenFst per sequence and per pair, and size checks.

Module-level functions, so that they pickle for worker processes: the input acceptor of a
sequence or lattice, the feature automaton Φ_x = Π2(X ∘ T), the enumerated features of a
chunk of sequences, the total of one pair's intersection or composition, one block of a
family's own feature extractor; and the checks that refuse a transducer or a composition too
large to build (bounds in :mod:`ratkit.limits`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import joblib
import numpy as np
import pynini

from ratkit._parallel import UNPICKLABLE, Shared, effective_jobs, parallel_map
from ratkit.automata.alphabet import Alphabet, as_symbols
from ratkit.automata.construct import _chain
from ratkit.automata.distance import total_native
from ratkit.automata.fst_arrays import fst_to_arrays
from ratkit.automata.kernels._paths import TooManyPaths, enumerate_paths
from ratkit.automata.kernels.inputs import as_lattice, is_lattice
from ratkit.automata.semirings import Semiring
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ResourceLimitError, SemiringMismatchError, WeightOverflowError
from ratkit.limits import MAX_COMPOSED_STATES, MAX_FACTOR_ARCS, MAX_PATHS

if TYPE_CHECKING:
    from ratkit.automata.kernels.base import Kernel
    from ratkit.automata.kernels.rational import RationalKernel

log = logging.getLogger(__name__)

__all__ = [
    "Same",
    "check_factor_arcs",
    "check_composition_size",
    "specialized_block",
    "input_fst",
    "sorted_fst",
    "cyclic_lattice",
    "phi_fst",
    "phi_features_chunk",
    "pair_total",
    "params_key",
    "check_feature_automata",
    "specialized_in_blocks",
]


class Same:
    """A value compared by identity, held: as part of a cache key it keeps the value alive,
    so that its address cannot pass to another object while the key is cached."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def specialized_block(
    kernel: RationalKernel, symbols: dict[str, int], start: int, sequences: list[Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One task of :meth:`RationalKernel._specialized_in_blocks`: rows offset by ``start``."""
    out = kernel._specialized_features(sequences, symbols)
    if out is None:
        return None
    rows, codes, vals = out
    return np.asarray(rows, dtype=np.int64) + start, codes, vals


def check_factor_arcs(n_arcs: int, what: str, hint: str) -> None:
    """Raise ResourceLimitError when a family's transducer (``what``) would have more than
    :data:`MAX_FACTOR_ARCS` arcs; ``hint`` says what to do instead."""
    if n_arcs > MAX_FACTOR_ARCS:
        raise ResourceLimitError(
            f"{what} would have {n_arcs:,} arcs, beyond the limit of {MAX_FACTOR_ARCS:,} arcs "
            f"(about {n_arcs * 550 / 2**30:.1f} GiB to build). {hint}"
        )


def check_composition_size(kernel: Kernel, X: list, Ys: list, n_states: int) -> None:
    """Raise ResourceLimitError when X ∘ S ∘ Y of the longest pair would exceed
    :data:`MAX_COMPOSED_STATES` states, estimated as (|x| + 1)·|Q_S|·(|y| + 1)."""
    lx = max((len(x) for x in X if not is_lattice(x)), default=0)
    ly = max((len(y) for y in Ys if not is_lattice(y)), default=0)
    states = (lx + 1) * n_states * (ly + 1)
    if states > MAX_COMPOSED_STATES:
        raise ResourceLimitError(
            f"{kernel!r} by composition would build X ∘ S ∘ Y of about {states:,} states for sequences of "
            f"{lx:,} and {ly:,} symbols (S has {n_states:,}), beyond the limit of {MAX_COMPOSED_STATES:,}. "
            "Use strategy='auto' (the family's own algorithm) or shorter sequences."
        )


# -- per-sequence work (module level: picklable for worker processes) -----------------


def input_fst(x: Any, t: Transducer) -> pynini.Fst:
    """The acceptor of x (a sequence or a lattice) in t's semiring, labelled in t's alphabet."""
    ab, sr = t.alphabet, t.semiring
    if is_lattice(x):
        lat = as_lattice(x)
        if lat.semiring is not sr:
            raise SemiringMismatchError(
                f"A {lat.semiring.name} lattice cannot be used with a {sr.name} kernel transducer; give the lattice "
                f"in the {sr.name} semiring."
            )
        pairs = lat.alphabet.relabelling(ab.merge(lat.alphabet))
        f = lat._fst if not pairs else pynini.relabel_pairs(lat._fst, ipairs=pairs, opairs=pairs)
        return pynini.arcsort(f.copy(), sort_type="olabel")
    labels = ab.labels(x if isinstance(x, str) else as_symbols(x))
    return _chain(labels, labels, sr, ab, sr.one)._fst


def sorted_fst(t: Transducer) -> pynini.Fst:
    """A copy of t's FST sorted on input labels, ready to be composed on the right."""
    return pynini.arcsort(t._fst.copy(), sort_type="ilabel")


def cyclic_lattice(x: Any) -> bool:
    """Whether x is a lattice with a cycle (its feature automaton has infinitely many strings)."""
    return is_lattice(x) and not as_lattice(x).is_acyclic


def phi_fst(x: Any, t: Transducer, tf: pynini.Fst, sort: bool = True) -> pynini.Fst:
    """Φ_x = Π2(X ∘ T), ε-removed (and arcsorted for intersection when ``sort``);
    ``tf`` is T's FST from :func:`sorted_fst`.

    ε-removal sums the weights of ε-paths with OpenFst's shortest distance, exactly only
    with ``delta=0`` (a positive delta drops every term below it relative to the sum). Its
    ε-subgraph is acyclic unless x is a cyclic lattice (T is regulated, and every ε-arc of
    Φ_x reads a symbol of x); a cyclic one keeps its ε-arcs, which intersection and
    :func:`~ratkit.automata.distance.total_native` sum exactly (a linear solve) — with
    ``delta=0`` OpenFst would iterate until the geometric sums stopped changing.
    """
    f = pynini.compose(input_fst(x, t), tf)
    f.project("output")  # in place: f is our own fresh result
    if not cyclic_lattice(x):
        f.rmepsilon(delta=0.0)
    return f.arcsort(sort_type="ilabel") if sort else f


def phi_features_chunk(
    t: Transducer, chunk: Sequence[tuple[int, Any]], n_labels: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """COO triplets of the enumerated feature automata of a chunk of (row, sequence)."""
    tf = sorted_fst(t)
    rows, codes, vals = [], [], []
    for i, x in chunk:
        if cyclic_lattice(x):
            raise TooManyPaths("a cyclic lattice has infinitely many feature strings")
        a = fst_to_arrays(phi_fst(x, t, tf, sort=False))
        if n_labels < len(t.alphabet):  # patterns with symbols outside the vocabulary can't match
            keep = a.olabel <= n_labels
            a.src, a.ilabel, a.olabel, a.weight, a.dst = (v[keep] for v in (a.src, a.ilabel, a.olabel, a.weight, a.dst))
        c, w = enumerate_paths(a, n_labels, MAX_PATHS)
        with np.errstate(over="ignore"):
            values = np.exp(-w)
        if not np.isfinite(values).all():
            raise WeightOverflowError(
                f"Input {i}: a feature weight ⟦T⟧(x, z) = e^{-float(w.min()):.4g} exceeds float64's range "
                "(about e^709); scale T's weights down."
            )
        rows.append(np.full(c.shape[0], i, dtype=np.int64))
        codes.append(c)
        vals.append(values)
    return np.concatenate(rows), np.concatenate(codes), np.concatenate(vals)


def pair_total(left: pynini.Fst, right: pynini.Fst, semiring: Semiring, intersect: bool) -> float:
    """The native total of left ∩ right (or left ∘ right)."""
    f = pynini.intersect(left, right) if intersect else pynini.compose(left, right)
    return total_native(Transducer(f, semiring, Alphabet(()), check=False))


def params_key(params: dict[str, Any]) -> Any:
    """A digest of parameters' contents; a value that does not pickle stands for itself, by identity."""
    try:
        return joblib.hash(params)
    except UNPICKLABLE:
        pass
    digests, objects = {}, []
    for name, value in sorted(params.items()):
        try:
            digests[name] = joblib.hash(value)
        except UNPICKLABLE:
            objects.append((name, Same(value)))
    return joblib.hash(digests), tuple(objects)


def check_feature_automata(
    kernel: RationalKernel, sequences: Sequence[Any], held: bool, reason: str, limit: int
) -> None:
    """Raise ResourceLimitError when Φ_x of ``sequences`` would exceed ``limit`` arcs by the
    family's estimate (:meth:`RationalKernel._feature_automaton_arcs`): the largest one (built
    one at a time), or all of them (``held``: kept at once)."""
    plain = [x if isinstance(x, str) else as_symbols(x) for x in sequences if not is_lattice(x)]
    if not plain:
        return
    estimates = [kernel._feature_automaton_arcs(len(x), len(set(x))) for x in plain]
    sizes = [a for a in estimates if a is not None]
    if len(sizes) < len(estimates):
        return
    largest = int(np.argmax(sizes))
    arcs = int(sum(sizes)) if held else int(sizes[largest])
    if arcs > limit:
        what = (
            f"the feature automata Φ_x of these {len(plain)} sequences"
            if held
            else (f"the feature automaton Φ_x of the sequence of {len(plain[largest]):,} symbols")
        )
        why = f"{reason}, so " if reason else ""
        raise ResourceLimitError(
            f"{kernel!r}: {why}its features would come from {what}, which has {arcs:,} arcs after "
            f"ε-removal, beyond the limit of {limit:,} arcs (about {arcs * 120 / 2**30:.1f} GiB). "
            "Use shorter sequences (split long ones), fewer distinct symbols, or smaller patterns."
        )


def specialized_in_blocks(
    kernel: RationalKernel,
    sequences: list[str | tuple[str, ...]],
    symbols: dict[str, int],
    n_jobs: int | None,
    show_progress: bool,
    seconds_per_byte: float,
    min_gain: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The family's feature extractor on blocks of sequences as parallel tasks, rows renumbered
    into the whole collection: the first block in this process, timed, and the others on the
    workers when (serial seconds of the rest)·(1 − 1/jobs) exceeds bringing their triplets
    back (``seconds_per_byte``) plus ``min_gain``; else all of it here, in one call."""
    jobs = effective_jobs(n_jobs)
    if jobs == 1 or len(sequences) < 2:
        return kernel._specialized_features(sequences, symbols)
    size = -(-len(sequences) // (4 * jobs))
    started = time.perf_counter()
    first = specialized_block(kernel, symbols, 0, sequences[:size])
    if first is None or size >= len(sequences):
        return first
    seconds = time.perf_counter() - started
    done, rest = sum(map(len, sequences[:size])), sum(map(len, sequences[size:]))
    scale = rest / done if done else (len(sequences) - size) / size
    back = scale * sum(np.asarray(field).nbytes for field in first) * seconds_per_byte
    if scale * seconds * (1 - 1 / jobs) <= back + min_gain:
        # all of it in one call, as with one job (no concatenation, whose copies would
        # raise the peak memory); the first block is done twice, at most 1/(4·jobs) more
        log.debug("feature extraction stays in this process: blocks would cost more than they save")
        del first
        return kernel._specialized_features(sequences, symbols)
    starts = range(size, len(sequences), size)
    parts = [first]
    parts += parallel_map(
        specialized_block,
        [(start, sequences[start : start + size]) for start in starts],
        shared=(Shared(kernel), Shared(symbols)),
        n_jobs=n_jobs,
        show_progress=show_progress,
        desc="features",
        unit="seq",
        sizes=[len(sequences[start : start + size]) for start in starts],
    )
    blocks = [part for part in parts if part is not None]
    if len(blocks) < len(parts):
        return None
    rows, codes, values = (np.concatenate([part[field] for part in blocks]) for field in range(3))
    return rows, codes, values
