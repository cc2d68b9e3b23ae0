"""``ratkit kernels ...``: the kernel catalogue (every registered family and combinator, built-in
and plugin, with its parameters), one kernel's value, and the survey's Fig. 8 test of
positive definiteness for any kernel spec.

Everything comes from the plugin registry through
:func:`ratkit.automata.kernels.spec.describe_families`: a new family shows up here by its
registration alone.
"""

from __future__ import annotations

import argparse
import inspect
import json
from typing import TYPE_CHECKING

from ratkit.cli._argtypes import positive, spec_or_path, utf8_text
from ratkit.cli._common import add_plot

if TYPE_CHECKING:
    from ratkit.automata.kernels.spec import FamilyInfo, FamilyParameter

__all__ = ["register_commands", "NEGATIVE_TOLERANCE"]

#: λ_min ≥ −NEGATIVE_TOLERANCE counts as 0 (eigenvalue rounding) in ``check-pds``'s verdict.
NEGATIVE_TOLERANCE = 1e-9


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    kernels = subparsers.add_parser(
        "kernels",
        help="The kernel catalogue: families, combinators, their parameters; evaluate a kernel, test PDS-ness.",
    )
    sub = kernels.add_subparsers(dest="kernels_command", metavar="SUBCOMMAND")
    sub.required = True

    listing = sub.add_parser(
        "list",
        help="Every registered kernel family and combinator (built-in and plugin) with its meaning and parameters.",
    )
    listing.set_defaults(func=_list)

    show = sub.add_parser("show", help="One family: formula, parameters, a spec example and its docstring.")
    show.add_argument("family", metavar="FAMILY", help="a family name as 'ratkit kernels list' prints it")
    show.set_defaults(func=_show)

    ev = sub.add_parser("eval", help="Print K(x, y) for a kernel spec and two strings.")
    _add_kernel(ev)
    ev.add_argument("x", metavar="X", type=utf8_text, help="the first string (one symbol per character)")
    ev.add_argument("y", metavar="Y", type=utf8_text, help="the second string")
    ev.set_defaults(func=_eval)

    pds = sub.add_parser(
        "check-pds",
        help="Smallest eigenvalue of the Gram matrix over all strings of each length (the survey's Fig. 8).",
        description="For n = 1..--max-len, the smallest eigenvalue of M_n = (K(x_i, x_j)) over every string x of "
        "length exactly n over --alphabet, as in the survey's Fig. 8 (Proposition 3), or over every string of "
        "length ≤ n, ε included, with --up-to. A negative value proves the kernel is not PDS: M_n is one of its "
        "Gram matrices. M_n has |alphabet|^n rows (Σ_{m≤n} |alphabet|^m with --up-to).",
    )
    _add_kernel(pds)
    pds.add_argument("--alphabet", type=utf8_text, default="ab", help="the symbols, one per character")
    pds.add_argument("--max-len", metavar="N", type=positive(int), default=6, help="the largest length n")
    pds.add_argument(
        "--up-to", action="store_true", help="strings of every length ≤ n, ε included (default: of length exactly n)"
    )
    add_plot(pds, what="λ_min against n, with the zero line (Fig. 8)")
    pds.set_defaults(func=_check_pds)


def _add_kernel(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kernel",
        metavar="SPEC",
        type=spec_or_path,
        required=True,
        help="kernel spec: a JSON object or a .json/.toml file (see 'ratkit kernels list' and 'ratkit kernels show')",
    )


def _parameter(p: FamilyParameter) -> str:
    """``name: annotation = default``, or ``name: annotation`` for a parameter a spec must give."""
    text = f"{p.name}: {p.annotation}" if p.annotation else p.name
    return text if p.required else f"{text} = {p.default!r}"


def _signature(parameters: tuple[FamilyParameter, ...]) -> str:
    """The parameters as a Python signature: ``(n: int = 3, *, strategy: Strategy = 'auto')``."""
    parts: list[str] = []
    for i, p in enumerate(parameters):
        if p.keyword_only and (i == 0 or not parameters[i - 1].keyword_only):
            parts.append("*")
        parts.append(_parameter(p))
    return f"({', '.join(parts)})"


