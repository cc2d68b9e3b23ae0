"""The four semirings of ratkit and their encoding as OpenFst weights.

===========  ===================  ===========  ===========  =====  =====  =============
semiring     natural domain       ⊕            ⊗            0̄      1̄      pynini arcs
===========  ===================  ===========  ===========  =====  =====  =============
BOOLEAN      {False, True}        ∨            ∧            False  True   ``standard``
PROBABILITY  [0, +∞)              \\+           ×            0      1      ``log64``
LOG          (−∞, +∞]             ⊕_log        \\+           +∞     0      ``log64``
TROPICAL     (−∞, +∞]             min          \\+           +∞     0      ``standard``
===========  ===================  ===========  ===========  =====  =====  =============

with ``x ⊕_log y = −ln(e^{−x} + e^{−y})``. pynini only has tropical (``standard``)
and log arc types, so PROBABILITY is stored as log weights ``−ln p`` (p = 0 is the log
zero, +∞) and BOOLEAN as tropical weights (True ↦ 0, False ↦ +∞). Both encodings are
exact semiring isomorphisms; ratkit converts at the boundary, so a user sees values in
the natural domain of the semiring they chose.

Log and probability weights use ``log64`` (double precision): the ``log`` (float32) arc
type drifts by ~7e-3 nats along paths of 1 000 arcs. Tropical weights are float32
(OpenFst registers no 64-bit tropical arc type in pynini), i.e. ~7 significant digits.

Ranges: a tropical cost must be finite with ``|x|`` ≤ :data:`TROPICAL_MAX` = 3.4028235e38 (the
largest float32) or +∞; a larger one is refused with SemiringError instead of becoming +∞
(0̄, "no path"). A probability is read back as ``e^{−v}`` from its log weight v: above the
largest float64 (v < −709.78) that raises :class:`~ratkit.exceptions.WeightOverflowError`,
and below the smallest one (v > 745.13) it underflows to 0 as IEEE arithmetic does (keep
such values in the LOG semiring). A native −∞ or NaN is no OpenFst weight (it is what an
overflowed ⊗ leaves behind): reading one back raises WeightOverflowError.

Negative reals are not elements of the probability semiring (nor of the boolean one):
converting one raises :class:`~ratkit.exceptions.SemiringError` naming the value and the
semiring. Signed quantities (e.g. an SVM's y_i α_i) must be kept outside OpenFst.

Ψ (:meth:`Semiring.psi`) maps a semiring value to a real number for kernels
(Definition 4 of the survey): the identity on PROBABILITY, ``v ↦ e^{−v}`` on LOG (the
semiring morphism to (ℝ₊, +, ×)), ``True ↦ 1, False ↦ 0`` on BOOLEAN, and the identity on
TROPICAL costs (a distance; this Ψ is *not* a semiring morphism, so the closure theorems
for PDS rational kernels do not apply to it).

References
----------
A. Ghose, *Rational kernels: a survey*, §II, Table I and Definitions 2–4.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pywrapfst

from ratkit._jit import njit
from ratkit.exceptions import ParameterTypeError, SemiringError, WeightOverflowError

__all__ = [
    "Semiring",
    "SemiringName",
    "BOOLEAN",
    "PROBABILITY",
    "LOG",
    "TROPICAL",
    "SEMIRINGS",
    "get_semiring",
    "TROPICAL_MAX",
    "log_plus",
]

SemiringName = Literal["boolean", "probability", "log", "tropical"]
ArcType = Literal["standard", "log64"]

TROPICAL_MAX = float(np.finfo(np.float32).max)  # the largest |cost| a tropical (float32) weight holds
_FLOAT_MAX = float(np.finfo(np.float64).max)  # the largest float64
_EXP_MAX = math.log(_FLOAT_MAX)  # e^{−v} overflows float64 for v < −_EXP_MAX


@dataclass(frozen=True, eq=False)
class Semiring:
    """A semiring (K, ⊕, ⊗, 0̄, 1̄) with its encoding as OpenFst weights.

    Values passed to and returned by :meth:`plus`, :meth:`times`, ``zero`` and ``one``
    are in the *natural* domain of the semiring (see the module docstring).

    What an algorithm may assume of a semiring is read from its capability flags, as
    OpenFst's property bits (``kIdempotent``, ``kPath``, ``kCommutative``), never from its
    name: :attr:`idempotent`, :attr:`path`, :attr:`commutative`, :attr:`real_plus`,
    :attr:`two_valued` and :attr:`log_weights`.

    ===========  ==========  ====  ===========  =========  ==========  ===========
    semiring     idempotent  path  commutative  real_plus  two_valued  log_weights
    ===========  ==========  ====  ===========  =========  ==========  ===========
    BOOLEAN      yes         yes   yes          no         yes         no
    PROBABILITY  no          no    yes          yes        no          no
    LOG          no          no    yes          yes        no          yes
    TROPICAL     yes         yes   yes          no         no          yes
    ===========  ==========  ====  ===========  =========  ==========  ===========
    """

    name: str
    zero: Any
    one: Any
    arc_type: ArcType
    weight_type: str
    _plus: Callable[[Any, Any], Any] = field(repr=False)
    _times: Callable[[Any, Any], Any] = field(repr=False)
    _encode: Callable[[float], float] = field(repr=False)
    _decode: Callable[[float], Any] = field(repr=False)
    _psi: Callable[[Any], float] = field(repr=False)
    _check: Callable[[Any], Any] = field(repr=False)
    #: a ⊕ a = a for every a (OpenFst's kIdempotent): ⊕ picks rather than adds, so
    #: determinisation and minimisation apply to any machine, and path sums are shortest paths.
    idempotent: bool = False
    #: The largest magnitude of a finite natural value (None: no numeric range, BOOLEAN).
    limit: float | None = None
    #: a ⊕ b is a or b (OpenFst's kPath): the total weight is that of one best path.
    path: bool = False
    #: a ⊗ b = b ⊗ a (OpenFst's kCommutative).
    commutative: bool = True
    #: ⊕ is the addition of non-negative reals, Ψ(a ⊕ b) = Ψ(a) + Ψ(b) (PROBABILITY on p, LOG on
    #: p = e^{−v}): the semiring counts paths, so kernels over it have finite feature maps,
    #: are PDS as T ∘ T⁻¹, and its sums over cycles can diverge.
    real_plus: bool = False
    #: The semiring has only the two values 0̄ and 1̄ (BOOLEAN): every weight is one of them, and
    #: no sum or product ever leaves them.
    two_valued: bool = False
    #: Natural values are the floats OpenFst stores, in the −ln domain (LOG's log weights,
    #: TROPICAL's costs); False when ratkit converts them (PROBABILITY's p = e^{−v}, BOOLEAN's
    #: truth values).
    log_weights: bool = False

    # -- semiring operations on natural values ---------------------------------------
    def plus(self, a: Any, b: Any) -> Any:
        """a ⊕ b; WeightOverflowError when the sum of two representable values is not representable."""
        a, b = self.check(a), self.check(b)
        return self._in_range("⊕", a, b, self._plus(a, b))

    def times(self, a: Any, b: Any) -> Any:
        """a ⊗ b; WeightOverflowError when the product of two representable values is not representable."""
        a, b = self.check(a), self.check(b)
        return self._in_range("⊗", a, b, self._times(a, b))

    def _in_range(self, op: str, a: Any, b: Any, result: Any) -> Any:
        """``result`` of ``a op b`` if it is a weight of this semiring, else WeightOverflowError: an infinite
        (or NaN) result of finite operands, or a finite one beyond :attr:`limit`, is an overflow that
        would otherwise read as 0̄ (or as another wrong value)."""
        if self.limit is None:
            return result
        r = float(result)
        if r == math.inf and self.real_plus and self.log_weights:
            return result  # −ln p = +∞ is p = 0: an underflow to 0̄, as PROBABILITY's 1e-200 ⊗ 1e-200 = 0
        finite_operands = math.isfinite(a) and math.isfinite(b)
        if (finite_operands and not math.isfinite(r)) or (math.isfinite(r) and abs(r) > self.limit) or r != r:
            raise WeightOverflowError(
                f"{a!r} {op} {b!r} in the {self.name} semiring overflows: the result {r!r} is outside the range of "
                f"{self.name} weights (finite values of magnitude ≤ {self.limit:.8g}). "
                + (
                    "Use the log semiring, which holds -ln p, or rescale the weights."
                    if self.real_plus and not self.log_weights
                    else "Rescale the weights (e.g. divide them all by a constant)."
                )
            )
        return result

    def psi(self, value: Any) -> float:
        """Ψ(value): the real number a kernel reports for a semiring value."""
        return float(self._psi(self.check(value)))

    def check(self, value: Any) -> Any:
        """Return ``value`` as an element of the natural domain, or raise SemiringError."""
        return self._check(value)

    # -- encoding as OpenFst weights ---------------------------------------------------
    def to_native(self, value: Any) -> float:
        """The float OpenFst stores for a natural value (−ln p for PROBABILITY, ...)."""
        return self._encode(self.check(value))

    def from_native(self, native: float) -> Any:
        """The natural value of an OpenFst float (inverse of :meth:`to_native`).

        Raises WeightOverflowError for −∞ or NaN (no OpenFst weight: the trace of an
        overflowed ⊗) and for a probability above the largest float64.
        """
        x = float(native)
        if not x > -math.inf:
            raise WeightOverflowError(
                f"{x!r} is not a {self.name} weight: OpenFst holds no -inf or NaN weight, so the operation "
                "that produced it overflowed in a ⊗-product. Rescale the weights of its operands."
            )
        return self._decode(x)

    def weight(self, value: Any) -> pywrapfst.Weight:
        """A ``pywrapfst.Weight`` of this semiring's arc type holding ``value``."""
        native = self.to_native(value)
        if math.isinf(native):
            return pywrapfst.Weight.zero(self.weight_type)
        return pywrapfst.Weight(self.weight_type, native)

    def __repr__(self) -> str:
        return self.name.upper()

    def __reduce__(self) -> str:  # pickle by name: semirings are singletons
        return self.name.upper()


