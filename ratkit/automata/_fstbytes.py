"""The former name of :mod:`ratkit.automata.fst_arrays`, kept until ratkit.learners imports that.

Transitional (issue 36): ``ratkit.learners.wprime._naive`` still imports from here; once its
import reads ``ratkit.automata.fst_arrays`` this module is deleted.
"""

from ratkit.automata.fst_arrays import FstArrays, arrays_to_fst, fst_to_arrays

__all__ = ["FstArrays", "arrays_to_fst", "fst_to_arrays"]
