"""The one warning every iterative ratkit model gives when it stops at its iteration cap
before its stopping rule holds (scikit-learn's :class:`~sklearn.exceptions.ConvergenceWarning`).

Who calls it: the dual coordinate descent of :class:`~ratkit.learners.RationalSVC` and
:class:`~ratkit.learners.LinearDCDSVC`, :class:`~ratkit.recsys.MFAUC`,
:class:`~ratkit.recsys.CCCF` and :class:`~ratkit.recsys.DCF`. Models without a stopping
rule (a fixed number of epochs or sweeps: TJSL, FISM, the ALS pre-training of CCCF) have
nothing to converge to and never warn; solvers whose failure would give a wrong answer raise
:class:`~ratkit.exceptions.SolverError` instead (an ARPACK SVD or spectral radius that does
not converge, a kernel-learning QP whose status is not optimal, a random-walk solve whose
residual stays large).
"""

from __future__ import annotations

import os
import sys
import warnings
from types import FrameType

from sklearn.exceptions import ConvergenceWarning

__all__ = ["warn_not_converged"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_not_converged(owner: str, max_iter: int, unit: str, state: str, advice: str) -> None:
    """Warn ``"{owner} did not converge in max_iter={max_iter} {unit}: {state}. {advice}"``
    as a :class:`~sklearn.exceptions.ConvergenceWarning`, attributed to the first caller
    outside ratkit (the line that called ``fit``), whatever the depth of the model's code."""
    warnings.warn(
        f"{owner} did not converge in max_iter={max_iter} {unit}: {state}. {advice}",
        ConvergenceWarning,
        stacklevel=_outside_ratkit(),
    )


def _outside_ratkit() -> int:
    """The ``stacklevel`` of the first frame, from :func:`warn_not_converged` outwards, whose
    code is not in the ratkit package."""
    frame: FrameType | None = sys._getframe(1)  # warn_not_converged: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level
