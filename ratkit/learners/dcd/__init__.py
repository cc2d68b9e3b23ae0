"""The dual coordinate-descent solver of the L1-loss SVM dual (survey Algorithms 3–4).

:func:`solve` drives passes of an *epoch* (one sweep of coordinate updates over the active
set, provided by a W′ representation, see :mod:`ratkit.learners.wprime`), with shrinking
and the stopping rule of LIBLINEAR; the primal and dual objectives certify a solution.

The lowest layer of :mod:`ratkit.learners` (``svm`` > ``wprime`` > ``dcd``): the compiled
passes (:mod:`~ratkit.learners.dcd.epochs`), the rows they read
(:mod:`~ratkit.learners.dcd.rows`, :class:`IndexedRows`) and the cached inner products of
the active rows (:mod:`~ratkit.learners.dcd.active_gram`) are public modules that the
representations of W′ build on; :mod:`~ratkit.learners.dcd.cocoa` is the local solver of
CoCoA+, which trains on a Dask cluster (:mod:`ratkit.learners.svm.distributed`).
"""

from ratkit.learners.dcd._solver import DualResult, convergence_record, dual_objective, primal_objective, solve
from ratkit.learners.dcd.active_gram import ActiveGramEpoch, cache_capacity
from ratkit.learners.dcd.cocoa import LocalRows, duality_gap, local_round, local_rows
from ratkit.learners.dcd.epochs import inverse_diagonal
from ratkit.learners.dcd.rows import IndexedRows, csr_arrays

__all__ = [
    "DualResult",
    "solve",
    "primal_objective",
    "dual_objective",
    "convergence_record",
    "inverse_diagonal",
    "IndexedRows",
    "csr_arrays",
    "ActiveGramEpoch",
    "cache_capacity",
    "LocalRows",
    "local_rows",
    "local_round",
    "duality_gap",
]
