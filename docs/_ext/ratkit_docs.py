"""Sphinx directives generating parts of ratkit's documentation from the code itself.

``.. kernel-catalogue::``
    Every kernel family and combinator in the plugin registry (built-in and third-party, as
    :func:`ratkit.plugins.describe_all` lists them), each with the first paragraph of its
    docstring and its parameters: name, type, default and the meaning its docstring gives.
    A family is a combinator when one of its parameters holds kernels (``kernel`` or
    ``kernels``).

``.. public-api:: MODULE``
    The module's docstring, a summary table of its ``__all__`` and the autodoc entry of every
    name in it; names that are modules link to their own page. A module listed in the
    ``ratkit_secondary_modules`` setting (one whose main names a package re-exports) links
    the names a page of ``ratkit_public_modules`` documents and documents only the others.

``.. ratkit-data::``
    Its content, Python code, is shown as a code block and run in the plot folder
    (``docs/_build/plots``, git-ignored): it writes the small data files the
    ``ratkit-plot`` commands of the page read.

``.. ratkit-plot:: FILE.png``
    Its content, one ``ratkit …`` command line that writes ``FILE.png`` (``--plot FILE.png``),
    possibly broken over several lines (shown with ``\\`` continuations), is shown as a code
    block, run as written in a fresh ``python`` process with the plot
    folder as working directory, and the PNG it wrote is shown below it (``:output:``: also
    what the command printed, standard output and error as a terminal shows them). A command
    that fails, or writes no PNG, fails the build. A PNG is made again only when the command,
    the ``ratkit-data`` code or the drawing code (ratkit.plots, ratkit.cli) changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

#: Parameters every engine-backed family takes; listed once on the page, not per family.
ENGINE_PARAMETERS = ("strategy", "n_jobs", "show_progress")
KERNEL_PARAMETERS = ("kernel", "kernels")


def _own_doc(obj: Any) -> str:
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    return inspect.cleandoc(doc) if isinstance(doc, str) else ""


def _first_paragraph(doc: str) -> str:
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def _parameter_docs(doc: str) -> dict[str, str]:
    """``{name: description}`` from a numpydoc ``Parameters`` section (``a, b`` share one)."""
    lines = doc.splitlines()
    out: dict[str, str] = {}
    for i, line in enumerate(lines[:-1]):
        if line.strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"}:
            break
    else:
        return out
    names: list[str] = []
    text: list[str] = []
    body = lines[i + 2 :]
    for j, line in enumerate(body):
        if not line.strip():
            continue
        if not line.startswith((" ", "\t")):
            if j + 1 < len(body) and re.fullmatch(r"-{3,}", body[j + 1].strip()):  # the next section
                break
            out.update(dict.fromkeys(names, " ".join(text)))
            names = [n.strip() for n in line.split(":", 1)[0].split(",") if n.strip()]
            text = []
        else:
            text.append(line.strip())
    out.update(dict.fromkeys(names, " ".join(text)))
    return out


def _annotation(param: inspect.Parameter) -> str:
    if param.annotation is inspect.Parameter.empty:
        return ""
    ann = param.annotation
    return ann if isinstance(ann, str) else inspect.formatannotation(ann)


def _default(param: inspect.Parameter) -> str:
    if param.default is inspect.Parameter.empty:
        return "required"
    return f"``{param.default!r}``"


def _table(rows: list[tuple[str, str, str, str]]) -> list[str]:
    out = [".. list-table::", "   :header-rows: 1", "   :widths: 15 25 15 45", ""]
    out += ["   * - parameter", "     - type", "     - default", "     - meaning"]
    for name, kind, default, meaning in rows:
        out += [f"   * - ``{name}``", f"     - {kind and f'``{kind}``'}", f"     - {default}", f"     - {meaning}"]
    return out


def _example(name: str, params: list[inspect.Parameter], required: set[str]) -> str:
    """A spec of the family with its required keys (a kernel parameter holds an n-gram spec)."""
    spec: dict[str, Any] = {"family": name}
    for p in params:
        if p.name in KERNEL_PARAMETERS:
            spec[p.name] = {"family": "ngram", "n": 3} if p.name == "kernel" else [{"family": "ngram", "n": 3}]
        elif p.name in required or p.default is inspect.Parameter.empty:
            empty = p.default is inspect.Parameter.empty or p.default in ((), None, "")
            spec[p.name] = "…" if empty else p.default
    return json.dumps(spec, ensure_ascii=False)


class KernelCatalogue(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from ratkit import plugins

        infos = plugins.describe_all("kernel")
        entries = []
        for info in infos:
            params = [
                p
                for p in inspect.signature(info.obj).parameters.values()
                if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            ]
            combinator = any(p.name in KERNEL_PARAMETERS for p in params)
            entries.append((combinator, info, params))
        lines: list[str] = []
        for title, want in (("Families", False), ("Combinators", True)):
            chosen = [e for e in entries if e[0] is want]
            lines += [title, "-" * len(title), ""]
            lines.append(
                f"{len(chosen)} registered {'combinators (their parameters hold kernels)' if want else 'families'}: "
                + ", ".join(f"`{e[1].name}`_" for e in chosen)
                + "."
            )
            lines.append("")
            for _, info, params in chosen:
                lines += self._entry(info, params)
        self.env.note_dependency(inspect.getfile(plugins))
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source="<kernel-catalogue>"), container)
        return container.children

    @staticmethod
    def _entry(info: Any, params: list[inspect.Parameter]) -> list[str]:
        obj = info.obj
        doc = _own_doc(obj)
        described = _parameter_docs(doc)
        if isinstance(obj, type) and obj.__init__ is not object.__init__:
            described = {**_parameter_docs(_own_doc(obj.__init__)), **described}
        path = f"{obj.__module__}.{obj.__qualname__}"
        lines = [info.name, "~" * len(info.name), ""]
        lines += [_first_paragraph(doc) or "(no docstring)", ""]
        lines += [
            f"Class :class:`~{path}` (``{path}``), from the distribution ``{info.distribution or 'unknown'}``.",
            "",
        ]
        required = set(obj._spec_required_keys())  # a spec must state these, defaults or not
        lines += ["Spec: ``" + _example(info.name, params, required) + "``", ""]
        shown = [p for p in params if p.name not in ENGINE_PARAMETERS]
        engine = [p.name for p in params if p.name in ENGINE_PARAMETERS]
        if shown:
            rows = []
            for p in shown:
                default = _default(p)
                if p.name in required and p.default is not inspect.Parameter.empty:
                    default += " (a spec must state it)"
                rows.append((p.name, _annotation(p), default, described.get(p.name, "")))
            lines += _table(rows)
        else:
            lines.append("No parameters of its own.")
        lines.append("")
        if engine:
            lines += ["Also takes the engine parameters " + ", ".join(f"``{n}``" for n in engine) + ".", ""]
        return lines


def _home(obj: Any, modules: list[str]) -> str | None:
    """The documented module whose page indexes ``obj``: the longest of ``modules`` that is a
    prefix of the module defining it (others show it too, as an unindexed entry)."""
    defined = getattr(obj, "__module__", None)
    if not isinstance(defined, str):
        return None
    homes = [m for m in modules if defined == m or defined.startswith(m + ".")]
    return max(homes, key=len) if homes else None


def _data_doc(module: types.ModuleType, name: str) -> list[str]:
    """The ``#:`` comment documenting ``name``, looked up where it is defined: ``module`` or,
    for a re-exported value, the ratkit module binding the same object under that name."""
    obj = getattr(module, name)
    candidates = [module.__name__] + sorted(
        m for m, mod in list(sys.modules.items()) if m.startswith("ratkit") and getattr(mod, name, None) is obj
    )
    for modname in candidates:
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:  # a compiled or unreadable module: no comment to read
            continue
        found = docs.get(("", name))
        if found:
            return list(found)
    return []


#: A paragraph opening with an initial ("A. Ghose, *Rational kernels* …"), which reST would
#: read as the item "A." of an alphabetic list.
_INITIAL = re.compile(r"\s*[A-Z]\. [A-Z]")
#: Inline literals and interpreted text (``code``, :math:`…`, `link`_): their ``|`` stay.
_QUOTED = re.compile(r"``.*?``|`[^`]*`")


def _escape_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Escape ``|`` as ``\\|`` in docstrings, outside literals, literal blocks and doctests,
    and the initial opening a paragraph (``A. Ghose``) as ``\\A.``.

    ratkit's docstrings write lengths and absolute values as mathematics (``|x|``, ``|Σ|``,
    ``|x|²``, ``|x|_k``), which reST would read as substitution references."""
    literal_indent: int | None = None
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                continue
        if stripped.startswith((">>>", "...")):
            continue
        if _INITIAL.match(line) and (i == 0 or not lines[i - 1].strip()):
            line = f"{line[:indent]}\\{stripped}"  # an author's initial, not the list item "A."
        parts, last = [], 0
        for quoted in _QUOTED.finditer(line):
            parts += [re.sub(r"(?<!\\)\|", r"\\|", line[last : quoted.start()]), quoted.group()]
            last = quoted.end()
        lines[i] = "".join([*parts, re.sub(r"(?<!\\)\|", r"\\|", line[last:])])
        if stripped.endswith("::"):
            literal_indent = indent


