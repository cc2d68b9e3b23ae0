"""import-linter contract types of ratkit (registered in pyproject.toml, `contract_types`).

``private_imports``: no module imports another package's private module or private name.
A name or module component is private when it starts with one underscore (dunders are not).
The *package* of a module is the folder holding it (a package's ``__init__`` is in the
package itself). A private module ``p._m`` (and everything under it) belongs to ``p``; a
private name ``_x`` defined in module ``p.m`` belongs to ``p``, one defined in package
``p``'s ``__init__`` belongs to ``p``. A module may import what belongs to its own package
or to one of its ancestors, never what belongs to a sibling or a child package:
``ratkit.learners.wprime`` must not import ``ratkit.learners.dcd._epochs``, anything under
``ratkit`` may import ``ratkit._files``.

grimp's graph gives every import with its line; the names a ``from … import …`` brings
are read from that line (or from the module's source when the statement spans lines).
Run with this folder on the path: ``PYTHONPATH=.ci lint-imports`` (as ``make lint`` does).
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

from grimp import ImportGraph
from importlinter.application import contract_utils, output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck

__all__ = ["PrivateImportsContract", "private_crossings"]


def _is_private(component: str) -> bool:
    return component.startswith("_") and not (component.startswith("__") and component.endswith("__"))


def _parent(module: str) -> str:
    return module.rpartition(".")[0]


def _within(package: str, owner: str) -> bool:
    return package == owner or package.startswith(owner + ".")


class _Sources:
    """Where each module of the graph lives, and its parsed import statements."""

    def __init__(self, graph: ImportGraph) -> None:
        self.graph = graph
        self.roots: dict[str, Path] = {}
        for root in {module.partition(".")[0] for module in graph.modules}:
            spec = importlib.util.find_spec(root)  # a top-level name: found, not imported
            if spec is not None and spec.submodule_search_locations:
                self.roots[root] = Path(next(iter(spec.submodule_search_locations)))

    def path(self, module: str) -> Path | None:
        root, *rest = module.split(".")
        if root not in self.roots:
            return None
        base = self.roots[root].joinpath(*rest)
        if (base / "__init__.py").is_file():
            return base / "__init__.py"
        return base.with_suffix(".py") if base.with_suffix(".py").is_file() else None

    def is_package(self, module: str) -> bool:
        path = self.path(module)
        if path is not None:
            return path.name == "__init__.py"
        return bool(self.graph.find_children(module))

    def package(self, module: str) -> str:
        return module if self.is_package(module) else _parent(module)

    def statements(self, module: str, line_number: int, line_contents: str) -> list[ast.stmt]:
        """The import statements starting at that line: parsed from grimp's line contents, or
        from the module's source when the statement continues on further lines."""
        try:
            return ast.parse(line_contents.strip()).body
        except SyntaxError:
            return [node for node in _tree(self.path(module)) if node.lineno == line_number]


@cache
def _tree(path: Path | None) -> tuple[ast.stmt, ...]:
    if path is None:
        return ()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tuple(node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom))


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute module name of ``from <module> import …`` in a module of `package`."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    if node.level > 1:
        base = base[: -(node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _owner_of_module(module: str) -> str | None:
    """The package a private module (or a module inside one) belongs to; None if public."""
    parts = module.split(".")
    for index in range(len(parts) - 1, 0, -1):  # the innermost private component is the strictest
        if _is_private(parts[index]):
            return ".".join(parts[:index])
    return None


def private_crossings(graph: ImportGraph) -> list[dict[str, Any]]:
    """Every import of another package's private module or private name in `graph`:
    ``{"importer", "line_number", "imported"}`` (a module or ``module.name``), sorted."""
    sources = _Sources(graph)
    found: set[tuple[str, int, str]] = set()
    for importer in graph.modules:
        package = sources.package(importer)
        for imported in graph.find_modules_directly_imported_by(importer):
            details = graph.get_import_details(importer=importer, imported=imported)
            owner = _owner_of_module(imported)
            if owner is not None and not _within(package, owner):
                found.update((importer, detail["line_number"], imported) for detail in details)
            name_owner = sources.package(imported)
            if _within(package, name_owner):
                continue
            for detail in details:
                for node in sources.statements(importer, detail["line_number"], detail["line_contents"]):
                    if not isinstance(node, ast.ImportFrom) or _from_module(node, package) != imported:
                        continue
                    for alias in node.names:
                        name = f"{imported}.{alias.name}"
                        if _is_private(alias.name) and name not in graph.modules:
                            found.add((importer, detail["line_number"], name))
    return [{"importer": i, "line_number": n, "imported": m} for i, n, m in sorted(found)]


class PrivateImportsContract(Contract):
    """No module imports another package's private module or private name (see the module
    docstring for the rule). Options: ``ignore_imports`` (import expressions to leave out,
    e.g. while a crossing is being removed) and ``unmatched_ignore_imports_alerting``."""

    type_name = "private_imports"

    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    unmatched_ignore_imports_alerting = fields.EnumField(
        contract_utils.AlertLevel, default=contract_utils.AlertLevel.ERROR
    )

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        removal = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=self.ignore_imports,  # type: ignore[arg-type]
            unmatched_alerting=self.unmatched_ignore_imports_alerting,  # type: ignore[arg-type]
        )
        crossings = private_crossings(graph)
        return ContractCheck(
            kept=not crossings,
            warnings=list(removal.warnings),
            ignored_import_count=removal.ignored_import_count,
            metadata={"crossings": crossings},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        output.print_error("Imports of another package's private module or private name:", bold=False)
        output.new_line()
        for crossing in check.metadata["crossings"]:
            output.print_error(
                f"- {crossing['importer']} (l.{crossing['line_number']}) -> {crossing['imported']}", bold=False
            )
        output.new_line()
        output.print(
            "A thing needed across packages belongs lower down and public: rename the module without "
            "the underscore, or move it to the lowest package that uses it (CONTRIBUTING.md, Layers)."
        )
