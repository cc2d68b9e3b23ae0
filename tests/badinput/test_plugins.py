"""Bad inputs of the plugin registry (issue 21): register, get, describe, discovery.

Each case asserts the ratkit exception class and the words naming the bad thing. Two defects of
the issue are checked in fresh interpreters: registering a built-in name before the built-ins
load must not break ``import ratkit.learners`` (the plugin's author is told to rename theirs),
and a plugin that calls ``sys.exit()`` at import is skipped with a warning, not the process's end.
"""

from __future__ import annotations

import textwrap

import pytest

from ratkit import plugins
from ratkit.exceptions import (
    DuplicatePluginError,
    ParameterError,
    ParameterTypeError,
    UnknownPluginError,
)
from ratkit.plugins import registry
from tests.isolated import run_python


@pytest.fixture
def clean_registry():
    registry._load_builtins()
    saved = {k: dict(v) for k, v in registry._registry.items()}
    plugins.refresh()
    yield registry
    registry._registry.clear()
    registry._registry.update(saved)
    plugins.refresh()


class _K:
    pass


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: plugins.get("widget", "x"), UnknownPluginError, r"Unknown plugin kind 'widget'; expected one of"),
        (lambda: plugins.get(None, "x"), UnknownPluginError, r"Unknown plugin kind None"),
        (lambda: plugins.get("kernel", "nope"), UnknownPluginError, r"No kernel plugin named 'nope'. Available"),
        (lambda: plugins.get("kernel", None), UnknownPluginError, r"No kernel plugin named None"),
        (lambda: plugins.describe("learner", "nope"), UnknownPluginError, r"No learner plugin named 'nope'"),
        (lambda: plugins.available("widgets"), UnknownPluginError, r"Unknown plugin kind 'widgets'"),
        (lambda: plugins.describe_all("nope"), UnknownPluginError, r"Unknown plugin kind 'nope'"),
        (lambda: plugins.register("kernel", "")(_K), ParameterError, r"plugin name must be a non-empty string.*''"),
        (lambda: plugins.register("kernel", 5)(_K), ParameterTypeError, r"plugin name must be .* Got 5 \(int\)"),
        (lambda: plugins.register("kernel", None)(_K), ParameterTypeError, r"plugin name .* Got None"),
        (lambda: plugins.register("widget", "w")(_K), UnknownPluginError, r"Unknown plugin kind 'widget'"),
        (
            lambda: plugins.register("learner", "my-learner")(42),
            ParameterTypeError,
            r"learner plugin 'my-learner' must be a class or a callable.* Got 42 \(a int\)",
        ),
        (lambda: plugins.register("kernel", "k")(None), ParameterTypeError, r"Got None \(a NoneType\)"),
        (
            lambda: plugins.register("kernel", "ngram")(_K),
            DuplicatePluginError,
            r"'ngram' is already taken by ratkit\..*NgramKernel \(a ratkit built-in: its name is reserved\); "
            r"choose another name for .*_K",
        ),
    ],
)
def test_registry_bad_inputs(call, error, words, clean_registry):
    with pytest.raises(error, match=words):
        call()


def test_a_refused_registration_registers_nothing(clean_registry):
    with pytest.raises(ParameterTypeError):
        plugins.register("learner", "not-a-class")(42)
    assert "not-a-class" not in plugins.available("learner")


def test_a_built_in_name_registered_before_the_built_ins_load():
    """The user's class is refused with a message naming it; ratkit's own classes still load."""
    outcome = run_python(
        """
        import ratkit.plugins.registry as r
        from ratkit.exceptions import DuplicatePluginError
        try:
            r.register("learner", "rational-svc")(type("Mine", (), {"__module__": "mymodule"}))
        except DuplicatePluginError as exc:
            print("REFUSED", exc)
        import ratkit.learners
        print("GOT", r.get("learner", "rational-svc").__module__)
        """,
        timeout=120,
    )
    assert outcome.returncode == 0, outcome.stderr[-2000:]
    assert "REFUSED The learner plugin name 'rational-svc' is already taken by ratkit.learners" in outcome.stdout
    assert "choose another name for mymodule.Mine" in outcome.stdout
    assert "GOT ratkit.learners.svm._rational" in outcome.stdout


def test_a_plugin_registered_under_a_built_in_name_while_the_built_ins_import(clean_registry):
    """If a third-party object did take a built-in's name first, the built-in still registers
    (ratkit must import), replacing it with a warning that tells the plugin's author to rename."""
    from ratkit.learners import RationalSVC

    intruder = type("Intruder", (), {"__module__": "thirdparty_mod"})
    registry._registry["learner"]["rational-svc"] = intruder
    with pytest.warns(registry.PluginLoadWarning, match=r"thirdparty_mod.Intruder was registered under 'rational-svc'"):
        registry.register("learner", "rational-svc")(RationalSVC)
    assert plugins.get("learner", "rational-svc") is RationalSVC


def _distribution(tmp_path, name, body):
    (tmp_path / f"{name}_plugin.py").write_text(body + "class K:\n    pass\n")
    info = tmp_path / f"{name}_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[ratkit.kernels]\n{name}-k = {name}_plugin:K\n")


_BROKEN = {
    "exit3": ("import sys\nsys.exit(3)\n", "loading it raised SystemExit: 3"),
    "exitbare": ("raise SystemExit\n", "loading it raised SystemExit"),
    "zerodiv": ("1/0\n", "loading it raised ZeroDivisionError"),
    "noimport": ("import no_such_module_xyz\n", "loading it raised ModuleNotFoundError"),
}


def test_broken_plugins_are_skipped_with_a_warning(tmp_path):
    """One fresh interpreter for the four broken distributions (each one entry point)."""
    for name, (body, _) in _BROKEN.items():
        _distribution(tmp_path, name, body)
    outcome = run_python(
        textwrap.dedent(
            f"""
            import sys, warnings
            sys.path.insert(0, {str(tmp_path)!r})
            from ratkit import plugins
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                names = plugins.available("kernel")
            print("NGRAM" if "ngram" in names else "NO NGRAM", [n for n in names if n.endswith("-k")])
            for w in caught:
                print("WARN", w.category.__name__, w.message)
            """
        ),
        timeout=120,
    )
    assert outcome.returncode == 0, outcome.stderr[-2000:]
    assert "NGRAM []" in outcome.stdout
    for name, (_, words) in _BROKEN.items():
        line = next(ln for ln in outcome.stdout.splitlines() if f"'{name}-k'" in ln)
        assert line.startswith(
            f"WARN PluginLoadWarning Skipping kernel plugin entry point '{name}-k' -> '{name}_plugin:K'"
        )
        assert words in line
        assert f"Fix or uninstall {name}-plugin" in line