def _skip_member(app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """scikit-learn's generated metadata-routing methods (``set_fit_request``, …) are not ratkit's API."""
    if re.fullmatch(r"set_\w+_request", name):
        return True
    return None


def _is_class_or_function(obj: Any) -> bool:
    return isinstance(obj, type) or hasattr(obj, "__code__")


def _indexed_at(obj: Any, modules: list[str]) -> str | None:
    """The page of ``modules`` that indexes ``obj``: among those whose ``__all__`` holds the
    object itself, its :func:`_home` (or the first); None when none of them lists it."""
    listing = [
        m
        for m in modules
        if any(
            getattr(importlib.import_module(m), n, None) is obj
            for n in getattr(importlib.import_module(m), "__all__", [])
        )
    ]
    return (_home(obj, listing) or listing[0]) if listing else None


def _role(obj: Any) -> str:
    if isinstance(obj, type):
        return "exc" if issubclass(obj, BaseException) else "class"
    return "func" if _is_class_or_function(obj) else "data"


class PublicAPI(SphinxDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        module = importlib.import_module(name)
        documented = list(self.config.ratkit_public_modules)
        public = list(getattr(module, "__all__", []))
        objects = [n for n in public if not isinstance(getattr(module, n), types.ModuleType)]
        submodules = [getattr(module, n).__name__ for n in public if isinstance(getattr(module, n), types.ModuleType)]
        parent, _, last = name.rpartition(".")
        shadowed = bool(parent) and getattr(importlib.import_module(parent), last, module) is not module
        # a module named as the function its package exports (kernels.ngram): the function keeps the name
        lines = [f".. automodule:: {name}", "   :no-members:", *(["   :no-index:"] if shadowed else []), ""]
        if submodules:
            lines += ["Submodules: " + ", ".join(f":mod:`{m}`" for m in submodules) + ".", ""]
        if name in self.config.ratkit_secondary_modules:
            # a module whose main names a package page documents: those are linked, the rest documented here
            elsewhere = {n: _indexed_at(getattr(module, n), documented) for n in objects}
            linked = [n for n in objects if elsewhere[n]]
            if linked:
                refs = [f":{_role(getattr(module, n))}:`{n} <{elsewhere[n]}.{n}>`" for n in linked]
                lines += ["Also defines " + ", ".join(refs) + ", documented with the package that exports them.", ""]
            objects = [n for n in objects if not elsewhere[n]]
            documented = [name]
        summarised = [n for n in objects if _is_class_or_function(getattr(module, n))]
        if summarised:  # constants have no docstring of their own to summarise
            lines += [".. autosummary::", ""] + [f"   {n}" for n in summarised] + [""]
        for n in objects:
            obj = getattr(module, n)
            home = _home(obj, documented)
            no_index = ["   :no-index:"] if home is not None and home != name else []
            if isinstance(obj, type):
                lines += [f".. autoclass:: {n}", *no_index, ""]
            elif _is_class_or_function(obj):
                lines += [f".. autofunction:: {n}", *no_index, ""]
            else:
                lines += [f".. py:data:: {n}", f"   :type: {type(obj).__name__}", ""]
                doc = _data_doc(module, n)
                _escape_docstring(None, "data", n, obj, None, doc)  # ``#:`` comments: ``|x|`` as in docstrings
                lines += [f"   {line}" for line in doc] + [""]
        self.env.note_dependency(inspect.getfile(module))
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source=f"<public-api {name}>"), container)
        return container.children


