"""Rational operations, composition and the classical optimisations, on ratkit transducers.

Every function accepts what a user holds (a :class:`Transducer`, a ``str`` or token
sequence, a ``pynini.Fst``), coerces it once with :func:`as_transducer`, reconciles the
operands' semirings and alphabets, and returns a new transducer: inputs are never
changed.

References
----------
A. Ghose, *Rational kernels: a survey*, §II: rational operations (items 1–3),
composition eq. (1)–(2), inverse, and §II-B.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, Literal

import numpy as np
import pynini
import pywrapfst

from ratkit.automata._resource_bounds import check_determinize, check_rmepsilon
from ratkit.automata.alphabet import Alphabet, SequenceLike
from ratkit.automata.construct import as_transducer, pynini_semiring
from ratkit.automata.distance import shortest_distance
from ratkit.automata.fst_arrays import arrays_to_fst, fst_to_arrays
from ratkit.automata.semirings import TROPICAL_MAX, Semiring
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import (
    DivergentSumError,
    OperationError,
    ParameterError,
    ParameterTypeError,
    WeightOverflowError,
)

__all__ = [
    "union",
    "concat",
    "closure",
    "compose",
    "invert",
    "project",
    "intersect",
    "rmepsilon",
    "determinize",
    "minimize",
    "difference",
    "complement",
    "sigma_star",
    "align",
]

Side = Literal["input", "output"]
_SIDES = ("input", "output")
# Weight-comparison tolerance for determinisation/minimisation of real-valued weights:
# far below any weight difference that matters, far above float64 round-off after pushing.
_DELTA = 1e-12
# ε-removal sums ε-paths by OpenFst's shortest distance, which skips any term below delta
# relative to the sum so far (10⁴ ε-paths of 1e-13 next to one of 1 summed to 1.0 with
# 1e-12). Regulated machines have no ε:ε cycle, so delta = 0 is exact and terminates.
_EPSILON_DELTA = 0.0


def _semiring_of(*operands: Any) -> Semiring | None:
    """The semiring of the first Transducer operand, else of the first pynini FST, else None."""
    for op in operands:
        if isinstance(op, Transducer):
            return op.semiring
    for op in operands:
        if isinstance(op, pynini.Fst):
            return pynini_semiring(op)
    return None


def _in_alphabet(t: Transducer, alphabet: Alphabet) -> pynini.Fst:
    """t's FST with labels renumbered into ``alphabet`` (no copy when they already agree)."""
    pairs = t.alphabet.relabelling(alphabet)
    if not pairs:
        return t._fst
    return pynini.relabel_pairs(t._fst, ipairs=pairs, opairs=pairs)


def align(*operands: Any) -> tuple[list[pynini.Fst], Transducer, Alphabet]:
    """Coerce operands, check one semiring, and renumber them into one merged alphabet.

    Returns the FSTs (not copies when nothing changed: do not mutate them), the first
    coerced operand, and the merged alphabet.
    """
    fsts, ts, alphabet = _aligned(*operands)
    return fsts, ts[0], alphabet


def _aligned(*operands: Any) -> tuple[list[pynini.Fst], list[Transducer], Alphabet]:
    """:func:`align`, with every coerced operand."""
    semiring = _semiring_of(*operands)
    ts = [as_transducer(op, semiring, what=f"operand {i + 1}") for i, op in enumerate(operands)]
    alphabet = ts[0].alphabet
    for t in ts[1:]:
        alphabet = alphabet.merge(t.alphabet)
    return [_in_alphabet(t, alphabet) for t in ts], ts, alphabet


def _wrap(fst: pynini.Fst, like: Transducer, alphabet: Alphabet, what: str) -> Transducer:
    try:
        return Transducer(fst, like.semiring, alphabet)
    except OperationError:
        raise
    except Exception as exc:
        if exc.__class__.__module__.startswith("ratkit"):
            exc.args = (f"{what}: {exc.args[0]}",) + exc.args[1:]
        raise