def _real(value: Any, semiring: str) -> float:
    if isinstance(value, (bool, np.bool_)):
        return 1.0 if value else 0.0
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise SemiringError(f"{value!r} is not a number, so it is not a weight of the {semiring} semiring.") from None
    except OverflowError:
        raise SemiringError(
            f"{value!r} is beyond the float64 range (|x| ≤ 1.8e308), so it is not a weight of the {semiring} "
            "semiring. Rescale the weights."
        ) from None
    if math.isnan(x):
        raise SemiringError(f"NaN is not a weight of the {semiring} semiring.")
    return x


def _check_probability(value: Any) -> float:
    x = _real(value, "probability")
    if x < 0:
        raise SemiringError(
            f"The probability semiring holds non-negative reals; got {value!r}. Negative "
            "weights cannot be stored in OpenFst log weights: keep signed quantities "
            "outside the automaton or split them by sign."
        )
    if math.isinf(x):  # +inf: its log weight −ln(+inf) = −inf is no valid OpenFst weight
        raise SemiringError(
            f"The probability semiring holds finite non-negative reals; got {value!r}. An infinite "
            "probability weight has no OpenFst log weight (it would be read back as 0)."
        )
    return x


def _check_cost(name: str, limit: float = math.inf) -> Callable[[Any], float]:
    """The check of a cost semiring whose finite weights must satisfy |x| ≤ ``limit``."""

    def check(value: Any) -> float:
        x = _real(value, name)
        if x == -math.inf:
            raise SemiringError(
                f"-inf is not a weight of the {name} semiring in ratkit: it would make "
                f"-inf ⊗ +inf undefined. Use a finite value or +inf ({name} zero)."
            )
        if math.isfinite(x) and abs(x) > limit:
            raise SemiringError(
                f"{name.capitalize()} costs are stored as float32, so a finite one must satisfy |x| ≤ {limit:.8g}; "
                f"got {value!r}, which would be stored as {math.copysign(math.inf, x)}. Rescale the costs "
                "(e.g. divide them all by a constant)."
            )
        return x

    return check


