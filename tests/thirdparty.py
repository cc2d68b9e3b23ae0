"""A throwaway third-party distribution for plugin tests: its modules and entry points are
written to a temporary folder put on ``sys.path`` (and on ``PYTHONPATH`` for subprocesses),
so :mod:`importlib.metadata` discovers it exactly as it would an installed package."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from ratkit.plugins import refresh


@contextmanager
def installed_distribution(
    root: Path,
    name: str,
    modules: Mapping[str, str],
    entry_points: Mapping[str, Mapping[str, str]],
    monkeypatch=None,
) -> Iterator[Path]:
    """Make ``root`` hold distribution ``name`` (version 1.0) with ``modules`` (file name →
    source) and ``entry_points`` (group → {plugin name: 'module:object'}), on ``sys.path``
    for the duration; the plugin registry forgets its discovery before and after.

    With ``monkeypatch``, ``PYTHONPATH`` also names ``root``, so ``ratkit`` run as a
    subprocess finds the distribution too.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    for filename, source in modules.items():
        (root / filename).write_text(textwrap.dedent(source), encoding="utf-8")
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    lines = []
    for group, plugins in entry_points.items():
        lines.append(f"[{group}]")
        lines += [f"{plugin} = {target}" for plugin, target in plugins.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    sys.path.insert(0, str(root))
    if monkeypatch is not None:
        monkeypatch.setenv(
            "PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        )
    refresh()
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for filename in modules:
            sys.modules.pop(Path(filename).stem, None)
        refresh()