def _run(what: str, op: Callable[..., pynini.Fst], *args: Any, **kwargs: Any) -> pynini.Fst:
    try:
        return op(*args, **kwargs)
    except pywrapfst.FstOpError as exc:
        raise OperationError(f"{what} failed in OpenFst: {exc}") from None


def _within_range(
    what: str, op: Callable[..., pynini.Fst], fsts: list[pynini.Fst], bound: tuple[float, float], **kwargs: Any
) -> pynini.Fst:
    """op(*fsts, **kwargs) for an operation each of whose result weights is a ⊗-product of
    operand weights, its partial sums within ``bound`` = (highest, lowest).

    In the tropical semiring (float32 costs) a sum past ±3.4028235e38 rounds to ±∞, and
    OpenFst reads +∞ as 0̄ and drops it: the path would vanish without a word. So when the
    bound leaves the range, the operation runs on costs scaled down by a power of two (exact
    in binary, and min-plus commutes with it) and the result is scaled back; a cost that does
    not fit raises WeightOverflowError. Other semirings run ``op`` as it is."""
    high, low = bound
    excess = max(high, -low) / TROPICAL_MAX
    if fsts[0].arc_type() != "standard" or excess <= 1.0:
        return _run(what, op, *fsts, **kwargs)
    scale = 2.0 ** math.ceil(math.log2(excess))
    out = _run(what, op, *(_scaled(f, 1.0 / scale) for f in fsts), **kwargs)
    try:
        return _scaled(out, scale)
    except WeightOverflowError:
        raise WeightOverflowError(
            f"{what}: a cost of the result (a sum of costs along a path) is beyond ±3.4028235e38, the range of "
            "float32 tropical costs. Scale the costs down."
        ) from None


def _product_bound(operands: list[Transducer]) -> tuple[float, float]:
    """(highest, lowest) sum of one finite weight of each operand: a product's weights (compose,
    intersect) are each one arc or final weight of every operand ⊗ together."""
    high = low = 0.0
    for t in operands:
        w = _finite_weights(t)
        if w.size:
            high, low = high + max(float(w.max()), 0.0), low + min(float(w.min()), 0.0)
    return high, low


def _path_bound(t: Transducer) -> tuple[float, float]:
    """(highest, lowest) partial sum of weights along a path of ``t`` visiting each arc once at
    most (ε-removal sums ε-paths, which have no cycle in a regulated machine)."""
    w = _finite_weights(t)
    return float(w[w > 0].sum()), float(w[w < 0].sum())


def _finite_weights(t: Transducer) -> np.ndarray:
    a = t.arrays()
    w = np.concatenate((a.weight, a.final))
    return w[np.isfinite(w)]


def _scaled(f: pynini.Fst, factor: float) -> pynini.Fst:
    """``f`` with every finite arc and final cost multiplied by ``factor``."""
    a = fst_to_arrays(f)
    a.weight = np.where(np.isfinite(a.weight), a.weight * factor, a.weight)
    a.final = np.where(np.isfinite(a.final), a.final * factor, a.final)
    return arrays_to_fst(a)


def union(a: Any, b: Any) -> Transducer:
    """T1 ⊕ T2: ⟦T1 ⊕ T2⟧(x, y) = ⟦T1⟧(x, y) ⊕ ⟦T2⟧(x, y)."""
    (fa, fb), first, alphabet = align(a, b)
    return _wrap(_run("union", pynini.union, fa, fb), first, alphabet, "union")


def concat(a: Any, b: Any) -> Transducer:
    """T1 ⊗ T2: ⟦T1 ⊗ T2⟧(x, y) = ⊕_{x=x1x2, y=y1y2} ⟦T1⟧(x1, y1) ⊗ ⟦T2⟧(x2, y2)."""
    (fa, fb), first, alphabet = align(a, b)
    return _wrap(_run("concat", pynini.concat, fa, fb), first, alphabet, "concat")


