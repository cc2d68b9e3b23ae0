"""The plugin registry: registration, lookup, and entry-point discovery with a fake distribution."""

from __future__ import annotations

import sys
import textwrap

import pytest

from ratkit import plugins
from ratkit.exceptions import DuplicatePluginError, UnknownPluginError
from ratkit.plugins import registry


@pytest.fixture
def clean_registry(monkeypatch):
    """An isolated registry: built-ins and the entry-point cache restored afterwards."""
    registry._load_builtins()  # import (and so register) the built-ins before saving them
    saved = {k: dict(v) for k, v in registry._registry.items()}
    plugins.refresh()
    yield registry
    registry._registry.clear()
    registry._registry.update(saved)
    plugins.refresh()


def test_register_get_available(clean_registry):
    @plugins.register("kernel", "test-kernel")
    class MyKernel:
        pass

    assert plugins.get("kernel", "test-kernel") is MyKernel
    assert "test-kernel" in plugins.available("kernel")


def test_second_plugin_under_a_taken_name_raises(clean_registry):
    @plugins.register("learner", "test-dup")
    def first():
        pass

    with pytest.raises(DuplicatePluginError, match="learner plugin name 'test-dup' is already taken by .*first"):

        @plugins.register("learner", "test-dup")
        def second():
            pass


def test_unknown_name_lists_what_is_available(clean_registry):
    @plugins.register("recommender", "test-known")
    class Known:
        pass

    with pytest.raises(
        UnknownPluginError, match="No recommender plugin named 'nope'. Available recommender plugins: .*test-known"
    ):
        plugins.get("recommender", "nope")


def test_unknown_kind(clean_registry):
    with pytest.raises(
        UnknownPluginError, match="Unknown plugin kind 'model'; expected one of 'kernel', 'learner', 'recommender'"
    ):
        plugins.available("model")