def _check_boolean(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)) and value in (0, 1):
        return bool(value)
    raise SemiringError(f"The boolean semiring holds True/False (or 0/1); got {value!r}.")


@njit
def log_plus(a: float, b: float) -> float:  # pragma: no cover - compiled
    """a ⊕ b = −ln(e^{−a} + e^{−b}) on log weights (+∞ is 0̄), without overflow; compiled, so
    that the path sums of :mod:`ratkit.automata.distance` use the same ⊕ in their loops."""
    if a == np.inf:
        return b
    if b == np.inf or a == -np.inf:
        return a
    if b == -np.inf:
        return b
    if a < b:
        return a - np.log1p(np.exp(a - b))
    return b - np.log1p(np.exp(b - a))


def _log_plus(a: float, b: float) -> float:
    return float(log_plus(float(a), float(b)))


def _neg_log(p: float) -> float:
    return math.inf if p == 0.0 else -math.log(p)


def _exp_neg(v: float) -> float:
    """e^{−v}: +∞ ↦ 0; WeightOverflowError above the largest float64 (underflow gives 0, as in IEEE)."""
    if v < -_EXP_MAX:
        raise WeightOverflowError(
            f"The probability e^{-v:g} of the log weight {v:g} exceeds the largest float64 (about 1.8e308), so "
            "it has no float value. Use the log semiring, whose values are the log weights, or rescale the weights."
        )
    return 0.0 if v == math.inf else math.exp(-v)


