"""What every ``ratkit`` command shares: the parser class and its help format, the spelling of
the shared flags (``-C``, ``-o/--output``, ``--seed``, ``--plot``; ``--n-jobs`` is in
:mod:`._compute`), deprecated aliases, the ``--format`` help and the few library constants
the parsers show.

Building the parsers must stay fast (``ratkit --help`` in well under 0.5 s), so this module
and every ``register_commands`` import nothing but the standard library and the other light
``ratkit.cli`` helpers: :mod:`ratkit.exceptions` alone imports scikit-learn (slow to import;
measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)'). Each
command imports its implementation when it runs. The constants below mirror library values
for that reason; tests/cli/test_fast_start.py checks each against its source.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ratkit.cli._argtypes import non_negative_int, output_file, positive

__all__ = [
    "Parser",
    "HelpFormatter",
    "DEFAULT_SPEC",
    "DEFAULT_LEARNER",
    "QP_SOLVERS",
    "PLUGIN_KINDS",
    "SEQUENCE_FORMATS",
    "add_output",
    "add_seed",
    "add_penalty",
    "add_plot",
    "add_format",
    "add_deprecated_alias",
    "resolve_format",
    "png_file",
]

#: ``ratkit.workflow.DEFAULT_SPEC``: the kernel of ``train`` and ``gram`` without --kernel.
DEFAULT_SPEC: dict[str, Any] = {"family": "cosine", "kernel": {"family": "ngram", "n": 3}}
#: ``ratkit.workflow.DEFAULT_LEARNER``.
DEFAULT_LEARNER = "rational-svc"
#: ``ratkit.learners.kernel_learner._qp.QP_SOLVERS``: the cvxpy solvers of ``kernel-learner``.
QP_SOLVERS: tuple[str, ...] = ("CLARABEL", "OSQP", "SCS", "HIGHS")
#: ``ratkit.plugins.registry.KINDS``.
PLUGIN_KINDS: tuple[str, ...] = ("kernel", "learner", "recommender", "representation")
#: ``ratkit.datasets._FORMATS``: the formats of :func:`ratkit.datasets.load_sequences`.
SEQUENCE_FORMATS: tuple[str, ...] = ("auto", "tsv", "splice", "reuters", "lines")


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, with the default of every option that takes a value appended as
    ``(default: …)`` unless its help already states it (says "default") or the default is
    None (the help then says what happens without the option)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            not action.option_strings
            or action.nargs == 0
            or action.required
            or default is None
            or default is argparse.SUPPRESS
            or "default" in text.lower()
        ):
            return text
        shown = " ".join(map(str, default)) if isinstance(default, (list, tuple)) else str(default)
        return f"{text} (default: {shown.replace('%', '%%')})"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser with :class:`HelpFormatter`; its subparsers are Parsers too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


class _DeprecatedAlias(argparse.Action):
    """A former spelling of an option: stores like the current one and says so on stderr."""

    def __init__(self, option_strings: list[str], dest: str, *, current: str, **kwargs: Any) -> None:
        self.current = current
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: Any = None
    ) -> None:
        print(f"{parser.prog}: note: {option} is deprecated; use {self.current}.", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_deprecated_alias(parser: argparse.ArgumentParser, old: str, current: str, dest: str, **kwargs: Any) -> None:
    """Accept ``old`` (hidden from --help) for the option spelled ``current`` now, with a note on stderr."""
    parser.add_argument(old, dest=dest, action=_DeprecatedAlias, current=current, help=argparse.SUPPRESS, **kwargs)


def png_file(text: str) -> str:
    """An argparse type: a writable path ending in ``.png``."""
    if Path(text).suffix.lower() != ".png":
        raise argparse.ArgumentTypeError(f"expected a file name ending in .png, got {text!r}")
    return output_file(text)


def add_output(
    parser: argparse.ArgumentParser, *, metavar: str, help: str, required: bool = False, check: bool = True
) -> None:
    """``-o/--output PATH``, the one spelling of every command's output file."""
    parser.add_argument(
        "-o",
        "--output",
        metavar=metavar,
        type=output_file if check else str,
        required=required,
        default=None,
        help=help,
    )


