"""The wheel and the sdist built from the repository hold everything ratkit reads at run time.

Both are built from a copy of the files git tracks (what a clean clone holds), offline:
``pip wheel --no-build-isolation`` and setuptools' own ``build_sdist``, with the setuptools
of the running environment (the ``test`` extra asks for setuptools>=77, which the
``license = "Apache-2.0"`` expression needs). The expected contents come from the
repository, not from the build: every tracked file under ``ratkit/``, the licence files
and the entry points ``pyproject.toml`` declares.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import HeaderParser
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import REPOSITORY

_SETUPTOOLS_NEEDED = (77,)
_UNTRACKED = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", "_build", "out", ".*_cache"
)


def _setuptools_version() -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in metadata.version("setuptools").split(".")[:2] if p.isdigit())
    except metadata.PackageNotFoundError:
        return ()


def _tracked_files(root: Path) -> list[str] | None:
    """The files git tracks under ``root`` (relative, ``/``-separated), or None outside a git checkout."""
    if shutil.which("git") is None:
        return None
    done = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True)
    if done.returncode != 0:
        return None
    return [name for name in done.stdout.decode().split("\0") if name and (root / name).is_file()]


def _clean_copy(target: Path) -> list[str]:
    """Copy what a clean clone holds into ``target``; the copied files, relative."""
    tracked = _tracked_files(REPOSITORY)
    if tracked is None:  # an unpacked sdist or a plain copy: everything but build and cache folders
        shutil.copytree(REPOSITORY, target, ignore=_UNTRACKED)
        return [p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()]
    for name in tracked:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPOSITORY / name, target / name)
    return tracked


def _run(command: list[str], **kwargs) -> None:
    """Run a build command; its output in the failure message when it fails."""
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The wheel and sdist built from a clean copy of the repository, and that copy's file list."""
    if _setuptools_version() < _SETUPTOOLS_NEEDED:
        pytest.skip(
            f"building ratkit needs setuptools>=77 (license expression); this environment has "
            f"{'.'.join(map(str, _setuptools_version())) or 'none'}: pip install 'setuptools>=77' "
            "(the test extra, which `make test` installs, asks for it)"
        )
    root = tmp_path_factory.mktemp("packaging")
    source, out = root / "source", root / "dist"
    files = _clean_copy(source)
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q"]
        + ["-w", str(out), str(source)],
        env=env,
    )
    _run(
        [sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_sdist({str(out)!r})"],
        cwd=source,
        env=env,
    )
    (wheel,) = out.glob("ratkit-*.whl")
    (sdist,) = out.glob("ratkit-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist, "files": files, "root": root}


def _wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        return zf.namelist()


def _dist_info(names: list[str]) -> str:
    (folder,) = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
    return folder


def test_wheel_holds_every_tracked_file_of_the_package(built: dict) -> None:
    expected = {n for n in built["files"] if n.startswith("ratkit/")}
    in_wheel = {n for n in _wheel_names(built["wheel"]) if n.startswith("ratkit/")}
    assert expected - in_wheel == set(), "files of ratkit/ missing from the wheel"
    assert in_wheel - expected == set(), "files in the wheel that the repository does not track"
    for needed in ("data/splice/splice.data", "data/splice/splice.names", "data/splice/ATTRIBUTION.md", "py.typed"):
        assert f"ratkit/{needed}" in in_wheel


def test_wheel_holds_the_licence_and_its_metadata(built: dict) -> None:
    names = _wheel_names(built["wheel"])
    info = _dist_info(names)
    assert f"{info}/licenses/LICENSE" in names
    assert f"{info}/licenses/ratkit/data/splice/ATTRIBUTION.md" in names
    with zipfile.ZipFile(built["wheel"]) as zf:
        licence = zf.read(f"{info}/licenses/LICENSE").decode()
        meta = HeaderParser().parsestr(zf.read(f"{info}/METADATA").decode())
    assert licence == (REPOSITORY / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert meta["License-Expression"] == "Apache-2.0"
    assert "LICENSE" in meta.get_all("License-File")
    assert meta["Author"] == "the ratkit authors"
    assert "Typing :: Typed" in meta.get_all("Classifier")


def test_wheel_declares_the_entry_points_of_pyproject(built: dict) -> None:
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {"console_scripts": project.get("scripts", {})} | project.get("entry-points", {})
    names = _wheel_names(built["wheel"])
    with zipfile.ZipFile(built["wheel"]) as zf:
        text = zf.read(f"{_dist_info(names)}/entry_points.txt").decode()
    parser = configparser.ConfigParser(delimiters=("=",))
    parser.optionxform = str  # entry-point names are case-sensitive
    parser.read_string(text)
    in_wheel = {group: {k: v.strip() for k, v in parser[group].items()} for group in parser.sections()}
    assert in_wheel == {group: dict(points) for group, points in declared.items() if points}
    assert in_wheel["console_scripts"]["ratkit"] == "ratkit.cli:main"


def test_unpacked_wheel_loads_the_bundled_data(built: dict) -> None:
    """The wheel on its own (unpacked, first on the path, from another folder) reads the splice set."""
    target = built["root"] / "unpacked"
    with zipfile.ZipFile(built["wheel"]) as zf:
        zf.extractall(target)
    code = (
        "import ratkit, ratkit.cli; from ratkit.datasets import load_splice; d = load_splice(); "
        "print(ratkit.__file__); print(len(d), sorted(set(d.labels)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=built["root"],
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    where, summary = done.stdout.splitlines()
    assert Path(where).is_relative_to(target)
    assert summary == "3190 ['EI', 'IE', 'N']"  # ATTRIBUTION.md: 3190 sequences, classes EI, IE, N


def test_sdist_holds_the_package_data_and_licence(built: dict) -> None:
    with tarfile.open(built["sdist"]) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    expected = {n for n in built["files"] if n.startswith("ratkit/")}
    assert expected - names == set(), "files of ratkit/ missing from the sdist"
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml"} <= names