def closure(t: Any) -> Transducer:
    """Kleene closure T*: ⟦T*⟧(x, y) = ⊕_{n≥0} ⟦Tⁿ⟧(x, y).

    Raises NotRegulatedError when T accepts (ε, ε) with a non-zero weight: T* then has
    an ε-cycle and its weights are not well defined.
    """
    (f,), first, alphabet = align(t)
    return _wrap(_run("closure", pynini.closure, f), first, alphabet, "closure")


def compose(a: Any, b: Any) -> Transducer:
    """T1 ∘ T2: ⟦T1 ∘ T2⟧(x, y) = ⊕_z ⟦T1⟧(x, z) ⊗ ⟦T2⟧(z, y)  (survey eq. (1)).

    An acceptor operand acts as the identity transducer it defines (eq. (2)). The result
    is trimmed; when no path matches it is the empty machine (every weight 0̄).
    """
    (fa, fb), ts, alphabet = _aligned(a, b)
    fa = pynini.arcsort(fa.copy(), sort_type="olabel")
    fb = pynini.arcsort(fb.copy(), sort_type="ilabel")
    product = _within_range("compose", pynini.compose, [fa, fb], _product_bound(ts))
    return _wrap(product, ts[0], alphabet, "compose")


def invert(t: Any) -> Transducer:
    """T⁻¹: ⟦T⁻¹⟧(x, y) = ⟦T⟧(y, x) (input and output labels swapped on every arc)."""
    (f,), first, alphabet = align(t)
    return _wrap(_run("invert", pynini.invert, f), first, alphabet, "invert")


def project(t: Any, side: Side) -> Transducer:
    """Π1(T) (``side="input"``): x ↦ ⊕_y ⟦T⟧(x, y); Π2(T) (``"output"``): y ↦ ⊕_x ⟦T⟧(x, y)."""
    if side not in _SIDES:
        raise ParameterError(f"The 'side' parameter of project must be 'input' or 'output'. Got {side!r} instead.")
    (f,), first, alphabet = align(t)
    return _wrap(_run("project", pynini.project, f, side), first, alphabet, "project")


def intersect(a: Any, b: Any) -> Transducer:
    """A1 ∩ A2 for acceptors: ⟦A1 ∩ A2⟧(x) = ⟦A1⟧(x) ⊗ ⟦A2⟧(x)."""
    (fa, fb), ts, alphabet = _aligned(a, b)
    for name, f in (("first", fa), ("second", fb)):
        if f.properties(pywrapfst.ACCEPTOR, True) != pywrapfst.ACCEPTOR:
            raise OperationError(
                f"intersect needs two acceptors, but the {name} operand is a transducer "
                "(some arc has different input and output labels). Use compose for transducers."
            )
    fa = pynini.arcsort(fa.copy(), sort_type="olabel")
    fb = pynini.arcsort(fb.copy(), sort_type="ilabel")
    product = _within_range("intersect", pynini.intersect, [fa, fb], _product_bound(ts))
    return _wrap(product, ts[0], alphabet, "intersect")


def rmepsilon(t: Any) -> Transducer:
    """An equivalent transducer without ε:ε transitions.

    Refused with ResourceLimitError, before OpenFst starts, when the arcs the ε-closures would
    give the states pass ratkit.limits.max_states() (an upper bound, Σ_q min(K, arcs of the
    ε-closure of q), K the distinct (label, destination) pairs)."""
    (f,), first, alphabet = align(t)
    return _wrap(_epsilon_free(f, first, "rmepsilon"), first, alphabet, "rmepsilon")


def _epsilon_free(f: pynini.Fst, t: Transducer, what: str) -> pynini.Fst:
    """ε-removal of ``f`` (the FST of ``t``, relabelled), bounded, exact (delta 0), in range."""
    f = _trimmed(f)
    check_rmepsilon(f, what)
    return _within_range(what, pynini.rmepsilon, [f], _path_bound(t), delta=_EPSILON_DELTA)