BOOLEAN = Semiring(
    name="boolean",
    zero=False,
    one=True,
    arc_type="standard",
    weight_type="tropical",
    _plus=lambda a, b: a or b,
    _times=lambda a, b: a and b,
    _encode=lambda v: 0.0 if v else math.inf,
    _decode=lambda n: n != math.inf,
    _psi=lambda v: 1.0 if v else 0.0,
    _check=_check_boolean,
    idempotent=True,
    path=True,
    two_valued=True,
)

PROBABILITY = Semiring(
    name="probability",
    zero=0.0,
    one=1.0,
    arc_type="log64",
    weight_type="log64",
    _plus=lambda a, b: a + b,
    _times=lambda a, b: a * b,
    _encode=_neg_log,
    _decode=_exp_neg,
    _psi=lambda v: v,
    _check=_check_probability,
    limit=_FLOAT_MAX,
    real_plus=True,
)

LOG = Semiring(
    name="log",
    zero=math.inf,
    one=0.0,
    arc_type="log64",
    weight_type="log64",
    _plus=_log_plus,
    _times=lambda a, b: a + b,
    _encode=lambda v: v,
    _decode=lambda n: n,
    _psi=_exp_neg,
    _check=_check_cost("log"),
    limit=_FLOAT_MAX,
    real_plus=True,
    log_weights=True,
)

TROPICAL = Semiring(
    name="tropical",
    zero=math.inf,
    one=0.0,
    arc_type="standard",
    weight_type="tropical",
    _plus=min,
    _times=lambda a, b: a + b,
    _encode=lambda v: v,
    _decode=lambda n: n,
    _psi=lambda v: v,
    _check=_check_cost("tropical", TROPICAL_MAX),
    idempotent=True,
    limit=TROPICAL_MAX,
    path=True,
    log_weights=True,
)

SEMIRINGS: dict[str, Semiring] = {s.name: s for s in (BOOLEAN, PROBABILITY, LOG, TROPICAL)}


def get_semiring(semiring: Semiring | str) -> Semiring:
    """Coerce a semiring object or its name (``"probability"``, ...) to a :class:`Semiring`."""
    if isinstance(semiring, Semiring):
        return semiring
    if not isinstance(semiring, str):
        raise ParameterTypeError(
            f"A semiring must be a ratkit.automata.semirings object or one of the names "
            f"{', '.join(map(repr, SEMIRINGS))}; got {semiring!r:.60} of type {type(semiring).__name__}."
        )
    if semiring.lower() in SEMIRINGS:
        return SEMIRINGS[semiring.lower()]
    raise SemiringError(
        f"Unknown semiring {semiring!r}; expected one of "
        f"{', '.join(map(repr, SEMIRINGS))} or a ratkit.automata.semirings object."
    )
