"""Sphinx configuration of ratkit's documentation site (``make docs``).

Docstrings are numpydoc-formatted; they are read with ``sphinx.ext.napoleon`` (shipped with
Sphinx, so no extra dependency, and tolerant of the free prose ratkit's docstrings mix with
numpydoc sections). intersphinx is not used: the build runs offline.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

import ratkit  # noqa: E402

project = "ratkit"
author = "the ratkit authors"
copyright = "the ratkit authors"  # noqa: A001
version = release = ratkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "myst_parser",
    "ratkit_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
templates_path: list[str] = []
nitpicky = False

# -- autodoc / napoleon ------------------------------------------------------------------
autodoc_default_options = {"members": True, "member-order": "bysource", "show-inheritance": True}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autosummary_generate = False
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True

# -- doctest: only the explicit ``.. doctest::``/``.. testcode::`` blocks of the pages; the
# ``>>>`` examples of the docstrings already run under ``pytest --doctest-modules``.
doctest_test_doctest_blocks = ""
doctest_global_setup = """
import warnings
warnings.simplefilter("ignore", DeprecationWarning)
"""

# -- MyST (bench/RESULTS.md is included as Markdown) --------------------------------------
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# -- HTML ----------------------------------------------------------------------------------
html_theme = "alabaster"
html_title = f"ratkit {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

# -- the API reference: the public modules, one page each (docs/api/<module>.rst) ----------
ratkit_public_modules = [
    "ratkit",
    "ratkit.automata",
    "ratkit.automata.semirings",
    "ratkit.automata.kernels",
    "ratkit.automata.kernels.diagnostics",
    "ratkit.automata.graphs",
    "ratkit.automata.pairwise",
    "ratkit.learners",
    "ratkit.recsys",
    "ratkit.recsys.datasets",
    "ratkit.recsys.evaluation",
    "ratkit.recsys.feedback",
    "ratkit.recsys.metrics",
    "ratkit.plots",
    "ratkit.plugins",
    "ratkit.testing",
    "ratkit.exceptions",
]