# -- plots made by the command line at build time ------------------------------------------

#: Where the ratkit-data code and the ratkit-plot commands run, under the build folder (git-ignored).
PLOT_FOLDER = ("_build", "plots")
_REPO = Path(__file__).resolve().parents[2]
#: What a command's PNG depends on besides the command and the data: the code that draws it.
_PLOT_SOURCES = ("ratkit/plots.py", "ratkit/cli")
#: Runs ``ratkit ARGS…`` exactly as the console script does (``ratkit.cli._main.main``).
_RUN_CLI = "import sys; from ratkit.cli._main import main; sys.exit(main(sys.argv[1:]))"


def _plot_folder(env: Any) -> Path:
    folder = Path(env.srcdir).joinpath(*PLOT_FOLDER)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _source_files() -> list[Path]:
    files: list[Path] = []
    for name in _PLOT_SOURCES:
        path = _REPO / name
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files


def _fingerprint(*parts: str) -> str:
    """A hash of ``parts``, the ratkit code that draws and the data files of the plot folder."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8") + b"\0")
    for path in _source_files():
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _code_block(text: str, language: str) -> list[str]:
    return [f".. code-block:: {language}", ""] + [f"   {line}" for line in text.splitlines()] + [""]


def _parse(directive: SphinxDirective, lines: list[str], source: str) -> list[nodes.Node]:
    container = nodes.container()
    nested_parse_with_titles(directive.state, StringList(lines, source=source), container)
    return container.children


class RatkitData(SphinxDirective):
    """Show Python code and run it in the plot folder (it writes the data the commands read)."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        folder = _plot_folder(self.env)
        for path in folder.iterdir():  # the data and the commands' other outputs: made afresh
            if path.is_file() and not path.name.endswith((".png", ".stamp.json")):
                path.unlink()
        start = time.perf_counter()
        with _working_directory(folder):
            exec(compile(code, f"<ratkit-data in {self.env.docname}>", "exec"), {"__name__": "ratkit_data"})
        logger.info(f"ratkit-data: {time.perf_counter() - start:.1f} s", color="darkgreen")
        self.env.ratkit_data_fingerprint = hashlib.sha256(code.encode("utf-8")).hexdigest()  # type: ignore[attr-defined]
        return _parse(self, _code_block(code, "python"), "<ratkit-data>")


