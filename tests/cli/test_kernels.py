"""``ratkit kernels list/show/eval/check-pds`` against the registry and direct Python calls."""

from __future__ import annotations

import inspect
import itertools
import json
import re

import numpy as np
import pytest

from ratkit.automata.kernels import Kernel, from_spec, to_spec
from ratkit.plugins import available, get, registry
from tests.cli._helpers import needs_matplotlib, png_size, record_plots, run

#: The built-in combinators, known independently of the code under test (survey §II, Theorem 3).
BUILTIN_COMBINATORS = {"cosine", "sum", "product", "scale", "polynomial", "exp", "nds-to-pds", "pairwise"}
EDIT_EXP = {"family": "exp", "kernel": {"family": "edit-distance"}}


class ToyConstantKernel(Kernel):
    """K(x, y) = c for every pair: a third party's family."""

    def __init__(self, c: float = 2.0) -> None:
        self.c = c

    def _gram(self, X, Y=None):
        Y = X if Y is None else Y
        return np.full((len(X), len(Y)), float(self.c))


def _blocks(out):
    """{family name: the lines of its entry} from 'kernels list'."""
    blocks, name = {}, None
    for line in out.splitlines():
        m = re.match(r"^  (\S+)  \[(family|combinator), ", line)
        if m:
            name = m.group(1)
            blocks[name] = [line]
        elif name and line.startswith("      "):
            blocks[name].append(line)
    return blocks


def test_list_shows_every_registered_family_with_its_parameters(monkeypatch, capsys):
    monkeypatch.setitem(registry._registry["kernel"], "toy-constant", ToyConstantKernel)
    code, out, _ = run(["kernels", "list"], capsys)
    assert code == 0
    blocks = _blocks(out)
    assert set(blocks) == set(available("kernel")) and "toy-constant" in blocks
    for name, lines in blocks.items():
        obj = get("kernel", name)
        kind = "combinator" if name in BUILTIN_COMBINATORS else "family"
        assert f"[{kind}," in lines[0], (name, lines[0])
        text = "\n".join(lines)
        first = inspect.cleandoc(obj.__doc__).split("\n\n")[0].split("\n")[0].replace("``", "")
        assert first.split(":")[0][:20] in text
        for p in list(inspect.signature(obj.__init__).parameters.values())[1:]:
            shown = f"{p.name}: {p.annotation}" if p.default is p.empty else f"{p.name}: {p.annotation} = {p.default!r}"
            assert shown in text, (name, shown)
    assert "toy-constant  [family, no distribution]" in out and "c: float = 2.0" in out


@pytest.mark.parametrize("family", available("kernel"))
def test_show_prints_a_spec_example_from_spec_accepts(family, capsys):
    code, out, _ = run(["kernels", "show", family], capsys)
    assert code == 0
    example = json.loads(re.search(r"^spec example: (.*)$", out, re.M).group(1))
    assert example["family"] == family
    kernel = from_spec(example)
    assert type(kernel) is get("kernel", family)
    assert to_spec(kernel, inline=True) == example  # the example is the canonical spec
    doc = inspect.cleandoc(get("kernel", family).__doc__)
    assert doc.splitlines()[-1].strip() in out  # the whole docstring, to its last line
    formula = re.search(r"^formula: (.*)$", out, re.M).group(1)
    assert "=" in formula


def test_eval_prints_the_python_value(capsys):
    cases = [
        ({"family": "ngram", "n": 1}, "ab", "abb", 3.0),  # Σ_a c(x, a) c(y, a) = 1·1 + 1·2
        ({"family": "edit-distance"}, "kitten", "sitting", 3.0),  # Levenshtein
        ({"family": "subsequence"}, "ab", "ab", 4.0),  # ε, a, b, ab
        ({"family": "cosine", "kernel": {"family": "ngram", "n": 2}}, "abab", "abba", None),
    ]
    for spec, x, y, closed in cases:
        code, out, _ = run(["kernels", "eval", "--kernel", json.dumps(spec), x, y], capsys)
        assert code == 0
        value = float(out.strip())
        assert value == from_spec(spec)(x, y)
        if closed is not None:
            assert value == closed


def _brute_force(spec, alphabet, n_max, up_to):
    kernel = from_spec(spec)
    out = {}
    for n in range(1, n_max + 1):
        lengths = range(n + 1) if up_to else [n]
        X = ["".join(p) for m in lengths for p in itertools.product(alphabet, repeat=m)]
        G = np.array([[kernel(x, y) for y in X] for x in X])
        out[n] = float(np.linalg.eigvalsh(G)[0])
    return out


def _printed_curve(out):
    return {int(m.group(1)): float(m.group(3)) for m in re.finditer(r"^\s+(\d+)\s+(\d+)\s+(\S+)$", out, re.M)}


@pytest.mark.parametrize("up_to", [False, True])
def test_check_pds_prints_fig8_and_agrees_with_brute_force(up_to, capsys):
    argv = ["kernels", "check-pds", "--kernel", json.dumps(EDIT_EXP), "--alphabet", "ab", "--max-len", "6"]
    code, out, _ = run([*argv, *(["--up-to"] if up_to else [])], capsys)
    assert code == 0
    printed = _printed_curve(out)
    oracle = _brute_force(EDIT_EXP, "ab", 6, up_to)
    assert printed.keys() == oracle.keys()
    np.testing.assert_allclose(list(printed.values()), list(oracle.values()), rtol=1e-9, atol=1e-12)
    if not up_to:  # the survey: the smallest eigenvalue becomes negative for n ≥ 6
        assert [n for n, lam in printed.items() if lam < 0] == [6]
        assert "length exactly n" in out
    else:
        assert all(a >= b - 1e-12 for a, b in zip(printed.values(), list(printed.values())[1:]))  # interlacing
        assert "length ≤ n" in out
    assert "not PDS" in out


def test_check_pds_of_a_pds_kernel_finds_no_negative_eigenvalue(capsys):
    code, out, _ = run(["kernels", "check-pds", "--kernel", '{"family": "ngram", "n": 2}', "--max-len", "4"], capsys)
    assert code == 0 and "consistent with PDS" in out and "not PDS" not in out
    assert min(_printed_curve(out).values()) > -1e-9


@needs_matplotlib
def test_check_pds_plot_draws_the_printed_curve(tmp_path, monkeypatch, capsys):
    calls = record_plots(monkeypatch, "plot_min_eigenvalue")
    png = tmp_path / "fig8.png"
    code, out, _ = run(["kernels", "check-pds", "--kernel", json.dumps(EDIT_EXP), "--plot", png], capsys)
    assert code == 0 and len(calls) == 1
    assert png_size(png)[0] > 100
    printed = _printed_curve(out)
    data = calls[0]["data"]
    assert list(data["x"]) == list(printed)
    assert list(data["min_eigenvalue"]) == list(printed.values())
    assert f"written to {png}" in out
