"""The ``ratkit`` command line: parses arguments, calls library functions, prints.

Each part of the package contributes its own subcommands through a
``register_commands(subparsers)`` function; this module only assembles them. Building the
parsers imports no library module (see :mod:`._common`): ``ratkit --help`` and
``ratkit COMMAND --help`` answer at once, and a command imports its implementation when it
runs.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import importlib
import os
import stat
import sys
import traceback
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ratkit import __version__
from ratkit._console import show_notes_on_stderr
from ratkit.cli._common import Parser

__all__ = ["main", "build_parser"]

# Modules that contribute subcommands, each with ``register_commands(subparsers)``.
_COMMAND_MODULES: tuple[str, ...] = (
    "ratkit.cli._plugins",
    "ratkit.cli._demo",
    "ratkit.cli._recsys",
    "ratkit.cli._train",
    "ratkit.cli._gram",
    "ratkit.cli._kernel_learner",
    "ratkit.cli._kernels",
)


def _stdout_is_a_pipe() -> bool:
    """Whether standard output is a pipe (or socket) whose reader may go away."""
    try:
        mode = os.fstat(sys.stdout.fileno()).st_mode
    except (OSError, ValueError, AttributeError):  # no real file descriptor (captured output)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _user_errors() -> tuple[type[BaseException], ...]:
    """What a command may fail with because of its input (a bad value, a missing or malformed
    file, a full disk): reported on one line with exit status 2, like argparse's usage errors."""
    from ratkit.exceptions import RatkitError

    return (RatkitError, OSError, ValueError, TypeError, LookupError, ArithmeticError, MemoryError)