@contextlib.contextmanager
def _working_directory(folder: Path):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


class RatkitPlot(SphinxDirective):
    """Show a ``ratkit`` command, run it in the plot folder, show the PNG it wrote."""

    has_content = True
    required_arguments = 1
    option_spec = {"output": directives.flag, "alt": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        png = self.arguments[0]
        command = " ".join(line.strip() for line in self.content).strip()
        words = shlex.split(command)
        if not words or words[0] != "ratkit" or png not in words:
            raise self.error(f"ratkit-plot {png}: the content must be one 'ratkit …' command writing {png}")
        folder = _plot_folder(self.env)
        printed = self._run(words[1:], folder, png, command)
        for path in _source_files():
            self.env.note_dependency(str(path))
        # shown as written: a command broken over several lines gets the shell's continuations
        shown = " \\\n    ".join(line.strip() for line in self.content if line.strip())
        lines = _code_block(shown, "sh")
        if "output" in self.options:
            lines += ["Its output:", ""] + _code_block(printed.rstrip("\n"), "text")
        alt = self.options.get("alt", f"the plot written by: {command}")
        lines += [f".. image:: /{'/'.join(PLOT_FOLDER)}/{png}", f"   :alt: {alt}", ""]
        return _parse(self, lines, f"<ratkit-plot {png}>")

    def _run(self, args: list[str], folder: Path, png: str, command: str) -> str:
        """What the command printed; run again only when the command, the data code or the
        drawing code changed since the PNG in the folder was made (``make docs`` builds twice)."""
        data = getattr(self.env, "ratkit_data_fingerprint", "")
        stamp = folder / f"{png}.stamp.json"
        key = _fingerprint(command, data)
        if stamp.is_file() and (folder / png).is_file():
            saved = json.loads(stamp.read_text(encoding="utf-8"))
            if saved.get("key") == key:
                return saved["printed"]
        (folder / png).unlink(missing_ok=True)
        env = {**os.environ, "MPLBACKEND": "Agg", "RATKIT_TRACEBACK": "1"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_REPO), env.get("PYTHONPATH")]))
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _RUN_CLI, *args],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # what a terminal shows, in its order
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - start
        if done.returncode != 0 or not (folder / png).is_file():
            raise ExtensionError(
                f"ratkit-plot in {self.env.docname}: '{command}' exited with {done.returncode} "
                f"and wrote {'no ' if not (folder / png).is_file() else ''}{png}:\n{done.stdout}"
            )
        logger.info(f"ratkit-plot: {command} ({seconds:.1f} s)", color="darkgreen")
        stamp.write_text(json.dumps({"key": key, "printed": done.stdout, "seconds": seconds}), encoding="utf-8")
        return done.stdout


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("kernel-catalogue", KernelCatalogue)
    app.add_directive("public-api", PublicAPI)
    app.add_directive("ratkit-data", RatkitData)
    app.add_directive("ratkit-plot", RatkitPlot)
    app.add_config_value("ratkit_public_modules", [], "env")
    app.add_config_value("ratkit_secondary_modules", [], "env")
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("autodoc-process-docstring", _escape_docstring)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
