"""Brute-force oracles for the PT tests, written from the definitions (survey §IV-A), not from pt.

- u ⊑ x by trying every choice of |u| positions of x (eq. (25));
- membership in a formula or a decision list by walking its definition with that test;
- a DFA run from its arc list;
- Simon's theorem: a regular language is piecewise testable iff its syntactic monoid (the
  transition monoid of its minimal complete DFA) is J-trivial, i.e. M·m·M determines m.

The tests at the bottom check the oracles themselves on hand-made cases.
"""

from __future__ import annotations

import itertools
import random

from ratkit.automata.pt import DecisionList, Formula


def subseq(u, x) -> bool:
    """u ⊑ x: some |u| positions of x, in order, spell u (str or token sequences)."""
    u = tuple(u)
    positions = itertools.combinations(range(len(x)), len(u))
    return any(tuple(x[i] for i in idx) == u for idx in positions)


def all_subseqs(x: str) -> set[str]:
    return {"".join(c) for k in range(len(x) + 1) for c in itertools.combinations(x, k)}


def member(definition, x: str) -> bool:
    """x ∈ L for a pt.Formula (Boolean combination of ideals) or a pt.DecisionList (Alg. 2)."""
    if isinstance(definition, DecisionList):
        for strings, sign in definition.entries:
            if any(subseq(u, x) for u in strings):
                return sign
        return definition.entries[-1][1]
    assert isinstance(definition, Formula)
    op, args = definition.op, definition.args
    if op == "ideal":
        return any(subseq(u, x) for u in args)
    if op == "not":
        return not member(args[0], x)
    a, b = member(args[0], x), member(args[1], x)
    return {"and": a and b, "or": a or b, "sub": a and not b, "xor": a != b}[op]


def score(weights: dict[str, int], x: str) -> int:
    """⟨w, φ(x)⟩ with φ(x)_u = [u ⊑ x], summed over the support of w."""
    return sum(w for u, w in weights.items() if subseq(u, x))


def strings(symbols: str, max_len: int):
    for n in range(max_len + 1):
        for t in itertools.product(symbols, repeat=n):
            yield "".join(t)


class Dfa:
    """A complete DFA (a sink added for missing arcs) read from a ratkit acceptor's arcs."""

    def __init__(self, t, symbols: str):
        self.symbols = symbols
        n = t.num_states
        sink = n
        self.delta = [{a: sink for a in symbols} for _ in range(n + 1)]
        for arc in t.arcs():
            assert arc.ilabel == arc.olabel and arc.ilabel != ""
            assert self.delta[arc.src][arc.ilabel] == sink, "not deterministic"
            self.delta[arc.src][arc.ilabel] = arc.dst
        self.start = t.start
        self.finals = {q for q, w in t.finals().items() if w}

    @classmethod
    def from_table(cls, delta, start, finals, symbols):
        self = cls.__new__(cls)
        self.symbols, self.delta, self.start, self.finals = symbols, delta, start, set(finals)
        return self

    def __call__(self, x: str) -> bool:
        q = self.start
        for a in x:
            q = self.delta[q][a]
        return q in self.finals

    def minimal(self) -> Dfa:
        """Moore's partition refinement on the accessible part."""
        seen, todo = {self.start}, [self.start]
        while todo:
            q = todo.pop()
            for a in self.symbols:
                if self.delta[q][a] not in seen:
                    seen.add(self.delta[q][a])
                    todo.append(self.delta[q][a])
        states = sorted(seen)
        block = {q: int(q in self.finals) for q in states}
        while True:
            sig = {q: (block[q], tuple(block[self.delta[q][a]] for a in self.symbols)) for q in states}
            ids = {s: i for i, s in enumerate(sorted(set(sig.values())))}
            new = {q: ids[sig[q]] for q in states}
            if len(set(new.values())) == len(set(block.values())):
                break
            block = new
        ids = {b: i for i, b in enumerate(sorted(set(block.values())))}
        block = {q: ids[b] for q, b in block.items()}
        delta = [None] * len(ids)
        for q in states:
            delta[block[q]] = {a: block[self.delta[q][a]] for a in self.symbols}
        finals = {block[q] for q in states if q in self.finals}
        return Dfa.from_table(delta, block[self.start], finals, self.symbols)


def transition_monoid(d: Dfa, limit: int = 200):
    """The transformations δ(·, w), w ∈ Σ*, as tuples; None when there are more than ``limit``."""
    n = len(d.delta)
    gens = [tuple(d.delta[q][a] for q in range(n)) for a in d.symbols]
    monoid = {tuple(range(n))}
    todo = list(monoid)
    while todo:
        m = todo.pop()
        for g in gens:
            p = tuple(g[m[q]] for q in range(n))  # m then g
            if p not in monoid:
                monoid.add(p)
                todo.append(p)
                if len(monoid) > limit:
                    return None
    return monoid


def is_pt(d: Dfa, limit: int = 200):
    """Simon: PT iff the syntactic monoid is J-trivial (m ↦ M m M injective). None: too big."""
    monoid = transition_monoid(d.minimal(), limit)
    if monoid is None:
        return None
    ms = list(monoid)

    def mul(x, y):  # x then y
        return tuple(y[x[q]] for q in range(len(x)))

    ideals = set()
    for m in ms:
        ideal = frozenset(mul(mul(a, m), b) for a in ms for b in ms)
        if ideal in ideals:
            return False
        ideals.add(ideal)
    return True


def random_dfa(rng: random.Random, symbols: str, n_states: int) -> Dfa:
    delta = [{a: rng.randrange(n_states) for a in symbols} for _ in range(n_states)]
    finals = {q for q in range(n_states) if rng.random() < 0.5}
    return Dfa.from_table(delta, 0, finals, symbols)


# -- the oracles on hand-made cases --------------------------------------------------------
def test_subseq_oracle_on_hand_made_cases():
    assert subseq("", "") and subseq("", "ab") and subseq("ac", "abc") and subseq("aa", "aba")
    assert not subseq("ca", "abc") and not subseq("aa", "ab") and not subseq("a", "")
    assert all_subseqs("aba") == {"", "a", "b", "aa", "ab", "ba", "aba"}


def test_simon_oracle_on_known_languages():
    # Ψ(ab) over {a, b}: PT.  (ab)*: not PT.  An even number of a's: not PT.
    psi_ab = Dfa.from_table([{"a": 1, "b": 0}, {"a": 1, "b": 2}, {"a": 2, "b": 2}], 0, {2}, "ab")
    ab_star = Dfa.from_table([{"a": 1, "b": 2}, {"a": 2, "b": 0}, {"a": 2, "b": 2}], 0, {0}, "ab")
    even_a = Dfa.from_table([{"a": 1, "b": 0}, {"a": 0, "b": 1}], 0, {0}, "ab")
    ends_a = Dfa.from_table([{"a": 1, "b": 0}, {"a": 1, "b": 0}], 0, {1}, "ab")
    assert is_pt(psi_ab) is True
    assert is_pt(ab_star) is False and is_pt(even_a) is False and is_pt(ends_a) is False
    assert [psi_ab(x) for x in ("ab", "ba", "bab")] == [True, False, True]
    assert len(psi_ab.minimal().delta) == 3
