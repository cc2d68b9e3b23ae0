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
    "sphinx_gallery.gen_gallery",
    "ratkit_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/**/*.ipynb", "auto_examples/**/*.py", "auto_examples/**/*.zip"]
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

# -- the examples gallery (sphinx-gallery): the scripts of ../examples/<part>/plot_*.py run
# at build time; their pages, figures and timings are written to auto_examples/ and
# sg_execution_times.rst (both git-ignored). An example that raises fails the build; one that
# has not changed since the last build is not run again.
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "subsection_order": [
        "../examples/automata",
        "../examples/kernels",
        "../examples/graphs",
        "../examples/recsys",
        "../examples/distributed",
    ],
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "download_all_examples": True,
    "reset_modules": ("matplotlib",),
    "image_scrapers": ("matplotlib",),
}

# -- MyST (bench/RESULTS.md is included as Markdown) --------------------------------------
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# -- HTML ----------------------------------------------------------------------------------
html_theme = "alabaster"
# alabaster's default 940 px page scrolls code lines beyond about 68 characters; at 1140 px
# the body shows about 84 (tests/test_docs_site.py keeps the entrance pages to 80, the
# gallery's code to 79).
html_theme_options = {"page_width": "1140px", "sidebar_width": "220px"}
html_title = f"ratkit {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

# -- the API reference: the public modules, one page each (docs/api/<module>.rst) ----------
# Every module of ratkit whose dotted name has no part starting with "_" has a page
# (tests/test_docs_site.py checks it). A page of ratkit_public_modules documents every name
# of the module's __all__; a page of ratkit_secondary_modules, a module whose main names its
# package exports, links those to the package's page and documents only the rest.
ratkit_public_modules = [
    "ratkit",
    "ratkit.automata",
    "ratkit.automata.semirings",
    "ratkit.automata.fst_arrays",
    "ratkit.automata.kernels",
    "ratkit.automata.kernels.combination",
    "ratkit.automata.kernels.diagnostics",
    "ratkit.automata.kernels.blocked",
    "ratkit.automata.kernels.gram_file",
    "ratkit.automata.kernels.inputs",
    "ratkit.automata.graphs",
    "ratkit.automata.pairwise",
    "ratkit.automata.pt",
    "ratkit.automata.pt.examples",
    "ratkit.datasets",
    "ratkit.learners",
    "ratkit.learners.dcd",
    "ratkit.learners.wprime",
    "ratkit.learners.wprime.kernel_view",
    "ratkit.learners.svm.hashing",
    "ratkit.learners.svm.distributed",
    "ratkit.recsys",
    "ratkit.recsys.datasets",
    "ratkit.recsys.evaluation",
    "ratkit.recsys.feedback",
    "ratkit.recsys.metrics",
    "ratkit.plots",
    "ratkit.plugins",
    "ratkit.testing",
    "ratkit.fitted",
    "ratkit.persistence",
    "ratkit.exceptions",
    "ratkit.limits",
    "ratkit.workflow",
    "ratkit.demo",
    "ratkit.cli",
]
ratkit_secondary_modules = [
    "ratkit.automata.alphabet",
    "ratkit.automata.construct",
    "ratkit.automata.distance",
    "ratkit.automata.io",
    "ratkit.automata.operations",
    "ratkit.automata.transducer",
    "ratkit.automata.graphs.automaton",
    "ratkit.automata.graphs.product",
    "ratkit.automata.kernels.algebra",
    "ratkit.automata.kernels.base",
    "ratkit.automata.kernels.count_based",
    "ratkit.automata.kernels.edit_distance",
    "ratkit.automata.kernels.features",
    "ratkit.automata.kernels.gappy",
    "ratkit.automata.kernels.identity",
    "ratkit.automata.kernels.linear",
    "ratkit.automata.kernels.mismatch",
    "ratkit.automata.kernels.ngram",
    "ratkit.automata.kernels.random_walk",
    "ratkit.automata.kernels.rational",
    "ratkit.automata.kernels.spec",
    "ratkit.automata.kernels.subsequence",
    "ratkit.automata.kernels.user",
    "ratkit.automata.pt.decision",
    "ratkit.automata.pt.errors",
    "ratkit.automata.pt.ideals",
    "ratkit.automata.pt.sampling",
    "ratkit.automata.pt.words",
    "ratkit.datasets.graphs",
    "ratkit.datasets.interactions",
    "ratkit.datasets.sequences",
    "ratkit.learners.dcd.active_gram",
    "ratkit.learners.dcd.cocoa",
    "ratkit.learners.dcd.epochs",
    "ratkit.learners.dcd.rows",
    "ratkit.learners.kernel_learner",
    "ratkit.learners.svm",
    "ratkit.plugins.registry",
    "ratkit.recsys.base",
    "ratkit.recsys.baselines",
    "ratkit.recsys.cccf",
    "ratkit.recsys.mfauc",
    "ratkit.recsys.tjsl",
]
