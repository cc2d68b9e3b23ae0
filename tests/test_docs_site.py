"""The documentation site (docs/, ``make docs``) as a new user meets it: an installation
page, an entrance whose code fits the page, pages that use only the public API, an API
reference with every public module, and a gallery of runnable examples for every part.

These tests read the sources; ``make docs`` builds them (warnings as errors) and runs the
examples again. They need no Sphinx, except the last one, skipped without it.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ratkit

REPOSITORY = Path(__file__).resolve().parents[1]
DOCS = REPOSITORY / "docs"
EXAMPLES = REPOSITORY / "examples"
PYPROJECT = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
#: The parts of ratkit the gallery has a folder for (issue 34: at least one example each).
GALLERY_PARTS = ("automata", "kernels", "graphs", "recsys", "distributed")
#: Alabaster's body at the page width docs/conf.py sets (1140 px) shows about 84 characters
#: of a code line before it scrolls; the entrance pages keep to 80.
ENTRANCE_CODE_WIDTH = 80


def _conf_value(name: str):
    """A literal assigned at the top level of docs/conf.py (read without running it)."""
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
            return ast.literal_eval(node.value)
    raise AssertionError(f"docs/conf.py assigns no literal {name}")


def _toctree_entries(page: Path) -> list[str]:
    """The entries of every ``.. toctree::`` of an .rst page."""
    entries: list[str] = []
    inside = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(".. toctree::"):
            inside = True
        elif inside and line and not line.startswith(" "):
            inside = False
        elif inside and line.strip() and not line.strip().startswith(":"):
            entries.append(line.strip())
    return entries


def _code_lines(page: Path) -> list[str]:
    """The lines of the code blocks (``.. code-block::``, ``.. doctest::``, ``::``) of a page,
    without the block's indentation."""
    out: list[str] = []
    block_indent: int | None = None
    for line in page.read_text(encoding="utf-8").splitlines():
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if line.strip() and indent <= block_indent:
                block_indent = None
            elif line.strip() and not line.strip().startswith(":"):
                out.append(line[block_indent + 3 :])
                continue
            else:
                continue
        if re.match(r"\s*\.\. (code-block|doctest|testcode|code)::", line) or line.rstrip().endswith("::"):
            block_indent = indent
    return out


# -- the API reference --------------------------------------------------------------------------


def _public_modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(ratkit.__path__, "ratkit.")]
    return ["ratkit", *sorted(n for n in names if not any(part.startswith("_") for part in n.split(".")))]


def test_every_public_module_has_a_page_in_the_api_reference():
    listed = set(_toctree_entries(DOCS / "api" / "index.rst"))
    main, secondary = _conf_value("ratkit_public_modules"), _conf_value("ratkit_secondary_modules")
    assert not set(main) & set(secondary)
    missing = []
    for name in _public_modules():
        page = DOCS / "api" / f"{name}.rst"
        if not (
            page.is_file()
            and f".. public-api:: {name}\n" in page.read_text(encoding="utf-8")
            and name in listed
            and name in set(main) | set(secondary)
        ):
            missing.append(name)
    assert not missing, f"public modules without a page in docs/api/ (and its toctree and conf.py): {missing}"
    assert "ratkit.datasets" in main


def test_a_module_page_is_a_main_page_when_its_package_does_not_export_its_names():
    """A secondary page links only names some main page documents: the names of a module no
    main page lists would be documented nowhere else."""
    main = _conf_value("ratkit_public_modules")
    exported = set()
    for name in main:
        module = importlib.import_module(name)
        exported |= {id(getattr(module, n)) for n in module.__all__}
    for name in _conf_value("ratkit_secondary_modules"):
        module = importlib.import_module(name)
        parent = importlib.import_module(name.rpartition(".")[0])
        assert any(id(getattr(module, n)) in exported for n in module.__all__), name
        assert parent.__name__ in main, f"{name}: its package {parent.__name__} has no main page"


