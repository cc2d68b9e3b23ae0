"""Deprecated: the interaction data loaders moved to :mod:`ratkit.datasets` (removed in ratkit 0.3).

Importing this module raises a :class:`DeprecationWarning`. Import the same objects from
:mod:`ratkit.datasets` instead: :class:`~ratkit.datasets.Interactions`,
:func:`~ratkit.datasets.load_movielens`, :func:`~ratkit.datasets.load_lastfm`,
:func:`~ratkit.datasets.from_triples`, and ``load_csv``, now named
:func:`~ratkit.datasets.load_interactions_csv`.
"""

from __future__ import annotations

import sys
import warnings

from ratkit.datasets.interactions import Interactions, from_triples, load_lastfm, load_movielens
from ratkit.datasets.interactions import load_interactions_csv as load_csv

__all__ = ["Interactions", "load_movielens", "load_lastfm", "load_csv", "from_triples"]


def _importer_stacklevel() -> int:
    """The stacklevel of the code that imported this module, past the import machinery (and
    ``ratkit.recsys``'s lazy attribute), so that the warning names the user's line.

    Skipped: importlib, any loader's ``exec_module`` (pytest's, for one) and ``ratkit.recsys``.
    :func:`warnings.warn` itself skips the frames of ``importlib._bootstrap``; the others count.
    """
    level, frame = 1, sys._getframe(1)
    while frame.f_back is not None:
        name = frame.f_globals.get("__name__", "")
        machinery = name.startswith(("importlib", "_frozen_importlib")) or frame.f_code.co_name == "exec_module"
        if not (machinery or name in (__name__, "ratkit.recsys")):
            break
        frame = frame.f_back
        filename = frame.f_code.co_filename
        if not ("importlib" in filename and "_bootstrap" in filename):
            level += 1
    return level


warnings.warn(
    "The module ratkit.recsys.datasets is deprecated and will be removed in ratkit 0.3; import its names "
    "from ratkit.datasets instead (load_csv is now ratkit.datasets.load_interactions_csv).",
    DeprecationWarning,
    stacklevel=_importer_stacklevel(),
)