def _trimmed(f: pynini.Fst) -> pynini.Fst:
    """``f`` without its useless states (OpenFst's connect; ε-removal trims them anyway). The
    regulated check refuses ε-cycles among the useful states only, and OpenFst's ε-closure of a
    useless ε-loop of probability 1 never converges."""
    if f.properties(pywrapfst.EPSILONS, True) != pywrapfst.EPSILONS:
        return f
    return f.copy().connect()


def determinize(t: Any) -> Transducer:
    """An equivalent deterministic machine (ε-removal first).

    Weighted acceptors and functional transducers only; OpenFst refuses others, which
    raises OperationError. In the probability/log semirings some weighted acceptors have
    no finite deterministic equivalent: one that lacks the twins property (two states that
    read the same cycle at different weights) raises OperationError instead of running for
    ever. The check is not complete: an ambiguous log-semiring acceptor whose cycles all
    weigh alike but whose path sums are not realisable (e.g. aᵏ ↦ 2k + 1 − ln(k + 1)) still
    makes OpenFst run until it is stopped. A subset construction that passes
    ratkit.limits.max_states() states (counted before OpenFst starts: the unweighted subsets,
    a lower bound of the weighted ones) raises ResourceLimitError.
    """
    (f,), first, alphabet = align(t)
    f = _epsilon_free(f, first, "determinize")
    check_determinize(f, "determinize")
    return _wrap(_run("determinize", pynini.determinize, f, delta=_DELTA), first, alphabet, "determinize")


def minimize(t: Any) -> Transducer:
    """The minimal deterministic equivalent: ε-removal, determinisation, then minimisation.

    Minimisation pushes the weights towards the start, which needs each state's sum over its
    suffixes: a cyclic machine whose sums grow geometrically (a spectral radius ρ > 1, e.g.
    loops of probability 0.8 and 0.5) raises DivergentSumError (OpenFst's weight pushing ran
    for ever). Cycles of probability exactly 1 (ρ = 1, such as (ab)* with unit weights) are
    left to OpenFst, which minimises them correctly."""
    d = determinize(t)
    _check_pushable(d)
    if d._fst.properties(pywrapfst.I_DETERMINISTIC, True) != pywrapfst.I_DETERMINISTIC and not d.semiring.idempotent:
        raise OperationError(
            "minimize: the determinised transducer is not deterministic on its input tape (it has arcs that "
            "read nothing, where its output runs past its input), and OpenFst minimises such a machine only "
            f"over an idempotent semiring (tropical, boolean), not {d.semiring.name}. determinize(t) gives the "
            "equivalent deterministic machine."
        )
    f = _run("minimize", pynini.minimize, d._fst, delta=_DELTA, allow_nondet=False)
    return _wrap(f, d, d.alphabet, "minimize")


#: minimize refuses a spectral radius above 1 + this (see _check_pushable).
_PUSH_MARGIN = 1e-9


def _check_pushable(d: Transducer) -> None:
    """Raise DivergentSumError when the suffix sums of the deterministic ``d`` grow
    geometrically, ρ(M) > 1 + _PUSH_MARGIN: then M/(1 + _PUSH_MARGIN), every arc's probability
    divided by 1 + _PUSH_MARGIN, has a divergent total too (every state of ``d`` is reachable,
    so a state's sum diverges only if the start's does). In the tropical semiring, a negative
    cycle. Acyclic machines and boolean ones are always pushable."""
    if d._fst.properties(pywrapfst.CYCLIC, True) != pywrapfst.CYCLIC or d.semiring.two_valued:
        return
    probe = d
    if d.semiring.real_plus:  # sums of reals: divide every arc's probability by 1 + margin
        a = fst_to_arrays(d._fst)
        a.weight = np.where(np.isfinite(a.weight), a.weight + math.log1p(_PUSH_MARGIN), a.weight)  # p/(1 + margin)
        probe = Transducer(arrays_to_fst(a), d.semiring, d.alphabet)
    try:
        shortest_distance(probe)
    except DivergentSumError as exc:
        raise DivergentSumError(
            f"minimize: the suffix sums of this machine diverge, which weight pushing cannot handle. {exc}"
        ) from None