def test_docstring_bars_and_initials_are_escaped_outside_literals():
    """``|x|`` in a docstring is a length, not a reST substitution (the new API pages of
    ratkit.automata.kernels.ngram, pt, … failed the -W build on them), and "A. Ghose" opening
    a reference is an author, not the item "A." of a list."""
    pytest.importorskip("sphinx")
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from ratkit_docs import _escape_docstring
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    lines = [
        "K = Σ_z |x|_z |y|_z, for |u| ≤ k, O(|x|²·n) arcs, |Σ|·(4|Σ| + 2)",
        "a ``x | y`` literal, :math:`|x|` and an escaped \\| stay",
        "Example::",
        "",
        "    |kept| in a literal block",
        ">>> abs(-1)  # |x|",
        "",
        "A. Ghose, *Rational kernels: a survey*.",
    ]
    _escape_docstring(None, "function", "f", None, None, lines)
    assert lines[0] == r"K = Σ_z \|x\|_z \|y\|_z, for \|u\| ≤ k, O(\|x\|²·n) arcs, \|Σ\|·(4\|Σ\| + 2)"
    assert lines[1] == "a ``x | y`` literal, :math:`|x|` and an escaped \\| stay"
    assert lines[4] == "    |kept| in a literal block" and lines[5] == ">>> abs(-1)  # |x|"
    assert lines[7] == "\\A. Ghose, *Rational kernels: a survey*."  # an initial, not a list item "A."


# -- only the public API on the pages ------------------------------------------------------------

_PRIVATE_IMPORT = re.compile(r"\b(?:from|import)\s+(ratkit(?:\.\w+)*\._\w+|ratkit(?:\.\w+)*\s+import\s+.*\b_\w+)")


def _documentation_sources() -> list[Path]:
    pages = [p for p in DOCS.rglob("*.rst") if "_build" not in p.parts and "auto_examples" not in p.parts]
    return sorted(pages) + sorted(EXAMPLES.rglob("*.py"))


def test_the_private_import_pattern_catches_what_it_must():
    assert _PRIVATE_IMPORT.search("from ratkit.testing._planted import planted_ratings")
    assert _PRIVATE_IMPORT.search("import ratkit._parallel")
    assert _PRIVATE_IMPORT.search("from ratkit.learners import _workflow")
    assert not _PRIVATE_IMPORT.search("from ratkit.recsys import evaluation, PureSVD")


def test_the_documentation_code_imports_only_public_names():
    found = [
        f"{path.relative_to(REPOSITORY)}:{number}: {line.strip()}"
        for path in _documentation_sources()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _PRIVATE_IMPORT.search(line)
    ]
    assert not found, "documentation code imports private modules or names:\n" + "\n".join(found)


# -- the gallery ----------------------------------------------------------------------------------


def _examples() -> list[Path]:
    return sorted(EXAMPLES.glob("*/plot_*.py"))


def test_the_gallery_has_a_titled_example_in_every_part():
    assert (EXAMPLES / "README.rst").is_file()
    for part in GALLERY_PARTS:
        folder = EXAMPLES / part
        assert (folder / "README.rst").is_file(), f"{part}: no README.rst (sphinx-gallery's section header)"
        scripts = sorted(folder.glob("plot_*.py"))
        assert scripts, f"the gallery has no example for {part}"
        for script in scripts:
            doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
            assert doc, f"{script.name}: no docstring"
            title, underline = doc.splitlines()[:2]
            assert title.strip() and set(underline) == {"="} and len(underline) >= len(title), script.name


def test_the_code_of_the_gallery_fits_its_column():
    """The gallery shows each script's code in the body column: code lines (not the prose of
    the docstring and of the ``# %%`` comment blocks) keep to examples/ruff.toml's 79."""
    for script in _examples():
        source = script.read_text(encoding="utf-8")
        after_docstring = ast.parse(source).body[0].end_lineno
        wide = [
            f"{script.name}:{number}"
            for number, line in enumerate(source.splitlines(), 1)
            if number > after_docstring and not line.lstrip().startswith("#") and len(line) > 79
        ]
        assert not wide, f"code lines wider than 79 characters: {wide}"


