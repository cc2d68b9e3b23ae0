"""Proposition 3 / Fig. 8: the smallest eigenvalue of M_n = (exp(−d_e(x_i, x_j))) over {a,b}ⁿ.

Prints λ_min for n = 1..8, saves the plot, and reports the first n where it is negative
(the survey: n = 6). Usage: ``python -m bench.kernels.fig8 [--n-max 8] [--out bench/out/fig8.png]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ratkit.automata.kernels.diagnostics import edit_distance_min_eigenvalues


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-max", type=int, default=8)
    parser.add_argument("--out", default="bench/out/fig8_edit_distance.png")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    eig = edit_distance_min_eigenvalues(args.n_max)
    elapsed = time.perf_counter() - start
    print("Fig. 8: smallest eigenvalue of M_n = exp(-d_e(x_i, x_j)), x over {a,b}^n")
    for n, lam in eig.items():
        print(f"  n = {n}: {2**n:4d} strings, lambda_min = {lam:+.6f}")
    negative = [n for n, lam in eig.items() if lam < 0]
    first = negative[0] if negative else None
    print(f"first n with a negative eigenvalue: {first} (survey: 6); {elapsed:.1f} s")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - plot extra not installed
        print("matplotlib not installed: no plot (pip install 'ratkit[plot]')")
        return 0 if first == 6 else 1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(list(eig), list(eig.values()), "o-")
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("n (strings of length n over {a, b})")
    ax.set_ylabel(r"$\lambda_{\min}(M_n)$")
    ax.set_title(rf"$M_n = \exp(-d_e(x_i, x_j))$ is not PSD from n = {first}")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"plot: {out}")
    return 0 if first == 6 else 1


if __name__ == "__main__":
    sys.exit(main())
