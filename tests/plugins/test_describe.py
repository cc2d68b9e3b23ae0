"""Where each plugin comes from: ``describe``/``describe_all`` and ``ratkit plugins list``."""

from __future__ import annotations

import importlib
import sys

import pytest

from ratkit import plugins
from ratkit.cli._main import main
from ratkit.exceptions import UnknownPluginError
from ratkit.plugins import registry
from tests.thirdparty import installed_distribution

_MODULE = '''\
class TpKernel:
    """A made-up kernel for the listing test.

    Its details do not belong in the summary.
    """


class TpLearner:
    """A learner whose summary
    wraps over two lines.
    """


class TpUndocumented(TpKernel):
    pass
'''


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    """The distribution ``ratkit-tp-dist`` with a kernel, a learner and a recommender."""
    with installed_distribution(
        tmp_path / "site",
        "ratkit-tp-dist",
        {"ratkit_tp_plugins.py": _MODULE},
        {
            "ratkit.kernels": {"tp-kernel": "ratkit_tp_plugins:TpKernel"},
            "ratkit.learners": {"tp-learner": "ratkit_tp_plugins:TpLearner"},
            "ratkit.recommenders": {"tp-undocumented": "ratkit_tp_plugins:TpUndocumented"},
        },
        monkeypatch,
    ) as root:
        yield root


def test_an_entry_point_plugin_names_its_distribution_and_summary(third_party):
    info = plugins.describe("kernel", "tp-kernel")
    assert (info.kind, info.name, info.distribution) == ("kernel", "tp-kernel", "ratkit-tp-dist")
    assert info.summary == "A made-up kernel for the listing test."
    assert info.obj is plugins.get("kernel", "tp-kernel")


def test_a_summary_is_the_first_paragraph_on_one_line(third_party):
    assert plugins.describe("learner", "tp-learner").summary == "A learner whose summary wraps over two lines."


def test_a_plugin_without_its_own_docstring_has_an_empty_summary_not_its_base_class(third_party):
    assert plugins.describe("recommender", "tp-undocumented").summary == ""


def test_builtins_come_from_ratkit_with_their_docstring_summary():
    from ratkit.automata.kernels import NgramKernel

    info = plugins.describe("kernel", "ngram")
    assert info.distribution == "ratkit" and info.obj is NgramKernel
    first_line = NgramKernel.__doc__.strip().splitlines()[0].strip()
    assert info.summary.startswith(first_line) and info.summary


def test_describe_all_covers_every_available_plugin_in_order(third_party):
    infos = plugins.describe_all()
    expected = [(kind, name) for kind in plugins.KINDS for name in plugins.available(kind)]
    assert [(i.kind, i.name) for i in infos] == expected
    assert all(i.distribution == "ratkit" for i in infos if i.obj.__module__.startswith("ratkit."))
    assert [i.name for i in plugins.describe_all("learner")] == plugins.available("learner")


def test_describe_all_refuses_an_unknown_kind():
    with pytest.raises(UnknownPluginError, match="Unknown plugin kind 'model'"):
        plugins.describe_all("model")


def test_describe_an_unknown_name_lists_what_is_available():
    with pytest.raises(LookupError, match="No learner plugin named 'nope'. Available learner plugins: .*rational-svc"):
        plugins.describe("learner", "nope")


def test_an_entry_point_module_that_also_registers_its_object_keeps_the_distribution(tmp_path, monkeypatch):
    source = (
        "from ratkit import plugins\n\n\n"
        "@plugins.register('kernel', 'tp-self-registered')\n"
        "class SelfRegistered:\n"
        '    """Registers itself on import."""\n'
    )
    try:
        with installed_distribution(
            tmp_path,
            "ratkit-tp-self",
            {"ratkit_tp_self.py": source},
            {"ratkit.kernels": {"tp-self-registered": "ratkit_tp_self:SelfRegistered"}},
        ):
            info = plugins.describe("kernel", "tp-self-registered")
            assert (info.distribution, info.summary) == ("ratkit-tp-self", "Registers itself on import.")
    finally:
        registry._registry["kernel"].pop("tp-self-registered", None)


