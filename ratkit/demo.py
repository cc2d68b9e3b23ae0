"""The main job on the bundled data (``ratkit demo`` / ``make demo``).

Builds the bigram-counting transducer T of the survey's Fig. 2 over the DNA alphabet,
forms the PDS rational kernel K = Ψ(⟦T ∘ T⁻¹⟧), evaluates it on bundled splice-junction
sequences by composing X ∘ (T ∘ T⁻¹) ∘ Y for every pair, and checks every value against a
direct count Σ_z c(x, z) c(y, z).
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from ratkit.automata import PROBABILITY, Alphabet, compose, evaluate, from_arcs, invert
from ratkit.datasets import load_splice

__all__ = ["bigram_counter", "run_demo"]


def bigram_counter(alphabet: Alphabet):
    """T(x, z) = number of occurrences of the bigram z in x (survey Fig. 2)."""
    arcs = []
    for s in alphabet:
        arcs += [(0, s, "", 1.0, 0), (0, s, s, 1.0, 1), (1, s, s, 1.0, 2), (2, s, "", 1.0, 2)]
    return from_arcs(arcs, start=0, finals={2: 1.0}, semiring=PROBABILITY, alphabet=alphabet)


def _direct(x: str, y: str) -> int:
    cx, cy = Counter(zip(x, x[1:])), Counter(zip(y, y[1:]))
    return sum(c * cy[z] for z, c in cx.items())


def run_demo(per_class: int = 4, print_fn=print) -> float:
    """Run the demo; returns the largest |K_transducer − K_direct| (0 when all agree)."""
    data = load_splice()
    alphabet = Alphabet(sorted(set("".join(data.sequences))))
    picked = []
    for cls in sorted(set(data.labels)):
        picked += [i for i, lab in enumerate(data.labels) if lab == cls][:per_class]
    xs = [data.sequences[i] for i in picked]
    print_fn(f"data: {data.source} ({len(data)} sequences of {len(xs[0])} nt); alphabet {''.join(alphabet)}")
    t = bigram_counter(alphabet)
    s = compose(t, invert(t))
    print_fn(f"T (bigram counter): {t!r}\nT ∘ T⁻¹ (PDS kernel): {s!r}")
    start = time.perf_counter()
    K = np.array([[evaluate(s, x, y) for y in xs] for x in xs])
    elapsed = time.perf_counter() - start
    D = np.array([[_direct(x, y) for y in xs] for x in xs], dtype=float)
    err = float(np.abs(K - D).max())
    labels = [data.labels[i] for i in picked]
    print_fn(f"\nK(x, y) = Σ_z c(x,z) c(y,z) on {len(xs)} sequences ({len(xs) ** 2} compositions, {elapsed:.2f} s):")
    print_fn("        " + " ".join(f"{lab:>5}" for lab in labels))
    for lab, row in zip(labels, K):
        print_fn(f"  {lab:>4}  " + " ".join(f"{v:5.0f}" for v in row))
    eig = np.linalg.eigvalsh(K)
    print_fn(f"\nsymmetric: {np.allclose(K, K.T)}; smallest eigenvalue {eig[0]:.3g} (PDS: ≥ 0 up to round-off)")
    print_fn(f"largest |transducer − direct count|: {err:.3g}")
    return err