def __getattr__(name: str) -> Any:
    if name == "USER_ERRORS":  # imported when asked for: ratkit.exceptions imports scikit-learn
        return _user_errors()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ratkit",
        description="Weighted finite-state transducers, rational kernels and learners.",
    )
    parser.add_argument("--version", action="version", version=f"ratkit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register_commands(subparsers)
    _name_commands(parser)
    return parser


def _name_commands(parser: argparse.ArgumentParser) -> None:
    """Give every (sub)command its full name, e.g. ``recsys evaluate``, for error messages."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.set_defaults(command_name=sub.prog.removeprefix("ratkit "), command_parser=sub)
                _name_commands(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ratkit`` console script; returns the process exit code.

    Bad input ends with one line ``ratkit <command>: error: …`` on standard error and exit
    status 2 (as argparse reports usage errors), never with a traceback; a defect of ratkit
    itself is reported on one line too, with exit status 1, and an interrupt exits with
    130. Set ``RATKIT_TRACEBACK=1`` to see the traceback of an error. On a terminal whose
    encoding cannot show a character (a C locale, cron), it is printed as a backslash escape.
    """
    with _tolerant_streams():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    first = argv[0] if argv else ""
    known = first == "-h" or (len(first) > 2 and any(o.startswith(first) for o in ("--help", "--version")))
    if first.startswith("-") and not known:
        # before the COMMAND: the only options are --help and --version (argparse would say only
        # that COMMAND is missing, not which argument it did not recognise)
        parser.error(f"unrecognized arguments: {first} (options come after the COMMAND; 'ratkit --help' lists them)")
    args, extra = parser.parse_known_args(argv)
    if extra:  # reported by the command's own parser: 'ratkit train: error: …', with its usage
        args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    command = args.command_name
    clash = _output_over_input(args)
    if clash is not None:
        args.command_parser.error(clash)
    missing = _missing_dependency(args)
    if missing is not None:
        print(f"ratkit {command}: error: {missing}", file=sys.stderr)
        return 2
    bad_variable = _environment_error()
    if bad_variable is not None:
        print(f"ratkit {command}: error: {bad_variable}", file=sys.stderr)
        return 2
    hide_notes = show_notes_on_stderr(quiet=vars(args).get("quiet", False))  # "compiling numba kernels …"
    try:
        with warnings.catch_warnings():  # restores the caller's warning display on return
            warnings.showwarning = _warning_printer(command)
            status = int(args.func(args) or 0)
            sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
            return status
    except KeyboardInterrupt:
        print(f"ratkit {command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        if not _stdout_is_a_pipe():
            raise
        # the reader of standard output went away (`ratkit predict … | head`): stop quietly, as
        # Unix tools do on SIGPIPE, with nothing more written to the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, the status of a Unix tool killed by it
    except _user_errors() as exc:
        if _traceback_wanted():
            traceback.print_exc()
        print(f"ratkit {command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # a defect of ratkit or of a plugin, not of the input: say whose, on one line
        if _traceback_wanted():
            traceback.print_exc()
        plugin = _raising_plugin(exc)
        if plugin is not None:
            from ratkit.plugins.registry import qualified_name

            provider = plugin.distribution or "its authors"
            print(
                f"ratkit {command}: error in the third-party {plugin.kind} plugin {plugin.name!r} "
                f"({qualified_name(plugin.obj)}, from {provider}): {_one_line(exc)} — a defect of that plugin, not of "
                f"ratkit; please report it to {provider} (RATKIT_TRACEBACK=1 shows the traceback).",
                file=sys.stderr,
            )
            return 1
        print(
            f"ratkit {command}: internal error: {_one_line(exc)} — this is a bug in "
            "ratkit; please report it with the command line (RATKIT_TRACEBACK=1 shows the traceback).",
            file=sys.stderr,
        )
        return 1
    finally:
        hide_notes()


@contextlib.contextmanager
def _tolerant_streams() -> Any:
    """Standard output and error that print any character: where their encoding cannot
    encode every character (a C locale, cron, ``PYTHONIOENCODING=ascii``), the ones it cannot
    are written as backslash escapes (``\\xe9``) for the duration of the command (a C locale's
    ``surrogateescape`` too: it fails on any non-ASCII character but an undecodable byte). Without
    this, a command with non-ASCII labels or ids did its work, then failed with "'ascii' codec
    can't encode character" when it printed the result."""
    changed: list[tuple[Callable[..., Any], Any]] = []
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        reconfigure = getattr(stream, "reconfigure", None)
        if not isinstance(encoding, str) or reconfigure is None:
            continue
        errors = getattr(stream, "errors", None)
        if errors not in ("strict", "surrogateescape"):  # already tolerant (stderr: backslashreplace)
            continue
        try:
            if codecs.lookup(encoding).name in ("utf-8", "utf-16", "utf-32", "utf-8-sig", "gb18030"):
                continue  # encodes every character
            reconfigure(errors="backslashreplace")
        except (LookupError, ValueError, OSError):  # an unknown codec, a closed stream: leave it
            continue
        changed.append((reconfigure, errors))
    try:
        yield
    finally:
        for reconfigure, errors in changed:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors=errors)


def _environment_error() -> str | None:
    """Why a ``RATKIT_*`` environment variable cannot be read (its name, value and what it
    accepts), or None: checked before any work, not when a limit is first read."""
    from ratkit._environment import check_environment

    try:
        check_environment()
    except ValueError as exc:
        return _one_line(exc)
    return None


def _traceback_wanted() -> bool:
    """``RATKIT_TRACEBACK`` is a true flag (1, true, yes); a bad value has already been reported."""
    from ratkit._environment import environment_flag

    try:
        return environment_flag("RATKIT_TRACEBACK")
    except ValueError:
        return False


def _warning_printer(command: str) -> Any:
    """A :func:`warnings.showwarning` that prints one line ``ratkit <command>: warning: …
    (Category)`` on standard error: Python's own format adds the file and line of the
    library code that warned and that source line, which mean nothing to a user of the
    command (a ConvergenceWarning printed ``fitted = self._train(…)`` under each)."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        text = " ".join(str(message).split())
        try:
            print(f"ratkit {command}: warning: {text} ({category.__name__})", file=sys.stderr if file is None else file)
        except OSError:  # as warnings' own printer: a closed stderr loses the warning, not the run
            pass

    return show


#: The options that name a file the command writes.
_OUTPUTS = ("output", "plot")


def _output_over_input(args: argparse.Namespace) -> str | None:
    """Why the command must not run when a file it writes is a file it reads (its data, model,
    spec, ...) or another of its outputs: writing it would destroy what it read, or what it
    wrote first; None when no path is shared. Every other argument naming an existing file
    counts as an input."""
    outputs = [(name, value) for name in _OUTPUTS if isinstance(value := getattr(args, name, None), str) and value]
    if not outputs:
        return None
    for i, (name, value) in enumerate(outputs):
        for other, other_value in outputs[i + 1 :]:
            if os.path.abspath(value) == os.path.abspath(other_value):
                return f"{_option(name)} and {_option(other)} name the same file {value!r}; give each its own path."
    for attr, given in vars(args).items():
        if attr in _OUTPUTS or attr.startswith("command"):
            continue
        for value in given if isinstance(given, (list, tuple)) else [given]:
            if not isinstance(value, str) or not value or not os.path.isfile(value):
                continue
            for name, out in outputs:
                if os.path.exists(out) and os.path.samefile(value, out):
                    return (
                        f"{_option(name)} {out!r} is the file given as {_option(attr)} {value!r}: writing it would "
                        "destroy that input. Give another output path."
                    )
    return None


#: The options that need an optional dependency: (option dest, module, extra).
_NEEDS = (("plot", "matplotlib", "plot"),)


def _missing_dependency(args: argparse.Namespace) -> str | None:
    """Why the command cannot do what an option given asks, for want of an optional
    dependency (``--plot`` without matplotlib); None when all are there. Checked before any
    work: without it, ``train --plot`` trained and wrote the model before failing."""
    for dest, module, extra in _NEEDS:
        if getattr(args, dest, None) is None:
            continue
        try:
            importlib.import_module(module)
        except ImportError as exc:
            absent = isinstance(exc, ModuleNotFoundError) and exc.name == module
            why = "is not installed" if absent else f"fails to import ({_one_line(exc)})"
            flag = _option(dest)
            return f"{flag} needs {module}, which {why}: pip install 'ratkit[{extra}]', or leave out {flag}."
    return None


def _option(dest: str) -> str:
    return "-o/--output" if dest == "output" else "--" + dest.replace("_", "-")


def _raising_plugin(exc: BaseException) -> Any:
    """The :class:`~ratkit.plugins.PluginInfo` of the third-party plugin whose code raised
    ``exc``, or None: the innermost frame of its traceback that belongs to ratkit or to a
    third-party plugin's top-level package decides (frames of numpy and the like are skipped)."""
    try:
        from ratkit.plugins import describe_all

        owners: dict[str, Any] = {}
        for info in describe_all():
            module = getattr(info.obj, "__module__", None)
            if info.distribution != "ratkit" and isinstance(module, str):
                owners.setdefault(module.partition(".")[0], info)
        for frame, _ in reversed(list(traceback.walk_tb(exc.__traceback__))):
            top = str(frame.f_globals.get("__name__", "")).partition(".")[0]
            if top == "ratkit":
                return None
            if top in owners:
                return owners[top]
    except Exception:  # the report of an error must not fail in turn
        return None
    return None


def _one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (an OSError with its file name; the type of an
    exception whose message alone does not say what went wrong, e.g. a KeyError)."""
    from ratkit.exceptions import RatkitError

    if isinstance(exc, OSError) and not isinstance(exc, RatkitError) and exc.strerror:
        text = f"{exc.strerror}: {exc.filename!r}" if exc.filename else exc.strerror
    else:
        text = str(exc)
    text = " ".join(text.split())
    if not text or not isinstance(exc, (RatkitError, ValueError, TypeError, OSError)):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