def test_an_object_registered_from_code_no_distribution_provides_has_none(tmp_path, monkeypatch):
    (tmp_path / "ratkit_tp_script.py").write_text(
        "from ratkit import plugins\n\n\n"
        "@plugins.register('learner', 'tp-script')\n"
        "def made():\n"
        "    '''From a script.'''\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("ratkit_tp_script")
        info = plugins.describe("learner", "tp-script")
        assert (info.distribution, info.summary) == (None, "From a script.")
    finally:
        registry._registry["learner"].pop("tp-script", None)
        sys.modules.pop("ratkit_tp_script", None)


def test_describe_a_former_name_warns_and_names_the_current_plugin():
    @registry.register("learner", "describe-test-current", aliases=("describe-test-old",))
    class Current:
        """The current one."""

    try:
        with pytest.warns(DeprecationWarning, match="'describe-test-old' is deprecated; use 'describe-test-current'"):
            info = plugins.describe("learner", "describe-test-old")
        assert (info.name, info.obj, info.summary) == ("describe-test-current", Current, "The current one.")
    finally:
        registry._registry["learner"].pop("describe-test-current", None)
        registry._aliases["learner"].pop("describe-test-old", None)


def _table(out: str) -> list[list[str]]:
    """Rows of the listing split at the columns the header line starts."""
    lines = out.splitlines()
    header = lines[0]
    starts = [header.index(title) for title in ("KIND", "NAME", "DISTRIBUTION", "SUMMARY")]
    bounds = [*starts[1:], None]
    return [[line[a:b].strip() for a, b in zip(starts, bounds)] for line in lines]


def test_plugins_list_prints_kind_name_distribution_and_summary_in_columns(third_party, capsys):
    assert main(["plugins", "list"]) == 0
    rows = _table(capsys.readouterr().out)
    assert rows[0] == ["KIND", "NAME", "DISTRIBUTION", "SUMMARY"]
    assert ["kernel", "tp-kernel", "ratkit-tp-dist", "A made-up kernel for the listing test."] in rows
    assert ["learner", "tp-learner", "ratkit-tp-dist", "A learner whose summary wraps over two lines."] in rows
    assert ["recommender", "tp-undocumented", "ratkit-tp-dist", ""] in rows
    assert ["learner", "rational-svc", "ratkit"] == rows[[r[1] for r in rows].index("rational-svc")][:3]
    listed = {(r[0], r[1]) for r in rows[1:]}
    assert listed == {(kind, name) for kind in plugins.KINDS for name in plugins.available(kind)}


def test_plugins_list_kind_keeps_only_that_kind(third_party, capsys):
    assert main(["plugins", "list", "--kind", "kernel"]) == 0
    rows = _table(capsys.readouterr().out)
    assert {r[0] for r in rows[1:]} == {"kernel"}
    assert [r[1] for r in rows[1:]] == plugins.available("kernel")
    assert "tp-kernel" in [r[1] for r in rows]


def test_summaries_read_sphinx_markup_as_plain_text():
    """The listing printed raw reStructuredText (``code``, :func:`~a.b.f`) in the terminal."""
    from ratkit.plugins.registry import _plain_rst

    assert _plain_rst("see :mod:`ratkit.recsys.cccf`") == "see ratkit.recsys.cccf"
    assert _plain_rst("T of :func:`~ratkit.automata.kernels.count_based.pattern_counter`.") == "T of pattern_counter."
    assert _plain_rst(":class:`Graph <ratkit.automata.graphs.Graph>` inputs") == "Graph inputs"
    assert _plain_rst("``S = UVᵀ`` by :meth:`CCCF.fit`") == "S = UVᵀ by CCCF.fit"
    for info in plugins.describe_all():
        assert "``" not in info.summary and ":func:" not in info.summary and ":class:" not in info.summary, info