def _support_dfa(f: pynini.Fst, what: str) -> pynini.Fst:
    """The unweighted deterministic ε-free acceptor of {x : A(x) ≠ 0̄}."""
    if f.properties(pywrapfst.ACCEPTOR, True) != pywrapfst.ACCEPTOR:
        raise OperationError(f"{what} needs acceptors; the operand is a transducer.")
    arc_type = f.arc_type()
    # unweighted, and tropical: determinising unit weights in the log semiring counts paths
    # (2 for a string read two ways), whose residuals converge only through OpenFst's delta
    # (slowly, even for a 2-state acceptor:
    # measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)');
    # in the tropical semiring min(0, 0) = 0 at once
    f = pynini.arcmap(pynini.arcmap(pynini.connect(f.copy()), map_type="rmweight"), map_type="to_std")
    f = _run(what, pynini.determinize, _run(what, pynini.rmepsilon, f))
    back = {"standard": "identity", "log": "to_log", "log64": "to_log64"}[arc_type]
    return pynini.arcmap(pynini.arcmap(f, map_type=back), map_type="rmweight")


def difference(a: Any, b: Any) -> Transducer:
    """A − B: ⟦A − B⟧(x) = ⟦A⟧(x) if B(x) = 0̄, else 0̄ (acceptors; B's weights are ignored)."""
    (fa, fb), first, alphabet = align(a, b)
    if fa.properties(pywrapfst.ACCEPTOR, True) != pywrapfst.ACCEPTOR:
        raise OperationError("difference needs acceptors; the first operand is a transducer.")
    fa = pynini.arcsort(_epsilon_free(fa, first, "difference"), sort_type="olabel")
    fb = pynini.arcsort(_support_dfa(fb, "difference"), sort_type="ilabel")
    return _wrap(_run("difference", pynini.difference, fa, fb), first, alphabet, "difference")


def _as_alphabet(alphabet: Any, where: str) -> Alphabet:
    """An Alphabet as given, or the declared alphabet of a str (its characters) or token sequence."""
    if isinstance(alphabet, Alphabet):
        return alphabet
    if isinstance(alphabet, (str, Iterable)) and not isinstance(alphabet, (bytes, bytearray)):
        return Alphabet(alphabet)
    raise ParameterTypeError(
        f"The 'alphabet' parameter of {where} must be a ratkit Alphabet, a str of symbols or a sequence of str "
        f"tokens. Got {alphabet!r:.60} of type {type(alphabet).__name__} instead."
    )


def sigma_star(alphabet: Alphabet | SequenceLike, semiring: Any = None) -> Transducer:
    """Σ*: the one-state acceptor of every string over ``alphabet``, each with weight 1̄.

    ``alphabet`` is an :class:`Alphabet`, or a ``str`` / token sequence read as a declared one."""
    from ratkit.automata.construct import from_arcs
    from ratkit.automata.semirings import PROBABILITY, get_semiring

    sr = get_semiring(semiring) if semiring is not None else PROBABILITY
    alphabet = _as_alphabet(alphabet, "sigma_star")
    return from_arcs([(0, s, sr.one, 0) for s in alphabet], 0, {0: sr.one}, sr, alphabet)


def complement(a: Any, alphabet: Alphabet | SequenceLike | None = None) -> Transducer:
    """Σ* − L(A): the unweighted acceptor of the strings A gives weight 0̄.

    Σ is ``alphabet`` when given (it must contain A's symbols), else A's own alphabet.
    """
    (f,), first, own = align(a)
    alphabet = own if alphabet is None else _as_alphabet(alphabet, "complement").merge(own)
    return difference(sigma_star(alphabet, first.semiring), first)
