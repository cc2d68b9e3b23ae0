"""
A counting transducer, its composition and its path sums
========================================================

A weighted transducer T maps a pair of strings (x, z) to a weight ⟦T⟧(x, z). Here T
*counts bigrams*: it reads x, skips any prefix, copies two consecutive symbols to its
output and skips the rest, so ⟦T⟧(x, z) is the number of times the bigram z occurs in x.

Composing T with its inverse gives the bigram kernel
K(x, y) = ⟦T ∘ T⁻¹⟧(x, y) = Σ_z ⟦T⟧(x, z) ⟦T⟧(y, z), the rational kernel of the survey's
Proposition 1 (positive definite by construction). We build T arc by arc with
:func:`~ratkit.automata.from_arcs`, check K against counting by hand, and draw the
Gram matrix of every string of length 4 over {a, b}.
"""

# %%
# Building T
# ----------
# States 0 and 2 loop on every symbol with output ε (the parts of x before and after the
# bigram); the path 0 → 1 → 2 copies the bigram. All weights are 1 in the probability
# semiring, so a path sum is a count. Printed, a transducer is its OpenFst AT&T text:
# ``source target input output weight``, then the final states and their weights.

import itertools
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np

from ratkit.automata import (
    PROBABILITY,
    Alphabet,
    acceptor,
    compose,
    evaluate,
    from_arcs,
    invert,
    shortest_distance,
)

sigma = Alphabet("ab")
arcs = []
for s in "ab":
    arcs += [
        (0, s, "", 1.0, 0),
        (0, s, s, 1.0, 1),
        (1, s, s, 1.0, 2),
        (2, s, "", 1.0, 2),
    ]
T = from_arcs(
    arcs, start=0, finals={2: 1.0}, semiring=PROBABILITY, alphabet=sigma
)
print(T)
print("⟦T⟧(abab, ab) =", round(evaluate(T, "abab", "ab"), 9))

# %%
# Composition and the shortest distance
# -------------------------------------
# The shortest distance of a transducer is the ⊕-sum of the weights of all its accepting
# paths. Composing the acceptor of x with T keeps the paths that read x, so the shortest
# distance of ``acceptor(x) @ T`` is Σ_z ⟦T⟧(x, z): the number of bigrams of x, ``len(x) − 1``.

x = "abbab"
total = shortest_distance(compose(acceptor(x, alphabet=sigma), T))
print(f"Σ_z ⟦T⟧({x}, z) = {total:.9g}, and |x| − 1 = {len(x) - 1}")

K = compose(T, invert(T))  # ⟦T ∘ T⁻¹⟧(x, y) = Σ_z ⟦T⟧(x, z) ⟦T⟧(y, z)


def bigram_counts(s: str) -> Counter:
    return Counter(s[i : i + 2] for i in range(len(s) - 1))


strings = ["".join(p) for p in itertools.product("ab", repeat=4)]
gram = np.array([[evaluate(K, u, v) for v in strings] for u in strings])
counts = {s: bigram_counts(s) for s in strings}
by_hand = np.array(
    [
        [sum(counts[u][z] * counts[v][z] for z in counts[u]) for v in strings]
        for u in strings
    ]
)
print(
    "largest difference from counting by hand:", np.abs(gram - by_hand).max()
)
smallest = np.linalg.eigvalsh(gram).min()
print(f"smallest eigenvalue of K: {smallest:.1e} (PSD up to rounding)")

# %%
# The Gram matrix
# ---------------
# K(x, y) over the 16 strings of length 4: large where two strings share many bigrams
# (``aaaa`` with itself: 3 · 3 = 9), zero where they share none (``aaaa`` and ``bbbb``).

fig, ax = plt.subplots(figsize=(6.4, 5.4))
image = ax.imshow(gram, cmap="viridis")
ax.set_xticks(
    range(len(strings)), strings, rotation=90, fontfamily="monospace"
)
ax.set_yticks(range(len(strings)), strings, fontfamily="monospace")
ax.set_title("K(x, y) = ⟦T ∘ T⁻¹⟧(x, y), shared bigram counts")
fig.colorbar(image, ax=ax, label="K(x, y)")
fig.tight_layout()
plt.show()
