"""ratkit: weighted finite-state transducers, rational kernels and learners.

The four parts: :mod:`ratkit.automata` (the WFST algebra on pynini),
:mod:`ratkit.learners`, :mod:`ratkit.recsys` and :mod:`ratkit.plugins`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