def _fake_distribution(tmp_path, name, entry_points, module_source):
    """Install (on sys.path) a distribution with a dist-info folder declaring entry points."""
    (tmp_path / f"{name}_mod.py").write_text(textwrap.dedent(module_source))
    info = tmp_path / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def test_entry_point_discovery_with_a_fake_distribution(tmp_path, monkeypatch, clean_registry):
    _fake_distribution(
        tmp_path,
        "ratkit_fake_plugin",
        """\
        [ratkit.kernels]
        fake-kernel = ratkit_fake_plugin_mod:FakeKernel
        [ratkit.recsys]
        fake-rec = ratkit_fake_plugin_mod:FakeRec
        """,
        """\
        class FakeKernel:
            pass
        class FakeRec:
            pass
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.refresh()
    assert "fake-kernel" in plugins.available("kernel")
    assert plugins.get("recommender", "fake-rec").__name__ == "FakeRec"
    # cached: removing the distribution changes nothing until refresh()
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(tmp_path)])
    assert "fake-kernel" in plugins.available("kernel")
    plugins.refresh()
    assert "fake-kernel" not in plugins.available("kernel")


def test_broken_plugin_is_skipped_with_a_warning_naming_it(tmp_path, monkeypatch, clean_registry):
    _fake_distribution(
        tmp_path,
        "ratkit_broken_plugin",
        """\
        [ratkit.learners]
        broken = ratkit_broken_plugin_mod:Missing
        fine = ratkit_broken_plugin_mod:Fine
        """,
        """\
        class Fine:
            pass
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.refresh()
    with pytest.warns(plugins.PluginLoadWarning) as record:
        names = plugins.available("learner")
    assert "fine" in names and "broken" not in names
    msg = str(record[0].message)
    assert "'broken'" in msg and "ratkit_broken_plugin_mod:Missing" in msg and "ratkit_broken_plugin" in msg


def test_entry_point_cannot_shadow_a_builtin(tmp_path, monkeypatch, clean_registry):
    @plugins.register("kernel", "test-builtin")
    class Builtin:
        pass

    _fake_distribution(
        tmp_path,
        "ratkit_shadow_plugin",
        "[ratkit.kernels]\ntest-builtin = ratkit_shadow_plugin_mod:Other\n",
        "class Other:\n    pass\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.refresh()
    with pytest.warns(plugins.PluginLoadWarning, match="name 'test-builtin' is already taken"):
        assert plugins.get("kernel", "test-builtin") is Builtin


def test_builtin_plugins_are_registered():
    kernels = set(plugins.available("kernel"))
    assert {"ngram", "gappy", "mismatch", "subsequence", "edit-distance", "count-based", "transducer"} <= kernels
    assert {"sum", "product", "scale", "cosine"} <= kernels  # the combinators are plugins too
    from ratkit.automata.kernels import NgramKernel

    assert plugins.get("kernel", "ngram") is NgramKernel


def _factory(value):
    class Made:  # every call makes a distinct class with the same module and qualname
        level = value

    return Made


def test_a_second_product_of_one_factory_under_a_taken_name_raises(clean_registry):
    first, second = _factory(1), _factory(2)
    assert (first.__module__, first.__qualname__) == (second.__module__, second.__qualname__)
    plugins.register("kernel", "test-factory")(first)
    with pytest.raises(
        DuplicatePluginError, match="kernel plugin name 'test-factory' is already taken by .*_factory.<locals>.Made"
    ):
        plugins.register("kernel", "test-factory")(second)
    assert plugins.get("kernel", "test-factory") is first  # the first one was not replaced
    plugins.register("kernel", "test-factory")(first)  # the same object again is a no-op


def test_a_module_reload_re_registers_its_own_definition(tmp_path, monkeypatch, clean_registry):
    import importlib

    (tmp_path / "ratkit_reload_mod.py").write_text(
        "from ratkit import plugins\n\n\n@plugins.register('learner', 'test-reload')\nclass Reloaded:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("ratkit_reload_mod")
    old = module.Reloaded
    try:
        module = importlib.reload(module)
        assert module.Reloaded is not old
        assert plugins.get("learner", "test-reload") is module.Reloaded
    finally:
        sys.modules.pop("ratkit_reload_mod", None)


def test_an_object_of_another_module_with_the_same_qualname_raises(clean_registry):
    @plugins.register("recommender", "test-clash")
    class Clash:
        pass

    other = type("Clash", (), {"__module__": "somewhere_else", "__qualname__": Clash.__qualname__})
    with pytest.raises(DuplicatePluginError, match="'test-clash' is already taken"):
        plugins.register("recommender", "test-clash")(other)


def test_an_alias_finds_the_plugin_with_a_deprecation_warning_and_is_not_listed():
    from ratkit.plugins import registry

    @registry.register("learner", "alias-test-current", aliases=("alias-test-old",))
    class Current:
        pass

    try:
        with pytest.warns(DeprecationWarning, match="'alias-test-old' is deprecated; use 'alias-test-current'"):
            assert registry.get("learner", "alias-test-old") is Current
        assert "alias-test-old" not in registry.available("learner")
        assert registry.get("learner", "alias-test-current") is Current
    finally:
        registry._registry["learner"].pop("alias-test-current", None)
        registry._aliases["learner"].pop("alias-test-old", None)


def test_a_former_name_of_a_builtin_is_reserved(tmp_path, monkeypatch, clean_registry):
    """Regression (audit): only current names were reserved, so an entry point or a register()
    call named 'count_based' (the documented former spelling of 'count-based') took the name,
    and every spec or model file using it silently got the third-party kernel."""
    from ratkit.automata.kernels import from_spec

    spec = {"family": "count_based", "patterns": ["ab"]}
    reserved = r"'count_based' is reserved: it is a former name of .*'count-based'"
    with pytest.raises(DuplicatePluginError, match=reserved):

        @plugins.register("kernel", "count_based")
        class Hijack:
            pass

    _fake_distribution(
        tmp_path,
        "ratkit_alias_plugin",
        "[ratkit.kernels]\ncount_based = ratkit_alias_plugin_mod:Other\n",
        "class Other:\n    def __init__(self, **kw):\n        pass\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.refresh()
    with pytest.warns(plugins.PluginLoadWarning, match=r"'count_based' is already taken by .*CountBasedKernel"):
        kernel = from_spec(spec)
    assert kernel("abab", "ab") == pytest.approx(2.0)  # Σ w²|x|_ab|y|_ab = 1·2·1: the built-in


def test_register_under_the_name_of_an_installed_entry_point_raises(tmp_path, monkeypatch, clean_registry):
    """Regression (audit): once discovery had run, register() replaced an installed entry-point
    plugin of the same name without a word (before it, discovery skipped the entry point)."""
    _fake_distribution(
        tmp_path,
        "ratkit_installed_plugin",
        "[ratkit.recsys]\ntest-installed = ratkit_installed_plugin_mod:Installed\n",
        "class Installed:\n    pass\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.refresh()
    installed = plugins.get("recommender", "test-installed")
    with pytest.raises(DuplicatePluginError, match=r"'test-installed' is already taken by .*Installed, installed by"):

        @plugins.register("recommender", "test-installed")
        class Mine:
            pass

    assert plugins.get("recommender", "test-installed") is installed
