"""The dual coordinate-descent solver of the L1-loss SVM dual (survey Algorithms 3–4).

:func:`solve` drives passes of an *epoch* (one sweep of coordinate updates over the active
set, provided by a W′ representation, see :mod:`ratkit.learners.wprime`), with shrinking
and the stopping rule of LIBLINEAR; the primal and dual objectives certify a solution.
"""

from ratkit.learners.dcd._solver import DualResult, convergence_record, dual_objective, primal_objective, solve

__all__ = ["DualResult", "solve", "primal_objective", "dual_objective", "convergence_record"]