def _header(family: FamilyInfo) -> str:
    kind = "combinator" if family.is_combinator else "family"
    return f"{family.name}  [{kind}, {family.distribution or 'no distribution'}]"


def _list(args: argparse.Namespace) -> int:
    from ratkit.automata.kernels.spec import describe_families
    from ratkit.plugins import refresh

    refresh()
    families = describe_families()
    for title, combinators in (("Kernel families", False), ("Combinators (kernels built from kernels)", True)):
        group = [f for f in families if f.is_combinator is combinators]
        print(f"{title} ({len(group)}):")
        for family in group:
            print(f"  {_header(family)}")
            print(f"      {family.summary}")
            print(f"      parameters: {_signature(family.parameters)}")
        print()
    print("'ratkit kernels show FAMILY' prints a family's docstring, formula and a spec example.")
    return 0


def _show(args: argparse.Namespace) -> int:
    from ratkit.automata.kernels.spec import describe_family, spec_example

    family = describe_family(args.family)
    print(_header(family))
    print(f"formula: {_formula(family)}")
    print(f"parameters: {_signature(family.parameters)}")
    print(f"spec example: {json.dumps(spec_example(family.name), ensure_ascii=False)}")
    print("docstring:")
    print("\n".join(f"  {line}".rstrip() for line in (family.doc or "(none)").splitlines()))
    return 0


def _formula(family: FamilyInfo) -> str:
    """The docstring's maths line: its summary (by ratkit's convention it states K), or the first
    line with an ``=``."""
    if "=" in family.summary or not family.doc:
        return family.summary
    line = next((ln.strip() for ln in inspect.cleandoc(family.doc).splitlines() if "=" in ln), "")
    return line or family.summary


def _eval(args: argparse.Namespace) -> int:
    from ratkit.automata.kernels import from_spec

    print(repr(float(from_spec(args.kernel)(args.x, args.y))))
    return 0


def _check_pds(args: argparse.Namespace) -> int:
    from ratkit.automata.kernels import from_spec
    from ratkit.automata.kernels.diagnostics import min_eigenvalue_curve
    from ratkit.exceptions import ResourceLimitError

    kernel = from_spec(args.kernel)
    symbols = list(dict.fromkeys(args.alphabet))
    try:  # refused before any string is built when M_n would not fit (ratkit.limits.max_bytes)
        curve = min_eigenvalue_curve(kernel, symbols, args.max_len, up_to=args.up_to)
    except ResourceLimitError as exc:
        raise ResourceLimitError(
            f"{exc} With this command: lower --max-len (each step multiplies the number of strings by "
            f"the {len(symbols)} symbols of --alphabet) or give fewer --alphabet symbols."
        ) from exc
    which = "of length ≤ n, ε included" if args.up_to else "of length exactly n (the survey's Fig. 8)"
    print(f"kernel: {json.dumps(kernel.to_spec(), ensure_ascii=False)}")
    print(f"M_n = (K(x_i, x_j)) over every string {which} over {{{', '.join(symbols)}}}")
    print(f"{'n':>3}  {'strings':>7}  lambda_min")
    for n, lam in curve.items():
        size = sum(len(symbols) ** m for m in range(n + 1)) if args.up_to else len(symbols) ** n
        print(f"{n:>3}  {size:>7}  {lam!r}")
    negative = [n for n, lam in curve.items() if lam < -NEGATIVE_TOLERANCE]
    if negative:
        print(f"not PDS: lambda_min < 0 at n = {', '.join(map(str, negative))} (M_n is a Gram matrix of the kernel)")
    else:
        print(f"no negative eigenvalue up to n = {args.max_len} (below -{NEGATIVE_TOLERANCE:g}): consistent with PDS")
    if args.plot:
        from ratkit import plots

        xlabel = "n (strings of length ≤ n)" if args.up_to else "n (strings of length n)"
        plots.plot_min_eigenvalue(curve, args.plot, xlabel=xlabel)
        print(f"minimum-eigenvalue plot written to {args.plot}")
    return 0