def test_make_docs_builds_the_gallery_and_git_ignores_what_it_generates():
    assert "sphinx_gallery.gen_gallery" in _conf_value("extensions")
    gallery = _conf_value("sphinx_gallery_conf")
    assert gallery["examples_dirs"] == "../examples" and gallery["gallery_dirs"] == "auto_examples"
    assert gallery["abort_on_example_error"] is True
    docs_extra = " ".join(PYPROJECT["project"]["optional-dependencies"]["docs"])
    assert "sphinx-gallery" in docs_extra and "matplotlib" in docs_extra
    ignored = (REPOSITORY / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "docs/auto_examples/" in ignored and "docs/sg_execution_times.rst" in ignored
    assert "auto_examples/index" in _toctree_entries(DOCS / "index.rst")


@pytest.mark.slow
@pytest.mark.parametrize("script", _examples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_gallery_example_runs_cleanly_and_quickly(script, tmp_path):
    """As ``make docs`` runs it, in a fresh process: exit 0, no warning, a figure, and within
    a budget of 60 s. Each example takes 1–12 s on one idle core (the most with a cold numba
    cache); the budget leaves room for a loaded CI machine, so it catches an example grown
    several times too slow, not noise."""
    pytest.importorskip("matplotlib")
    pytest.importorskip("distributed")
    code = (
        "import runpy, time, matplotlib.pyplot as plt; start = time.perf_counter(); "
        f"runpy.run_path({str(script)!r}, run_name='__main__'); "
        "print('FIGURES', len(plt.get_fignums()), 'SECONDS', time.perf_counter() - start)"
    )
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join([str(REPOSITORY), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning:ratkit", "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Warning" not in done.stderr, done.stderr[-3000:]
    figures, seconds = re.search(r"FIGURES (\d+) SECONDS ([\d.]+)", done.stdout).groups()
    assert int(figures) >= 1
    assert float(seconds) < 60, f"{script.name} took {float(seconds):.1f} s"


# -- the installation page --------------------------------------------------------------------


def test_the_install_page_is_linked_from_the_entrance():
    assert (DOCS / "install.rst").is_file()
    assert "install" in _toctree_entries(DOCS / "index.rst")


def test_the_install_page_gives_python_pynini_every_extra_and_the_make_targets():
    text = (DOCS / "install.rst").read_text(encoding="utf-8")
    minimum = PYPROJECT["project"]["requires-python"].removeprefix(">=")
    assert f"Python {minimum} or newer" in text
    assert "Linux x86-64 only" in text and "conda-forge" in text
    for extra in PYPROJECT["project"]["optional-dependencies"]:
        assert f"``{extra}``" in text, f"the install page does not name the {extra!r} extra"
    for command in (
        "pip install .",
        "pip wheel",
        "pip install dist/ratkit-*.whl",
        "make demo",
        "make test",
        "make docs",
    ):
        assert command in text, command


# -- the entrance -----------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["index.rst", "install.rst"])
def test_the_code_of_the_entrance_pages_fits_the_page(page):
    """The index's code block was cut off: its lines (88 characters) were wider than the
    body of alabaster's default 940 px page, which scrolls them."""
    lines = _code_lines(DOCS / page)
    assert lines, f"{page} has no code block"
    too_wide = [line for line in lines if len(line) > ENTRANCE_CODE_WIDTH]
    assert not too_wide, f"{page}: code lines wider than {ENTRANCE_CODE_WIDTH} characters: {too_wide}"
    assert _conf_value("html_theme_options")["page_width"] == "1140px"


def test_the_entrance_links_install_guide_gallery_and_api():
    text = (DOCS / "index.rst").read_text(encoding="utf-8")
    for target in (":doc:`install`", ":doc:`auto_examples/index`", ":doc:`api/index`", ":doc:`guide/automata`"):
        assert target in text, target
    entries = _toctree_entries(DOCS / "index.rst")
    assert {"install", "auto_examples/index", "api/index", "guide/automata"} <= set(entries)