def add_seed(parser: argparse.ArgumentParser, *, what: str) -> None:
    """``--seed N`` (an int ≥ 0, default 0)."""
    parser.add_argument("--seed", metavar="N", type=non_negative_int, default=0, help=f"seed of {what}")


def add_penalty(parser: argparse.ArgumentParser, *, default: float | None, help: str) -> None:
    """``-C C``, the SVM penalty."""
    parser.add_argument("-C", dest="C", metavar="C", type=positive(float), default=default, help=help)


def add_plot(parser: argparse.ArgumentParser, *, what: str) -> None:
    """``--plot FILE.png``: draw ``what`` with ratkit.plots (needs ratkit[plot])."""
    parser.add_argument(
        "--plot",
        metavar="FILE.png",
        type=png_file,
        default=None,
        help=f"draw {what} into this PNG file (needs matplotlib: pip install 'ratkit[plot]'; default: no plot)",
    )


_FORMAT_MEANING = {
    "tsv": "one 'label<TAB>sequence' per line",
    "splice": "UCI splice.data",
    "reuters": "the Reuters-21578 folder, ModApte split",
    "lines": "one unlabelled sequence per line",
}


def add_format(parser: argparse.ArgumentParser, choices: Sequence[str]) -> None:
    """``--format`` with exactly ``choices``, its help generated from them (so they agree)."""
    listed = [f"'{c}' ({_FORMAT_MEANING[c]})" for c in choices if c != "auto"]
    auto = "by the path: a folder of reut2-*.sgm files is reuters, a file named splice.data splice"
    if "lines" in choices:
        auto += ", a file in which no line holds a tab lines, any other file tsv"
    else:
        auto += ", any other file tsv"
    parser.add_argument(
        "--format",
        default="auto",
        choices=list(choices),
        help=f"data format: {', '.join(listed)}, or 'auto' ({auto}; default)",
    )


#: Under ``--format auto``, a tab-free file whose every line splits at one of these into a
#: first field with at most this many distinct values looks labelled (CSV, the UCI splice
#: layout): it is refused rather than read as sequences with the label glued on.
_LABEL_SEPARATORS = (",", ";")
_MAX_LABELS = 20


def resolve_format(path: str, fmt: str, choices: Sequence[str]) -> str:
    """``fmt``, or under ``auto`` with ``lines`` among ``choices``: ``lines`` for a regular file
    not named splice.data in which no line contains a tab (unlabelled sequences, one per
    line, said on stderr); ``auto`` otherwise (then :func:`ratkit.datasets.load_sequences`
    decides). A tab-free file that looks labelled by another separator is refused."""
    p = Path(path)
    if fmt != "auto" or "lines" not in choices or not p.is_file() or p.name == "splice.data":
        return fmt
    with p.open(encoding="utf-8", errors="replace", newline="\n") as fh:
        lines = [line.rstrip("\r\n") for line in fh]
    if any("\t" in line for line in lines):
        return fmt
    rows = [line for line in lines if line.strip()]
    for sep in _LABEL_SEPARATORS:
        if rows and all(sep in line for line in rows):
            labels = {line.split(sep, 1)[0].strip() for line in rows}
            if len(labels) <= min(_MAX_LABELS, max(2, len(rows) // 2)):
                from ratkit.exceptions import DataFormatError

                shown = ", ".join(map(repr, sorted(labels)[:5]))
                raise DataFormatError(
                    f"{path}: no line has a tab, but every line splits at {sep!r} into a first field with "
                    f"{len(labels)} distinct value(s) ({shown}): it looks like labelled data, not one sequence "
                    f"per line. Convert it to label<TAB>sequence, or pass --format lines to read each whole "
                    "line as one sequence."
                )
    print(f"reading {path} as unlabelled sequences, one per line (--format auto: no line has a tab)", file=sys.stderr)
    return "lines"
